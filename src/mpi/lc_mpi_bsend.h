/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_bsend.h — a buffered-send pool: the space one attached buffer
 * offers (MPI_Buffer_attach: the process's; MPI_Comm_attach_buffer: one
 * communicator's) and the buffered messages still leaving it.
 */
#ifndef LC_MPI_BSEND_H
#define LC_MPI_BSEND_H

#include "mpi/lc_mpi_request.h"

typedef struct lc_bsend_block {
    size_t offset, len; /* within the attached buffer, overhead included */
    lc_request_t *req;
    char *own;          /* MPI_BUFFER_AUTOMATIC: the block's own allocation */
} lc_bsend_block_t;

typedef struct lc_bsend_pool {
    char *base;               /* NULL: nothing attached (unless automatic) */
    size_t size;
    int automatic;            /* MPI_BUFFER_AUTOMATIC: space is allocated per message */
    lc_bsend_block_t *blocks; /* sorted by offset (automatic: in send order) */
    int nblocks, cap;
} lc_bsend_pool_t;

/* The pool MPI_Buffer_attach fills. */
extern lc_bsend_pool_t lc_bsend_proc;
/* The pool a buffered send on `c` uses: the communicator's own when one is
 * attached, else the process's (lc_mpi_bsend_comm.c). */
lc_bsend_pool_t *lc_bsend_pool_of(lc_comm_t *c);
/* Attach `buffer` (or MPI_BUFFER_AUTOMATIC) to an empty pool; error code. */
int lc_bsend_pool_attach(lc_bsend_pool_t *p, void *buffer, MPI_Count size);
/* Wait until every message of the pool has left it (MPI_Buffer_flush). */
void lc_bsend_pool_flush(lc_bsend_pool_t *p);
/* Flush, then empty the pool: *buffer_p, *size_p what was attached. */
void lc_bsend_pool_detach(lc_bsend_pool_t *p, void **buffer_p, MPI_Count *size_p);

#endif
