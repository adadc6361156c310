/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_cursor.c — the pack engine: a resumable cursor over the packed
 * stream of count items of a committed type.
 *
 * The cursor is a stack of frames, one per level of the loop program,
 * from the "count items" node (cur->top) down to a leaf; the deepest
 * frame always sits on the next byte.  Moving data is a loop over the
 * leaf: whole blocks go through lc_dt_copy_blocks, specialised by block
 * size so that 8-64 byte blocks are plain moves, and a range may start
 * or stop inside a block.  When a leaf instance is done the cursor steps
 * its parents to the next instance and descends again (lc_dt_next);
 * seeking to an arbitrary offset descends by division (vector nodes) or
 * binary search over the prefix sums (list nodes).  Nothing allocates
 * except a program deeper than LC_DT_CURSOR_FRAMES levels.
 *
 * Addresses are computed as integers: with MPI_BOTTOM the buffer is NULL
 * and the displacements are absolute addresses.
 */
#include "datatype/lc_dt_impl.h"

#include <stdlib.h>
#include <string.h>

static inline lc_dt_frame_t *lc_dt_frames(lc_dt_cursor_t *cur)
{
    return cur->heap ? cur->heap : cur->frames;
}

/* n blocks of blen bytes, dst and src advancing by their own steps.
 * The cases give the compiler constant sizes: one or two moves each. */
LC_INLINE void lc_dt_copy_n(char *dst, ptrdiff_t dstep, const char *src, ptrdiff_t sstep, size_t blen, MPI_Count n)
{
    for (MPI_Count k = 0; k < n; k++, dst += dstep, src += sstep) memcpy(dst, src, blen);
}

static void lc_dt_copy_blocks(char *dst, ptrdiff_t dstep, const char *src, ptrdiff_t sstep, size_t blen,
                              MPI_Count n)
{
    switch (blen) {
    case 1: lc_dt_copy_n(dst, dstep, src, sstep, 1, n); break;
    case 2: lc_dt_copy_n(dst, dstep, src, sstep, 2, n); break;
    case 4: lc_dt_copy_n(dst, dstep, src, sstep, 4, n); break;
    case 8: lc_dt_copy_n(dst, dstep, src, sstep, 8, n); break;
    case 12: lc_dt_copy_n(dst, dstep, src, sstep, 12, n); break;
    case 16: lc_dt_copy_n(dst, dstep, src, sstep, 16, n); break;
    case 24: lc_dt_copy_n(dst, dstep, src, sstep, 24, n); break;
    case 32: lc_dt_copy_n(dst, dstep, src, sstep, 32, n); break;
    case 48: lc_dt_copy_n(dst, dstep, src, sstep, 48, n); break;
    case 64: lc_dt_copy_n(dst, dstep, src, sstep, 64, n); break;
    case 128: lc_dt_copy_n(dst, dstep, src, sstep, 128, n); break;
    default: lc_dt_copy_n(dst, dstep, src, sstep, blen, n); break;
    }
}

/* Largest i < n with prefix[i] <= r (prefix[0] == 0, increasing). */
static MPI_Count lc_dt_find(const MPI_Count *prefix, MPI_Count n, MPI_Count r)
{
    MPI_Count lo = 0, hi = n;
    while (hi - lo > 1) {
        MPI_Count mid = lo + (hi - lo) / 2;
        if (prefix[mid] <= r) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Push frames from `node` (an instance at `origin`) down to the leaf
 * holding packed offset r of that instance. */
static void lc_dt_descend(lc_dt_cursor_t *cur, lc_dt_frame_t *frames, const lc_dt_loop_t *node, uintptr_t origin,
                          MPI_Count r)
{
    for (;;) {
        lc_dt_frame_t *f = &frames[cur->depth++];
        f->node = node;
        f->origin = origin + (uintptr_t)node->offset;
        f->i = 0;
        f->r = 0;
        f->b = 0;
        switch (node->kind) {
        case LC_DT_LOOP_LEAF_VEC:
            if (r) {
                f->i = r / node->blen;
                f->b = (MPI_Aint)(r % node->blen);
            }
            return;
        case LC_DT_LOOP_LEAF_LIST:
            if (r) {
                f->i = lc_dt_find(node->prefix, node->count, r);
                f->b = (MPI_Aint)(r - node->prefix[f->i]);
            }
            return;
        case LC_DT_LOOP_NEST_VEC:
            if (r) {
                f->i = r / node->child->size;
                r %= node->child->size;
            }
            origin = f->origin + (uintptr_t)(f->i * node->stride);
            node = node->child;
            break;
        default: { /* LC_DT_LOOP_NEST_LIST */
            if (r) {
                f->i = lc_dt_find(node->prefix, node->count, r);
                r -= node->prefix[f->i];
            }
            const lc_dt_entry_t *e = &node->entries[f->i];
            if (r) {
                f->r = r / e->child->size;
                r %= e->child->size;
            }
            origin = f->origin + (uintptr_t)(e->displ + f->r * e->stride);
            node = e->child;
            break;
        }
        }
    }
}

/* The deepest frame's leaf instance is done: step to the next leaf. */
static void lc_dt_next(lc_dt_cursor_t *cur, lc_dt_frame_t *frames)
{
    cur->depth--;
    while (cur->depth > 0) {
        lc_dt_frame_t *f = &frames[cur->depth - 1];
        const lc_dt_loop_t *node = f->node;
        if (node->kind == LC_DT_LOOP_NEST_VEC) {
            if (++f->i < node->count) {
                lc_dt_descend(cur, frames, node->child, f->origin + (uintptr_t)(f->i * node->stride), 0);
                return;
            }
        } else {
            const lc_dt_entry_t *e = &node->entries[f->i];
            if (++f->r < e->reps) {
                lc_dt_descend(cur, frames, e->child, f->origin + (uintptr_t)(e->displ + f->r * e->stride), 0);
                return;
            }
            f->r = 0;
            if (++f->i < node->count) {
                e++;
                lc_dt_descend(cur, frames, e->child, f->origin + (uintptr_t)e->displ, 0);
                return;
            }
        }
        cur->depth--;
    }
}

LC_INLINE void lc_dt_copy(char *mem, char *stream, size_t n, bool unpack)
{
    if (unpack) memcpy(mem, stream, n);
    else memcpy(stream, mem, n);
}

/* Move up to len bytes of a vector leaf; returns how many. */
LC_INLINE size_t lc_dt_leaf_vec(lc_dt_frame_t *f, char *stream, size_t len, bool unpack)
{
    const lc_dt_loop_t *nd = f->node;
    size_t blen = (size_t)nd->blen, done = 0;
    ptrdiff_t stride = nd->stride;
    char *mem = (char *)(f->origin + (uintptr_t)(f->i * stride));
    if (f->b) { /* finish the block a range stopped in */
        size_t n = blen - (size_t)f->b < len ? blen - (size_t)f->b : len;
        lc_dt_copy(mem + f->b, stream, n, unpack);
        done = n;
        f->b += (MPI_Aint)n;
        if ((size_t)f->b < blen) return done;
        f->b = 0;
        f->i++;
        mem += stride;
    }
    MPI_Count whole = (MPI_Count)((len - done) / blen);
    if (whole > nd->count - f->i) whole = nd->count - f->i;
    if (whole > 0) {
        if (unpack) lc_dt_copy_blocks(mem, stride, stream + done, (ptrdiff_t)blen, blen, whole);
        else lc_dt_copy_blocks(stream + done, (ptrdiff_t)blen, mem, stride, blen, whole);
        done += (size_t)whole * blen;
        f->i += whole;
        mem += whole * stride;
    }
    if (f->i < nd->count && done < len) { /* stop inside a block */
        size_t n = len - done;
        lc_dt_copy(mem, stream + done, n, unpack);
        f->b = (MPI_Aint)n;
        done = len;
    }
    return done;
}

LC_INLINE size_t lc_dt_leaf_list(lc_dt_frame_t *f, char *stream, size_t len, bool unpack)
{
    const lc_dt_loop_t *nd = f->node;
    size_t done = 0;
    while (f->i < nd->count && done < len) {
        size_t bl = (size_t)(nd->blens ? nd->blens[f->i] : nd->blen), n = bl - (size_t)f->b;
        if (n > len - done) n = len - done;
        lc_dt_copy((char *)(f->origin + (uintptr_t)(nd->displs[f->i] + f->b)), stream + done, n, unpack);
        done += n;
        f->b += (MPI_Aint)n;
        if ((size_t)f->b == bl) {
            f->b = 0;
            f->i++;
        }
    }
    return done;
}

LC_INLINE size_t lc_dt_cursor_move(lc_dt_cursor_t *cur, char *stream, size_t len, bool unpack)
{
    lc_dt_frame_t *frames = lc_dt_frames(cur);
    size_t done = 0;
    while (done < len && cur->depth > 0) {
        lc_dt_frame_t *f = &frames[cur->depth - 1];
        if (f->node->kind == LC_DT_LOOP_LEAF_VEC) done += lc_dt_leaf_vec(f, stream + done, len - done, unpack);
        else done += lc_dt_leaf_list(f, stream + done, len - done, unpack);
        if (f->i == f->node->count) lc_dt_next(cur, frames);
    }
    cur->pos += (MPI_Count)done;
    return done;
}

size_t lc_dt_cursor_pack(lc_dt_cursor_t *cur, void *out, size_t len)
{
    return lc_dt_cursor_move(cur, out, len, false);
}

size_t lc_dt_cursor_unpack(lc_dt_cursor_t *cur, const void *in, size_t len)
{
    return lc_dt_cursor_move(cur, (char *)in, len, true);
}

size_t lc_dt_cursor_iov(lc_dt_cursor_t *cur, struct iovec *iov, int max_iov, size_t max_bytes, int *n_iov_p)
{
    lc_dt_frame_t *frames = lc_dt_frames(cur);
    size_t done = 0;
    int n = 0;
    while (done < max_bytes && cur->depth > 0) {
        lc_dt_frame_t *f = &frames[cur->depth - 1];
        const lc_dt_loop_t *nd = f->node;
        bool vec = nd->kind == LC_DT_LOOP_LEAF_VEC;
        size_t bl = (size_t)(vec || !nd->blens ? nd->blen : nd->blens[f->i]);
        uintptr_t addr = f->origin + (uintptr_t)((vec ? f->i * nd->stride : nd->displs[f->i]) + f->b);
        size_t seg = bl - (size_t)f->b;
        if (seg > max_bytes - done) seg = max_bytes - done;
        if (n > 0 && (uintptr_t)iov[n - 1].iov_base + iov[n - 1].iov_len == addr) {
            iov[n - 1].iov_len += seg; /* continues the previous segment */
        } else {
            if (n == max_iov) break;
            iov[n].iov_base = (void *)addr;
            iov[n].iov_len = seg;
            n++;
        }
        done += seg;
        f->b += (MPI_Aint)seg;
        if ((size_t)f->b == bl) {
            f->b = 0;
            if (++f->i == nd->count) lc_dt_next(cur, frames);
        }
    }
    cur->pos += (MPI_Count)done;
    *n_iov_p = n;
    return done;
}

void lc_dt_cursor_seek(lc_dt_cursor_t *cur, MPI_Count off)
{
    cur->depth = 0;
    cur->pos = off < cur->total ? off : cur->total;
    if (off < cur->total) lc_dt_descend(cur, lc_dt_frames(cur), &cur->top, cur->buf, off);
}

int lc_dt_cursor_init(lc_dt_cursor_t *cur, const lc_dt_t *t, MPI_Count count, const void *buf)
{
    cur->buf = (uintptr_t)buf;
    cur->heap = NULL;
    cur->depth = 0;
    cur->max_depth = 0;
    cur->pos = 0;
    MPI_Aint span;
    if (__builtin_mul_overflow(count, t->size, &cur->total) ||
        __builtin_mul_overflow((MPI_Aint)(count > 0 ? count - 1 : 0), lc_dt_extent(t), &span))
        return lc_error(MPI_ERR_COUNT, "%lld items of this datatype (size %lld, extent %ld) exceed the address space",
                        (long long)count, (long long)t->size, (long)lc_dt_extent(t));
    if (cur->total == 0) return MPI_SUCCESS;
    lc_dt_loop_t dense = { .kind = LC_DT_LOOP_LEAF_VEC, .depth = 1, .offset = t->true_lb, .size = t->size,
                           .count = 1, .blen = (MPI_Aint)t->size };
    const lc_dt_loop_t *root = (t->flags & LC_DT_F_DENSE) ? &dense : t->loop;
    if (!root) return lc_error(MPI_ERR_TYPE, "datatype %#x is not committed: call MPI_Type_commit", (unsigned)t->handle);
    /* a dense root always merges into a leaf: top never points at `dense` */
    lc_dt_loop_repeat(&cur->top, root, count, lc_dt_extent(t), 0);
    cur->max_depth = cur->top.depth;
    if (cur->max_depth > LC_DT_CURSOR_FRAMES) {
        cur->heap = malloc((size_t)cur->max_depth * sizeof(lc_dt_frame_t));
        if (!cur->heap) return lc_error(MPI_ERR_NO_MEM, "out of memory for a datatype cursor");
    }
    lc_dt_cursor_seek(cur, 0);
    return MPI_SUCCESS;
}

void lc_dt_cursor_fini(lc_dt_cursor_t *cur)
{
    free(cur->heap);
    cur->heap = NULL;
    cur->depth = 0;
}

/* One-shot range: the byte path when count items are one run. */
static int lc_dt_range(const lc_dt_t *t, MPI_Count count, uintptr_t buf, MPI_Count off, char *stream, size_t len,
                       bool unpack)
{
    if (len == 0) return MPI_SUCCESS;
    if (lc_dt_is_contig(t, count)) {
        lc_dt_copy((char *)(buf + (uintptr_t)(t->true_lb + off)), stream, len, unpack);
        return MPI_SUCCESS;
    }
    lc_dt_cursor_t cur;
    int rc = lc_dt_cursor_init(&cur, t, count, (const void *)buf);
    if (rc) return rc;
    lc_dt_cursor_seek(&cur, off);
    if (unpack) lc_dt_cursor_unpack(&cur, stream, len);
    else lc_dt_cursor_pack(&cur, stream, len);
    lc_dt_cursor_fini(&cur);
    return MPI_SUCCESS;
}

int lc_dt_pack(const lc_dt_t *t, MPI_Count count, const void *buf, MPI_Count off, void *out, size_t len)
{
    return lc_dt_range(t, count, (uintptr_t)buf, off, out, len, false);
}

int lc_dt_unpack(const lc_dt_t *t, MPI_Count count, void *buf, MPI_Count off, const void *in, size_t len)
{
    return lc_dt_range(t, count, (uintptr_t)buf, off, (char *)in, len, true);
}
