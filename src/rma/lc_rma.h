/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma.h — the one-sided engine (MPI 4.1 chapter 12): windows, their
 * memory, the operations and the synchronisation, below the MPI layer
 * (src/mpi/lc_mpi_win*.c checks arguments and owns handles, names, hints,
 * attributes and error handlers).
 *
 * Two paths, chosen per window at creation, never per operation:
 *  - direct: the memory of every rank is in one shared segment that every
 *    rank maps (Win_allocate_shared; Win_allocate when all ranks are
 *    proven shared-memory peers).  Put/Get are memcpy, accumulates run
 *    under a per-target spin lock in the segment (atomic per element for
 *    every type and operation, including pair types), passive-target
 *    locks are reader/writer words in the segment.  Nothing depends on
 *    the target calling MPI.
 *  - active messages (Win_create, Win_create_dynamic, Win_allocate with a
 *    peer outside shared memory): every operation is one message to the
 *    target (header + data) on the window's private communicator; the
 *    target's progress engine (its progress hook) applies it in arrival
 *    order and answers (data or an empty acknowledgement), so an origin
 *    knows an operation complete at the target when its answer arrived.
 *    Operations on the origin itself are applied in place.
 * Datatypes: lc_rma_op moves count elements of one predefined type
 * (contiguous on both sides); lc_rma_op_typed takes committed derived
 * types on the origin, result and target sides (lc_rma_dtype.c).
 * Functions return MPI error codes.
 */
#ifndef LC_RMA_H
#define LC_RMA_H

#include "pt2pt/lc_pt2pt.h"

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lc_rma_win lc_rma_win_t;
struct lc_dt;

/* MPI_WIN_FLAVOR_* values (MPICH's). */
enum { LC_RMA_CREATE = 1, LC_RMA_ALLOCATE = 2, LC_RMA_DYNAMIC = 3, LC_RMA_SHARED = 4 };

/* Collective over `comm`, which the window keeps (a private duplicate made
 * by the caller; lc_rma_win_free frees it).  flavor CREATE: `*base_p` is
 * the user's memory; ALLOCATE/SHARED: memory is allocated and its address
 * stored in *base_p; DYNAMIC: size 0, no memory.  `noncontig`: SHARED
 * only, each rank's part starts on its own page. */
int lc_rma_win_create(lc_comm_t *comm, int flavor, size_t size, int disp_unit, bool noncontig, void **base_p,
                      lc_rma_win_t **win_p);
/* Collective; waits until every rank is done with the window. */
int lc_rma_win_free(lc_rma_win_t *win);

lc_comm_t *lc_rma_win_comm(const lc_rma_win_t *win);
int lc_rma_win_flavor(const lc_rma_win_t *win);
void *lc_rma_win_base(const lc_rma_win_t *win);
size_t lc_rma_win_size(const lc_rma_win_t *win);
int lc_rma_win_disp_unit(const lc_rma_win_t *win);
bool lc_rma_win_direct(const lc_rma_win_t *win);
/* Rank `rank`'s memory as this process maps it (direct windows), or size
 * 0 and NULL.  MPI_PROC_NULL: the lowest rank with size > 0. */
void lc_rma_win_shared_query(const lc_rma_win_t *win, int rank, size_t *size_p, int *disp_unit_p, void **base_p);
/* Dynamic windows: memory regions other ranks may address. */
int lc_rma_win_attach(lc_rma_win_t *win, void *base, size_t size);
int lc_rma_win_detach(lc_rma_win_t *win, const void *base);

/* ---- operations (lc_rma_ops.c) --------------------------------------- */
typedef enum lc_rma_kind {
    LC_RMA_PUT = 1,
    LC_RMA_GET,
    LC_RMA_ACC,  /* accumulate (op may be MPI_REPLACE) */
    LC_RMA_GACC, /* get_accumulate / fetch_and_op (op may be MPI_NO_OP) */
    LC_RMA_CAS,  /* compare_and_swap: one element */
    LC_RMA_LOCK, /* control messages of the active-message path */
    LC_RMA_UNLOCK,
} lc_rma_kind_t;

/* One operation on `count` elements of the predefined type `dt` at
 * displacement `disp` of `target`'s window.  `origin` holds the data
 * (PUT, ACC, GACC, CAS: the new value), `compare` the CAS comparand,
 * `result` receives the old data (GET, GACC, CAS).  The operation is
 * complete at the origin when this returns for GET/GACC/CAS on the direct
 * path; otherwise at the next flush, unlock, fence or complete.
 * `user` (request forms, may be NULL): a request the caller allocated,
 * completed here or when the operation completes at the target. */
int lc_rma_op(lc_rma_win_t *win, lc_rma_kind_t kind, int target, MPI_Aint disp, MPI_Datatype dt, size_t count,
              MPI_Op op, const void *origin, const void *compare, void *result, lc_request_t *user);

/* The fast path of MPI_Put and MPI_Get (8 B on one host is tens of ns, of
 * which the general checks were a third): `bytes` contiguous bytes to
 * (put) or from `buf` at displacement `disp` of `target`'s memory, done
 * in place when the window is direct, an epoch to `target` is open by
 * fence, lock or lock_all, and the bytes lie in its window.  False
 * otherwise, nothing done: the caller takes the general path, which
 * checks everything again and says what was wrong. */
bool lc_rma_direct_copy(lc_rma_win_t *win, bool put, int target, MPI_Aint disp, void *buf, size_t bytes);
/* The same for Accumulate (ACC) of `count` elements and Fetch_and_op
 * (GACC, count 1) with `op` a reduction valid on `dt`, and
 * Compare_and_swap (CAS, count 1), elements of `esz` bytes, under the
 * target's accumulate lock as on the general path. */
bool lc_rma_direct_atomic(lc_rma_win_t *win, lc_rma_kind_t kind, int target, MPI_Aint disp, MPI_Datatype dt, size_t esz,
                          size_t count, MPI_Op op, const void *origin, const void *compare, void *result);

/* The same with derived datatypes (lc_rma_dtype.c): the target side is
 * tcount items of `tt` at `disp`, the origin side ocount items of `ot` at
 * `origin` (PUT, ACC, GACC unless MPI_NO_OP), the result side rcount
 * items of `rt` at `result` (GET, GACC); all sides hold the same number
 * of bytes (the caller checked).  `basic`: MPI_BYTE for PUT and GET, the
 * one predefined type all sides are made of for accumulates.  Not CAS.
 * The direct path walks the target's blocks in place, CMA moves them with
 * one vector system call per IOV_MAX blocks, active messages carry the
 * target's (offset, length) blocks, which the target checks against its
 * window before touching it. */
int lc_rma_op_typed(lc_rma_win_t *win, lc_rma_kind_t kind, int target, MPI_Aint disp, MPI_Datatype basic, MPI_Op op,
                    struct lc_dt *tt, MPI_Count tcount, struct lc_dt *ot, MPI_Count ocount, const void *origin,
                    struct lc_dt *rt, MPI_Count rcount, void *result, lc_request_t *user);

/* ---- synchronisation (lc_rma_sync.c) ---------------------------------- */
int lc_rma_fence(lc_rma_win_t *win, int assert_);
int lc_rma_lock(lc_rma_win_t *win, int lock_type, int target);
int lc_rma_unlock(lc_rma_win_t *win, int target);
int lc_rma_lock_all(lc_rma_win_t *win);
int lc_rma_unlock_all(lc_rma_win_t *win);
/* Complete every operation to `target` (-1: all targets) at the target. */
int lc_rma_flush(lc_rma_win_t *win, int target);
/* MPI_Win_flush*: the same, only inside a passive-target epoch (of
 * `target`, or for -1 of any target): else MPI_ERR_RMA_SYNC. */
int lc_rma_flush_user(lc_rma_win_t *win, int target);
void lc_rma_sync(lc_rma_win_t *win);
/* PSCW: `ranks` are ranks of the window's communicator. */
int lc_rma_post(lc_rma_win_t *win, int n, const int *ranks);
int lc_rma_start(lc_rma_win_t *win, int n, const int *ranks);
int lc_rma_complete(lc_rma_win_t *win);
int lc_rma_wait(lc_rma_win_t *win, bool block, bool *done_p);

/* What the MPI layer checks: MPI_ERR_RMA_SYNC when no epoch allows an
 * operation on `target`; MPI_ERR_RMA_RANGE when it falls outside. */
int lc_rma_check_access(const lc_rma_win_t *win, int target, MPI_Aint disp, size_t bytes);
/* The same for a derived target type whose data lies in bytes [lo, hi)
 * relative to the displacement's address (lo may be negative). */
int lc_rma_check_span(const lc_rma_win_t *win, int target, MPI_Aint disp, MPI_Aint lo, MPI_Aint hi);

#endif
