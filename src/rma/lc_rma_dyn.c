/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_dyn.c — dynamic windows (MPI_Win_create_dynamic) without the
 * target's progress: every rank publishes the regions it has attached
 * in a table of a shared segment, and an origin checks a put or get
 * against the target's table before moving it by CMA.
 *
 * Before, every operation on a dynamic window was an active message,
 * because only the target knew which of its addresses were attached:
 * an origin could not tell a wrong displacement from a right one, and
 * writing the target's address space unchecked would let a wrong one
 * write arbitrary memory there.  Now the window, when all its ranks
 * share memory (and LOCUS_RMA_DYN_DIRECT allows it on every rank), maps
 * a segment (lc_rma_seg_map) with one page per rank: that rank's
 * lc_rma_dyn_tab_t, written only by it, at Win_attach and Win_detach,
 * under a sequence counter (a seqlock): readers never block the writer
 * and never wait for it either — a reader that finds the table being
 * rewritten, or rewritten while it read, gives up after a few tries and
 * the operation goes as an active message, as does one whose bytes are
 * not all in the regions it read (the target then refuses it exactly as
 * before: logged there, nothing written) and every one to a target with
 * more regions than the table holds.
 *
 * What the table cannot do: a region detached (and its memory reused)
 * after the origin read the table but before its system call lands is
 * written anyway.  MPI 4.1 §12.2.4 leaves that to the program (memory
 * must not be detached while operations to it may be pending; the
 * origin learns of an attachment only through a message of the
 * program's), so the check protects against wrong displacements, not
 * against a program racing its own detach.
 */
#include "coll/lc_coll.h"
#include "rma/lc_rma_impl.h"
#include "util/lc_params.h"

#include <stdlib.h>
#include <string.h>

/* One page per rank: the table is the part each rank writes. */
_Static_assert(sizeof(lc_rma_dyn_tab_t) == 4096, "a region table is one page");

bool lc_rma_regions_cover(const lc_rma_region_t *regions, int n, uint64_t disp, size_t bytes)
{
    /* The span may run over several attached regions that touch or
     * overlap (two halves of one array attached separately, as MPICH's
     * win_dynamic_rma_flush_get does): from `disp`, step to the end of any
     * region holding the current byte until the span is covered.  Each
     * step moves strictly forward, and a region that helped once cannot
     * again (the position is then past its end), so at most n steps. */
    if (bytes > UINT64_MAX - disp) return false;
    uint64_t pos = disp, end = disp + bytes;
    for (int step = 0; step <= n; step++) {
        bool in = false;
        uint64_t reach = pos;
        for (int i = 0; i < n; i++) {
            const lc_rma_region_t *r = &regions[i];
            uint64_t rend = r->size > UINT64_MAX - r->base ? UINT64_MAX : (uint64_t)r->base + r->size;
            /* (pos == rend counts only for an empty access, as before) */
            if (pos < r->base || pos > rend || (pos == rend && bytes)) continue;
            in = true;
            if (rend > reach) reach = rend;
        }
        if (!in) return false; /* byte `pos` is in no region */
        if (reach >= end) return true;
        pos = reach;
    }
    return false;
}

int lc_rma_dyn_setup(lc_rma_win_t *win)
{
    lc_comm_t *comm = win->comm;
    int n = comm->size;
    /* The same answer on every rank (the segment is collective): each
     * rank's view of the channels, its LOCUS_RMA_DYN_DIRECT and whether
     * it has the memory for the table pointers, ANDed. */
    size_t *sizes = malloc((size_t)n * sizeof *sizes);
    win->dyn = calloc((size_t)n, sizeof *win->dyn);
    int want = n > 1 && lc_params.rma_dyn_direct && sizes && win->dyn, all = 0;
    for (int r = 0; want && r < n; r++) {
        lc_channel_kind_t k = comm->peers[r]->kind;
        want = k == LC_CHANNEL_SELF || k == LC_CHANNEL_SHM;
    }
    int rc = lc_coll_allreduce(&want, &all, 1, MPI_INT, MPI_MIN, comm);
    if (rc == MPI_SUCCESS && all) {
        for (int r = 0; r < n; r++) sizes[r] = sizeof(lc_rma_dyn_tab_t);
        rc = lc_rma_seg_map(win, sizes, true, (char **)win->dyn);
    }
    free(sizes);
    if (rc != MPI_SUCCESS || !all) {
        free(win->dyn);
        win->dyn = NULL;
    }
    return rc;
}

void lc_rma_dyn_publish(lc_rma_win_t *win)
{
    if (!win->dyn) return;
    lc_rma_dyn_tab_t *t = win->dyn[win->comm->rank];
    uint64_t g = t->gen; /* only this process writes it */
    /* Odd: a rewrite is under way.  The release fence orders that store
     * before the table's stores, so a reader that saw any of the new
     * contents sees the odd (or a later) count on its second read. */
    __atomic_store_n(&t->gen, g + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    int n = win->nregions;
    bool full = n > LC_RMA_DYN_SLOTS;
    if (full) n = 0;
    for (int i = 0; i < n; i++) {
        __atomic_store_n(&t->r[i][0], (uint64_t)win->regions[i].base, __ATOMIC_RELAXED);
        __atomic_store_n(&t->r[i][1], (uint64_t)win->regions[i].size, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&t->n, (uint32_t)n, __ATOMIC_RELAXED);
    __atomic_store_n(&t->full, (uint32_t)full, __ATOMIC_RELAXED);
    /* Even again; release: the new contents before the count. */
    __atomic_store_n(&t->gen, g + 2, __ATOMIC_RELEASE);
}

bool lc_rma_dyn_reach(lc_rma_win_t *win, int target, uint64_t addr, size_t bytes)
{
    return lc_rma_dyn_check(win, target, addr, bytes) > 0;
}

int lc_rma_dyn_check(lc_rma_win_t *win, int target, uint64_t addr, size_t bytes)
{
    const lc_rma_dyn_tab_t *t = win->dyn[target];
    lc_rma_region_t copy[LC_RMA_DYN_SLOTS];
    for (int tries = 0; tries < 4; tries++) {
        /* Acquire: the contents of the table the owner finished writing
         * when it stored this count. */
        uint64_t g = __atomic_load_n(&t->gen, __ATOMIC_ACQUIRE);
        if (g & 1) continue; /* being rewritten: the owner may be descheduled there, do not wait */
        uint32_t n = __atomic_load_n(&t->n, __ATOMIC_RELAXED);
        uint32_t full = __atomic_load_n(&t->full, __ATOMIC_RELAXED);
        if (n > LC_RMA_DYN_SLOTS) n = LC_RMA_DYN_SLOTS; /* torn: the count check below rejects it */
        for (uint32_t i = 0; i < n; i++) {
            copy[i].base = (uintptr_t)__atomic_load_n(&t->r[i][0], __ATOMIC_RELAXED);
            copy[i].size = (size_t)__atomic_load_n(&t->r[i][1], __ATOMIC_RELAXED);
        }
        /* The reads above before the second read of the count: equal
         * counts mean no rewrite overlapped them. */
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&t->gen, __ATOMIC_RELAXED) != g) continue;
        return !full && lc_rma_regions_cover(copy, (int)n, addr, bytes);
    }
    return -1;
}
