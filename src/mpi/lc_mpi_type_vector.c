/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_type_vector.c — MPI_Type_contiguous, MPI_Type_vector,
 * MPI_Type_create_hvector (each also _c, and the MPI-1 MPI_Type_hvector),
 * MPI_Type_create_resized(_c), MPI_Type_dup; and the checks the datatype
 * API files share (lc_mpi_dt.h).
 */
#include "mpi/lc_mpi_dt.h"

/* ---- shared checks ------------------------------------------------------------ */

int lc_mpi_dt_committed(MPI_Datatype dt, lc_dt_t **t_p)
{
    lc_dt_t *t;
    int rc = lc_dt_check(dt, &t);
    if (rc) return rc;
    if (lc_unlikely(!lc_dt_is_committed(t)))
        return lc_error(MPI_ERR_TYPE, "datatype %#x is not committed: call MPI_Type_commit", (unsigned)dt);
    *t_p = t;
    return MPI_SUCCESS;
}

int lc_mpi_dt_old(MPI_Datatype dt, lc_dt_t **t_p)
{
    return lc_dt_check(dt, t_p);
}

int lc_mpi_dt_check_blocklen(MPI_Count len, const char *what)
{
    if (lc_likely(len >= 0)) return MPI_SUCCESS;
    return lc_error(MPI_ERR_COUNT, "%s %lld is negative", what, (long long)len);
}

int lc_mpi_dt_check_array(const void *p, MPI_Count count, const char *name)
{
    if (p != NULL || count == 0) return MPI_SUCCESS;
    return lc_error(MPI_ERR_ARG, "%s is NULL but count is %lld", name, (long long)count);
}

int lc_mpi_dt_publish(lc_dt_t *t, lc_dt_contents_t *c, MPI_Datatype *newtype)
{
    if (!c) {
        lc_dt_release(t);
        return lc_error(MPI_ERR_NO_MEM, "out of memory recording a datatype's arguments");
    }
    return lc_dt_publish(t, c, newtype);
}

/* ---- contiguous, vector, hvector ------------------------------------------------ */

/* Arguments as get_contents returns them: the int forms keep ints (the
 * hvector stride is an address), the _c forms keep everything as counts. */
static lc_dt_contents_t *lc_mpi_vector_contents(int combiner, bool large, MPI_Count count, MPI_Count blocklen,
                                                MPI_Count stride, lc_dt_t *old)
{
    MPI_Count v[3] = { count, blocklen, stride };
    int n = combiner == MPI_COMBINER_CONTIGUOUS ? 1 : 3;
    bool h = combiner == MPI_COMBINER_HVECTOR;
    lc_dt_contents_t *c = large ? lc_dt_contents_new(combiner, 0, 0, n, 1)
                                : lc_dt_contents_new(combiner, h ? 2 : n, h ? 1 : 0, 0, 1);
    if (!c) return NULL;
    for (int i = 0; i < n; i++) {
        if (large) c->counts[i] = v[i];
        else if (h && i == 2) c->aints[0] = (MPI_Aint)v[i];
        else c->ints[i] = (int)v[i];
    }
    c->types[0] = old;
    return c;
}

static int lc_mpi_type_vector_any(int combiner, bool large, MPI_Count count, MPI_Count blocklen, MPI_Count stride,
                                  MPI_Datatype oldtype, MPI_Datatype *newtype, const char *fn)
{
    lc_dt_t *old, *t;
    MPI_Aint bstride = (MPI_Aint)stride;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_count(count));
    LC_TRY(lc_mpi_dt_check_blocklen(blocklen, "blocklength"));
    LC_TRY(lc_mpi_dt_old(oldtype, &old));
    LC_TRY(lc_check_ptr(newtype, "newtype"));
    if (combiner == MPI_COMBINER_VECTOR && __builtin_mul_overflow((MPI_Aint)stride, lc_dt_extent(old), &bstride)) {
        rc = lc_error(MPI_ERR_ARG, "stride %lld times the extent of oldtype overflows the address range",
                      (long long)stride);
        goto err;
    }
    if (combiner == MPI_COMBINER_CONTIGUOUS) LC_TRY(lc_dt_create_vector(1, count, 0, old, &t));
    else LC_TRY(lc_dt_create_vector(count, blocklen, bstride, old, &t));
    LC_TRY(lc_mpi_dt_publish(t, lc_mpi_vector_contents(combiner, large, count, blocklen, stride, old), newtype));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, fn, rc);
}

LC_API int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return lc_mpi_type_vector_any(MPI_COMBINER_CONTIGUOUS, false, count, 0, 0, oldtype, newtype,
                                  "MPI_Type_contiguous");
}
LC_MPI_ALIAS(Type_contiguous);

LC_API int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return lc_mpi_type_vector_any(MPI_COMBINER_CONTIGUOUS, true, count, 0, 0, oldtype, newtype,
                                  "MPI_Type_contiguous_c");
}
LC_MPI_ALIAS(Type_contiguous_c);

LC_API int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return lc_mpi_type_vector_any(MPI_COMBINER_VECTOR, false, count, blocklength, stride, oldtype, newtype,
                                  "MPI_Type_vector");
}
LC_MPI_ALIAS(Type_vector);

LC_API int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return lc_mpi_type_vector_any(MPI_COMBINER_VECTOR, true, count, blocklength, stride, oldtype, newtype,
                                  "MPI_Type_vector_c");
}
LC_MPI_ALIAS(Type_vector_c);

LC_API int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    return lc_mpi_type_vector_any(MPI_COMBINER_HVECTOR, false, count, blocklength, stride, oldtype, newtype,
                                  "MPI_Type_create_hvector");
}
LC_MPI_ALIAS(Type_create_hvector);

LC_API int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                                      MPI_Datatype *newtype)
{
    return lc_mpi_type_vector_any(MPI_COMBINER_HVECTOR, true, count, blocklength, stride, oldtype, newtype,
                                  "MPI_Type_create_hvector_c");
}
LC_MPI_ALIAS(Type_create_hvector_c);

/* MPI-1 name (deprecated, removed in MPI 3.0; MPICH still exports it):
 * the same type and combiner as MPI_Type_create_hvector. */
LC_API int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return lc_mpi_type_vector_any(MPI_COMBINER_HVECTOR, false, count, blocklength, stride, oldtype, newtype,
                                  "MPI_Type_hvector");
}
LC_MPI_ALIAS(Type_hvector);

/* ---- resized, dup -------------------------------------------------------------------- */

static int lc_mpi_type_resized_any(bool large, MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                   MPI_Datatype *newtype, const char *fn)
{
    lc_dt_t *old, *t;
    lc_dt_contents_t *c;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_dt_old(oldtype, &old));
    LC_TRY(lc_check_ptr(newtype, "newtype"));
    LC_TRY(lc_dt_create_resized(old, (MPI_Aint)lb, (MPI_Aint)extent, &t));
    c = large ? lc_dt_contents_new(MPI_COMBINER_RESIZED, 0, 0, 2, 1)
              : lc_dt_contents_new(MPI_COMBINER_RESIZED, 0, 2, 0, 1);
    if (c && large) {
        c->counts[0] = lb;
        c->counts[1] = extent;
    } else if (c) {
        c->aints[0] = (MPI_Aint)lb;
        c->aints[1] = (MPI_Aint)extent;
    }
    if (c) c->types[0] = old;
    LC_TRY(lc_mpi_dt_publish(t, c, newtype));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, fn, rc);
}

LC_API int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
    return lc_mpi_type_resized_any(false, oldtype, lb, extent, newtype, "MPI_Type_create_resized");
}
LC_MPI_ALIAS(Type_create_resized);

LC_API int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype)
{
    return lc_mpi_type_resized_any(true, oldtype, lb, extent, newtype, "MPI_Type_create_resized_c");
}
LC_MPI_ALIAS(Type_create_resized_c);

/* The copy is committed when the original is (MPI 4.1 §5.1.10); names
 * are not copied; attributes are, through their copy callbacks. */
LC_API int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    lc_dt_t *old, *t;
    lc_dt_contents_t *c;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_dt_old(oldtype, &old));
    LC_TRY(lc_check_ptr(newtype, "newtype"));
    LC_TRY(lc_dt_create_alias(old, &t));
    if (lc_dt_is_committed(old) && (rc = lc_dt_commit(t))) {
        lc_dt_release(t);
        goto err;
    }
    c = lc_dt_contents_new(MPI_COMBINER_DUP, 0, 0, 0, 1);
    if (c) c->types[0] = old;
    LC_TRY(lc_mpi_dt_publish(t, c, newtype));
    if ((rc = lc_mpi_type_attr_dup(oldtype, *newtype))) {
        lc_dt_handle_free(newtype);
        goto err;
    }
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Type_dup", rc);
}
LC_MPI_ALIAS(Type_dup);
