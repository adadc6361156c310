/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * io_view.c — file views with derived filetypes: a 2-D N x M array of
 * ints, block-distributed over a px x py process grid (subarray
 * filetype), written collectively behind a 16-byte header; read back in
 * another decomposition (row blocks, with a memory type that has a halo),
 * and through a darray filetype (rows cyclic in blocks of 2); every
 * element compared.  Also: positions in etypes, get_byte_offset,
 * seek to the end, get_view, and MPI_ERR_UNSUPPORTED_DATAREP.
 */
#include "lc_io_test.h"

enum { N = 24, M = 20, HDR = 16 };

static int lc_value(int i, int j)
{
    return i * 1000 + j + 7;
}

static void write_blocks(MPI_File fh, int rank, int size)
{
    int dims[2] = { 0, 0 };
    LC_MPI(MPI_Dims_create(size, 2, dims));
    int px = dims[0], py = dims[1];
    int pi = rank / py, pj = rank % py;
    int sizes[2] = { N, M }, sub[2] = { N / px, M / py }, starts[2] = { pi * (N / px), pj * (M / py) };
    MPI_Datatype ft;
    LC_MPI(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &ft));
    LC_MPI(MPI_Type_commit(&ft));
    LC_MPI(MPI_File_set_view(fh, HDR, MPI_INT, ft, "native", MPI_INFO_NULL));
    int n = sub[0] * sub[1];
    int *buf = lc_malloc((size_t)n * sizeof(int));
    for (int a = 0; a < sub[0]; a++)
        for (int b = 0; b < sub[1]; b++) buf[a * sub[1] + b] = lc_value(starts[0] + a, starts[1] + b);
    MPI_Status st;
    LC_MPI(MPI_File_write_all(fh, buf, n, MPI_INT, &st));
    int count;
    LC_MPI(MPI_Get_count(&st, MPI_INT, &count));
    LC_CHECK(count == n, "write_all's status counts %d, not %d", count, n);
    MPI_Offset pos;
    LC_MPI(MPI_File_get_position(fh, &pos));
    LC_CHECK(pos == n, "position %lld after writing %d etypes", (long long)pos, n);
    /* The first element of this rank's block, and where etype n lands
     * (the first element of the next tile). */
    MPI_Offset off;
    LC_MPI(MPI_File_get_byte_offset(fh, 0, &off));
    LC_CHECK(off == HDR + ((MPI_Offset)starts[0] * M + starts[1]) * 4, "byte offset of etype 0 is %lld",
             (long long)off);
    LC_MPI(MPI_File_get_byte_offset(fh, n, &off));
    LC_CHECK(off == HDR + (MPI_Offset)N * M * 4 + ((MPI_Offset)starts[0] * M + starts[1]) * 4,
             "byte offset of etype %d is %lld", n, (long long)off);
    /* Seek to the end: the whole tile is there, so position n. */
    LC_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    LC_MPI(MPI_File_seek(fh, 0, MPI_SEEK_END));
    LC_MPI(MPI_File_get_position(fh, &pos));
    LC_CHECK(pos == n, "position %lld after seek to the end, not %d", (long long)pos, n);

    MPI_Offset disp;
    MPI_Datatype et, ft2;
    char rep[MPI_MAX_DATAREP_STRING + 1];
    LC_MPI(MPI_File_get_view(fh, &disp, &et, &ft2, rep));
    LC_CHECK(disp == HDR && et == MPI_INT && !strcmp(rep, "native"), "get_view gave disp %lld, rep %s",
             (long long)disp, rep);
    int ftsize;
    LC_MPI(MPI_Type_size(ft2, &ftsize));
    LC_CHECK(ftsize == n * 4, "the view's filetype has size %d, not %d", ftsize, n * 4);
    LC_MPI(MPI_Type_free(&ft2));
    LC_MPI(MPI_Type_free(&ft));
    free(buf);
}

/* Row blocks (size x 1), read into the middle of a buffer with a
 * one-element halo all round. */
static void read_rows(MPI_File fh, int rank, int size)
{
    int rows = N / size, r0 = rank * rows;
    int sizes[2] = { N, M }, sub[2] = { rows, M }, starts[2] = { r0, 0 };
    MPI_Datatype ft, mt;
    LC_MPI(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &ft));
    LC_MPI(MPI_Type_commit(&ft));
    int hsizes[2] = { rows + 2, M + 2 }, hstarts[2] = { 1, 1 };
    LC_MPI(MPI_Type_create_subarray(2, hsizes, sub, hstarts, MPI_ORDER_C, MPI_INT, &mt));
    LC_MPI(MPI_Type_commit(&mt));
    LC_MPI(MPI_File_set_view(fh, HDR, MPI_INT, ft, "native", MPI_INFO_NULL));
    int *buf = lc_malloc((size_t)(rows + 2) * (M + 2) * sizeof(int));
    for (int k = 0; k < (rows + 2) * (M + 2); k++) buf[k] = -1;
    MPI_Status st;
    LC_MPI(MPI_File_read_at_all(fh, 0, buf, 1, mt, &st));
    int count;
    LC_MPI(MPI_Get_count(&st, mt, &count));
    LC_CHECK(count == 1, "read_at_all's status counts %d items of the halo type", count);
    int bad = 0;
    for (int a = 0; a < rows + 2; a++)
        for (int b = 0; b < M + 2; b++) {
            int inside = a >= 1 && a <= rows && b >= 1 && b <= M;
            int want = inside ? lc_value(r0 + a - 1, b - 1) : -1;
            bad += buf[a * (M + 2) + b] != want;
        }
    LC_CHECK(bad == 0, "%d elements of the row block (with halo) differ", bad);
    LC_MPI(MPI_Type_free(&ft));
    LC_MPI(MPI_Type_free(&mt));
    free(buf);
}

/* Rows cyclic in blocks of 2 over size x 1 processes (darray). */
static void read_darray(MPI_File fh, int rank, int size)
{
    int gsizes[2] = { N, M }, distribs[2] = { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE };
    int dargs[2] = { 2, MPI_DISTRIBUTE_DFLT_DARG }, psizes[2] = { size, 1 };
    MPI_Datatype ft;
    LC_MPI(MPI_Type_create_darray(size, rank, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &ft));
    LC_MPI(MPI_Type_commit(&ft));
    int tsize;
    LC_MPI(MPI_Type_size(ft, &tsize));
    int n = tsize / 4;
    LC_MPI(MPI_File_set_view(fh, HDR, MPI_INT, ft, "native", MPI_INFO_NULL));
    int *buf = lc_malloc((size_t)n * sizeof(int));
    MPI_Status st;
    LC_MPI(MPI_File_read_all(fh, buf, n, MPI_INT, &st));
    int k = 0, bad = 0;
    for (int i = 0; i < N; i++) {
        if ((i / 2) % size != rank) continue;
        for (int j = 0; j < M; j++, k++) bad += k >= n || buf[k] != lc_value(i, j);
    }
    LC_CHECK(k == n && bad == 0, "darray read: %d of %d elements expected, %d differ", k, n, bad);
    LC_MPI(MPI_Type_free(&ft));
    free(buf);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    lc_io_tmpdir("io_view");
    char path[600];
    lc_io_path(path, sizeof path, "array");
    MPI_File fh;
    LC_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    if (rank == 0) LC_MPI(MPI_File_write_at(fh, 0, "LOCUS-IO-HEADER", HDR, MPI_CHAR, MPI_STATUS_IGNORE));
    write_blocks(fh, rank, size);
    LC_MPI(MPI_File_sync(fh));
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    LC_MPI(MPI_File_sync(fh));
    MPI_Offset fsize;
    LC_MPI(MPI_File_get_size(fh, &fsize));
    LC_CHECK(fsize == HDR + N * M * 4, "file size %lld, expected %d", (long long)fsize, HDR + N * M * 4);
    read_rows(fh, rank, size);
    read_darray(fh, rank, size);
    LC_IO_EXPECT(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL),
                 MPI_ERR_UNSUPPORTED_DATAREP);
    /* The header is still there (default view: bytes). */
    LC_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    char hdr[HDR];
    LC_MPI(MPI_File_read_at(fh, 0, hdr, HDR, MPI_CHAR, MPI_STATUS_IGNORE));
    LC_CHECK(!memcmp(hdr, "LOCUS-IO-HEADER", HDR), "the header was overwritten");
    LC_MPI(MPI_File_close(&fh));
    lc_io_cleanup();
    return lc_finish();
}
