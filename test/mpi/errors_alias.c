/* SPDX-License-Identifier: BSD-3-Clause */
/* errors_alias: a collective whose send and receive buffers overlap
 * (without MPI_IN_PLACE) returns MPI_ERR_BUFFER under MPI_ERRORS_RETURN
 * (issue 12, point 5), and buffers that share no byte are accepted even
 * when they sit side by side in one array or interleave through strided
 * datatypes.  Each refused call runs on MPI_COMM_SELF (or where every rank
 * refuses it), so no rank is left waiting in a collective.  MPICH 4.0.2
 * checks only some of these cases (the same start address, a gather's own
 * block): on MPICH the others are skipped. */
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
