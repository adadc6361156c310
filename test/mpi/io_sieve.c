/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * io_sieve.c — independent reads through strided views with data
 * sieving off, on and automatic (ROMIO's hints "romio_ds_read" and
 * "ind_rd_buffer_size", small buffers too, so that spans are cut and
 * some pieces are larger than the buffer): every read gives the same
 * bytes and the same status count, and the ints read are the expected
 * ones.  The file holds int i at int position i (and 2 bytes more), and
 * every read runs past its end, so the last element is cut in the
 * middle for some views.  Views: dense and sparse vectors, pieces more
 * than 64 KiB apart, a 3-D subarray; contiguous and strided memory;
 * starting at etype 0 and inside a tile.
 */
#include "lc_io_test.h"

#include <stdbool.h>

enum { F = 50000 }; /* whole ints in the file */

typedef struct {
    const char *name;
    int kind;               /* 0 vector, 1 subarray */
    int k, bl, stride;      /* vector: count, blocklength, stride (ints) */
    int sz[3], sub[3], st[3]; /* subarray */
} pattern_t;

static const pattern_t patterns[] = {
    { "dense vector", 0, 50, 3, 5, { 0 }, { 0 }, { 0 } },
    { "sparse vector", 0, 20, 1, 64, { 0 }, { 0 }, { 0 } },
    { "far pieces", 0, 3, 16, 20000, { 0 }, { 0 }, { 0 } },
    { "big pieces", 0, 4, 300, 400, { 0 }, { 0 }, { 0 } },
    { "3-D subarray", 1, 0, 0, 0, { 6, 8, 40 }, { 3, 4, 20 }, { 2, 3, 10 } },
};

/* Data ints per tile, and the tile's extent in ints. */
static void pattern_shape(const pattern_t *p, long *per, long *ext)
{
    if (p->kind == 0) {
        *per = (long)p->k * p->bl;
        *ext = (long)(p->k - 1) * p->stride + p->bl;
    } else {
        *per = (long)p->sub[0] * p->sub[1] * p->sub[2];
        *ext = (long)p->sz[0] * p->sz[1] * p->sz[2];
    }
}

/* The int position in the file of view element j (disp in ints). */
static long pattern_index(const pattern_t *p, long disp, long j)
{
    long per, ext;
    pattern_shape(p, &per, &ext);
    long t = j / per, r = j % per;
    if (p->kind == 0) return disp + t * ext + (r / p->bl) * p->stride + r % p->bl;
    long c = r % p->sub[2], b = (r / p->sub[2]) % p->sub[1], a = r / (p->sub[2] * p->sub[1]);
    return disp + t * ext + ((p->st[0] + a) * p->sz[1] + p->st[1] + b) * p->sz[2] + p->st[2] + c;
}

static MPI_Datatype pattern_type(const pattern_t *p)
{
    MPI_Datatype t;
    if (p->kind == 0)
        LC_MPI(MPI_Type_vector(p->k, p->bl, p->stride, MPI_INT, &t));
    else
        LC_MPI(MPI_Type_create_subarray(3, p->sz, p->sub, p->st, MPI_ORDER_C, MPI_INT, &t));
    LC_MPI(MPI_Type_commit(&t));
    return t;
}

enum { NMODES = 5 };
static const char *const modes[NMODES][2] = {
    { "disable", NULL }, { NULL, NULL }, { "enable", NULL }, { "automatic", "256" }, { "enable", "100" },
};

/* Read `count` ints (through `mem`: every other int when strided) at
 * etype `start` of the view; *bytes_p: the status count in bytes. */
static void read_view(const char *path, int mode, MPI_Datatype ft, long disp, int start, int count, bool strided,
                      int *out, int *bytes_p)
{
    MPI_Info info = MPI_INFO_NULL;
    if (modes[mode][0] || modes[mode][1]) {
        LC_MPI(MPI_Info_create(&info));
        if (modes[mode][0]) LC_MPI(MPI_Info_set(info, "romio_ds_read", modes[mode][0]));
        if (modes[mode][1]) LC_MPI(MPI_Info_set(info, "ind_rd_buffer_size", modes[mode][1]));
    }
    MPI_File fh;
    LC_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh));
    if (info != MPI_INFO_NULL) LC_MPI(MPI_Info_free(&info));
    LC_MPI(MPI_File_set_view(fh, disp * 4, MPI_INT, ft, "native", MPI_INFO_NULL));
    MPI_Status st;
    if (strided) {
        MPI_Datatype mt;
        LC_MPI(MPI_Type_vector(count, 1, 2, MPI_INT, &mt));
        LC_MPI(MPI_Type_commit(&mt));
        LC_MPI(MPI_File_read_at(fh, start, out, 1, mt, &st));
        LC_MPI(MPI_Type_free(&mt));
    } else {
        LC_MPI(MPI_File_read_at(fh, start, out, count, MPI_INT, &st));
    }
    LC_MPI(MPI_Get_count(&st, MPI_BYTE, bytes_p));
    LC_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    lc_io_tmpdir("io_sieve");
    char path[600];
    lc_io_path(path, sizeof path, "ints");
    if (rank == 0) {
        MPI_File fh;
        int *v = lc_malloc((size_t)(F + 1) * sizeof(int));
        for (int i = 0; i <= F; i++) v[i] = i;
        LC_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
        LC_MPI(MPI_File_write_at(fh, 0, v, F * 4 + 2, MPI_BYTE, MPI_STATUS_IGNORE));
        LC_MPI(MPI_File_close(&fh));
        free(v);
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));

    for (size_t pi = 0; pi < sizeof patterns / sizeof patterns[0]; pi++) {
        const pattern_t *p = &patterns[pi];
        MPI_Datatype ft = pattern_type(p);
        long per, ext;
        pattern_shape(p, &per, &ext);
        long disp = 3L * rank;
        int count = (int)((F / ext + 2) * per); /* runs past the end of the file */
        for (int variant = 0; variant < 3; variant++) {
            bool strided = variant == 2;
            int start = variant == 1 ? 7 : 0;
            size_t words = strided ? 2 * (size_t)count : (size_t)count;
            int *ref = lc_malloc(words * sizeof(int)), *got = lc_malloc(words * sizeof(int));
            int ref_bytes = -1;
            /* The expected ints and count (the last one maybe cut). */
            long whole = 0;
            while (whole < count && pattern_index(p, disp, start + whole) < F) whole++;
            long cut = whole < count && pattern_index(p, disp, start + whole) == F ? 2 : 0;
            /* MPICH 4.0.2's ROMIO counts the whole request in the status
             * of a strided read that meets the end of the file, and what
             * it leaves in the buffer beyond depends on sieving: there,
             * only the ints before the end are checked. */
            bool mpich = lc_library_is_mpich();
            for (int mode = 0; mode < NMODES; mode++) {
                int *out = mode == 0 ? ref : got, bytes;
                memset(out, 0xee, words * sizeof(int));
                read_view(path, mode, ft, disp, start, count, strided, out, &bytes);
                if (mode == 0) {
                    ref_bytes = bytes;
                    LC_CHECK(mpich || bytes == whole * 4 + cut, "%s/%d: %d bytes read, expected %ld", p->name, variant,
                             bytes, whole * 4 + cut);
                    for (long j = 0; j < whole; j++) {
                        int v = out[strided ? 2 * j : j];
                        if (v != pattern_index(p, disp, start + j)) {
                            LC_CHECK(0, "%s/%d: element %ld is %d, expected %ld", p->name, variant, j, v,
                                     pattern_index(p, disp, start + j));
                            break;
                        }
                    }
                    continue;
                }
                if (mpich) {
                    for (long j = 0; j < whole; j++)
                        if (ref[strided ? 2 * j : j] != got[strided ? 2 * j : j]) {
                            LC_CHECK(0, "%s/%d hints %s,%s: element %ld differs from the one read without sieving",
                                     p->name, variant, modes[mode][0] ? modes[mode][0] : "-",
                                     modes[mode][1] ? modes[mode][1] : "-", j);
                            break;
                        }
                    continue;
                }
                LC_CHECK(bytes == ref_bytes, "%s/%d hints %s,%s: %d bytes read, without sieving %d", p->name,
                         variant, modes[mode][0] ? modes[mode][0] : "-", modes[mode][1] ? modes[mode][1] : "-",
                         bytes, ref_bytes);
                LC_CHECK(!memcmp(ref, got, words * sizeof(int)), "%s/%d hints %s,%s: other bytes than without sieving",
                         p->name, variant, modes[mode][0] ? modes[mode][0] : "-",
                         modes[mode][1] ? modes[mode][1] : "-");
            }
            free(ref);
            free(got);
        }
        LC_MPI(MPI_Type_free(&ft));
    }
    lc_io_cleanup();
    return lc_finish();
}
