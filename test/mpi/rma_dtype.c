/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_dtype.c: one-sided operations with derived datatypes (MPI 4.1
 * §12.3) on the origin, result and target sides: vector, indexed (blocks
 * out of order), struct, subarray and contiguous MPI_INT layouts of 16
 * elements in every pairing; Put, Get, Accumulate, Get_accumulate (SUM,
 * REPLACE, NO_OP) and the request forms, under fence, PSCW and
 * lock/flush; on Win_create (CMA or active messages), Win_allocate
 * (load/store when ranks share memory) and dynamic windows; concurrent
 * accumulates from every rank into the same elements with exact sums; a
 * struct of mixed basic types for put/get; error classes.  Exact values:
 * target element p of rank r starts as r * 1000 + p.
 * arg=quick: fewer rounds (8 ranks oversubscribed). */
#include "lc_test.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define M 128 /* ints of window memory per rank */
#define NE 16 /* elements every layout holds */
#define NT 5

enum { CONTIG, VEC, IDX, STRUCT, SUB };
static const char *tname[NT] = { "contig", "vector", "indexed", "struct", "subarray" };
static MPI_Datatype ty[NT];   /* one item each */
static int tcount[NT];        /* items making NE ints */
static int pos[NT][NE];       /* int offset of element k, in typemap order */
static int quick;

static void make_types(void)
{
    int n = 0;
    ty[CONTIG] = MPI_INT;
    tcount[CONTIG] = NE;
    for (int k = 0; k < NE; k++) pos[CONTIG][k] = k;

    MPI_Type_vector(8, 2, 5, MPI_INT, &ty[VEC]);
    tcount[VEC] = 1;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 2; j++) pos[VEC][n++] = i * 5 + j;

    int blens[3] = { 3, 1, 4 }, displs[3] = { 10, 0, 5 }; /* extent 13 ints */
    MPI_Type_indexed(3, blens, displs, MPI_INT, &ty[IDX]);
    tcount[IDX] = 2;
    n = 0;
    for (int c = 0; c < 2; c++)
        for (int b = 0; b < 3; b++)
            for (int j = 0; j < blens[b]; j++) pos[IDX][n++] = c * 13 + displs[b] + j;

    int sbl[2] = { 1, 3 };
    MPI_Aint sdi[2] = { 4, 16 };
    MPI_Datatype sty[2] = { MPI_INT, MPI_INT };
    MPI_Datatype st;
    MPI_Type_create_struct(2, sbl, sdi, sty, &st); /* ints 1, 4..6 (lb 4 bytes) */
    MPI_Type_create_resized(st, 0, 7 * sizeof(int), &ty[STRUCT]); /* extent 7 ints from 0 */
    MPI_Type_free(&st);
    tcount[STRUCT] = 4;
    n = 0;
    for (int c = 0; c < 4; c++) {
        pos[STRUCT][n++] = c * 7 + 1;
        for (int j = 0; j < 3; j++) pos[STRUCT][n++] = c * 7 + 4 + j;
    }

    int sizes[2] = { 8, 8 }, sub[2] = { 4, 4 }, starts[2] = { 2, 3 };
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &ty[SUB]);
    tcount[SUB] = 1;
    n = 0;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) pos[SUB][n++] = (2 + r) * 8 + 3 + c;
    for (int t = 1; t < NT; t++) MPI_Type_commit(&ty[t]);
}

/* Pairings (origin or result layout, target layout). */
static const int pairs[][2] = { { CONTIG, VEC }, { VEC, IDX }, { IDX, STRUCT }, { STRUCT, SUB }, { SUB, CONTIG },
                                { VEC, VEC },    { SUB, IDX } };
#define NP ((int)(sizeof pairs / sizeof pairs[0]))

typedef struct ctx {
    MPI_Win win;
    int *mem; /* this rank's window memory */
    MPI_Aint *disp0; /* dynamic: address of each rank's memory, else NULL (0) */
    int rank, size, right, left;
    int mode; /* 0 fence, 1 PSCW (ring), 2 lock/flush */
    const char *what;
} ctx_t;

static const char *mname[3] = { "fence", "pscw", "lock" };

static MPI_Aint tdisp(const ctx_t *c, int r)
{
    return c->disp0 ? c->disp0[r] : 0;
}

static void reset(ctx_t *c)
{
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, c->rank, 0, c->win);
    for (int p = 0; p < M; p++) c->mem[p] = c->rank * 1000 + p;
    MPI_Win_unlock(c->rank, c->win);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Open and close the epoch of the ring exchange (to `right`, from `left`). */
static void open_epoch(ctx_t *c)
{
    if (c->mode == 0) {
        MPI_Win_fence(0, c->win);
    } else if (c->mode == 1) {
        MPI_Group world, g_left, g_right;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, 1, &c->left, &g_left);
        MPI_Group_incl(world, 1, &c->right, &g_right);
        MPI_Win_post(g_left, 0, c->win);
        MPI_Win_start(g_right, 0, c->win);
        MPI_Group_free(&g_left);
        MPI_Group_free(&g_right);
        MPI_Group_free(&world);
    } else {
        MPI_Win_lock(MPI_LOCK_SHARED, c->right, 0, c->win);
    }
}

static void close_epoch(ctx_t *c)
{
    if (c->mode == 0) {
        MPI_Win_fence(MPI_MODE_NOSUCCEED, c->win);
    } else if (c->mode == 1) {
        MPI_Win_complete(c->win);
        MPI_Win_wait(c->win);
    } else {
        MPI_Win_flush(c->right, c->win);
        MPI_Win_unlock(c->right, c->win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Check this rank's memory: element k of layout t holds want(k), every
 * other int its initial value. */
static void check_mem(ctx_t *c, int t, const int *want, const char *op, int o)
{
    int expect[M];
    for (int p = 0; p < M; p++) expect[p] = c->rank * 1000 + p;
    for (int k = 0; k < NE; k++) expect[pos[t][k]] = want[k];
    MPI_Win_lock(MPI_LOCK_SHARED, c->rank, 0, c->win);
    int bad = 0;
    for (int p = 0; p < M && bad < 3; p++)
        if (c->mem[p] != expect[p]) {
            bad++;
            LC_CHECK(0, "%s %s %s origin %s target %s: mem[%d] = %d, expected %d", c->what, mname[c->mode], op,
                     tname[o], tname[t], p, c->mem[p], expect[p]);
        }
    MPI_Win_unlock(c->rank, c->win);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A local buffer of layout t: element k at pos[t][k] is val(k), filler elsewhere. */
static void fill(int *buf, int t, int base, int filler)
{
    for (int p = 0; p < M; p++) buf[p] = filler;
    for (int k = 0; k < NE; k++) buf[pos[t][k]] = base + k;
}

static void check_buf(ctx_t *c, const int *buf, int t, const int *want, int filler, const char *op, int o)
{
    int bad = 0;
    for (int p = 0; p < M && bad < 3; p++) {
        int e = filler;
        for (int k = 0; k < NE; k++)
            if (pos[t][k] == p) e = want[k];
        if (buf[p] != e) {
            bad++;
            LC_CHECK(0, "%s %s %s result %s target %s: buf[%d] = %d, expected %d", c->what, mname[c->mode], op,
                     tname[t], tname[o], p, buf[p], e);
        }
    }
}

static void ring_ops(ctx_t *c, int o, int t, int req_forms)
{
    int src[M], res[M], want[NE];
    MPI_Request rq[2];
    MPI_Aint d = tdisp(c, c->right);
    /* put: my origin layout o into my right neighbour's layout t */
    reset(c);
    fill(src, o, 100000 * (c->rank + 1), -9);
    open_epoch(c);
    if (req_forms) {
        MPI_Rput(src, tcount[o], ty[o], c->right, d, tcount[t], ty[t], c->win, &rq[0]);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    } else {
        MPI_Put(src, tcount[o], ty[o], c->right, d, tcount[t], ty[t], c->win);
    }
    close_epoch(c);
    for (int k = 0; k < NE; k++) want[k] = 100000 * (c->left + 1) + k;
    check_mem(c, t, want, req_forms ? "rput" : "put", o);

    /* get: right's layout t into my layout o */
    reset(c);
    for (int p = 0; p < M; p++) res[p] = -9;
    open_epoch(c);
    if (req_forms) {
        MPI_Rget(res, tcount[o], ty[o], c->right, d, tcount[t], ty[t], c->win, &rq[0]);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    } else {
        MPI_Get(res, tcount[o], ty[o], c->right, d, tcount[t], ty[t], c->win);
    }
    close_epoch(c);
    for (int k = 0; k < NE; k++) want[k] = c->right * 1000 + pos[t][k];
    check_buf(c, res, o, want, -9, req_forms ? "rget" : "get", t);

    /* accumulate SUM, then get_accumulate SUM with the result in layout o
     * and the origin in layout t (three layouts in one call) */
    reset(c);
    fill(src, o, 7 * (c->rank + 1), -9);
    open_epoch(c);
    if (req_forms) {
        MPI_Raccumulate(src, tcount[o], ty[o], c->right, d, tcount[t], ty[t], MPI_SUM, c->win, &rq[0]);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    } else {
        MPI_Accumulate(src, tcount[o], ty[o], c->right, d, tcount[t], ty[t], MPI_SUM, c->win);
    }
    close_epoch(c);
    for (int k = 0; k < NE; k++) want[k] = c->rank * 1000 + pos[t][k] + 7 * (c->left + 1) + k;
    check_mem(c, t, want, "acc sum", o);

    int src2[M];
    fill(src2, t, 1, -9); /* origin in layout t: element k is 1 + k */
    for (int p = 0; p < M; p++) res[p] = -9;
    open_epoch(c);
    if (req_forms) {
        MPI_Rget_accumulate(src2, tcount[t], ty[t], res, tcount[o], ty[o], c->right, d, tcount[t], ty[t], MPI_SUM,
                            c->win, &rq[0]);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    } else {
        MPI_Get_accumulate(src2, tcount[t], ty[t], res, tcount[o], ty[o], c->right, d, tcount[t], ty[t], MPI_SUM,
                           c->win);
    }
    close_epoch(c);
    for (int k = 0; k < NE; k++) want[k] = c->right * 1000 + pos[t][k] + 7 * (c->rank + 1) + k;
    check_buf(c, res, o, want, -9, "get_acc sum", t);
    for (int k = 0; k < NE; k++) want[k] = c->rank * 1000 + pos[t][k] + 7 * (c->left + 1) + k + 1 + k;
    check_mem(c, t, want, "get_acc sum", o);

    /* get_accumulate NO_OP reads, REPLACE swaps */
    for (int p = 0; p < M; p++) res[p] = -9;
    open_epoch(c);
    MPI_Get_accumulate(NULL, 0, MPI_INT, res, tcount[o], ty[o], c->right, d, tcount[t], ty[t], MPI_NO_OP, c->win);
    close_epoch(c);
    for (int k = 0; k < NE; k++) want[k] = c->right * 1000 + pos[t][k] + 7 * (c->rank + 1) + 2 * k + 1;
    check_buf(c, res, o, want, -9, "get_acc no_op", t);
    fill(src, o, -500 * (c->rank + 1), -9);
    for (int p = 0; p < M; p++) res[p] = -9;
    open_epoch(c);
    MPI_Get_accumulate(src, tcount[o], ty[o], res, tcount[t], ty[t], c->right, d, tcount[t], ty[t], MPI_REPLACE,
                       c->win);
    close_epoch(c);
    check_buf(c, res, t, want, -9, "get_acc replace (old)", t);
    for (int k = 0; k < NE; k++) want[k] = -500 * (c->left + 1) + k;
    check_mem(c, t, want, "get_acc replace", o);
}

/* Every rank adds into the same elements of rank 0 (layout t) under a
 * shared lock, `rounds` times: the sums are exact only if each element's
 * updates never mix. */
static void concurrent_acc(ctx_t *c, int o, int t, int rounds)
{
    int src[M], want[NE];
    reset(c);
    fill(src, o, c->rank + 1, 0); /* element k: rank + 1 + k */
    MPI_Aint d = tdisp(c, 0);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, c->win);
    for (int i = 0; i < rounds; i++) {
        MPI_Accumulate(src, tcount[o], ty[o], 0, d, tcount[t], ty[t], MPI_SUM, c->win);
        if (i % 4 == 3) MPI_Win_flush(0, c->win);
    }
    MPI_Win_unlock(0, c->win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (c->rank == 0) {
        int n = c->size;
        for (int k = 0; k < NE; k++) want[k] = pos[t][k] + rounds * (n * (n + 1) / 2 + n * k);
        check_mem(c, t, want, "concurrent acc", o);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* Fetch_and_op stays one predefined element: a ticket per rank per round */
    reset(c);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, c->win);
    int one = 1, prev, okp = 1;
    for (int i = 0; i < rounds; i++) {
        MPI_Fetch_and_op(&one, &prev, MPI_INT, 0, d, MPI_SUM, c->win);
        MPI_Win_flush(0, c->win);
        okp &= prev >= 0 && prev < rounds * c->size;
    }
    MPI_Win_unlock(0, c->win);
    LC_CHECK(okp, "%s fetch_and_op tickets out of range", c->what);
    MPI_Barrier(MPI_COMM_WORLD);
    if (c->rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, c->win);
        LC_CHECK(c->mem[0] == rounds * c->size, "%s fetch_and_op total %d, expected %d", c->what, c->mem[0],
                 rounds * c->size);
        MPI_Win_unlock(0, c->win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A struct of an int and a double (mixed basic types) is fine for put and
 * get: origin and target layouts differ, the signature is the same. */
static void mixed_struct(ctx_t *c)
{
    typedef struct {
        int i;
        double x;
    } pair_t;
    int bl[2] = { 1, 1 };
    MPI_Aint od[2] = { offsetof(pair_t, i), offsetof(pair_t, x) }, td[2] = { 8, 16 }; /* target: int at 8, double at 16 */
    MPI_Datatype tys[2] = { MPI_INT, MPI_DOUBLE }, ot, tt;
    MPI_Type_create_struct(2, bl, od, tys, &ot);
    MPI_Type_create_struct(2, bl, td, tys, &tt);
    MPI_Type_commit(&ot);
    MPI_Type_commit(&tt);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(tt, &lb, &ext); /* 24 */
    pair_t src[3], got[3];
    for (int i = 0; i < 3; i++) src[i] = (pair_t){ c->rank * 10 + i, c->rank + 0.5 * i };
    memset(got, 0, sizeof got);
    reset(c);
    MPI_Win_fence(0, c->win);
    MPI_Put(src, 3, ot, c->right, tdisp(c, c->right), 3, tt, c->win);
    MPI_Win_fence(0, c->win);
    MPI_Get(got, 3, ot, c->right, tdisp(c, c->right), 3, tt, c->win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, c->win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++) {
        int vi;
        double vx;
        memcpy(&vi, (char *)c->mem + i * ext + 8, sizeof vi);
        memcpy(&vx, (char *)c->mem + i * ext + 16, sizeof vx);
        LC_CHECK(vi == c->left * 10 + i && vx == c->left + 0.5 * i, "%s mixed struct put [%d]: %d %g", c->what, i, vi,
                 vx);
        LC_CHECK(got[i].i == c->rank * 10 + i && got[i].x == c->rank + 0.5 * i, "%s mixed struct get [%d]: %d %g",
                 c->what, i, got[i].i, got[i].x);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Type_free(&ot);
    MPI_Type_free(&tt);
}

static void run(ctx_t *c)
{
    c->right = (c->rank + 1) % c->size;
    c->left = (c->rank + c->size - 1) % c->size;
    for (int m = 0; m < 3; m++) {
        c->mode = m;
        for (int p = 0; p < NP; p++) {
            if (quick && p % 3 != m) continue;
            ring_ops(c, pairs[p][0], pairs[p][1], m == 2 && p % 2);
        }
    }
    for (int p = 0; p < NP; p++) {
        if (quick && p > 1) break;
        concurrent_acc(c, pairs[p][0], pairs[p][1], quick ? 4 : 12);
    }
    mixed_struct(c);
}

static int cls(int code)
{
    int k = -1;
    MPI_Error_class(code, &k);
    return k;
}

/* Error classes (Locus: MPICH 4.0 does not check these). */
static void errors(ctx_t *c)
{
    int src[M] = { 0 }, res[M];
    MPI_Win_set_errhandler(c->win, MPI_ERRORS_RETURN);
    MPI_Datatype fvec, big, mixed, unc;
    MPI_Type_vector(8, 2, 5, MPI_FLOAT, &fvec);
    MPI_Type_commit(&fvec);
    MPI_Type_vector(2, 1, M, MPI_INT, &big); /* spans M + 1 ints */
    MPI_Type_commit(&big);
    MPI_Datatype negv;
    int bl[2] = { 1, 1 }, dd[2] = { -1, 0 };
    MPI_Type_indexed(2, bl, dd, MPI_INT, &negv); /* one int before the displacement */
    MPI_Type_commit(&negv);
    int sbl[2] = { 1, 1 };
    MPI_Aint sdi[2] = { 0, 8 };
    MPI_Datatype sty[2] = { MPI_INT, MPI_DOUBLE };
    MPI_Type_create_struct(2, sbl, sdi, sty, &mixed);
    MPI_Type_commit(&mixed);
    MPI_Type_contiguous(2, MPI_INT, &unc); /* never committed */
    int t = c->right, rc;
    MPI_Win_fence(0, c->win);
    rc = MPI_Put(src, NE - 1, MPI_INT, t, 0, 1, ty[VEC], c->win);
    LC_CHECK(cls(rc) == MPI_ERR_TYPE, "put with 15 ints to a 16-int vector: class %d", cls(rc));
    rc = MPI_Get(res, 1, ty[IDX], t, 0, 1, ty[VEC], c->win);
    LC_CHECK(cls(rc) == MPI_ERR_TYPE, "get of 16 ints into 8: class %d", cls(rc));
    rc = MPI_Accumulate(src, 1, fvec, t, 0, 1, ty[VEC], MPI_SUM, c->win);
    LC_CHECK(cls(rc) == MPI_ERR_TYPE, "accumulate float vector into int vector: class %d", cls(rc));
    rc = MPI_Put(src, 1, fvec, t, 0, 1, ty[VEC], c->win);
    LC_CHECK(cls(rc) == MPI_ERR_TYPE, "put float vector into int vector: class %d", cls(rc));
    rc = MPI_Accumulate(src, 1, mixed, t, 0, 1, mixed, MPI_REPLACE, c->win);
    LC_CHECK(cls(rc) == MPI_ERR_TYPE, "accumulate with a struct of int and double: class %d", cls(rc));
    rc = MPI_Put(src, 2, MPI_INT, t, 0, 1, unc, c->win);
    LC_CHECK(cls(rc) == MPI_ERR_TYPE, "put to an uncommitted type: class %d", cls(rc));
    rc = MPI_Put(src, 2, MPI_INT, t, 0, 1, big, c->win);
    LC_CHECK(cls(rc) == MPI_ERR_RMA_RANGE, "put to a type beyond the window: class %d", cls(rc));
    rc = MPI_Get(res, 2, MPI_INT, t, 0, 1, negv, c->win);
    LC_CHECK(cls(rc) == MPI_ERR_RMA_RANGE, "get from a type before the window: class %d", cls(rc));
    rc = MPI_Get(res, 2, MPI_INT, t, 1, 1, negv, c->win); /* the same at displacement 1 is fine */
    LC_CHECK(rc == MPI_SUCCESS, "get from a type starting one int before displacement 1: %d", rc);
    rc = MPI_Accumulate(src, 16, MPI_INT, t, 0, 1, ty[SUB], MPI_SUM, c->win); /* subarray spans 64 of M ints */
    LC_CHECK(rc == MPI_SUCCESS, "accumulate into a subarray: %d", rc);
    /* the subarray's data ends 47 ints after the displacement (its extent of 64 does not count) */
    rc = MPI_Accumulate(src, 16, MPI_INT, t, M - 47, 1, ty[SUB], MPI_SUM, c->win);
    LC_CHECK(rc == MPI_SUCCESS, "accumulate into a subarray ending at the window's end: %d", rc);
    rc = MPI_Accumulate(src, 16, MPI_INT, t, M - 46, 1, ty[SUB], MPI_SUM, c->win);
    LC_CHECK(cls(rc) == MPI_ERR_RMA_RANGE, "accumulate into a subarray beyond the window: class %d", cls(rc));
    rc = MPI_Fetch_and_op(src, res, ty[VEC], t, 0, MPI_SUM, c->win);
    LC_CHECK(cls(rc) == MPI_ERR_TYPE, "fetch_and_op with a derived type: class %d", cls(rc));
    rc = MPI_Compare_and_swap(src, src, res, ty[VEC], t, 0, c->win);
    LC_CHECK(cls(rc) == MPI_ERR_TYPE, "compare_and_swap with a derived type: class %d", cls(rc));
    MPI_Datatype dipair; /* padded pairs inside derived types (rma_pairs.c checks the values) */
    MPI_Type_contiguous(2, MPI_DOUBLE_INT, &dipair);
    MPI_Type_commit(&dipair);
    rc = MPI_Accumulate(src, 1, dipair, t, 0, 1, dipair, MPI_MAXLOC, c->win);
    LC_CHECK(rc == MPI_SUCCESS, "accumulate of a derived type of MPI_DOUBLE_INT: class %d", cls(rc));
    MPI_Type_free(&dipair);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, c->win);
    MPI_Type_free(&fvec);
    MPI_Type_free(&big);
    MPI_Type_free(&negv);
    MPI_Type_free(&mixed);
    MPI_Type_free(&unc);
    MPI_Win_set_errhandler(c->win, MPI_ERRORS_ARE_FATAL);
}

/* Dynamic windows: the origin cannot check the range, the target must.
 * A target type reaching past the attached memory (or before it) must be
 * refused as a whole by the target (logged there), never write outside
 * (issue 12).  On the origin itself the error comes back at once. */
static void dynamic_bounds(ctx_t *c, int *region)
{
    MPI_Win_set_errhandler(c->win, MPI_ERRORS_RETURN);
    MPI_Datatype big, negv;
    MPI_Type_vector(2, 1, M, MPI_INT, &big); /* ints 0 and M */
    MPI_Type_commit(&big);
    int bl[2] = { 1, 1 }, dd[2] = { -1, 0 };
    MPI_Type_indexed(2, bl, dd, MPI_INT, &negv); /* ints -1 and 0 */
    MPI_Type_commit(&negv);
    int src[2] = { -77, -78 }, rc;
    MPI_Win_fence(0, c->win);
    rc = MPI_Put(src, 2, MPI_INT, c->right, c->disp0[c->right], 1, big, c->win);
    LC_CHECK(rc == MPI_SUCCESS || lc_class_of(rc) == MPI_ERR_RMA_RANGE, "put past attached memory: %d", rc);
    rc = MPI_Accumulate(src, 2, MPI_INT, c->right, c->disp0[c->right], 1, negv, MPI_SUM, c->win);
    LC_CHECK(rc == MPI_SUCCESS || lc_class_of(rc) == MPI_ERR_RMA_RANGE, "accumulate before attached memory: %d", rc);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, c->win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int p = -8; p < M + 8; p++) {
        int want = p < 0 || p >= M ? 777 : c->rank * 1000 + p;
        LC_CHECK(region[p] == want, "dynamic: a refused operation changed int %d: %d, expected %d", p, region[p],
                 want);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Type_free(&big);
    MPI_Type_free(&negv);
    MPI_Win_set_errhandler(c->win, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    ctx_t c = { .rank = lc_world_rank(), .size = lc_world_size() };
    make_types();

    c.mem = malloc(M * sizeof(int));
    MPI_Win_create(c.mem, M * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &c.win);
    c.what = "create";
    run(&c);
    if (!lc_library_is_mpich()) errors(&c);
    MPI_Win_free(&c.win);
    free(c.mem);

    MPI_Win_allocate(M * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &c.mem, &c.win);
    c.what = "allocate";
    run(&c);
    if (!lc_library_is_mpich()) errors(&c);
    MPI_Win_free(&c.win);

    /* dynamic: displacements are addresses; the target checks the blocks.
     * 8 canary ints on either side of the attached memory. */
    int *region = malloc((M + 16) * sizeof(int));
    for (int p = 0; p < M + 16; p++) region[p] = 777;
    c.mem = region + 8;
    c.disp0 = malloc((size_t)c.size * sizeof(MPI_Aint));
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &c.win);
    MPI_Win_attach(c.win, c.mem, M * sizeof(int));
    MPI_Aint mine;
    MPI_Get_address(c.mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, c.disp0, 1, MPI_AINT, MPI_COMM_WORLD);
    c.what = "dynamic";
    quick = 1;
    run(&c);
    if (!lc_library_is_mpich()) { /* erroneous programs: MPICH does not check (it writes outside) */
        reset(&c);
        dynamic_bounds(&c, c.mem);
    }
    MPI_Win_detach(c.win, c.mem);
    MPI_Win_free(&c.win);
    free(region);
    free(c.disp0);

    for (int t = 1; t < NT; t++) MPI_Type_free(&ty[t]);
    return lc_finish();
}
