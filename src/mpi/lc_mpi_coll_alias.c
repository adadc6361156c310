/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_coll_alias.c — a collective's send and receive buffers must not
 * share memory (MPI 4.1 §2.5: buffers passed to one call may not alias
 * where one is written); working in place is asked for with MPI_IN_PLACE.
 * Aliased buffers would give wrong results, not an error, so the check
 * says so with MPI_ERR_BUFFER (issue 12, point 5).
 *
 * Cheap: the address range of each side, compared once (a vector side:
 * once per block).  Exact where the items are one dense run (predefined
 * types, contiguous derived types): a datatype with holes may interleave
 * legally with the other side, so for it only the same start address with
 * data is refused, as before.
 */
#include "mpi/lc_mpi_coll.h"
#include "datatype/lc_dt.h"

#include <stdint.h>

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
