/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * io_shared.c — the shared file pointer under concurrency: every rank
 * appends K records with write_shared at once; each record must be in
 * the file exactly once, each rank's in its own order.  Then every rank
 * reads records with read_shared until the end: together they read each
 * record exactly once.  Ordered access (write_ordered / read_ordered and
 * the split forms) places rank r's data after ranks 0..r-1's.  Also
 * seek_shared and get_position_shared.
 */
#include "lc_io_test.h"

enum { K = 200 };

typedef struct {
    int rank, seq;
} lc_rec_t;

static void test_shared(int rank, int size)
{
    char path[600];
    MPI_File fh;
    lc_io_path(path, sizeof path, "shared");
    LC_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    for (int i = 0; i < K; i++) {
        lc_rec_t r = { rank, i };
        LC_MPI(MPI_File_write_shared(fh, &r, 2, MPI_INT, MPI_STATUS_IGNORE));
    }
    LC_MPI(MPI_File_sync(fh));
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    LC_MPI(MPI_File_sync(fh));
    MPI_Offset pos;
    LC_MPI(MPI_File_get_position_shared(fh, &pos));
    LC_CHECK(pos == (MPI_Offset)size * K * 8, "shared position %lld after all writes, expected %lld",
             (long long)pos, (long long)size * K * 8);
    if (rank == 0) {
        lc_rec_t *all = lc_malloc((size_t)size * K * sizeof(lc_rec_t));
        int *next = calloc((size_t)size, sizeof(int));
        MPI_Status st;
        LC_MPI(MPI_File_read_at(fh, 0, all, size * K * 2, MPI_INT, &st));
        int bad = 0;
        for (int k = 0; k < size * K; k++) {
            lc_rec_t r = all[k];
            if (r.rank < 0 || r.rank >= size || r.seq != next[r.rank]) bad++;
            else next[r.rank]++;
        }
        LC_CHECK(bad == 0, "%d records out of place or duplicated in the shared-pointer file", bad);
        free(all);
        free(next);
    }
    /* Everyone reads through the shared pointer until the end. */
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    LC_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int *seen = calloc((size_t)size * K, sizeof(int)), *total = calloc((size_t)size * K, sizeof(int));
    for (;;) {
        lc_rec_t r;
        MPI_Status st;
        int count;
        LC_MPI(MPI_File_read_shared(fh, &r, 2, MPI_INT, &st));
        LC_MPI(MPI_Get_count(&st, MPI_INT, &count));
        if (count == 0) break;
        LC_CHECK(count == 2, "read_shared got %d ints", count);
        if (r.rank >= 0 && r.rank < size && r.seq >= 0 && r.seq < K) seen[r.rank * K + r.seq]++;
    }
    LC_MPI(MPI_Reduce(seen, total, size * K, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        int bad = 0;
        for (int k = 0; k < size * K; k++) bad += total[k] != 1;
        LC_CHECK(bad == 0, "%d records were not read exactly once through the shared pointer", bad);
    }
    free(seen);
    free(total);
    /* seek_shared to the end */
    LC_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    LC_MPI(MPI_File_get_position_shared(fh, &pos));
    LC_CHECK(pos == (MPI_Offset)size * K * 8, "shared position %lld after seek to the end", (long long)pos);
    LC_MPI(MPI_File_close(&fh));
}

static void test_ordered(int rank, int size)
{
    char path[600];
    MPI_File fh;
    lc_io_path(path, sizeof path, "ordered");
    LC_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    LC_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    /* rank r writes r + 1 ints of value r, twice (blocking, then split) */
    int mine[64], back[64];
    for (int i = 0; i <= rank; i++) mine[i] = rank;
    LC_MPI(MPI_File_write_ordered(fh, mine, rank + 1, MPI_INT, MPI_STATUS_IGNORE));
    LC_MPI(MPI_File_write_ordered_begin(fh, mine, rank + 1, MPI_INT));
    LC_MPI(MPI_File_write_ordered_end(fh, mine, MPI_STATUS_IGNORE));
    int total = size * (size + 1) / 2;
    MPI_Offset pos;
    LC_MPI(MPI_File_get_position_shared(fh, &pos));
    LC_CHECK(pos == 2 * total, "shared position %lld after two ordered writes, expected %d", (long long)pos,
             2 * total);
    LC_MPI(MPI_File_sync(fh));
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    LC_MPI(MPI_File_sync(fh));
    if (rank == 0) {
        int *all = lc_malloc((size_t)2 * total * sizeof(int));
        LC_MPI(MPI_File_read_at(fh, 0, all, 2 * total, MPI_INT, MPI_STATUS_IGNORE));
        int k = 0, bad = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int r = 0; r < size; r++)
                for (int i = 0; i <= r; i++) bad += all[k++] != r;
        LC_CHECK(bad == 0, "%d ints of the ordered file are out of place", bad);
        free(all);
    }
    LC_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < 64; i++) back[i] = -1;
        MPI_Status st;
        if (pass == 0) {
            LC_MPI(MPI_File_read_ordered(fh, back, rank + 1, MPI_INT, &st));
        } else {
            LC_MPI(MPI_File_read_ordered_begin(fh, back, rank + 1, MPI_INT));
            LC_MPI(MPI_File_read_ordered_end(fh, back, &st));
        }
        int count, bad = 0;
        LC_MPI(MPI_Get_count(&st, MPI_INT, &count));
        for (int i = 0; i <= rank; i++) bad += back[i] != rank;
        LC_CHECK(count == rank + 1 && bad == 0, "read_ordered pass %d: %d ints, %d wrong", pass, count, bad);
    }
    LC_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    lc_io_tmpdir("io_shared");
    test_shared(rank, size);
    test_ordered(rank, size);
    lc_io_cleanup();
    return lc_finish();
}
