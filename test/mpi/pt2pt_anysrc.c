/* SPDX-License-Identifier: BSD-3-Clause */
/* pt2pt_anysrc: MPI_ANY_SOURCE and MPI_ANY_TAG receives.  With every
 * rank in turn as the root, all other ranks send NMSG messages to it;
 * the root receives them with ANY_SOURCE (blocking, then pre-posted
 * Irecvs, then ANY_SOURCE with a specific tag) and checks that
 * status.MPI_SOURCE/MPI_TAG name the real sender and tag, the count is
 * right, and each sender's messages arrive in the order sent. */
#include "lc_test.h"

#define NMSG 20

/* message k of src: (k%3)+1 ints, tag k%4 */
static int msg_ints(int k) { return k % 3 + 1; }
static int msg_tag(int k) { return k % 4; }

static void check_msg(const int32_t *buf, const MPI_Status *st, int *next, const char *how)
{
    int src = st->MPI_SOURCE, size = lc_world_size();
    if (src < 0 || src >= size) {
        LC_CHECK(0, "%s: status.MPI_SOURCE %d is not a rank", how, src);
        return;
    }
    int k = next[src]++;
    int count = -1;
    MPI_Get_count(st, MPI_INT, &count);
    LC_CHECK(count == msg_ints(k), "%s: message %d of rank %d has %d ints, expected %d", how, k,
             src, count, msg_ints(k));
    LC_CHECK(st->MPI_TAG == msg_tag(k), "%s: message %d of rank %d has tag %d, expected %d", how,
             k, src, st->MPI_TAG, msg_tag(k));
    for (int i = 0; i < count && i < msg_ints(k); i++)
        LC_CHECK(buf[i] == lc_pattern(src, k, i),
                 "%s: message %d of rank %d int %d is %d, expected %d (out of order?)", how, k,
                 src, i, buf[i], lc_pattern(src, k, i));
}

static void send_all(int root, int rank)
{
    for (int k = 0; k < NMSG; k++) {
        int32_t buf[3];
        for (int i = 0; i < msg_ints(k); i++)
            buf[i] = lc_pattern(rank, k, i);
        LC_MPI(MPI_Send(buf, msg_ints(k), MPI_INT, root, msg_tag(k), MPI_COMM_WORLD));
    }
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    int *next = lc_malloc(sizeof(int) * (size_t)size);

    for (int root = 0; root < size; root++) {
        int nsenders = size - 1;
        /* 1: blocking ANY_SOURCE/ANY_TAG */
        if (rank == root) {
            memset(next, 0, sizeof(int) * (size_t)size);
            for (int m = 0; m < nsenders * NMSG; m++) {
                int32_t buf[3];
                MPI_Status st;
                LC_MPI(MPI_Recv(buf, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                check_msg(buf, &st, next, "Recv ANY_SOURCE ANY_TAG");
            }
            for (int s = 0; s < size; s++)
                LC_CHECK(next[s] == (s == root ? 0 : NMSG), "root %d got %d messages from %d",
                         root, next[s], s);
        } else {
            send_all(root, rank);
        }

        /* 2: pre-posted ANY_SOURCE Irecvs (posted before any send: the
         * barrier orders them), completed with Waitall */
        int32_t(*bufs)[3] = lc_malloc(sizeof *bufs * (size_t)(nsenders * NMSG + 1));
        MPI_Request *reqs = lc_malloc(sizeof *reqs * (size_t)(nsenders * NMSG + 1));
        MPI_Status *sts = lc_malloc(sizeof *sts * (size_t)(nsenders * NMSG + 1));
        if (rank == root)
            for (int m = 0; m < nsenders * NMSG; m++)
                LC_MPI(MPI_Irecv(bufs[m], 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                                 &reqs[m]));
        LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == root) {
            LC_MPI(MPI_Waitall(nsenders * NMSG, reqs, sts));
            memset(next, 0, sizeof(int) * (size_t)size);
            for (int m = 0; m < nsenders * NMSG; m++)
                check_msg(bufs[m], &sts[m], next, "pre-posted Irecv ANY_SOURCE");
        } else {
            send_all(root, rank);
        }
        /* a fast sender's next messages must not meet these receives */
        LC_MPI(MPI_Barrier(MPI_COMM_WORLD));

        /* 3: ANY_SOURCE with a specific tag: tags 0..3 in turn; each
         * sender's messages with one tag still arrive in order */
        if (rank == root) {
            int got = 0;
            for (int tag = 0; tag < 4; tag++)
                for (int m = 0; m < nsenders * (NMSG / 4); m++) {
                    MPI_Status st;
                    LC_MPI(MPI_Recv(bufs[got], 3, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st));
                    LC_CHECK(st.MPI_TAG == tag, "ANY_SOURCE tag %d: got tag %d", tag, st.MPI_TAG);
                    sts[got++] = st;
                }
            /* per source and tag, the k-th message has k = 4*i + tag */
            int *seen = lc_malloc(sizeof(int) * (size_t)size * 4);
            memset(seen, 0, sizeof(int) * (size_t)size * 4);
            for (int m = 0; m < got; m++) {
                int src = sts[m].MPI_SOURCE, tag = sts[m].MPI_TAG;
                if (src < 0 || src >= size || tag < 0 || tag > 3) {
                    LC_CHECK(0, "ANY_SOURCE by tag: bad status source %d tag %d", src, tag);
                    continue;
                }
                int k = 4 * seen[src * 4 + tag]++ + tag;
                LC_CHECK(bufs[m][0] == lc_pattern(src, k, 0),
                         "ANY_SOURCE tag %d: message from %d out of order (expected message %d)",
                         tag, src, k);
            }
            free(seen);
        } else {
            send_all(root, rank);
        }
        free(bufs);
        free(reqs);
        free(sts);
        LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }

    /* a rank's message to itself is found by ANY_SOURCE too */
    {
        int32_t out = lc_pattern(rank, 0, 0), in = 0;
        MPI_Request req;
        MPI_Status st;
        LC_MPI(MPI_Isend(&out, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &req));
        LC_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        LC_CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == 9 && in == out,
                 "self message via ANY_SOURCE: source %d tag %d value %d", st.MPI_SOURCE,
                 st.MPI_TAG, in);
    }
    free(next);
    return lc_finish();
}
