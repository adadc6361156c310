/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dynproc_jobs — MPI_Comm_accept / MPI_Comm_connect between two separate
 * mpiexec runs (docs/dynamic.md, "Between jobs").  Driven by
 * test/launcher/t_dynproc_jobs.sh:
 *
 *   mpiexec -n N dynproc_jobs accept  DIR   (rank 0 writes its port to DIR/port)
 *   mpiexec -n M dynproc_jobs connect DIR   (rank 0 reads it)
 *
 * Both sides: remote size, a message from every rank to every remote rank
 * and back, MPI_Allreduce and MPI_Bcast on the intercommunicator,
 * MPI_Intercomm_merge (acceptors low) and an allreduce on the merged
 * communicator, MPI_Comm_disconnect; twice (the second round meets the
 * same processes again).
 */
#include "lc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void read_port(const char *dir, char *port)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/port", dir);
    for (int i = 0; i < 6000; i++) { /* 60 s */
        FILE *f = fopen(path, "r");
        if (f) {
            int ok = fgets(port, MPI_MAX_PORT_NAME, f) != NULL;
            fclose(f);
            if (ok) {
                port[strcspn(port, "\n")] = '\0';
                return;
            }
        }
        usleep(10000);
    }
    fprintf(stderr, "dynproc_jobs: no port in %s after 60 s\n", path);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void write_port(const char *dir, const char *port)
{
    char tmp[512], path[512];
    snprintf(tmp, sizeof(tmp), "%s/port.tmp", dir);
    snprintf(path, sizeof(path), "%s/port", dir);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%s\n", port) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        perror("dynproc_jobs: writing the port");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void round_trip(MPI_Comm ic, int accept, int round)
{
    int rank, size, rsize, flag;
    MPI_Comm_rank(ic, &rank);
    MPI_Comm_size(ic, &size);
    LC_MPI(MPI_Comm_test_inter(ic, &flag));
    LC_MPI(MPI_Comm_remote_size(ic, &rsize));
    LC_CHECK(flag, "round %d: not an intercommunicator", round);
    /* Every rank to every remote rank, and back. */
    int *in = lc_malloc(sizeof(int) * (size_t)rsize);
    MPI_Request *rq = lc_malloc(sizeof(MPI_Request) * 2 * (size_t)rsize);
    int mine = (accept ? 1000 : 2000) + rank;
    for (int r = 0; r < rsize; r++) {
        LC_MPI(MPI_Irecv(&in[r], 1, MPI_INT, r, 7 + round, ic, &rq[r]));
        LC_MPI(MPI_Isend(&mine, 1, MPI_INT, r, 7 + round, ic, &rq[rsize + r]));
    }
    LC_MPI(MPI_Waitall(2 * rsize, rq, MPI_STATUSES_IGNORE));
    for (int r = 0; r < rsize; r++)
        LC_CHECK(in[r] == (accept ? 2000 : 1000) + r, "round %d: from remote %d got %d", round, r, in[r]);
    /* A larger message (rendezvous) between the roots. */
    size_t n = 1 << 20;
    char *big = lc_malloc(n);
    if (rank == 0) {
        if (accept) {
            memset(big, 'a' + round, n);
            LC_MPI(MPI_Send(big, (int)n, MPI_CHAR, 0, 99, ic));
        } else {
            memset(big, 0, n);
            LC_MPI(MPI_Recv(big, (int)n, MPI_CHAR, 0, 99, ic, MPI_STATUS_IGNORE));
            LC_CHECK(big[0] == 'a' + round && big[n - 1] == 'a' + round, "round %d: large message corrupt", round);
        }
    }
    free(big);
    /* Collectives on the intercommunicator: each side gets the other's sum. */
    int sum = 0, want = 0;
    for (int r = 0; r < rsize; r++) want += (accept ? 2000 : 1000) + r;
    LC_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, ic));
    LC_CHECK(sum == want, "round %d: intercomm allreduce %d, want %d", round, sum, want);
    int val = accept ? 4242 + round : -1;
    LC_MPI(MPI_Bcast(&val, 1, MPI_INT, accept ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic));
    if (!accept) LC_CHECK(val == 4242 + round, "round %d: intercomm bcast %d", round, val);
    /* Merge: acceptors first. */
    MPI_Comm m;
    int mrank, msize;
    LC_MPI(MPI_Intercomm_merge(ic, accept ? 0 : 1, &m));
    MPI_Comm_rank(m, &mrank);
    MPI_Comm_size(m, &msize);
    LC_CHECK(msize == size + rsize, "round %d: merged size %d", round, msize);
    LC_CHECK(mrank == (accept ? rank : rsize + rank), "round %d: merged rank %d (local %d)", round, mrank, rank);
    int msum = 0;
    LC_MPI(MPI_Allreduce(&mrank, &msum, 1, MPI_INT, MPI_SUM, m));
    LC_CHECK(msum == msize * (msize - 1) / 2, "round %d: merged allreduce %d", round, msum);
    LC_MPI(MPI_Comm_free(&m));
    free(in);
    free(rq);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3 || (strcmp(argv[1], "accept") && strcmp(argv[1], "connect"))) {
        fprintf(stderr, "usage: dynproc_jobs accept|connect DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int accept = !strcmp(argv[1], "accept"), rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char port[MPI_MAX_PORT_NAME] = "";
    if (accept && rank == 0) {
        LC_MPI(MPI_Open_port(MPI_INFO_NULL, port));
        write_port(argv[2], port);
    }
    if (!accept && rank == 0) read_port(argv[2], port);
    for (int round = 0; round < 2; round++) {
        MPI_Comm ic;
        if (accept) LC_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
        else LC_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
        round_trip(ic, accept, round);
        LC_MPI(MPI_Comm_disconnect(&ic));
    }
    if (accept && rank == 0) LC_MPI(MPI_Close_port(port));
    return lc_finish();
}
