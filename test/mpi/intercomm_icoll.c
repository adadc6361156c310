/* SPDX-License-Identifier: BSD-3-Clause */
/* intercomm_icoll.c: nonblocking and persistent collectives on
 * intercommunicators (MPI 4.1 §6.2.2, §6.12, §6.13).
 *
 * MPI_COMM_WORLD splits into A (world ranks 0..k-1) and B (the rest),
 * joined by MPI_Intercomm_create, for several k (1 vs n-1, n/2 vs n/2,
 * 3 vs n-3).  Every collective that intercommunicators have — barrier,
 * bcast, gather(v), scatter(v), allgather(v), alltoall(v,w), reduce,
 * allreduce, reduce_scatter(_block) — runs first blocking, then as
 * MPI_I<coll> with all of them outstanding at once (a blocking allreduce
 * meanwhile; completed by a Testsome loop, then in reverse order by
 * MPI_Wait), then as
 * MPI_<Coll>_init (Startall + Waitall, then Start one by one + waits in
 * reverse order); every result must equal the blocking one.  Rooted
 * operations have the root in A and in B (MPI_ROOT / MPI_PROC_NULL in the
 * root's group); some use a strided derived datatype (with a user
 * operation in the reductions).  Two MPI_Comm_idup of the
 * intercommunicator run outstanding beside an MPI_Iallreduce.  Errors:
 * Iscan / Iexscan / Scan_init give MPI_ERR_COMM, a bad root MPI_ERR_ROOT.
 * arg=quick: only the split 3 vs n-3 (or n/2 when n < 4).
 * Needs at least 2 ranks. */
#include "lc_test.h"

#include <string.h>

#define NB 512 /* ints per buffer */
#define CNT 3
enum { BLOCK, NONBLOCK, PERSIST, NMODES };

static MPI_Comm ic;
static int wrank, wsize, color, lrank, lsize, rsize, gsize[2];
static MPI_Datatype vec; /* 2 ints, stride 2: extent 3 ints */
static MPI_Op vmax;       /* max of ints, or of vec's ints (a user op: MPICH has no MPI_MAX on vec) */
/* vectors of the cases (fixed while an intercommunicator's cases run:
 * persistent requests may read them at any start) */
static int c3[16], d3[16], a2c[16], a2d[16], wc[16], wd[16], wrc[16], wrd[16], rsc[16];
static MPI_Datatype wt[16], wrt[16];

/* The root of a rooted case whose root is the last rank of group g. */
static int root_of(int g)
{
    /* MPICH 4.0.2's nonblocking and persistent intercommunicator bcast
     * delivers wrong data from a root other than rank 0 of its group */
    int r = lc_library_is_mpich() ? 0 : gsize[g] - 1;
    if (color != g) return r;
    return lrank == r ? MPI_ROOT : MPI_PROC_NULL;
}

static void vmax_fn(void *a, void *b, int *len, MPI_Datatype *dt)
{
    const int *x = a;
    int *y = b;
    int vecs = *dt == vec, n = vecs ? 3 * *len : *len;
    for (int i = 0; i < n; i++)
        if ((!vecs || i % 3 != 1) && x[i] > y[i]) y[i] = x[i];
}

#define CALL(mode, blk, nb, pers) ((mode) == BLOCK ? (blk) : (mode) == NONBLOCK ? (nb) : (pers))
#define INFO MPI_INFO_NULL

typedef void case_fn(int mode, int *in, int *out, MPI_Request *req);

static void c_barrier(int m, int *in, int *out, MPI_Request *r)
{
    (void)in, (void)out;
    LC_MPI(CALL(m, MPI_Barrier(ic), MPI_Ibarrier(ic, r), MPI_Barrier_init(ic, INFO, r)));
}
static void c_bcast_a(int m, int *in, int *out, MPI_Request *r)
{
    (void)in;
    int root = root_of(0);
    LC_MPI(CALL(m, MPI_Bcast(out, CNT, MPI_INT, root, ic), MPI_Ibcast(out, CNT, MPI_INT, root, ic, r),
                MPI_Bcast_init(out, CNT, MPI_INT, root, ic, INFO, r)));
}
static void c_bcast_b(int m, int *in, int *out, MPI_Request *r)
{
    (void)in;
    int root = root_of(1);
    LC_MPI(CALL(m, MPI_Bcast(out, CNT, vec, root, ic), MPI_Ibcast(out, CNT, vec, root, ic, r),
                MPI_Bcast_init(out, CNT, vec, root, ic, INFO, r)));
}
static void c_gather(int m, int *in, int *out, MPI_Request *r)
{
    int root = root_of(0);
    LC_MPI(CALL(m, MPI_Gather(in, CNT, MPI_INT, out, CNT, MPI_INT, root, ic),
                MPI_Igather(in, CNT, MPI_INT, out, CNT, MPI_INT, root, ic, r),
                MPI_Gather_init(in, CNT, MPI_INT, out, CNT, MPI_INT, root, ic, INFO, r)));
}
static void c_gatherv(int m, int *in, int *out, MPI_Request *r)
{
    int root = root_of(1), n = c3[lrank];
    LC_MPI(CALL(m, MPI_Gatherv(in, n, vec, out, c3, d3, vec, root, ic),
                MPI_Igatherv(in, n, vec, out, c3, d3, vec, root, ic, r),
                MPI_Gatherv_init(in, n, vec, out, c3, d3, vec, root, ic, INFO, r)));
}
static void c_scatter(int m, int *in, int *out, MPI_Request *r)
{
    int root = root_of(1);
    LC_MPI(CALL(m, MPI_Scatter(in, CNT, MPI_INT, out, CNT, MPI_INT, root, ic),
                MPI_Iscatter(in, CNT, MPI_INT, out, CNT, MPI_INT, root, ic, r),
                MPI_Scatter_init(in, CNT, MPI_INT, out, CNT, MPI_INT, root, ic, INFO, r)));
}
static void c_scatterv(int m, int *in, int *out, MPI_Request *r)
{
    int root = root_of(0), n = c3[lrank];
    LC_MPI(CALL(m, MPI_Scatterv(in, c3, d3, vec, out, n, vec, root, ic),
                MPI_Iscatterv(in, c3, d3, vec, out, n, vec, root, ic, r),
                MPI_Scatterv_init(in, c3, d3, vec, out, n, vec, root, ic, INFO, r)));
}
static void c_allgather(int m, int *in, int *out, MPI_Request *r)
{
    LC_MPI(CALL(m, MPI_Allgather(in, CNT, MPI_INT, out, CNT, MPI_INT, ic),
                MPI_Iallgather(in, CNT, MPI_INT, out, CNT, MPI_INT, ic, r),
                MPI_Allgather_init(in, CNT, MPI_INT, out, CNT, MPI_INT, ic, INFO, r)));
}
static void c_allgatherv(int m, int *in, int *out, MPI_Request *r)
{
    int n = c3[lrank];
    LC_MPI(CALL(m, MPI_Allgatherv(in, n, vec, out, c3, d3, vec, ic),
                MPI_Iallgatherv(in, n, vec, out, c3, d3, vec, ic, r),
                MPI_Allgatherv_init(in, n, vec, out, c3, d3, vec, ic, INFO, r)));
}
static void c_alltoall(int m, int *in, int *out, MPI_Request *r)
{
    LC_MPI(CALL(m, MPI_Alltoall(in, 2, vec, out, 2, vec, ic), MPI_Ialltoall(in, 2, vec, out, 2, vec, ic, r),
                MPI_Alltoall_init(in, 2, vec, out, 2, vec, ic, INFO, r)));
}
static void c_alltoallv(int m, int *in, int *out, MPI_Request *r)
{
    LC_MPI(CALL(m, MPI_Alltoallv(in, a2c, a2d, MPI_INT, out, a2c, a2d, MPI_INT, ic),
                MPI_Ialltoallv(in, a2c, a2d, MPI_INT, out, a2c, a2d, MPI_INT, ic, r),
                MPI_Alltoallv_init(in, a2c, a2d, MPI_INT, out, a2c, a2d, MPI_INT, ic, INFO, r)));
}
static void c_alltoallw(int m, int *in, int *out, MPI_Request *r)
{
    LC_MPI(CALL(m, MPI_Alltoallw(in, wc, wd, wt, out, wrc, wrd, wrt, ic),
                MPI_Ialltoallw(in, wc, wd, wt, out, wrc, wrd, wrt, ic, r),
                MPI_Alltoallw_init(in, wc, wd, wt, out, wrc, wrd, wrt, ic, INFO, r)));
}
static void c_reduce_a(int m, int *in, int *out, MPI_Request *r)
{
    int root = root_of(0);
    LC_MPI(CALL(m, MPI_Reduce(in, out, CNT, MPI_INT, MPI_SUM, root, ic),
                MPI_Ireduce(in, out, CNT, MPI_INT, MPI_SUM, root, ic, r),
                MPI_Reduce_init(in, out, CNT, MPI_INT, MPI_SUM, root, ic, INFO, r)));
}
static void c_reduce_b(int m, int *in, int *out, MPI_Request *r)
{
    int root = root_of(1);
    LC_MPI(CALL(m, MPI_Reduce(in, out, CNT, vec, vmax, root, ic),
                MPI_Ireduce(in, out, CNT, vec, vmax, root, ic, r),
                MPI_Reduce_init(in, out, CNT, vec, vmax, root, ic, INFO, r)));
}
static void c_allreduce(int m, int *in, int *out, MPI_Request *r)
{
    LC_MPI(CALL(m, MPI_Allreduce(in, out, CNT, MPI_INT, MPI_SUM, ic),
                MPI_Iallreduce(in, out, CNT, MPI_INT, MPI_SUM, ic, r),
                MPI_Allreduce_init(in, out, CNT, MPI_INT, MPI_SUM, ic, INFO, r)));
}
static void c_allreduce_vec(int m, int *in, int *out, MPI_Request *r)
{
    LC_MPI(CALL(m, MPI_Allreduce(in, out, CNT, vec, vmax, ic), MPI_Iallreduce(in, out, CNT, vec, vmax, ic, r),
                MPI_Allreduce_init(in, out, CNT, vec, vmax, ic, INFO, r)));
}
/* Both groups' input vectors have 2 * lsize * rsize items. */
static void c_redscat_block(int m, int *in, int *out, MPI_Request *r)
{
    int n = 2 * rsize;
    LC_MPI(CALL(m, MPI_Reduce_scatter_block(in, out, n, MPI_INT, MPI_SUM, ic),
                MPI_Ireduce_scatter_block(in, out, n, MPI_INT, MPI_SUM, ic, r),
                MPI_Reduce_scatter_block_init(in, out, n, MPI_INT, MPI_SUM, ic, INFO, r)));
}
static void c_redscat(int m, int *in, int *out, MPI_Request *r)
{
    LC_MPI(CALL(m, MPI_Reduce_scatter(in, out, rsc, MPI_INT, MPI_SUM, ic),
                MPI_Ireduce_scatter(in, out, rsc, MPI_INT, MPI_SUM, ic, r),
                MPI_Reduce_scatter_init(in, out, rsc, MPI_INT, MPI_SUM, ic, INFO, r)));
}

static const struct {
    const char *name;
    case_fn *fn;
    int inout; /* the output buffer starts as the input (bcast) */
} cases[] = {
    { "barrier", c_barrier, 0 },        { "bcast(root A)", c_bcast_a, 1 },
    { "bcast(root B, vec)", c_bcast_b, 1 }, { "gather", c_gather, 0 },
    { "gatherv(vec)", c_gatherv, 0 },   { "scatter", c_scatter, 0 },
    { "scatterv(vec)", c_scatterv, 0 }, { "allgather", c_allgather, 0 },
    { "allgatherv(vec)", c_allgatherv, 0 }, { "alltoall(vec)", c_alltoall, 0 },
    { "alltoallv", c_alltoallv, 0 },    { "alltoallw", c_alltoallw, 0 },
    { "reduce(root A)", c_reduce_a, 0 }, { "reduce(root B, vec, user max)", c_reduce_b, 0 },
    { "allreduce", c_allreduce, 0 },    { "allreduce(vec, user max)", c_allreduce_vec, 0 },
    { "reduce_scatter_block", c_redscat_block, 0 }, { "reduce_scatter", c_redscat, 0 },
};
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

static int in[NCASES][NB], out[NMODES][NCASES][NB];

static void prep(int mode, int i)
{
    if (cases[i].inout) memcpy(out[mode][i], in[i], sizeof(in[i]));
    else for (int k = 0; k < NB; k++) out[mode][i][k] = -1;
}

static void compare(int mode, const char *how, int k)
{
    for (int i = 0; i < NCASES; i++) {
        int bad = -1;
        for (int j = 0; j < NB && bad < 0; j++)
            if (out[mode][i][j] != out[BLOCK][i][j]) bad = j;
        LC_CHECK(bad < 0, "split %d: %s %s: item %d is %d, blocking gave %d", k, how, cases[i].name, bad,
                 bad < 0 ? 0 : out[mode][i][bad], bad < 0 ? 0 : out[BLOCK][i][bad]);
    }
}

static void setup_vectors(void)
{
    for (int j = 0, d = 0; j < 16; j++) c3[j] = j % 3 + 1, d3[j] = d, d += c3[j] + 1;
    for (int j = 0, d = 0; j < 16; j++) a2c[j] = (j + lrank) % 3 + 1, a2d[j] = d, d += a2c[j] + 1;
    /* alltoallw: to remote j two ints, as 2 x MPI_INT (j even) or 1 x vec;
     * from remote j likewise by j's parity; 6 ints apart */
    for (int j = 0; j < 16; j++) {
        wt[j] = j % 2 ? vec : MPI_INT, wc[j] = j % 2 ? 1 : 2, wd[j] = j * 6 * (int)sizeof(int);
        wrt[j] = lrank % 2 ? vec : MPI_INT, wrc[j] = lrank % 2 ? 1 : 2, wrd[j] = j * 6 * (int)sizeof(int);
    }
    /* reduce_scatter: total 2 * lsize * rsize in uneven blocks */
    for (int i = 0; i < lsize; i++) rsc[i] = 2 * rsize;
    if (lsize > 1) rsc[0] = rsize, rsc[lsize - 1] += rsize;
}

static void check_errors(void)
{
    MPI_Request r;
    int a[4] = { 1, 2, 3, 4 }, b[4];
    int rc = MPI_Iscan(a, b, 1, MPI_INT, MPI_SUM, ic, &r);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_COMM, "MPI_Iscan on an intercommunicator gave %s", lc_class_name(lc_class_of(rc)));
    rc = MPI_Iexscan(a, b, 1, MPI_INT, MPI_SUM, ic, &r);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_COMM, "MPI_Iexscan on an intercommunicator gave %s",
             lc_class_name(lc_class_of(rc)));
    /* MPICH 4.0.2 asserts (aborts) in MPI_Scan_init on an intercommunicator */
    if (!lc_library_is_mpich()) {
        rc = MPI_Scan_init(a, b, 1, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &r);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_COMM, "MPI_Scan_init on an intercommunicator gave %s",
                 lc_class_name(lc_class_of(rc)));
    }
    rc = MPI_Ibcast(a, 1, MPI_INT, rsize, ic, &r);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_ROOT, "MPI_Ibcast with root %d (remote size %d) gave %s", rsize, rsize,
             lc_class_name(lc_class_of(rc)));
}

/* Two MPI_Comm_idup of the intercommunicator outstanding with a
 * nonblocking allreduce; the duplicates are congruent and work. */
static void check_idup(int k)
{
    MPI_Comm d[2];
    MPI_Request q[3];
    MPI_Status sts[3];
    int x = wrank, sum = -1, want = 0;
    for (int w = 0; w < wsize; w++)
        if ((w < gsize[0]) != (color == 0)) want += w; /* the remote group's world ranks */
    LC_MPI(MPI_Comm_idup(ic, &d[0], &q[0]));
    LC_MPI(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, ic, &q[1]));
    LC_MPI(MPI_Comm_idup(ic, &d[1], &q[2]));
    LC_MPI(MPI_Waitall(3, q, sts));
    LC_CHECK(sum == want, "split %d: Iallreduce beside Comm_idup gave %d, want %d", k, sum, want);
    for (int i = 0; i < 2; i++) {
        int res = -1, flag = 0, s2 = -1;
        LC_MPI(MPI_Comm_compare(ic, d[i], &res));
        LC_CHECK(res == MPI_CONGRUENT, "split %d: Comm_idup #%d compares %d, want MPI_CONGRUENT", k, i, res);
        LC_MPI(MPI_Comm_test_inter(d[i], &flag));
        LC_CHECK(flag, "split %d: Comm_idup #%d is not an intercommunicator", k, i);
        LC_MPI(MPI_Allreduce(&x, &s2, 1, MPI_INT, MPI_SUM, d[i]));
        LC_CHECK(s2 == want, "split %d: Allreduce on Comm_idup #%d gave %d, want %d", k, i, s2, want);
    }
    LC_MPI(MPI_Comm_free(&d[0]));
    LC_MPI(MPI_Comm_free(&d[1]));
}

static void run_split(int k)
{
    MPI_Comm local;
    gsize[0] = k, gsize[1] = wsize - k;
    color = wrank < k ? 0 : 1;
    LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local));
    LC_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? k : 0, 77, &ic));
    LC_MPI(MPI_Comm_rank(ic, &lrank));
    LC_MPI(MPI_Comm_size(ic, &lsize));
    LC_MPI(MPI_Comm_remote_size(ic, &rsize));
    setup_vectors();
    for (int i = 0; i < NCASES; i++)
        for (int j = 0; j < NB; j++) in[i][j] = (int)(lc_pattern(wrank, i + 100 * k, j) & 0xffff);

    /* blocking: the reference */
    for (int i = 0; i < NCASES; i++) prep(BLOCK, i), cases[i].fn(BLOCK, in[i], out[BLOCK][i], NULL);

    MPI_Request reqs[NCASES];
    MPI_Status sts[NCASES];
    int idx[NCASES], left;
    /* nonblocking, all outstanding; a Testsome loop */
    for (int i = 0; i < NCASES; i++) prep(NONBLOCK, i), cases[i].fn(NONBLOCK, in[i], out[NONBLOCK][i], &reqs[i]);
    /* a blocking collective on the same intercommunicator meanwhile */
    int x = wrank, sum = -1, want = 0;
    for (int w = 0; w < wsize; w++)
        if ((w < gsize[0]) != (color == 0)) want += w; /* the remote group's world ranks */
    LC_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, ic));
    LC_CHECK(sum == want, "split %d: Allreduce amid nonblocking collectives gave %d, want %d", k, sum, want);
    for (left = NCASES; left > 0;) {
        int done;
        LC_MPI(MPI_Testsome(NCASES, reqs, &done, idx, sts));
        LC_CHECK(done != MPI_UNDEFINED, "MPI_Testsome found no active request with %d left", left);
        if (done == MPI_UNDEFINED) break;
        left -= done;
    }
    compare(NONBLOCK, "nonblocking (Testsome)", k);
    /* again, completed in reverse order */
    for (int i = 0; i < NCASES; i++) prep(NONBLOCK, i), cases[i].fn(NONBLOCK, in[i], out[NONBLOCK][i], &reqs[i]);
    for (int i = NCASES - 1; i >= 0; i--) LC_MPI(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
    compare(NONBLOCK, "nonblocking (reverse waits)", k);

    /* persistent: Startall + Waitall, then one by one, waited in reverse */
    for (int i = 0; i < NCASES; i++) prep(PERSIST, i), cases[i].fn(PERSIST, in[i], out[PERSIST][i], &reqs[i]);
    LC_MPI(MPI_Startall(NCASES, reqs));
    LC_MPI(MPI_Waitall(NCASES, reqs, sts));
    compare(PERSIST, "persistent (Startall)", k);
    /* MPICH 4.0.2: a second start of a persistent intercommunicator
     * scatter or reduce_scatter_block writes nothing or fails ("Invalid
     * communicator") */
    if (!lc_library_is_mpich()) {
        for (int i = 0; i < NCASES; i++) prep(PERSIST, i);
        for (int i = 0; i < NCASES; i++) LC_MPI(MPI_Start(&reqs[i]));
        for (int i = NCASES - 1; i >= 0; i--) LC_MPI(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
        compare(PERSIST, "persistent (second start)", k);
    }
    for (int i = 0; i < NCASES; i++) LC_MPI(MPI_Request_free(&reqs[i]));

    check_idup(k);
    LC_MPI(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    check_errors();
    LC_MPI(MPI_Comm_free(&ic));
    LC_MPI(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) LC_FATAL("needs at least 2 ranks");
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    LC_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    LC_MPI(MPI_Type_commit(&vec));
    LC_MPI(MPI_Op_create(vmax_fn, 1, &vmax));
    int splits[3] = { 1, wsize / 2, 3 }, done[3] = { 0, 0, 0 };
    for (int s = 0; s < 3; s++) {
        int k = splits[s];
        if (k < 1 || k >= wsize) continue;
        if (quick && k != (wsize >= 4 ? 3 : wsize / 2)) continue;
        int dup = 0;
        for (int t = 0; t < s; t++) dup |= done[t] && splits[t] == k;
        if (dup) continue;
        done[s] = 1;
        run_split(k);
    }
    MPI_Op_free(&vmax);
    MPI_Type_free(&vec);
    return lc_finish();
}
