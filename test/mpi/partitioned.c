/* SPDX-License-Identifier: BSD-3-Clause */
/* partitioned: MPI 4.1 partitioned communication (MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready, MPI_Pready_range, MPI_Pready_list,
 * MPI_Parrived) around a ring: several rounds with new data, partitions
 * readied in reverse, pseudo-random and range/list order, the two sides
 * partitioned differently (also across item boundaries of a derived
 * receive type), eager and rendezvous sizes, each receive partition
 * checked as soon as Parrived says it arrived, Waitall over several
 * partitioned requests mixed with ordinary ones, matching in order of
 * initialization, no interference with a wildcard receive on the same
 * communicator, MPI_PROC_NULL peers, and the error classes. */
#include "lc_test.h"

#include <stdlib.h>
#include <string.h>

#define ROUNDS 4

static int rank, size, next, prev;

static int32_t value(int src, int round, long i)
{
    return lc_pattern(src, round * 7 + 1, i);
}

/* Ready the `parts` partitions of req in an order chosen by `how`. */
static void ready_all(MPI_Request req, int parts, int how, int round)
{
    if (how == 0) { /* reverse, one by one */
        for (int p = parts - 1; p >= 0; p--) LC_MPI(MPI_Pready(p, req));
    } else if (how == 1) { /* a pseudo-random permutation */
        int *perm = lc_malloc(sizeof(int) * (size_t)parts);
        for (int p = 0; p < parts; p++) perm[p] = p;
        unsigned s = 12345u + (unsigned)round * 77u + (unsigned)rank;
        for (int p = parts - 1; p > 0; p--) {
            s = s * 1103515245u + 12345u;
            int q = (int)((s >> 8) % (unsigned)(p + 1)), t = perm[p];
            perm[p] = perm[q];
            perm[q] = t;
        }
        for (int p = 0; p < parts; p++) LC_MPI(MPI_Pready(perm[p], req));
        free(perm);
    } else { /* the upper half as a range, the rest as a list (reverse) */
        int half = parts / 2;
        if (half < parts) LC_MPI(MPI_Pready_range(half, parts - 1, req));
        if (half > 0) {
            int *list = lc_malloc(sizeof(int) * (size_t)half);
            for (int k = 0; k < half; k++) list[k] = half - 1 - k;
            LC_MPI(MPI_Pready_list(half, list, req));
            free(list);
        }
    }
}

/* A ring exchange of `total` ints: sent as sparts x scount, received as
 * rparts x rcount items of rtype (rper ints per item; MPI_INT: 1).  The
 * sender's buffer is every other int when `strided` (a resized type). */
static void ring(int sparts, int scount, int rparts, int rcount, MPI_Datatype rtype, int rper, int rstride, int strided)
{
    long total = (long)sparts * scount;
    if ((long)rparts * rcount * rper != total) LC_FATAL("bad test configuration");
    int32_t *sbuf = lc_malloc(sizeof(int32_t) * (size_t)(total * 2 + 1));
    int32_t *rbuf = lc_malloc(sizeof(int32_t) * (size_t)(total * rstride + 1));
    MPI_Datatype stype = MPI_INT;
    if (strided) {
        LC_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int32_t), &stype));
        LC_MPI(MPI_Type_commit(&stype));
    }
    MPI_Request req[2];
    LC_MPI(MPI_Precv_init(rbuf, rparts, rcount, rtype, prev, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
    LC_MPI(MPI_Psend_init(sbuf, sparts, scount, stype, next, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
    /* a derived type may be freed at once: the requests keep it */
    if (strided) LC_MPI(MPI_Type_free(&stype));
    int *seen = lc_malloc(sizeof(int) * (size_t)rparts);
    for (int round = 0; round < ROUNDS; round++) {
        for (long i = 0; i < total; i++) sbuf[strided ? 2 * i : i] = value(rank, round, i);
        for (long i = 0; i < total * rstride; i++) rbuf[i] = -1;
        LC_MPI(MPI_Startall(2, req));
        ready_all(req[1], sparts, round % 3, round);
        /* poll the receive partitions; check each as soon as it arrived */
        memset(seen, 0, sizeof(int) * (size_t)rparts);
        for (int left = rparts; left > 0;) {
            if (lc_library_is_mpich()) { /* MPICH 4.0's Parrived makes no progress (README) */
                int f;
                LC_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 32000, MPI_COMM_SELF, &f, MPI_STATUS_IGNORE));
            }
            for (int p = 0; p < rparts; p++) {
                int flag = 0;
                if (seen[p]) continue;
                LC_MPI(MPI_Parrived(req[0], p, &flag));
                if (!flag) continue;
                seen[p] = 1;
                left--;
                for (long k = 0; k < (long)rcount * rper; k++) {
                    long i = (long)p * rcount * rper + k;                                /* packed index */
                    long at = rstride == 1 ? i : (i / rper) * rper * 2 + (i % rper) * 2; /* see rtype */
                    if (rbuf[at] != value(prev, round, i)) {
                        LC_CHECK(0, "round %d (%dx%d -> %dx%d): int %ld of partition %d is %d, expected %d", round,
                                 sparts, scount, rparts, rcount, i, p, rbuf[at], value(prev, round, i));
                        break;
                    }
                }
            }
        }
        MPI_Status st[2];
        LC_MPI(MPI_Waitall(2, req, st));
        int n = -1;
        LC_MPI(MPI_Get_count(&st[0], MPI_INT, &n));
        LC_CHECK(st[0].MPI_SOURCE == prev && st[0].MPI_TAG == 5 && n == total,
                 "round %d: receive status source %d tag %d count %d", round, st[0].MPI_SOURCE, st[0].MPI_TAG, n);
        LC_CHECK(req[0] != MPI_REQUEST_NULL && req[1] != MPI_REQUEST_NULL, "Waitall freed a partitioned request");
    }
    LC_MPI(MPI_Request_free(&req[0]));
    LC_MPI(MPI_Request_free(&req[1]));
    free(seen);
    free(sbuf);
    free(rbuf);
}

/* Two pairs with the same (peer, tag) match in order of initialization;
 * three partitioned receives complete in one Waitall with an ordinary
 * receive; a wildcard receive posted before sees none of it. */
static void matching(void)
{
    enum { P = 3, C = 40 };
    int32_t s[3][P * C], r[3][P * C], wild = -1, one = 4242;
    MPI_Request req[8];
    MPI_Comm comm;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    /* MPICH 4.0's wildcard receive takes its partitioned traffic (README) */
    int wildcard = !lc_library_is_mpich();
    req[6] = MPI_REQUEST_NULL;
    if (wildcard) LC_MPI(MPI_Irecv(&wild, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &req[6]));
    for (int k = 0; k < 3; k++) {
        int tag = k < 2 ? 9 : 10; /* pairs 0 and 1 share a tag */
        LC_MPI(MPI_Precv_init(r[k], P, C, MPI_INT, prev, tag, comm, MPI_INFO_NULL, &req[k]));
    }
    for (int k = 0; k < 3; k++) {
        int tag = k < 2 ? 9 : 10;
        LC_MPI(MPI_Psend_init(s[k], P, C, MPI_INT, next, tag, comm, MPI_INFO_NULL, &req[3 + k]));
    }
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < P * C; i++) {
                s[k][i] = value(rank, round + 10 * k, i);
                r[k][i] = -1;
            }
        /* start the second pair first on both sides: matching is by init order */
        for (int k = 2; k >= 0; k--) LC_MPI(MPI_Start(&req[k]));
        for (int k = 2; k >= 0; k--) LC_MPI(MPI_Start(&req[3 + k]));
        for (int k = 2; k >= 0; k--) LC_MPI(MPI_Pready_range(0, P - 1, req[3 + k]));
        LC_MPI(MPI_Irecv(&one, 1, MPI_INT, prev, 11, MPI_COMM_WORLD, &req[7])); /* not comm: the wildcard */
        LC_MPI(MPI_Send(&rank, 1, MPI_INT, next, 11, MPI_COMM_WORLD));
        MPI_Request all[7] = { req[0], req[1], req[2], req[3], req[4], req[5], req[7] };
        LC_MPI(MPI_Waitall(7, all, MPI_STATUSES_IGNORE));
        LC_CHECK(one == prev, "ordinary message mixed with partitioned ones: got %d", one);
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < P * C; i++)
                if (r[k][i] != value(prev, round + 10 * k, i)) {
                    LC_CHECK(0, "pair %d round %d: int %d is %d, expected %d (init-order matching)", k, round, i,
                             r[k][i], value(prev, round + 10 * k, i));
                    break;
                }
    }
    if (wildcard) {
        int flag = 1;
        LC_MPI(MPI_Test(&req[6], &flag, MPI_STATUS_IGNORE));
        LC_CHECK(!flag, "a wildcard receive matched partitioned traffic (got %d)", wild);
        LC_MPI(MPI_Barrier(comm)); /* prev's message below comes after this Test */
        LC_MPI(MPI_Send(&rank, 1, MPI_INT, next, 12, comm));
        MPI_Status st;
        LC_MPI(MPI_Wait(&req[6], &st));
        LC_CHECK(wild == prev && st.MPI_TAG == 12, "wildcard receive got %d tag %d", wild, st.MPI_TAG);
    }
    for (int k = 0; k < 6; k++) LC_MPI(MPI_Request_free(&req[k]));
    LC_MPI(MPI_Comm_free(&comm));
}

static void procnull(void)
{
    int32_t buf[8] = { 0 };
    MPI_Request req[2];
    LC_MPI(MPI_Psend_init(buf, 2, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
    LC_MPI(MPI_Precv_init(buf, 4, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
    for (int round = 0; round < 2; round++) {
        LC_MPI(MPI_Startall(2, req));
        for (int p = 0; p < 4; p++) {
            int flag = 0;
            LC_MPI(MPI_Parrived(req[1], p, &flag));
            LC_CHECK(flag, "MPI_Parrived from MPI_PROC_NULL gave false");
        }
        LC_MPI(MPI_Pready_range(0, 1, req[0]));
        MPI_Status st;
        LC_MPI(MPI_Wait(&req[1], &st));
        if (!lc_library_is_mpich()) /* see README: MPICH's PROC_NULL statuses */
            LC_CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "receive from MPI_PROC_NULL: source %d", st.MPI_SOURCE);
        LC_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    }
    LC_MPI(MPI_Request_free(&req[0]));
    LC_MPI(MPI_Request_free(&req[1]));
}

#define EXPECT_CLASS(call, cls)                                                                                        \
    do {                                                                                                               \
        int rc_ = (call);                                                                                              \
        LC_CHECK(lc_class_of(rc_) == (cls), "%s gave %s, expected %s", #call, lc_class_name(lc_class_of(rc_)),         \
                 lc_class_name(cls));                                                                                  \
    } while (0)

static void errors(void)
{
    int32_t buf[16];
    MPI_Comm comm;
    MPI_Request sreq, rreq, bad;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    LC_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Datatype uncommitted;
    LC_MPI(MPI_Type_contiguous(2, MPI_INT, &uncommitted));

    EXPECT_CLASS(MPI_Precv_init(buf, 2, 4, MPI_INT, MPI_ANY_SOURCE, 0, comm, MPI_INFO_NULL, &bad), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Precv_init(buf, 2, 4, MPI_INT, prev, MPI_ANY_TAG, comm, MPI_INFO_NULL, &bad), MPI_ERR_TAG);
    EXPECT_CLASS(MPI_Psend_init(buf, 2, 4, MPI_INT, size, 0, comm, MPI_INFO_NULL, &bad), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Psend_init(buf, 2, 4, MPI_INT, next, -5, comm, MPI_INFO_NULL, &bad), MPI_ERR_TAG);
    EXPECT_CLASS(MPI_Psend_init(buf, 2, 4, uncommitted, next, 0, comm, MPI_INFO_NULL, &bad), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Psend_init(buf, 2, -1, MPI_INT, next, 0, comm, MPI_INFO_NULL, &bad), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Psend_init(buf, 2, 4, MPI_INT, next, 0, MPI_COMM_NULL, MPI_INFO_NULL, &bad), MPI_ERR_COMM);

    LC_MPI(MPI_Precv_init(buf, 2, 4, MPI_INT, prev, 3, comm, MPI_INFO_NULL, &rreq));
    LC_MPI(MPI_Psend_init(buf + 8, 2, 4, MPI_INT, next, 3, comm, MPI_INFO_NULL, &sreq));
    /* inactive: Pready is an error */
    int cls = lc_class_of(MPI_Pready(0, sreq));
    LC_CHECK(cls != MPI_SUCCESS, "MPI_Pready on an inactive request succeeded");
    LC_MPI(MPI_Start(&rreq));
    LC_MPI(MPI_Start(&sreq));
    int flag;
    cls = lc_class_of(MPI_Pready(2, sreq));
    LC_CHECK(cls != MPI_SUCCESS, "MPI_Pready of partition 2 of 2 succeeded");
    cls = lc_class_of(MPI_Pready(-1, sreq));
    LC_CHECK(cls != MPI_SUCCESS, "MPI_Pready of partition -1 succeeded");
    cls = lc_class_of(MPI_Pready_range(0, 5, sreq));
    LC_CHECK(cls != MPI_SUCCESS, "MPI_Pready_range(0, 5) of 2 partitions succeeded");
    if (!lc_library_is_mpich()) { /* MPICH 4.0 does not check these */
        cls = lc_class_of(MPI_Parrived(rreq, 2, &flag));
        LC_CHECK(cls != MPI_SUCCESS, "MPI_Parrived of partition 2 of 2 succeeded");
        cls = lc_class_of(MPI_Parrived(sreq, 0, &flag));
        LC_CHECK(cls == MPI_ERR_REQUEST, "MPI_Parrived on a send request gave %s", lc_class_name(cls));
        cls = lc_class_of(MPI_Pready(0, rreq));
        LC_CHECK(cls == MPI_ERR_REQUEST, "MPI_Pready on a receive request gave %s", lc_class_name(cls));
    }
    LC_MPI(MPI_Pready_range(0, 1, sreq));
    LC_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    LC_MPI(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    LC_MPI(MPI_Request_free(&sreq));
    LC_MPI(MPI_Request_free(&rreq));
    LC_MPI(MPI_Type_free(&uncommitted));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    LC_MPI(MPI_Comm_free(&comm));
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    rank = lc_world_rank();
    size = lc_world_size();
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;

    ring(4, 250, 4, 250, MPI_INT, 1, 1, 0);     /* same partitions */
    ring(8, 125, 2, 500, MPI_INT, 1, 1, 0);     /* several send partitions per receive partition */
    ring(2, 500, 8, 125, MPI_INT, 1, 1, 0);     /* the other way */
    ring(3, 7, 7, 3, MPI_INT, 1, 1, 0);         /* partitions that straddle */
    ring(4, 30000, 3, 40000, MPI_INT, 1, 1, 0); /* rendezvous-sized partitions */
    ring(4, 250, 5, 200, MPI_INT, 1, 1, 1);     /* a strided (derived) send type */
    MPI_Datatype v3;                            /* 3 ints, every other one: not dense, 12 bytes */
    LC_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &v3));
    MPI_Datatype v3r;
    LC_MPI(MPI_Type_create_resized(v3, 0, 6 * sizeof(int32_t), &v3r));
    LC_MPI(MPI_Type_commit(&v3r));
    ring(6, 10, 4, 5, v3r, 3, 2, 0);          /* receive items straddle send partitions */
    ring(5, 3000, 5, 3000, MPI_INT, 1, 1, 1); /* derived send, rendezvous-sized */
    if (!lc_library_is_mpich())               /* MPICH 4.0 hangs on it (README) */
        ring(5, 3000, 2, 2500, v3r, 3, 2, 1); /* both derived, rendezvous-sized */
    LC_MPI(MPI_Type_free(&v3r));
    LC_MPI(MPI_Type_free(&v3));
    matching();
    if (!lc_library_is_mpich()) procnull(); /* MPICH 4.0 crashes in MPI_Psend_init to PROC_NULL (README) */
    errors();
    return lc_finish();
}
