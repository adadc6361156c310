/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_blocks.c — checks and byte layout of one side of MPI_Alltoallw
 * and the neighbourhood collectives (lc_mpi_blocks.h).
 */
#include "mpi/lc_mpi_blocks.h"
#include "datatype/lc_dt.h"

/* The arrays the kind needs are there (only read when n > 0). */
static int lc_blocks_arrays(const lc_blocks_t *b, int n)
{
    if (n == 0 || b->kind == LC_BLOCKS_UNIFORM) return MPI_SUCCESS;
    if (!b->icounts && !b->wcounts) return lc_error(MPI_ERR_ARG, "%scounts is NULL", b->side);
    if (!b->idispls && !b->wdispls) return lc_error(MPI_ERR_ARG, "%sdispls is NULL", b->side);
    if (b->kind == LC_BLOCKS_W && !b->types) return lc_error(MPI_ERR_ARG, "%stypes is NULL", b->side);
    return MPI_SUCCESS;
}

int lc_blocks_resolve(const lc_blocks_t *b, int n, size_t *bytes, ptrdiff_t *off)
{
    int rc = lc_blocks_arrays(b, n);
    if (rc != MPI_SUCCESS) return rc;
    ptrdiff_t packed = 0;
    for (int i = 0; i < n; i++) {
        MPI_Count count = b->icounts ? b->icounts[i] : b->wcounts ? b->wcounts[i] : b->count;
        MPI_Datatype dt = b->types ? b->types[i] : b->type;
        if (count < 0)
            return lc_error(MPI_ERR_COUNT, "%scount of block %d (%lld) is negative", b->side, i, (long long)count);
        if ((rc = lc_check_dtype(dt)) != MPI_SUCCESS) return rc;
        /* In the w forms the buffer may be MPI_BOTTOM (NULL) with absolute
         * addresses as displacements: only the size is checked then. */
        const void *base = b->kind == LC_BLOCKS_W && b->buf == MPI_BOTTOM ? (const void *)b : b->buf;
        if ((rc = lc_check_buf(base, count, dt)) != MPI_SUCCESS) return rc;
        /* a derived or padded pair type: its packed size is what moves,
         * its extent is the unit of the v forms' displacements and of
         * packed blocks */
        lc_dt_t *t = lc_mpi_coll_type(dt);
        size_t size = t ? (size_t)t->size : lc_dtype_size(dt);
        ptrdiff_t ext = t ? (ptrdiff_t)lc_dt_extent(t) : (ptrdiff_t)size;
        bytes[i] = (size_t)count * size;
        ptrdiff_t unit = b->kind == LC_BLOCKS_W ? 1 : ext;
        if (b->idispls)
            off[i] = (ptrdiff_t)b->idispls[i] * unit;
        else if (b->wdispls)
            off[i] = (ptrdiff_t)b->wdispls[i] * unit;
        else if (b->same)
            off[i] = 0;
        else
            off[i] = packed;
        packed += (ptrdiff_t)count * ext;
    }
    return MPI_SUCCESS;
}
