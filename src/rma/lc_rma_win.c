/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_win.c — window objects: creation (which path the window takes),
 * the per-rank table (size, displacement unit, mapped base), dynamic
 * regions, freeing.
 */
#include "coll/lc_coll.h"
#include "rma/lc_rma_impl.h"

#include <stdlib.h>
#include <string.h>

void lc_rma_idle(void)
{
    if (!lc_progress()) lc_progress_idle();
}

/* Every rank of comm is this process or a shared-memory peer (the peers
 * MPI_COMM_TYPE_SHARED groups: wire-up proved the segment attaches). */
static bool lc_rma_all_shm(const lc_comm_t *comm)
{
    for (int r = 0; r < comm->size; r++) {
        lc_channel_kind_t k = comm->peers[r]->kind;
        if (k != LC_CHANNEL_SELF && k != LC_CHANNEL_SHM) return false;
    }
    return true;
}

/* Every rank's base address, and which peers CMA reaches (collective). */
static int lc_rma_cma_setup(lc_rma_win_t *win)
{
    lc_comm_t *comm = win->comm;
    int n = comm->size;
    uint64_t mine = (uint64_t)(uintptr_t)win->base;
    win->remote_bases = malloc((size_t)n * sizeof(uint64_t));
    win->cma = calloc((size_t)n, 1);
    if (!win->remote_bases || !win->cma) return lc_error(MPI_ERR_NO_MEM, "out of memory creating a window");
    int rc = lc_coll_allgather(&mine, sizeof mine, MPI_BYTE, win->remote_bases, sizeof mine, MPI_BYTE, comm);
    for (int r = 0; rc == MPI_SUCCESS && r < n; r++) {
        const lc_peer_t *p = comm->peers[r];
        win->cma[r] = p->kind == LC_CHANNEL_SHM && p->can_pull && p->cma.pid > 0;
    }
    return rc;
}

static void lc_rma_win_release(lc_rma_win_t *win)
{
    lc_rma_seg_destroy(win);
    if (win->owns_base) free(win->base);
    free(win->sizes);
    free(win->disp_units);
    free(win->bases);
    free(win->locked);
    free(win->holds);
    lc_rma_outq_fini(win);
    free(win->ans_buf);
    if (win->ans_req) lc_request_release(win->ans_req); /* never started */
    free(win->regions);
    free(win->dyn); /* the tables went with the segment */
    free(win->remote_bases);
    free(win->cma);
    lc_rma_ofi_teardown(win);
    free(win->start_ranks);
    free(win->post_ranks);
    free(win);
}

int lc_rma_win_create(lc_comm_t *comm, int flavor, size_t size, int disp_unit, bool noncontig, void **base_p,
                      lc_rma_win_t **win_p)
{
    int n = comm->size, rc;
    lc_rma_win_t *win = calloc(1, sizeof *win);
    if (!win) return lc_error(MPI_ERR_NO_MEM, "out of memory creating a window");
    win->comm = comm;
    win->flavor = flavor;
    win->size = size;
    win->disp_unit = disp_unit;
    lc_list_init(&win->inq);
    lc_list_init(&win->waiters);
    lc_list_init(&win->active_link);
    win->sizes = calloc((size_t)n, sizeof(size_t));
    win->disp_units = calloc((size_t)n, sizeof(int));
    win->bases = calloc((size_t)n, sizeof(char *));
    win->locked = calloc((size_t)n, 1);
    win->holds = calloc((size_t)n, 1);
    if (!win->sizes || !win->disp_units || !win->bases || !win->locked || !win->holds) {
        lc_rma_win_release(win);
        return lc_error(MPI_ERR_NO_MEM, "out of memory creating a window of %d ranks", n);
    }
    /* Everyone's size and unit: origins check ranges and scale
     * displacements themselves on the direct path. */
    int64_t mine[2] = { (int64_t)size, disp_unit }, *all = malloc((size_t)n * sizeof mine);
    if (!all) {
        lc_rma_win_release(win);
        return lc_error(MPI_ERR_NO_MEM, "out of memory creating a window of %d ranks", n);
    }
    rc = lc_coll_allgather(mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, comm);
    for (int r = 0; rc == MPI_SUCCESS && r < n; r++) {
        win->sizes[r] = (size_t)all[2 * r];
        win->disp_units[r] = (int)all[2 * r + 1];
    }
    free(all);
    if (rc != MPI_SUCCESS) goto fail;

    /* The path, the same on every rank (all inputs are collective). */
    win->direct = flavor == LC_RMA_SHARED || (flavor == LC_RMA_ALLOCATE && n > 1 && lc_rma_all_shm(comm));
    if (win->direct) {
        rc = lc_rma_seg_create(win, noncontig);
        if (rc != MPI_SUCCESS) goto fail;
    } else {
        if (flavor == LC_RMA_ALLOCATE) {
            win->base = malloc(size ? size : 1);
            win->owns_base = true;
            if (!win->base) {
                rc = lc_error(MPI_ERR_NO_MEM, "cannot allocate %zu bytes of window memory", size);
                goto fail;
            }
        } else if (flavor == LC_RMA_CREATE) {
            win->base = *base_p;
        }
        win->bases[comm->rank] = win->base;
        /* Dynamic windows: CMA only with the region tables, which let the
         * origin check an address (remote_bases are then 0: the
         * displacement is the address). */
        if (flavor == LC_RMA_DYNAMIC) rc = lc_rma_dyn_setup(win);
        if (rc == MPI_SUCCESS && (flavor != LC_RMA_DYNAMIC || win->dyn)) rc = lc_rma_cma_setup(win);
        if (rc == MPI_SUCCESS && flavor != LC_RMA_ALLOCATE) rc = lc_rma_cmaacc_setup(win);
        if (rc == MPI_SUCCESS && flavor != LC_RMA_DYNAMIC) rc = lc_rma_ofi_setup(win);
        if (rc == MPI_SUCCESS) rc = lc_rma_outq_init(win);
        if (rc == MPI_SUCCESS) rc = lc_rma_am_enable(win);
        if (rc != MPI_SUCCESS) goto fail;
    }
    if (flavor == LC_RMA_ALLOCATE || flavor == LC_RMA_SHARED) *base_p = win->base;
    *win_p = win;
    return MPI_SUCCESS;
fail:
    lc_rma_win_release(win);
    return rc;
}

int lc_rma_win_free(lc_rma_win_t *win)
{
    /* MPI 4.1 §12.2.5: free is collective and waits for every rank to be
     * done with the window (a barrier: its progress still serves other
     * ranks' requests, whose answers they wait for before they enter). */
    int rc = lc_rma_flush(win, -1);
    /* The barrier even when the flush failed: the other ranks wait in it
     * (before, a failed answer here left them there for good). */
    int rc2 = lc_coll_barrier(win->comm);
    if (rc == MPI_SUCCESS) rc = rc2;
    if (!win->direct) {
        /* The answers we sent while in the barrier (the others' last
         * requests): every origin has them (it flushed before entering),
         * so their sends complete; each is released with its buffer. */
        rc2 = lc_rma_am_flush(win, -1);
        if (rc == MPI_SUCCESS) rc = rc2;
        lc_rma_am_disable(win);
    }
    lc_rma_win_release(win);
    return rc;
}

lc_comm_t *lc_rma_win_comm(const lc_rma_win_t *win)
{
    return win->comm;
}
int lc_rma_win_flavor(const lc_rma_win_t *win)
{
    return win->flavor;
}
void *lc_rma_win_base(const lc_rma_win_t *win)
{
    return win->base;
}
size_t lc_rma_win_size(const lc_rma_win_t *win)
{
    return win->size;
}
int lc_rma_win_disp_unit(const lc_rma_win_t *win)
{
    return win->disp_unit;
}
bool lc_rma_win_direct(const lc_rma_win_t *win)
{
    return win->direct;
}

/* A rank's segment of size 0 has no memory to address: its base is NULL
 * (what MPICH returns, and MPICH's rma/win_shared_noncontig_put checks),
 * not where its neighbour's segment starts.  MPI_PROC_NULL with every
 * size 0 is the one case MPI 4.1 §12.2.3 specifies: "a baseptr as if
 * MPI_ALLOC_MEM was called with size = 0", i.e. any pointer, which may
 * not be dereferenced; the last rank's base is kept there. */
void lc_rma_win_shared_query(const lc_rma_win_t *win, int rank, size_t *size_p, int *disp_unit_p, void **base_p)
{
    bool any = rank == MPI_PROC_NULL;
    if (any) {
        for (rank = 0; rank < win->comm->size - 1 && win->sizes[rank] == 0; rank++) continue;
    }
    if (!win->direct && rank != win->comm->rank) {
        *size_p = 0;
        *disp_unit_p = win->disp_units[rank];
        *base_p = NULL;
        return;
    }
    *size_p = win->sizes[rank];
    *disp_unit_p = win->disp_units[rank];
    *base_p = win->sizes[rank] || any ? win->bases[rank] : NULL;
}

int lc_rma_win_attach(lc_rma_win_t *win, void *base, size_t size)
{
    if (win->nregions == win->capregions) {
        int cap = win->capregions ? 2 * win->capregions : 8;
        lc_rma_region_t *r = realloc(win->regions, (size_t)cap * sizeof *r);
        if (!r) return lc_error(MPI_ERR_NO_MEM, "out of memory attaching memory to a window");
        win->regions = r;
        win->capregions = cap;
    }
    win->regions[win->nregions++] = (lc_rma_region_t){ (uintptr_t)base, size };
    lc_rma_dyn_publish(win);
    return MPI_SUCCESS;
}

int lc_rma_win_detach(lc_rma_win_t *win, const void *base)
{
    for (int i = 0; i < win->nregions; i++) {
        if (win->regions[i].base == (uintptr_t)base) {
            win->regions[i] = win->regions[--win->nregions];
            lc_rma_dyn_publish(win);
            return MPI_SUCCESS;
        }
    }
    return lc_error(MPI_ERR_RMA_ATTACH, "%p is not the base of memory attached to this window", base);
}

static int lc_rma_check_epoch(const lc_rma_win_t *win, int target)
{
    bool open = win->fence_open || win->lock_all || win->locked[target];
    for (int i = 0; !open && i < win->nstart; i++) open = win->start_ranks[i] == target;
    if (!open)
        return lc_error(MPI_ERR_RMA_SYNC,
                        "no access epoch to rank %d is open on this window: call MPI_Win_fence, MPI_Win_lock, "
                        "MPI_Win_lock_all or MPI_Win_start first",
                        target);
    return MPI_SUCCESS;
}

int lc_rma_check_access(const lc_rma_win_t *win, int target, MPI_Aint disp, size_t bytes)
{
    int rc = lc_rma_check_epoch(win, target);
    if (rc) return rc;
    if (win->flavor == LC_RMA_DYNAMIC) return MPI_SUCCESS; /* the target checks its regions */
    if (disp < 0) return lc_error(MPI_ERR_RMA_RANGE, "target displacement %ld is negative", (long)disp);
    /* disp x disp_unit can exceed MPI_Aint (disp 2^62 x unit 4 wraps to
     * offset 0): an overflowing product lies outside every window. */
    size_t off;
    if (__builtin_mul_overflow((size_t)disp, (size_t)win->disp_units[target], &off) || off > win->sizes[target] ||
        bytes > win->sizes[target] - off)
        return lc_error(MPI_ERR_RMA_RANGE,
                        "%zu bytes at displacement %ld (x unit %d) do not fit in rank %d's window of %zu bytes", bytes,
                        (long)disp, win->disp_units[target], target, win->sizes[target]);
    return MPI_SUCCESS;
}

int lc_rma_check_span(const lc_rma_win_t *win, int target, MPI_Aint disp, MPI_Aint lo, MPI_Aint hi)
{
    int rc = lc_rma_check_epoch(win, target);
    if (rc) return rc;
    if (win->flavor == LC_RMA_DYNAMIC) return MPI_SUCCESS; /* the target checks its regions block by block */
    if (disp < 0) return lc_error(MPI_ERR_RMA_RANGE, "target displacement %ld is negative", (long)disp);
    MPI_Aint off, first, last;
    if (__builtin_mul_overflow(disp, (MPI_Aint)win->disp_units[target], &off) ||
        __builtin_add_overflow(off, lo, &first) || __builtin_add_overflow(off, hi, &last) || first < 0 ||
        (size_t)last > win->sizes[target])
        return lc_error(MPI_ERR_RMA_RANGE,
                        "the target datatype's data, bytes [%ld, %ld) from displacement %ld (x unit %d), does not "
                        "fit in rank %d's window of %zu bytes",
                        (long)lo, (long)hi, (long)disp, win->disp_units[target], target, win->sizes[target]);
    return MPI_SUCCESS;
}
