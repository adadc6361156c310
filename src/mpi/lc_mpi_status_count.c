/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_status_count.c — MPI_Get_count and MPI_Get_elements (with their
 * _c and _x forms): how many items, and how many basic elements, the
 * bytes of a received message hold.
 *
 * Every type counts by its data bytes (its size, MPI_Type_size): what
 * point-to-point moves per item, padding left out (a pair type such as
 * MPI_DOUBLE_INT too: 12 bytes, lc_mpi_p2p_type).  A partial item of a
 * derived or pair type counts the basic elements it holds whole (as
 * MPICH does); a partial basic element is MPI_UNDEFINED.
 */
#include "mpi/lc_mpi_dt.h"

static int lc_mpi_status_check(const MPI_Status *status, MPI_Datatype datatype, const void *count, lc_dt_t **t_p)
{
    int rc = lc_check_initialized();
    if (!rc && (!status || status == MPI_STATUS_IGNORE))
        rc = lc_error(MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE: pass the status the call filled");
    if (!rc) rc = lc_mpi_dt_arg(datatype, t_p);
    if (!rc) rc = lc_check_ptr(count, "count");
    return rc;
}

static int lc_mpi_get_count_any(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count, const char *fn)
{
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_mpi_status_check(status, datatype, count, &t));
    MPI_Count bytes = lc_mpi_status_bytes(status), per = t->size;
    if (per == 0) *count = 0; /* "a count of zero" for an empty type (MPI 4.1 §3.2.5) */
    else *count = bytes % per ? MPI_UNDEFINED : bytes / per;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, fn, rc);
}

LC_API int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n = 0;
    int rc = lc_mpi_get_count_any(status, datatype, count ? &n : NULL, "MPI_Get_count");
    if (rc == MPI_SUCCESS) *count = lc_mpi_int_or_undefined(n);
    return rc;
}
LC_MPI_ALIAS(Get_count);

LC_API int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return lc_mpi_get_count_any(status, datatype, count, "MPI_Get_count_c");
}
LC_MPI_ALIAS(Get_count_c);

static int lc_mpi_get_elements_any(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count,
                                   const char *fn)
{
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_mpi_status_check(status, datatype, count, &t));
    MPI_Count bytes = lc_mpi_status_bytes(status);
    if (t->size == 0) {
        *count = 0;
    } else if (t->layout == LC_DT_L_BASIC) { /* whole elements only (see above) */
        *count = bytes % t->size ? MPI_UNDEFINED : bytes / t->size;
    } else {
        *count = lc_dt_elements(t, bytes);
    }
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, fn, rc);
}

LC_API int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n = 0;
    int rc = lc_mpi_get_elements_any(status, datatype, count ? &n : NULL, "MPI_Get_elements");
    if (rc == MPI_SUCCESS) *count = lc_mpi_int_or_undefined(n);
    return rc;
}
LC_MPI_ALIAS(Get_elements);

LC_API int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return lc_mpi_get_elements_any(status, datatype, count, "MPI_Get_elements_c");
}
LC_MPI_ALIAS(Get_elements_c);

LC_API int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return lc_mpi_get_elements_any(status, datatype, count, "MPI_Get_elements_x");
}
LC_MPI_ALIAS(Get_elements_x);
