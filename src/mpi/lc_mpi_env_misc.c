/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_env_misc.c — small functions of the environment chapters:
 * MPI_Pcontrol (a hook for profiling libraries: Locus itself does
 * nothing) and MPI_Get_hw_resource_info
 * (MPI 4.1).
 */
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_info.h"

LC_API int PMPI_Pcontrol(const int level, ...)
{
    /* Meaningful only to a profiling library that interposes MPI_Pcontrol;
     * the library's own answer is success at any level (MPI 4.1 §15.2.4). */
    (void)level;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Pcontrol);

/* The info holds "mpi_hw_resource_type": the resource types
 * MPI_Comm_split_type(MPI_COMM_TYPE_HW_GUIDED) takes here, comma
 * separated (lc_mpi_comm_split.c), so a program can ask before it splits. */
LC_API int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    lc_info_t *info = NULL;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(hw_info, "hw_info"));
    LC_TRY(lc_info_new(&info));
    rc = lc_info_set(info, "mpi_hw_resource_type", "mpi_shared_memory,NUMANode");
    if (rc != MPI_SUCCESS) {
        lc_info_free(info);
        goto err;
    }
    LC_TRY(lc_info_publish(info, hw_info)); /* frees info on failure */
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Get_hw_resource_info", rc);
}
LC_MPI_ALIAS(Get_hw_resource_info);
