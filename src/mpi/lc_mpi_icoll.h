/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_icoll.h — starting nonblocking and persistent collectives
 * (lc_mpi_icoll.c, lc_mpi_coll_init.c, lc_mpi_icall.c).
 *
 * An MPI_I<coll> or MPI_<Coll>_init call runs the blocking call's own
 * checks (lc_mpi_coll.h) while a new schedule captures the collective
 * (lc_coll_capture): the entry point of src/coll picks the algorithm from
 * the one selection table and builds its schedule instead of running it.
 * lc_icoll_end then returns the request: an MPI_I<coll> schedule starts
 * at once; a persistent one waits for MPI_Start.
 */
#ifndef LC_MPI_ICOLL_H
#define LC_MPI_ICOLL_H

#include "coll/lc_sched.h"
#include "mpi/lc_mpi_coll.h"
#include "mpi/lc_mpi_request.h"

typedef struct lc_icoll_start {
    lc_sched_t *s;
    lc_comm_t *c;
    MPI_Request *request;
    bool persistent;
    const char *func;
} lc_icoll_start_t;

/* Check the communicator, the request pointer and (persistent) the info
 * object, make the schedule and start capturing.  An error has been
 * through the error handler. */
int lc_icoll_begin(lc_icoll_start_t *st, MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent,
                   const char *func);
/* Stop capturing; `rc` is the checked call's result.  On success the
 * schedule goes to a new request. */
int lc_icoll_end(lc_icoll_start_t *st, int rc);

/* One body per collective for its nonblocking and persistent forms, int
 * and _c (lc_mpi_icall.c): lc_icoll_begin, the blocking call's checked
 * function while the schedule captures it, lc_icoll_end.  Nonblocking
 * calls pass MPI_INFO_NULL and persistent false; func is the exported
 * function's name, for its error messages. */
int lc_icall_bcast(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                   MPI_Request *request, bool persistent, const char *func);
int lc_icall_reduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent, const char *func);
int lc_icall_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent, const char *func);
int lc_icall_gather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                    bool persistent, const char *func);
int lc_icall_scatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request, bool persistent, const char *func);
int lc_icall_allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                       bool persistent, const char *func);
int lc_icall_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                      MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                      bool persistent, const char *func);
int lc_icall_reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent,
                                  const char *func);
int lc_icall_scan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                  MPI_Info info, MPI_Request *request, bool persistent, const char *func);
int lc_icall_exscan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent, const char *func);
int lc_icall_gatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, lc_vec_t rv,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                     bool persistent, const char *func);
int lc_icall_scatterv(const void *sendbuf, lc_vec_t sv, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                      bool persistent, const char *func);
int lc_icall_allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, lc_vec_t rv,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent,
                        const char *func);
int lc_icall_alltoallv(const void *sendbuf, lc_vec_t sv, MPI_Datatype sendtype, void *recvbuf, lc_vec_t rv,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent,
                       const char *func);
int lc_icall_reduce_scatter(const void *sendbuf, void *recvbuf, lc_vec_t rv, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent, const char *func);

#endif
