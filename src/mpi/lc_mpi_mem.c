/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_mem.c — MPI_Alloc_mem and MPI_Free_mem.
 *
 * Plain memory, aligned to a cache line: Locus has no memory that makes
 * communication faster (shared-memory channels copy through their rings
 * or pull with CMA from any address), so no info key changes what is
 * allocated; hints are checked and otherwise ignored, as the standard
 * allows.  Memory from MPI_Alloc_mem may be freed only with MPI_Free_mem
 * (the standard's rule; here it would also work with free()).
 */
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_info.h"

#include <stdlib.h>
#include <string.h>

#define LC_ALLOC_MEM_ALIGN 64

LC_API int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    lc_info_t *hints;
    void *p = NULL;
    int rc;
    LC_TRY(lc_check_initialized());
    if (size < 0) LC_TRY(lc_error(MPI_ERR_ARG, "size %lld is negative", (long long)size));
    LC_TRY(lc_check_info_or_null(info, &hints));
    LC_TRY(lc_check_ptr(baseptr, "baseptr"));
    /* size 0 still gives a pointer MPI_Free_mem takes. */
    if (posix_memalign(&p, LC_ALLOC_MEM_ALIGN, size ? (size_t)size : 1) != 0)
        LC_TRY(lc_error(MPI_ERR_NO_MEM, "cannot allocate %lld bytes", (long long)size));
    memcpy(baseptr, &p, sizeof(p)); /* baseptr is a void ** passed as void * */
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Alloc_mem", rc);
}
LC_MPI_ALIAS(Alloc_mem);

LC_API int PMPI_Free_mem(void *base)
{
    int rc;
    LC_TRY(lc_check_initialized());
    free(base);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Free_mem", rc);
}
LC_MPI_ALIAS(Free_mem);
