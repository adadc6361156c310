/* SPDX-License-Identifier: BSD-3-Clause */
/* truncate: a message longer than the posted receive is an error of
 * class MPI_ERR_TRUNCATE, returned (MPI_ERRORS_RETURN on the
 * communicator) by MPI_Recv, by MPI_Wait of an MPI_Irecv, and by
 * MPI_Waitall as MPI_ERR_IN_STATUS with the failing status's MPI_ERROR
 * set; the sender sees success; eager and rendezvous sizes; afterwards
 * communication goes on normally. */
#include "lc_test.h"

static const int sizes[] = {4, 2000, 100000}; /* ints */
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static void check_trunc(int rc, const char *how, int n)
{
    int cls = lc_class_of(rc);
    LC_CHECK(cls == MPI_ERR_TRUNCATE, "%s of %d ints into %d: returned %d, class %d (%s), "
             "expected MPI_ERR_TRUNCATE", how, n, n - 1, rc, cls, lc_class_name(cls));
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Comm comm;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    LC_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    /* MPICH 4.0.2 raises errors found in MPI_Wait/Waitall on
     * MPI_COMM_WORLD's handler instead of the request's communicator:
     * set it on both so the test is valid on MPICH as well */
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    for (int k = 0; k < NSIZES; k++) {
        int n = sizes[k];
        int32_t *sbuf = lc_malloc(sizeof(int32_t) * (size_t)n);
        int32_t *rbuf = lc_malloc(sizeof(int32_t) * (size_t)n);
        for (int i = 0; i < n; i++)
            sbuf[i] = lc_pattern(rank, k, i);
        MPI_Request sreq, reqs[2];
        MPI_Status st, sts[2];

        /* 1: blocking receive */
        LC_MPI(MPI_Isend(sbuf, n, MPI_INT, next, 1, comm, &sreq));
        int rc = MPI_Recv(rbuf, n - 1, MPI_INT, prev, 1, comm, &st);
        check_trunc(rc, "MPI_Recv", n);
        rc = MPI_Wait(&sreq, &st);
        LC_CHECK(rc == MPI_SUCCESS, "sender of truncated message (%d ints) got error %d", n, rc);

        /* 2: Irecv + Wait */
        LC_MPI(MPI_Isend(sbuf, n, MPI_INT, next, 2, comm, &sreq));
        LC_MPI(MPI_Irecv(rbuf, n - 1, MPI_INT, prev, 2, comm, &reqs[0]));
        rc = MPI_Wait(&reqs[0], &st);
        check_trunc(rc, "MPI_Irecv+MPI_Wait", n);
        LC_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

        /* 3: Waitall with one good and one truncated receive */
        int32_t small = -1;
        int32_t one = lc_pattern(rank, k, 999);
        MPI_Request sreq2;
        LC_MPI(MPI_Isend(&one, 1, MPI_INT, next, 3, comm, &sreq2));
        LC_MPI(MPI_Isend(sbuf, n, MPI_INT, next, 4, comm, &sreq));
        LC_MPI(MPI_Irecv(&small, 1, MPI_INT, prev, 3, comm, &reqs[0]));
        LC_MPI(MPI_Irecv(rbuf, n - 1, MPI_INT, prev, 4, comm, &reqs[1]));
        sts[0].MPI_ERROR = sts[1].MPI_ERROR = -12345;
        rc = MPI_Waitall(2, reqs, sts);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_IN_STATUS,
                 "MPI_Waitall with a truncated receive returned class %d (%s), expected "
                 "MPI_ERR_IN_STATUS", lc_class_of(rc), lc_class_name(lc_class_of(rc)));
        LC_CHECK(sts[0].MPI_ERROR == MPI_SUCCESS, "Waitall: good receive has MPI_ERROR %d",
                 sts[0].MPI_ERROR);
        LC_CHECK(lc_class_of(sts[1].MPI_ERROR) == MPI_ERR_TRUNCATE,
                 "Waitall: truncated receive has MPI_ERROR %d (class %s)", sts[1].MPI_ERROR,
                 lc_class_name(lc_class_of(sts[1].MPI_ERROR)));
        LC_CHECK(small == lc_pattern(prev, k, 999), "Waitall: good receive got %d, expected %d",
                 small, lc_pattern(prev, k, 999));
        LC_MPI(MPI_Wait(&sreq2, MPI_STATUS_IGNORE));
        LC_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

        /* 4: the same exchange with room for it works */
        LC_MPI(MPI_Sendrecv(sbuf, n, MPI_INT, next, 5, rbuf, n, MPI_INT, prev, 5, comm, &st));
        for (int i = 0; i < n; i++)
            if (rbuf[i] != lc_pattern(prev, k, i)) {
                LC_CHECK(0, "exchange after truncation: int %d is %d, expected %d", i, rbuf[i],
                         lc_pattern(prev, k, i));
                break;
            }
        free(sbuf);
        free(rbuf);
    }
    LC_MPI(MPI_Comm_free(&comm));
    return lc_finish();
}
