/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_pairs.c: accumulates on the value+index pair types (MPI_FLOAT_INT,
 * MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT,
 * MPI_2INT), most of them padded C structs, inside derived datatypes
 * (vector, indexed with blocks out of order, resized struct) and as the
 * predefined type, in every pairing of origin, result and target layouts:
 * MPI_Accumulate (MAXLOC, MINLOC, REPLACE), MPI_Get_accumulate (the same
 * and NO_OP), the request forms, MPI_Fetch_and_op on the predefined pair
 * (each op); on Win_create, Win_allocate, Win_allocate_shared (where all
 * ranks share memory) and dynamic windows, under fence and lock.  Every
 * element of the target and the result is checked, the elements outside
 * the layouts too: MAXLOC / MINLOC per MPI 4.1 §6.9.4, equal values
 * keeping the smaller index.  Last, every rank accumulates MAXLOC and
 * MINLOC into rank 0's elements at once (atomic per element), and a
 * Get_accumulate of 80 pairs (several batches of the engine's widening).
 * Target element p of rank r starts as (tval(r, p), 50 + p). */
#include "lc_test.h"

#include <stddef.h>
#include <string.h>

enum { K_FLOAT, K_DOUBLE, K_LONG, K_SHORT, K_LDOUBLE, K_INT, NK };
static const MPI_Datatype ptype[NK] = { MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT,
                                        MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2INT };
static const char *pname[NK] = { "FLOAT_INT", "DOUBLE_INT", "LONG_INT", "SHORT_INT", "LONG_DOUBLE_INT", "2INT" };
static const size_t pext[NK] = { sizeof(struct { float v; int i; }),       sizeof(struct { double v; int i; }),
                                 sizeof(struct { long v; int i; }),        sizeof(struct { short v; int i; }),
                                 sizeof(struct { long double v; int i; }), sizeof(struct { int v; int i; }) };
static const size_t pidx[NK] = { offsetof(struct { float v; int i; }, i),       offsetof(struct { double v; int i; }, i),
                                 offsetof(struct { long v; int i; }, i),        offsetof(struct { short v; int i; }, i),
                                 offsetof(struct { long double v; int i; }, i), offsetof(struct { int v; int i; }, i) };

#define NE 12      /* elements every layout holds */
#define NW 32      /* elements of one region */
#define NREG 8     /* regions of a window: 7 operations, Fetch_and_op */
#define NFOP 16    /* Fetch_and_op elements: op k % 4, case k / 4 */
#define MAXEXT 32  /* the widest pair's extent */
#define NL 4
enum { CONTIG, VEC, IDX, STRUCT };
static const char *lname[NL] = { "predefined", "vector", "indexed", "struct" };
static MPI_Datatype lty[NK][NL];
static int lcount[NL];
static int lpos[NL][NE]; /* element (in extents) of item k, typemap order */

/* ---- one pair in memory, whatever its type -------------------------------- */

static void pset(int kd, char *p, long v, int i)
{
    switch (kd) {
    case K_FLOAT: { float x = (float)v; memcpy(p, &x, sizeof x); break; }
    case K_DOUBLE: { double x = (double)v; memcpy(p, &x, sizeof x); break; }
    case K_LONG: { long x = v; memcpy(p, &x, sizeof x); break; }
    case K_SHORT: { short x = (short)v; memcpy(p, &x, sizeof x); break; }
    case K_LDOUBLE: { long double x = (long double)v; memcpy(p, &x, sizeof x); break; }
    default: { int x = (int)v; memcpy(p, &x, sizeof x); break; }
    }
    memcpy(p + pidx[kd], &i, sizeof i);
}

static long pval(int kd, const char *p)
{
    switch (kd) {
    case K_FLOAT: { float x; memcpy(&x, p, sizeof x); return (long)x; }
    case K_DOUBLE: { double x; memcpy(&x, p, sizeof x); return (long)x; }
    case K_LONG: { long x; memcpy(&x, p, sizeof x); return x; }
    case K_SHORT: { short x; memcpy(&x, p, sizeof x); return x; }
    case K_LDOUBLE: { long double x; memcpy(&x, p, sizeof x); return (long)x; }
    default: { int x; memcpy(&x, p, sizeof x); return x; }
    }
}

static int pind(int kd, const char *p)
{
    int i;
    memcpy(&i, p + pidx[kd], sizeof i);
    return i;
}

/* ---- layouts --------------------------------------------------------------- */

static void make_layouts(void)
{
    int n = 0;
    lcount[CONTIG] = NE;
    for (int k = 0; k < NE; k++) lpos[CONTIG][k] = k;
    lcount[VEC] = 1; /* vector(6, 2, 3) */
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 2; j++) lpos[VEC][n++] = i * 3 + j;
    int blens[3] = { 2, 1, 3 }, displs[3] = { 7, 0, 3 }; /* extent 9 elements */
    lcount[IDX] = 2;
    n = 0;
    for (int c = 0; c < 2; c++)
        for (int b = 0; b < 3; b++)
            for (int j = 0; j < blens[b]; j++) lpos[IDX][n++] = c * 9 + displs[b] + j;
    lcount[STRUCT] = 4; /* elements 1, 4, 5 of every 6 */
    n = 0;
    for (int c = 0; c < 4; c++) {
        lpos[STRUCT][n++] = c * 6 + 1;
        lpos[STRUCT][n++] = c * 6 + 4;
        lpos[STRUCT][n++] = c * 6 + 5;
    }
    for (int kd = 0; kd < NK; kd++) {
        MPI_Aint lb, ext;
        MPI_Type_get_extent(ptype[kd], &lb, &ext);
        if ((size_t)ext != pext[kd]) LC_FATAL("%s has extent %ld, its C struct %zu", pname[kd], (long)ext, pext[kd]);
        lty[kd][CONTIG] = ptype[kd];
        MPI_Type_vector(6, 2, 3, ptype[kd], &lty[kd][VEC]);
        MPI_Type_indexed(3, blens, displs, ptype[kd], &lty[kd][IDX]);
        int sbl[2] = { 1, 2 };
        MPI_Aint sdi[2] = { ext, 4 * ext };
        MPI_Datatype sty[2] = { ptype[kd], ptype[kd] }, st;
        MPI_Type_create_struct(2, sbl, sdi, sty, &st);
        MPI_Type_create_resized(st, 0, 6 * ext, &lty[kd][STRUCT]);
        MPI_Type_free(&st);
        for (int l = 1; l < NL; l++) MPI_Type_commit(&lty[kd][l]);
    }
}

/* ---- values ---------------------------------------------------------------- */

/* Target element p of rank r: signed, small enough for a short and exact
 * in a float. */
static long tval(int r, int p)
{
    return (p % 2 ? -1 : 1) * (1000 + 10 * p) + r;
}
static int tind(int p)
{
    return 50 + p;
}

/* What an origin sends for the element at target position p, by case:
 * 0 a larger value, 1 a smaller one, 2 the same value with a smaller
 * index, 3 the same value with a larger index. */
static void oelem(int kase, int r, int p, int s, long *v, int *i)
{
    long t = tval(r, p);
    *v = kase == 0 ? t + 5 : kase == 1 ? t - 5 : t;
    *i = kase == 2 ? tind(p) - 40 : kase == 3 ? tind(p) + 40 : 300 + s;
}

static void combine(MPI_Op op, long tv, int ti, long ov, int oi, long *v, int *i)
{
    *v = tv;
    *i = ti;
    if (op == MPI_REPLACE || (op == MPI_MAXLOC && (ov > tv || (ov == tv && oi < ti))) ||
        (op == MPI_MINLOC && (ov < tv || (ov == tv && oi < ti)))) {
        *v = ov;
        *i = oi;
    }
}

/* ---- the runs -------------------------------------------------------------- */

typedef struct ctx {
    MPI_Win win;
    char *mem;       /* this rank's window memory: NREG regions of NW elements */
    MPI_Aint *base0; /* dynamic: each rank's memory address, else NULL */
    int rank, size, right, left, fence;
    const char *what;
} ctx_t;

static const struct {
    int gacc, req;
    MPI_Op op;
    const char *name;
} ops[NREG - 1] = {
    { 0, 0, MPI_MAXLOC, "acc maxloc" },          { 0, 1, MPI_MINLOC, "racc minloc" },
    { 0, 0, MPI_REPLACE, "acc replace" },        { 1, 0, MPI_MAXLOC, "gacc maxloc" },
    { 1, 0, MPI_MINLOC, "gacc minloc" },         { 1, 1, MPI_REPLACE, "rgacc replace" },
    { 1, 0, MPI_NO_OP, "gacc no_op" },
};
static const MPI_Op fops[4] = { MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP };

static MPI_Aint disp_of(const ctx_t *c, int target, int kd, int reg)
{
    MPI_Aint d = (MPI_Aint)((size_t)reg * NW * pext[kd]);
    return c->base0 ? c->base0[target] + d : d; /* disp_unit 1 */
}

/* Fill this rank's memory with its initial elements (in an epoch of its own). */
static void reset(ctx_t *c, int kd)
{
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, c->rank, 0, c->win);
    memset(c->mem, 0, (size_t)NREG * NW * pext[kd]);
    for (int reg = 0; reg < NREG; reg++)
        for (int p = 0; p < NW; p++) pset(kd, c->mem + ((size_t)reg * NW + p) * pext[kd], tval(c->rank, p), tind(p));
    MPI_Win_unlock(c->rank, c->win);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void check_pair(const ctx_t *c, int kd, const char *p, long v, int i, const char *where, int at, int *bad)
{
    long gv = pval(kd, p);
    int gi = pind(kd, p);
    if ((gv != v || gi != i) && (*bad)++ < 3)
        LC_CHECK(0, "%s %s %s element %d: (%ld, %d), expected (%ld, %d)", c->what, pname[kd], where, at, gv, gi, v, i);
}

/* One epoch: the 7 operations of `ops` into the right neighbour, origin
 * in layout o, result in layout rl, target in layout t, region by
 * region, and NFOP Fetch_and_ops; then every rank checks its memory
 * (what its left neighbour did) and its results. */
static void one_round(ctx_t *c, int kd, int o, int rl, int t)
{
    size_t ex = pext[kd];
    char *org = lc_malloc(NW * ex), *res = lc_malloc((NREG - 1) * NW * ex), *fres = lc_malloc(NFOP * ex);
    char *forg = lc_malloc(NFOP * ex);
    int r = c->right;
    reset(c, kd);
    /* origin element k for target position lpos[t][k]: case k % 4 */
    memset(org, 0, NW * ex);
    for (int p = 0; p < NW; p++) pset(kd, org + p * ex, -3, -3); /* never sent */
    for (int k = 0; k < NE; k++) {
        long v;
        int i;
        oelem(k % 4, r, lpos[t][k], c->rank, &v, &i);
        pset(kd, org + lpos[o][k] * ex, v, i);
    }
    memset(res, 0, (NREG - 1) * NW * ex);
    for (int p = 0; p < (NREG - 1) * NW; p++) pset(kd, res + p * ex, -4, -4);
    memset(fres, 0, NFOP * ex);
    memset(forg, 0, NFOP * ex);
    for (int k = 0; k < NFOP; k++) {
        long v;
        int i;
        oelem(k / 4, r, k, c->rank, &v, &i);
        pset(kd, forg + k * ex, v, i);
        pset(kd, fres + k * ex, -5, -5);
    }
    if (c->fence) MPI_Win_fence(0, c->win);
    else MPI_Win_lock(MPI_LOCK_SHARED, r, 0, c->win);
    MPI_Request rq[NREG];
    int nrq = 0;
    for (int j = 0; j < NREG - 1; j++) {
        MPI_Aint d = disp_of(c, r, kd, j);
        char *rb = res + (size_t)j * NW * ex;
        if (ops[j].gacc && ops[j].req)
            MPI_Rget_accumulate(org, lcount[o], lty[kd][o], rb, lcount[rl], lty[kd][rl], r, d, lcount[t], lty[kd][t],
                                ops[j].op, c->win, &rq[nrq++]);
        else if (ops[j].gacc)
            MPI_Get_accumulate(org, lcount[o], lty[kd][o], rb, lcount[rl], lty[kd][rl], r, d, lcount[t], lty[kd][t],
                               ops[j].op, c->win);
        else if (ops[j].req)
            MPI_Raccumulate(org, lcount[o], lty[kd][o], r, d, lcount[t], lty[kd][t], ops[j].op, c->win, &rq[nrq++]);
        else
            MPI_Accumulate(org, lcount[o], lty[kd][o], r, d, lcount[t], lty[kd][t], ops[j].op, c->win);
    }
    for (int k = 0; k < NFOP; k++)
        MPI_Fetch_and_op(forg + k * ex, fres + k * ex, ptype[kd], r, disp_of(c, r, kd, NREG - 1) + (MPI_Aint)(k * ex),
                         fops[k % 4], c->win);
    for (int q = 0; q < nrq; q++) MPI_Wait(&rq[q], MPI_STATUS_IGNORE);
    if (c->fence) MPI_Win_fence(MPI_MODE_NOSUCCEED, c->win);
    else MPI_Win_unlock(r, c->win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* my memory, as my left neighbour changed it */
    char where[160];
    MPI_Win_lock(MPI_LOCK_SHARED, c->rank, 0, c->win);
    for (int j = 0; j < NREG - 1; j++) {
        int bad = 0;
        snprintf(where, sizeof where, "%s origin %s target %s", ops[j].name, lname[o], lname[t]);
        for (int p = 0; p < NW; p++) {
            long v = tval(c->rank, p), ov;
            int i = tind(p), oi;
            for (int k = 0; k < NE; k++)
                if (lpos[t][k] == p && ops[j].op != MPI_NO_OP) {
                    oelem(k % 4, c->rank, p, c->left, &ov, &oi);
                    combine(ops[j].op, tval(c->rank, p), tind(p), ov, oi, &v, &i);
                }
            check_pair(c, kd, c->mem + ((size_t)j * NW + p) * ex, v, i, where, p, &bad);
        }
    }
    int bad = 0;
    for (int k = 0; k < NW; k++) {
        long v = tval(c->rank, k), ov;
        int i = tind(k), oi;
        if (k < NFOP) {
            oelem(k / 4, c->rank, k, c->left, &ov, &oi);
            if (fops[k % 4] != MPI_NO_OP) combine(fops[k % 4], v, i, ov, oi, &v, &i);
        }
        check_pair(c, kd, c->mem + ((size_t)(NREG - 1) * NW + k) * ex, v, i, "fetch_and_op target", k, &bad);
    }
    MPI_Win_unlock(c->rank, c->win);

    /* my results: the right neighbour's elements before the operation */
    for (int j = 0; j < NREG - 1; j++) {
        if (!ops[j].gacc) continue;
        bad = 0;
        snprintf(where, sizeof where, "%s result %s target %s", ops[j].name, lname[rl], lname[t]);
        for (int p = 0; p < NW; p++) {
            long v = -4;
            int i = -4;
            for (int k = 0; k < NE; k++)
                if (lpos[rl][k] == p) {
                    v = tval(r, lpos[t][k]);
                    i = tind(lpos[t][k]);
                }
            check_pair(c, kd, res + ((size_t)j * NW + p) * ex, v, i, where, p, &bad);
        }
    }
    bad = 0;
    for (int k = 0; k < NFOP; k++)
        check_pair(c, kd, fres + k * ex, tval(r, k), tind(k), "fetch_and_op result", k, &bad);
    MPI_Barrier(MPI_COMM_WORLD);
    free(org);
    free(res);
    free(fres);
    free(forg);
}

/* Every rank at once into rank 0's region 0 (MAXLOC) and region 1
 * (MINLOC), struct layout, under a shared lock: rank s sends value
 * tval(0, p) + (s % 3) - 1 with index 100 - s, so several ranks tie. */
static void concurrent(ctx_t *c, int kd)
{
    size_t ex = pext[kd];
    char *org = lc_malloc(NW * ex);
    reset(c, kd);
    memset(org, 0, NW * ex);
    for (int k = 0; k < NE; k++)
        pset(kd, org + lpos[VEC][k] * ex, tval(0, lpos[STRUCT][k]) + c->rank % 3 - 1, 100 - c->rank);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, c->win);
    for (int reg = 0; reg < 2; reg++)
        MPI_Accumulate(org, lcount[VEC], lty[kd][VEC], 0, disp_of(c, 0, kd, reg), lcount[STRUCT], lty[kd][STRUCT],
                       reg ? MPI_MINLOC : MPI_MAXLOC, c->win);
    MPI_Win_unlock(0, c->win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (c->rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, c->win);
        for (int reg = 0; reg < 2; reg++) {
            int bad = 0;
            for (int p = 0; p < NW; p++) {
                long v = tval(0, p);
                int i = tind(p);
                for (int k = 0; k < NE; k++)
                    if (lpos[STRUCT][k] == p)
                        for (int s = 0; s < c->size; s++)
                            combine(reg ? MPI_MINLOC : MPI_MAXLOC, v, i, tval(0, p) + s % 3 - 1, 100 - s, &v, &i);
                check_pair(c, kd, c->mem + ((size_t)reg * NW + p) * ex, v, i,
                           reg ? "concurrent minloc" : "concurrent maxloc", p, &bad);
            }
        }
        MPI_Win_unlock(0, c->win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(org);
}

/* More elements than one batch of the engine's widening (32) and than
 * its 256-byte stack buffer: Get_accumulate MAXLOC of NB predefined pairs
 * into vector(NB / 2, 2, 3) at the right neighbour, result predefined;
 * element e of the memory starts as (tval(r, e % NW), tind(e % NW)). */
#define NB 80
static void big_round(ctx_t *c, int kd)
{
    size_t ex = pext[kd];
    char *org = lc_malloc(NB * ex), *res = lc_malloc(NB * ex);
    MPI_Datatype vt;
    MPI_Type_vector(NB / 2, 2, 3, ptype[kd], &vt);
    MPI_Type_commit(&vt);
    reset(c, kd);
    memset(org, 0, NB * ex);
    memset(res, 0, NB * ex);
    for (int k = 0; k < NB; k++) {
        int e = k / 2 * 3 + k % 2;
        long v;
        int i;
        oelem(k % 4, c->right, e % NW, c->rank, &v, &i);
        pset(kd, org + k * ex, v, i);
        pset(kd, res + k * ex, -6, -6);
    }
    if (c->fence) MPI_Win_fence(0, c->win);
    else MPI_Win_lock(MPI_LOCK_SHARED, c->right, 0, c->win);
    MPI_Get_accumulate(org, NB, ptype[kd], res, NB, ptype[kd], c->right, disp_of(c, c->right, kd, 0), 1, vt,
                       MPI_MAXLOC, c->win);
    if (c->fence) MPI_Win_fence(MPI_MODE_NOSUCCEED, c->win);
    else MPI_Win_unlock(c->right, c->win);
    MPI_Barrier(MPI_COMM_WORLD);
    int bad = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, c->rank, 0, c->win);
    for (int e = 0; e < NREG * NW; e++) {
        long v = tval(c->rank, e % NW), ov;
        int i = tind(e % NW), oi;
        if (e < NB / 2 * 3 && e % 3 != 2) {
            int k = e / 3 * 2 + e % 3;
            oelem(k % 4, c->rank, e % NW, c->left, &ov, &oi);
            combine(MPI_MAXLOC, v, i, ov, oi, &v, &i);
        }
        check_pair(c, kd, c->mem + (size_t)e * ex, v, i, "big gacc maxloc target", e, &bad);
    }
    MPI_Win_unlock(c->rank, c->win);
    bad = 0;
    for (int k = 0; k < NB; k++) {
        int e = k / 2 * 3 + k % 2;
        check_pair(c, kd, res + k * ex, tval(c->right, e % NW), tind(e % NW), "big gacc maxloc result", k, &bad);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Type_free(&vt);
    free(org);
    free(res);
}

/* (origin, result, target) layouts */
static const int trio[][3] = { { CONTIG, VEC, VEC },    { VEC, IDX, IDX },       { IDX, STRUCT, STRUCT },
                               { STRUCT, CONTIG, IDX }, { STRUCT, STRUCT, CONTIG } };

static void run(ctx_t *c)
{
    for (int kd = 0; kd < NK; kd++) {
        c->fence = kd % 2;
        for (size_t x = 0; x < sizeof trio / sizeof trio[0]; x++) one_round(c, kd, trio[x][0], trio[x][1], trio[x][2]);
        concurrent(c, kd);
        big_round(c, kd);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ctx_t c = { .rank = lc_world_rank(), .size = lc_world_size() };
    c.right = (c.rank + 1) % c.size;
    c.left = (c.rank + c.size - 1) % c.size;
    make_layouts();
    MPI_Aint bytes = (MPI_Aint)NREG * NW * MAXEXT;

    c.mem = lc_malloc((size_t)bytes);
    MPI_Win_create(c.mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c.win);
    c.what = "create";
    run(&c);
    MPI_Win_free(&c.win);
    free(c.mem);

    MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c.mem, &c.win);
    c.what = "allocate";
    run(&c);
    MPI_Win_free(&c.win);

    MPI_Comm node;
    int nsize;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    if (nsize == c.size) { /* (across hosts: not every neighbour shares memory) */
        MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c.mem, &c.win);
        c.what = "shared";
        run(&c);
        MPI_Win_free(&c.win);
    }
    MPI_Comm_free(&node);

    c.mem = lc_malloc((size_t)bytes);
    c.base0 = lc_malloc((size_t)c.size * sizeof(MPI_Aint));
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &c.win);
    MPI_Win_attach(c.win, c.mem, bytes);
    MPI_Aint mine;
    MPI_Get_address(c.mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, c.base0, 1, MPI_AINT, MPI_COMM_WORLD);
    c.what = "dynamic";
    run(&c);
    MPI_Win_detach(c.win, c.mem);
    MPI_Win_free(&c.win);
    free(c.mem);
    free(c.base0);

    for (int kd = 0; kd < NK; kd++)
        for (int l = 1; l < NL; l++) MPI_Type_free(&lty[kd][l]);
    return lc_finish();
}
