/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_fast.h — MPI_THREAD_MULTIPLE: which point-to-point calls may run
 * outside the process-wide section (docs/architecture.md "Threads",
 * stage 3 of the finer locking).  Included by the generated wrappers
 * (build/generated/lc_mpi_wrap.c) only: inline there, so that asking
 * costs no call and no spill of the call's arguments.
 *
 * The generated wrapper of MPI_Send, Recv, Isend, Irecv, the send modes
 * (Ssend, Rsend, Bsend, Issend, Irsend, Ibsend), Sendrecv(_replace),
 * Isendrecv(_replace), the probes (Probe, Iprobe, Mprobe, Improbe) and
 * matched receives (Mrecv, Imrecv), each of these with its `_c`
 * large-count form, the completions (Wait, Test and their all/any/some
 * forms), Request_free and Cancel (FAST in scripts/gen_mpi_wrap.py) asks
 * lc_fast_<Name> with the call's arguments at MULTIPLE; when it says yes
 * the implementation runs without the section, so threads on different
 * communicators do not take turns on one lock: the shared-memory rings,
 * matching queues, request pool and counters they touch have their own
 * locks and atomics (src/util/lc_lock.h, lc_thread.h), and a progress
 * pass outside the section does only the shared-memory share of a pass
 * (lc_progress.c).
 *
 * Yes only when every peer is a shared-memory or self one (no ofi or
 * IVSHMEM endpoint is open), no asynchronous progress thread runs (its
 * accounting of calls inside MPI is the section's), the application
 * itself asked for MULTIPLE, the datatype is a builtin one (no staging,
 * no datatype reference; not a pair type), and the requests are plain sends and receives
 * (not persistent, partitioned, generalized, collective, typed, or
 * freed), Isendrecv's pairs of them, or complete requests born complete
 * (Ibsend's).  Anything else takes the section as before, and so
 * do the argument errors these tests see (a bad communicator, rank,
 * count, datatype or request, a NULL output pointer): they need not be
 * complete checks, only enough to keep what needs the section in it (a
 * bad tag or buffer is reported by the implementation outside it).
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

/* lc_thread_nofast (lc_thread.h): MULTIPLE granted to the application,
 * no progress thread, no ofi endpoint, no IVSHMEM peer; one word. */
static inline bool lc_fast_world(void)
{
    return __atomic_load_n(&lc_thread_nofast, __ATOMIC_RELAXED) == 0;
}

/* count items of dt need no staging and no datatype reference: a builtin
 * type's handle carries its size (lc_dtype.h), so no table lookup.  Pair
 * types (MPI_DOUBLE_INT...) take the typed path (lc_mpi_p2p_type), which
 * stages and references the type: not here. */
static inline bool lc_fast_dtype(MPI_Count count, MPI_Datatype dt)
{
    return count >= 0 && ((unsigned)dt & 0xfc000000u) == 0x4c000000u;
}

/* comm names a communicator (*c_p) whose `rank` (a specific peer,
 * ANY_SOURCE or PROC_NULL) is reached through shared memory or the self
 * channel. */
static inline bool lc_fast_peer_found(MPI_Comm comm, int rank, lc_comm_t **c_p)
{
    lc_comm_t *c = lc_comm_lookup(comm);
    *c_p = c;
    if (!c) return false;
    if (rank == MPI_ANY_SOURCE || rank == MPI_PROC_NULL) return true;
    if ((unsigned)rank >= (unsigned)c->peer_count) return false;
    const lc_peer_t *p = c->peers[rank];
    return p->kind == LC_CHANNEL_SHM || p->kind == LC_CHANNEL_SELF;
}

static inline bool lc_fast_peer(MPI_Comm comm, int rank)
{
    lc_comm_t *c;
    return lc_fast_peer_found(comm, rank, &c);
}

static inline bool lc_fast_comm(MPI_Comm comm, int rank, MPI_Count count, MPI_Datatype dt)
{
    return lc_fast_dtype(count, dt) && lc_fast_peer(comm, rank);
}

/* A plain send or receive, or a request born complete that is complete
 * (Ibsend's: the data is in the buffer when the call returns; a
 * completed one of another origin is finished the same way, status and
 * release, and one not complete yet — an RMA request, a buffer's iflush —
 * stays in the section, which completes it): nothing to run at its end.
 * The flag is read with acquire, as a wait does. */
static inline bool lc_fast_plain(const lc_request_t *r)
{
    bool kind = r->kind == LC_REQ_SEND || r->kind == LC_REQ_RECV ||
                (r->kind == LC_REQ_DONE && atomic_load_explicit(&r->complete, memory_order_acquire));
    return kind && !r->user_freed && !r->typed && !r->sched && !r->on_complete;
}

/* Isendrecv(_replace)'s request (lc_mpi_isendrecv.c): a plain receive
 * with its send half hung on it (`partner`) and, for the replace form,
 * the copy it sends from (`ext`, malloc'ed).  Its completions (Wait,
 * Test and their all/any/some forms: lc_mpi_request_ready, _finish in
 * lc_mpi_grequest.c), Request_free (waits for both halves, then
 * finishes) and Cancel (the receive, under its queue's lock) read the two
 * halves' completion flags with acquire (atomic_int), then release both
 * requests through the pool's own lock and free the copy: nothing of the
 * section's.  Both halves were filled by the posting thread before the
 * handle left it, and the send half is released only with the receive,
 * by the thread that finishes it; another thread may complete either half
 * meanwhile, which reads neither field. */
static inline bool lc_fast_pair(const lc_request_t *r)
{
    return r->kind == LC_REQ_RECV && lc_fast_plain(r) && lc_fast_plain(r->partner) && r->partner->kind == LC_REQ_SEND &&
           !r->partner->partner && !r->partner->ext;
}

/* A request MPI_Wait/Test may finish outside the section: NULL (nothing
 * to do), a plain send or receive, or an Isendrecv pair of them.  `r` is
 * lc_request_lookup's answer for it. */
static inline bool lc_fast_found(MPI_Request h, const lc_request_t *r)
{
    if (h == MPI_REQUEST_NULL) return true;
    if (!r) return false;
    if (lc_likely(!r->partner)) return !r->ext && lc_fast_plain(r);
    return lc_fast_pair(r);
}

static inline bool lc_fast_request(MPI_Request h)
{
    return h == MPI_REQUEST_NULL || lc_fast_found(h, lc_request_lookup(h));
}

/* MPI_Wait's and MPI_Test's fast paths with the request lc_fast_Wait /
 * lc_fast_Test looked up (src/mpi/lc_mpi_request.c): the implementations
 * would look it up again. */
LC_HIDDEN int lc_mpi_wait_found(lc_request_t *req, MPI_Request *request, MPI_Status *status);
LC_HIDDEN int lc_mpi_test_found(lc_request_t *req, MPI_Request *request, int *flag, MPI_Status *status);

/* MPI_Send's, Isend's, Recv's and Irecv's fast paths with the
 * communicator the wrapper looked up (src/mpi/lc_mpi_send.c,
 * lc_mpi_recv.c): the implementation would look it up and check it again
 * (callgrind, one self Irecv+Send+Wait at MULTIPLE: two lookups fewer).
 * The wrapper has also checked the count (not negative) and the
 * datatype's handle shape (a builtin one: no typed path); the rest of the
 * arguments are checked by the implementation. */
LC_HIDDEN int lc_mpi_send_found(lc_comm_t *c, const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                                MPI_Comm comm);
LC_HIDDEN int lc_mpi_isend_found(lc_comm_t *c, const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                                 MPI_Comm comm, MPI_Request *request);
LC_HIDDEN int lc_mpi_recv_found(lc_comm_t *c, void *buf, int count, MPI_Datatype datatype, int source, int tag,
                                MPI_Comm comm, MPI_Status *status);
LC_HIDDEN int lc_mpi_irecv_found(lc_comm_t *c, void *buf, int count, MPI_Datatype datatype, int source, int tag,
                                 MPI_Comm comm, MPI_Request *request);

/* The int forms of Send, Isend, Recv and Irecv: *found is the
 * communicator (meaningful only when the answer is yes). */
static inline int lc_fast_p2p(MPI_Comm comm, int rank, int count, MPI_Datatype dt, lc_comm_t **found)
{
    return lc_fast_world() && lc_fast_dtype(count, dt) && lc_fast_peer_found(comm, rank, found);
}

static inline int lc_fast_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                               lc_comm_t **found)
{
    (void)buf, (void)tag;
    return lc_fast_p2p(comm, dest, count, datatype, found);
}

static inline int lc_fast_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                                MPI_Request *request, lc_comm_t **found)
{
    (void)buf, (void)tag, (void)request;
    return lc_fast_p2p(comm, dest, count, datatype, found);
}

static inline int lc_fast_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                               MPI_Status *status, lc_comm_t **found)
{
    (void)buf, (void)tag, (void)status;
    return lc_fast_p2p(comm, source, count, datatype, found);
}

static inline int lc_fast_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                                MPI_Request *request, lc_comm_t **found)
{
    (void)buf, (void)tag, (void)request;
    return lc_fast_p2p(comm, source, count, datatype, found);
}

/* The send modes and Bsend ask what MPI_Send asks. */
static inline int lc_fast_send_args(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    lc_comm_t *c;
    return lc_fast_Send(buf, count, datatype, dest, tag, comm, &c);
}

/* *request for Wait/Test: looked up once, the request handed to the
 * implementation's fast entry (*found: NULL for MPI_REQUEST_NULL). */
static inline int lc_fast_lookup(MPI_Request *request, lc_request_t **found)
{
    if (!request || !lc_fast_world()) return 0;
    MPI_Request h = *request;
    lc_request_t *r = h == MPI_REQUEST_NULL ? NULL : lc_request_lookup(h);
    *found = r;
    return lc_fast_found(h, r);
}

static inline int lc_fast_Wait(MPI_Request *request, MPI_Status *status, lc_request_t **found)
{
    (void)status;
    return lc_fast_lookup(request, found);
}

static inline int lc_fast_Test(MPI_Request *request, int *flag, MPI_Status *status, lc_request_t **found)
{
    (void)flag, (void)status;
    return lc_fast_lookup(request, found);
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

/* Waitany, Waitsome, Testany and Testsome: the same requests as Waitall.
 * Their passes (lc_mpi_request.c) read each request's completion flag
 * with acquire and finish the complete ones as Wait does; a request
 * another thread completes meanwhile is found complete on a later pass,
 * and requests other threads post and finish are other slots of the pool
 * (its table of blocks never moves). */
static inline int lc_fast_Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status)
{
    (void)status;
    return indx && lc_fast_requests(count, array_of_requests);
}

static inline int lc_fast_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status)
{
    (void)status;
    return indx && flag && lc_fast_requests(count, array_of_requests);
}

static inline int lc_fast_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                                   MPI_Status array_of_statuses[])
{
    (void)array_of_statuses;
    return outcount && (incount == 0 || array_of_indices) && lc_fast_requests(incount, array_of_requests);
}

static inline int lc_fast_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                                   MPI_Status array_of_statuses[])
{
    return lc_fast_Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

/* The send modes: a synchronous send's eager packet asks for an ACK that
 * names the request by its wire reference (published with release, as
 * the rendezvous's RTS; the receiver answers under the peer's tx lock);
 * a ready send is a standard one here.  Buffered sends: below. */
static inline int lc_fast_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lc_fast_send_args(buf, count, datatype, dest, tag, comm);
}

static inline int lc_fast_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lc_fast_send_args(buf, count, datatype, dest, tag, comm);
}

static inline int lc_fast_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                                 MPI_Request *request)
{
    return request && lc_fast_send_args(buf, count, datatype, dest, tag, comm);
}

static inline int lc_fast_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                                 MPI_Request *request)
{
    return request && lc_fast_send_args(buf, count, datatype, dest, tag, comm);
}

/* Bsend and Ibsend copy into the process's attached buffer, whose pool
 * has its own lock (src/mpi/lc_mpi_bsend_pool.c): a block is placed under
 * it with a send request whose completion hook is already set, filled
 * and started without it, and freed only once its hook ran (in the
 * completing thread, under any fine lock: `hook_anywhere`, as the pool's
 * lock is inner to them all), so neither a detach (which waits for every
 * block, refusing new ones meanwhile) nor an iflush (which counts the
 * blocks not yet sent under the same lock) misses one.  Since session 20
 * also on a communicator's or a session's buffer (MPI 4.1
 * Comm_attach_buffer, Session_attach_buffer): finding the pool no longer
 * reads the section's attributes — a communicator's record is its
 * `bsend_pool`, loaded with acquire and kept until the communicator goes;
 * a session's is in the static session table, whose `in_use` and `id` are
 * atomics — and whether one is attached is read under its lock
 * (lc_bsend_pool_of).  Ibsend's request is one born complete. */
static inline int lc_fast_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lc_fast_send_args(buf, count, datatype, dest, tag, comm);
}

static inline int lc_fast_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                                 MPI_Request *request)
{
    return request && lc_fast_Bsend(buf, count, datatype, dest, tag, comm);
}

/* Sendrecv: a receive posted, then a send, then both waited for — what
 * Irecv, Isend and Wait do on this path.  Sendrecv_replace's staging copy
 * is its own malloc'ed buffer (predefined types only: no pack). */
static inline int lc_fast_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                                   MPI_Comm comm, MPI_Status *status)
{
    (void)sendbuf, (void)sendtag, (void)recvbuf, (void)recvtag, (void)status;
    return lc_fast_world() && lc_fast_dtype(recvcount, recvtype) && lc_fast_comm(comm, dest, sendcount, sendtype) &&
           lc_fast_peer(comm, source);
}

/* Isendrecv(_replace): a receive posted and a send started, as Irecv and
 * Isend do here; the send is hung on the receive (`partner`) and the
 * replace form's copy on `ext` after both are posted, by the calling
 * thread, before the handle leaves it — another thread may complete the
 * receive meanwhile, but completion reads neither field.  The request is
 * then completed outside the section too (lc_fast_pair, above). */
static inline int lc_fast_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                                    MPI_Comm comm, MPI_Request *request)
{
    return request && lc_fast_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                                       source, recvtag, comm, MPI_STATUS_IGNORE);
}

static inline int lc_fast_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                           int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    (void)buf, (void)sendtag, (void)recvtag, (void)status;
    return lc_fast_world() && lc_fast_comm(comm, dest, count, datatype) && lc_fast_peer(comm, source);
}

static inline int lc_fast_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                            int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return request &&
           lc_fast_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, MPI_STATUS_IGNORE);
}

/* Probes search the communicator's unexpected queue under its lock
 * (lc_pt2pt_iprobe_arrived); Mprobe/Improbe unlink the entry they found
 * under that lock, into an LC_REQ_MESSAGE request that then belongs to the
 * calling thread: no other thread can match or probe the message after
 * (MPI 4.1 §3.8.2).  The message's reference on its communicator is an
 * atomic count at MULTIPLE. */
static inline int lc_fast_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    (void)tag, (void)status;
    return lc_fast_world() && lc_fast_peer(comm, source);
}

static inline int lc_fast_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    (void)tag, (void)status;
    return flag && lc_fast_world() && lc_fast_peer(comm, source);
}

static inline int lc_fast_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    (void)tag, (void)status;
    return message && lc_fast_world() && lc_fast_peer(comm, source);
}

static inline int lc_fast_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                                  MPI_Status *status)
{
    (void)tag, (void)status;
    return flag && message && lc_fast_world() && lc_fast_peer(comm, source);
}

/* Mrecv/Imrecv deliver the dequeued entry as a receive that matched it
 * (lc_pt2pt_imrecv_post): the entry is the caller's alone.  A derived
 * datatype's receive (typed) stays in the section. */
static inline bool lc_fast_message(MPI_Count count, MPI_Datatype dt, const MPI_Message *message)
{
    if (!message || !lc_fast_world() || !lc_fast_dtype(count, dt)) return false;
    if (*message == MPI_MESSAGE_NO_PROC) return true;
    const lc_request_t *m = lc_request_lookup((MPI_Request)*message);
    return m && m->kind == LC_REQ_MESSAGE;
}

static inline int lc_fast_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    (void)buf, (void)status;
    return lc_fast_message(count, datatype, message);
}

static inline int lc_fast_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                                 MPI_Request *request)
{
    (void)buf;
    return request && lc_fast_message(count, datatype, message);
}

/* Request_free of a plain request: released at once if complete, else put
 * on the pool's list of freed requests (under the pool's lock) that the
 * section's share of a pass releases once complete (lc_request.c).
 * Cancel of a plain receive takes it out of the posted queue under the
 * queue's lock, as a matching packet would (lc_pt2pt_cancel); of a send,
 * nothing.  MPI_REQUEST_NULL is an error for both: the section's path
 * reports it. */
static inline int lc_fast_Request_free(MPI_Request *request)
{
    return request && *request != MPI_REQUEST_NULL && lc_fast_world() && lc_fast_request(*request);
}

static inline int lc_fast_Cancel(MPI_Request *request)
{
    return lc_fast_Request_free(request);
}

/* The `_c` large-count forms run the same implementations as their int
 * forms (one static function per family, the count an MPI_Count), so the
 * same reasons hold; only the count's type differs, and lc_fast_dtype
 * takes an MPI_Count.  A count past what the type's size can address is
 * refused by the implementation's checks, outside the section as for the
 * int forms' bad tags and buffers. */
#define LC_FAST_C_SEND(Name)                                                                                           \
    static inline int lc_fast_##Name##_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,   \
                                         MPI_Comm comm)                                                                \
    {                                                                                                                  \
        (void)buf, (void)tag;                                                                                          \
        return (LC_FAST_C_EXTRA_##Name) && lc_fast_world() && lc_fast_comm(comm, dest, count, datatype);               \
    }
#define LC_FAST_C_ISEND(Name)                                                                                          \
    static inline int lc_fast_##Name##_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,   \
                                         MPI_Comm comm, MPI_Request *request)                                          \
    {                                                                                                                  \
        (void)buf, (void)tag;                                                                                          \
        return request && (LC_FAST_C_EXTRA_##Name) && lc_fast_world() && lc_fast_comm(comm, dest, count, datatype);    \
    }
#define LC_FAST_C_EXTRA_Send 1
#define LC_FAST_C_EXTRA_Ssend 1
#define LC_FAST_C_EXTRA_Rsend 1
#define LC_FAST_C_EXTRA_Bsend 1
#define LC_FAST_C_EXTRA_Isend 1
#define LC_FAST_C_EXTRA_Issend 1
#define LC_FAST_C_EXTRA_Irsend 1
#define LC_FAST_C_EXTRA_Ibsend LC_FAST_C_EXTRA_Bsend
LC_FAST_C_SEND(Send)
LC_FAST_C_SEND(Ssend)
LC_FAST_C_SEND(Rsend)
LC_FAST_C_SEND(Bsend)
LC_FAST_C_ISEND(Isend)
LC_FAST_C_ISEND(Issend)
LC_FAST_C_ISEND(Irsend)
LC_FAST_C_ISEND(Ibsend)

static inline int lc_fast_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                                 MPI_Status *status)
{
    (void)buf, (void)tag, (void)status;
    return lc_fast_world() && lc_fast_comm(comm, source, count, datatype);
}

static inline int lc_fast_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                                  MPI_Request *request)
{
    (void)buf, (void)tag, (void)request;
    return lc_fast_world() && lc_fast_comm(comm, source, count, datatype);
}

static inline int lc_fast_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                                     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                                     int recvtag, MPI_Comm comm, MPI_Status *status)
{
    (void)sendbuf, (void)sendtag, (void)recvbuf, (void)recvtag, (void)status;
    return lc_fast_world() && lc_fast_dtype(recvcount, recvtype) && lc_fast_comm(comm, dest, sendcount, sendtype) &&
           lc_fast_peer(comm, source);
}

static inline int lc_fast_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                                             int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    (void)buf, (void)sendtag, (void)recvtag, (void)status;
    return lc_fast_world() && lc_fast_comm(comm, dest, count, datatype) && lc_fast_peer(comm, source);
}

static inline int lc_fast_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                                      int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                      int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return request && lc_fast_Sendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                                         source, recvtag, comm, MPI_STATUS_IGNORE);
}

static inline int lc_fast_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                                              int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return request &&
           lc_fast_Sendrecv_replace_c(buf, count, datatype, dest, sendtag, source, recvtag, comm, MPI_STATUS_IGNORE);
}

static inline int lc_fast_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                                  MPI_Status *status)
{
    (void)buf, (void)status;
    return lc_fast_message(count, datatype, message);
}

static inline int lc_fast_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                                   MPI_Request *request)
{
    (void)buf;
    return request && lc_fast_message(count, datatype, message);
}

#endif
