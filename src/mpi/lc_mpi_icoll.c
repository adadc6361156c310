/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_icoll.c — the nonblocking collectives of the MPI API (MPI_Ibarrier
 * ... MPI_Iexscan, with their large-count `_c` twins), and the capture of
 * a collective into a schedule that they share with the persistent collectives (lc_mpi_icoll.h).
 * On an intercommunicator the blocking call's code (lc_mpi_inter_coll.c)
 * sees the capture and builds its steps, remote and local, into the
 * schedule; Iscan / Iexscan fail there with MPI_ERR_COMM, as the
 * blocking ones do.
 */
#include "mpi/lc_mpi_icoll.h"
#include "mpi/lc_mpi_inter.h"
#include "mpi/lc_mpi_info.h"

int lc_icoll_begin(lc_icoll_start_t *st, MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent,
                   const char *func)
{
    lc_comm_t *c = NULL;
    lc_info_t *hints;
    int rc;
    st->s = NULL;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_request_out(request));
    if (persistent) LC_TRY(lc_check_info_or_null(info, &hints)); /* no hint is used yet */
    if (!(st->s = lc_sched_new(c)))
        LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory for the schedule of a nonblocking collective"));
    st->s->memo_ok = !persistent; /* a persistent schedule is built once anyway */
    st->c = c;
    st->request = request;
    st->persistent = persistent;
    st->func = func;
    lc_coll_capture = st->s;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

/* The request that runs (or, persistent, holds) the complete schedule s. */
static int lc_icoll_run(lc_comm_t *c, lc_sched_t *s, MPI_Request *request, bool persistent, const char *func)
{
    lc_request_t *req;
    int rc = lc_sched_launch(s, persistent ? LC_REQ_PCOLL : LC_REQ_COLL, &req);
    if (lc_unlikely(rc != MPI_SUCCESS)) return lc_mpi_error(c, func, rc);
    lc_mpi_request_out(req, request);
    if (!persistent) lc_sched_start(s, req);
    return MPI_SUCCESS;
}

int lc_icoll_end(lc_icoll_start_t *st, int rc)
{
    lc_sched_t *s = st->s;
    lc_coll_capture = NULL; /* not taken when the call had nothing to move */
    s->args = NULL;         /* the caller's, gone after this call (the memo copied it) */
    if (rc != MPI_SUCCESS) {
        lc_sched_free(s);
        return rc; /* the checks reported it */
    }
    if (s->use) { /* a memo hit: the memoized schedule runs (its memo holds it) */
        lc_sched_t *m = s->use;
        lc_sched_free(s);
        s = m;
    }
    return lc_icoll_run(st->c, s, st->request, st->persistent, st->func);
}

/* ---- the quick restart ---------------------------------------------------
 * A loop repeating MPI_Ibarrier / Ibcast / Ireduce / Iallreduce with the
 * same arguments restarts the schedule memoized on the communicator
 * (lc_sched_memo.c).  The memo records, with each schedule, the
 * arguments of the call that last built or hit it through the checked
 * path below, so a repeated call looks for its record first, before any
 * check, capture or throwaway schedule: ~1/3 of an 8-byte Iallreduce +
 * Wait went there (issue 14).
 *
 * Why skipping the checks is safe: a record proves that these arguments
 * passed every check of this call on this communicator and chose this
 * schedule.  What those checks read besides the recorded arguments must
 * not have changed since:
 * - MPI is initialized and not finalized, and the handle names a live
 *   communicator: tested here exactly as lc_check_comm does (a freed
 *   handle no longer looks up: MPI_Comm_free unpublishes it at once, and
 *   a communicator made later in its place has a memo of its own; the
 *   memo dies with its communicator).
 * - The request pointer is not among the recorded arguments: tested.
 * - Datatype and operation: recorded only when builtin (or none) and
 *   predefined (or none): their checks (valid, committed, the operation
 *   defined on the type) depend on the handle alone, which names the
 *   same object for the whole job.
 * - Count, root, MPI_IN_PLACE, buffer overlap (lc_check_apart): functions
 *   of the recorded values and of the communicator's size and rank, fixed
 *   for its life.
 * - The algorithm: the selection table and a forced choice are read once
 *   at MPI_Init (lc_coll_init), so the same arguments pick the same rule.
 * - Thread safety: this runs inside the generated wrapper, in the
 *   critical section when there is one, like the checked path.
 * The schedule must also be idle (the memo's reference its only one):
 * the same rule as a memo hit.  Anything else — no record, another
 * argument, a schedule still running — takes the checked path, which
 * reports errors as before. */

#define LC_ICOLL_MISS (-1) /* not an MPI error code */

/* MPI layer's numbering of the calls with a quick restart. */
enum { LC_ICALL_BARRIER = 1, LC_ICALL_BCAST, LC_ICALL_REDUCE, LC_ICALL_ALLREDUCE };

static inline int lc_icoll_quick(MPI_Comm comm, const lc_sched_args_t *args, MPI_Request *request, const char *func)
{
    lc_comm_t *c;
    if (lc_unlikely(lc_mpi_state != LC_MPI_STATE_INIT || request == NULL) || !(c = lc_comm_lookup(comm)))
        return LC_ICOLL_MISS;
    lc_sched_t *s = lc_sched_memo_quick(c, args);
    if (!s) return LC_ICOLL_MISS;
    return lc_icoll_run(c, s, request, false, func);
}

LC_API int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    const lc_sched_args_t a = { .dt = MPI_DATATYPE_NULL, .op = MPI_OP_NULL, .call = LC_ICALL_BARRIER };
    int rc = lc_icoll_quick(comm, &a, request, "MPI_Ibarrier");
    if (lc_likely(rc != LC_ICOLL_MISS)) return rc;
    lc_icoll_start_t st;
    rc = lc_icoll_begin(&st, comm, MPI_INFO_NULL, request, false, "MPI_Ibarrier");
    if (rc != MPI_SUCCESS) return rc;
    st.s->args = &a;
    return lc_icoll_end(&st, st.c->remote_world ? lc_inter_barrier(st.c) : lc_coll_barrier(st.c));
}
LC_MPI_ALIAS(Ibarrier);

/* One body per call for its int and MPI_Count (_c) forms. */
static inline int lc_ibcast(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                            MPI_Request *request, const char *func)
{
    const lc_sched_args_t a = {
        .rbuf = buffer, .count = count, .dt = datatype, .op = MPI_OP_NULL, .root = root, .call = LC_ICALL_BCAST
    };
    int rc = lc_icoll_quick(comm, &a, request, func);
    if (lc_likely(rc != LC_ICOLL_MISS)) return rc;
    lc_icoll_start_t st;
    rc = lc_icoll_begin(&st, comm, MPI_INFO_NULL, request, false, func);
    if (rc != MPI_SUCCESS) return rc;
    st.s->args = &a;
    return lc_icoll_end(&st, lc_bcast(buffer, count, datatype, root, comm, func));
}

static inline int lc_ireduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                             int root, MPI_Comm comm, MPI_Request *request, const char *func)
{
    const lc_sched_args_t a = { .sbuf = sendbuf,
                                .rbuf = recvbuf,
                                .count = count,
                                .dt = datatype,
                                .op = op,
                                .root = root,
                                .call = LC_ICALL_REDUCE };
    int rc = lc_icoll_quick(comm, &a, request, func);
    if (lc_likely(rc != LC_ICOLL_MISS)) return rc;
    lc_icoll_start_t st;
    rc = lc_icoll_begin(&st, comm, MPI_INFO_NULL, request, false, func);
    if (rc != MPI_SUCCESS) return rc;
    st.s->args = &a;
    return lc_icoll_end(&st, lc_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, func));
}

static inline int lc_iallreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm, MPI_Request *request, const char *func)
{
    const lc_sched_args_t a = {
        .sbuf = sendbuf, .rbuf = recvbuf, .count = count, .dt = datatype, .op = op, .call = LC_ICALL_ALLREDUCE
    };
    int rc = lc_icoll_quick(comm, &a, request, func);
    if (lc_likely(rc != LC_ICOLL_MISS)) return rc;
    lc_icoll_start_t st;
    rc = lc_icoll_begin(&st, comm, MPI_INFO_NULL, request, false, func);
    if (rc != MPI_SUCCESS) return rc;
    st.s->args = &a;
    return lc_icoll_end(&st, lc_allreduce(sendbuf, recvbuf, count, datatype, op, comm, func));
}

LC_API int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
{
    return lc_ibcast(buffer, count, datatype, root, comm, request, "MPI_Ibcast");
}
LC_MPI_ALIAS(Ibcast);

LC_API int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                         MPI_Request *request)
{
    return lc_ibcast(buffer, count, datatype, root, comm, request, "MPI_Ibcast_c");
}
LC_MPI_ALIAS(Ibcast_c);

LC_API int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                        MPI_Comm comm, MPI_Request *request)
{
    return lc_ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request, "MPI_Ireduce");
}
LC_MPI_ALIAS(Ireduce);

LC_API int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                          int root, MPI_Comm comm, MPI_Request *request)
{
    return lc_ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request, "MPI_Ireduce_c");
}
LC_MPI_ALIAS(Ireduce_c);

LC_API int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm, MPI_Request *request)
{
    return lc_iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request, "MPI_Iallreduce");
}
LC_MPI_ALIAS(Iallreduce);

LC_API int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm, MPI_Request *request)
{
    return lc_iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request, "MPI_Iallreduce_c");
}
LC_MPI_ALIAS(Iallreduce_c);

LC_API int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, MPI_INFO_NULL,
                           request, false, "MPI_Igather");
}
LC_MPI_ALIAS(Igather);

LC_API int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, MPI_INFO_NULL,
                           request, false, "MPI_Igather_c");
}
LC_MPI_ALIAS(Igather_c);

LC_API int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, MPI_INFO_NULL,
                            request, false, "MPI_Iscatter");
}
LC_MPI_ALIAS(Iscatter);

LC_API int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                           MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, MPI_INFO_NULL,
                            request, false, "MPI_Iscatter_c");
}
LC_MPI_ALIAS(Iscatter_c);

LC_API int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, MPI_INFO_NULL, request,
                              false, "MPI_Iallgather");
}
LC_MPI_ALIAS(Iallgather);

LC_API int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, MPI_INFO_NULL, request,
                              false, "MPI_Iallgather_c");
}
LC_MPI_ALIAS(Iallgather_c);

LC_API int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, MPI_INFO_NULL, request,
                             false, "MPI_Ialltoall");
}
LC_MPI_ALIAS(Ialltoall);

LC_API int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, MPI_INFO_NULL, request,
                             false, "MPI_Ialltoall_c");
}
LC_MPI_ALIAS(Ialltoall_c);

LC_API int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                      MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, MPI_INFO_NULL, request, false,
                                         "MPI_Ireduce_scatter_block");
}
LC_MPI_ALIAS(Ireduce_scatter_block);

LC_API int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                        MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, MPI_INFO_NULL, request, false,
                                         "MPI_Ireduce_scatter_block_c");
}
LC_MPI_ALIAS(Ireduce_scatter_block_c);

LC_API int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                      MPI_Request *request)
{
    return lc_icall_scan(sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL, request, false, "MPI_Iscan");
}
LC_MPI_ALIAS(Iscan);

LC_API int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_scan(sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL, request, false, "MPI_Iscan_c");
}
LC_MPI_ALIAS(Iscan_c);

LC_API int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                        MPI_Request *request)
{
    return lc_icall_exscan(sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL, request, false, "MPI_Iexscan");
}
LC_MPI_ALIAS(Iexscan);

LC_API int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_exscan(sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL, request, false, "MPI_Iexscan_c");
}
LC_MPI_ALIAS(Iexscan_c);

LC_API int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Request *request)
{
    return lc_icall_gatherv(sendbuf, sendcount, sendtype, recvbuf, lc_vec_int(recvcounts, displs), recvtype, root, comm,
                            MPI_INFO_NULL, request, false, "MPI_Igatherv");
}
LC_MPI_ALIAS(Igatherv);

LC_API int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                           MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_gatherv(sendbuf, sendcount, sendtype, recvbuf, lc_vec_wide(recvcounts, displs), recvtype, root,
                            comm, MPI_INFO_NULL, request, false, "MPI_Igatherv_c");
}
LC_MPI_ALIAS(Igatherv_c);

LC_API int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                          MPI_Request *request)
{
    return lc_icall_scatterv(sendbuf, lc_vec_int(sendcounts, displs), sendtype, recvbuf, recvcount, recvtype, root,
                             comm, MPI_INFO_NULL, request, false, "MPI_Iscatterv");
}
LC_MPI_ALIAS(Iscatterv);

LC_API int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                            MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_scatterv(sendbuf, lc_vec_wide(sendcounts, displs), sendtype, recvbuf, recvcount, recvtype, root,
                             comm, MPI_INFO_NULL, request, false, "MPI_Iscatterv_c");
}
LC_MPI_ALIAS(Iscatterv_c);

LC_API int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    return lc_icall_allgatherv(sendbuf, sendcount, sendtype, recvbuf, lc_vec_int(recvcounts, displs), recvtype, comm,
                               MPI_INFO_NULL, request, false, "MPI_Iallgatherv");
}
LC_MPI_ALIAS(Iallgatherv);

LC_API int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_allgatherv(sendbuf, sendcount, sendtype, recvbuf, lc_vec_wide(recvcounts, displs), recvtype, comm,
                               MPI_INFO_NULL, request, false, "MPI_Iallgatherv_c");
}
LC_MPI_ALIAS(Iallgatherv_c);

LC_API int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                           void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_alltoallv(sendbuf, lc_vec_int(sendcounts, sdispls), sendtype, recvbuf,
                              lc_vec_int(recvcounts, rdispls), recvtype, comm, MPI_INFO_NULL, request, false,
                              "MPI_Ialltoallv");
}
LC_MPI_ALIAS(Ialltoallv);

LC_API int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_alltoallv(sendbuf, lc_vec_wide(sendcounts, sdispls), sendtype, recvbuf,
                              lc_vec_wide(recvcounts, rdispls), recvtype, comm, MPI_INFO_NULL, request, false,
                              "MPI_Ialltoallv_c");
}
LC_MPI_ALIAS(Ialltoallv_c);

LC_API int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_reduce_scatter(sendbuf, recvbuf, lc_vec_int(recvcounts, NULL), datatype, op, comm, MPI_INFO_NULL,
                                   request, false, "MPI_Ireduce_scatter");
}
LC_MPI_ALIAS(Ireduce_scatter);

LC_API int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return lc_icall_reduce_scatter(sendbuf, recvbuf, lc_vec_wide(recvcounts, NULL), datatype, op, comm, MPI_INFO_NULL,
                                   request, false, "MPI_Ireduce_scatter_c");
}
LC_MPI_ALIAS(Ireduce_scatter_c);
