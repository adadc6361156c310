/*
 * lc_mpi_bsend.c — buffered sends: Buffer_attach/detach, Bsend, Ibsend.
 *
 * The message is copied into the attached buffer and sent from there by
 * an internal request; the user's call returns at once.  Each message
 * occupies its size plus MPI_BSEND_OVERHEAD bytes of the buffer, as users
 * are told to reserve.  Space is reclaimed when the internal sends
 * complete (checked at each Bsend and at detach).
 */
#include "mpi/lc_mpi_request.h"

#include <stdlib.h>
#include <string.h>

typedef struct lc_bsend_block {
    size_t offset, len;     /* within the attached buffer, overhead included */
    lc_request_t *req;
} lc_bsend_block_t;

static char *lc_bsend_base;
static size_t lc_bsend_size;
static lc_bsend_block_t *lc_bsend_blocks; /* sorted by offset */
static int lc_bsend_nblocks, lc_bsend_cap;

static void lc_bsend_reap(void)
{
    int j = 0;
    for (int i = 0; i < lc_bsend_nblocks; i++) {
        if (lc_bsend_blocks[i].req->complete) lc_request_release(lc_bsend_blocks[i].req);
        else lc_bsend_blocks[j++] = lc_bsend_blocks[i];
    }
    lc_bsend_nblocks = j;
}

/* First fit; returns the index the new block must take, or -1. */
static int lc_bsend_find(size_t len, size_t *offset_p)
{
    size_t at = 0;
    for (int i = 0; i <= lc_bsend_nblocks; i++) {
        size_t end = i < lc_bsend_nblocks ? lc_bsend_blocks[i].offset : lc_bsend_size;
        if (end >= at && end - at >= len) {
            *offset_p = at;
            return i;
        }
        if (i < lc_bsend_nblocks) at = lc_bsend_blocks[i].offset + lc_bsend_blocks[i].len;
    }
    return -1;
}

/* Reserve `len` bytes of the attached buffer: *offset_p, and the index at
 * which its block record goes (room for one more record is made). */
static int lc_bsend_reserve(size_t len, size_t bytes, size_t *offset_p, int *at_p)
{
    lc_bsend_reap();
    int at = lc_bsend_find(len, offset_p);
    if (at < 0) { /* give completed sends a chance to finish */
        lc_progress();
        lc_bsend_reap();
        at = lc_bsend_find(len, offset_p);
    }
    if (at < 0)
        return lc_error(MPI_ERR_BUFFER,
                        "no room in the attached buffer for a %zu-byte message (%s; each message needs its "
                        "size + MPI_BSEND_OVERHEAD = %d bytes): attach a larger buffer with MPI_Buffer_attach",
                        bytes, lc_bsend_base ? "buffer full" : "no buffer attached", MPI_BSEND_OVERHEAD);
    if (lc_bsend_nblocks == lc_bsend_cap) {
        int cap = lc_bsend_cap ? 2 * lc_bsend_cap : 16;
        lc_bsend_block_t *b = realloc(lc_bsend_blocks, sizeof(*b) * (size_t)cap);
        if (!b) return lc_error(MPI_ERR_NO_MEM, "out of memory for %d buffered-send records", cap);
        lc_bsend_blocks = b;
        lc_bsend_cap = cap;
    }
    *at_p = at;
    return MPI_SUCCESS;
}

static int lc_bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    lc_request_t *req;
    size_t offset = 0;
    int rc, at = 0;
    LC_TRY(lc_check_send(buf, count, dt, dest, tag, comm, &c));
    if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
    size_t bytes = lc_bytes(count, dt);
    /* Exactly what MPI tells users to reserve per message; the block
     * records live outside the user's buffer. */
    size_t len = bytes + MPI_BSEND_OVERHEAD;
    LC_TRY(lc_bsend_reserve(len, bytes, &offset, &at));
    char *copy = lc_bsend_base + offset;
    if (bytes) memcpy(copy, buf, bytes);
    LC_TRY(lc_pt2pt_isend(copy, bytes, dest, tag, c, LC_CTX_PT2PT, LC_MODE_STANDARD, &req));
    lc_request_hold_comm(req); /* the user may free the communicator before it leaves */
    memmove(&lc_bsend_blocks[at + 1], &lc_bsend_blocks[at], sizeof(*lc_bsend_blocks) * (size_t)(lc_bsend_nblocks - at));
    lc_bsend_blocks[at] = (lc_bsend_block_t){ offset, len, req };
    lc_bsend_nblocks++;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

int lc_mpi_bsend_start(lc_request_t *preq)
{
    MPI_Comm comm = preq->comm->handle;
    int rc = lc_bsend(preq->buf, preq->count, preq->dtype, preq->rank, preq->tag, comm, "MPI_Start");
    if (rc) return rc; /* lc_bsend ran the error handler */
    if (!(preq->active = lc_mpi_request_done())) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of requests"));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(preq->comm, "MPI_Start", rc);
}

LC_API int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lc_bsend(buf, count, datatype, dest, tag, comm, "MPI_Bsend");
}
LC_MPI_ALIAS(Bsend);

LC_API int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                       MPI_Request *request)
{
    lc_request_t *req;
    int rc;
    if (!request) LC_TRY(lc_error(MPI_ERR_REQUEST, "request is NULL"));
    rc = lc_bsend(buf, count, datatype, dest, tag, comm, "MPI_Ibsend");
    if (rc) return rc; /* lc_bsend ran the error handler */
    /* The data is in the attached buffer: the user's request is done. */
    if (!(req = lc_mpi_request_done())) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of requests"));
    lc_mpi_request_out(req, request);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Ibsend", rc);
}
LC_MPI_ALIAS(Ibsend);

LC_API int PMPI_Buffer_attach(void *buffer, int size)
{
    int rc;
    LC_TRY(lc_check_initialized());
    if (size < 0) LC_TRY(lc_error(MPI_ERR_ARG, "buffer size %d is negative", size));
    if (!buffer && size > 0) LC_TRY(lc_error(MPI_ERR_BUFFER, "buffer is NULL"));
    if (lc_bsend_base)
        LC_TRY(lc_error(MPI_ERR_BUFFER, "a buffer is already attached: detach it first with MPI_Buffer_detach"));
    lc_bsend_base = buffer;
    lc_bsend_size = (size_t)size;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Buffer_attach", rc);
}
LC_MPI_ALIAS(Buffer_attach);

LC_API int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(buffer_addr, "buffer_addr"));
    LC_TRY(lc_check_ptr(size, "size"));
    /* Detach blocks until every buffered message has left the buffer. */
    for (int i = 0; i < lc_bsend_nblocks; i++) lc_pt2pt_wait(lc_bsend_blocks[i].req);
    lc_bsend_reap();
    *(void **)buffer_addr = lc_bsend_base;
    *size = (int)lc_bsend_size;
    lc_bsend_base = NULL;
    lc_bsend_size = 0;
    free(lc_bsend_blocks);
    lc_bsend_blocks = NULL;
    lc_bsend_cap = 0;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Buffer_detach", rc);
}
LC_MPI_ALIAS(Buffer_detach);
