/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_coll_alias.c — a collective's send and receive buffers must not
 * share memory (MPI 4.1 §2.5: buffers passed to one call may not alias
 * where one is written); working in place is asked for with MPI_IN_PLACE.
 * Aliased buffers would give wrong results, not an error, so the check
 * says so with MPI_ERR_BUFFER (issue 12, point 5).
 *
 * Cheap: the address range of each side, compared once (a vector side:
 * once per block; blocks on both sides: see lc_check_apart_sides).  Exact where the items are one dense run (predefined
 * types, contiguous derived types): a datatype with holes may interleave
 * legally with the other side, so for it only the same start address with
 * data is refused, as before.
 */
#include "mpi/lc_mpi_coll.h"
#include "datatype/lc_dt.h"
#include "mpi/lc_mpi_blocks.h"

#include <stdint.h>
#include <stdlib.h>

/* Bytes between items and the data offset of an item of dt, when items
 * are dense (one run, item after item); false otherwise. */
static bool lc_alias_layout(MPI_Datatype dt, size_t *ext_p, ptrdiff_t *lb_p)
{
    size_t s = lc_dtype_size(dt); /* predefined: the extent, padding included */
    if (s) {
        *ext_p = s;
        *lb_p = 0;
        return true;
    }
    const lc_dt_t *t = lc_dt_get(dt);
    if (!t || !(t->flags & LC_DT_F_DENSE) || t->size <= 0 || lc_dt_extent(t) != t->size) return false;
    *ext_p = (size_t)t->size;
    *lb_p = t->true_lb;
    return true;
}

/* [lo, hi) of `count` items from item `first` at buf. */
static void lc_alias_span(const void *buf, ptrdiff_t first, size_t count, size_t ext, ptrdiff_t lb, uintptr_t *lo,
                          uintptr_t *hi)
{
    *lo = (uintptr_t)buf + (uintptr_t)lb + (uintptr_t)(first * (ptrdiff_t)ext);
    *hi = *lo + count * ext;
}

static int lc_alias_error(uintptr_t slo, uintptr_t shi, uintptr_t rlo, uintptr_t rhi)
{
    uintptr_t lo = slo > rlo ? slo : rlo, hi = shi < rhi ? shi : rhi;
    return lc_error(MPI_ERR_BUFFER,
                    "sendbuf and recvbuf overlap (%zu bytes in common, at %p): send and receive buffers of a "
                    "collective must be apart; to work in place pass MPI_IN_PLACE as sendbuf (recvbuf at a "
                    "scatter's root)",
                    (size_t)(hi - lo), (void *)lo);
}

int lc_check_apart(const void *sbuf, MPI_Count scount, MPI_Datatype stype, const void *rbuf, MPI_Count rcount,
                   MPI_Datatype rtype)
{
    if (sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE || scount <= 0 || rcount <= 0) return MPI_SUCCESS;
    size_t sext, rext;
    ptrdiff_t slb, rlb;
    if (!lc_alias_layout(stype, &sext, &slb) || !lc_alias_layout(rtype, &rext, &rlb)) {
        if (sbuf == rbuf && lc_bytes(scount, stype) && lc_bytes(rcount, rtype))
            return lc_error(MPI_ERR_BUFFER,
                            "sendbuf and recvbuf are the same buffer: pass MPI_IN_PLACE as sendbuf instead");
        return MPI_SUCCESS;
    }
    uintptr_t slo, shi, rlo, rhi;
    lc_alias_span(sbuf, 0, (size_t)scount, sext, slb, &slo, &shi);
    lc_alias_span(rbuf, 0, (size_t)rcount, rext, rlb, &rlo, &rhi);
    if (slo < rhi && rlo < shi) return lc_alias_error(slo, shi, rlo, rhi);
    return MPI_SUCCESS;
}

int lc_check_apart_vector(const void *one, MPI_Count count, MPI_Datatype type, const void *vbuf, const lc_vec_t *v,
                          int n, MPI_Datatype vtype)
{
    if (one == MPI_IN_PLACE || vbuf == MPI_IN_PLACE || count <= 0) return MPI_SUCCESS;
    size_t ext, vext;
    ptrdiff_t lb, vlb;
    if (!lc_alias_layout(type, &ext, &lb) || !lc_alias_layout(vtype, &vext, &vlb)) return MPI_SUCCESS;
    uintptr_t lo, hi;
    lc_alias_span(one, 0, (size_t)count, ext, lb, &lo, &hi);
    for (int i = 0; i < n; i++) {
        size_t k = lc_vec_count(v, i);
        if (!k) continue;
        uintptr_t blo, bhi;
        lc_alias_span(vbuf, lc_vec_offset(v, i, 1), k, vext, vlb, &blo, &bhi);
        if (lo < bhi && blo < hi) return lc_alias_error(lo, hi, blo, bhi);
    }
    return MPI_SUCCESS;
}

/* ---- many blocks on both sides (alltoallv/w, neighbourhood, intercommunicators) ----
 *
 * Each side is a list of spans [lo, hi); the sides are apart when no span
 * of one meets a span of the other.  First the hull of each side, one pass
 * with no allocation: buffers far apart (the usual case) end there.  Only
 * when the hulls meet are the spans listed, ordered by start (already in
 * order for increasing displacements, the usual layout: checked in one
 * pass, sorted only otherwise), merged within each side (send blocks may
 * overlap each other legally) and walked together once. */

typedef struct {
    uintptr_t lo, hi;
} lc_span_t;

/* Block i of side a: false when it has no byte, is skipped (an MPI_PROC_NULL
 * neighbour) or its datatype has holes (it may interleave legally with the
 * other side: not checked). */
static bool lc_side_span(const lc_alias_side_t *a, int i, lc_span_t *sp)
{
    if (a->peers && a->peers[i] == MPI_PROC_NULL) return false;
    size_t n;
    ptrdiff_t off;
    MPI_Datatype dt;
    if (a->blocks) {
        const lc_blocks_t *b = a->blocks;
        n = a->bytes[i];
        off = a->off[i];
        dt = b->types ? b->types[i] : b->type;
    } else {
        n = a->vec ? lc_vec_count(a->vec, i) : (size_t)a->count;
        dt = a->type;
        off = 0;
    }
    if (!n) return false;
    size_t ext;
    ptrdiff_t lb;
    if (!lc_alias_layout(dt, &ext, &lb)) return false;
    if (a->blocks) {
        /* bytes = count * size, and size == extent for a dense type;
         * a padded pair type's bytes are its packed ones (12 of
         * MPI_DOUBLE_INT's 16: lc_mpi_coll_type), its span is count *
         * extent; resolved offsets are from buf to the item's lower bound */
        if (lc_unlikely(lc_dtype_padded(dt))) n = n / lc_dtype_type_size(dt) * ext;
        sp->lo = (uintptr_t)a->buf + (uintptr_t)off + (uintptr_t)lb;
        sp->hi = sp->lo + n;
        return true;
    }
    ptrdiff_t first = a->vec && a->vec->displs ? lc_vec_offset(a->vec, i, 1)
                      : a->same                ? 0
                                               : (ptrdiff_t)i * (ptrdiff_t)a->count;
    lc_alias_span(a->buf, first, n, ext, lb, &sp->lo, &sp->hi);
    return true;
}

static bool lc_side_hull(const lc_alias_side_t *a, lc_span_t *h)
{
    bool any = false;
    int n = a->same ? (a->n > 0 ? 1 : 0) : a->n;
    for (int i = 0; i < n; i++) {
        lc_span_t sp;
        if (!lc_side_span(a, i, &sp)) continue;
        if (!any || sp.lo < h->lo) h->lo = sp.lo;
        if (!any || sp.hi > h->hi) h->hi = sp.hi;
        any = true;
    }
    return any;
}

static int lc_span_cmp(const void *x, const void *y)
{
    const lc_span_t *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The spans of a, in order, merged where they meet; their number. */
static size_t lc_side_list(const lc_alias_side_t *a, lc_span_t *out)
{
    size_t k = 0;
    bool sorted = true;
    int n = a->same ? (a->n > 0 ? 1 : 0) : a->n;
    for (int i = 0; i < n; i++) {
        if (!lc_side_span(a, i, &out[k])) continue;
        if (k && out[k].lo < out[k - 1].lo) sorted = false;
        k++;
    }
    if (!sorted) qsort(out, k, sizeof(*out), lc_span_cmp);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (m && out[i].lo <= out[m - 1].hi) {
            if (out[i].hi > out[m - 1].hi) out[m - 1].hi = out[i].hi;
        } else {
            out[m++] = out[i];
        }
    }
    return m;
}

int lc_check_apart_sides(const lc_alias_side_t *s, const lc_alias_side_t *r, bool *overlap)
{
    if (overlap) *overlap = false;
    if (s->buf == MPI_IN_PLACE || r->buf == MPI_IN_PLACE) return MPI_SUCCESS;
    lc_span_t hs, hr;
    if (!lc_side_hull(s, &hs) || !lc_side_hull(r, &hr) || hs.hi <= hr.lo || hr.hi <= hs.lo) return MPI_SUCCESS;
    size_t ns = (size_t)(s->same ? 1 : s->n), nr = (size_t)(r->same ? 1 : r->n);
    lc_span_t *ls = malloc(sizeof(*ls) * (ns + nr));
    if (!ls) return lc_error(MPI_ERR_NO_MEM, "out of memory for %zu buffer blocks", ns + nr);
    lc_span_t *lr = ls + ns;
    ns = lc_side_list(s, ls);
    nr = lc_side_list(r, lr);
    int rc = MPI_SUCCESS;
    for (size_t i = 0, j = 0; i < ns && j < nr;) {
        if (ls[i].lo < lr[j].hi && lr[j].lo < ls[i].hi) {
            if (overlap)
                *overlap = true;
            else
                rc = lc_alias_error(ls[i].lo, ls[i].hi, lr[j].lo, lr[j].hi);
            break;
        }
        if (ls[i].hi <= lr[j].hi)
            i++;
        else
            j++;
    }
    free(ls);
    return rc;
}
