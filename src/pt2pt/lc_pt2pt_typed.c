/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_typed.c — point-to-point with derived datatypes.
 *
 * The engine moves bytes.  A message of count items of a type is its
 * packed bytes (count * size, typemap order), so a vector sent matches a
 * contiguous receive of the same type signature, as MPI requires.
 *  - A dense type (lc_dt_is_contig: one run of bytes in typemap order)
 *    is already its packed form at buf + true_lb: the byte path, no copy.
 *  - Any other type: the send packs into a buffer the request owns (the
 *    stage) before the engine sees it, freed at completion.  The receive
 *    owns a datatype cursor instead of a buffer: every byte that arrives
 *    goes straight to its place in the user's buffer — eager payloads and
 *    pipeline fragments are unpacked from the ring cell, a CMA pull reads
 *    into the cursor's iovec (one copy), other pulls go through a bounce
 *    buffer of at most LC_TYPED_BOUNCE bytes.  No whole-message buffer on
 *    the receive side.
 * The type is retained while pending (lc_request_complete calls
 * lc_pt2pt_typed_done), so the user may free its handle at once.
 * Packing the send side straight into ring cells (no stage) needs a
 * channel API that takes a cursor: the next step (docs/architecture.md
 * "Datatypes").
 */
#include "pt2pt/lc_pt2pt_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Segments per pullv call (a CMA pull takes at most LC_CMA_IOV_MAX). */
#define LC_CMA_IOV_MAX_PT2PT 64

/* The user's buffer at the type's first data byte (buf may be MPI_BOTTOM:
 * integer arithmetic, no offset applied to a null pointer). */
static inline void *lc_typed_at(const void *buf, const lc_dt_t *t)
{
    return (void *)((uintptr_t)buf + (uintptr_t)t->true_lb);
}

static inline size_t lc_typed_bytes(const lc_dt_t *t, MPI_Count count)
{
    return (size_t)count * (size_t)t->size; /* the MPI layer ruled out overflow */
}

/* One cached send stage.  A large message sent again and again (a halo
 * exchange) reuses its pages instead of faulting in a fresh mmap'd buffer
 * every time.  No lock: Locus offers MPI_THREAD_SERIALIZED at most. */
#define LC_STAGE_CACHE_MIN ((size_t)64 << 10)
static void *lc_stage_cache;
static size_t lc_stage_cache_size;

static void lc_typed_stage_put(void *p, size_t bytes)
{
    if (!p) return;
    if (bytes < LC_STAGE_CACHE_MIN || bytes <= lc_stage_cache_size) {
        free(p);
        return;
    }
    free(lc_stage_cache);
    lc_stage_cache = p;
    lc_stage_cache_size = bytes;
}

void lc_pt2pt_typed_fini(void)
{
    free(lc_stage_cache);
    lc_stage_cache = NULL;
    lc_stage_cache_size = 0;
}

static int lc_typed_stage_alloc(size_t bytes, void **stage_p)
{
    if (lc_stage_cache && lc_stage_cache_size >= bytes && bytes >= LC_STAGE_CACHE_MIN) {
        *stage_p = lc_stage_cache;
        lc_stage_cache = NULL;
        lc_stage_cache_size = 0;
        return MPI_SUCCESS;
    }
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        return lc_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte buffer to pack a derived datatype into", bytes);
    *stage_p = p;
    return MPI_SUCCESS;
}

/* Give req the stage and the user's side; a request that completed while
 * it was being started (an eager send into free ring space, a receive that
 * matched an unexpected message) is finished here. */
static void lc_typed_attach(lc_request_t *req, lc_dt_t *t, const void *buf, MPI_Count count, void *stage)
{
    lc_dt_retain(t);
    req->udt = t;
    req->ubuf = (void *)buf;
    req->ucount = count;
    req->stage = stage;
    if (req->complete) lc_pt2pt_typed_done(req);
}

void lc_pt2pt_typed_drop(lc_request_t *req)
{
    lc_typed_stage_put(req->stage, req->bytes); /* req->bytes: the packed message (sends) */
    req->stage = NULL;
    if (req->rcur) {
        lc_dt_cursor_fini(req->rcur);
        free(req->rcur);
        req->rcur = NULL;
    }
    if (req->udt) lc_dt_release(req->udt);
    req->udt = NULL;
}

void lc_pt2pt_typed_done(lc_request_t *req)
{
    lc_pt2pt_typed_drop(req);
}

/* Bounce buffer for pulls that are not scattered. */
#define LC_TYPED_BOUNCE ((size_t)1 << 20)
/* Scatter a pull (one process_vm_readv into the cursor's segments) only
 * when segments average at least this: with small blocks the syscall per
 * 64 segments costs more than a bounce and an unpack. */
#define LC_TYPED_PULLV_MIN_SEG 512

/* The rest of a pull through a bounce buffer: the channel addresses the
 * sender's memory by virtual address (pullv implies CMA), so chunks at
 * addr + done are pulled one after the other. */
static int lc_pull_bounced(lc_peer_t *from, lc_dt_cursor_t *cur, uint64_t addr, uint64_t key, size_t done, size_t n,
                           const struct iovec *iov, int k, size_t got)
{
    size_t cap = n - done < LC_TYPED_BOUNCE ? n - done : LC_TYPED_BOUNCE;
    char *tmp = malloc(cap);
    if (!tmp) {
        lc_log_error("out of memory for a %zu-byte bounce buffer of a derived-datatype receive", cap);
        return LC_ERROR;
    }
    /* the segments the cursor already handed out */
    int rc = from->ops->pull(from, tmp, addr + done, key, got);
    for (size_t i = 0, off = 0; rc == LC_OK && i < (size_t)k; off += iov[i].iov_len, i++)
        memcpy(iov[i].iov_base, tmp + off, iov[i].iov_len);
    for (done += got; rc == LC_OK && done < n;) {
        size_t chunk = n - done < cap ? n - done : cap;
        rc = from->ops->pull(from, tmp, addr + done, key, chunk);
        if (rc == LC_OK) lc_dt_cursor_unpack(cur, tmp, chunk);
        done += chunk;
    }
    free(tmp);
    return rc;
}

int lc_pt2pt_pull_typed(lc_peer_t *from, lc_dt_cursor_t *cur, uint64_t addr, uint64_t key, size_t n)
{
    if (from->ops->pullv) {
        struct iovec iov[LC_CMA_IOV_MAX_PT2PT];
        for (size_t done = 0; done < n;) {
            int k = 0;
            size_t got = lc_dt_cursor_iov(cur, iov, LC_CMA_IOV_MAX_PT2PT, n - done, &k);
            if (!got) break;
            if (got / (size_t)k < LC_TYPED_PULLV_MIN_SEG)
                return lc_pull_bounced(from, cur, addr, key, done, n, iov, k, got);
            if (from->ops->pullv(from, iov, k, addr + done, key, got) != LC_OK) return LC_ERROR;
            done += got;
        }
        return LC_OK;
    }
    /* One pull of the whole message keeps the channel's addressing as it is
     * (an offset into a registered region is not assumed): bounce through
     * a buffer of the message's size, once. */
    void *tmp = malloc(n);
    if (!tmp) {
        lc_log_error("out of memory for a %zu-byte bounce buffer of a derived-datatype receive", n);
        return LC_ERROR;
    }
    int rc = from->ops->pull(from, tmp, addr, key, n);
    if (rc == LC_OK) lc_dt_cursor_unpack(cur, tmp, n);
    free(tmp);
    return rc;
}

/* A receive request whose bytes go through a cursor over count items of t
 * at buf; the type is retained before the request can match anything. */
static int lc_typed_recv_request(void *buf, MPI_Count count, lc_dt_t *t, lc_request_t **req_p)
{
    lc_dt_cursor_t *cur = malloc(sizeof(*cur));
    if (!cur) return lc_error(MPI_ERR_NO_MEM, "out of memory for a datatype cursor");
    int rc = lc_dt_cursor_init(cur, t, count, buf);
    if (rc) {
        free(cur);
        return rc;
    }
    lc_request_t *req = lc_request_alloc(LC_REQ_RECV);
    if (!req) {
        lc_dt_cursor_fini(cur);
        free(cur);
        return lc_error(MPI_ERR_NO_MEM, "cannot allocate a receive request");
    }
    lc_dt_retain(t);
    req->udt = t;
    req->ubuf = buf;
    req->ucount = count;
    req->rcur = cur;
    req->bytes = lc_typed_bytes(t, count);
    *req_p = req;
    return MPI_SUCCESS;
}

int lc_pt2pt_isend_dt(const void *buf, MPI_Count count, lc_dt_t *t, int dest, int tag, lc_comm_t *comm, int ctx_kind,
                      lc_send_mode_t mode, lc_request_t **req_p)
{
    size_t bytes = lc_typed_bytes(t, count);
    if (lc_dt_is_contig(t, count))
        return lc_pt2pt_isend(lc_typed_at(buf, t), bytes, dest, tag, comm, ctx_kind, mode, req_p);
    void *stage = NULL;
    lc_request_t *req = NULL;
    int rc = lc_typed_stage_alloc(bytes, &stage);
    if (rc) return rc;
    rc = lc_dt_pack(t, count, buf, 0, stage, bytes);
    if (!rc) rc = lc_pt2pt_isend(stage, bytes, dest, tag, comm, ctx_kind, mode, &req);
    if (rc) {
        lc_typed_stage_put(stage, bytes);
        return rc;
    }
    lc_typed_attach(req, t, buf, count, stage);
    *req_p = req;
    return MPI_SUCCESS;
}

int lc_pt2pt_send_dt(const void *buf, MPI_Count count, lc_dt_t *t, int dest, int tag, lc_comm_t *comm, int ctx_kind,
                     lc_send_mode_t mode)
{
    if (lc_dt_is_contig(t, count))
        return lc_pt2pt_send(lc_typed_at(buf, t), lc_typed_bytes(t, count), dest, tag, comm, ctx_kind, mode);
    lc_request_t *req = NULL;
    int rc = lc_pt2pt_isend_dt(buf, count, t, dest, tag, comm, ctx_kind, mode, &req);
    return rc ? rc : lc_pt2pt_wait_release(req, MPI_STATUS_IGNORE);
}

int lc_pt2pt_irecv_dt(void *buf, MPI_Count count, lc_dt_t *t, int source, int tag, lc_comm_t *comm, int ctx_kind,
                      lc_request_t **req_p)
{
    size_t bytes = lc_typed_bytes(t, count);
    if (lc_dt_is_contig(t, count))
        return lc_pt2pt_irecv(lc_typed_at(buf, t), bytes, source, tag, comm, ctx_kind, req_p);
    lc_request_t *req;
    int rc = lc_typed_recv_request(buf, count, t, &req);
    if (rc) return rc;
    *req_p = req;
    lc_pt2pt_irecv_post(req, source, tag, comm, ctx_kind);
    return MPI_SUCCESS;
}

int lc_pt2pt_irecv_dt_range(void *buf, MPI_Count count, lc_dt_t *t, size_t off, size_t n, int source, int tag,
                            lc_comm_t *comm, int ctx_kind, lc_request_t **req_p)
{
    if (lc_dt_is_contig(t, count))
        return lc_pt2pt_irecv((char *)lc_typed_at(buf, t) + off, n, source, tag, comm, ctx_kind, req_p);
    lc_request_t *req;
    int rc = lc_typed_recv_request(buf, count, t, &req);
    if (rc) return rc;
    lc_dt_cursor_seek(req->rcur, (MPI_Count)off);
    req->bytes = n; /* the capacity: a longer message is truncated there */
    *req_p = req;
    lc_pt2pt_irecv_post(req, source, tag, comm, ctx_kind);
    return MPI_SUCCESS;
}

int lc_pt2pt_recv_dt(void *buf, MPI_Count count, lc_dt_t *t, int source, int tag, lc_comm_t *comm, int ctx_kind,
                     MPI_Status *status)
{
    if (lc_dt_is_contig(t, count))
        return lc_pt2pt_recv(lc_typed_at(buf, t), lc_typed_bytes(t, count), source, tag, comm, ctx_kind, status);
    lc_request_t *req = NULL;
    int rc = lc_pt2pt_irecv_dt(buf, count, t, source, tag, comm, ctx_kind, &req);
    return rc ? rc : lc_pt2pt_wait_release(req, status);
}

int lc_pt2pt_imrecv_dt(void *buf, MPI_Count count, lc_dt_t *t, lc_request_t *msg, lc_request_t **req_p)
{
    size_t bytes = lc_typed_bytes(t, count);
    if (lc_dt_is_contig(t, count)) return lc_pt2pt_imrecv(lc_typed_at(buf, t), bytes, msg, req_p);
    lc_request_t *req;
    int rc = lc_typed_recv_request(buf, count, t, &req);
    if (rc) return rc;
    *req_p = req;
    lc_pt2pt_imrecv_post(req, msg);
    return MPI_SUCCESS;
}
