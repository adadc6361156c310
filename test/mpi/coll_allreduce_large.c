/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_allreduce_large: MPI_Allreduce (and MPI_Reduce_scatter_block) of
 * long vectors of doubles, whose sums depend on the order of the
 * additions, in every form.
 *
 * For counts from 1 to past 1 MiB (odd ones included), the blocking
 * call, MPI_Iallreduce and MPI_Allreduce_init, each out of place and with
 * MPI_IN_PLACE, with MPI_SUM and with a commutative user operation that
 * adds, and a contiguous derived type of two doubles with a user
 * operation: the result must match the exact sum within rounding, and on
 * Locus every form must give the blocking call's bits (same algorithm,
 * same operand order; docs/architecture.md "Schedules") on every rank.
 *
 * Work: the user operation counts the elements this rank reduces.  A
 * long vector on 2 or 4 ranks must be reduced by reduce-scatter +
 * allgather, each rank folding (p-1)/p of the vector, not the whole
 * vector log2(p) times as recursive doubling does (Locus only: MPICH
 * 4.0.2 takes recursive doubling for user operations). */
#include "lc_test.h"

#include <stdint.h>

static long reduced; /* elements this rank's user operations folded */

static void add_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const double *a = in;
    double *b = inout;
    for (int i = 0; i < *len; i++) b[i] = a[i] + b[i];
    reduced += *len;
}

/* On the pair type (two doubles per element). */
static void add2_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const double *a = in;
    double *b = inout;
    for (int i = 0; i < 2 * *len; i++) b[i] = a[i] + b[i];
}

/* Rank r's element i: magnitudes spread over many binary orders, so that
 * different association orders give different bits. */
static double val(int r, long i)
{
    uint32_t h = (uint32_t)lc_pattern(r, 5, i);
    double m = (double)(h % 100003u) / 7.0;
    return (h & 64u) ? m * 1e6 : -m * 1e-3;
}

static void fill(double *b, long n, int r)
{
    for (long i = 0; i < n; i++) b[i] = val(r, i);
}

static double absd(double x)
{
    return x < 0 ? -x : x;
}

/* The sum over ranks within rounding: |x| terms of up to 1.5e10 over p
 * ranks. */
static int near(double got, long i, int p)
{
    double want = 0, mag = 0;
    for (int r = 0; r < p; r++) {
        want += val(r, i);
        mag += absd(val(r, i));
    }
    return absd(got - want) <= 1e-12 * mag + 1e-300;
}

typedef enum { F_BLOCKING, F_NONBLOCKING, F_PERSISTENT, F_COUNT } form_t;
static const char *rs_names[F_COUNT] = { "MPI_Reduce_scatter_block", "MPI_Ireduce_scatter_block",
                                         "MPI_Reduce_scatter_block_init" };

static void run_rs(form_t f, const void *in, void *out, int n, MPI_Op op)
{
    MPI_Request req;
    switch (f) {
    case F_BLOCKING:
        LC_MPI(MPI_Reduce_scatter_block(in, out, n, MPI_DOUBLE, op, MPI_COMM_WORLD));
        break;
    case F_NONBLOCKING:
        LC_MPI(MPI_Ireduce_scatter_block(in, out, n, MPI_DOUBLE, op, MPI_COMM_WORLD, &req));
        LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        break;
    case F_PERSISTENT:
        LC_MPI(MPI_Reduce_scatter_block_init(in, out, n, MPI_DOUBLE, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
        LC_MPI(MPI_Start(&req));
        LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        LC_MPI(MPI_Request_free(&req));
        break;
    default:
        break;
    }
}

/* Reduce_scatter_block of n per rank: block r of the sum, every form and
 * in place or not with MPI_SUM and the user add, bit-equal to the
 * blocking MPI_SUM result on Locus, near the exact sums elsewhere. */
static void check_rs(int n, int r, int p, MPI_Op add, int locus, double *in, double *out, double *ref)
{
    long total = (long)n * p;
    fill(in, total, r);
    LC_MPI(MPI_Reduce_scatter_block(in, ref, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    for (long i = 0; i < n; i++)
        if (!near(ref[i], (long)r * n + i, p)) {
            LC_CHECK(0, "reduce_scatter_block count %d: [%ld] = %.17g", n, i, ref[i]);
            break;
        }
    for (int f = 0; f < F_COUNT; f++)
        for (int oi = 0; oi < 2; oi++)
            for (int inplace = 0; inplace < 2; inplace++) {
                memset(out, 0xa5, (size_t)total * sizeof(double));
                if (inplace) fill(out, total, r);
                run_rs((form_t)f, inplace ? MPI_IN_PLACE : in, out, n, oi ? add : MPI_SUM);
                long bad = 0;
                for (long i = 0; i < n; i++)
                    bad += locus ? memcmp(&out[i], &ref[i], sizeof(double)) != 0 : !near(out[i], (long)r * n + i, p);
                LC_CHECK(bad == 0, "%s%s %s count %d: %ld elements differ from %s", rs_names[f],
                         inplace ? " in place" : "", oi ? "user add" : "MPI_SUM", n, bad,
                         locus ? "the blocking bits" : "the sums");
            }
}
static const char *form_names[F_COUNT] = { "MPI_Allreduce", "MPI_Iallreduce", "MPI_Allreduce_init" };

static void run(form_t f, const void *in, void *out, int n, MPI_Datatype dt, MPI_Op op)
{
    MPI_Request req;
    switch (f) {
    case F_BLOCKING:
        LC_MPI(MPI_Allreduce(in, out, n, dt, op, MPI_COMM_WORLD));
        break;
    case F_NONBLOCKING:
        LC_MPI(MPI_Iallreduce(in, out, n, dt, op, MPI_COMM_WORLD, &req));
        LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        break;
    case F_PERSISTENT:
        LC_MPI(MPI_Allreduce_init(in, out, n, dt, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
        LC_MPI(MPI_Start(&req));
        LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        LC_MPI(MPI_Request_free(&req));
        break;
    default:
        break;
    }
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int r, p;
    LC_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    LC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &p));
    int locus = !lc_library_is_mpich();
    MPI_Op add, add2;
    LC_MPI(MPI_Op_create(add_fn, 1, &add));
    LC_MPI(MPI_Op_create(add2_fn, 1, &add2));
    MPI_Datatype pair;
    LC_MPI(MPI_Type_contiguous(2, MPI_DOUBLE, &pair));
    LC_MPI(MPI_Type_commit(&pair));

    static const int counts[] = { 1, 7, 1001, 4097, 65535, 131072, 131075 };
    int maxn = 131075;
    /* room for pairs, and for reduce_scatter_block's p blocks */
    size_t cap = (size_t)maxn * (size_t)(p > 2 ? p : 2);
    double *in = lc_malloc(cap * sizeof(double)), *ref = lc_malloc(cap * sizeof(double));
    double *out = lc_malloc(cap * sizeof(double)), *all = lc_malloc((size_t)maxn * sizeof(double));
    for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
        int n = counts[ci];
        fill(in, n, r);
        LC_MPI(MPI_Allreduce(in, ref, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        long bad = 0, first = -1;
        for (long i = 0; i < n; i++)
            if (!near(ref[i], i, p) && bad++ == 0) first = i;
        LC_CHECK(bad == 0, "count %d: %ld sums wrong, first [%ld] = %.17g", n, bad, first,
                 first >= 0 ? ref[first] : 0.0);
        /* every rank the same bits */
        LC_MPI(MPI_Allreduce(ref, all, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
        LC_CHECK(memcmp(all, ref, (size_t)n * sizeof(double)) == 0, "count %d: ranks got different bits", n);

        for (int f = 0; f < F_COUNT; f++)
            for (int oi = 0; oi < 2; oi++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    MPI_Op op = oi ? add : MPI_SUM;
                    memset(out, 0xa5, (size_t)n * sizeof(double));
                    if (inplace) fill(out, n, r);
                    reduced = 0;
                    run((form_t)f, inplace ? MPI_IN_PLACE : in, out, n, MPI_DOUBLE, op);
                    const char *what = oi ? "user add" : "MPI_SUM";
                    if (locus) {
                        long diff = 0;
                        for (long i = 0; i < n; i++) diff += memcmp(&out[i], &ref[i], sizeof(double)) != 0;
                        LC_CHECK(diff == 0, "%s%s %s count %d: %ld elements differ from MPI_Allreduce's bits",
                                 form_names[f], inplace ? " in place" : "", what, n, diff);
                    } else {
                        for (long i = 0; i < n; i++)
                            if (!near(out[i], i, p)) {
                                LC_CHECK(0, "%s%s %s count %d: [%ld] = %.17g", form_names[f],
                                         inplace ? " in place" : "", what, n, i, out[i]);
                                break;
                            }
                    }
                    /* Work: (p-1)/p of the vector per rank, a few elements
                     * of uneven blocks aside.  Locus's choice (MPICH 4.0.2
                     * runs user operations by recursive doubling). */
                    if (locus && oi && f == F_BLOCKING && n >= 65535 && (p == 2 || p == 4))
                        LC_CHECK(reduced <= (long)n * (p - 1) / p + p,
                                 "%s count %d on %d ranks: this rank reduced %ld elements, want at most %ld", what, n,
                                 p, reduced, (long)n * (p - 1) / p + p);
                }

        check_rs(n, r, p, add, locus, in, out, ref);

        /* A derived type: pairs of doubles, user operation. */
        int m = n / 2 ? n / 2 : 1;
        fill(in, 2L * m, r);
        for (int f = 0; f < F_COUNT; f++) {
            memset(out, 0xa5, 2 * (size_t)m * sizeof(double));
            run((form_t)f, in, out, m, pair, add2);
            for (long i = 0; i < 2L * m; i++)
                if (!near(out[i], i, p)) {
                    LC_CHECK(0, "%s pairs count %d: [%ld] = %.17g", form_names[f], m, i, out[i]);
                    break;
                }
        }
    }
    free(in);
    free(out);
    free(ref);
    free(all);
    LC_MPI(MPI_Type_free(&pair));
    LC_MPI(MPI_Op_free(&add));
    LC_MPI(MPI_Op_free(&add2));
    return lc_finish();
}
