/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_osu_pt2pt.c - point-to-point micro-benchmarks after the OSU
 * Micro-Benchmarks methodology, written for Locus from scratch.
 *
 * Standard MPI calls only: the same source is built with Locus', MPICH's
 * and Open MPI's compiler wrappers so that bench/compare.py can compare
 * them like for like.
 *
 * Tests (-t, comma list allowed):
 *   lat   ping-pong with blocking MPI_Send/MPI_Recv between ranks 0 and 1;
 *         reports half the round-trip time in microseconds.
 *   bw    rank 0 posts a window of W MPI_Isend (default 64), MPI_Waitall,
 *         then waits for a 4-byte acknowledgement that rank 1 sends after
 *         its W MPI_Irecv completed; reports MB/s (1 MB = 1e6 bytes).
 *   bibw  both ranks post W MPI_Irecv and W MPI_Isend each window and
 *         wait for all of them; reports the sum of both directions, MB/s.
 *   mr    P pairs (rank i sends to rank i+P) run the bw loop at the same
 *         time; reports the aggregate MB/s and messages per second.
 *
 * As in OSU, every message of a window uses the same send buffer and the
 * same receive buffer: the numbers are for cache-warm buffers.  Buffers
 * are page-aligned and written once before any timing.
 *
 * Exit status: 0 success, 1 bad usage or setup failure, 2 validation
 * failure (-c).
 */
#include "lc_bench_util.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAG_DATA 100
#define TAG_ACK 101
#define TAG_CHECK 102
#define ACK_BYTES 4
#define MAX_TESTS 8

typedef enum { T_LAT, T_BW, T_BIBW, T_MR, T_COUNT } test_kind;

static const char *const test_names[T_COUNT] = {"lat", "bw", "bibw", "mr"};

typedef struct {
    lc_bench_common_opts com; /* -m -S -i -I -x -X -c -f */
    int tests[MAX_TESTS];     /* test_kind */
    int ntests;
    int window;
    int pairs;                /* mr: 0 means nprocs / 2 */
} opts_t;

typedef struct {
    int rank, nprocs;
    void *sbuf, *rbuf;      /* data buffers, max size each */
    char ack[ACK_BYTES];
    MPI_Request *reqs;      /* 2 * window */
    /* Real status arrays rather than MPI_STATUSES_IGNORE, as OSU does;
     * also keeps gcc 12's -Wstringop-overflow quiet with MPICH's header,
     * which defines MPI_STATUSES_IGNORE as a small integer cast. */
    MPI_Status *stats;      /* 2 * window */
    unsigned long long bad; /* bytes that failed validation on this rank */
} ctx_t;

static void usage(const char *prog)
{
    printf("Usage: %s [options]\n"
           "  -t LIST   tests: lat,bw,bibw,mr (default lat)\n"
           "  -m [MIN:]MAX  power-of-two sizes (bytes, k/m suffixes; default\n"
           "            lat 0:4M, others 1:4M)\n"
           "  -S LIST   explicit sizes instead, e.g. -S 8,4k,1m\n"
           "  -i N      timed iterations, sizes <= %zu B\n"
           "  -I N      timed iterations, larger sizes\n"
           "  -x N      warm-up iterations, sizes <= %zu B\n"
           "  -X N      warm-up iterations, larger sizes\n"
           "            defaults: lat 10000/1000 and 100/10; bw, bibw, mr\n"
           "            100/20 windows and 10/2\n"
           "  -W N      window size for bw, bibw, mr (default 64)\n"
           "  -p N      pairs for mr (default nprocs/2)\n"
           "  -c        validate data with one checked exchange per size\n"
           "            (outside the timed loop)\n"
           "  -f FMT    output: table (OMB style, default) or csv\n"
           "  -h        this help\n",
           prog, LC_BENCH_LARGE_THRESHOLD, LC_BENCH_LARGE_THRESHOLD);
}

/* Returns 0 to run, 1 for -h, -1 for a usage error (message on rank 0). */
static int parse_args(int argc, char **argv, int rank, opts_t *o)
{
    long v;
    int c;

    memset(o, 0, sizeof(*o));
    lc_bench_common_init(&o->com);
    o->tests[0] = T_LAT;
    o->ntests = 1;
    o->window = 64;
    opterr = 0;
    while ((c = getopt(argc, argv, "t:W:p:h" LC_BENCH_COMMON_OPTSTRING)) != -1) {
        int common = lc_bench_common_opt(&o->com, c, optarg);
        if (common < 0)
            goto bad;
        if (common > 0)
            continue;
        switch (c) {
        case 't':
            o->ntests = lc_bench_parse_names(optarg, test_names, T_COUNT, o->tests, MAX_TESTS);
            if (o->ntests < 0)
                goto bad;
            break;
        case 'W':
            if (lc_bench_parse_long(optarg, &v, 0) || v > 1 << 16)
                goto bad;
            o->window = (int)v;
            break;
        case 'p':
            if (lc_bench_parse_long(optarg, &v, 0) || v > 1 << 20)
                goto bad;
            o->pairs = (int)v;
            break;
        case 'h':
            if (rank == 0)
                usage(argv[0]);
            return 1;
        default:
            goto bad;
        }
    }
    if (optind != argc || lc_bench_common_check(&o->com) != 0)
        goto bad;
    return 0;
bad:
    if (rank == 0) {
        fprintf(stderr, "%s: invalid arguments\n", argv[0]);
        usage(argv[0]);
    }
    return -1;
}

static lc_bench_iters iters_for_test(const opts_t *o, test_kind t)
{
    /* OSU's defaults: many short ping-pongs, fewer (costly) windows. */
    return lc_bench_iters_or(&o->com, t == T_LAT ? (lc_bench_iters){10000, 1000, 100, 10}
                                                 : (lc_bench_iters){100, 20, 10, 2});
}

static int sizes_for_test(const opts_t *o, test_kind t, lc_bench_sizes *s)
{
    return lc_bench_sizes_for(&o->com, t == T_LAT ? 0 : 1, (size_t)4 << 20, s);
}

/* One message src -> dst outside the timed loop: src sends the pattern,
 * dst first poisons its buffer with the complement so that bytes the MPI
 * failed to write are counted as errors. */
static void check_one(ctx_t *c, int src, int dst, size_t size, uint64_t seed)
{
    if (c->rank == src) {
        lc_bench_pattern_fill(c->sbuf, size, seed, 0);
        MPI_Send(c->sbuf, (int)size, MPI_CHAR, dst, TAG_CHECK, MPI_COMM_WORLD);
    } else if (c->rank == dst) {
        size_t bad;
        MPI_Status st;
        int count = -1;
        lc_bench_pattern_fill(c->rbuf, size, seed, 1);
        MPI_Recv(c->rbuf, (int)size, MPI_CHAR, src, TAG_CHECK, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_CHAR, &count);
        bad = lc_bench_pattern_check(c->rbuf, size, seed);
        if (count != (int)size || st.MPI_SOURCE != src || st.MPI_TAG != TAG_CHECK) {
            fprintf(stderr, "rank %d: check %zu B from %d: count %d source %d tag %d\n",
                    c->rank, size, src, count, st.MPI_SOURCE, st.MPI_TAG);
            bad++;
        }
        if (bad != 0)
            fprintf(stderr, "rank %d: check %zu B from %d: %zu bad bytes\n",
                    c->rank, size, src, bad);
        c->bad += bad;
    }
}

static double run_lat(ctx_t *c, size_t size, long iters, long warmup)
{
    double t0 = 0.0;
    int n = (int)size;

    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < iters + warmup; i++) {
        if (i == warmup)
            t0 = MPI_Wtime();
        if (c->rank == 0) {
            MPI_Send(c->sbuf, n, MPI_CHAR, 1, TAG_DATA, MPI_COMM_WORLD);
            MPI_Recv(c->rbuf, n, MPI_CHAR, 1, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (c->rank == 1) {
            MPI_Recv(c->rbuf, n, MPI_CHAR, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(c->sbuf, n, MPI_CHAR, 0, TAG_DATA, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) * 1e6 / (2.0 * (double)iters);
}

/* The bw/mr window loop between one sender and one receiver; returns the
 * sender's elapsed time over the timed windows (0 on the receiver). */
static double window_loop(ctx_t *c, int peer, int sender, size_t size,
                          int window, long iters, long warmup)
{
    double t0 = 0.0;
    int n = (int)size;

    for (long i = 0; i < iters + warmup; i++) {
        if (i == warmup)
            t0 = MPI_Wtime();
        if (sender) {
            for (int w = 0; w < window; w++)
                MPI_Isend(c->sbuf, n, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD, &c->reqs[w]);
            MPI_Waitall(window, c->reqs, c->stats);
            MPI_Recv(c->ack, ACK_BYTES, MPI_CHAR, peer, TAG_ACK, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            for (int w = 0; w < window; w++)
                MPI_Irecv(c->rbuf, n, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD, &c->reqs[w]);
            MPI_Waitall(window, c->reqs, c->stats);
            MPI_Send(c->ack, ACK_BYTES, MPI_CHAR, peer, TAG_ACK, MPI_COMM_WORLD);
        }
    }
    return sender ? MPI_Wtime() - t0 : 0.0;
}

static double run_bw(ctx_t *c, size_t size, int window, long iters, long warmup)
{
    double t;

    MPI_Barrier(MPI_COMM_WORLD);
    t = window_loop(c, 1 - c->rank, c->rank == 0, size, window, iters, warmup);
    return c->rank == 0 ? (double)size / 1e6 * (double)iters * window / t : 0.0;
}

static double run_bibw(ctx_t *c, size_t size, int window, long iters, long warmup)
{
    int peer = 1 - c->rank, n = (int)size;
    double t0 = 0.0, t;

    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < iters + warmup; i++) {
        if (i == warmup)
            t0 = MPI_Wtime();
        for (int w = 0; w < window; w++)
            MPI_Irecv(c->rbuf, n, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD, &c->reqs[w]);
        for (int w = 0; w < window; w++)
            MPI_Isend(c->sbuf, n, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD,
                      &c->reqs[window + w]);
        MPI_Waitall(2 * window, c->reqs, c->stats);
    }
    t = MPI_Wtime() - t0;
    return (double)size / 1e6 * (double)iters * window * 2.0 / t;
}

/* Aggregate over pairs: out[0] MB/s, out[1] messages/s (valid on rank 0). */
static void run_mr(ctx_t *c, size_t size, int window, int pairs, long iters,
                   long warmup, double out[2])
{
    double mine[2] = {0.0, 0.0};

    MPI_Barrier(MPI_COMM_WORLD);
    if (c->rank < 2 * pairs) {
        int sender = c->rank < pairs;
        int peer = sender ? c->rank + pairs : c->rank - pairs;
        double t = window_loop(c, peer, sender, size, window, iters, warmup);
        if (sender) {
            double msgs = (double)iters * window;
            mine[0] = (double)size / 1e6 * msgs / t;
            mine[1] = msgs / t;
        }
    }
    MPI_Reduce(mine, out, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}

static void print_header(const opts_t *o, test_kind t, const lc_bench_iters *it,
                         int nprocs, int pairs)
{
    static const char *const titles[] = {
        "Locus OSU-style MPI Latency Test (lc_osu_pt2pt -t lat)",
        "Locus OSU-style MPI Bandwidth Test (lc_osu_pt2pt -t bw)",
        "Locus OSU-style MPI Bi-Directional Bandwidth Test (lc_osu_pt2pt -t bibw)",
        "Locus OSU-style MPI Multiple Bandwidth / Message Rate Test (lc_osu_pt2pt -t mr)",
    };
    lc_bench_print_library(titles[t]);
    printf("# ranks %d, iterations %ld/%ld, warm-up %ld/%ld (small/large > %zu B)",
           nprocs, it->iters, it->iters_large, it->warmup, it->warmup_large,
           LC_BENCH_LARGE_THRESHOLD);
    if (t != T_LAT)
        printf(", window %d", o->window);
    if (t == T_MR)
        printf(", pairs %d", pairs);
    printf("\n");
    if (o->com.fmt == LC_BENCH_FMT_CSV) {
        static const char *const cols[] = {
            "latency_us", "bandwidth_MBps", "bandwidth_MBps",
            "bandwidth_MBps,messages_per_s"};
        printf("test,size,%s\n", cols[t]);
    } else if (t == T_LAT) {
        printf("%-10s%20s\n", "# Size", "Latency (us)");
    } else if (t == T_MR) {
        printf("%-10s%20s%20s\n", "# Size", "MB/s", "Messages/s");
    } else {
        printf("%-10s%20s\n", "# Size", "Bandwidth (MB/s)");
    }
    fflush(stdout);
}

static void print_row(const opts_t *o, test_kind t, size_t size, double v0, double v1)
{
    if (o->com.fmt == LC_BENCH_FMT_CSV) {
        if (t == T_MR)
            printf("%s,%zu,%.3f,%.1f\n", test_names[t], size, v0, v1);
        else
            printf("%s,%zu,%.3f\n", test_names[t], size, v0);
    } else if (t == T_MR) {
        printf("%-10zu%20.2f%20.2f\n", size, v0, v1);
    } else {
        printf("%-10zu%20.2f\n", size, v0);
    }
    fflush(stdout);
}

/* Runs one test over its sizes. Returns 0, or -1 on a setup error. */
static int run_test(ctx_t *c, const opts_t *o, test_kind t)
{
    lc_bench_sizes sizes;
    lc_bench_iters it = iters_for_test(o, t);
    int pairs = o->pairs > 0 ? o->pairs : c->nprocs / 2;

    if (t != T_MR && c->nprocs != 2) {
        if (c->rank == 0)
            fprintf(stderr, "test %s needs exactly 2 ranks (have %d)\n",
                    test_names[t], c->nprocs);
        return -1;
    }
    if (t == T_MR && (pairs < 1 || 2 * pairs > c->nprocs)) {
        if (c->rank == 0)
            fprintf(stderr, "test mr: %d pairs need %d ranks (have %d)\n", pairs,
                    2 * pairs, c->nprocs);
        return -1;
    }
    if (sizes_for_test(o, t, &sizes) != 0) {
        if (c->rank == 0)
            fprintf(stderr, "invalid size list\n");
        return -1;
    }
    if (c->rank == 0)
        print_header(o, t, &it, c->nprocs, pairs);

    for (int k = 0; k < sizes.n; k++) {
        size_t size = sizes.v[k];
        long iters = lc_bench_iters_for(&it, size);
        long warmup = lc_bench_warmup_for(&it, size);
        double v[2] = {0.0, 0.0};
        uint64_t seed = ((uint64_t)size << 4) | (uint64_t)t;

        switch (t) {
        case T_LAT: v[0] = run_lat(c, size, iters, warmup); break;
        case T_BW: v[0] = run_bw(c, size, o->window, iters, warmup); break;
        case T_BIBW: v[0] = run_bibw(c, size, o->window, iters, warmup); break;
        case T_MR: run_mr(c, size, o->window, pairs, iters, warmup, v); break;
        case T_COUNT: break;
        }
        if (o->com.validate) {
            if (t == T_MR) {
                for (int p = 0; p < pairs; p++)
                    check_one(c, p, p + pairs, size, seed + ((uint64_t)p << 40));
            } else {
                check_one(c, 0, 1, size, seed);
                if (t != T_BW)
                    check_one(c, 1, 0, size, seed + (1ULL << 40));
            }
        }
        if (c->rank == 0)
            print_row(o, t, size, v[0], v[1]);
    }
    lc_bench_sizes_free(&sizes);
    return 0;
}

/* The largest message any selected test will use. */
static size_t max_size_needed(const opts_t *o)
{
    size_t m = 0;
    for (int k = 0; k < o->ntests; k++) {
        lc_bench_sizes s;
        if (sizes_for_test(o, o->tests[k], &s) != 0)
            continue; /* reported by run_test */
        if (lc_bench_sizes_max(&s) > m)
            m = lc_bench_sizes_max(&s);
        lc_bench_sizes_free(&s);
    }
    return m;
}

int main(int argc, char **argv)
{
    ctx_t c;
    opts_t o;
    int prc, status = 0;
    unsigned long long bad_total = 0;
    size_t maxsz;

    memset(&c, 0, sizeof(c));
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.nprocs);

    prc = parse_args(argc, argv, c.rank, &o);
    if (prc != 0) {
        status = prc > 0 ? 0 : 1;
        goto out;
    }
    maxsz = max_size_needed(&o);
    if (maxsz > (size_t)0x7fffffff) {
        if (c.rank == 0)
            fprintf(stderr, "message sizes above 2 GiB - 1 are not supported\n");
        status = 1;
        goto out;
    }
    c.sbuf = lc_bench_buf_alloc(maxsz);
    c.rbuf = lc_bench_buf_alloc(maxsz);
    c.reqs = malloc(2 * (size_t)o.window * sizeof(*c.reqs));
    c.stats = malloc(2 * (size_t)o.window * sizeof(*c.stats));
    if (c.sbuf == NULL || c.rbuf == NULL || c.reqs == NULL || c.stats == NULL) {
        fprintf(stderr, "rank %d: out of memory for %zu B buffers\n", c.rank, maxsz);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(c.ack, 0, sizeof(c.ack));

    for (int k = 0; k < o.ntests && status == 0; k++)
        if (run_test(&c, &o, o.tests[k]) != 0)
            status = 1;

    /* Every rank learns the validation outcome so all exit alike. */
    MPI_Allreduce(&c.bad, &bad_total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (bad_total != 0) {
        if (c.rank == 0)
            fprintf(stderr, "VALIDATION FAILED: %llu bad bytes/messages\n", bad_total);
        status = 2;
    } else if (o.com.validate && status == 0 && c.rank == 0) {
        printf("# validation passed\n");
    }
out:
    free(c.sbuf);
    free(c.rbuf);
    free(c.reqs);
    free(c.stats);
    MPI_Finalize();
    return status;
}
