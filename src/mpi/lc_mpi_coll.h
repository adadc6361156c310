/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_coll.h — shared by the files of the MPI API that check and start
 * collective operations.
 *
 * Which arguments are checked follows where the standard says they are
 * significant: receive arguments of gather-like calls only at the root,
 * send arguments of scatter-like calls only at the root, send arguments
 * not at all where MPI_IN_PLACE replaces them.  MPI_IN_PLACE is accepted
 * only where the standard allows it.
 */
#ifndef LC_MPI_COLL_H
#define LC_MPI_COLL_H

#include "mpi/lc_mpi.h"
#include "coll/lc_coll.h"

/* completes "%s cannot be MPI_IN_PLACE%s" for rooted collectives */
#define LC_NOT_ROOT " on a rank other than the root"

/* count, datatype and buffer of one side of a transfer */
int lc_check_side(const void *buf, MPI_Count count, MPI_Datatype dt);
/* `where` completes the message: "" or " on a rank other than the root" */
int lc_check_not_in_place(const void *buf, const char *what, const char *where);
/* Send and receive buffers share no memory (lc_mpi_coll_alias.c): the
 * same buffer as input and output must be asked for with MPI_IN_PLACE.
 * MPI_ERR_BUFFER when they overlap.  _vector: one block against the n
 * blocks of a vector side (with displacements). */
int lc_check_apart(const void *sbuf, MPI_Count scount, MPI_Datatype stype, const void *rbuf, MPI_Count rcount,
                   MPI_Datatype rtype);
int lc_check_apart_vector(const void *one, MPI_Count count, MPI_Datatype type, const void *vbuf, const lc_vec_t *v,
                          int n, MPI_Datatype vtype);
/* One side of a collective with a block per peer, for lc_check_apart_sides:
 * either resolved blocks (`blocks` with the `bytes`/`off` lc_blocks_resolve
 * gave) or `n` blocks of `type` at buf — `vec`'s counts and displacements
 * (displs required), else `count` items each, packed (block i at i*count)
 * or all the same block (`same`: allgather's send side).  `peers` (NULL:
 * none) marks blocks of MPI_PROC_NULL neighbours, which are not touched. */
typedef struct lc_alias_side {
    const void *buf;
    int n;
    const struct lc_blocks *blocks;
    const size_t *bytes;
    const ptrdiff_t *off;
    const lc_vec_t *vec;
    MPI_Count count;
    MPI_Datatype type;
    bool same;
    const int *peers;
} lc_alias_side_t;
/* MPI_ERR_BUFFER when a byte of a send block is also in a receive block.
 * O(n) (hulls first: nothing more when the buffers are apart); with
 * `overlap` non-NULL an overlap is reported there instead of as an error. */
int lc_check_apart_sides(const lc_alias_side_t *s, const lc_alias_side_t *r, bool *overlap);
/* counts[size] (and displs[size] unless `displs_name` is NULL) of a vector
 * collective, and the buffer they describe. */
int lc_check_vector(const lc_comm_t *comm, const void *buf, const lc_vec_t *v, const char *counts_name,
                    const char *displs_name, MPI_Datatype dt);
/* count, datatype and operation of a reduction */
int lc_check_reduction(MPI_Count count, MPI_Datatype dt, MPI_Op op);

/* The collectives with their checks, as the blocking calls run them
 * (lc_mpi_coll.c, lc_mpi_coll_vector.c).  `func` names the caller in error
 * messages; an error has been through the communicator's handler.  The
 * nonblocking and persistent calls (lc_mpi_icall.c) run the same
 * functions while a schedule captures the collective (lc_coll_capture). */
int lc_bcast(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, const char *func);
int lc_reduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
              MPI_Comm comm, const char *func);
int lc_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, const char *func);
int lc_gather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
              MPI_Datatype recvtype, int root, MPI_Comm comm, const char *func);
int lc_scatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm, const char *func);
int lc_allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *func);
int lc_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                MPI_Datatype recvtype, MPI_Comm comm, const char *func);
int lc_reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, const char *func);
int lc_scan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
            const char *func);
int lc_exscan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              const char *func);
int lc_gatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const lc_vec_t *rv,
               MPI_Datatype recvtype, int root, MPI_Comm comm, const char *func);
int lc_scatterv(const void *sendbuf, const lc_vec_t *sv, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, const char *func);
int lc_allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const lc_vec_t *rv,
                  MPI_Datatype recvtype, MPI_Comm comm, const char *func);
int lc_alltoallv(const void *sendbuf, const lc_vec_t *sv, MPI_Datatype sendtype, void *recvbuf, const lc_vec_t *rv,
                 MPI_Datatype recvtype, MPI_Comm comm, const char *func);
int lc_reduce_scatter(const void *sendbuf, void *recvbuf, const lc_vec_t *rv, MPI_Datatype datatype, MPI_Op op,
                      MPI_Comm comm, const char *func);

#endif
