/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_impl.h — shared by the collective algorithms (src/coll).
 *
 * Message matching.  Collective traffic travels in the communicator's
 * collective context (LC_CTX_COLL), so it never meets user messages.
 * Every rank runs the same collectives in the same order, each picks the
 * same algorithm, and channels are FIFO per pair of ranks; so one fixed
 * tag per collective is enough: the n-th receive a rank posts for a
 * given (source, tag) always matches the n-th message that source sent
 * with that tag.  No algorithm receives from MPI_ANY_SOURCE.
 *
 * Algorithms work in bytes (data movement) or in elements of a
 * predefined datatype (reductions).  Every algorithm is correct on every
 * communicator size; the selection table only decides which is fastest.
 */
#ifndef LC_COLL_IMPL_H
#define LC_COLL_IMPL_H

#include "coll/lc_coll.h"
#include "coll/lc_op.h"
#include "pt2pt/lc_pt2pt.h"
#include "util/lc_dtype.h"
#include "util/lc_error.h"
#include "util/lc_util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* One tag per collective (the algorithms of a collective share it:
 * a call runs exactly one of them). */
enum lc_coll_tag {
    LC_TAG_BARRIER = 1,
    LC_TAG_BCAST,
    LC_TAG_REDUCE,
    LC_TAG_ALLREDUCE,
    LC_TAG_GATHER,
    LC_TAG_GATHERV,
    LC_TAG_SCATTER,
    LC_TAG_SCATTERV,
    LC_TAG_ALLGATHER,
    LC_TAG_ALLGATHERV,
    LC_TAG_ALLTOALL,
    LC_TAG_ALLTOALLV,
    LC_TAG_REDUCE_SCATTER,
    LC_TAG_SCAN,
    LC_TAG_EXSCAN,
    LC_TAG_ALLTOALLW,
};

/* ---- point-to-point in the collective context (lc_coll_util.c) -------- */

int lc_coll_send(const void *buf, size_t bytes, int dest, int tag, lc_comm_t *comm);
int lc_coll_recv(void *buf, size_t bytes, int src, int tag, lc_comm_t *comm);
int lc_coll_isend(const void *buf, size_t bytes, int dest, int tag, lc_comm_t *comm, lc_request_t **req);
int lc_coll_irecv(void *buf, size_t bytes, int src, int tag, lc_comm_t *comm, lc_request_t **req);
/* Send to `dest` and receive from `src` at the same time (neither side
 * can deadlock on a rendezvous send); returns when both are done. */
int lc_coll_sendrecv(const void *sbuf, size_t sbytes, int dest, void *rbuf, size_t rbytes, int src, int tag,
                     lc_comm_t *comm);
/* Wait for and release reqs[0..n); NULL entries are skipped.  Returns
 * `rc` if it is an error, else the first error of the requests. */
int lc_coll_waitall(int n, lc_request_t **reqs, int rc);

/* ---- memory --------------------------------------------------------- */

/* malloc that reports failure as an MPI error code in *rc (never NULL
 * for 0 bytes). */
void *lc_coll_alloc(size_t bytes, int *rc);

/* Copy this rank's own contribution: MPI_ERR_TRUNCATE when it does not
 * fit (send side larger than receive side); no-op when dst == src. */
int lc_coll_copy(void *dst, size_t dbytes, const void *src, size_t sbytes);

/* acc = other op acc when other comes from lower ranks (`other_lower`),
 * else acc = acc op other, so operands meet in rank order.  `other` is
 * scratch: the second case computes into it, then copies to acc. */
static inline void lc_coll_fold_ordered(MPI_Op op, MPI_Datatype dt, void *other, void *acc, size_t count,
                                        bool other_lower, size_t bytes)
{
    if (other_lower || lc_op_commutative(op)) {
        lc_op_apply(op, dt, other, acc, count);
    } else {
        lc_op_apply(op, dt, acc, other, count);
        memcpy(acc, other, bytes);
    }
}

/* buf + off bytes, where buf may be MPI_BOTTOM (NULL) and off an absolute
 * address (the w forms): integer arithmetic, as pointer arithmetic on
 * NULL is undefined. */
static inline void *lc_coll_at(const void *buf, ptrdiff_t off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

/* ---- rank arithmetic ------------------------------------------------- */

/* Rank relative to `root` and back: trees are built on relative ranks
 * so that the root is 0. */
static inline int lc_coll_rel(int rank, int root, int size) { return rank >= root ? rank - root : rank - root + size; }
static inline int lc_coll_abs(int rel, int root, int size) { return rel + root < size ? rel + root : rel + root - size; }
static inline int lc_coll_mod(long v, int size) { long m = v % size; return (int)(m < 0 ? m + size : m); }

/* Largest power of two <= n (n >= 1). */
static inline int lc_coll_pof2_floor(int n)
{
    int p = 1;
    while (p <= n / 2) p <<= 1;
    return p;
}

/* ---- block layouts ---------------------------------------------------- */

/* Where block i of a vector lives: off[i] bytes from the buffer start,
 * len[i] bytes long.  Materialised as arrays so the ring algorithms do
 * not care whether blocks came from a uniform size, an even split or a
 * user's counts/displacements. */
typedef struct lc_coll_layout {
    int n;
    size_t *len;
    ptrdiff_t *off;
} lc_coll_layout_t;

/* n blocks of `bytes` each, packed. */
int lc_coll_layout_uniform(lc_coll_layout_t *lay, int n, size_t bytes);
/* `count` elements of `esize` bytes split into n nearly equal packed
 * blocks (the first count % n blocks one element longer). */
int lc_coll_layout_split(lc_coll_layout_t *lay, int n, size_t count, size_t esize);
/* counts[i] elements at displs[i] elements; displs NULL means packed. */
int lc_coll_layout_vector(lc_coll_layout_t *lay, int n, const lc_vec_t *v, size_t esize);
void lc_coll_layout_free(lc_coll_layout_t *lay);
size_t lc_coll_layout_max_len(const lc_coll_layout_t *lay);

/* ---- ring building blocks (lc_coll_ring.c) --------------------------- */

/* Reduce-scatter around the ring 0 -> 1 -> ... -> p-1 -> 0.  `in` holds
 * this rank's whole input vector laid out by `lay` (element blocks of
 * dt) and is only read unless it is `work`; on return block comm->rank
 * of `work` holds the reduction of that block over all ranks, the other
 * blocks partial results, except block comm->rank - 1, which is left as
 * it was (out of place: never written).  in == work: in place.  `last`
 * not NULL (out of place only): block comm->rank's result goes there,
 * not to work; then at 2 ranks work is never touched (may be NULL). */
int lc_coll_ring_reduce_scatter(const void *in, void *work, void *last, const lc_coll_layout_t *lay, MPI_Datatype dt,
                                MPI_Op op, int tag, lc_comm_t *comm);
/* Allgather around the ring: block comm->rank of `buf` is this rank's;
 * on return every block is filled. */
int lc_coll_ring_allgather(void *buf, const lc_coll_layout_t *lay, int tag, lc_comm_t *comm);
/* The same from step `first` on (the caller did the steps before). */
int lc_coll_ring_allgather_from(void *buf, const lc_coll_layout_t *lay, int first, int tag, lc_comm_t *comm);

/* ---- the algorithms (one file each: lc_coll_<collective>_<name>.c) ---- */

typedef int lc_coll_barrier_fn(lc_comm_t *comm);
typedef int lc_coll_bcast_fn(void *buf, size_t bytes, int root, lc_comm_t *comm);
typedef int lc_coll_reduce_fn(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, int root,
                              lc_comm_t *comm);
typedef int lc_coll_allreduce_fn(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op,
                                 lc_comm_t *comm);
/* sbytes: this rank's contribution; rbytes: per-rank block at the root. */
typedef int lc_coll_gather_fn(const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, int root,
                              lc_comm_t *comm);
typedef int lc_coll_gatherv_fn(const void *sbuf, size_t sbytes, void *rbuf, const lc_vec_t *rv, size_t resize,
                               int root, lc_comm_t *comm);
/* sbytes: per-rank block at the root; rbytes: this rank's block. */
typedef int lc_coll_scatter_fn(const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, int root,
                               lc_comm_t *comm);
typedef int lc_coll_scatterv_fn(const void *sbuf, const lc_vec_t *sv, size_t sesize, void *rbuf, size_t rbytes,
                                int root, lc_comm_t *comm);
typedef int lc_coll_allgather_fn(const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, lc_comm_t *comm);
typedef int lc_coll_allgatherv_fn(const void *sbuf, size_t sbytes, void *rbuf, const lc_vec_t *rv, size_t resize,
                                  lc_comm_t *comm);
typedef int lc_coll_alltoall_fn(const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, lc_comm_t *comm);
typedef int lc_coll_alltoallv_fn(const void *sbuf, const lc_vec_t *sv, size_t sesize, void *rbuf,
                                 const lc_vec_t *rv, size_t resize, lc_comm_t *comm);
typedef int lc_coll_reduce_scatter_fn(const void *sbuf, void *rbuf, const lc_vec_t *rv, MPI_Datatype dt,
                                      MPI_Op op, lc_comm_t *comm);
typedef int lc_coll_scan_fn(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op,
                            lc_comm_t *comm);

lc_coll_barrier_fn lc_coll_barrier_dissemination;
lc_coll_barrier_fn lc_coll_barrier_linear;
lc_coll_bcast_fn lc_coll_bcast_binomial;
lc_coll_bcast_fn lc_coll_bcast_linear;
lc_coll_bcast_fn lc_coll_bcast_scatter_allgather;
lc_coll_reduce_fn lc_coll_reduce_binomial;
lc_coll_reduce_fn lc_coll_reduce_linear;
lc_coll_reduce_fn lc_coll_reduce_scatter_gather;
lc_coll_allreduce_fn lc_coll_allreduce_recursive_doubling;
lc_coll_allreduce_fn lc_coll_allreduce_ring;
lc_coll_gather_fn lc_coll_gather_binomial;
lc_coll_gather_fn lc_coll_gather_linear;
lc_coll_gatherv_fn lc_coll_gatherv_linear;
lc_coll_scatter_fn lc_coll_scatter_binomial;
lc_coll_scatter_fn lc_coll_scatter_linear;
lc_coll_scatterv_fn lc_coll_scatterv_linear;
lc_coll_allgather_fn lc_coll_allgather_bruck;
lc_coll_allgather_fn lc_coll_allgather_ring;
lc_coll_allgatherv_fn lc_coll_allgatherv_ring;
lc_coll_alltoall_fn lc_coll_alltoall_pairwise;
lc_coll_alltoall_fn lc_coll_alltoall_linear;
lc_coll_alltoallv_fn lc_coll_alltoallv_pairwise;
lc_coll_reduce_scatter_fn lc_coll_reduce_scatter_reduce_scatterv;
lc_coll_reduce_scatter_fn lc_coll_reduce_scatter_ring;
lc_coll_scan_fn lc_coll_scan_recursive_doubling;
lc_coll_scan_fn lc_coll_scan_linear;
lc_coll_scan_fn lc_coll_exscan_recursive_doubling;
lc_coll_scan_fn lc_coll_exscan_linear;

#endif
