/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_pairs_large.c: accumulates on the value+index pair types (most of
 * them padded C structs) at 1..4096 elements, far past the 256 bytes the
 * engine gathers on its stack and its batches of 32 widened pairs:
 * MPI_Accumulate (MAXLOC, MINLOC, REPLACE) and MPI_Get_accumulate (the
 * same and NO_OP) with the predefined pair on both sides and with a
 * target vector (every other element: blocks that split a padded pair),
 * then MPI_Fetch_and_op with each op.  Rank 0 works on rank 1's window in
 * an exclusive lock: puts the starting elements, applies the operation,
 * gets every element back (the ones between the vector's too) and
 * compares value and index with MPI_Reduce_local of the same data (MPI
 * 4.1 §6.9.4: on equal values the smaller index), and the fetched ones
 * with what was there.  Values repeat (ties are common).
 * arg: create (default, active messages), allocate (direct where the
 * ranks share memory) or dynamic. */
#include "lc_test.h"

#include <stddef.h>

enum { K_FLOAT, K_DOUBLE, K_LONG, K_SHORT, K_LDOUBLE, K_INT, NK };
static const MPI_Datatype ptype[NK] = { MPI_FLOAT_INT, MPI_DOUBLE_INT,      MPI_LONG_INT,
                                        MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2INT };
static const char *pname[NK] = { "FLOAT_INT", "DOUBLE_INT", "LONG_INT", "SHORT_INT", "LONG_DOUBLE_INT", "2INT" };
typedef struct {
    float v;
    int i;
} p_float;
typedef struct {
    double v;
    int i;
} p_double;
typedef struct {
    long v;
    int i;
} p_long;
typedef struct {
    short v;
    int i;
} p_short;
typedef struct {
    long double v;
    int i;
} p_ldouble;
typedef struct {
    int v;
    int i;
} p_int;
static const size_t pext[NK] = { sizeof(p_float), sizeof(p_double),  sizeof(p_long),
                                 sizeof(p_short), sizeof(p_ldouble), sizeof(p_int) };

#define NMAX 4096
#define MAXEXT 32
static const int sizes[] = { 1, 2, 17, 31, 32, 33, 64, 100, 255, 256, 257, 1000, 1024, 2049, 4095, 4096 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static void set(int k, char *p, long v, int i)
{
    switch (k) {
    case K_FLOAT:
        ((p_float *)p)->v = (float)v;
        ((p_float *)p)->i = i;
        break;
    case K_DOUBLE:
        ((p_double *)p)->v = (double)v;
        ((p_double *)p)->i = i;
        break;
    case K_LONG:
        ((p_long *)p)->v = v;
        ((p_long *)p)->i = i;
        break;
    case K_SHORT:
        ((p_short *)p)->v = (short)v;
        ((p_short *)p)->i = i;
        break;
    case K_LDOUBLE:
        ((p_ldouble *)p)->v = (long double)v;
        ((p_ldouble *)p)->i = i;
        break;
    default:
        ((p_int *)p)->v = (int)v;
        ((p_int *)p)->i = i;
        break;
    }
}

static void get(int k, const char *p, long *v, int *i)
{
    switch (k) {
    case K_FLOAT:
        *v = (long)((const p_float *)p)->v;
        *i = ((const p_float *)p)->i;
        break;
    case K_DOUBLE:
        *v = (long)((const p_double *)p)->v;
        *i = ((const p_double *)p)->i;
        break;
    case K_LONG:
        *v = ((const p_long *)p)->v;
        *i = ((const p_long *)p)->i;
        break;
    case K_SHORT:
        *v = ((const p_short *)p)->v;
        *i = ((const p_short *)p)->i;
        break;
    case K_LDOUBLE:
        *v = (long)((const p_ldouble *)p)->v;
        *i = ((const p_ldouble *)p)->i;
        break;
    default:
        *v = ((const p_int *)p)->v;
        *i = ((const p_int *)p)->i;
        break;
    }
}

static int same(int k, const char *a, const char *b)
{
    long va, vb;
    int ia, ib;
    get(k, a, &va, &ia);
    get(k, b, &vb, &ib);
    return va == vb && ia == ib;
}

static char *init, *org, *res, *back, *want, *gath;

static int check(int k, int n, const char *what, const char *got, const char *exp, int count)
{
    size_t e = pext[k];
    for (int j = 0; j < count; j++) {
        if (same(k, got + j * e, exp + j * e)) continue;
        long vg, ve;
        int ig, ie;
        get(k, got + j * e, &vg, &ig);
        get(k, exp + j * e, &ve, &ie);
        LC_CHECK(0, "%s %s n=%d: element %d is (%ld, %d), expected (%ld, %d)", pname[k], what, n, j, vg, ig, ve, ie);
        return 1;
    }
    return 0;
}

/* One operation of n elements on layout `vec` (target every other
 * element) with op, as Accumulate (gacc 0) or Get_accumulate (1). */
static void one(MPI_Win win, MPI_Aint base, int k, int n, int vec, MPI_Op op, int gacc, const char *opname)
{
    size_t e = pext[k];
    int span = vec ? 2 * n : n;
    MPI_Datatype t = ptype[k], tt = t;
    if (vec) {
        LC_MPI(MPI_Type_vector(n, 1, 2, t, &tt));
        LC_MPI(MPI_Type_commit(&tt));
    }
    int salt = n * 7 + k + (int)gacc * 3;
    for (int p = 0; p < span; p++) set(k, init + p * e, (p * 5 + salt) % 11, 1000 + p);
    for (int j = 0; j < n; j++) set(k, org + j * e, (j * 3 + salt) % 11, 2000 - j % 1500);
    memset(res, 0, (size_t)n * e);
    LC_MPI(MPI_Put(init, span, t, 1, base, span, t, win));
    LC_MPI(MPI_Win_flush(1, win));
    if (gacc)
        LC_MPI(MPI_Get_accumulate(org, n, t, res, n, t, 1, base, vec ? 1 : n, tt, op, win));
    else
        LC_MPI(MPI_Accumulate(org, n, t, 1, base, vec ? 1 : n, tt, op, win));
    LC_MPI(MPI_Win_flush(1, win));
    LC_MPI(MPI_Get(back, span, t, 1, base, span, t, win));
    LC_MPI(MPI_Win_flush(1, win));
    /* The expected window: the target's elements gathered, reduced
     * locally (inout = origin op target, as the accumulate), scattered. */
    memcpy(want, init, (size_t)span * e);
    for (int j = 0; j < n; j++) memcpy(gath + j * e, init + (size_t)(vec ? 2 * j : j) * e, e);
    if (op == MPI_REPLACE)
        memcpy(gath, org, (size_t)n * e);
    else if (op != MPI_NO_OP)
        LC_MPI(MPI_Reduce_local(org, gath, n, t, op));
    for (int j = 0; j < n; j++) memcpy(want + (size_t)(vec ? 2 * j : j) * e, gath + j * e, e);
    char what[96];
    snprintf(what, sizeof what, "%s %s %s", gacc ? "Get_accumulate" : "Accumulate", opname,
             vec ? "vector" : "predefined");
    check(k, n, what, back, want, span);
    if (gacc) {
        for (int j = 0; j < n; j++) memcpy(gath + j * e, init + (size_t)(vec ? 2 * j : j) * e, e);
        snprintf(what, sizeof what, "Get_accumulate %s %s (fetched)", opname, vec ? "vector" : "predefined");
        check(k, n, what, res, gath, n);
    }
    if (vec) MPI_Type_free(&tt);
}

static void fop(MPI_Win win, MPI_Aint base, int k, MPI_Op op, const char *opname)
{
    size_t e = pext[k];
    MPI_Datatype t = ptype[k];
    for (int c = 0; c < 3; c++) { /* origin value below, equal to, above the target's */
        set(k, init, 5, 40);
        set(k, org, 4 + c, 30 + 20 * (c == 1));
        memset(res, 0, e);
        LC_MPI(MPI_Put(init, 1, t, 1, base, 1, t, win));
        LC_MPI(MPI_Win_flush(1, win));
        LC_MPI(MPI_Fetch_and_op(org, res, t, 1, base, op, win));
        LC_MPI(MPI_Win_flush(1, win));
        LC_MPI(MPI_Get(back, 1, t, 1, base, 1, t, win));
        LC_MPI(MPI_Win_flush(1, win));
        memcpy(gath, init, e);
        if (op == MPI_REPLACE)
            memcpy(gath, org, e);
        else if (op != MPI_NO_OP)
            LC_MPI(MPI_Reduce_local(org, gath, 1, t, op));
        char what[64];
        snprintf(what, sizeof what, "Fetch_and_op %s case %d", opname, c);
        check(k, 1, what, back, gath, 1);
        snprintf(what, sizeof what, "Fetch_and_op %s case %d (fetched)", opname, c);
        check(k, 1, what, res, init, 1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    const char *kind = argc > 1 ? argv[1] : "create";
    if (size < 2) LC_FATAL("run with 2 ranks or more");
    size_t bytes = 2 * NMAX * MAXEXT;
    char *mem = NULL;
    MPI_Win win;
    MPI_Aint base = 0;
    if (strcmp(kind, "allocate") == 0) {
        LC_MPI(MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    } else if (strcmp(kind, "dynamic") == 0) {
        mem = lc_malloc(bytes);
        LC_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        LC_MPI(MPI_Win_attach(win, mem, bytes));
        MPI_Get_address(mem, &base);
        LC_MPI(MPI_Bcast(&base, 1, MPI_AINT, 1, MPI_COMM_WORLD));
    } else {
        mem = lc_malloc(bytes);
        LC_MPI(MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    }
    if (rank == 0) {
        init = lc_malloc(bytes);
        org = lc_malloc(bytes);
        res = lc_malloc(bytes);
        back = lc_malloc(bytes);
        want = lc_malloc(bytes);
        gath = lc_malloc(bytes);
        static const MPI_Op ops[] = { MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP };
        static const char *opn[] = { "MAXLOC", "MINLOC", "REPLACE", "NO_OP" };
        LC_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
        for (int k = 0; k < NK; k++) {
            for (int s = 0; s < NSIZES; s++)
                for (int vec = 0; vec < 2; vec++)
                    for (int o = 0; o < 4; o++)
                        for (int gacc = ops[o] == MPI_NO_OP; gacc < 2; gacc++)
                            one(win, base, k, sizes[s], vec, ops[o], gacc, opn[o]);
            for (int o = 0; o < 4; o++) fop(win, base, k, ops[o], opn[o]);
        }
        LC_MPI(MPI_Win_unlock(1, win));
        free(init);
        free(org);
        free(res);
        free(back);
        free(want);
        free(gath);
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (strcmp(kind, "dynamic") == 0) LC_MPI(MPI_Win_detach(win, mem));
    LC_MPI(MPI_Win_free(&win));
    if (strcmp(kind, "allocate") != 0) free(mem);
    return lc_finish();
}
