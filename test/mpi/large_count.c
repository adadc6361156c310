/* SPDX-License-Identifier: BSD-3-Clause */
/* large_count: the MPI 4 large-count (`_c`) functions.
 *
 * Every `_c` point-to-point and collective call, with MPI_Count counts, on
 * a ring of ranks, checked against the known data; with argument "huge"
 * also one message of more than 2 GiB (2^31 + 4096 bytes: its count does
 * not fit an int) from rank 0 to rank 1, through MPI_Send_c / MPI_Recv_c,
 * and MPI_Get_count's MPI_UNDEFINED for it.  Validated with MPICH 4.0.2. */
#include "lc_test.h"

#define N 1000

static void fill(int *buf, MPI_Count n, int seed)
{
    for (MPI_Count i = 0; i < n; i++) buf[i] = seed * 100003 + (int)i;
}

static int count_bad(const int *buf, MPI_Count n, int seed)
{
    int bad = 0;
    for (MPI_Count i = 0; i < n; i++) bad += buf[i] != seed * 100003 + (int)i;
    return bad;
}

/* Send, Ssend, Rsend, Isend, Issend, Irsend, Recv, Irecv, Sendrecv(_replace). */
static void test_pt2pt(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *sbuf = malloc(N * sizeof(int)), *rbuf = malloc(N * sizeof(int));
    MPI_Request req[2];
    MPI_Status st;
    fill(sbuf, N, rank);

    for (int mode = 0; mode < 3; mode++) {
        memset(rbuf, 0, N * sizeof(int));
        MPI_Irecv_c(rbuf, N, MPI_INT, left, mode, MPI_COMM_WORLD, &req[0]);
        MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted: Rsend is legal */
        if (mode == 0) MPI_Send_c(sbuf, N, MPI_INT, right, mode, MPI_COMM_WORLD);
        if (mode == 1) MPI_Ssend_c(sbuf, N, MPI_INT, right, mode, MPI_COMM_WORLD);
        if (mode == 2) MPI_Rsend_c(sbuf, N, MPI_INT, right, mode, MPI_COMM_WORLD);
        MPI_Wait(&req[0], &st);
        LC_CHECK(count_bad(rbuf, N, left) == 0, "blocking send mode %d: wrong data", mode);
        int cnt = -1;
        MPI_Get_count(&st, MPI_INT, &cnt);
        LC_CHECK(cnt == N, "MPI_Get_count gave %d, expected %d", cnt, N);
    }
    for (int mode = 0; mode < 3; mode++) {
        memset(rbuf, 0, N * sizeof(int));
        MPI_Irecv_c(rbuf, N, MPI_INT, left, 10 + mode, MPI_COMM_WORLD, &req[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        if (mode == 0) MPI_Isend_c(sbuf, N, MPI_INT, right, 10 + mode, MPI_COMM_WORLD, &req[1]);
        if (mode == 1) MPI_Issend_c(sbuf, N, MPI_INT, right, 10 + mode, MPI_COMM_WORLD, &req[1]);
        if (mode == 2) MPI_Irsend_c(sbuf, N, MPI_INT, right, 10 + mode, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        LC_CHECK(count_bad(rbuf, N, left) == 0, "nonblocking send mode %d: wrong data", mode);
    }
    memset(rbuf, 0, N * sizeof(int));
    MPI_Recv_c(rbuf, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    LC_CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "MPI_Recv_c from MPI_PROC_NULL: source %d", st.MPI_SOURCE);
    MPI_Sendrecv_c(sbuf, N, MPI_INT, right, 20, rbuf, N, MPI_INT, left, 20, MPI_COMM_WORLD, &st);
    LC_CHECK(count_bad(rbuf, N, left) == 0, "MPI_Sendrecv_c: wrong data");
    memcpy(rbuf, sbuf, N * sizeof(int));
    MPI_Sendrecv_replace_c(rbuf, N, MPI_INT, right, 21, left, 21, MPI_COMM_WORLD, &st);
    LC_CHECK(count_bad(rbuf, N, left) == 0, "MPI_Sendrecv_replace_c: wrong data");
    free(sbuf);
    free(rbuf);
}

/* Bsend_c / Ibsend_c through a buffer attached with Buffer_attach_c. */
static void test_buffered(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Count bufsize = 2 * (N * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *attached = malloc((size_t)bufsize);
    int *sbuf = malloc(N * sizeof(int)), *rbuf = malloc(2 * N * sizeof(int));
    MPI_Request req;
    fill(sbuf, N, rank);
    MPI_Buffer_attach_c(attached, bufsize);
    MPI_Bsend_c(sbuf, N, MPI_INT, right, 30, MPI_COMM_WORLD);
    MPI_Ibsend_c(sbuf, N, MPI_INT, right, 31, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Recv_c(rbuf, N, MPI_INT, left, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv_c(rbuf + N, N, MPI_INT, left, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    LC_CHECK(count_bad(rbuf, N, left) == 0 && count_bad(rbuf + N, N, left) == 0, "Bsend_c/Ibsend_c: wrong data");
    void *back = NULL;
    MPI_Count backsize = 0;
    MPI_Buffer_detach_c(&back, &backsize);
    LC_CHECK(back == attached && backsize == bufsize, "Buffer_detach_c gave %p/%lld, expected %p/%lld", back,
             (long long)backsize, (void *)attached, (long long)bufsize);
    free(attached);
    free(sbuf);
    free(rbuf);
}

/* Mprobe + Mrecv_c, Improbe + Imrecv_c, and the persistent *_init_c calls. */
static void test_matched_and_persistent(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *sbuf = malloc(N * sizeof(int)), *rbuf = malloc(N * sizeof(int));
    MPI_Message msg;
    MPI_Request req[2];
    MPI_Status st;
    fill(sbuf, N, rank);

    MPI_Isend_c(sbuf, N, MPI_INT, right, 40, MPI_COMM_WORLD, &req[1]);
    MPI_Mprobe(left, 40, MPI_COMM_WORLD, &msg, &st);
    MPI_Mrecv_c(rbuf, N, MPI_INT, &msg, &st);
    MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    LC_CHECK(count_bad(rbuf, N, left) == 0, "MPI_Mrecv_c: wrong data");

    int flag = 0;
    MPI_Isend_c(sbuf, N, MPI_INT, right, 41, MPI_COMM_WORLD, &req[1]);
    while (!flag) MPI_Improbe(left, 41, MPI_COMM_WORLD, &flag, &msg, &st);
    memset(rbuf, 0, N * sizeof(int));
    MPI_Imrecv_c(rbuf, N, MPI_INT, &msg, &req[0]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    LC_CHECK(count_bad(rbuf, N, left) == 0, "MPI_Imrecv_c: wrong data");

    /* one persistent pair per send mode, each started twice */
    for (int mode = 0; mode < 4; mode++) {
        char *attached = NULL;
        MPI_Count bufsize = N * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD;
        if (mode == 3) {
            attached = malloc((size_t)bufsize);
            MPI_Buffer_attach_c(attached, bufsize);
        }
        MPI_Recv_init_c(rbuf, N, MPI_INT, left, 50 + mode, MPI_COMM_WORLD, &req[0]);
        if (mode == 0) MPI_Send_init_c(sbuf, N, MPI_INT, right, 50 + mode, MPI_COMM_WORLD, &req[1]);
        if (mode == 1) MPI_Ssend_init_c(sbuf, N, MPI_INT, right, 50 + mode, MPI_COMM_WORLD, &req[1]);
        if (mode == 2) MPI_Rsend_init_c(sbuf, N, MPI_INT, right, 50 + mode, MPI_COMM_WORLD, &req[1]);
        if (mode == 3) MPI_Bsend_init_c(sbuf, N, MPI_INT, right, 50 + mode, MPI_COMM_WORLD, &req[1]);
        for (int round = 0; round < 2; round++) {
            memset(rbuf, 0, N * sizeof(int));
            MPI_Start(&req[0]);
            MPI_Barrier(MPI_COMM_WORLD); /* receives started: Rsend is legal */
            MPI_Start(&req[1]);
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
            LC_CHECK(count_bad(rbuf, N, left) == 0, "persistent mode %d round %d: wrong data", mode, round);
        }
        MPI_Request_free(&req[0]);
        MPI_Request_free(&req[1]);
        if (mode == 3) {
            void *back;
            MPI_Count backsize;
            MPI_Buffer_detach_c(&back, &backsize);
            free(attached);
        }
    }
    free(sbuf);
    free(rbuf);
}

static void test_collectives(int rank, int size)
{
    const MPI_Count n = 64;
    int *a = malloc((size_t)(n * size) * sizeof(int)), *b = malloc((size_t)(n * size) * sizeof(int));
    int root = size - 1;

    for (MPI_Count i = 0; i < n; i++) a[i] = rank == root ? (int)i * 7 : -1;
    MPI_Bcast_c(a, n, MPI_INT, root, MPI_COMM_WORLD);
    LC_CHECK(a[n - 1] == (int)(n - 1) * 7, "MPI_Bcast_c: a[last] = %d", a[n - 1]);

    for (MPI_Count i = 0; i < n; i++) a[i] = rank + (int)i;
    MPI_Reduce_c(a, b, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    if (rank == root)
        LC_CHECK(b[1] == size * (size - 1) / 2 + size, "MPI_Reduce_c: b[1] = %d", b[1]);
    MPI_Allreduce_c(a, b, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    LC_CHECK(b[2] == size - 1 + 2, "MPI_Allreduce_c: b[2] = %d", b[2]);
    MPI_Scan_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    LC_CHECK(b[0] == rank * (rank + 1) / 2, "MPI_Scan_c: b[0] = %d on rank %d", b[0], rank);
    MPI_Exscan_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank > 0) LC_CHECK(b[0] == rank * (rank - 1) / 2, "MPI_Exscan_c: b[0] = %d on rank %d", b[0], rank);

    for (int r = 0; r < size; r++)
        for (MPI_Count i = 0; i < n; i++) a[r * n + i] = rank * 1000 + r;
    MPI_Reduce_scatter_block_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    LC_CHECK(b[n - 1] == 1000 * size * (size - 1) / 2 + size * rank, "MPI_Reduce_scatter_block_c: %d", b[n - 1]);

    for (MPI_Count i = 0; i < n; i++) a[i] = rank;
    MPI_Gather_c(a, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD);
    if (rank == root)
        for (int r = 0; r < size; r++) LC_CHECK(b[r * n + 3] == r, "MPI_Gather_c: block %d holds %d", r, b[r * n + 3]);
    MPI_Allgather_c(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) LC_CHECK(b[r * n] == r, "MPI_Allgather_c: block %d holds %d", r, b[r * n]);

    for (int r = 0; r < size; r++)
        for (MPI_Count i = 0; i < n; i++) a[r * n + i] = rank * 1000 + r;
    MPI_Scatter_c(a, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD);
    LC_CHECK(b[0] == root * 1000 + rank, "MPI_Scatter_c: got %d", b[0]);
    MPI_Alltoall_c(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        LC_CHECK(b[r * n] == r * 1000 + rank, "MPI_Alltoall_c: block %d holds %d", r, b[r * n]);
    free(a);
    free(b);
}

/* The vector collectives' `_c` forms: rank r contributes r+1 items. */
static void test_vector_collectives(int rank, int size)
{
    MPI_Count *counts = malloc(size * sizeof(MPI_Count)), total = 0;
    MPI_Aint *displs = malloc(size * sizeof(MPI_Aint));
    for (int r = 0; r < size; r++) {
        counts[r] = r + 1;
        displs[r] = (MPI_Aint)total;
        total += counts[r];
    }
    int *mine = malloc((size_t)(rank + 1) * sizeof(int)), *all = malloc((size_t)total * sizeof(int));
    int *big = malloc((size_t)total * size * sizeof(int)), root = 0, bad = 0;
    for (int i = 0; i <= rank; i++) mine[i] = rank * 100 + i;

    memset(all, -1, (size_t)total * sizeof(int));
    MPI_Gatherv_c(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
    if (rank == root)
        for (int r = 0; r < size; r++)
            for (int i = 0; i <= r; i++) bad += all[displs[r] + i] != r * 100 + i;
    LC_CHECK(bad == 0, "MPI_Gatherv_c: %d items wrong", bad);

    memset(all, -1, (size_t)total * sizeof(int));
    MPI_Allgatherv_c(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    bad = 0;
    for (int r = 0; r < size; r++)
        for (int i = 0; i <= r; i++) bad += all[displs[r] + i] != r * 100 + i;
    LC_CHECK(bad == 0, "MPI_Allgatherv_c: %d items wrong", bad);

    memset(mine, -1, (size_t)(rank + 1) * sizeof(int));
    MPI_Scatterv_c(all, counts, displs, MPI_INT, mine, rank + 1, MPI_INT, root, MPI_COMM_WORLD);
    bad = 0;
    for (int i = 0; i <= rank; i++) bad += mine[i] != rank * 100 + i;
    LC_CHECK(bad == 0, "MPI_Scatterv_c: %d items wrong", bad);

    /* alltoallv: rank r sends counts[d] = d+1 items to d, receives r+1 from each */
    MPI_Count *rcounts = malloc(size * sizeof(MPI_Count));
    MPI_Aint *rdispls = malloc(size * sizeof(MPI_Aint));
    for (int r = 0; r < size; r++) {
        rcounts[r] = rank + 1;
        rdispls[r] = (MPI_Aint)r * (rank + 1);
    }
    for (int d = 0; d < size; d++)
        for (int i = 0; i <= d; i++) big[displs[d] + i] = rank * 1000 + d * 10 + i;
    int *in = malloc((size_t)size * (rank + 1) * sizeof(int));
    MPI_Alltoallv_c(big, counts, displs, MPI_INT, in, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
    bad = 0;
    for (int s = 0; s < size; s++)
        for (int i = 0; i <= rank; i++) bad += in[rdispls[s] + i] != s * 1000 + rank * 10 + i;
    LC_CHECK(bad == 0, "MPI_Alltoallv_c: %d items wrong", bad);

    /* reduce_scatter: every rank contributes item j = j; block r has r+1 items */
    for (MPI_Count j = 0; j < total; j++) all[j] = (int)j;
    MPI_Reduce_scatter_c(all, mine, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    bad = 0;
    for (int i = 0; i <= rank; i++) bad += mine[i] != size * (int)(displs[rank] + i);
    LC_CHECK(bad == 0, "MPI_Reduce_scatter_c: %d items wrong", bad);
    free(counts); free(displs); free(rcounts); free(rdispls);
    free(mine); free(all); free(big); free(in);
}

/* One message whose byte count does not fit an int. */
static void test_huge(int rank, int size)
{
    const MPI_Count bytes = ((MPI_Count)1 << 31) + 4096;
    if (size < 2) return;
    if (rank > 1) return;
    unsigned char *buf = malloc((size_t)bytes);
    if (!buf) LC_FATAL("cannot allocate %lld bytes", (long long)bytes);
    /* A pattern that differs page by page, checked at every page. */
    if (rank == 0) {
        for (MPI_Count i = 0; i < bytes; i += 4096) buf[i] = (unsigned char)(i / 4096 * 31 + 7);
        buf[bytes - 1] = 0xa5;
        MPI_Send_c(buf, bytes, MPI_BYTE, 1, 60, MPI_COMM_WORLD);
    } else {
        MPI_Status st;
        memset(buf, 0, (size_t)bytes);
        MPI_Recv_c(buf, bytes, MPI_BYTE, 0, 60, MPI_COMM_WORLD, &st);
        int bad = 0;
        for (MPI_Count i = 0; i < bytes; i += 4096) bad += buf[i] != (unsigned char)(i / 4096 * 31 + 7);
        LC_CHECK(bad == 0 && buf[bytes - 1] == 0xa5, "2 GiB+ message: %d pages differ", bad);
        int icnt = 0;
        MPI_Get_count(&st, MPI_BYTE, &icnt);
        LC_CHECK(icnt == MPI_UNDEFINED, "MPI_Get_count of a 2 GiB+ message gave %d, expected MPI_UNDEFINED", icnt);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int huge = argc > 1 && strcmp(argv[1], "huge") == 0;
    test_pt2pt(rank, size);
    test_buffered(rank, size);
    test_matched_and_persistent(rank, size);
    test_collectives(rank, size);
    test_vector_collectives(rank, size);
    if (huge) test_huge(rank, size);
    return lc_finish();
}
