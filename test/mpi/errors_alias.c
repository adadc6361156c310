/* SPDX-License-Identifier: BSD-3-Clause */
/* errors_alias: a collective whose send and receive buffers overlap
 * (without MPI_IN_PLACE) returns MPI_ERR_BUFFER under MPI_ERRORS_RETURN
 * (issue 12, point 5), and buffers that share no byte are accepted even
 * when they sit side by side in one array or interleave through strided
 * datatypes.  Each refused call runs on MPI_COMM_SELF (or where every rank
 * refuses it), so no rank is left waiting in a collective.  MPICH 4.0.2
 * checks only some of these cases (the same start address, a gather's own
 * block, alltoallv/w): on MPICH the others are skipped (it checks no
 * neighbourhood or intercommunicator collective, nor partial overlaps).
 * Intercommunicator reduce_scatter(_block) is the exception to "refused
 * before anything moves": it completes, then reports the overlap. */
#include "lc_test.h"

static void expect(int rc, int cls_want, const char *call, int line)
{
    int cls = lc_class_of(rc);
    if (cls != cls_want)
        lc_fail_at(__FILE__, line, "%s returned class %s, expected %s", call, lc_class_name(cls),
                   lc_class_name(cls_want));
}
#define EXPECT(call, cls) expect((call), (cls), #call, __LINE__)
#define REFUSED(call) EXPECT(call, MPI_ERR_BUFFER)
#define ACCEPTED(call) EXPECT(call, MPI_SUCCESS)

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    int full = !lc_library_is_mpich(); /* see the top */
    MPI_Comm self = MPI_COMM_SELF, w = MPI_COMM_WORLD;
    LC_MPI(MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN));
    enum { N = 8 };
    int a[4 * N], one = 1;
    for (int i = 0; i < 4 * N; i++) a[i] = i;

    /* The same start address: refused everywhere (MPICH too). */
    REFUSED(MPI_Allreduce(a, a, N, MPI_INT, MPI_SUM, self));
    REFUSED(MPI_Reduce(a, a, N, MPI_INT, MPI_SUM, 0, self));
    REFUSED(MPI_Scan(a, a, N, MPI_INT, MPI_SUM, self));
    REFUSED(MPI_Alltoall(a, N, MPI_INT, a, N, MPI_INT, self));
    REFUSED(MPI_Gather(a, N, MPI_INT, a, N, MPI_INT, 0, self));   /* the root's own block */
    REFUSED(MPI_Allgather(a, N, MPI_INT, a, N, MPI_INT, self));
    {
        int cnt[1] = { N }, dsp[1] = { 0 };
        MPI_Datatype ti[1] = { MPI_INT };
        REFUSED(MPI_Alltoallv(a, cnt, dsp, MPI_INT, a, cnt, dsp, MPI_INT, self));
        REFUSED(MPI_Alltoallw(a, cnt, dsp, ti, a, cnt, dsp, ti, self));
    }
    /* Count 0: no byte in common. */
    ACCEPTED(MPI_Allreduce(a, a, 0, MPI_INT, MPI_SUM, self));

    if (full) {
        /* Partial overlap. */
        REFUSED(MPI_Allreduce(a, a + 1, N, MPI_INT, MPI_SUM, self));
        REFUSED(MPI_Allreduce(a + N - 1, a, N, MPI_INT, MPI_SUM, self));
        REFUSED(MPI_Reduce(a, a + 3, N, MPI_INT, MPI_MAX, 0, self));
        REFUSED(MPI_Exscan(a, a + 2, N, MPI_INT, MPI_SUM, w)); /* every rank refuses */
        REFUSED(MPI_Reduce_scatter_block(a, a + N / 2, N, MPI_INT, MPI_SUM, self));
        REFUSED(MPI_Alltoall(a, N, MPI_INT, a + N / 2, N, MPI_INT, self));
        REFUSED(MPI_Scatter(a, N, MPI_INT, a + 1, N, MPI_INT, 0, self));
        /* Bytes, not elements: a char buffer starting in the last byte of an int one. */
        REFUSED(MPI_Alltoall(a, N, MPI_INT, (char *)a + sizeof(int) * N - 1, (int)sizeof(int) * N, MPI_CHAR, self));
        /* The common mistake: my block of an allgather as sendbuf. */
        {
            int *g = malloc(sizeof(int) * (size_t)(N * size));
            REFUSED(MPI_Allgather(g + N * rank, N, MPI_INT, g, N, MPI_INT, w));
            free(g);
        }
        /* Vector collectives: a block against the other side's blocks. */
        int counts[1] = { N }, displs[1] = { 2 };
        REFUSED(MPI_Gatherv(a, N, MPI_INT, a + 4, counts, displs, MPI_INT, 0, self));
        REFUSED(MPI_Scatterv(a + 4, counts, displs, MPI_INT, a + 1, N, MPI_INT, 0, self));
        REFUSED(MPI_Allgatherv(a, N, MPI_INT, a + 4, counts, displs, MPI_INT, self));
        REFUSED(MPI_Reduce_scatter(a, a + 5, counts, MPI_INT, MPI_SUM, self));
        /* A contiguous derived type is checked like its elements. */
        MPI_Datatype pair;
        LC_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
        LC_MPI(MPI_Type_commit(&pair));
        REFUSED(MPI_Allreduce(a, a + 3, N / 2, pair, MPI_SUM, self));
        REFUSED(MPI_Alltoall(a, N / 2, pair, a + 3, N / 2, pair, self));
        LC_MPI(MPI_Type_free(&pair));
        /* Nonblocking and persistent collectives check the same way. */
        MPI_Request r = MPI_REQUEST_NULL;
        REFUSED(MPI_Iallreduce(a, a + 1, N, MPI_INT, MPI_SUM, self, &r));
        LC_CHECK(r == MPI_REQUEST_NULL, "a refused Iallreduce returned a request");
        REFUSED(MPI_Allreduce_init(a, a + 1, N, MPI_INT, MPI_SUM, self, MPI_INFO_NULL, &r));

        /* Alltoallv/w: blocks against blocks, from counts and displacements. */
        int sd[1] = { 0 }, rd[1] = { 2 }, bd[1] = { 2 * (int)sizeof(int) }, zero[1] = { 0 };
        MPI_Aint wsd[1] = { 0 }, wrd[1] = { 2 };
        MPI_Count wcounts[1] = { N };
        MPI_Datatype ti[1] = { MPI_INT };
        REFUSED(MPI_Alltoallv(a, counts, sd, MPI_INT, a, counts, rd, MPI_INT, self));
        REFUSED(MPI_Alltoallv_c(a, wcounts, wsd, MPI_INT, a, wcounts, wrd, MPI_INT, self));
        REFUSED(MPI_Ialltoallv(a, counts, sd, MPI_INT, a, counts, rd, MPI_INT, self, &r));
        LC_CHECK(r == MPI_REQUEST_NULL, "a refused Ialltoallv returned a request");
        REFUSED(MPI_Alltoallw(a, counts, sd, ti, a, counts, bd, ti, self));
        REFUSED(MPI_Alltoallw_init(a, counts, sd, ti, a, counts, bd, ti, self, MPI_INFO_NULL, &r));
        ACCEPTED(MPI_Alltoallv(a, zero, sd, MPI_INT, a, zero, rd, MPI_INT, self)); /* nothing moves */
        /* Neighbourhood collectives: a periodic ring of one rank has itself
         * twice as in- and out-neighbour (blocks at a, a+N; a+N, a+2N). */
        MPI_Comm ring, line;
        int dims[1] = { 1 }, per[1] = { 1 }, nper[1] = { 0 };
        LC_MPI(MPI_Cart_create(self, 1, dims, per, 0, &ring));
        LC_MPI(MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN));
        int c2[2] = { N, N }, d2[2] = { 0, N }, e2[2] = { N, 2 * N };
        MPI_Aint bd2[2] = { 0, N * (MPI_Aint)sizeof(int) }, be2[2] = { N * (MPI_Aint)sizeof(int), 0 };
        MPI_Datatype t2[2] = { MPI_INT, MPI_INT };
        REFUSED(MPI_Neighbor_alltoall(a, N, MPI_INT, a + N, N, MPI_INT, ring));
        REFUSED(MPI_Neighbor_allgather(a + N, N, MPI_INT, a, N, MPI_INT, ring));
        REFUSED(MPI_Neighbor_allgatherv(a + 1, N, MPI_INT, a, c2, e2, MPI_INT, ring));
        REFUSED(MPI_Neighbor_alltoallv(a, c2, d2, MPI_INT, a, c2, e2, MPI_INT, ring));
        REFUSED(MPI_Neighbor_alltoallw(a, c2, bd2, t2, a + N, c2, be2, t2, ring)); /* displacements out of order */
        REFUSED(MPI_Ineighbor_alltoall(a, N, MPI_INT, a + N, N, MPI_INT, ring, &r));
        LC_CHECK(r == MPI_REQUEST_NULL, "a refused Ineighbor_alltoall returned a request");
        REFUSED(MPI_Neighbor_alltoall_init(a, N, MPI_INT, a + N, N, MPI_INT, ring, MPI_INFO_NULL, &r));
        /* Apart: receive blocks after the send blocks, or interleaved. */
        ACCEPTED(MPI_Neighbor_alltoall(a, N, MPI_INT, a + 2 * N, N, MPI_INT, ring));
        {
            int x[4 * N], cs[2] = { N, N }, ds[2] = { 2 * N, 0 }, dr[2] = { 3 * N, N };
            for (int i = 0; i < 4 * N; i++) x[i] = i;
            /* send blocks at 0 and 2N (given in reverse), receive at N and 3N */
            ACCEPTED(MPI_Neighbor_alltoallv(x, cs, ds, MPI_INT, x, cs, dr, MPI_INT, ring));
            /* in-neighbour 0 (the left one: me) sent its block 1 (at 0) into dr[0] = 3N */
            LC_CHECK(x[3 * N] == 0 && x[N] == 2 * N, "interleaved neighbour alltoallv: %d %d", x[3 * N], x[N]);
        }
        LC_MPI(MPI_Comm_free(&ring));
        /* Without periods, both neighbours are MPI_PROC_NULL: no block is
         * touched, so overlapping blocks are no error. */
        LC_MPI(MPI_Cart_create(self, 1, dims, nper, 0, &line));
        LC_MPI(MPI_Comm_set_errhandler(line, MPI_ERRORS_RETURN));
        ACCEPTED(MPI_Neighbor_alltoall(a, N, MPI_INT, a + N, N, MPI_INT, line));
        LC_MPI(MPI_Comm_free(&line));
    }

    /* Every rank's blocks interleaved in one array, apart (even slots sent,
     * odd slots received), displacements in order and reversed. */
    if (full) {
        int *x = malloc(sizeof(int) * (size_t)(2 * N * size)), *cnt = malloc(sizeof(int) * 3 * (size_t)size);
        int *sd = cnt + size, *rd = sd + size;
        for (int rev = 0; rev < 2; rev++) {
            for (int j = 0; j < size; j++) {
                int k = rev ? size - 1 - j : j;
                cnt[j] = N;
                sd[j] = 2 * N * k;
                rd[j] = 2 * N * k + N;
                for (int i = 0; i < N; i++) x[sd[j] + i] = rank * 1000 + j * 10 + i;
            }
            ACCEPTED(MPI_Alltoallv(x, cnt, sd, MPI_INT, x, cnt, rd, MPI_INT, w));
            for (int j = 0; j < size; j++)
                LC_CHECK(x[rd[j]] == j * 1000 + rank * 10, "interleaved alltoallv (rev %d) from %d: %d", rev, j,
                         x[rd[j]]);
            /* shifted by one int, each send block meets a receive block: every rank refuses */
            for (int j = 0; j < size; j++) rd[j] -= 1;
            REFUSED(MPI_Alltoallv(x, cnt, sd, MPI_INT, x, cnt, rd, MPI_INT, w));
        }
        free(cnt);
        free(x);
    }

    /* Intercommunicators: no MPI_IN_PLACE, so no aliasing either. */
    if (full && size > 1) {
        MPI_Comm half, inter;
        int left = rank < size / 2;
        LC_MPI(MPI_Comm_split(w, left, rank, &half));
        LC_MPI(MPI_Intercomm_create(half, 0, w, left ? size / 2 : 0, 7, &inter));
        LC_MPI(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
        int rsize;
        LC_MPI(MPI_Comm_remote_size(inter, &rsize));
        int *x = malloc(sizeof(int) * (size_t)(N * (rsize + 1)));
        int *cnt = malloc(sizeof(int) * 2 * (size_t)rsize), *dsp = cnt + rsize;
        for (int j = 0; j < rsize; j++) {
            cnt[j] = 1;
            dsp[j] = j;
        }
        REFUSED(MPI_Allreduce(x, x + 1, N, MPI_INT, MPI_SUM, inter));
        REFUSED(MPI_Allgather(x + rsize - 1, 1, MPI_INT, x, 1, MPI_INT, inter));
        REFUSED(MPI_Alltoall(x, 1, MPI_INT, x + rsize - 1, 1, MPI_INT, inter));
        REFUSED(MPI_Alltoallv(x, cnt, dsp, MPI_INT, x + rsize - 1, cnt, dsp, MPI_INT, inter));
        REFUSED(MPI_Allgatherv(x, 1, MPI_INT, x, cnt, dsp, MPI_INT, inter));
        MPI_Request r = MPI_REQUEST_NULL;
        REFUSED(MPI_Iallgather(x + rsize - 1, 1, MPI_INT, x, 1, MPI_INT, inter, &r));
        /* Reduce_scatter(_block): each input holds rsize ints (one per
         * remote rank), known only once the leaders swapped counts; the
         * operation completes, then the rank whose result overlaps its
         * input is told, so one such rank holds no one up. */
        {
            int lsize = size - rsize, *ones = malloc(sizeof(int) * (size_t)lsize), out = -1, want = 0;
            for (int j = 0; j < lsize; j++) ones[j] = 1;
            for (int k = left ? size / 2 : 0; k < (left ? size : size / 2); k++) want += k + 1;
            REFUSED(MPI_Reduce_scatter_block(x, x + rsize - 1, 1, MPI_INT, MPI_SUM, inter));
            REFUSED(MPI_Reduce_scatter(x, x + rsize - 1, ones, MPI_INT, MPI_SUM, inter));
            REFUSED(MPI_Reduce_scatter_block_c(x + 1, x + rsize, 1, MPI_INT, MPI_SUM, inter));
            ACCEPTED(MPI_Ireduce_scatter_block(x, x + rsize - 1, 1, MPI_INT, MPI_SUM, inter, &r));
            REFUSED(MPI_Wait(&r, MPI_STATUS_IGNORE));
            ACCEPTED(MPI_Ireduce_scatter(x, x + rsize - 1, ones, MPI_INT, MPI_SUM, inter, &r));
            REFUSED(MPI_Wait(&r, MPI_STATUS_IGNORE));
            ACCEPTED(MPI_Reduce_scatter_block_init(x, x + rsize - 1, 1, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &r));
            for (int k = 0; k < 2; k++) { /* every start */
                ACCEPTED(MPI_Start(&r));
                REFUSED(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
            ACCEPTED(MPI_Request_free(&r));
            /* Only world rank 0 overlaps: the others get the right sums. */
            for (int j = 0; j <= rsize; j++) x[j] = rank + 1;
            if (rank == 0) {
                REFUSED(MPI_Reduce_scatter_block(x, x + rsize - 1, 1, MPI_INT, MPI_SUM, inter));
                for (int j = 0; j <= rsize; j++) x[j] = rank + 1; /* the result overwrote an input */
                REFUSED(MPI_Reduce_scatter(x, x, ones, MPI_INT, MPI_SUM, inter));
            } else {
                ACCEPTED(MPI_Reduce_scatter_block(x, &out, 1, MPI_INT, MPI_SUM, inter));
                LC_CHECK(out == want, "intercommunicator reduce_scatter_block beside an overlap: %d, not %d", out,
                         want);
                out = -1;
                ACCEPTED(MPI_Reduce_scatter(x, &out, ones, MPI_INT, MPI_SUM, inter));
                LC_CHECK(out == want, "intercommunicator reduce_scatter beside an overlap: %d, not %d", out, want);
            }
            /* A NULL input, found only once the counts are swapped: world
             * rank 0 is told, the others finish (not wait for its part);
             * the ones in its own group get the right sums. */
            int *none = NULL;
            if (rank == 0) {
                REFUSED(MPI_Reduce_scatter_block(none, &out, 1, MPI_INT, MPI_SUM, inter));
                REFUSED(MPI_Reduce_scatter(none, &out, ones, MPI_INT, MPI_SUM, inter));
            } else {
                out = -1;
                ACCEPTED(MPI_Reduce_scatter_block(x, &out, 1, MPI_INT, MPI_SUM, inter));
                LC_CHECK(!left || out == want, "reduce_scatter_block beside a NULL input: %d, not %d", out, want);
                ACCEPTED(MPI_Reduce_scatter(x, &out, ones, MPI_INT, MPI_SUM, inter));
                LC_CHECK(!left || out == want, "reduce_scatter beside a NULL input: %d, not %d", out, want);
            }
            free(ones);
        }
        /* apart: accepted, and right */
        int mine = rank, sum = -1;
        ACCEPTED(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter));
        int rfirst = left ? size / 2 : 0;
        LC_CHECK(sum == rsize * rfirst + rsize * (rsize - 1) / 2, "intercommunicator allreduce: %d", sum);
        free(cnt);
        free(x);
        LC_MPI(MPI_Comm_free(&inter));
        LC_MPI(MPI_Comm_free(&half));
    }

    /* Accepted: side by side in one array, in place, interleaved. */
    for (int i = 0; i < 4 * N; i++) a[i] = i;
    ACCEPTED(MPI_Allreduce(a, a + N, N, MPI_INT, MPI_SUM, self));
    LC_CHECK(a[N] == 0 && a[2 * N - 1] == N - 1, "adjacent allreduce: %d %d", a[N], a[2 * N - 1]);
    ACCEPTED(MPI_Allreduce(MPI_IN_PLACE, a, N, MPI_INT, MPI_SUM, self));
    ACCEPTED(MPI_Alltoall(a, N, MPI_INT, a + N, N, MPI_INT, self));
    {
        /* Even ints sent, odd ints received, in the same array. */
        MPI_Datatype every2, every2r;
        LC_MPI(MPI_Type_vector(N, 1, 2, MPI_INT, &every2));
        LC_MPI(MPI_Type_create_resized(every2, 0, (MPI_Aint)(2 * N * sizeof(int)), &every2r));
        LC_MPI(MPI_Type_commit(&every2r));
        int v[2 * N];
        for (int i = 0; i < 2 * N; i++) v[i] = i % 2 ? -1 : 100 + i;
        ACCEPTED(MPI_Alltoall(v, 1, every2r, v + 1, 1, every2r, self));
        for (int i = 0; i < N; i++)
            LC_CHECK(v[2 * i] == 100 + 2 * i && v[2 * i + 1] == 100 + 2 * i, "interleaved v[%d..] = %d %d", 2 * i,
                     v[2 * i], v[2 * i + 1]);
        LC_MPI(MPI_Type_free(&every2));
        LC_MPI(MPI_Type_free(&every2r));
    }
    {
        int *g = malloc(sizeof(int) * (size_t)(N * size)), mine[N];
        for (int i = 0; i < N; i++) mine[i] = rank * 100 + i;
        ACCEPTED(MPI_Allgather(mine, N, MPI_INT, g, N, MPI_INT, w));
        LC_CHECK(g[N * (size - 1)] == (size - 1) * 100, "allgather: %d", g[N * (size - 1)]);
        free(g);
    }

    /* Everything still works. */
    int sum = 0;
    LC_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, w));
    LC_CHECK(sum == size, "allreduce after the errors: %d", sum);
    return lc_finish();
}
