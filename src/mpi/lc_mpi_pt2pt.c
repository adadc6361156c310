/*
 * lc_mpi_pt2pt.c — status and datatype queries of point-to-point
 * messages: MPI_Get_count, Get_elements, Type_size, Pack_size.  (The
 * operations themselves: lc_mpi_send.c, lc_mpi_recv.c, lc_mpi_sendrecv.c,
 * lc_mpi_probe.c, lc_mpi_persistent.c, lc_mpi_bsend.c.)
 */
#include "mpi/lc_mpi_request.h"

#include <stdlib.h>
#include <string.h>

/* ---- status queries ---------------------------------------------------------- */

static int lc_status_count(const MPI_Status *status, MPI_Datatype dt, int *count, const char *func)
{
    int rc = lc_check_dtype(dt);
    if (!rc && (!status || status == MPI_STATUS_IGNORE || !count))
        rc = lc_error(MPI_ERR_ARG, "status or count is NULL/MPI_STATUS_IGNORE");
    if (rc) return lc_mpi_error(NULL, func, rc);
    uint64_t bytes = (uint32_t)status->count_lo | ((uint64_t)((unsigned)status->count_hi_and_cancelled >> 1) << 32);
    size_t size = lc_dtype_size(dt);
    if (size == 0) *count = 0;
    else if (bytes % size || bytes / size > 0x7fffffff) *count = MPI_UNDEFINED;
    else *count = (int)(bytes / size);
    return MPI_SUCCESS;
}

LC_API int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    return lc_status_count(status, datatype, count, "MPI_Get_count");
}
LC_MPI_ALIAS(Get_count);

/* Elements are the basic parts of a datatype: one per item, except for
 * the value+index pair types, which hold two. */
LC_API int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    int rc = lc_status_count(status, datatype, count, "MPI_Get_elements");
    if (rc || *count == MPI_UNDEFINED) return rc;
    const lc_dtype_info_t *info = lc_dtype_lookup(datatype);
    if (info->cls == LC_DT_PAIR) *count *= 2;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Get_elements);

LC_API int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    int rc = lc_check_dtype(datatype);
    if (!rc && !size) rc = lc_error(MPI_ERR_ARG, "size is NULL");
    if (rc) return lc_mpi_error(NULL, "MPI_Type_size", rc);
    *size = (int)lc_dtype_lookup(datatype)->type_size;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Type_size);

/* Predefined datatypes pack as their items; the extent (padding of the
 * pair types included) is an upper bound, as MPI allows, and is what a
 * buffered send of the same data occupies. */
LC_API int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    lc_comm_t *c;
    int rc = lc_check_comm(comm, &c);
    if (!rc) rc = lc_check_count(incount);
    if (!rc) rc = lc_check_dtype(datatype);
    if (!rc && !size) rc = lc_error(MPI_ERR_ARG, "size is NULL");
    if (rc) return lc_mpi_error(c, "MPI_Pack_size", rc);
    size_t bytes = lc_bytes(incount, datatype);
    if (bytes > 0x7fffffff)
        return lc_mpi_error(c, "MPI_Pack_size",
                            lc_error(MPI_ERR_VALUE_TOO_LARGE, "%zu bytes do not fit an int", bytes));
    *size = (int)bytes;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Pack_size);
