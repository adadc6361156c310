/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_io_array.c — MPI-IO bandwidth of a block-distributed 3-D array of
 * doubles: every rank owns one block of a global array (MPI_Dims_create
 * over the ranks, remainders spread over the first blocks), described in
 * the file by an MPI_Type_create_subarray filetype set as the view; the
 * whole array is written then read back
 *   - collectively: MPI_File_write_all / MPI_File_read_all ("coll"), and
 *   - independently through the same view: MPI_File_write_at /
 *     MPI_File_read_at at view offset 0, no collective call ("indep").
 * Builds with any MPI, so Locus, MPICH (ROMIO) and Open MPI (OMPIO) run
 * the same source:
 *
 *   mpicc -O2 -o lc_io_array bench/lc_io_array.c bench/lc_bench_util.c
 *   mpiexec -n 4 ./lc_io_array -d /dev/shm [--quick] [-S 64M,1G] [-r 3]
 *                              [-t coll,indep] [-c] [--drop-caches] [-f csv]
 *
 * What is timed (on each rank, after a barrier): the write call and then
 * MPI_File_sync (fsync), so written data has reached the file system, not
 * only the page cache; the read call.  Open, set_view and close are not
 * timed.  Bandwidth = whole array bytes / (last rank's end - first rank's
 * start, on the host's monotonic clock: ranks on one host), the best of R
 * repetitions (-r; a loaded machine interrupts some).  Reads follow
 * the writes and come from the page cache unless --drop-caches (root:
 * "echo 1 > /proc/sys/vm/drop_caches" on rank 0 after the write's close;
 * it empties the page cache of the whole machine, and on tmpfs there is
 * no other copy to read from anyway).
 *
 * -c fills the array with its global element index before each write,
 * poisons the buffer before each read and checks every element read
 * (outside the timed part); exit status 2 and "VALIDATION FAILED" on
 * stderr when a value is wrong.  Each file (DIR/lc_io_array.<id>.dat) is
 * deleted after its repetition.
 */
#include "lc_bench_util.h"

#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank, nprocs, csv, validate, drop_caches, reps = 3;
static unsigned long long bad;  /* elements read back wrong, this rank */
static int drop_failed;         /* --drop-caches could not drop (said once) */

/* Stops the job on an MPI-IO error with the library's own message (files
 * default to MPI_ERRORS_RETURN, so the calls' results are checked). */
#define IO_CHECK(call)                                                        \
    do {                                                                      \
        int rc_ = (call);                                                     \
        if (rc_ != MPI_SUCCESS) {                                             \
            char msg_[MPI_MAX_ERROR_STRING];                                  \
            int len_ = 0;                                                     \
            MPI_Error_string(rc_, msg_, &len_);                               \
            fprintf(stderr, "rank %d: %s failed: %s\n", rank, #call, msg_);   \
            MPI_Abort(MPI_COMM_WORLD, 1);                                     \
        }                                                                     \
    } while (0)

/* The largest divisor of n that is at most lim (>= 1). */
static long long divisor_below(long long n, long long lim)
{
    for (long long d = lim < n ? lim : n; d > 1; d--)
        if (n % d == 0)
            return d;
    return 1;
}

/* Global shape g[0] <= g[1] <= g[2] with g0*g1*g2 = n, as near a cube as n's
 * divisors allow (1 GiB of doubles: 512^3; 64 MiB: 128x256x256).  No libm:
 * the harness links with the MPI wrappers' defaults only. */
static void shape(long long n, int g[3])
{
    long long c = 1, q = 1;  /* smallest c with c^3 >= n, q with q^2 >= n/a */
    while (c * c * c < n)
        c++;
    long long a = divisor_below(n, c);
    long long m = n / a;
    while (q * q < m)
        q++;
    long long b = divisor_below(m, q);
    g[0] = (int)a;
    g[1] = (int)b;
    g[2] = (int)(m / b);
}

/* This rank's block: the array is cut into dims[k] blocks along axis k,
 * the first (g % d) blocks one element longer. */
typedef struct {
    int g[3], l[3], s[3];  /* global sizes, local sizes, starts */
    long long count;       /* local elements */
    MPI_Datatype filetype;
} block;

static int make_block(size_t bytes, block *b)
{
    int dims[3] = { 0, 0, 0 }, c[3];
    shape((long long)(bytes / sizeof(double)), b->g);
    MPI_Dims_create(nprocs, 3, dims);
    /* dims is non-increasing; the most cuts go to the slowest axis */
    c[0] = rank / (dims[1] * dims[2]);
    c[1] = rank / dims[2] % dims[1];
    c[2] = rank % dims[2];
    b->count = 1;
    for (int k = 0; k < 3; k++) {
        int q = b->g[k] / dims[k], r = b->g[k] % dims[k];
        if (q == 0)
            return -1;  /* fewer elements than blocks along this axis */
        b->l[k] = q + (c[k] < r);
        b->s[k] = c[k] * q + (c[k] < r ? c[k] : r);
        b->count *= b->l[k];
    }
    MPI_Type_create_subarray(3, b->g, b->l, b->s, MPI_ORDER_C, MPI_DOUBLE, &b->filetype);
    MPI_Type_commit(&b->filetype);
    return 0;
}

/* Element (i, j, k) of the block holds its global linear index (+ a
 * repetition number, so that a stale file from an earlier one shows). */
static double expected(const block *b, long long i, long long j, long long k, int rep)
{
    long long gi = ((b->s[0] + i) * b->g[1] + (b->s[1] + j)) * (long long)b->g[2] + b->s[2] + k;
    return (double)gi + 0.25 * rep;
}

static void fill(double *buf, const block *b, int rep)
{
    long long n = 0;
    for (long long i = 0; i < b->l[0]; i++)
        for (long long j = 0; j < b->l[1]; j++)
            for (long long k = 0; k < b->l[2]; k++)
                buf[n++] = expected(b, i, j, k, rep);
}

static void check(const double *buf, const block *b, int rep, const char *what)
{
    long long n = 0, wrong = 0, first = -1;
    for (long long i = 0; i < b->l[0]; i++)
        for (long long j = 0; j < b->l[1]; j++)
            for (long long k = 0; k < b->l[2]; k++, n++)
                if (buf[n] != expected(b, i, j, k, rep) && wrong++ == 0)
                    first = n;
    if (wrong) {
        fprintf(stderr, "rank %d: %s: %lld of %lld doubles read back wrong (first at local %lld: "
                "%g, expected %g)\n", rank, what, wrong, b->count, first, buf[first],
                expected(b, first / ((long long)b->l[1] * b->l[2]),
                         first / b->l[2] % b->l[1], first % b->l[2], rep));
        bad += (unsigned long long)wrong;
    }
}

/* Between the write and the read phase, when asked: rank 0 flushes and
 * drops the machine's page cache so that the read comes from the device. */
static void maybe_drop_caches(void)
{
    if (!drop_caches)
        return;
    if (rank == 0) {
        sync();
        int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
        if (fd < 0 || write(fd, "1\n", 2) != 2) {
            if (!drop_failed)
                fprintf(stderr, "# --drop-caches: cannot write /proc/sys/vm/drop_caches (%s): "
                        "reads come from the page cache\n", strerror(errno));
            drop_failed = 1;
        }
        if (fd >= 0)
            close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The machine's monotonic clock: one clock for every process on a host,
 * whatever MPI_Wtime's origin is in each MPI. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Time from the first rank's start to the last rank's end, on every rank.
 * Not the longest per-rank time: with more ranks than cores the ranks'
 * accesses may run one after the other, each short, and the array is only
 * written when the last one is done.  Needs the ranks on one host (as in
 * the harness' scenarios); across hosts it needs synchronised clocks. */
static double span(double t0, double t1)
{
    double in[2] = { -t0, t1 }, out[2];
    MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return out[1] + out[0];
}

static void open_view(const char *path, int amode, const block *b, MPI_File *fh)
{
    IO_CHECK(MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, fh));
    IO_CHECK(MPI_File_set_view(*fh, 0, MPI_DOUBLE, b->filetype, "native", MPI_INFO_NULL));
}

/* One repetition of mode (0 coll, 1 indep): write+sync, close, [drop],
 * open, read.  Returns the write and read times (first start to last end). */
static void one_rep(int mode, const char *path, const block *b, double *buf, int rep,
                    double *tw, double *tr)
{
    MPI_File fh;
    int count = (int)b->count;
    double t0;

    fill(buf, b, rep);
    open_view(path, MPI_MODE_CREATE | MPI_MODE_WRONLY, b, &fh);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = now();
    if (mode == 0)
        IO_CHECK(MPI_File_write_all(fh, buf, count, MPI_DOUBLE, MPI_STATUS_IGNORE));
    else
        IO_CHECK(MPI_File_write_at(fh, 0, buf, count, MPI_DOUBLE, MPI_STATUS_IGNORE));
    IO_CHECK(MPI_File_sync(fh));
    *tw = span(t0, now());
    IO_CHECK(MPI_File_close(&fh));

    maybe_drop_caches();
    if (validate)
        for (long long n = 0; n < b->count; n++)
            buf[n] = -1.0;
    open_view(path, MPI_MODE_RDONLY, b, &fh);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = now();
    if (mode == 0)
        IO_CHECK(MPI_File_read_all(fh, buf, count, MPI_DOUBLE, MPI_STATUS_IGNORE));
    else
        IO_CHECK(MPI_File_read_at(fh, 0, buf, count, MPI_DOUBLE, MPI_STATUS_IGNORE));
    *tr = span(t0, now());
    IO_CHECK(MPI_File_close(&fh));
    if (validate)
        check(buf, b, rep, mode == 0 ? "read_all" : "read_at");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        IO_CHECK(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);
}

static void report(const char *test, size_t bytes, double secs)
{
    double mibs = (double)bytes / (1024.0 * 1024.0) / secs;
    if (csv)
        printf("%s,%zu,%.1f,%.4f\n", test, bytes, mibs, secs);
    else
        printf("%-12s %8zu %10.0f %9.3f\n", test, bytes >> 20, mibs, secs);
    fflush(stdout);
}

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: lc_io_array -d DIR [--quick] [-S SIZES] [-r REPS] "
                "[-t coll,indep] [-c] [--drop-caches] [-f table|csv]\n"
                "  SIZES: comma list of total array sizes, e.g. 64M,256M,1G "
                "(default 64M,256M,1G; --quick 64M,256M)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
    static const char *const modes[] = { "coll", "indep" };
    const char *dir = NULL, *sizes_spec = NULL;
    int quick = 0, sel[2] = { 0, 1 }, nsel = 2;
    lc_bench_sizes sizes;
    char path[4096];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long r;
        if (strcmp(a, "--quick") == 0) quick = 1;
        else if (strcmp(a, "-c") == 0) validate = 1;
        else if (strcmp(a, "--drop-caches") == 0) drop_caches = 1;
        else if (v && strcmp(a, "-d") == 0) dir = v, i++;
        else if (v && strcmp(a, "-S") == 0) sizes_spec = v, i++;
        else if (v && strcmp(a, "-r") == 0 && lc_bench_parse_long(v, &r, 0) == 0 && r < 1000)
            reps = (int)r, i++;
        else if (v && strcmp(a, "-t") == 0 && (nsel = lc_bench_parse_names(v, modes, 2, sel, 2)) > 0)
            i++;
        else if (v && strcmp(a, "-f") == 0 && (strcmp(v, "csv") == 0 || strcmp(v, "table") == 0))
            csv = strcmp(v, "csv") == 0, i++;
        else
            usage();
    }
    if (dir == NULL)
        usage();
    if (lc_bench_sizes_from_list(sizes_spec ? sizes_spec : quick ? "64M,256M" : "64M,256M,1G",
                                 &sizes) != 0)
        usage();
    /* One file name for the whole job, unique on this machine. */
    {
        long id = (long)getpid();
        MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        snprintf(path, sizeof path, "%s/lc_io_array.%ld.dat", dir, id);
    }
    if (rank == 0) {
        lc_bench_print_library("MPI-IO: block-distributed 3-D array of doubles");
        printf("# %d ranks, files in %s, best of %d repetitions; bandwidth = array bytes / "
               "(last rank's end - first rank's start)\n", nprocs, dir, reps);
        printf("# write = write_all|write_at + MPI_File_sync (fsync) before the clock stops; "
               "open, set_view and close not timed\n");
        printf("# read right after the write: %s\n",
               drop_caches ? "page cache dropped in between (--drop-caches)"
                           : "from the page cache (no --drop-caches)");
        if (csv)
            printf("test,size,bandwidth_MiBps,seconds\n");
        else
            printf("%-12s %8s %10s %9s\n", "test", "MiB", "MiB/s", "s");
    }
    for (int z = 0; z < sizes.n; z++) {
        size_t bytes = sizes.v[z];
        block b;
        if (bytes % sizeof(double) != 0 || make_block(bytes, &b) != 0) {
            if (rank == 0)
                fprintf(stderr, "lc_io_array: size %zu is not a multiple of 8 or too small for "
                        "%d blocks\n", bytes, nprocs);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (b.count > 0x7fffffffLL) {
            if (rank == 0)
                fprintf(stderr, "lc_io_array: %zu bytes over %d ranks is over 2^31 doubles per "
                        "rank\n", bytes, nprocs);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (rank == 0 && !csv)
            printf("# %zu MiB: global %d x %d x %d, rank 0 block %d x %d x %d\n", bytes >> 20,
                   b.g[0], b.g[1], b.g[2], b.l[0], b.l[1], b.l[2]);
        double *buf = lc_bench_buf_alloc((size_t)b.count * sizeof(double));
        int ok = buf != NULL, all_ok;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all_ok) {
            if (rank == 0)
                fprintf(stderr, "lc_io_array: out of memory for %zu bytes\n", bytes);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int s = 0; s < nsel; s++) {
            int mode = sel[s];
            double bw = 1e30, br = 1e30;
            for (int r = 0; r < reps; r++) {
                double tw, tr;
                one_rep(mode, path, &b, buf, r, &tw, &tr);
                if (tw < bw) bw = tw;
                if (tr < br) br = tr;
            }
            if (rank == 0) {
                char name[32];
                snprintf(name, sizeof name, "%s_write", modes[mode]);
                report(name, bytes, bw);
                snprintf(name, sizeof name, "%s_read", modes[mode]);
                report(name, bytes, br);
            }
        }
        free(buf);
        MPI_Type_free(&b.filetype);
    }
    lc_bench_sizes_free(&sizes);
    /* Every rank learns the validation outcome so all exit alike. */
    unsigned long long bad_total = 0;
    MPI_Allreduce(&bad, &bad_total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    int rc = 0;
    if (bad_total != 0) {
        if (rank == 0)
            fprintf(stderr, "VALIDATION FAILED: %llu doubles read back wrong\n", bad_total);
        rc = 2;
    } else if (validate && rank == 0) {
        printf("# validation passed\n");
    }
    MPI_Finalize();
    return rc;
}
