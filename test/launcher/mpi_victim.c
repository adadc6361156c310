/* SPDX-License-Identifier: BSD-3-Clause */
/* An MPI program for the launcher's failure tests (linked with Locus's
 * libmpi, and so with libfabric and whatever that pulls in, such as
 * libinfinipath and its SIGSEGV handler).
 *
 *   mpi_victim segv RANK   after MPI_Init and a barrier, RANK writes to an
 *                          unmapped address; the others wait in a barrier
 *                          that never ends
 *   mpi_victim traffic     every rank exchanges 64 KiB messages with both ring
 *                          neighbours in a loop; after the first round each
 *                          prints "READY <rank> <pid>" (so the shared memory
 *                          and network channels are up and in use) and goes
 *                          on until it is killed or a peer is gone
 *
 *   mpi_victim block       after MPI_Init and a barrier, each rank prints
 *                          "READY <rank> <pid>"; then rank 0 waits in an
 *                          MPI_Recv from the last rank, which never sends,
 *                          and every other rank in an MPI_Barrier that rank
 *                          0 never joins: the job blocks until a failure
 *                          ends it (t_foreign_kill.sh)
 *   mpi_victim ok          MPI_Init, a barrier, MPI_Finalize, exit 0 (a job
 *                          that follows a failed one)
 *
 * Apart from `ok`, exit 0 never happens by design: these jobs end by a
 * failure. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LEN (64 * 1024)

static void traffic(int rank, int size)
{
    static char out[2][LEN], in[2][LEN];
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    memset(out, rank, sizeof(out));
    for (long iter = 0;; iter++) {
        MPI_Request req[4];
        MPI_Status st[4];

        MPI_Irecv(in[0], LEN, MPI_BYTE, prev, 0, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(in[1], LEN, MPI_BYTE, next, 1, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(out[0], LEN, MPI_BYTE, next, 0, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(out[1], LEN, MPI_BYTE, prev, 1, MPI_COMM_WORLD, &req[3]);
        MPI_Waitall(4, req, st);
        if (iter == 0) {
            printf("READY %d %ld\n", rank, (long)getpid());
            fflush(stdout);
        }
        usleep(1000); /* keep the machine usable for the killers */
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(mode, "segv") == 0 && argc > 2) {
        if (rank == atoi(argv[2])) {
            /* An unmapped page below mmap_min_addr, not NULL: UBSan would
             * report a null store and exit before the fault. */
            volatile int *volatile p = (volatile int *)(uintptr_t)64;

            *p = 1;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "ok") == 0) {
        MPI_Finalize();
        return 0;
    } else if (strcmp(mode, "block") == 0) {
        printf("READY %d %ld\n", rank, (long)getpid());
        fflush(stdout);
        if (rank == 0) {
            char c;
            MPI_Recv(&c, 1, MPI_BYTE, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
        }
    } else if (strcmp(mode, "traffic") == 0) {
        traffic(rank, size);
    } else if (strcmp(mode, "idle") == 0 && argc > 2) {
        /* Every rank computes SECS seconds without an MPI call, then rank
         * 0 waits SECS more for the last rank: a peer that was idle is
         * not a silent one. */
        unsigned secs = (unsigned)atoi(argv[2]);
        printf("READY %d %ld\n", rank, (long)getpid());
        fflush(stdout);
        sleep(secs);
        char c = 'i';
        if (rank == size - 1 && rank != 0) {
            sleep(secs);
            MPI_Send(&c, 1, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        } else if (rank == 0 && size > 1) {
            MPI_Recv(&c, 1, MPI_BYTE, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Finalize();
        return 0;
    } else {
        fprintf(stderr, "usage: mpi_victim segv RANK | traffic | block | idle SECS | ok\n");
    }
    MPI_Finalize();
    return 2;
}
