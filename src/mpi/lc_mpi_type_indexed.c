/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_type_indexed.c — block-list constructors: MPI_Type_indexed,
 * MPI_Type_create_hindexed, MPI_Type_create_indexed_block,
 * MPI_Type_create_hindexed_block, MPI_Type_create_struct (each also _c,
 * and the MPI-1 MPI_Type_hindexed and MPI_Type_struct).
 *
 * One function serves them all: a count, the block lengths (an array or
 * one length for every block), the displacements (in elements of oldtype
 * or in bytes), and for struct one type per block.  The arguments are
 * kept as get_contents must return them: the int forms put counts and
 * element displacements in the integers and byte displacements in the
 * addresses; the _c forms put everything in the large counts.
 */
#include "mpi/lc_mpi_dt.h"

#include <stdlib.h>

typedef struct lc_mpi_blocks {
    int combiner;
    bool large;            /* a _c form */
    bool bytes;            /* displacements in bytes (h- forms, struct) */
    MPI_Count count;
    lc_mpi_arr_t blens;    /* .p NULL: every block has `blocklen` */
    MPI_Count blocklen;
    lc_mpi_arr_t displs;
    const MPI_Datatype *types; /* struct: one per block */
    MPI_Datatype oldtype;  /* others */
    const char *fn;
} lc_mpi_blocks_t;

static bool lc_mpi_blocks_uniform(const lc_mpi_blocks_t *a)
{
    return a->combiner == MPI_COMBINER_INDEXED_BLOCK || a->combiner == MPI_COMBINER_HINDEXED_BLOCK;
}

/* A struct's types are its array, which may be NULL when count is 0
 * (like the other arrays): the combiner says which kind, not the pointer. */
static bool lc_mpi_blocks_struct(const lc_mpi_blocks_t *a)
{
    return a->combiner == MPI_COMBINER_STRUCT;
}

static lc_dt_contents_t *lc_mpi_blocks_contents(const lc_mpi_blocks_t *a, lc_dt_t *old, lc_dt_t **types)
{
    bool uniform = lc_mpi_blocks_uniform(a);
    MPI_Count n = a->count, nb = uniform ? 1 : n, ni, na, nc, nd = lc_mpi_blocks_struct(a) ? n : 1;
    if (a->large) {
        ni = na = 0;
        nc = 1 + nb + n;
    } else {
        nc = 0;
        ni = 1 + nb + (a->bytes ? 0 : n);
        na = a->bytes ? n : 0;
    }
    lc_dt_contents_t *c = lc_dt_contents_new(a->combiner, ni, na, nc, nd);
    if (!c) return NULL;
    MPI_Count k = 0;
    if (a->large) c->counts[k++] = n;
    else c->ints[k++] = (int)n;
    for (MPI_Count i = 0; i < nb; i++) {
        MPI_Count len = uniform ? a->blocklen : lc_arr_get(a->blens, i);
        if (a->large) c->counts[k++] = len;
        else c->ints[k++] = (int)len;
    }
    for (MPI_Count i = 0; i < n; i++) {
        MPI_Count d = lc_arr_get(a->displs, i);
        if (a->large) c->counts[k++] = d;
        else if (a->bytes) c->aints[i] = (MPI_Aint)d;
        else c->ints[k++] = (int)d;
    }
    for (MPI_Count i = 0; i < nd; i++) c->types[i] = types ? types[i] : old;
    return c;
}

/* Check the arrays and convert them for the layer: lengths as counts,
 * displacements in bytes, struct types as objects. */
static int lc_mpi_blocks_convert(const lc_mpi_blocks_t *a, lc_dt_t *old, MPI_Count *blens, MPI_Aint *displs,
                                 lc_dt_t **types)
{
    MPI_Aint ext = old ? lc_dt_extent(old) : 1;
    int rc;
    for (MPI_Count i = 0; i < a->count; i++) {
        if (blens) {
            blens[i] = lc_arr_get(a->blens, i);
            if ((rc = lc_mpi_dt_check_blocklen(blens[i], "a block length"))) return rc;
        }
        if (types && (rc = lc_mpi_dt_old(a->types[i], &types[i]))) return rc;
        MPI_Count d = lc_arr_get(a->displs, i);
        if (a->bytes) displs[i] = (MPI_Aint)d;
        else if (__builtin_mul_overflow((MPI_Aint)d, ext, &displs[i]))
            return lc_error(MPI_ERR_ARG, "displacement %lld times the extent of oldtype overflows the address range",
                            (long long)d);
    }
    return MPI_SUCCESS;
}

static int lc_mpi_type_blocks(const lc_mpi_blocks_t *a, MPI_Datatype *newtype)
{
    lc_dt_t *old = NULL, *t = NULL, **types = NULL;
    MPI_Count *blens = NULL;
    MPI_Aint *displs = NULL;
    size_t n = a->count > 0 ? (size_t)a->count : 1;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_count(a->count));
    if (lc_mpi_blocks_uniform(a)) LC_TRY(lc_mpi_dt_check_blocklen(a->blocklen, "blocklength"));
    else LC_TRY(lc_mpi_dt_check_array(a->blens.p, a->count, "array_of_blocklengths"));
    LC_TRY(lc_mpi_dt_check_array(a->displs.p, a->count, "array_of_displacements"));
    if (lc_mpi_blocks_struct(a))
        LC_TRY(lc_mpi_dt_check_array(a->types, a->count, "array_of_types"));
    else LC_TRY(lc_mpi_dt_old(a->oldtype, &old));
    LC_TRY(lc_check_ptr(newtype, "newtype"));
    displs = malloc(n * sizeof(*displs));
    if (a->blens.p) blens = malloc(n * sizeof(*blens));
    if (lc_mpi_blocks_struct(a)) types = malloc(n * sizeof(*types));
    if (!displs || (a->blens.p && !blens) || (lc_mpi_blocks_struct(a) && !types)) {
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory building a datatype");
        goto err;
    }
    LC_TRY(lc_mpi_blocks_convert(a, old, blens, displs, types));
    LC_TRY(lc_dt_create_blocks(a->count, blens, a->blocklen, displs, types, old,
                               a->combiner == MPI_COMBINER_STRUCT, &t));
    LC_TRY(lc_mpi_dt_publish(t, lc_mpi_blocks_contents(a, old, types), newtype));
    free(blens);
    free(displs);
    free(types);
    return MPI_SUCCESS;
err:
    free(blens);
    free(displs);
    free(types);
    return lc_mpi_error(NULL, a->fn, rc);
}

LC_API int PMPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    lc_mpi_blocks_t a = { MPI_COMBINER_INDEXED, false, false, count, lc_arr_int(array_of_blocklengths), 0,
                          lc_arr_int(array_of_displacements), NULL, oldtype, "MPI_Type_indexed" };
    return lc_mpi_type_blocks(&a, newtype);
}
LC_MPI_ALIAS(Type_indexed);

LC_API int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                               const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    lc_mpi_blocks_t a = { MPI_COMBINER_INDEXED, true, false, count, lc_arr_count(array_of_blocklengths), 0,
                          lc_arr_count(array_of_displacements), NULL, oldtype, "MPI_Type_indexed_c" };
    return lc_mpi_type_blocks(&a, newtype);
}
LC_MPI_ALIAS(Type_indexed_c);

LC_API int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                     const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    lc_mpi_blocks_t a = { MPI_COMBINER_HINDEXED, false, true, count, lc_arr_int(array_of_blocklengths), 0,
                          lc_arr_aint(array_of_displacements), NULL, oldtype, "MPI_Type_create_hindexed" };
    return lc_mpi_type_blocks(&a, newtype);
}
LC_MPI_ALIAS(Type_create_hindexed);

LC_API int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                       const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                       MPI_Datatype *newtype)
{
    lc_mpi_blocks_t a = { MPI_COMBINER_HINDEXED, true, true, count, lc_arr_count(array_of_blocklengths), 0,
                          lc_arr_count(array_of_displacements), NULL, oldtype, "MPI_Type_create_hindexed_c" };
    return lc_mpi_type_blocks(&a, newtype);
}
LC_MPI_ALIAS(Type_create_hindexed_c);

/* MPI-1 name (deprecated; MPICH still exports it): MPI_Type_create_hindexed. */
LC_API int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    lc_mpi_blocks_t a = { MPI_COMBINER_HINDEXED, false, true, count, lc_arr_int(array_of_blocklengths), 0,
                          lc_arr_aint(array_of_displacements), NULL, oldtype, "MPI_Type_hindexed" };
    return lc_mpi_type_blocks(&a, newtype);
}
LC_MPI_ALIAS(Type_hindexed);

LC_API int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                          MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    lc_mpi_blocks_t a = { MPI_COMBINER_INDEXED_BLOCK, false, false, count, { NULL, LC_ARR_INT }, blocklength,
                          lc_arr_int(array_of_displacements), NULL, oldtype, "MPI_Type_create_indexed_block" };
    return lc_mpi_type_blocks(&a, newtype);
}
LC_MPI_ALIAS(Type_create_indexed_block);

LC_API int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                            const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                            MPI_Datatype *newtype)
{
    lc_mpi_blocks_t a = { MPI_COMBINER_INDEXED_BLOCK, true, false, count, { NULL, LC_ARR_COUNT }, blocklength,
                          lc_arr_count(array_of_displacements), NULL, oldtype, "MPI_Type_create_indexed_block_c" };
    return lc_mpi_type_blocks(&a, newtype);
}
LC_MPI_ALIAS(Type_create_indexed_block_c);

LC_API int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                                           MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    lc_mpi_blocks_t a = { MPI_COMBINER_HINDEXED_BLOCK, false, true, count, { NULL, LC_ARR_INT }, blocklength,
                          lc_arr_aint(array_of_displacements), NULL, oldtype, "MPI_Type_create_hindexed_block" };
    return lc_mpi_type_blocks(&a, newtype);
}
LC_MPI_ALIAS(Type_create_hindexed_block);

LC_API int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                             const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                             MPI_Datatype *newtype)
{
    lc_mpi_blocks_t a = { MPI_COMBINER_HINDEXED_BLOCK, true, true, count, { NULL, LC_ARR_COUNT }, blocklength,
                          lc_arr_count(array_of_displacements), NULL, oldtype, "MPI_Type_create_hindexed_block_c" };
    return lc_mpi_type_blocks(&a, newtype);
}
LC_MPI_ALIAS(Type_create_hindexed_block_c);

LC_API int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                   const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                                   MPI_Datatype *newtype)
{
    lc_mpi_blocks_t a = { MPI_COMBINER_STRUCT, false, true, count, lc_arr_int(array_of_blocklengths), 0,
                          lc_arr_aint(array_of_displacements), array_of_types, MPI_DATATYPE_NULL,
                          "MPI_Type_create_struct" };
    return lc_mpi_type_blocks(&a, newtype);
}
LC_MPI_ALIAS(Type_create_struct);

LC_API int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                     const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
                                     MPI_Datatype *newtype)
{
    lc_mpi_blocks_t a = { MPI_COMBINER_STRUCT, true, true, count, lc_arr_count(array_of_blocklengths), 0,
                          lc_arr_count(array_of_displacements), array_of_types, MPI_DATATYPE_NULL,
                          "MPI_Type_create_struct_c" };
    return lc_mpi_type_blocks(&a, newtype);
}
LC_MPI_ALIAS(Type_create_struct_c);

/* MPI-1 name (deprecated; MPICH still exports it): MPI_Type_create_struct. */
LC_API int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                            MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    lc_mpi_blocks_t a = { MPI_COMBINER_STRUCT, false, true, count, lc_arr_int(array_of_blocklengths), 0,
                          lc_arr_aint(array_of_displacements), array_of_types, MPI_DATATYPE_NULL,
                          "MPI_Type_struct" };
    return lc_mpi_type_blocks(&a, newtype);
}
LC_MPI_ALIAS(Type_struct);
