/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * io_nonblock.c — nonblocking file access (iwrite_at, iwrite, iwrite_all,
 * iwrite_at_all, iwrite_shared and the iread forms) completed with
 * MPI_Wait, MPI_Test and MPI_Waitall, statuses counted with
 * MPI_Get_count; split collectives (write_at_all_begin/end,
 * read_all_begin/end); the data checked after sync.
 */
#include "lc_io_test.h"

enum { B = 256 };

static void fill(int *buf, int rank, int msg)
{
    for (int i = 0; i < B; i++) buf[i] = (int)lc_pattern(rank, msg, i);
}

static int differs(const int *buf, int rank, int msg)
{
    int bad = 0;
    for (int i = 0; i < B; i++) bad += buf[i] != (int)lc_pattern(rank, msg, i);
    return bad;
}

static void check_count(MPI_Status *st, int want, const char *what)
{
    int count = -1;
    LC_MPI(MPI_Get_count(st, MPI_INT, &count));
    LC_CHECK(count == want, "%s: status counts %d ints, not %d", what, count, want);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    lc_io_tmpdir("io_nonblock");
    char path[600];
    lc_io_path(path, sizeof path, "nb");
    MPI_File fh;
    LC_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    LC_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    /* The file is 5 regions of size * B ints; rank r's block of region k
     * at k * size * B + r * B. */
    MPI_Offset region = (MPI_Offset)size * B, at = (MPI_Offset)rank * B;
    int w[5][B], r[5][B];
    for (int k = 0; k < 5; k++) fill(w[k], rank, k);
    MPI_Request req[5];
    MPI_Status st[5];
    LC_MPI(MPI_File_iwrite_at(fh, 0 * region + at, w[0], B, MPI_INT, &req[0]));
    LC_MPI(MPI_File_seek(fh, 1 * region + at, MPI_SEEK_SET));
    LC_MPI(MPI_File_iwrite(fh, w[1], B, MPI_INT, &req[1]));
    LC_MPI(MPI_File_iwrite_at_all(fh, 2 * region + at, w[2], B, MPI_INT, &req[2]));
    LC_MPI(MPI_Waitall(3, req, st));
    for (int k = 0; k < 3; k++) check_count(&st[k], B, "iwrite*");
    LC_MPI(MPI_File_seek(fh, 3 * region + at, MPI_SEEK_SET));
    LC_MPI(MPI_File_iwrite_all(fh, w[3], B, MPI_INT, &req[3]));
    int done = 0;
    for (int spin = 0; !done && spin < 1000000; spin++) LC_MPI(MPI_Test(&req[3], &done, &st[3]));
    LC_CHECK(done, "MPI_Test never completed an iwrite_all");
    check_count(&st[3], B, "iwrite_all");
    MPI_Offset pos;
    LC_MPI(MPI_File_get_position(fh, &pos));
    LC_CHECK(pos == 3 * region + at + B, "individual pointer at %lld after iwrite_all", (long long)pos);
    LC_MPI(MPI_File_write_at_all_begin(fh, 4 * region + at, w[4], B, MPI_INT));
    LC_MPI(MPI_File_write_at_all_end(fh, w[4], &st[4]));
    check_count(&st[4], B, "write_at_all_end");
    LC_MPI(MPI_File_sync(fh));
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    LC_MPI(MPI_File_sync(fh));

    /* Read the neighbour's blocks back, nonblocking. */
    int peer = (rank + 1) % size;
    MPI_Offset pat = (MPI_Offset)peer * B;
    LC_MPI(MPI_File_iread_at(fh, 0 * region + pat, r[0], B, MPI_INT, &req[0]));
    LC_MPI(MPI_File_seek(fh, 1 * region + pat, MPI_SEEK_SET));
    LC_MPI(MPI_File_iread(fh, r[1], B, MPI_INT, &req[1]));
    LC_MPI(MPI_File_iread_at_all(fh, 2 * region + pat, r[2], B, MPI_INT, &req[2]));
    LC_MPI(MPI_File_seek(fh, 3 * region + pat, MPI_SEEK_SET));
    LC_MPI(MPI_File_iread_all(fh, r[3], B, MPI_INT, &req[3]));
    for (int k = 0; k < 4; k++) {
        LC_MPI(MPI_Wait(&req[k], &st[k]));
        LC_CHECK(req[k] == MPI_REQUEST_NULL, "MPI_Wait left request %d", k);
        check_count(&st[k], B, "iread*");
    }
    LC_MPI(MPI_File_seek(fh, 4 * region + pat, MPI_SEEK_SET));
    LC_MPI(MPI_File_read_all_begin(fh, r[4], B, MPI_INT));
    LC_MPI(MPI_File_read_all_end(fh, r[4], &st[4]));
    check_count(&st[4], B, "read_all_end");
    for (int k = 0; k < 5; k++) {
        int bad = differs(r[k], peer, k);
        LC_CHECK(bad == 0, "region %d: %d ints of rank %d's block differ", k, bad, peer);
    }

    /* Shared pointer, nonblocking: each rank appends one block. */
    LC_MPI(MPI_File_seek_shared(fh, 5 * region, MPI_SEEK_SET));
    LC_MPI(MPI_File_iwrite_shared(fh, w[0], B, MPI_INT, &req[0]));
    LC_MPI(MPI_Wait(&req[0], &st[0]));
    check_count(&st[0], B, "iwrite_shared");
    LC_MPI(MPI_File_sync(fh));
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    LC_MPI(MPI_File_sync(fh));
    LC_MPI(MPI_File_seek_shared(fh, 5 * region, MPI_SEEK_SET));
    LC_MPI(MPI_File_iread_shared(fh, r[0], B, MPI_INT, &req[0]));
    LC_MPI(MPI_Wait(&req[0], &st[0]));
    check_count(&st[0], B, "iread_shared");
    int owner = -1;
    for (int q = 0; q < size; q++)
        if (!differs(r[0], q, 0)) owner = q;
    LC_CHECK(owner >= 0, "iread_shared read a block no rank wrote");
    LC_MPI(MPI_File_get_size(fh, &pos));
    LC_CHECK(pos == 6 * region * 4, "file size %lld, expected %lld", (long long)pos, (long long)(6 * region * 4));
    LC_MPI(MPI_File_close(&fh));
    lc_io_cleanup();
    return lc_finish();
}
