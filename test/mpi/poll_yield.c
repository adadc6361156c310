/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * poll_yield.c — an application that polls (MPI_Test, MPI_Testany,
 * MPI_Testall, MPI_Testsome, MPI_Iprobe, MPI_Improbe) while ranks
 * outnumber cores gives the core to the rank it waits for.
 *
 * Both ranks pin themselves to one CPU before MPI_Init, so the library
 * sees two ranks on one core (waits yield).  In each round rank 1 burns
 * WORK_MS of its own CPU time, then sends; rank 0 polls with one of the
 * calls meanwhile and measures the CPU time its polling took.  Sharing
 * one core with a rank that never gives it up, rank 1's 100 ms cost rank
 * 0 about as much CPU (the scheduler splits the core evenly); a rank that
 * yields after each fruitless call spends a small fraction of that.  The
 * check is on the best of three rounds per call (a loaded machine can
 * make one round look bad, not all three).  With 2 ranks on their own
 * cores (not this test's setup) nothing yields.  Argument "multiple":
 * the same at MPI_THREAD_MULTIPLE.  The last case is a blocking MPI_Recv
 * (the library's own wait).
 *
 * Run with LOCUS_RANK_SESSIONS=1 (testlist "sessions"), each rank leads a
 * session of its own, where a sched_yield reaches no other rank (the
 * scheduler's autogroups): the calls must sleep instead — with yields
 * only (LOCUS_POLL=yield) they poll ~100 ms.
 */
#include "lc_test.h"
#include "lc_test_cpu.h"

#include <sched.h>
#include <time.h>
#include <unistd.h>

#define WORK_MS 100.0
#define ROUNDS 3
/* Polling CPU above this share of the sender's work means it did not yield. */
#define MAX_SHARE 0.3

enum { BY_TEST, BY_TESTANY, BY_TESTALL, BY_TESTSOME, BY_IPROBE, BY_IMPROBE, BY_RECV, NHOW };
static const char *how_names[NHOW] = { "MPI_Test", "MPI_Testany", "MPI_Testall", "MPI_Testsome",
                                       "MPI_Iprobe", "MPI_Improbe", "MPI_Recv" };

/* Rank 0: poll with `how` until rank 1's message is in; CPU ms spent. */
static double poll_until_received(int how, int *value)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Message msg;
    int flag = 0, idx, n;
    double t0 = lc_test_cpu_ms();
    if (how == BY_RECV) {
        LC_MPI(MPI_Recv(value, 1, MPI_INT, 1, how, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        return lc_test_cpu_ms() - t0;
    }
    if (how <= BY_TESTSOME) LC_MPI(MPI_Irecv(value, 1, MPI_INT, 1, how, MPI_COMM_WORLD, &req));
    while (!flag) {
        switch (how) {
        case BY_TEST: LC_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE)); break;
        case BY_TESTANY: LC_MPI(MPI_Testany(1, &req, &idx, &flag, MPI_STATUS_IGNORE)); break;
        case BY_TESTALL: LC_MPI(MPI_Testall(1, &req, &flag, MPI_STATUSES_IGNORE)); break;
        case BY_TESTSOME:
            LC_MPI(MPI_Testsome(1, &req, &n, &idx, MPI_STATUSES_IGNORE));
            flag = n > 0;
            break;
        case BY_IPROBE: LC_MPI(MPI_Iprobe(1, how, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE)); break;
        case BY_IMPROBE: LC_MPI(MPI_Improbe(1, how, MPI_COMM_WORLD, &flag, &msg, MPI_STATUS_IGNORE)); break;
        }
    }
    double spent = lc_test_cpu_ms() - t0;
    if (how == BY_IPROBE) LC_MPI(MPI_Recv(value, 1, MPI_INT, 1, how, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (how == BY_IMPROBE) LC_MPI(MPI_Mrecv(value, 1, MPI_INT, &msg, MPI_STATUS_IGNORE));
    return spent;
}

int main(int argc, char **argv)
{
    lc_test_pin_first_cpu();
    if (argc > 1 && strcmp(argv[1], "multiple") == 0) { /* the yield leaves the critical section */
        int provided;
        LC_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
        LC_CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
    } else {
        LC_MPI(MPI_Init(&argc, &argv));
    }
    int rank = lc_world_rank();
    if (lc_world_size() != 2) {
        if (rank == 0) fprintf(stderr, "poll_yield needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *sessions = getenv("LOCUS_RANK_SESSIONS");
    if (sessions != NULL && strcmp(sessions, "1") == 0)
        LC_CHECK(getsid(0) == getpid(), "LOCUS_RANK_SESSIONS=1, but rank %d does not lead a session", rank);
    for (int how = 0; how < NHOW; how++) {
        double best = 1e30;
        for (int round = 0; round < ROUNDS; round++) {
            LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
            if (rank == 1) {
                volatile double sink = 0;
                double t0 = lc_test_cpu_ms();
                while (lc_test_cpu_ms() - t0 < WORK_MS) sink += 1.0;
                int v = 1000 * how + round;
                LC_MPI(MPI_Send(&v, 1, MPI_INT, 0, how, MPI_COMM_WORLD));
            } else {
                int v = -1;
                double spent = poll_until_received(how, &v);
                LC_CHECK(v == 1000 * how + round, "%s: received %d, expected %d", how_names[how], v,
                         1000 * how + round);
                if (spent < best) best = spent;
            }
        }
        if (rank == 0) {
            printf("%s: polling took %.1f ms of CPU while the sender worked %.0f ms (best of %d)\n",
                   how_names[how], best, WORK_MS, ROUNDS);
            LC_CHECK(best < MAX_SHARE * WORK_MS,
                     "%s: polling took %.1f ms of CPU while the sender worked %.0f ms on the same core: "
                     "a fruitless call does not give the core away",
                     how_names[how], best, WORK_MS);
        }
    }
    return lc_finish();
}
