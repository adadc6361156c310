/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spawn_serial — children spawned one after another at the same network
 * address (issue 11: mpi4py's test_spawn.py hung at 2 ranks in CI).
 *
 * The kernel gives a new process the TCP port of one that exited, so a
 * parent spawning child after child sometimes met a child at the IP
 * address and port of an earlier one (~1 in 150 children; test_spawn.py
 * spawns ~90 per parent at 2 ranks).  Locus then took it for the earlier
 * child — same peer id, old sequence numbers and credits — and the
 * child's connect waited forever for its welcome.
 *
 * Here every child of parent rank r listens on one port P_r (libfabric's
 * FI_TCP_/FI_NET_PORT_LOW/HIGH_RANGE, set by the child before MPI_Init),
 * so every child after the first takes the previous one's address:
 *   1. ROUNDS_SELF rounds: every parent at once spawns one child on
 *      MPI_COMM_SELF (as test_spawn.py's TestSpawnSingleSelf), waiting
 *      first until the previous child has left the port;
 *   2. ROUNDS_WORLD rounds on MPI_COMM_WORLD, root 0: every parent meets
 *      the child at P_0 (the other parents through the member tables, not
 *      a hello).
 * Each child sends its port name to parent 0 of its spawn (on Locus the
 * address in it must be the previous child's: otherwise the provider
 * ignored the port range and the test proves nothing), then an allreduce
 * over the intercommunicator, disconnect.  Skipped on MPICH (Debian's
 * 4.0.2, ch4:ucx, cannot spawn: test/mpi/README.md).
 */
#include "lc_test.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS_SELF 3
#define ROUNDS_WORLD 2

static int child(const char *port)
{
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    LC_CHECK(parent != MPI_COMM_NULL, "child: no parent");
    if (parent == MPI_COMM_NULL) return lc_finish();
    char name[MPI_MAX_PORT_NAME] = "";
    LC_MPI(MPI_Open_port(MPI_INFO_NULL, name));
    LC_MPI(MPI_Close_port(name));
    LC_MPI(MPI_Send(name, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 1, parent));
    int one = 1, n = 0, rsize = 0;
    MPI_Comm_remote_size(parent, &rsize);
    LC_MPI(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, parent)); /* the parents' count */
    LC_CHECK(n == rsize, "child (port %s): allreduce %d, %d parents", port, n, rsize);
    LC_MPI(MPI_Comm_disconnect(&parent));
    return lc_finish();
}

/* A free TCP port of the kernel's choosing, held (bound) in *fd until
 * every parent has chosen: no two parents get the same. */
static int pick_port(int *fd)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t len = sizeof(a);
    *fd = socket(AF_INET, SOCK_STREAM, 0);
    if (*fd < 0 || bind(*fd, (struct sockaddr *)&a, sizeof(a)) != 0 || getsockname(*fd, (struct sockaddr *)&a, &len))
        LC_FATAL("cannot pick a port: %s", strerror(errno));
    return ntohs(a.sin_port);
}

/* Until nothing listens on `port` any more (the previous child exited),
 * driving MPI progress meanwhile: that child's MPI_Finalize waits for our
 * answer to its goodbye. */
static void wait_port_free(int port)
{
    time_t end = time(NULL) + 60;
    for (;;) {
        int fd = socket(AF_INET, SOCK_STREAM, 0), on = 1, flag;
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
        int ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
        if (fd >= 0) close(fd);
        if (ok) return;
        if (time(NULL) > end) LC_FATAL("port %d still in use after 60 s", port);
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
        usleep(10000);
    }
}

/* The endpoint address in a Locus port name (its last field), or NULL. */
static const char *addr_of(const char *name)
{
    if (strncmp(name, "locus:", 6) != 0) return NULL;
    const char *c = strrchr(name, ':');
    return c ? c + 1 : NULL;
}

/* One spawn on comm (root 0): the child at `port`; the child's address
 * compared with the previous one's (prev, updated). */
static void one_round(MPI_Comm comm, const char *prog, int port, char *prev, const char *what, int round)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char parg[16];
    snprintf(parg, sizeof(parg), "%d", port);
    char *args[] = { "child", parg, NULL };
    if (rank == 0) wait_port_free(port);
    MPI_Comm ic;
    int code = -1;
    LC_MPI(MPI_Comm_spawn(prog, args, 1, MPI_INFO_NULL, 0, comm, &ic, &code));
    if (rank == 0) LC_CHECK(code == MPI_SUCCESS, "%s round %d: errcode %d", what, round, code);
    if (rank == 0) {
        char name[MPI_MAX_PORT_NAME];
        LC_MPI(MPI_Recv(name, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 1, ic, MPI_STATUS_IGNORE));
        const char *a = addr_of(name);
        if (a && prev[0])
            LC_CHECK(!strcmp(a, prev), "%s round %d: the child listens at %s, the previous one at %s: the port "
                                       "range was ignored, the address not reused", what, round, a, prev);
        if (a) snprintf(prev, MPI_MAX_PORT_NAME, "%s", a);
    }
    int one = 1, n = 0;
    LC_MPI(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, ic)); /* the child's count */
    LC_CHECK(n == 1, "%s round %d: allreduce %d", what, round, n);
    LC_MPI(MPI_Comm_disconnect(&ic));
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "child")) {
        /* Before MPI_Init: libfabric reads them when it starts. */
        setenv("FI_TCP_PORT_LOW_RANGE", argv[2], 1);
        setenv("FI_TCP_PORT_HIGH_RANGE", argv[2], 1);
        setenv("FI_NET_PORT_LOW_RANGE", argv[2], 1);
        setenv("FI_NET_PORT_HIGH_RANGE", argv[2], 1);
        MPI_Init(&argc, &argv);
        return child(argv[2]);
    }
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (lc_library_is_mpich()) {
        if (rank == 0) printf("MPICH (ch4:ucx) cannot spawn: skipped\n");
        return lc_finish();
    }
    int hold, port = pick_port(&hold), port0 = port;
    LC_MPI(MPI_Bcast(&port0, 1, MPI_INT, 0, MPI_COMM_WORLD)); /* (every parent has chosen) */
    close(hold);
    char prev[MPI_MAX_PORT_NAME] = "";
    for (int k = 0; k < ROUNDS_SELF; k++) one_round(MPI_COMM_SELF, argv[0], port, prev, "self", k);
    /* Rank 0's last child (at port0) may still be leaving: one_round waits. */
    for (int k = 0; k < ROUNDS_WORLD; k++) one_round(MPI_COMM_WORLD, argv[0], port0, prev, "world", k);
    return lc_finish();
}
