/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_typed.c — point-to-point with derived datatypes.
 *
 * The engine moves bytes.  A message of count items of a type is its
 * packed bytes (count * size, typemap order), so a vector sent matches a
 * contiguous receive of the same type signature, as MPI requires.
 *  - A dense type (lc_dt_is_contig: one run of bytes in typemap order)
 *    is already its packed form at buf + true_lb: the byte path, no copy.
 *  - Any other type sent to a shm peer is never packed as a whole: the
 *    request owns a datatype cursor over the user's buffer and the
 *    channel packs from it straight into each ring or pool cell (the
 *    eager packet, the pipeline's DATA fragments).  For a rendezvous
 *    that the receiver may pull with CMA, the sender also writes the
 *    message's *block list* — (address, length) segments in packed order,
 *    as the cursor yields them — when the blocks are few and large
 *    enough (LC_TYPED_LIST_*): the RTS carries the list's address
 *    (LC_PKT_FLAG_LIST), the receiver reads it with CMA and pulls the
 *    segments straight into its own buffer or cursor segments — one copy,
 *    scattered on both sides.  With many small blocks (a remote iovec
 *    costs the kernel a page pin each) the RTS says LC_PKT_FLAG_NOPULL
 *    and the data goes through the pipeline, packed into the cells.
 *  - A send to any other peer (self, ofi, ivshmem) packs into a buffer
 *    the request owns (the stage) before the engine sees it, freed (or
 *    cached) at completion: those channels address the sender's data as
 *    one run of bytes.
 *  - The receive owns a cursor: every byte that arrives goes straight to
 *    its place in the user's buffer — eager payloads and pipeline
 *    fragments are unpacked from the ring cell, a CMA pull reads into the
 *    cursor's iovec (one copy), other pulls go through a bounce buffer of
 *    at most LC_TYPED_BOUNCE bytes.
 * The type is retained while pending (lc_request_complete calls
 * lc_pt2pt_typed_done), so the user may free its handle at once.
 */
#include "pt2pt/lc_pt2pt_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Segments per pullv call and per batch of a block list: LC_CHANNEL_IOV_MAX,
 * the most one channel call takes (IOV_MAX for CMA). */

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
 * every time.  No lock of its own: every MPI call runs inside the one
 * critical section (docs/architecture.md "Threads"). */
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
    req->typed = 1;
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
    if (req->nblocks) { /* a send's block list: the receiver read it before its FIN */
        free(req->buf);
        req->buf = NULL;
        req->nblocks = 0;
    }
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

/* The rest of a pull through a bounce buffer: chunks at addr + done are
 * pulled one after the other (CMA addresses the sender's memory by
 * virtual address, ofi by address or by offset in the registration:
 * either way addr + done). */
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
        struct iovec iov[LC_CHANNEL_IOV_MAX];
        for (size_t done = 0; done < n;) {
            int k = 0;
            size_t got = lc_dt_cursor_iov(cur, iov, LC_CHANNEL_IOV_MAX, n - done, &k);
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

/* Block lists (sender) and their pull (receiver).  A list is written
 * only when the message is at least LC_TYPED_LIST_MIN_SEG bytes a segment
 * on average and has at most LC_TYPED_LIST_MAX segments (a list of 1 MiB
 * at most); the first batch decides early for a type of small blocks. */
#define LC_TYPED_LIST_MIN_SEG LC_TYPED_PULLV_MIN_SEG
#define LC_TYPED_LIST_MAX 65536

/* The block list of the cursor's message (the cursor is left at 0), or
 * NULL when it is not worth one (or no memory: the pipeline works). */
static struct iovec *lc_typed_block_list(lc_dt_cursor_t *cur, size_t bytes, uint32_t *n_p)
{
    size_t cap = LC_CHANNEL_IOV_MAX, n = 0, done = 0; /* invariant: room for one more batch */
    struct iovec *list = malloc(cap * sizeof(*list));
    while (list && done < bytes) {
        if (n + LC_CHANNEL_IOV_MAX > cap) { /* n grows by at most one batch: doubling keeps the room */
            struct iovec *more = cap * 2 <= LC_TYPED_LIST_MAX ? realloc(list, cap * 2 * sizeof(*list)) : NULL;
            if (!more) break;
            list = more;
            cap *= 2;
        }
        int k = 0;
        size_t got = lc_dt_cursor_iov(cur, list + n, LC_CHANNEL_IOV_MAX, bytes - done, &k);
        if (!got) break;
        /* cursor_iov merges only within one call: join across calls too */
        if (n && (uintptr_t)list[n - 1].iov_base + list[n - 1].iov_len == (uintptr_t)list[n].iov_base) {
            list[n - 1].iov_len += list[n].iov_len;
            memmove(list + n, list + n + 1, (size_t)(k - 1) * sizeof(*list));
            k--;
        }
        n += (size_t)k;
        done += got;
        if (done / n < LC_TYPED_LIST_MIN_SEG && done < bytes) break; /* small blocks: not worth a list */
    }
    lc_dt_cursor_seek(cur, 0);
    if (!list || done < bytes || bytes / n < LC_TYPED_LIST_MIN_SEG) {
        free(list);
        return NULL;
    }
    *n_p = (uint32_t)n;
    return list;
}

int lc_pt2pt_pull_list(lc_peer_t *from, void *buf, lc_dt_cursor_t *cur, uint64_t list, uint32_t nblocks, size_t n)
{
    struct iovec rv[LC_CHANNEL_IOV_MAX], lv[LC_CHANNEL_IOV_MAX];
    uint32_t next = 0; /* the list's next entry not yet read */
    int rn = 0, rf = 0; /* rv[rf, rn): the segments read and not yet consumed */
    for (size_t done = 0; done < n;) {
        if (rf == rn) { /* the next batch of the sender's list, read with one single copy */
            uint32_t k = nblocks - next < LC_CHANNEL_IOV_MAX ? nblocks - next : LC_CHANNEL_IOV_MAX;
            if (!k) {
                lc_log_error("rank %d's block list of %u segments ends before its %zu-byte message",
                             from->world_rank, nblocks, n);
                return LC_ERROR;
            }
            if (from->ops->pull(from, rv, list + (uint64_t)next * sizeof(struct iovec), 0, k * sizeof(struct iovec)) !=
                LC_OK)
                return LC_ERROR;
            next += k;
            rn = (int)k;
            rf = 0;
        }
        size_t avail = 0; /* what this batch still names, at most what is missing (no overflow) */
        for (int i = rf; i < rn && avail < n - done; i++)
            avail += rv[i].iov_len < n - done - avail ? rv[i].iov_len : n - done - avail;
        size_t got = avail;
        int nl = 1;
        if (cur) {
            got = lc_dt_cursor_iov(cur, lv, LC_CHANNEL_IOV_MAX, avail, &nl);
        } else {
            lv[0].iov_base = (char *)buf + done;
            lv[0].iov_len = avail;
        }
        if (!got) {
            if (avail) {
                lc_log_error("internal: a derived-datatype receive ended %zu bytes before the %zu it expected", n - done, n);
                return LC_ERROR;
            }
            while (rf < rn && rv[rf].iov_len == 0) rf++; /* empty segments only */
            continue;
        }
        if (from->ops->pull_list(from, lv, nl, rv + rf, rn - rf, got) != LC_OK) return LC_ERROR;
        done += got;
        /* consume what went from the remote segments */
        for (size_t left = got; left && rf < rn;) {
            if (left >= rv[rf].iov_len) {
                left -= rv[rf].iov_len;
                rf++;
            } else {
                rv[rf].iov_base = (char *)rv[rf].iov_base + left;
                rv[rf].iov_len -= left;
                left = 0;
            }
        }
    }
    return LC_OK;
}

/* A send of count items of t to a shm peer: no stage.  The request owns
 * a cursor over the user's buffer, plus the block list when a pull may
 * take the message in one copy; the type is retained before anything
 * goes out. */
static int lc_typed_send_cursor(const void *buf, MPI_Count count, lc_dt_t *t, int dest, int tag, lc_comm_t *comm,
                                int ctx_kind, lc_send_mode_t mode, lc_peer_t *peer, lc_request_t **req_p)
{
    size_t bytes = lc_typed_bytes(t, count);
    lc_dt_cursor_t *cur = malloc(sizeof(*cur));
    if (!cur) return lc_error(MPI_ERR_NO_MEM, "out of memory for a datatype cursor");
    int rc = lc_dt_cursor_init(cur, t, count, buf);
    if (rc) {
        free(cur);
        return rc;
    }
    struct iovec *list = NULL;
    uint32_t nblocks = 0;
    if (bytes > peer->eager_limit && peer->can_pull && bytes >= peer->pull_min && peer->ops->pull_list)
        list = lc_typed_block_list(cur, bytes, &nblocks);
    lc_request_t *req = lc_pt2pt_send_request(list, bytes, dest, tag, comm, ctx_kind, mode);
    if (!req) {
        free(list);
        lc_dt_cursor_fini(cur);
        free(cur);
        return lc_error(MPI_ERR_NO_MEM, "cannot allocate a send request");
    }
    lc_dt_retain(t);
    req->typed = 1;
    req->udt = t;
    req->ubuf = (void *)buf;
    req->ucount = count;
    req->rcur = cur;
    req->nblocks = list ? nblocks : 0;
    *req_p = req;
    lc_pt2pt_send_start(req); /* may complete it (eager), which drops cursor, list and type */
    return MPI_SUCCESS;
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
    req->typed = 1;
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
    if (dest >= 0 && comm->peers[dest]->kind == LC_CHANNEL_SHM)
        return lc_typed_send_cursor(buf, count, t, dest, tag, comm, ctx_kind, mode, comm->peers[dest], req_p);
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
