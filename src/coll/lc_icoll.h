/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_icoll.h — the schedule builders of the nonblocking and persistent
 * collectives (src/coll/lc_icoll_<collective>.c).
 *
 * lc_coll_select.c picks the algorithm from the one selection table and,
 * while a schedule captures the call (lc_coll_capture), hands the rule's
 * algorithm name and the arguments of lc_coll_impl.h's algorithm types to
 * these builders, which add the steps of that algorithm to the schedule.
 * Where a builder has no schedule form of the named algorithm it builds
 * the one its file head names (documented there and in
 * docs/architecture.md, "Schedules").  Every builder checks at build time
 * what the blocking algorithm checks when it runs (a contribution larger
 * than its receive block), so errors come from the starting call.
 */
#ifndef LC_ICOLL_H
#define LC_ICOLL_H

#include "coll/lc_coll_impl.h"
#include "coll/lc_sched.h"

int lc_icoll_barrier(lc_sched_t *s, const char *alg, lc_comm_t *comm);
int lc_icoll_bcast(lc_sched_t *s, const char *alg, void *buf, size_t bytes, int root, lc_comm_t *comm);
int lc_icoll_reduce(lc_sched_t *s, const char *alg, const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt,
                    MPI_Op op, int root, lc_comm_t *comm);
int lc_icoll_allreduce(lc_sched_t *s, const char *alg, const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt,
                       MPI_Op op, lc_comm_t *comm);
int lc_icoll_gather(lc_sched_t *s, const char *alg, const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes,
                    int root, lc_comm_t *comm);
int lc_icoll_gatherv(lc_sched_t *s, const char *alg, const void *sbuf, size_t sbytes, void *rbuf, const lc_vec_t *rv,
                     size_t resize, int root, lc_comm_t *comm);
int lc_icoll_scatter(lc_sched_t *s, const char *alg, const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes,
                     int root, lc_comm_t *comm);
int lc_icoll_scatterv(lc_sched_t *s, const char *alg, const void *sbuf, const lc_vec_t *sv, size_t sesize, void *rbuf,
                      size_t rbytes, int root, lc_comm_t *comm);
int lc_icoll_allgather(lc_sched_t *s, const char *alg, const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes,
                       lc_comm_t *comm);
int lc_icoll_allgatherv(lc_sched_t *s, const char *alg, const void *sbuf, size_t sbytes, void *rbuf, const lc_vec_t *rv,
                        size_t resize, lc_comm_t *comm);
int lc_icoll_alltoall(lc_sched_t *s, const char *alg, const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes,
                      lc_comm_t *comm);
int lc_icoll_alltoallv(lc_sched_t *s, const char *alg, const void *sbuf, const lc_vec_t *sv, size_t sesize, void *rbuf,
                       const lc_vec_t *rv, size_t resize, lc_comm_t *comm);
int lc_icoll_reduce_scatter(lc_sched_t *s, const char *alg, const void *sbuf, void *rbuf, const lc_vec_t *rv,
                            MPI_Datatype dt, MPI_Op op, lc_comm_t *comm);
int lc_icoll_scan(lc_sched_t *s, const char *alg, const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt,
                  MPI_Op op, lc_comm_t *comm);
int lc_icoll_exscan(lc_sched_t *s, const char *alg, const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt,
                    MPI_Op op, lc_comm_t *comm);
/* Alltoallw and the neighbourhood exchange (lc_icoll_neighbor.c), with the
 * arguments of lc_coll_alltoallw / lc_coll_neighbor_alltoallw; the
 * blocks' sizes and offsets are read now. */
int lc_icoll_alltoallw(lc_sched_t *s, const void *sbuf, const size_t *sbytes, const ptrdiff_t *soff, void *rbuf,
                       const size_t *rbytes, const ptrdiff_t *roff, lc_comm_t *comm);
int lc_icoll_neighbor_alltoallw(lc_sched_t *s, const void *sbuf, const size_t *sbytes, const ptrdiff_t *soff,
                                void *rbuf, const size_t *rbytes, const ptrdiff_t *roff, lc_comm_t *comm);
/* The range [*lo, *hi) the p blocks cover, relative to their buffer
 * (lc_coll_alltoallw_pairwise.c). */
void lc_coll_alltoallw_span(int p, const size_t *bytes, const ptrdiff_t *off, ptrdiff_t *lo_p, ptrdiff_t *hi_p);

/* The binomial trees of gather and scatter (lc_icoll_tree.c). */
int lc_icoll_gather_binomial(lc_sched_t *s, const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, int root,
                             lc_comm_t *comm);
int lc_icoll_scatter_binomial(lc_sched_t *s, const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, int root,
                              lc_comm_t *comm);

/* The ring allgather of lc_coll_ring.c as rounds: block i of rb at off[i],
 * len[i] bytes; this rank's block is in place (lc_icoll_allgather.c). */
int lc_icoll_ring_allgather(lc_sched_t *s, char *rb, const ptrdiff_t *off, const size_t *len, lc_comm_t *comm);

/* MPI_ERR_TRUNCATE when a rank's own contribution (sbytes) does not fit
 * its receive block (dbytes), checked when the schedule is built. */
static inline int lc_icoll_check_fit(size_t dbytes, size_t sbytes)
{
    return lc_coll_copy(NULL, dbytes, NULL, sbytes); /* dst == src: checks, copies nothing */
}

/* Stop at the first failing step (all a builder's steps return MPI codes). */
#define LC_SCHED_TRY(expr)                                                                                             \
    do {                                                                                                               \
        int lc_rc_ = (expr);                                                                                           \
        if (lc_rc_ != MPI_SUCCESS) return lc_rc_;                                                                      \
    } while (0)

#endif
