/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_fast.h — MPI_THREAD_MULTIPLE: which point-to-point calls may run
 * outside the process-wide section (docs/architecture.md "Threads",
 * stage 3 of the finer locking).  Included by the generated wrappers
 * (build/generated/lc_mpi_wrap.c) only: inline there, so that asking
 * costs no call and no spill of the call's arguments.
 *
 * The generated wrapper of MPI_Send, Recv, Isend, Irecv, Wait, Test,
 * Waitall and Testall (scripts/gen_mpi_wrap.py) asks lc_fast_<Name> with
 * the call's arguments at MULTIPLE; when it says yes the implementation
 * runs without the section, so threads on different communicators do
 * not take turns on one lock: the shared-memory rings, matching queues,
 * request pool and counters they touch have their own locks and atomics
 * (src/util/lc_lock.h, lc_thread.h), and a progress pass outside the
 * section does only the shared-memory share of a pass (lc_progress.c).
 *
 * Yes only when every peer is a shared-memory or self one (no ofi or
 * IVSHMEM endpoint is open), no asynchronous progress thread runs (its
 * accounting of calls inside MPI is the section's), the application
 * itself asked for MULTIPLE, the datatype is a builtin one (no staging,
 * no datatype reference; not a pair type), and the requests are plain sends and receives
 * (not persistent, partitioned, generalized, collective, buffered,
 * typed, or freed).  Anything else, and every argument error the checks
 * would report, takes the section as before: these tests need not be
 * complete checks, only enough to keep what needs the section in it.
 *
 * The flags read here are written once, at init or when an endpoint
 * opens, inside the section: relaxed loads (a call that raced an ofi
 * endpoint's opening runs on the shared-memory path it was asked for).
 */
#ifndef LC_MPI_FAST_H
#define LC_MPI_FAST_H

/* Not mpi/lc_mpi.h: it renames PMPI_<Name> to the implementations, which
 * the file that includes this one defines as the wrappers. */
#include "channel/lc_ivshmem.h"
#include "channel/lc_ofi.h"
#include "pt2pt/lc_comm.h"
#include "pt2pt/lc_request.h"
#include "util/lc_dtype.h"
#include "util/lc_thread.h"

#include <mpi.h>
#include <stdbool.h>

static inline bool lc_fast_world(void)
{
    return lc_thread_app_multiple && !lc_thread_async && !__atomic_load_n(&lc_ofi_active, __ATOMIC_RELAXED) &&
           !__atomic_load_n(&lc_ivshmem_active, __ATOMIC_RELAXED);
}

/* comm names a communicator whose `rank` (a specific peer, ANY_SOURCE or
 * PROC_NULL) is reached through shared memory or the self channel. */
static inline bool lc_fast_comm(MPI_Comm comm, int rank, int count, MPI_Datatype dt)
{
    /* A builtin type's handle carries its size (lc_dtype.h): no table
     * lookup.  Pair types (MPI_DOUBLE_INT...) take the typed path
     * (lc_mpi_p2p_type), which stages and references the type: not here. */
    if (count < 0 || ((unsigned)dt & 0xfc000000u) != 0x4c000000u) return false;
    lc_comm_t *c = lc_comm_lookup(comm);
    if (!c) return false;
    if (rank == MPI_ANY_SOURCE || rank == MPI_PROC_NULL) return true;
    if ((unsigned)rank >= (unsigned)c->peer_count) return false;
    const lc_peer_t *p = c->peers[rank];
    return p->kind == LC_CHANNEL_SHM || p->kind == LC_CHANNEL_SELF;
}

/* A request MPI_Wait/Test may finish outside the section: NULL (nothing
 * to do), or a plain send or receive with nothing to run at its end. */
static inline bool lc_fast_request(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL) return true;
    const lc_request_t *r = lc_request_lookup(h);
    if (!r || (r->kind != LC_REQ_SEND && r->kind != LC_REQ_RECV)) return false;
    return !r->partner && !r->ext && !r->user_freed && !r->typed && !r->sched && !r->on_complete;
}

static inline int lc_fast_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    (void)buf, (void)tag;
    return lc_fast_world() && lc_fast_comm(comm, dest, count, datatype);
}

static inline int lc_fast_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                                MPI_Request *request)
{
    (void)buf, (void)tag, (void)request;
    return lc_fast_world() && lc_fast_comm(comm, dest, count, datatype);
}

static inline int lc_fast_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                               MPI_Status *status)
{
    (void)buf, (void)tag, (void)status;
    return lc_fast_world() && lc_fast_comm(comm, source, count, datatype);
}

static inline int lc_fast_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                                MPI_Request *request)
{
    (void)buf, (void)tag, (void)request;
    return lc_fast_world() && lc_fast_comm(comm, source, count, datatype);
}

static inline int lc_fast_Wait(MPI_Request *request, MPI_Status *status)
{
    (void)status;
    return request && lc_fast_world() && lc_fast_request(*request);
}

static inline int lc_fast_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    (void)flag, (void)status;
    return request && lc_fast_world() && lc_fast_request(*request);
}

static inline bool lc_fast_requests(int count, const MPI_Request reqs[])
{
    if (count < 0 || (count > 0 && !reqs) || !lc_fast_world()) return false;
    for (int i = 0; i < count; i++)
        if (!lc_fast_request(reqs[i])) return false;
    return true;
}

static inline int lc_fast_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    (void)array_of_statuses;
    return lc_fast_requests(count, array_of_requests);
}

static inline int lc_fast_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    (void)flag, (void)array_of_statuses;
    return lc_fast_requests(count, array_of_requests);
}

#endif
