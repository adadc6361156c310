/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * icoll_cost.c - the instruction cost of one small collective on rank 0,
 * blocking against nonblocking (issue 14: 8 B Iallreduce + Wait within
 * 1.2x of Allreduce), counted by callgrind rather than timed: wall-clock
 * figures on a shared 2-core machine swing far more than the difference.
 *
 * Rank 0 runs under `valgrind --tool=callgrind --collect-atstart=no`
 * (scripts/icoll_cost.sh) and collects only inside the operation; the
 * other ranks run natively.  Before each measured operation rank 0 waits
 * (outside the collected region) until the peers' messages of this
 * operation have arrived: every iteration then takes the same path, and
 * the count does not depend on how the processes happened to be
 * scheduled.  It knows from Locus's MPI_T variable
 * locus_unexpected_queue_len, polling with MPI_Iprobe on MPI_COMM_SELF
 * (which only drives progress) until the queue holds -m messages (by
 * default what the peer of a 2-rank job sends rank 0 in the operation:
 * 1, none in a bcast from 0).  Another MPI (no such variable) or -m -1:
 * rank 0 sleeps -d microseconds instead, which on a loaded machine may
 * not be enough; the script reports idle polls per operation to show it.
 *
 * -r (in the ring): the peers' messages must have arrived but not been
 * seen yet — what a rank finds when it enters MPI after computing, the
 * peer having been quicker — so the operation's first progress pass
 * takes them from the ring.  No MPI call may look first, so rank 0 waits
 * for each peer to store the iteration's number in a shared-memory
 * window (MPI_Win_allocate_shared) just before its call, then sleeps -d
 * microseconds for the peer's first send to leave.  Only a peer
 * descheduled in between spoils it: the idle polls column shows it.
 *
 * Usage: icoll_cost -o OP [-n count] [-i iters] [-w warmup] [-d usec] [-m msgs] [-r]
 *   OP: allreduce iallreduce allreduce_init barrier ibarrier bcast ibcast
 *       reduce ireduce   (the "i" forms are start + MPI_Wait; allreduce_init
 *       is one MPI_Allreduce_init, then MPI_Start + MPI_Wait per iteration)
 *   count: floats (2: 8 B); reductions use MPI_SUM, bcast/reduce root 0.
 * The program uses the standard MPI API only and builds with any mpicc;
 * without valgrind's header the collection toggles are no-ops.
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_TOGGLE_COLLECT
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

enum {
    OP_ALLREDUCE,
    OP_IALLREDUCE,
    OP_ALLREDUCE_INIT,
    OP_BARRIER,
    OP_IBARRIER,
    OP_BCAST,
    OP_IBCAST,
    OP_REDUCE,
    OP_IREDUCE
};
static const char *const op_names[] = { "allreduce", "iallreduce", "allreduce_init", "barrier", "ibarrier",
                                        "bcast",     "ibcast",     "reduce",         "ireduce" };
#define NOPS ((int)(sizeof(op_names) / sizeof(op_names[0])))

static float sb[1 << 16], rb[1 << 16];

/* The unexpected-queue length (Locus's MPI_T performance variable). */
static MPI_T_pvar_session pv_session;
static MPI_T_pvar_handle pv_handle;
static int pv_inited, pv_ok;

static void pv_init(void)
{
    int provided, n;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
    pv_inited = 1;
    if (MPI_T_pvar_get_num(&n) != MPI_SUCCESS) return;
    for (int i = 0; i < n && !pv_ok; i++) {
        char name[128], desc[256];
        int nlen = sizeof(name), dlen = sizeof(desc), verb, cls, bind, ro, cont, atomic, count;
        MPI_Datatype dt;
        MPI_T_enum et;
        if (MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt, &et, desc, &dlen, &bind, &ro, &cont, &atomic) !=
                MPI_SUCCESS ||
            strcmp(name, "locus_unexpected_queue_len") != 0 || dt != MPI_UNSIGNED_LONG)
            continue;
        pv_ok = MPI_T_pvar_session_create(&pv_session) == MPI_SUCCESS &&
                MPI_T_pvar_handle_alloc(pv_session, i, NULL, &pv_handle, &count) == MPI_SUCCESS && count == 1;
    }
}

/* Wait until `msgs` messages wait in the unexpected queue, else sleep. */
static void wait_for_peers(int msgs, int delay)
{
    if (!pv_ok || msgs < 0) {
        if (delay) usleep((useconds_t)delay);
        return;
    }
    for (;;) {
        unsigned long len = 0;
        int flag;
        MPI_T_pvar_read(pv_session, pv_handle, &len);
        if (len >= (unsigned long)msgs) return;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
    }
}

/* One operation, complete on return (the request of a persistent start
 * is `preq`). */
static void one(int op, int n, MPI_Request *preq)
{
    MPI_Request req;
    switch (op) {
    case OP_ALLREDUCE:
        MPI_Allreduce(sb, rb, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        return;
    case OP_IALLREDUCE:
        MPI_Iallreduce(sb, rb, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
        break;
    case OP_ALLREDUCE_INIT:
        MPI_Start(preq);
        MPI_Wait(preq, MPI_STATUS_IGNORE);
        return;
    case OP_BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    case OP_IBARRIER:
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        break;
    case OP_BCAST:
        MPI_Bcast(rb, n, MPI_FLOAT, 0, MPI_COMM_WORLD);
        return;
    case OP_IBCAST:
        MPI_Ibcast(rb, n, MPI_FLOAT, 0, MPI_COMM_WORLD, &req);
        break;
    case OP_REDUCE:
        MPI_Reduce(sb, rb, n, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
        return;
    case OP_IREDUCE:
        MPI_Ireduce(sb, rb, n, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD, &req);
        break;
    default:
        return;
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* -r: each rank's iteration counter in shared memory (peers write
 * theirs, rank 0 reads them). */
#define MAX_PEERS 64
static MPI_Win flag_win = MPI_WIN_NULL;
static int *my_flag, *peer_flag[MAX_PEERS];

static int flags_init(int rank, int p)
{
    MPI_Comm node;
    int ns;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &ns);
    if (ns != p || p > MAX_PEERS) { /* the same answer on every rank */
        MPI_Comm_free(&node);
        return 0;
    }
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &my_flag, &flag_win);
    __atomic_store_n(my_flag, 0, __ATOMIC_RELAXED);
    for (int r = 1; r < p && rank == 0; r++) {
        MPI_Aint size;
        int unit;
        MPI_Win_shared_query(flag_win, r, &size, &unit, &peer_flag[r]);
    }
    MPI_Barrier(node); /* every flag is 0 before anyone reads it */
    MPI_Comm_free(&node);
    return 1;
}

static void flags_wait(int p, int iter, int delay)
{
    for (int r = 1; r < p; r++)
        while (__atomic_load_n(peer_flag[r], __ATOMIC_ACQUIRE) < iter) {}
    if (delay) usleep((useconds_t)delay);
}

int main(int argc, char **argv)
{
    int op = -1, n = 2, iters = 2000, warm = 200, delay = 300, msgs = -2, ring = 0, c;
    while ((c = getopt(argc, argv, "o:n:i:w:d:m:r")) != -1) {
        if (c == 'o') {
            for (int k = 0; k < NOPS; k++)
                if (strcmp(optarg, op_names[k]) == 0) op = k;
        } else if (c == 'n')
            n = atoi(optarg);
        else if (c == 'i')
            iters = atoi(optarg);
        else if (c == 'w')
            warm = atoi(optarg);
        else if (c == 'd')
            delay = atoi(optarg);
        else if (c == 'm')
            msgs = atoi(optarg);
        else if (c == 'r')
            ring = 1;
    }
    if (msgs == -2) msgs = op == OP_BCAST || op == OP_IBCAST ? 0 : 1;
    if (op < 0 || n < 0 || n > (int)(sizeof(sb) / sizeof(sb[0])) || iters < 1 || warm < 0 || delay < 0) {
        fprintf(stderr, "usage: icoll_cost -o OP [-n count] [-i iters] [-w warmup] [-d usec] [-m msgs] [-r]\nOP:");
        for (int k = 0; k < NOPS; k++) fprintf(stderr, " %s", op_names[k]);
        fprintf(stderr, "\n");
        return 1;
    }
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (ring && !flags_init(rank, p)) {
        if (rank == 0) fprintf(stderr, "icoll_cost: -r needs every rank on one host\n");
        MPI_Finalize();
        return 1;
    }
    if (rank == 0 && !ring) pv_init();
    for (int i = 0; i < n; i++) sb[i] = 1.0f + (float)rank;
    MPI_Request preq = MPI_REQUEST_NULL;
    if (op == OP_ALLREDUCE_INIT)
        MPI_Allreduce_init(sb, rb, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &preq);

    for (int i = 0; i < warm; i++) one(op, n, &preq);
    MPI_Barrier(MPI_COMM_WORLD);
    long bad = 0;
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            if (ring) /* the peers' messages arrive first */
                flags_wait(p, i + 1, delay);
            else
                wait_for_peers(msgs, delay);
            CALLGRIND_TOGGLE_COLLECT;
            one(op, n, &preq);
            CALLGRIND_TOGGLE_COLLECT;
        } else {
            if (ring) __atomic_store_n(my_flag, i + 1, __ATOMIC_RELEASE);
            one(op, n, &preq);
        }
        /* Every rank contributes 1 + rank: the sum is exact. */
        float want = (float)p + (float)p * (float)(p - 1) / 2;
        bool reduced = op == OP_ALLREDUCE || op == OP_IALLREDUCE || op == OP_ALLREDUCE_INIT ||
                       ((op == OP_REDUCE || op == OP_IREDUCE) && rank == 0);
        if (reduced)
            for (int k = 0; k < n; k++) bad += rb[k] != want;
    }
    if (preq != MPI_REQUEST_NULL) MPI_Request_free(&preq);
    long all = 0;
    MPI_Reduce(&bad, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("op %s count %d bytes %zu ranks %d iters %d warmup %d wait %s valgrind %d\n", op_names[op], n,
               (size_t)n * sizeof(float), p, iters, warm,
               ring                 ? "ring"
               : pv_ok && msgs >= 0 ? "unexpected-queue"
                                    : "sleep",
               (int)RUNNING_ON_VALGRIND);
        if (all) printf("VALIDATION FAILED: %ld wrong sums\n", all);
    }
    if (pv_ok) {
        MPI_T_pvar_handle_free(pv_session, &pv_handle);
        MPI_T_pvar_session_free(&pv_session);
    }
    if (pv_inited) MPI_T_finalize();
    if (flag_win != MPI_WIN_NULL) MPI_Win_free(&flag_win);
    MPI_Finalize();
    return all ? 2 : 0;
}
