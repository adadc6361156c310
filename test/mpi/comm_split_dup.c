/* SPDX-License-Identifier: BSD-3-Clause */
/* comm_split_dup: communicator management.
 *  - MPI_Comm_dup: same size/rank order, MPI_CONGRUENT to its parent;
 *    traffic on the dup is isolated from the parent (same source/tag on
 *    both, each receive gets its own communicator's message, also with
 *    ANY_SOURCE/ANY_TAG);
 *  - MPI_Comm_split by color rank%2 and rank%3 (odd sizes), keys that
 *    reverse the order, equal keys (ties broken by parent rank), and
 *    MPI_UNDEFINED color giving MPI_COMM_NULL;
 *  - MPI_Comm_compare: MPI_IDENT for the same handle, MPI_CONGRUENT for
 *    a dup, MPI_SIMILAR for a reordered full split, MPI_UNEQUAL for a
 *    smaller one; MPI_Comm_free sets MPI_COMM_NULL; repeated
 *    dup/free cycles do not run out of context ids. */
#include "lc_test.h"

static void check_member(MPI_Comm c, int want_rank, int want_size, const char *what)
{
    int r = -1, s = -1;
    LC_MPI(MPI_Comm_rank(c, &r));
    LC_MPI(MPI_Comm_size(c, &s));
    LC_CHECK(r == want_rank && s == want_size, "%s: rank %d size %d, expected %d %d", what, r, s,
             want_rank, want_size);
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    int result = -1;

    LC_MPI(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result));
    LC_CHECK(result == MPI_IDENT, "compare(WORLD, WORLD) = %d, expected MPI_IDENT", result);

    /* dup */
    MPI_Comm dup;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    check_member(dup, rank, size, "dup of WORLD");
    LC_MPI(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
    LC_CHECK(result == MPI_CONGRUENT, "compare(WORLD, dup) = %d, expected MPI_CONGRUENT", result);
    if (size == 1) {
        LC_MPI(MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &result));
        LC_CHECK(result == MPI_CONGRUENT, "compare(SELF, WORLD) on 1 rank = %d, expected "
                 "MPI_CONGRUENT", result);
    } else {
        LC_MPI(MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &result));
        LC_CHECK(result == MPI_UNEQUAL, "compare(SELF, WORLD) = %d, expected MPI_UNEQUAL", result);
    }

    /* isolation: send the same envelope on dup first, then on WORLD;
     * receive WORLD's first */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int a = lc_pattern(rank, 1, 0), b = lc_pattern(rank, 2, 0), ra = -1, rb = -1;
    MPI_Request sreq[2];
    MPI_Status st;
    LC_MPI(MPI_Isend(&a, 1, MPI_INT, next, 5, dup, &sreq[0]));
    LC_MPI(MPI_Isend(&b, 1, MPI_INT, next, 5, MPI_COMM_WORLD, &sreq[1]));
    LC_MPI(MPI_Recv(&rb, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    LC_MPI(MPI_Recv(&ra, 1, MPI_INT, prev, 5, dup, &st));
    LC_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));
    LC_CHECK(rb == lc_pattern(prev, 2, 0) && ra == lc_pattern(prev, 1, 0),
             "dup isolation: WORLD got %d (want %d), dup got %d (want %d)", rb,
             lc_pattern(prev, 2, 0), ra, lc_pattern(prev, 1, 0));

    /* splits */
    for (int mod = 2; mod <= 3; mod++) {
        int color = rank % mod;
        int members = (size - color + mod - 1) / mod; /* ranks r < size with r%mod == color */
        MPI_Comm s;
        /* key = -rank: reversed order within the color */
        LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &s));
        int pos = 0; /* how many members have a larger world rank */
        for (int r = rank + mod; r < size; r += mod)
            pos++;
        check_member(s, pos, members, mod == 2 ? "split rank%2 reversed" : "split rank%3 reversed");
        /* exchange within the split: the sum of world ranks of members */
        int sum = -1, want = 0;
        for (int r = color; r < size; r += mod)
            want += r;
        LC_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, s));
        LC_CHECK(sum == want, "split mod %d color %d: members' world ranks sum to %d, expected %d",
                 mod, color, sum, want);
        LC_MPI(MPI_Comm_compare(s, MPI_COMM_WORLD, &result));
        LC_CHECK(result == (members == size ? (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR)
                                            : MPI_UNEQUAL),
                 "compare(split mod %d, WORLD) = %d", mod, result);
        LC_MPI(MPI_Comm_free(&s));
        LC_CHECK(s == MPI_COMM_NULL, "MPI_Comm_free did not set MPI_COMM_NULL");
    }

    /* one color, all keys equal: order of the parent */
    MPI_Comm same;
    LC_MPI(MPI_Comm_split(dup, 7, 0, &same));
    check_member(same, rank, size, "split with equal keys");
    LC_MPI(MPI_Comm_compare(same, MPI_COMM_WORLD, &result));
    LC_CHECK(result == MPI_CONGRUENT, "compare(split same order, WORLD) = %d, expected "
             "MPI_CONGRUENT", result);
    /* fully reversed: similar (when more than one rank) */
    MPI_Comm rev;
    LC_MPI(MPI_Comm_split(same, 0, size - rank, &rev));
    check_member(rev, size - 1 - rank, size, "reversed split");
    LC_MPI(MPI_Comm_compare(rev, same, &result));
    LC_CHECK(result == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR),
             "compare(reversed, same) = %d", result);

    /* MPI_UNDEFINED color: odd ranks get MPI_COMM_NULL */
    MPI_Comm half;
    LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : 1, rank, &half));
    if (rank % 2) {
        LC_CHECK(half == MPI_COMM_NULL, "MPI_UNDEFINED color did not give MPI_COMM_NULL");
    } else {
        check_member(half, rank / 2, (size + 1) / 2, "split of even ranks");
        LC_MPI(MPI_Barrier(half));
        LC_MPI(MPI_Comm_free(&half));
    }

    /* point-to-point inside the reversed communicator uses its ranks */
    {
        int rr, rs;
        LC_MPI(MPI_Comm_rank(rev, &rr));
        LC_MPI(MPI_Comm_size(rev, &rs));
        int out = rank, in = -1;
        LC_MPI(MPI_Sendrecv(&out, 1, MPI_INT, (rr + 1) % rs, 0, &in, 1, MPI_INT,
                            (rr + rs - 1) % rs, 0, rev, &st));
        /* comm rank rr-1 in rev is world rank size-1-(rr-1) = rank+1 */
        int want = (rank + 1) % size;
        LC_CHECK(in == want && st.MPI_SOURCE == (rr + rs - 1) % rs,
                 "reversed comm: from comm rank %d got world rank %d, expected %d",
                 st.MPI_SOURCE, in, want);
    }
    LC_MPI(MPI_Comm_free(&rev));
    LC_MPI(MPI_Comm_free(&same));

    /* many dup/free cycles: context ids are recycled */
    for (int i = 0; i < 100; i++) {
        MPI_Comm t;
        LC_MPI(MPI_Comm_dup(dup, &t));
        LC_MPI(MPI_Comm_free(&t));
    }
    /* and many alive at once */
    enum { NALIVE = 40 };
    MPI_Comm alive[NALIVE];
    for (int i = 0; i < NALIVE; i++)
        LC_MPI(MPI_Comm_dup(i ? alive[i - 1] : MPI_COMM_WORLD, &alive[i]));
    int tot = -1;
    LC_MPI(MPI_Allreduce(&rank, &tot, 1, MPI_INT, MPI_SUM, alive[NALIVE - 1]));
    LC_CHECK(tot == size * (size - 1) / 2, "Allreduce on the 40th nested dup gave %d", tot);
    for (int i = NALIVE - 1; i >= 0; i--)
        LC_MPI(MPI_Comm_free(&alive[i]));
    LC_MPI(MPI_Comm_free(&dup));
    return lc_finish();
}
