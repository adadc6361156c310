/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt.h — the datatype layer: predefined and derived datatypes, their
 * handles, and the engine that moves typed data.
 *
 * It sits right above util (util datatype pmi channel ...): channels will
 * pack into ring cells and network packets, so nothing here may call a
 * higher layer.  docs/architecture.md "Datatypes" has the overview.
 *
 * Objects.  Every datatype is an lc_dt_t.  Predefined types are static
 * objects made once from util's table (src/util/lc_dtype.c); derived ones
 * are allocated by the constructors below.  A derived type records
 *   - its typemap summary (size, bounds, alignment, element count),
 *   - its layout: what the constructor built, in bytes (a vector of
 *     blocks, a list of blocks of child types, or a child with new
 *     bounds), which the typed walks (external32, element counts) follow,
 *   - the constructor's arguments (get_envelope/get_contents),
 *   - once committed, its loop program (struct lc_dt_loop below): the
 *     flattened, merged form the pack cursor runs (lc_dt_commit.c).
 *
 * Handles (MPICH ABI).  Predefined types keep MPICH's values.  Derived
 * types are direct handles 0x8c000000 | gen << 18 | slot with slot in
 * [0x100, 2^18): slots below 0x100 belong to MPICH's pair types
 * (0x8c000000..0x8c000004).  gen counts the reuses of a slot (8 bits),
 * and a slot is reused only after 256 other slots have been freed, so a
 * freed handle is not mistaken for a live one until its slot has been
 * recycled 256 times.
 *
 * Lifetime.  `refs` counts the object's owners: the user's handle (one,
 * however many times get_contents handed it out; `urefs` counts those),
 * each type built from it, and each pending operation (lc_dt_retain).
 * MPI_Type_free drops the handle at once (the value becomes invalid) and
 * the object goes when the last owner lets go.
 *
 * Threads: construction, commit and freeing take one mutex; lc_dt_get is
 * lock-free (handle slots are published with release stores).
 */
#ifndef LC_DT_H
#define LC_DT_H

#include <mpi.h>

#include "util/lc_dtype.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

typedef struct lc_dt lc_dt_t;
typedef struct lc_dt_loop lc_dt_loop_t;
typedef struct lc_dt_contents lc_dt_contents_t;

/* Layouts: what one item of a type is made of.  Displacements are bytes
 * from the item's origin (where the buffer address points). */
enum {
    LC_DT_L_BASIC = 1, /* a predefined type (`info`); pair types are L_BLOCKS of two */
    LC_DT_L_VECTOR,    /* count blocks at i*stride, each blocklen copies of child at child's extent */
    LC_DT_L_BLOCKS,    /* count blocks at displs[i], each blens[i] (or blocklen) copies of types[i] (or child) */
    LC_DT_L_RESIZED,   /* child's typemap with other bounds (resized, dup, f90, subarray, darray) */
};

/* flags */
enum {
    LC_DT_F_PREDEFINED = 1 << 0, /* named or f90: never freed, handle permanent */
    LC_DT_F_COMMITTED = 1 << 1,
    LC_DT_F_LB_MARKER = 1 << 2,  /* lb is sticky (MPI_LB, create_resized): MPI 4.1 §5.1.7 */
    LC_DT_F_UB_MARKER = 1 << 3,
    LC_DT_F_DENSE = 1 << 4,      /* the data is one run [true_lb, true_lb + size) in typemap order */
    LC_DT_F_NAME_OWNED = 1 << 5, /* `name` was allocated by set_name */
    LC_DT_F_STRUCT_PAD = 1 << 6, /* L_BLOCKS made by create_struct: ub rounded up to the alignment */
};

struct lc_dt {
    MPI_Datatype handle;       /* the user's handle; MPI_DATATYPE_NULL while none (internal types, freed) */
    uint32_t urefs;            /* user references to `handle` (lc_dt_lock) */
    _Atomic uint32_t refs;     /* owners of the object (see above); predefined: unused */
    uint16_t flags;            /* LC_DT_F_* */
    uint8_t layout;            /* LC_DT_L_* */
    uint8_t align;             /* largest alignment of a basic type inside */
    int combiner;              /* MPI_COMBINER_* */

    /* typemap summary of one item */
    MPI_Count size;            /* data bytes (MPI_Type_size) */
    MPI_Count n_elements;      /* basic elements (MPI_Get_elements); a pair type counts 2 */
    MPI_Count ext32_size;      /* bytes in external32 */
    MPI_Aint lb, ub;           /* extent = ub - lb */
    MPI_Aint true_lb, true_ub; /* bounds of the data alone; both 0 without data */
    MPI_Datatype basic;        /* the predefined type all data is made of (pair types count as one),
                                * or MPI_DATATYPE_NULL when mixed: what reductions may accept */

    /* layout */
    MPI_Count count;           /* L_VECTOR, L_BLOCKS: blocks */
    MPI_Count blocklen;        /* L_VECTOR; L_BLOCKS when blens is NULL */
    MPI_Aint stride;           /* L_VECTOR: bytes between block starts */
    MPI_Count *blens;          /* L_BLOCKS: per-block copies, or NULL */
    MPI_Aint *displs;          /* L_BLOCKS: byte displacement of each block */
    lc_dt_t **types;           /* L_BLOCKS: per-block child, or NULL: `child` */
    lc_dt_t *child;            /* L_VECTOR, L_RESIZED, L_BLOCKS without `types` */
    const lc_dtype_info_t *info; /* L_BASIC */

    lc_dt_contents_t *contents; /* constructor arguments; NULL for predefined types */
    const lc_dt_loop_t *loop;  /* packing program (NULL without data); built at commit or
                                * when a parent is committed */
    void *loop_mem;            /* nodes and arrays this type's program allocated */
    char *name;                /* MPI_Type_set_name; predefined: their standard name */
    void *attrs;               /* attributes: owned by the attribute code (issue 11), NULL until then */
};

/* Constructor arguments as MPI_Type_get_contents(_c) returns them. */
struct lc_dt_contents {
    int combiner;
    MPI_Count ni, na, nc, nd;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    lc_dt_t **types; /* each retained */
};

static inline MPI_Aint lc_dt_extent(const lc_dt_t *t)
{
    return t->ub - t->lb;
}

static inline bool lc_dt_is_predefined(const lc_dt_t *t)
{
    return t->flags & LC_DT_F_PREDEFINED;
}

static inline bool lc_dt_is_committed(const lc_dt_t *t)
{
    return t->flags & LC_DT_F_COMMITTED;
}

/* count items of t are one contiguous run of count * size bytes starting
 * at buf + true_lb: the byte path applies. */
static inline bool lc_dt_is_contig(const lc_dt_t *t, MPI_Count count)
{
    return (t->flags & LC_DT_F_DENSE) && (count <= 1 || t->size == lc_dt_extent(t));
}

/* ---- handles (lc_dt_table.c) ---------------------------------------------- */

/* The object of a live handle (predefined or derived), else NULL. */
lc_dt_t *lc_dt_get(MPI_Datatype handle);
/* Like lc_dt_get, or MPI_ERR_TYPE saying why not (null, freed, not a type). */
int lc_dt_check(MPI_Datatype handle, lc_dt_t **t_p);
/* A handle the user may hold for t (get_contents): its handle (one more
 * user reference), or a new one when the user had freed it. */
int lc_dt_handle_out(lc_dt_t *t, MPI_Datatype *handle_p);
/* MPI_Type_free: drop one user reference to *handle_p and set it to
 * MPI_DATATYPE_NULL. */
int lc_dt_handle_free(MPI_Datatype *handle_p);

/* Pending operations keep a type alive while they use it. */
void lc_dt_retain(lc_dt_t *t);
void lc_dt_release(lc_dt_t *t);

/* ---- construction (lc_dt_create.c, lc_dt_subarray.c, lc_dt_darray.c) ------- */
/* New types come with one reference (the caller's) and no handle;
 * lc_dt_publish gives them one.  Children are retained, never consumed.
 * Errors: MPI_ERR_ARG for layouts whose bounds overflow MPI_Aint,
 * MPI_ERR_NO_MEM. */
int lc_dt_create_vector(MPI_Count count, MPI_Count blocklen, MPI_Aint stride, lc_dt_t *child, lc_dt_t **t_p);
/* blens NULL: every block has `blocklen` copies; types NULL: every block of `child`.
 * is_struct: MPI_Type_create_struct's padding of ub to the alignment. */
int lc_dt_create_blocks(MPI_Count count, const MPI_Count *blens, MPI_Count blocklen, const MPI_Aint *displs,
                        lc_dt_t *const *types, lc_dt_t *child, bool is_struct, lc_dt_t **t_p);
int lc_dt_create_resized(lc_dt_t *child, MPI_Aint lb, MPI_Aint extent, lc_dt_t **t_p);
/* The same typemap and bounds (dup, f90). */
int lc_dt_create_alias(lc_dt_t *child, lc_dt_t **t_p);
int lc_dt_create_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes, const MPI_Count *starts,
                          int order, lc_dt_t *old, lc_dt_t **t_p);
int lc_dt_create_darray(int size, int rank, int ndims, const MPI_Count *gsizes, const int *distribs,
                        const int *dargs, const int *psizes, int order, lc_dt_t *old, lc_dt_t **t_p);
/* The predefined f90 type for (combiner, p, r): cached, never freed. */
int lc_dt_f90(int combiner, int p, int r, lc_dt_t **t_p);
/* MPI_Type_match_size: MPI_ERR_ARG when no predefined type matches. */
int lc_dt_match_size(int typeclass, int size, MPI_Datatype *type_p);
/* MPI_Type_get_value_index: the predefined pair type, or MPI_DATATYPE_NULL. */
MPI_Datatype lc_dt_value_index(MPI_Datatype value, MPI_Datatype index);

/* Contents with room for the given numbers of arguments (one allocation,
 * zeroed; the caller fills the arrays and lc_dt_publish takes it). */
lc_dt_contents_t *lc_dt_contents_new(int combiner, MPI_Count ni, MPI_Count na, MPI_Count nc, MPI_Count nd);
void lc_dt_contents_free(lc_dt_contents_t *c);
/* Attach contents (ownership passes, its types are retained) and give t
 * a handle.  On failure t is released. */
int lc_dt_publish(lc_dt_t *t, lc_dt_contents_t *contents, MPI_Datatype *handle_p);

/* MPI_Type_commit: build the loop program (once). */
int lc_dt_commit(lc_dt_t *t);

/* MPI_Type_set_name / get_name ("" when unnamed). */
int lc_dt_set_name(lc_dt_t *t, const char *name);
const char *lc_dt_name(const lc_dt_t *t);

/* ---- data movement (lc_dt_cursor.c) ---------------------------------------------- */

/* Frames kept inside the cursor; deeper programs allocate. */
#define LC_DT_CURSOR_FRAMES 8

typedef struct lc_dt_frame {
    const lc_dt_loop_t *node;
    uintptr_t origin; /* address of this instance + node->offset */
    MPI_Count i;      /* block (leaf), child instance (nest vector) or entry (nest list) */
    MPI_Count r;      /* nest list: copy within entry i */
    MPI_Aint b;       /* leaf: bytes of block i already done */
} lc_dt_frame_t;

/* A node of a loop program: one instance covers `size` packed bytes at
 * (instance origin + offset).  Programs are immutable once built and
 * shared: a parent's nodes may point at a child type's nodes. */
enum {
    LC_DT_LOOP_LEAF_VEC = 1, /* count blocks of blen bytes at i * stride */
    LC_DT_LOOP_LEAF_LIST,    /* count blocks of blens[i] (or blen) bytes at displs[i] */
    LC_DT_LOOP_NEST_VEC,     /* count instances of child at i * stride */
    LC_DT_LOOP_NEST_LIST,    /* entries[i]: reps instances of its child at displ + r * stride */
};

typedef struct lc_dt_entry {
    MPI_Aint displ;
    MPI_Count reps;
    MPI_Aint stride;
    const lc_dt_loop_t *child;
} lc_dt_entry_t;

struct lc_dt_loop {
    uint8_t kind;          /* LC_DT_LOOP_* */
    uint8_t depth;         /* frames one instance needs */
    MPI_Aint offset;       /* added to the instance origin */
    MPI_Count size;        /* packed bytes of one instance */
    MPI_Count count;       /* blocks / child instances / entries */
    MPI_Aint blen;         /* leaves: bytes per block (when blens is NULL) */
    MPI_Aint stride;       /* vector kinds: bytes between blocks / child instances */
    const MPI_Aint *blens; /* leaf list: bytes of each block, or NULL (all blen) */
    const MPI_Aint *displs;/* leaf list: offset of each block */
    const MPI_Count *prefix; /* lists: packed bytes before block/entry i (for seeking) */
    const lc_dt_entry_t *entries;      /* nest list */
    const lc_dt_loop_t *child;         /* nest vector */
};

/* A resumable position in the packed stream of `count` items of a
 * committed type at `buf`: pack or unpack any byte range in order, or
 * hand out the memory segments (iovecs) of the next bytes.  The type
 * must stay alive (a reference) while the cursor is used. */
typedef struct lc_dt_cursor {
    uintptr_t buf;
    MPI_Count total;  /* packed bytes of the whole message */
    MPI_Count pos;    /* packed offset of the next byte */
    int depth;        /* frames in use; 0 at the end */
    int max_depth;
    lc_dt_loop_t top; /* the count items as one node */
    lc_dt_frame_t *heap; /* frames when deeper than LC_DT_CURSOR_FRAMES */
    lc_dt_frame_t frames[LC_DT_CURSOR_FRAMES];
} lc_dt_cursor_t;

/* t committed (or predefined).  MPI_ERR_NO_MEM only for very deep types. */
int lc_dt_cursor_init(lc_dt_cursor_t *cur, const lc_dt_t *t, MPI_Count count, const void *buf);
void lc_dt_cursor_fini(lc_dt_cursor_t *cur);
/* Move to packed offset `off` (0 <= off <= total). */
void lc_dt_cursor_seek(lc_dt_cursor_t *cur, MPI_Count off);
/* Copy the next min(len, total - pos) bytes out of / into the user's
 * buffer; returns how many. */
size_t lc_dt_cursor_pack(lc_dt_cursor_t *cur, void *out, size_t len);
size_t lc_dt_cursor_unpack(lc_dt_cursor_t *cur, const void *in, size_t len);
/* Describe the next bytes (at most max_bytes, at most max_iov segments,
 * adjacent segments merged) and move past them; returns the bytes. */
size_t lc_dt_cursor_iov(lc_dt_cursor_t *cur, struct iovec *iov, int max_iov, size_t max_bytes, int *n_iov_p);

/* One-shot forms: bytes [off, off + len) of the packed stream (the byte
 * path when the items are one run). */
int lc_dt_pack(const lc_dt_t *t, MPI_Count count, const void *buf, MPI_Count off, void *out, size_t len);
int lc_dt_unpack(const lc_dt_t *t, MPI_Count count, void *buf, MPI_Count off, const void *in, size_t len);

/* ---- typed walks (lc_dt_walk.c, lc_dt_external32.c) ------------------------------ */

/* Visit the data of count items at origin in typemap order, as runs of n
 * consecutive elements of one predefined non-pair type.  A non-zero
 * return from fn stops the walk and is returned. */
typedef int lc_dt_visit_fn_t(void *ctx, const lc_dtype_info_t *basic, uintptr_t addr, MPI_Count n);
int lc_dt_walk(const lc_dt_t *t, uintptr_t origin, MPI_Count count, lc_dt_visit_fn_t *fn, void *ctx);

/* Whole basic elements in the first `bytes` packed bytes of items of t
 * (a basic element the bytes cut does not count); 0 for an empty type. */
MPI_Count lc_dt_elements(const lc_dt_t *t, MPI_Count bytes);

/* external32 (MPI 4.1 §13.5.2): big-endian, standard sizes.  `out` /
 * `in` hold count * t->ext32_size bytes.  MPI_ERR_CONVERSION when a
 * value does not fit its external size (a long beyond 32 bits). */
int lc_dt_pack_external32(const lc_dt_t *t, MPI_Count count, const void *buf, void *out);
int lc_dt_unpack_external32(const lc_dt_t *t, MPI_Count count, void *buf, const void *in);

/* A type as it lies in a file of another data representation (MPI 4.1
 * §14.5.1; lc_dt_filerep.c): every predefined type p becomes a run of
 * fext(ctx, p) bytes, element displacements scale, byte displacements
 * stay.  *out: a new committed internal type (the caller releases it).
 * Errors: those of fext, MPI_ERR_NO_MEM. */
typedef int lc_dt_fext_fn_t(void *ctx, const lc_dt_t *predefined, MPI_Aint *extent_p);
int lc_dt_file_rep(lc_dt_t *t, lc_dt_fext_fn_t *fext, void *ctx, lc_dt_t **out);

/* What point-to-point and collectives accept besides the predefined
 * communication types: a live committed type (MPI_SUCCESS, *t_p), else
 * MPI_ERR_TYPE naming what is wrong with dt (null, freed, a bound marker,
 * not committed). */
int lc_dt_check_comm(MPI_Datatype dt, lc_dt_t **t_p);

#endif
