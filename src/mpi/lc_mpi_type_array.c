/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_type_array.c — MPI_Type_create_subarray and
 * MPI_Type_create_darray (each also _c).  The _c forms take the array
 * sizes as MPI_Count and get_contents returns those as large counts.
 */
#include "mpi/lc_mpi_dt.h"

#include <stdlib.h>

static int lc_mpi_check_ndims(int ndims)
{
    if (ndims > 0) return MPI_SUCCESS;
    return lc_error(MPI_ERR_ARG, "ndims %d must be positive", ndims);
}

/* Three arrays of sizes as counts, one allocation. */
static int lc_mpi_counts3(int ndims, lc_mpi_arr_t a, lc_mpi_arr_t b, lc_mpi_arr_t c, MPI_Count **v_p)
{
    MPI_Count *v = malloc(3 * (size_t)ndims * sizeof(*v));
    if (!v) return lc_error(MPI_ERR_NO_MEM, "out of memory building an array datatype");
    for (int i = 0; i < ndims; i++) {
        v[i] = lc_arr_get(a, i);
        v[ndims + i] = b.p ? lc_arr_get(b, i) : 0;
        v[2 * ndims + i] = c.p ? lc_arr_get(c, i) : 0;
    }
    *v_p = v;
    return MPI_SUCCESS;
}

static int lc_mpi_type_subarray_any(bool large, int ndims, lc_mpi_arr_t sizes, lc_mpi_arr_t subsizes,
                                    lc_mpi_arr_t starts, int order, MPI_Datatype oldtype, MPI_Datatype *newtype,
                                    const char *fn)
{
    lc_dt_t *old, *t;
    MPI_Count *v = NULL;
    lc_dt_contents_t *c;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_check_ndims(ndims));
    LC_TRY(lc_check_ptr(sizes.p, "array_of_sizes"));
    LC_TRY(lc_check_ptr(subsizes.p, "array_of_subsizes"));
    LC_TRY(lc_check_ptr(starts.p, "array_of_starts"));
    LC_TRY(lc_mpi_dt_old(oldtype, &old));
    LC_TRY(lc_check_ptr(newtype, "newtype"));
    LC_TRY(lc_mpi_counts3(ndims, sizes, subsizes, starts, &v));
    LC_TRY(lc_dt_create_subarray(ndims, v, v + ndims, v + 2 * ndims, order, old, &t));
    /* int form: ndims, sizes, subsizes, starts, order; _c: ndims, order + the arrays as counts */
    c = large ? lc_dt_contents_new(MPI_COMBINER_SUBARRAY, 2, 0, 3 * ndims, 1)
              : lc_dt_contents_new(MPI_COMBINER_SUBARRAY, 3 * ndims + 2, 0, 0, 1);
    if (c) {
        c->ints[0] = ndims;
        c->ints[large ? 1 : 3 * ndims + 1] = order;
        for (int i = 0; i < 3 * ndims; i++) {
            if (large) c->counts[i] = v[i];
            else c->ints[1 + i] = (int)v[i];
        }
        c->types[0] = old;
    }
    LC_TRY(lc_mpi_dt_publish(t, c, newtype));
    free(v);
    return MPI_SUCCESS;
err:
    free(v);
    return lc_mpi_error(NULL, fn, rc);
}

LC_API int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                                     const int array_of_starts[], int order, MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    return lc_mpi_type_subarray_any(false, ndims, lc_arr_int(array_of_sizes), lc_arr_int(array_of_subsizes),
                                    lc_arr_int(array_of_starts), order, oldtype, newtype,
                                    "MPI_Type_create_subarray");
}
LC_MPI_ALIAS(Type_create_subarray);

LC_API int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                       const MPI_Count array_of_subsizes[], const MPI_Count array_of_starts[],
                                       int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return lc_mpi_type_subarray_any(true, ndims, lc_arr_count(array_of_sizes), lc_arr_count(array_of_subsizes),
                                    lc_arr_count(array_of_starts), order, oldtype, newtype,
                                    "MPI_Type_create_subarray_c");
}
LC_MPI_ALIAS(Type_create_subarray_c);

/* int form: size, rank, ndims, gsizes, distribs, dargs, psizes, order;
 * _c form: the same without gsizes, which are the large counts. */
static lc_dt_contents_t *lc_mpi_darray_contents(bool large, int size, int rank, int ndims, const MPI_Count *gsizes,
                                                const int *distribs, const int *dargs, const int *psizes, int order,
                                                lc_dt_t *old)
{
    MPI_Count ni = large ? 3 * (MPI_Count)ndims + 4 : 4 * (MPI_Count)ndims + 4;
    lc_dt_contents_t *c = lc_dt_contents_new(MPI_COMBINER_DARRAY, ni, 0, large ? ndims : 0, 1);
    if (!c) return NULL;
    int k = 0;
    c->ints[k++] = size;
    c->ints[k++] = rank;
    c->ints[k++] = ndims;
    for (int i = 0; i < ndims; i++) {
        if (large) c->counts[i] = gsizes[i];
        else c->ints[k++] = (int)gsizes[i];
    }
    for (int i = 0; i < ndims; i++) c->ints[k++] = distribs[i];
    for (int i = 0; i < ndims; i++) c->ints[k++] = dargs[i];
    for (int i = 0; i < ndims; i++) c->ints[k++] = psizes[i];
    c->ints[k] = order;
    c->types[0] = old;
    return c;
}

static int lc_mpi_type_darray_any(bool large, int size, int rank, int ndims, lc_mpi_arr_t gsizes,
                                  const int distribs[], const int dargs[], const int psizes[], int order,
                                  MPI_Datatype oldtype, MPI_Datatype *newtype, const char *fn)
{
    lc_dt_t *old, *t;
    MPI_Count *v = NULL;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_check_ndims(ndims));
    LC_TRY(lc_check_ptr(gsizes.p, "array_of_gsizes"));
    LC_TRY(lc_check_ptr(distribs, "array_of_distribs"));
    LC_TRY(lc_check_ptr(dargs, "array_of_dargs"));
    LC_TRY(lc_check_ptr(psizes, "array_of_psizes"));
    LC_TRY(lc_mpi_dt_old(oldtype, &old));
    LC_TRY(lc_check_ptr(newtype, "newtype"));
    LC_TRY(lc_mpi_counts3(ndims, gsizes, (lc_mpi_arr_t){ NULL, LC_ARR_INT }, (lc_mpi_arr_t){ NULL, LC_ARR_INT }, &v));
    LC_TRY(lc_dt_create_darray(size, rank, ndims, v, distribs, dargs, psizes, order, old, &t));
    LC_TRY(lc_mpi_dt_publish(
        t, lc_mpi_darray_contents(large, size, rank, ndims, v, distribs, dargs, psizes, order, old), newtype));
    free(v);
    return MPI_SUCCESS;
err:
    free(v);
    return lc_mpi_error(NULL, fn, rc);
}

LC_API int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                   const int array_of_distribs[], const int array_of_dargs[],
                                   const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                   MPI_Datatype *newtype)
{
    return lc_mpi_type_darray_any(false, size, rank, ndims, lc_arr_int(array_of_gsizes), array_of_distribs,
                                  array_of_dargs, array_of_psizes, order, oldtype, newtype,
                                  "MPI_Type_create_darray");
}
LC_MPI_ALIAS(Type_create_darray);

LC_API int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                                     const int array_of_distribs[], const int array_of_dargs[],
                                     const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    return lc_mpi_type_darray_any(true, size, rank, ndims, lc_arr_count(array_of_gsizes), array_of_distribs,
                                  array_of_dargs, array_of_psizes, order, oldtype, newtype,
                                  "MPI_Type_create_darray_c");
}
LC_MPI_ALIAS(Type_create_darray_c);
