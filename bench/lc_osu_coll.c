/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_osu_coll.c - collective latency micro-benchmarks after the OSU
 * Micro-Benchmarks methodology, written for Locus from scratch.
 *
 * Standard MPI calls only, so bench/compare.py builds the same source
 * with each MPI's compiler wrapper.
 *
 * For every collective and size, each rank times every call on its own
 * (MPI_Wtime around the call only) and an untimed MPI_Barrier separates
 * iterations, so one call's skew does not leak into the next; barrier is
 * timed as a plain loop.  Reported: the average over ranks of each
 * rank's mean latency, plus the minimum and maximum rank mean (us).
 *
 * Size meaning (bytes):
 *   bcast                 bytes broadcast from rank 0
 *   reduce, allreduce     vector of size/4 floats, MPI_SUM (root 0);
 *                         sizes below 4 B are skipped
 *   gather, scatter,
 *   allgather, alltoall   bytes per rank (per pair for alltoall)
 *   reduce_scatter        size/4 floats *received by each rank*
 *                         (MPI_Reduce_scatter, equal counts)
 *   barrier               no size (printed as 0)
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

typedef enum {
    C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_GATHER, C_SCATTER,
    C_ALLGATHER, C_ALLTOALL, C_REDUCE_SCATTER, C_COUNT
} coll_kind;

static const char *const coll_names[C_COUNT] = {
    "barrier", "bcast", "reduce", "allreduce", "gather", "scatter",
    "allgather", "alltoall", "reduce_scatter"};

typedef struct {
    lc_bench_common_opts com; /* -m -S -i -I -x -X -c -f */
    int tests[C_COUNT];       /* coll_kind */
    int ntests;
} opts_t;

typedef struct {
    int rank, nprocs;
    void *sbuf, *rbuf;      /* max size * nprocs bytes each */
    int *counts;            /* reduce_scatter receive counts, nprocs */
    unsigned long long bad; /* validation failures on this rank */
} ctx_t;

static void usage(const char *prog)
{
    printf("Usage: %s [options]\n"
           "  -t LIST   collectives (default all): barrier,bcast,reduce,allreduce,\n"
           "            gather,scatter,allgather,alltoall,reduce_scatter\n"
           "  -m [MIN:]MAX  power-of-two sizes (bytes, k/m suffixes; default 1:1M)\n"
           "  -S LIST   explicit sizes instead, e.g. -S 8,1k,64k\n"
           "  -i N      timed iterations, sizes <= %zu B (default 1000)\n"
           "  -I N      timed iterations, larger sizes (default 100)\n"
           "  -x N      warm-up iterations, small sizes (default 100)\n"
           "  -X N      warm-up iterations, larger sizes (default 10)\n"
           "  -c        validate results with one checked call per size\n"
           "            (outside the timed loop)\n"
           "  -f FMT    output: table (OMB style, default) or csv\n"
           "  -h        this help\n",
           prog, LC_BENCH_LARGE_THRESHOLD);
}

static void select_all(opts_t *o)
{
    o->ntests = 0;
    for (int k = 0; k < C_COUNT; k++)
        o->tests[o->ntests++] = k;
}

/* Returns 0 to run, 1 for -h, -1 for a usage error (message on rank 0). */
static int parse_args(int argc, char **argv, int rank, opts_t *o)
{
    int c;

    memset(o, 0, sizeof(*o));
    lc_bench_common_init(&o->com);
    select_all(o);
    opterr = 0;
    while ((c = getopt(argc, argv, "t:h" LC_BENCH_COMMON_OPTSTRING)) != -1) {
        int common = lc_bench_common_opt(&o->com, c, optarg);
        if (common < 0)
            goto bad;
        if (common > 0)
            continue;
        switch (c) {
        case 't':
            if (strcmp(optarg, "all") == 0)
                select_all(o);
            else if ((o->ntests = lc_bench_parse_names(optarg, coll_names, C_COUNT, o->tests, C_COUNT)) < 0)
                goto bad;
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

static int is_reduction(coll_kind k)
{
    return k == C_REDUCE || k == C_ALLREDUCE || k == C_REDUCE_SCATTER;
}

/* One call of collective k with `size` bytes as described at the top. */
static void coll_call(ctx_t *c, coll_kind k, size_t size)
{
    int n = (int)size, fc = (int)(size / sizeof(float));

    switch (k) {
    case C_BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    case C_BCAST:
        MPI_Bcast(c->sbuf, n, MPI_CHAR, 0, MPI_COMM_WORLD);
        break;
    case C_REDUCE:
        MPI_Reduce(c->sbuf, c->rbuf, fc, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    case C_ALLREDUCE:
        MPI_Allreduce(c->sbuf, c->rbuf, fc, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case C_GATHER:
        MPI_Gather(c->sbuf, n, MPI_CHAR, c->rbuf, n, MPI_CHAR, 0, MPI_COMM_WORLD);
        break;
    case C_SCATTER:
        MPI_Scatter(c->sbuf, n, MPI_CHAR, c->rbuf, n, MPI_CHAR, 0, MPI_COMM_WORLD);
        break;
    case C_ALLGATHER:
        MPI_Allgather(c->sbuf, n, MPI_CHAR, c->rbuf, n, MPI_CHAR, MPI_COMM_WORLD);
        break;
    case C_ALLTOALL:
        MPI_Alltoall(c->sbuf, n, MPI_CHAR, c->rbuf, n, MPI_CHAR, MPI_COMM_WORLD);
        break;
    case C_REDUCE_SCATTER:
        for (int r = 0; r < c->nprocs; r++)
            c->counts[r] = fc;
        MPI_Reduce_scatter(c->sbuf, c->rbuf, c->counts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case C_COUNT:
        break;
    }
}

/* Per-rank mean latency in us over `iters` timed calls. */
static double time_coll(ctx_t *c, coll_kind k, size_t size, long iters, long warmup)
{
    double total = 0.0;

    MPI_Barrier(MPI_COMM_WORLD);
    if (k == C_BARRIER) {
        double t0 = 0.0;
        for (long i = 0; i < iters + warmup; i++) {
            if (i == warmup)
                t0 = MPI_Wtime();
            MPI_Barrier(MPI_COMM_WORLD);
        }
        return (MPI_Wtime() - t0) * 1e6 / (double)iters;
    }
    for (long i = 0; i < iters + warmup; i++) {
        double t0 = MPI_Wtime();
        coll_call(c, k, size);
        double t1 = MPI_Wtime();
        if (i >= warmup)
            total += t1 - t0;
        /* Untimed: keeps ranks in step between calls (OSU does the same). */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return total * 1e6 / (double)iters;
}

/* Reduction input: rank r, global element j holds (r + 1) + j % 7, small
 * integers that sum exactly in float for any realistic rank count. */
static float red_in(int r, size_t j)
{
    return (float)((r + 1) + (int)(j % 7));
}

static float red_out(int nprocs, size_t j)
{
    return (float)(nprocs * (nprocs + 1) / 2 + nprocs * (int)(j % 7));
}

static uint64_t seed_of(coll_kind k, size_t size, int a, int b)
{
    return ((uint64_t)size << 24) ^ ((uint64_t)k << 56) ^ ((uint64_t)a << 12) ^ (uint64_t)b;
}

static void count_bad(ctx_t *c, coll_kind k, size_t size, size_t bad)
{
    if (bad == 0)
        return;
    fprintf(stderr, "rank %d: %s %zu B: %zu wrong elements\n", c->rank, coll_names[k],
            size, bad);
    c->bad += bad;
}

/* One checked call: inputs are set to known values, outputs poisoned, and
 * every rank verifies what it is defined to receive. */
static void check_coll(ctx_t *c, coll_kind k, size_t size)
{
    int np = c->nprocs, me = c->rank;
    size_t fc = size / sizeof(float), bad = 0;
    float *fs = c->sbuf, *fr = c->rbuf;
    uint8_t *bs = c->sbuf, *br = c->rbuf;

    switch (k) {
    case C_BARRIER:
    case C_COUNT:
        return;
    case C_BCAST:
        lc_bench_pattern_fill(c->sbuf, size, seed_of(k, size, 0, 0), me != 0);
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
        for (size_t j = 0; j < fc; j++) {
            fs[j] = red_in(me, j);
            fr[j] = -1.0f;
        }
        break;
    case C_REDUCE_SCATTER:
        for (size_t j = 0; j < fc * (size_t)np; j++)
            fs[j] = red_in(me, j);
        for (size_t j = 0; j < fc; j++)
            fr[j] = -1.0f;
        break;
    case C_GATHER:
    case C_ALLGATHER:
        lc_bench_pattern_fill(c->sbuf, size, seed_of(k, size, me, 0), 0);
        memset(c->rbuf, 0, size * (size_t)np);
        for (int r = 0; r < np; r++)
            lc_bench_pattern_fill(br + (size_t)r * size, size, seed_of(k, size, r, 0), 1);
        break;
    case C_SCATTER:
        for (int r = 0; r < np; r++)
            lc_bench_pattern_fill(bs + (size_t)r * size, size, seed_of(k, size, r, 0), me != 0);
        lc_bench_pattern_fill(c->rbuf, size, seed_of(k, size, me, 0), 1);
        break;
    case C_ALLTOALL:
        for (int d = 0; d < np; d++) {
            lc_bench_pattern_fill(bs + (size_t)d * size, size, seed_of(k, size, me, d), 0);
            lc_bench_pattern_fill(br + (size_t)d * size, size, seed_of(k, size, d, me), 1);
        }
        break;
    }

    coll_call(c, k, size);

    switch (k) {
    case C_BCAST:
        bad = lc_bench_pattern_check(c->sbuf, size, seed_of(k, size, 0, 0));
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
        if (k == C_ALLREDUCE || me == 0)
            for (size_t j = 0; j < fc; j++)
                bad += fr[j] != red_out(np, j);
        break;
    case C_REDUCE_SCATTER:
        for (size_t j = 0; j < fc; j++)
            bad += fr[j] != red_out(np, (size_t)me * fc + j);
        break;
    case C_GATHER:
    case C_ALLGATHER:
        if (k == C_ALLGATHER || me == 0)
            for (int r = 0; r < np; r++)
                bad += lc_bench_pattern_check(br + (size_t)r * size, size, seed_of(k, size, r, 0));
        break;
    case C_SCATTER:
        bad = lc_bench_pattern_check(c->rbuf, size, seed_of(k, size, me, 0));
        break;
    case C_ALLTOALL:
        for (int s = 0; s < np; s++)
            bad += lc_bench_pattern_check(br + (size_t)s * size, size, seed_of(k, size, s, me));
        break;
    default:
        break;
    }
    count_bad(c, k, size, bad);
}

static void print_header(const opts_t *o, coll_kind k, const lc_bench_iters *it, int np)
{
    char title[128];
    snprintf(title, sizeof(title), "Locus OSU-style MPI %s Latency Test (lc_osu_coll -t %s)",
             coll_names[k], coll_names[k]);
    lc_bench_print_library(title);
    printf("# ranks %d, iterations %ld/%ld, warm-up %ld/%ld (small/large > %zu B)\n", np,
           it->iters, it->iters_large, it->warmup, it->warmup_large,
           LC_BENCH_LARGE_THRESHOLD);
    if (o->com.fmt == LC_BENCH_FMT_CSV)
        printf("test,size,avg_latency_us,min_latency_us,max_latency_us,iterations\n");
    else
        printf("%-10s%18s%18s%18s%12s\n", "# Size", "Avg Latency(us)", "Min Latency(us)",
               "Max Latency(us)", "Iterations");
    fflush(stdout);
}

static void print_row(const opts_t *o, coll_kind k, size_t size, const double v[3], long iters)
{
    if (o->com.fmt == LC_BENCH_FMT_CSV)
        printf("%s,%zu,%.3f,%.3f,%.3f,%ld\n", coll_names[k], size, v[0], v[1], v[2], iters);
    else
        printf("%-10zu%18.2f%18.2f%18.2f%12ld\n", size, v[0], v[1], v[2], iters);
    fflush(stdout);
}

static void run_test(ctx_t *c, const opts_t *o, const lc_bench_sizes *sizes, coll_kind k)
{
    lc_bench_iters it = lc_bench_iters_or(&o->com, (lc_bench_iters){1000, 100, 100, 10});
    static const size_t barrier_size = 0;
    const size_t *sv = k == C_BARRIER ? &barrier_size : sizes->v;
    int n = k == C_BARRIER ? 1 : sizes->n;

    if (c->rank == 0)
        print_header(o, k, &it, c->nprocs);
    for (int s = 0; s < n; s++) {
        size_t size = sv[s];
        long iters = lc_bench_iters_for(&it, size);
        long warmup = lc_bench_warmup_for(&it, size);
        double mine, red[3] = {0.0, 0.0, 0.0};

        if (is_reduction(k) && size < sizeof(float))
            continue;
        mine = time_coll(c, k, size, iters, warmup);
        MPI_Reduce(&mine, &red[0], 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&mine, &red[1], 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(&mine, &red[2], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        red[0] /= (double)c->nprocs;
        if (o->com.validate)
            check_coll(c, k, size);
        if (c->rank == 0)
            print_row(o, k, size, red, iters);
    }
}

int main(int argc, char **argv)
{
    ctx_t c;
    opts_t o;
    lc_bench_sizes sizes = {NULL, 0};
    unsigned long long bad_total = 0;
    size_t maxsz, bytes;
    int prc, status = 0;

    memset(&c, 0, sizeof(c));
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.nprocs);

    prc = parse_args(argc, argv, c.rank, &o);
    if (prc != 0) {
        status = prc > 0 ? 0 : 1;
        goto out;
    }
    if (lc_bench_sizes_for(&o.com, 1, (size_t)1 << 20, &sizes) != 0) {
        if (c.rank == 0)
            fprintf(stderr, "invalid size list\n");
        status = 1;
        goto out;
    }
    maxsz = lc_bench_sizes_max(&sizes);
    if (maxsz > (size_t)0x7fffffff) {
        if (c.rank == 0)
            fprintf(stderr, "message sizes above 2 GiB - 1 are not supported\n");
        status = 1;
        goto out;
    }
    /* Rooted and all-to-all collectives need one block per rank. */
    bytes = maxsz * (size_t)c.nprocs;
    c.sbuf = lc_bench_buf_alloc(bytes);
    c.rbuf = lc_bench_buf_alloc(bytes);
    c.counts = malloc((size_t)c.nprocs * sizeof(*c.counts));
    if (c.sbuf == NULL || c.rbuf == NULL || c.counts == NULL) {
        fprintf(stderr, "rank %d: out of memory for %zu B buffers\n", c.rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    for (int k = 0; k < o.ntests; k++)
        run_test(&c, &o, &sizes, o.tests[k]);

    MPI_Allreduce(&c.bad, &bad_total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (bad_total != 0) {
        if (c.rank == 0)
            fprintf(stderr, "VALIDATION FAILED: %llu wrong elements\n", bad_total);
        status = 2;
    } else if (o.com.validate && c.rank == 0) {
        printf("# validation passed\n");
    }
out:
    lc_bench_sizes_free(&sizes);
    free(c.sbuf);
    free(c.rbuf);
    free(c.counts);
    MPI_Finalize();
    return status;
}
