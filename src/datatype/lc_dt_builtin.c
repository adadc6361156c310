/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_builtin.c — the predefined datatypes as objects of the layer.
 *
 * One static lc_dt_t per entry of util's table, made once.  A basic type
 * is one dense run of its size.  A value+index pair type (MPI_DOUBLE_INT,
 * MPI_2INT, ...) is laid out as the C struct it names, a block list of
 * its two members, so that packing skips the padding (MPI_DOUBLE_INT
 * packs 12 bytes of its 16-byte extent) and external32 converts each
 * member; for reductions it still counts as one basic type.
 */
#include "datatype/lc_dt_impl.h"

#include <stddef.h>

#define LC_DT_MAX_BUILTIN 80

static lc_dt_t lc_dt_builtins[LC_DT_MAX_BUILTIN];
static lc_dt_t *lc_dt_by_low_byte[256]; /* builtin handles 0x4c00ssii: unique ii */
static lc_dt_t *lc_dt_pairs[8];          /* MPICH's direct pair handles 0x8c00000i */
static pthread_once_t lc_dt_builtin_once = PTHREAD_ONCE_INIT;

/* Members of the pair types: value type, and where the int index sits. */
static const struct {
    MPI_Datatype pair, value, index;
    MPI_Aint index_offset;
} lc_dt_pair_layout[] = {
    { MPI_FLOAT_INT, MPI_FLOAT, MPI_INT, offsetof(struct { float v; int i; }, i) },
    { MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT, offsetof(struct { double v; int i; }, i) },
    { MPI_LONG_INT, MPI_LONG, MPI_INT, offsetof(struct { long v; int i; }, i) },
    { MPI_SHORT_INT, MPI_SHORT, MPI_INT, offsetof(struct { short v; int i; }, i) },
    { MPI_2INT, MPI_INT, MPI_INT, offsetof(struct { int v; int i; }, i) },
    { MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT, offsetof(struct { long double v; int i; }, i) },
    { MPI_2INTEGER, MPI_INTEGER, MPI_INTEGER, 4 },
    { MPI_2REAL, MPI_REAL, MPI_REAL, 4 },
    { MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, 8 },
};
static MPI_Aint lc_dt_pair_displs[LC_ARRAY_SIZE(lc_dt_pair_layout)][2];
static lc_dt_t *lc_dt_pair_types[LC_ARRAY_SIZE(lc_dt_pair_layout)][2];

/* (pthread_once has run, or this is its init routine) */
static inline lc_dt_t *lc_dt_builtin_find(MPI_Datatype handle)
{
    unsigned h = (unsigned)handle;
    lc_dt_t *t = NULL;
    if ((h & 0xffff0000u) == 0x4c000000u) t = lc_dt_by_low_byte[h & 0xff];
    else if ((h & 0xfffffff8u) == LC_DT_HANDLE_KIND) t = lc_dt_pairs[h & 7];
    return t && t->handle == handle ? t : NULL;
}

static void lc_dt_builtin_basic(lc_dt_t *t, const lc_dtype_info_t *info)
{
    t->handle = info->handle;
    t->urefs = 1;
    t->layout = LC_DT_L_BASIC;
    t->info = info;
    t->combiner = MPI_COMBINER_NAMED;
    t->flags = LC_DT_F_PREDEFINED | LC_DT_F_COMMITTED | LC_DT_F_DENSE;
    t->align = (uint8_t)info->align;
    t->size = info->type_size;
    t->n_elements = 1;
    t->ext32_size = info->ext32;
    t->lb = 0;
    t->ub = info->size;
    t->true_lb = 0;
    t->true_ub = info->type_size;
    t->basic = info->handle;
    t->name = (char *)info->name;
    if (info->cls == LC_DT_MARKER) { /* MPI_LB, MPI_UB: a marker, no data */
        t->n_elements = 0;
        t->basic = MPI_DATATYPE_NULL;
        t->flags |= info->handle == MPI_LB ? LC_DT_F_LB_MARKER : LC_DT_F_UB_MARKER;
    }
}

/* A pair type as a block list of its members; the summary then gives
 * size, true bounds and external32 size. */
static void lc_dt_builtin_pair(lc_dt_t *t, size_t k)
{
    const lc_dtype_info_t *info = t->info;
    lc_dt_pair_displs[k][0] = 0;
    lc_dt_pair_displs[k][1] = lc_dt_pair_layout[k].index_offset;
    lc_dt_pair_types[k][0] = lc_dt_builtin_find(lc_dt_pair_layout[k].value);
    lc_dt_pair_types[k][1] = lc_dt_builtin_find(lc_dt_pair_layout[k].index);
    t->layout = LC_DT_L_BLOCKS;
    t->info = NULL;
    t->count = 2;
    t->blocklen = 1;
    t->displs = lc_dt_pair_displs[k];
    t->types = lc_dt_pair_types[k];
    if (lc_dt_summarize(t, true)) lc_fatal("datatype table: the layout of %s does not add up", info->name);
    t->flags |= LC_DT_F_PREDEFINED | LC_DT_F_COMMITTED;
    t->ub = t->lb + info->size; /* the C struct's extent */
    t->basic = info->handle;    /* MINLOC/MAXLOC take the pair as one type */
    int rc = MPI_SUCCESS;
    t->loop = lc_dt_loop_of(t, &rc);
    if (rc) lc_fatal("datatype table: out of memory building the layout of %s", info->name);
}

static void lc_dt_builtin_init(void)
{
    size_t n = lc_dtype_count();
    if (n > LC_DT_MAX_BUILTIN) lc_fatal("datatype table: %zu predefined types, room for %d", n, LC_DT_MAX_BUILTIN);
    for (size_t i = 0; i < n; i++) {
        const lc_dtype_info_t *info = lc_dtype_at(i);
        lc_dt_t *t = &lc_dt_builtins[i];
        lc_dt_builtin_basic(t, info);
        unsigned h = (unsigned)info->handle;
        if ((h & 0xffff0000u) == 0x4c000000u) lc_dt_by_low_byte[h & 0xff] = t;
        else if ((h & 0xfffffff8u) == LC_DT_HANDLE_KIND) lc_dt_pairs[h & 7] = t;
    }
    /* pairs after the basics they are made of */
    for (size_t k = 0; k < LC_ARRAY_SIZE(lc_dt_pair_layout); k++) {
        lc_dt_t *t = lc_dt_builtin_find(lc_dt_pair_layout[k].pair);
        if (t) lc_dt_builtin_pair(t, k);
    }
}

lc_dt_t *lc_dt_builtin_get(MPI_Datatype handle)
{
    pthread_once(&lc_dt_builtin_once, lc_dt_builtin_init);
    return lc_dt_builtin_find(handle);
}

lc_dt_t *lc_dt_builtin_of(const lc_dtype_info_t *info)
{
    return lc_dt_builtin_get(info->handle);
}
