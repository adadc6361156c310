/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_inter.h — the collectives on intercommunicators
 * (lc_mpi_inter_coll.c), called by the MPI layer's collectives when the
 * communicator is one (c->remote_world set); under a capture
 * (lc_coll_capture) they build the schedule instead of running.  Each
 * checks the arguments that intercommunicator semantics make significant
 * (roots MPI_ROOT / MPI_PROC_NULL / a remote rank; vectors sized by the
 * remote group) and returns an MPI error code; the caller reports it.  Vector forms take the
 * vector (NULL: the uniform form with the single count).
 */
#ifndef LC_MPI_INTER_H
#define LC_MPI_INTER_H

#include "mpi/lc_mpi_coll.h"

int lc_inter_barrier(lc_comm_t *c);
int lc_inter_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, lc_comm_t *c);
int lc_inter_gather(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                    const lc_vec_t *rv, MPI_Datatype rdt, int root, lc_comm_t *c);
int lc_inter_scatter(const void *sbuf, MPI_Count scount, const lc_vec_t *sv, MPI_Datatype sdt, void *rbuf,
                     MPI_Count rcount, MPI_Datatype rdt, int root, lc_comm_t *c);
int lc_inter_allgather(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                       const lc_vec_t *rv, MPI_Datatype rdt, lc_comm_t *c);
int lc_inter_alltoall(const void *sbuf, MPI_Count scount, const lc_vec_t *sv, MPI_Datatype sdt, void *rbuf,
                      MPI_Count rcount, const lc_vec_t *rv, MPI_Datatype rdt, lc_comm_t *c);
/* In bytes, as lc_coll_alltoallw (one block per remote process). */
int lc_inter_alltoallw(const void *sbuf, const size_t *sbytes, const ptrdiff_t *soff, void *rbuf,
                       const size_t *rbytes, const ptrdiff_t *roff, lc_comm_t *c);
int lc_inter_reduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op, int root,
                    lc_comm_t *c);
int lc_inter_allreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op, lc_comm_t *c);
int lc_inter_reduce_scatter(const void *sbuf, void *rbuf, const lc_vec_t *rv, MPI_Datatype dt, MPI_Op op,
                            lc_comm_t *c);

#endif
