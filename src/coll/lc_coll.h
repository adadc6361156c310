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
#include <stdio.h>
#include <stddef.h>

/* Read the LOCUS_COLL_<NAME> algorithm overrides (MPI_Init). */
void lc_coll_init(void);
/* Print the LOCUS_COLL_<NAME> overrides in the format of
 * lc_params_print (locus-info --params). */
void lc_coll_params_print(FILE *out);
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
int lc_coll_gatherv(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, const int *rcounts,
                    const int *displs, MPI_Datatype rdt, int root, lc_comm_t *comm);
int lc_coll_scatter(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                    int root, lc_comm_t *comm);
int lc_coll_scatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype sdt, void *rbuf,
                     size_t rcount, MPI_Datatype rdt, int root, lc_comm_t *comm);
int lc_coll_allgather(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount,
                      MPI_Datatype rdt, lc_comm_t *comm);
int lc_coll_allgatherv(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, const int *rcounts,
                       const int *displs, MPI_Datatype rdt, lc_comm_t *comm);
int lc_coll_alltoall(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount,
                     MPI_Datatype rdt, lc_comm_t *comm);
int lc_coll_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype sdt, void *rbuf,
                      const int *rcounts, const int *rdispls, MPI_Datatype rdt, lc_comm_t *comm);
int lc_coll_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype dt, MPI_Op op,
                           lc_comm_t *comm);
int lc_coll_reduce_scatter_block(const void *sbuf, void *rbuf, size_t rcount, MPI_Datatype dt, MPI_Op op,
                                 lc_comm_t *comm);
int lc_coll_scan(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm);
int lc_coll_exscan(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm);

#endif
