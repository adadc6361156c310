/* SPDX-License-Identifier: BSD-3-Clause */
/* env_misc: MPI_Alloc_mem / MPI_Free_mem (several sizes, 0 included,
 * with and without hints; the memory is usable for communication; a
 * negative size fails with MPI_ERR_ARG, as on MPICH), MPI_Pcontrol, MPI_Comm_get_parent
 * (MPI_COMM_NULL when not spawned) and, where the header is MPI 4.1,
 * MPI_Get_hw_resource_info (an info object the caller frees). */
#include "lc_test.h"

#include <stdint.h>

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, size;
    LC_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    LC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

    MPI_Info hints;
    LC_MPI(MPI_Info_create(&hints));
    LC_MPI(MPI_Info_set(hints, "alloc_shm", "true"));
    MPI_Aint sizes[] = { 0, 1, 100, 1 << 20 };
    for (int k = 0; k < 4; k++) {
        int *p = NULL;
        LC_MPI(MPI_Alloc_mem(sizes[k], k % 2 ? hints : MPI_INFO_NULL, &p));
        LC_CHECK(p != NULL || sizes[k] == 0, "MPI_Alloc_mem(%ld) gave NULL", (long)sizes[k]);
        LC_CHECK(((uintptr_t)p & 7) == 0, "MPI_Alloc_mem(%ld) gave %p, not 8-byte aligned", (long)sizes[k], (void *)p);
        size_t n = (size_t)sizes[k] / sizeof(int);
        for (size_t i = 0; i < n; i++) p[i] = (int)i + rank;
        /* send the block round the ring from and into allocated memory */
        if (n > 0 && size > 1) {
            int *q;
            LC_MPI(MPI_Alloc_mem(sizes[k], MPI_INFO_NULL, &q));
            LC_MPI(MPI_Sendrecv(p, (int)n, MPI_INT, (rank + 1) % size, 0, q, (int)n, MPI_INT, (rank + size - 1) % size,
                                0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            int left = (rank + size - 1) % size;
            LC_CHECK(q[0] == left && q[n - 1] == (int)(n - 1) + left, "data through Alloc_mem memory");
            LC_MPI(MPI_Free_mem(q));
        }
        LC_MPI(MPI_Free_mem(p));
    }
    LC_MPI(MPI_Info_free(&hints));
    void *bad;
    int rc = MPI_Alloc_mem(-1, MPI_INFO_NULL, &bad);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_ARG, "MPI_Alloc_mem(-1): class %s, expected MPI_ERR_ARG",
             lc_class_name(lc_class_of(rc)));

    LC_MPI(MPI_Pcontrol(0));
    LC_MPI(MPI_Pcontrol(2, "extra", 3));

    MPI_Comm parent = MPI_COMM_WORLD;
    LC_MPI(MPI_Comm_get_parent(&parent));
    LC_CHECK(parent == MPI_COMM_NULL, "MPI_Comm_get_parent gave %#x, expected MPI_COMM_NULL", (unsigned)parent);

#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    MPI_Info hw = MPI_INFO_NULL;
    int nkeys = -1;
    LC_MPI(MPI_Get_hw_resource_info(&hw));
    LC_CHECK(hw != MPI_INFO_NULL, "MPI_Get_hw_resource_info gave MPI_INFO_NULL");
    LC_MPI(MPI_Info_get_nkeys(hw, &nkeys));
    LC_CHECK(nkeys >= 0, "nkeys %d", nkeys);
#ifdef LOCUS_MPI
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    LC_MPI(MPI_Info_get(hw, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, value, &flag));
    LC_CHECK(flag && strstr(value, "mpi_shared_memory"), "Locus names its resource types in hw_info");
#endif
    LC_MPI(MPI_Info_free(&hw));
#endif
    return lc_finish();
}
