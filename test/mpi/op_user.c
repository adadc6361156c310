/* SPDX-License-Identifier: BSD-3-Clause */
/* op_user: user-defined operations in every reduction and scan.
 * The non-commutative operation composes affine maps x -> a*x + b (mod
 * 2^32), one uint64 element = (a << 32 | b): the result must be the
 * composition in rank order, whatever algorithm runs (testlist forces
 * each, the ring ones included, which Locus must then avoid).  A
 * commutative user sum, an MPI_Op_create_c operation, MPI_Reduce_local,
 * MPI_Op_commutative, and errors (freeing a predefined operation, using a
 * freed one: MPI_ERR_OP). */
#include "lc_test.h"

/* L op H: first L's map, then H's (in holds the lower ranks' value). */
static uint64_t compose(uint64_t l, uint64_t h)
{
    uint32_t la = (uint32_t)(l >> 32), lb = (uint32_t)l, ha = (uint32_t)(h >> 32), hb = (uint32_t)h;
    return (uint64_t)(ha * la) << 32 | (uint32_t)(ha * lb + hb);
}

static int op_calls;
static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    op_calls++;
    LC_CHECK(*dt == MPI_UINT64_T, "the user function got datatype %#x", (unsigned)*dt);
    uint64_t *a = in, *b = inout;
    for (int i = 0; i < *len; i++) b[i] = compose(a[i], b[i]);
}

static void affine_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)dt;
    uint64_t *a = in, *b = inout;
    for (MPI_Count i = 0; i < *len; i++) b[i] = compose(a[i], b[i]);
}

static void usum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    uint64_t *a = in, *b = inout;
    for (int i = 0; i < *len; i++) b[i] += a[i];
}

static uint64_t value(int rank, int i)
{
    return (uint64_t)(2u * (unsigned)(rank + i) + 1u) << 32 | (uint32_t)(7 * rank + i);
}

/* Composition of ranks lo..hi at index i (lo <= hi). */
static uint64_t expect_range(int lo, int hi, int i)
{
    uint64_t acc = value(lo, i);
    for (int r = lo + 1; r <= hi; r++) acc = compose(acc, value(r, i));
    return acc;
}

static void check_vec(const uint64_t *got, int n, int lo, int hi, int first, const char *what)
{
    int bad = 0;
    for (int i = 0; i < n && bad < 3; i++) {
        uint64_t want = expect_range(lo, hi, first + i);
        if (got[i] != want) {
            LC_CHECK(0, "%s: element %d is %#llx, expected %#llx", what, first + i, (unsigned long long)got[i],
                     (unsigned long long)want);
            bad++;
        }
    }
}

static void test_noncommutative(MPI_Op op, int n, const char *name)
{
    int rank = lc_world_rank(), size = lc_world_size();
    uint64_t *s = lc_malloc(sizeof(uint64_t) * (size_t)n * (size_t)size);
    uint64_t *r = lc_malloc(sizeof(uint64_t) * (size_t)n * (size_t)size);
    char what[96];
    for (int i = 0; i < n * size; i++) s[i] = value(rank, i);
    for (int root = 0; root < size; root += size > 1 ? size - 1 : 1) {
        LC_MPI(MPI_Reduce(s, r, n, MPI_UINT64_T, op, root, MPI_COMM_WORLD));
        snprintf(what, sizeof(what), "%s reduce n=%d root=%d", name, n, root);
        if (rank == root) check_vec(r, n, 0, size - 1, 0, what);
    }
    LC_MPI(MPI_Allreduce(s, r, n, MPI_UINT64_T, op, MPI_COMM_WORLD));
    snprintf(what, sizeof(what), "%s allreduce n=%d", name, n);
    check_vec(r, n, 0, size - 1, 0, what);
    memcpy(r, s, sizeof(uint64_t) * (size_t)n);
    LC_MPI(MPI_Allreduce(MPI_IN_PLACE, r, n, MPI_UINT64_T, op, MPI_COMM_WORLD));
    check_vec(r, n, 0, size - 1, 0, "allreduce in place");
    LC_MPI(MPI_Reduce_scatter_block(s, r, n, MPI_UINT64_T, op, MPI_COMM_WORLD));
    snprintf(what, sizeof(what), "%s reduce_scatter_block n=%d", name, n);
    check_vec(r, n, 0, size - 1, rank * n, what);
    int *counts = lc_malloc(sizeof(int) * (size_t)size), total = 0, mine = 0;
    for (int i = 0; i < size; i++) {
        counts[i] = n + (i % 2);
        if (i < rank) mine += counts[i];
        total += counts[i];
    }
    uint64_t *sv = lc_malloc(sizeof(uint64_t) * (size_t)total);
    for (int i = 0; i < total; i++) sv[i] = value(rank, i);
    LC_MPI(MPI_Reduce_scatter(sv, r, counts, MPI_UINT64_T, op, MPI_COMM_WORLD));
    snprintf(what, sizeof(what), "%s reduce_scatter n=%d", name, n);
    check_vec(r, counts[rank], 0, size - 1, mine, what);
    LC_MPI(MPI_Scan(s, r, n, MPI_UINT64_T, op, MPI_COMM_WORLD));
    snprintf(what, sizeof(what), "%s scan n=%d", name, n);
    check_vec(r, n, 0, rank, 0, what);
    LC_MPI(MPI_Exscan(s, r, n, MPI_UINT64_T, op, MPI_COMM_WORLD));
    snprintf(what, sizeof(what), "%s exscan n=%d", name, n);
    if (rank > 0) check_vec(r, n, 0, rank - 1, 0, what);
    free(sv);
    free(counts);
    free(s);
    free(r);
}

static void test_commutative(int n)
{
    MPI_Op op;
    int size = lc_world_size(), rank = lc_world_rank(), c = -1;
    LC_MPI(MPI_Op_create(usum, 1, &op));
    LC_MPI(MPI_Op_commutative(op, &c));
    LC_CHECK(c == 1, "MPI_Op_commutative of a commutative operation: %d", c);
    uint64_t *s = lc_malloc(sizeof(uint64_t) * (size_t)n), *r = lc_malloc(sizeof(uint64_t) * (size_t)n);
    for (int i = 0; i < n; i++) s[i] = (uint64_t)rank * 1000003u + (uint64_t)i;
    LC_MPI(MPI_Allreduce(s, r, n, MPI_UINT64_T, op, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++) {
        uint64_t want = (uint64_t)size * (uint64_t)(size - 1) / 2 * 1000003u + (uint64_t)size * (uint64_t)i;
        if (r[i] != want) {
            LC_CHECK(0, "commutative user sum n=%d: element %d is %llu, expected %llu", n, i,
                     (unsigned long long)r[i], (unsigned long long)want);
            break;
        }
    }
    LC_MPI(MPI_Op_free(&op));
    LC_CHECK(op == MPI_OP_NULL, "freed operation handle is %#x", (unsigned)op);
    free(s);
    free(r);
}

static void test_local_and_errors(MPI_Op op)
{
    uint64_t in[3], io[3];
    for (int i = 0; i < 3; i++) {
        in[i] = value(0, i);
        io[i] = value(1, i);
    }
    LC_MPI(MPI_Reduce_local(in, io, 3, MPI_UINT64_T, op));
    check_vec(io, 3, 0, 1, 0, "MPI_Reduce_local");
    int c = -1;
    LC_MPI(MPI_Op_commutative(op, &c));
    LC_CHECK(c == 0, "MPI_Op_commutative of a non-commutative operation: %d", c);
    LC_MPI(MPI_Op_commutative(MPI_SUM, &c));
    LC_CHECK(c == 1, "MPI_Op_commutative(MPI_SUM): %d", c);
    MPI_Op sum = MPI_SUM, freed;
    LC_CHECK(lc_class_of(MPI_Op_free(&sum)) == MPI_ERR_OP, "freeing MPI_SUM did not fail with MPI_ERR_OP");
    LC_MPI(MPI_Op_create(usum, 1, &freed));
    MPI_Op keep = freed;
    LC_MPI(MPI_Op_free(&freed));
    int x = 1, y = 0;
    if (!lc_library_is_mpich()) /* MPICH 4.0.2 does not notice a freed operation */
        LC_CHECK(lc_class_of(MPI_Allreduce(&x, &y, 1, MPI_INT, keep, MPI_COMM_WORLD)) == MPI_ERR_OP,
             "a freed operation was accepted");
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Op op, op_c;
    LC_MPI(MPI_Op_create(affine, 0, &op));
    LC_MPI(MPI_Op_create_c(affine_c, 0, &op_c));
    /* 1 and 7 elements; 9000 (72 KB) passes the size limits where the
     * automatic choice turns to ring algorithms. */
    int sizes[] = { 1, 7, 9000 };
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        test_noncommutative(op, sizes[k], "affine");
        test_noncommutative(op_c, sizes[k], "affine_c");
        test_commutative(sizes[k]);
    }
    LC_CHECK(lc_world_size() == 1 || op_calls > 0, "the user function never ran");
    test_local_and_errors(op);
    LC_MPI(MPI_Op_free(&op));
    LC_MPI(MPI_Op_free(&op_c));
    return lc_finish();
}
