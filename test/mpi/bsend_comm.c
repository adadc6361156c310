/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bsend_comm: MPI 4.1's buffer per communicator and the flush calls —
 * MPI_Comm_attach_buffer(_c)/MPI_Comm_detach_buffer(_c), MPI_Comm_flush_buffer,
 * MPI_Buffer_flush, MPI_BUFFER_AUTOMATIC.  A communicator's buffer serves
 * its own buffered sends only; errors for a second attach and a detach
 * with none attached; MPI_Comm_free of a communicator with a buffer.
 * Two ranks: 0 sends, 1 receives after a barrier (so every message waits
 * in a buffer).  MPICH 4.0.2 lacks these functions: Locus only.
 */
#include "lc_test.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* Built against an older mpi.h (MPICH 4.0.2 in validate_with_mpich.sh):
 * it has no MPI 4.1 buffering functions, so the program only says so. */
#if !(MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1))
int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    if (lc_world_rank() == 0) fprintf(stderr, "this mpi.h has no MPI 4.1 buffering functions: nothing tested\n");
    return lc_finish();
}
#else

#define NMSG 4
#define LEN 100
#define BIG (1 << 20)

static void recv_check(MPI_Comm comm, int tag, int n)
{
    int *got = lc_malloc(sizeof(int) * (size_t)n);
    LC_MPI(MPI_Recv(got, n, MPI_INT, 0, tag, comm, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
        if (got[i] != lc_pattern(0, tag, i)) {
            LC_CHECK(0, "tag %d: element %d is %d, expected %d", tag, i, got[i], lc_pattern(0, tag, i));
            break;
        }
    free(got);
}

static void send_pattern(MPI_Comm comm, int tag, int n)
{
    int *v = lc_malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) v[i] = lc_pattern(0, tag, i);
    LC_MPI(MPI_Bsend(v, n, MPI_INT, 1, tag, comm));
    free(v); /* the message is in the attached buffer */
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank();
    if (lc_world_size() != 2) LC_FATAL("run with 2 ranks");
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm dup, dup2;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup2));
    int size = NMSG * (int)(LEN * sizeof(int) + MPI_BSEND_OVERHEAD);
    char *buf = lc_malloc((size_t)size);
    void *back;
    int n, rc;
    MPI_Count nc;

    /* 1: a buffer on `dup` serves `dup`, not MPI_COMM_WORLD. */
    if (rank == 0) {
        LC_MPI(MPI_Comm_attach_buffer(dup, buf, size));
        rc = MPI_Comm_attach_buffer(dup, buf, size);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_BUFFER, "second attach: class %s", lc_class_name(lc_class_of(rc)));
        for (int m = 0; m < NMSG; m++) send_pattern(dup, m, LEN);
        int one = 1;
        rc = MPI_Bsend(&one, 1, MPI_INT, 1, 99, MPI_COMM_WORLD);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_BUFFER, "Bsend on a communicator without buffer: class %s",
                 lc_class_name(lc_class_of(rc)));
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1)
        for (int m = 0; m < NMSG; m++) recv_check(dup, m, LEN);
    if (rank == 0) {
        LC_MPI(MPI_Comm_flush_buffer(dup));
        LC_MPI(MPI_Comm_detach_buffer(dup, &back, &n));
        LC_CHECK(back == buf && n == size, "detach gave %p/%d, attached %p/%d", back, n, (void *)buf, size);
        rc = MPI_Comm_detach_buffer(dup, &back, &n);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_BUFFER, "detach with none attached: class %s",
                 lc_class_name(lc_class_of(rc)));
        LC_MPI(MPI_Comm_flush_buffer(dup)); /* none attached: nothing to do */
    }

    /* 2: MPI_BUFFER_AUTOMATIC at process level: a large message needs no
     * size planning; MPI_Buffer_flush; detach gives the constant back. */
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        LC_MPI(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
        send_pattern(MPI_COMM_WORLD, 7, BIG);
        send_pattern(MPI_COMM_WORLD, 8, LEN);
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        recv_check(MPI_COMM_WORLD, 7, BIG);
        recv_check(MPI_COMM_WORLD, 8, LEN);
    }
    if (rank == 0) {
        LC_MPI(MPI_Buffer_flush());
        LC_MPI(MPI_Buffer_detach(&back, &n));
        LC_CHECK(back == MPI_BUFFER_AUTOMATIC && n == 0, "detach gave %p/%d, expected MPI_BUFFER_AUTOMATIC/0",
                 back, n);
    }

    /* 3: the large-count forms, an automatic buffer on a communicator, and
     * MPI_Comm_free of a communicator whose buffer still holds a message. */
    if (rank == 0) {
        LC_MPI(MPI_Comm_attach_buffer_c(dup, buf, (MPI_Count)size));
        send_pattern(dup, 10, LEN);
        LC_MPI(MPI_Comm_attach_buffer(dup2, MPI_BUFFER_AUTOMATIC, 0));
        send_pattern(dup2, 11, BIG);
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        recv_check(dup, 10, LEN);
        recv_check(dup2, 11, BIG);
    }
    if (rank == 0) {
        LC_MPI(MPI_Comm_detach_buffer_c(dup, &back, &nc));
        LC_CHECK(back == buf && nc == size, "detach_c gave %p/%lld", back, (long long)nc);
    }
    LC_MPI(MPI_Comm_free(&dup2)); /* rank 0: the buffer goes with it */
    LC_MPI(MPI_Comm_free(&dup));

    rc = MPI_Comm_attach_buffer(MPI_COMM_NULL, buf, size);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_COMM, "attach to MPI_COMM_NULL: class %s", lc_class_name(lc_class_of(rc)));
    free(buf);
    return lc_finish();
}
#endif
