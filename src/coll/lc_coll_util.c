/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_util.c — point-to-point in the collective context, scratch
 * memory and block layouts shared by the collective algorithms.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_send(const void *buf, size_t bytes, int dest, int tag, lc_comm_t *comm)
{
    return lc_pt2pt_send(buf, bytes, dest, tag, comm, LC_CTX_COLL, LC_MODE_STANDARD);
}

int lc_coll_recv(void *buf, size_t bytes, int src, int tag, lc_comm_t *comm)
{
    return lc_pt2pt_recv(buf, bytes, src, tag, comm, LC_CTX_COLL, MPI_STATUS_IGNORE);
}

int lc_coll_isend(const void *buf, size_t bytes, int dest, int tag, lc_comm_t *comm, lc_request_t **req)
{
    *req = NULL;
    return lc_pt2pt_isend(buf, bytes, dest, tag, comm, LC_CTX_COLL, LC_MODE_STANDARD, req);
}

int lc_coll_irecv(void *buf, size_t bytes, int src, int tag, lc_comm_t *comm, lc_request_t **req)
{
    *req = NULL;
    return lc_pt2pt_irecv(buf, bytes, src, tag, comm, LC_CTX_COLL, req);
}

int lc_coll_waitall(int n, lc_request_t **reqs, int rc)
{
    for (int i = 0; i < n; i++) {
        if (!reqs[i]) continue;
        int e = lc_pt2pt_wait_release(reqs[i], MPI_STATUS_IGNORE);
        reqs[i] = NULL;
        if (e != MPI_SUCCESS && rc == MPI_SUCCESS) rc = e;
    }
    return rc;
}

int lc_coll_sendrecv(const void *sbuf, size_t sbytes, int dest, void *rbuf, size_t rbytes, int src, int tag,
                     lc_comm_t *comm)
{
    lc_request_t *reqs[2] = { NULL, NULL };
    /* Receive first: the message may then land directly in rbuf. */
    int rc = lc_coll_irecv(rbuf, rbytes, src, tag, comm, &reqs[0]);
    if (rc != MPI_SUCCESS) return rc;
    rc = lc_coll_isend(sbuf, sbytes, dest, tag, comm, &reqs[1]);
    if (rc != MPI_SUCCESS) {
        /* The peer may never send now that we failed: withdraw the
         * receive rather than wait for it. */
        lc_pt2pt_cancel(reqs[0]);
    }
    return lc_coll_waitall(2, reqs, rc);
}

void *lc_coll_alloc(size_t bytes, int *rc)
{
    void *p = malloc(bytes ? bytes : 1);
    *rc = p ? MPI_SUCCESS : lc_error(MPI_ERR_NO_MEM, "out of memory allocating %zu bytes of collective scratch space", bytes);
    return p;
}

int lc_coll_copy(void *dst, size_t dbytes, const void *src, size_t sbytes)
{
    if (lc_unlikely(sbytes > dbytes))
        return lc_error(MPI_ERR_TRUNCATE, "this rank's contribution (%zu bytes) is larger than its receive block (%zu bytes)",
                        sbytes, dbytes);
    if (sbytes && dst != src) memcpy(dst, src, sbytes);
    return MPI_SUCCESS;
}

/* ---- layouts ------------------------------------------------------------- */

static int lc_coll_layout_alloc(lc_coll_layout_t *lay, int n)
{
    int rc;
    lay->n = n;
    lay->len = lc_coll_alloc((size_t)n * sizeof(*lay->len), &rc);
    lay->off = lay->len ? lc_coll_alloc((size_t)n * sizeof(*lay->off), &rc) : NULL;
    if (!lay->off) {
        free(lay->len);
        lay->len = NULL;
    }
    return rc;
}

int lc_coll_layout_uniform(lc_coll_layout_t *lay, int n, size_t bytes)
{
    int rc = lc_coll_layout_alloc(lay, n);
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; i < n; i++) {
        lay->len[i] = bytes;
        lay->off[i] = (ptrdiff_t)((size_t)i * bytes);
    }
    return MPI_SUCCESS;
}

int lc_coll_layout_split(lc_coll_layout_t *lay, int n, size_t count, size_t esize)
{
    int rc = lc_coll_layout_alloc(lay, n);
    if (rc != MPI_SUCCESS) return rc;
    size_t q = count / (size_t)n, extra = count % (size_t)n, at = 0;
    for (int i = 0; i < n; i++) {
        size_t c = q + ((size_t)i < extra);
        lay->len[i] = c * esize;
        lay->off[i] = (ptrdiff_t)(at * esize);
        at += c;
    }
    return MPI_SUCCESS;
}

int lc_coll_layout_vector(lc_coll_layout_t *lay, int n, const lc_vec_t *v, size_t esize)
{
    int rc = lc_coll_layout_alloc(lay, n);
    if (rc != MPI_SUCCESS) return rc;
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        lay->len[i] = lc_vec_count(v, i) * esize;
        lay->off[i] = v->displs ? lc_vec_offset(v, i, esize) : (ptrdiff_t)at;
        at += lay->len[i];
    }
    return MPI_SUCCESS;
}

void lc_coll_layout_free(lc_coll_layout_t *lay)
{
    free(lay->len);
    free(lay->off);
    lay->len = NULL;
    lay->off = NULL;
}

size_t lc_coll_layout_max_len(const lc_coll_layout_t *lay)
{
    size_t m = 0;
    for (int i = 0; i < lay->n; i++)
        if (lay->len[i] > m) m = lay->len[i];
    return m;
}
