/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_dtype.c — one-sided operations with derived datatypes (MPI 4.1
 * §12.3): the target type is flattened into (offset, length) blocks
 * relative to the target displacement, the origin data is used in place
 * when contiguous and packed otherwise, the result lands in place when
 * contiguous and is unpacked otherwise.  Then, per path:
 *  - direct: the pack engine walks the target type in its memory in our
 *    mapping (no block list); accumulates gather, combine and scatter
 *    under the target's accumulate lock (the whole operation at once, so
 *    concurrent accumulates stay atomic per element);
 *  - our own memory on the active-message path: the same after checking
 *    the blocks against our regions (dynamic windows are checked here);
 *  - CMA (put/get into Win_create memory of a proven peer): vector
 *    process_vm_writev/readv over the blocks, IOV_MAX at a time (a get
 *    of small blocks with small gaps reads their span once instead);
 *  - active messages: the blocks travel after the header, then the packed
 *    data; the target checks every block against its window before
 *    applying any (lc_rma_serve_data).
 * Contiguous types on every side never come here: the MPI layer maps
 * them to lc_rma_op, whose path is unchanged.
 */
#include "channel/lc_cma.h"
#include "datatype/lc_dt.h"
#include "rma/lc_rma_impl.h"
#include "util/lc_dtype.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define LC_RMA_CMA_IOV 1024 /* IOV_MAX on Linux */

/* (Active messages, CMA, our own memory.)  The blocks of count items of t, relative to the items' address,
 * adjacent blocks merged.  The caller frees *blk_p. */
static int lc_rma_flatten(const lc_dt_t *t, MPI_Count count, lc_rma_blk_t **blk_p, size_t *n_p)
{
    lc_dt_cursor_t cur;
    int rc = lc_dt_cursor_init(&cur, t, count, NULL);
    if (rc) return rc;
    size_t n = 0, cap = 16;
    lc_rma_blk_t *blk = malloc(cap * sizeof *blk);
    struct iovec iov[64];
    int niov = 0;
    while (blk && lc_dt_cursor_iov(&cur, iov, 64, SIZE_MAX, &niov) > 0) {
        for (int i = 0; i < niov; i++) {
            int64_t off = (int64_t)(intptr_t)iov[i].iov_base, len = (int64_t)iov[i].iov_len;
            if (n && blk[n - 1].off + blk[n - 1].len == off) {
                blk[n - 1].len += len;
                continue;
            }
            if (n == cap) {
                lc_rma_blk_t *b = realloc(blk, 2 * cap * sizeof *blk);
                if (!b) {
                    free(blk);
                    blk = NULL;
                    break;
                }
                blk = b;
                cap *= 2;
            }
            blk[n++] = (lc_rma_blk_t){ off, len };
        }
    }
    lc_dt_cursor_fini(&cur);
    if (!blk) return lc_error(MPI_ERR_NO_MEM, "out of memory describing a one-sided target datatype");
    *blk_p = blk;
    *n_p = n;
    return MPI_SUCCESS;
}

bool lc_rma_blocks_valid(lc_rma_win_t *win, uint64_t disp, const lc_rma_blk_t *blk, size_t n, size_t esz,
                         size_t bytes)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        lc_rma_blk_t b;
        memcpy(&b, &blk[i], sizeof b);
        /* Offsets wrap as unsigned: a negative total lands far beyond any
         * window and fails the range check. */
        if (b.len <= 0 || (size_t)b.len % esz || (size_t)b.len > bytes - total) return false;
        if (!lc_rma_am_addr(win, disp + (uint64_t)b.off, (size_t)b.len)) return false;
        total += (size_t)b.len;
    }
    return total == bytes;
}

/* Block i's first byte in the target's memory. */
static char *lc_rma_blk_at(lc_rma_win_t *win, char *base, uint64_t disp, lc_rma_blk_t b)
{
    return base ? base + b.off : lc_rma_am_addr(win, disp + (uint64_t)b.off, (size_t)b.len);
}

/* A padded pair's accumulate: its blocks may split elements (the value
 * and the index of MPI_SHORT_INT are two blocks), so the elements are
 * gathered into their packed form, combined at once and scattered back. */
static int lc_rma_apply_pair_blocks(lc_rma_win_t *win, char *base, uint64_t disp, lc_rma_kind_t kind, MPI_Datatype dt,
                                    MPI_Op op, const lc_rma_blk_t *blk, size_t n, const char *origin, char *result)
{
    size_t bytes = 0, pos = 0;
    for (size_t i = 0; i < n; i++) bytes += (size_t)blk[i].len;
    char stackbuf[256];
    char *tmp = bytes <= sizeof stackbuf ? stackbuf : malloc(bytes);
    /* Before anything is touched: failing here applies nothing (before,
     * lc_fatal ended the job, at the target for a peer's request). */
    if (!tmp)
        return lc_error(MPI_ERR_NO_MEM, "out of memory gathering the %zu bytes of a one-sided accumulate on pairs",
                        bytes);
    for (size_t i = 0; i < n; pos += (size_t)blk[i].len, i++) {
        lc_rma_blk_t b;
        memcpy(&b, &blk[i], sizeof b);
        memcpy(tmp + pos, lc_rma_blk_at(win, base, disp, b), (size_t)b.len);
    }
    lc_rma_apply_packed(kind, dt, op, bytes, tmp, origin, result);
    if (op != MPI_NO_OP) {
        pos = 0;
        for (size_t i = 0; i < n; pos += (size_t)blk[i].len, i++) {
            lc_rma_blk_t b;
            memcpy(&b, &blk[i], sizeof b);
            memcpy(lc_rma_blk_at(win, base, disp, b), tmp + pos, (size_t)b.len);
        }
    }
    if (tmp != stackbuf) free(tmp);
    return MPI_SUCCESS;
}

int lc_rma_apply_blocks(lc_rma_win_t *win, char *base, uint64_t disp, lc_rma_kind_t kind, MPI_Datatype dt, MPI_Op op,
                        const lc_rma_blk_t *blk, size_t n, const char *origin, char *result)
{
    if ((kind == LC_RMA_ACC || kind == LC_RMA_GACC) && lc_dtype_padded(dt))
        return lc_rma_apply_pair_blocks(win, base, disp, kind, dt, op, blk, n, origin, result);
    size_t esz = lc_dtype_size(dt), pos = 0;
    for (size_t i = 0; i < n; i++) {
        lc_rma_blk_t b;
        memcpy(&b, &blk[i], sizeof b);
        char *at = lc_rma_blk_at(win, base, disp, b);
        lc_rma_apply(kind, dt, op, (size_t)b.len / esz, at, origin ? origin + pos : NULL, NULL,
                     result ? result + pos : NULL);
        pos += (size_t)b.len;
    }
    return MPI_SUCCESS;
}

/* Put (write) or get the packed `local` bytes to / from the blocks at
 * `remote` in the peer's address space.  A partial transfer stops on an
 * iovec boundary or inside one: resume from where it stopped. */
static int lc_rma_cmav(lc_peer_t *peer, bool write, char *local, uint64_t remote, const lc_rma_blk_t *blk, size_t n)
{
    struct iovec r[LC_RMA_CMA_IOV];
    size_t i = 0, done = 0; /* block i, bytes of it already moved */
    while (i < n) {
        size_t k = 0, sum = 0;
        for (size_t j = i; j < n && k < LC_RMA_CMA_IOV; j++, k++) {
            size_t skip = j == i ? done : 0;
            r[k].iov_base = (void *)(uintptr_t)(remote + (uint64_t)blk[j].off + skip);
            r[k].iov_len = (size_t)blk[j].len - skip;
            sum += r[k].iov_len;
        }
        struct iovec l = { .iov_base = local, .iov_len = sum };
        ssize_t got = write ? process_vm_writev(peer->cma.pid, &l, 1, r, k, 0)
                            : process_vm_readv(peer->cma.pid, &l, 1, r, k, 0);
        if (got <= 0) {
            if (got < 0 && errno == EINTR) continue;
            lc_log_error("single-copy %s of %zu bytes in %zu blocks with rank %d failed: %s", write ? "write" : "read",
                         sum, k, peer->world_rank, got < 0 ? strerror(errno) : "no progress");
            return LC_ERROR;
        }
        local += got;
        for (size_t left = (size_t)got; left;) {
            size_t rest = (size_t)blk[i].len - done;
            if (left >= rest) {
                left -= rest;
                i++;
                done = 0;
            } else {
                done += left;
                left = 0;
            }
        }
    }
    return LC_OK;
}

/* Where count items of t at buf are one run: their first byte, else NULL. */
static char *lc_rma_run(const lc_dt_t *t, MPI_Count count, const void *buf)
{
    return lc_dt_is_contig(t, count) ? (char *)buf + t->true_lb : NULL;
}

/* MPI_SUCCESS when done, LC_AGAIN when the target's answer completes it,
 * else an error code.  *sent_p: lc_rma_am_send took `unpack`'s buffer
 * (`dst`), whatever it returned. */
/* Dynamic windows: whether the target's table (lc_rma_dyn.c) has all of
 * the blocks' span attached, [off + lowest block, off + end of the
 * highest): the span, as a get may read it whole.  Otherwise the target
 * checks the blocks one by one, as before. */
static bool lc_rma_typed_reach(lc_rma_win_t *win, int target, uint64_t off, const lc_rma_blk_t *blk, size_t n)
{
    if (n == 0) return false;
    int64_t lo = blk[0].off, hi = blk[0].off + blk[0].len;
    for (size_t i = 1; i < n; i++) {
        if (blk[i].off < lo) lo = blk[i].off;
        if (blk[i].off + blk[i].len > hi) hi = blk[i].off + blk[i].len;
    }
    uint64_t first = off + (uint64_t)lo; /* two's complement: lo may be negative */
    if ((lo < 0 && first > off) || (lo >= 0 && first < off)) return false;
    return lc_rma_dyn_reach(win, target, first, (size_t)(hi - lo));
}

static int lc_rma_typed_now(lc_rma_win_t *win, lc_rma_kind_t kind, int target, MPI_Aint disp, MPI_Datatype basic,
                            MPI_Op op, const lc_rma_blk_t *blk, size_t n, size_t bytes, const char *src, char *dst,
                            const lc_rma_unpack_t *unpack, lc_request_t *user, bool *sent_p)
{
    size_t esz = lc_rma_packed_size(basic); /* (direct windows never come here) */
    uint64_t off = win->flavor == LC_RMA_DYNAMIC ? (uint64_t)disp : (uint64_t)disp * (uint64_t)win->disp_units[target];
    if (target == win->comm->rank) { /* as in lc_rma_op: we apply everyone's requests one at a time */
        if (!lc_rma_blocks_valid(win, off, blk, n, lc_rma_block_unit(basic), bytes))
            return lc_error(MPI_ERR_RMA_RANGE, "the target datatype's %zu bytes at %#llx are not all in memory "
                                               "attached to the window",
                            bytes, (unsigned long long)off);
        bool lock = win->cma_acc && kind != LC_RMA_PUT && kind != LC_RMA_GET; /* lc_rma_cmaacc.c */
        if (lock) lc_rma_cmaacc_lock(win, target);
        int rc = lc_rma_apply_blocks(win, NULL, off, kind, basic, op, blk, n, src, dst);
        if (lock) lc_rma_cmaacc_unlock(win, target);
        return rc;
    }
    if ((kind == LC_RMA_PUT || kind == LC_RMA_GET) && win->cma && win->cma[target] &&
        (!win->dyn || lc_rma_typed_reach(win, target, off, blk, n))) {
        lc_peer_t *peer = win->comm->peers[target];
        bool put = kind == LC_RMA_PUT;
        uint64_t remote = win->remote_bases[target] + off;
        if (!put && n > 1) {
            /* The kernel pins the pages of every remote segment anew:
             * many small blocks cost far more than reading their whole
             * span (inside the window: the origin checked it) once and
             * picking the blocks out here, when the gaps are small. */
            int64_t lo = blk[0].off, hi = blk[0].off + blk[0].len;
            for (size_t i = 1; i < n; i++) {
                if (blk[i].off < lo) lo = blk[i].off;
                if (blk[i].off + blk[i].len > hi) hi = blk[i].off + blk[i].len;
            }
            size_t span = (size_t)(hi - lo);
            char *tmp = span <= 4 * bytes + 4096 && bytes / n < 4096 ? malloc(span) : NULL;
            if (tmp) {
                int st = lc_cma_pull(peer, tmp, remote + (uint64_t)lo, 0, span);
                if (st == LC_OK)
                    for (size_t i = 0, pos = 0; i < n; pos += (size_t)blk[i].len, i++)
                        memcpy(dst + pos, tmp + (blk[i].off - lo), (size_t)blk[i].len);
                free(tmp);
                if (st == LC_OK) return MPI_SUCCESS;
            }
        }
        if (lc_rma_cmav(peer, put, put ? (char *)src : dst, remote, blk, n) == LC_OK) return MPI_SUCCESS;
        win->cma[target] = 0; /* logged; the request path still works (puts and gets may repeat) */
    }
    if ((kind == LC_RMA_PUT || kind == LC_RMA_GET) && win->ofi && win->ofi[target]) {
        /* One fi_write / fi_read per target block from / into the packed
         * data, then wait for them all: the packed buffers are the
         * caller's temporaries. */
        bool put = kind == LC_RMA_PUT;
        size_t pos = 0;
        int rc = MPI_SUCCESS;
        for (size_t i = 0; i < n && rc == MPI_SUCCESS; pos += (size_t)blk[i].len, i++)
            rc = lc_rma_ofi_op(win, put, target, off + (uint64_t)blk[i].off, put ? (char *)src + pos : dst + pos,
                               (size_t)blk[i].len);
        int rc2 = lc_rma_ofi_flush(win, target);
        return rc != MPI_SUCCESS ? rc : rc2;
    }
    if (n > UINT32_MAX)
        return lc_error(MPI_ERR_TYPE, "the target datatype has %zu blocks; one-sided requests carry at most %u", n,
                        UINT32_MAX);
    lc_rma_pkt_t pkt = {
        .kind = (uint8_t)kind, .dt = basic, .op = op, .nblocks = (uint32_t)n, .disp = off, .count = bytes / esz
    };
    bool sends = kind != LC_RMA_GET && !(kind == LC_RMA_GACC && op == MPI_NO_OP);
    bool fetch = kind == LC_RMA_GET || kind == LC_RMA_GACC;
    *sent_p = unpack != NULL;
    int rc = lc_rma_am_send(win, &pkt, target, blk, n * sizeof *blk, src, sends ? bytes : 0, dst, fetch ? bytes : 0,
                            user, unpack);
    return rc == MPI_SUCCESS ? LC_AGAIN : rc;
}

int lc_rma_op_typed(lc_rma_win_t *win, lc_rma_kind_t kind, int target, MPI_Aint disp, MPI_Datatype basic, MPI_Op op,
                    lc_dt_t *tt, MPI_Count tcount, lc_dt_t *ot, MPI_Count ocount, const void *origin, lc_dt_t *rt,
                    MPI_Count rcount, void *result, lc_request_t *user)
{
    size_t bytes = (size_t)tcount * (size_t)tt->size, n = 0;
    bool sends = kind != LC_RMA_GET && !(kind == LC_RMA_GACC && op == MPI_NO_OP);
    bool fetch = kind == LC_RMA_GET || kind == LC_RMA_GACC;
    lc_rma_blk_t *blk = NULL;
    char *stmp = NULL, *rtmp = NULL;
    const char *src = NULL;
    char *dst = NULL;
    int rc;
    if (win->direct) {
        /* Memory we map: the pack engine walks the target type in place,
         * no block list.  Accumulates gather the target's elements, combine
         * them in one kernel call and scatter them back, all under the
         * target's accumulate lock (atomic per element as before). */
        char *at = win->bases[target] + (size_t)disp * (size_t)win->disp_units[target];
        const char *orun = sends ? lc_rma_run(ot, ocount, origin) : NULL;
        char *rrun = fetch ? lc_rma_run(rt, rcount, result) : NULL;
        char *tmp = NULL;
        if (kind == LC_RMA_PUT && orun) {
            lc_dt_unpack(tt, tcount, at, 0, orun, bytes);
        } else if (kind == LC_RMA_GET && rrun) {
            lc_dt_pack(tt, tcount, at, 0, rrun, bytes);
        } else {
            /* one bounce buffer for the target's elements, one more for a
             * scattered origin */
            size_t two = kind != LC_RMA_GET && kind != LC_RMA_PUT && sends && !orun;
            tmp = malloc(bytes * (1 + two));
            if (!tmp) return lc_error(MPI_ERR_NO_MEM, "out of memory staging %zu bytes of a one-sided operation", bytes);
            if (kind == LC_RMA_PUT) {
                lc_dt_pack(ot, ocount, origin, 0, tmp, bytes);
                lc_dt_unpack(tt, tcount, at, 0, tmp, bytes);
            } else if (kind == LC_RMA_GET) {
                lc_dt_pack(tt, tcount, at, 0, tmp, bytes);
                lc_dt_unpack(rt, rcount, result, 0, tmp, bytes);
            } else {
                if (two) {
                    lc_dt_pack(ot, ocount, origin, 0, tmp + bytes, bytes);
                    orun = tmp + bytes;
                }
                lc_rma_acc_lock(&win->lines[target].acc);
                lc_dt_pack(tt, tcount, at, 0, tmp, bytes);
                if (fetch && rrun) memcpy(rrun, tmp, bytes);
                else if (fetch) lc_dt_unpack(rt, rcount, result, 0, tmp, bytes);
                if (op != MPI_NO_OP) {
                    lc_rma_apply_packed(LC_RMA_ACC, basic, op, bytes, tmp, orun, NULL);
                    lc_dt_unpack(tt, tcount, at, 0, tmp, bytes);
                }
                lc_rma_acc_unlock(&win->lines[target].acc);
            }
        }
        free(tmp);
        if (user) lc_request_complete(user);
        return MPI_SUCCESS;
    }
    rc = lc_rma_flatten(tt, tcount, &blk, &n);
    if (rc) return rc;
    if (sends && !(src = lc_rma_run(ot, ocount, origin))) {
        src = stmp = malloc(bytes);
        if (stmp) lc_dt_pack(ot, ocount, origin, 0, stmp, bytes);
    }
    if (fetch && !(dst = lc_rma_run(rt, rcount, result))) dst = rtmp = calloc(1, bytes);
    if ((sends && !src) || (fetch && !dst)) {
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory staging %zu bytes of a one-sided operation", bytes);
        goto out;
    }
    lc_rma_unpack_t unpack = { rt, rcount, result };
    bool sent = false;
    rc = lc_rma_typed_now(win, kind, target, disp, basic, op, blk, n, bytes, src, dst, rtmp ? &unpack : NULL, user,
                          &sent);
    if (sent) rtmp = NULL; /* the engine's now: unpacked and freed with the answer */
    if (rc == LC_AGAIN) {
        rc = MPI_SUCCESS;
    } else if (rc == MPI_SUCCESS) {
        if (rtmp) lc_dt_unpack(rt, rcount, result, 0, rtmp, bytes);
        if (user) lc_request_complete(user);
    }
out:
    free(blk);
    free(stmp);
    free(rtmp);
    return rc;
}
