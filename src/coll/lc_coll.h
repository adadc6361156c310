/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll.h — the collective operations, as the MPI API layer calls them.
 *
 * Arguments mirror the MPI functions, already validated by the caller,
 * with counts as size_t.  MPI_IN_PLACE is passed through where the
 * standard allows it.  Data-movement collectives whose send and receive
 * types differ move count * size(type) bytes on each side; a block
 * forwarded by an intermediate rank has the size its receive side (or,
 * where it has none, its send side) declares, which is the same on every
 * rank of a correct program.
 *
 * Every function is collective over `comm` and returns an MPI error code.
 * Which algorithm runs is decided by lc_coll_select.c from the message
 * size and the communicator size, identically on every rank.
 */
#ifndef LC_COLL_H
#define LC_COLL_H

#include "pt2pt/lc_comm.h"

#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

/* The counts and displacements of a vector collective as the user gave
 * them, read in place: int arrays (MPI_Gatherv, ...), MPI_Count/MPI_Aint
 * arrays (the large-count `_c` variants, `wide`), or one count for every
 * rank (`counts` NULL: reduce_scatter_block).  Displacements are in
 * elements of the call's datatype. */
typedef struct lc_vec {
    const void *counts;  /* int[] or MPI_Count[]; NULL: every count is `uniform` */
    const void *displs;  /* int[] or MPI_Aint[]; NULL: blocks packed in rank order */
    size_t uniform;
    bool wide;
} lc_vec_t;

static inline lc_vec_t lc_vec_int(const int *counts, const int *displs)
{
    return (lc_vec_t){ .counts = counts, .displs = displs, .uniform = 0, .wide = false };
}

static inline lc_vec_t lc_vec_wide(const MPI_Count *counts, const MPI_Aint *displs)
{
    return (lc_vec_t){ .counts = counts, .displs = displs, .uniform = 0, .wide = true };
}

static inline size_t lc_vec_count(const lc_vec_t *v, int i)
{
    if (!v->counts) return v->uniform;
    return v->wide ? (size_t)((const MPI_Count *)v->counts)[i] : (size_t)((const int *)v->counts)[i];
}

/* Byte offset of block i for items of `esize` bytes (displs must be set). */
static inline ptrdiff_t lc_vec_offset(const lc_vec_t *v, int i, size_t esize)
{
    ptrdiff_t d = v->wide ? (ptrdiff_t)((const MPI_Aint *)v->displs)[i] : (ptrdiff_t)((const int *)v->displs)[i];
    return d * (ptrdiff_t)esize;
}

/* The sum of the n counts. */
static inline size_t lc_vec_total(const lc_vec_t *v, int n)
{
    size_t total = 0;
    for (int i = 0; i < n; i++) total += lc_vec_count(v, i);
    return total;
}

/* Print the LOCUS_COLL_<NAME> overrides in the format of
 * lc_params_print (locus-info --params). */
void lc_coll_params_print(FILE *out);
/* Their section of docs/params.md (locus-info --params --markdown). */
void lc_coll_params_print_markdown(FILE *out);
/* Read the LOCUS_COLL_<NAME> algorithm overrides (MPI_Init). */
void lc_coll_init(void);
/* Print every algorithm of every collective, one "NAME algorithm" line
 * each (NAME as in LOCUS_COLL_<NAME>), in table order, each algorithm of a
 * collective once (locus-info --coll-algorithms).  The test list forces
 * each one in turn from this output, so a new algorithm is tested forced
 * without a list edit. */
void lc_coll_algorithms_print(FILE *out);

int lc_coll_barrier(lc_comm_t *comm);
int lc_coll_bcast(void *buf, size_t count, MPI_Datatype dt, int root, lc_comm_t *comm);
int lc_coll_reduce(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, int root,
                   lc_comm_t *comm);
int lc_coll_allreduce(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm);
int lc_coll_gather(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                   int root, lc_comm_t *comm);
int lc_coll_gatherv(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, const lc_vec_t *rv,
                    MPI_Datatype rdt, int root, lc_comm_t *comm);
int lc_coll_scatter(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                    int root, lc_comm_t *comm);
int lc_coll_scatterv(const void *sbuf, const lc_vec_t *sv, MPI_Datatype sdt, void *rbuf,
                     size_t rcount, MPI_Datatype rdt, int root, lc_comm_t *comm);
int lc_coll_allgather(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount,
                      MPI_Datatype rdt, lc_comm_t *comm);
int lc_coll_allgatherv(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, const lc_vec_t *rv,
                       MPI_Datatype rdt, lc_comm_t *comm);
int lc_coll_alltoall(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount,
                     MPI_Datatype rdt, lc_comm_t *comm);
int lc_coll_alltoallv(const void *sbuf, const lc_vec_t *sv, MPI_Datatype sdt, void *rbuf, const lc_vec_t *rv,
                      MPI_Datatype rdt, lc_comm_t *comm);
int lc_coll_reduce_scatter(const void *sbuf, void *rbuf, const lc_vec_t *rv, MPI_Datatype dt, MPI_Op op,
                           lc_comm_t *comm);
int lc_coll_reduce_scatter_block(const void *sbuf, void *rbuf, size_t rcount, MPI_Datatype dt, MPI_Op op,
                                 lc_comm_t *comm);
int lc_coll_scan(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm);
int lc_coll_exscan(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm);

/* Alltoallw and the neighbourhood collectives, in bytes: block i of the
 * send side is sbytes[i] bytes at sbuf + soff[i], block i of the receive
 * side rbytes[i] bytes at rbuf + roff[i] (the MPI layer has turned counts,
 * types and displacements into these).  Alltoallw: one block per rank,
 * MPI_IN_PLACE as sbuf allowed (then the send side is the receive side).
 * Neighbourhood: block i of the receive side comes from in-neighbour i,
 * block j of the send side goes to out-neighbour j, in the order MPI 4.1
 * §8.6 gives (lc_coll_neighbor.c); MPI_ERR_TOPOLOGY without a topology. */
int lc_coll_alltoallw(const void *sbuf, const size_t *sbytes, const ptrdiff_t *soff, void *rbuf, const size_t *rbytes,
                      const ptrdiff_t *roff, lc_comm_t *comm);
int lc_coll_neighbor_alltoallw(const void *sbuf, const size_t *sbytes, const ptrdiff_t *soff, void *rbuf,
                               const size_t *rbytes, const ptrdiff_t *roff, lc_comm_t *comm);
/* The number of in- and out-neighbours of this rank. */
int lc_coll_neighbor_degrees(const lc_comm_t *comm, int *indegree_p, int *outdegree_p);
/* This rank's neighbours in that order: src[in] and dst[out] (MPI_PROC_NULL
 * where a non-periodic Cartesian dimension ends); `own` is what the
 * caller frees (the Cartesian lists are computed). */
typedef struct lc_nbrs {
    int in, out;
    const int *src, *dst;
    int *own;
    bool cart;
} lc_nbrs_t;
int lc_coll_neighbors(const lc_comm_t *comm, lc_nbrs_t *nb);

/* Bitwise AND of words[nwords] over the n ranks members[] of comm (comm
 * ranks; this process is members[me]), in place.  Only the members call
 * it; `tag` keeps concurrent calls on one communicator apart and should
 * be LC_COLL_TAG_SUBSET | a tag of the caller (MPI_Comm_create_group's). */
#define LC_COLL_TAG_SUBSET 0x40000000
int lc_coll_subset_band(uint64_t *words, size_t nwords, const int *members, int n, int me, int tag,
                        lc_comm_t *comm);

#endif
