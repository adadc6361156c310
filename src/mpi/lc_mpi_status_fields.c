/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_status_fields.c — MPI 4.1's accessors of the public status fields:
 * MPI_Status_get/set_source, _tag, _error.  In C the fields are public
 * (MPI_SOURCE, MPI_TAG, MPI_ERROR); the functions exist for languages and
 * tools that cannot reach them (mpi4py calls them when the library has them).
 */
#include "mpi/lc_mpi.h"

static int lc_status_arg(const void *status, const void *out, const char *func)
{
    int rc = lc_check_initialized();
    if (!rc && (!status || status == MPI_STATUS_IGNORE))
        rc = lc_error(MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE: pass a status object");
    if (!rc && out) rc = lc_check_ptr(out, "output argument");
    return rc ? lc_mpi_error(NULL, func, rc) : MPI_SUCCESS;
}

#define LC_STATUS_FIELD(Field, member)                                                          \
    LC_API int PMPI_Status_get_##Field(const MPI_Status *status, int *Field)                   \
    {                                                                                          \
        int rc = lc_status_arg(status, Field, "MPI_Status_get_" #Field);                       \
        if (rc == MPI_SUCCESS) *Field = status->member;                                        \
        return rc;                                                                             \
    }                                                                                          \
    LC_MPI_ALIAS(Status_get_##Field);                                                          \
    LC_API int PMPI_Status_set_##Field(MPI_Status *status, int Field)                          \
    {                                                                                          \
        int rc = lc_status_arg(status, NULL, "MPI_Status_set_" #Field);                        \
        if (rc == MPI_SUCCESS) status->member = Field;                                         \
        return rc;                                                                             \
    }                                                                                          \
    LC_MPI_ALIAS(Status_set_##Field);

LC_STATUS_FIELD(source, MPI_SOURCE)
LC_STATUS_FIELD(tag, MPI_TAG)
LC_STATUS_FIELD(error, MPI_ERROR)
