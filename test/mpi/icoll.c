/* SPDX-License-Identifier: BSD-3-Clause */
/* icoll: every nonblocking collective gives its blocking twin's result.
 *
 * On each test communicator and for several vector lengths (one element
 * to a few hundred KiB, so rendezvous messages run too), all seventeen
 * collectives (with MPI_IN_PLACE variants and a non-commutative user
 * operation) are started at once, together with a ring of point-to-point
 * messages on the same communicator and the same collectives on a
 * duplicate of it, and completed in turn by MPI_Waitall, an MPI_Testall
 * loop, an MPI_Testany loop, or MPI_Wait in reverse order.  Then the
 * blocking collectives run on the same inputs and the outputs must be
 * equal byte for byte (integer data: every algorithm gives the same
 * bits).  Ibarrier: no rank completes it before every rank started it.
 * First, reductions whose user operation is freed while they run. */
#include "lc_types.h"

#include <stdint.h>
#include <time.h>

typedef struct {
    MPI_Comm comm;
    int r, p, n; /* rank, size, elements per block */
    MPI_Op affine; /* non-commutative */
} ctx_t;

/* (m, c) pairs: x -> m x + c; a op b = a after b, composed mod 2^32 */
static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    uint32_t *a = in, *b = inout;
    for (int i = 0; i + 1 < *len; i += 2) {
        uint32_t m = a[i] * b[i], c = a[i] * b[i + 1] + a[i + 1];
        b[i] = m;
        b[i + 1] = c;
    }
}

static int32_t val(int rank, int i, int salt) { return lc_pattern(rank, salt, i) | 1; }

static void fill(int32_t *b, long n, int rank, int salt)
{
    for (long i = 0; i < n; i++) b[i] = val(rank, (int)i, salt);
}

#define NCASE 20
static const char *case_names[NCASE] = {
    "bcast", "reduce", "allreduce", "allreduce_inplace", "allreduce_affine", "gather", "gatherv", "scatter",
    "scatterv", "allgather", "allgatherv_inplace", "alltoall", "alltoallv", "reduce_scatter",
    "reduce_scatter_block", "scan", "exscan", "scan_affine", "reduce_affine", "alltoall_inplace",
};

/* Run case k, nonblocking (req != NULL) or blocking, into out (zeroed). */
static void run_case(const ctx_t *c, int k, int32_t *in, int32_t *out, int *cnt, int *dsp, MPI_Request *req)
{
    int n = c->n, p = c->p, r = c->r, root = (k + 1) % p;
    MPI_Comm comm = c->comm;
    fill(in, (long)(n + 4) * p * 2, r, k); /* the whole buffer: vector blocks reach past n * p */
    for (int i = 0; i < p; i++) { /* uneven vector: block i has n - i % 3 elements (>= 0) */
        cnt[i] = n > 2 ? n - i % 3 : n;
        dsp[i] = i == 0 ? 0 : dsp[i - 1] + cnt[i - 1] + 1;
    }
#define GO(nb, bl) LC_MPI(req ? (nb) : (bl))
    switch (k) {
    case 0:
        if (r == root) memcpy(out, in, sizeof(int32_t) * (size_t)n);
        GO(MPI_Ibcast(out, n, MPI_INT, root, comm, req), MPI_Bcast(out, n, MPI_INT, root, comm));
        break;
    case 1: GO(MPI_Ireduce(in, out, n, MPI_INT, MPI_SUM, root, comm, req), MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, root, comm)); break;
    case 2: GO(MPI_Iallreduce(in, out, n, MPI_INT, MPI_BXOR, comm, req), MPI_Allreduce(in, out, n, MPI_INT, MPI_BXOR, comm)); break;
    case 3:
        memcpy(out, in, sizeof(int32_t) * (size_t)n);
        GO(MPI_Iallreduce(MPI_IN_PLACE, out, n, MPI_INT, MPI_MAX, comm, req),
           MPI_Allreduce(MPI_IN_PLACE, out, n, MPI_INT, MPI_MAX, comm));
        break;
    case 4: {
        int m = n & ~1;
        GO(MPI_Iallreduce(in, out, m, MPI_INT, c->affine, comm, req), MPI_Allreduce(in, out, m, MPI_INT, c->affine, comm));
        break;
    }
    case 5: GO(MPI_Igather(in, n, MPI_INT, out, n, MPI_INT, root, comm, req), MPI_Gather(in, n, MPI_INT, out, n, MPI_INT, root, comm)); break;
    case 6:
        GO(MPI_Igatherv(in, cnt[r], MPI_INT, out, cnt, dsp, MPI_INT, root, comm, req),
           MPI_Gatherv(in, cnt[r], MPI_INT, out, cnt, dsp, MPI_INT, root, comm));
        break;
    case 7: GO(MPI_Iscatter(in, n, MPI_INT, out, n, MPI_INT, root, comm, req), MPI_Scatter(in, n, MPI_INT, out, n, MPI_INT, root, comm)); break;
    case 8:
        GO(MPI_Iscatterv(in, cnt, dsp, MPI_INT, out, cnt[r], MPI_INT, root, comm, req),
           MPI_Scatterv(in, cnt, dsp, MPI_INT, out, cnt[r], MPI_INT, root, comm));
        break;
    case 9: GO(MPI_Iallgather(in, n, MPI_INT, out, n, MPI_INT, comm, req), MPI_Allgather(in, n, MPI_INT, out, n, MPI_INT, comm)); break;
    case 10:
        memcpy(out + dsp[r], in, sizeof(int32_t) * (size_t)cnt[r]);
        GO(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_INT, out, cnt, dsp, MPI_INT, comm, req),
           MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, out, cnt, dsp, MPI_INT, comm));
        break;
    case 11: GO(MPI_Ialltoall(in, n, MPI_INT, out, n, MPI_INT, comm, req), MPI_Alltoall(in, n, MPI_INT, out, n, MPI_INT, comm)); break;
    case 12: {
        /* send cnt[(r + i) % p] to i; receive cnt[(i + r) % p] from i: the two agree */
        int *sc = cnt + p, *sd = dsp + p, *rc = cnt + 2 * p, *rd = dsp + 2 * p;
        for (int i = 0; i < p; i++) {
            sc[i] = cnt[(r + i) % p] / 2;
            rc[i] = cnt[(i + r) % p] / 2;
            sd[i] = i == 0 ? 0 : sd[i - 1] + sc[i - 1];
            rd[i] = i == 0 ? 1 : rd[i - 1] + rc[i - 1] + 1;
        }
        GO(MPI_Ialltoallv(in, sc, sd, MPI_INT, out, rc, rd, MPI_INT, comm, req),
           MPI_Alltoallv(in, sc, sd, MPI_INT, out, rc, rd, MPI_INT, comm));
        break;
    }
    case 13: GO(MPI_Ireduce_scatter(in, out, cnt, MPI_INT, MPI_SUM, comm, req), MPI_Reduce_scatter(in, out, cnt, MPI_INT, MPI_SUM, comm)); break;
    case 14:
        GO(MPI_Ireduce_scatter_block(in, out, n, MPI_INT, MPI_MIN, comm, req),
           MPI_Reduce_scatter_block(in, out, n, MPI_INT, MPI_MIN, comm));
        break;
    case 15: GO(MPI_Iscan(in, out, n, MPI_INT, MPI_SUM, comm, req), MPI_Scan(in, out, n, MPI_INT, MPI_SUM, comm)); break;
    case 16: GO(MPI_Iexscan(in, out, n, MPI_INT, MPI_BOR, comm, req), MPI_Exscan(in, out, n, MPI_INT, MPI_BOR, comm)); break;
    case 17: {
        int m = n & ~1;
        GO(MPI_Iscan(in, out, m, MPI_INT, c->affine, comm, req), MPI_Scan(in, out, m, MPI_INT, c->affine, comm));
        break;
    }
    case 18: {
        int m = n & ~1;
        GO(MPI_Ireduce(in, out, m, MPI_INT, c->affine, root, comm, req),
           MPI_Reduce(in, out, m, MPI_INT, c->affine, root, comm));
        break;
    }
    case 19:
        memcpy(out, in, sizeof(int32_t) * (size_t)n * (size_t)p);
        GO(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_INT, out, n, MPI_INT, comm, req),
           MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INT, out, n, MPI_INT, comm));
        break;
    }
#undef GO
}

/* Bytes of out that case k defines on this rank (compared). */
static size_t case_bytes(const ctx_t *c, int k, const int *cnt, const int *dsp)
{
    int n = c->n, p = c->p, r = c->r, root = (k + 1) % p;
    size_t e = sizeof(int32_t);
    switch (k) {
    case 1: case 5: return r == root ? e * (size_t)n * (k == 5 ? (size_t)p : 1) : 0;
    case 18: return r == root ? e * (size_t)(n & ~1) : 0;
    case 6: return r == root ? e * (size_t)(dsp[p - 1] + cnt[p - 1]) : 0;
    case 7: return e * (size_t)n;
    case 8: case 13: return e * (size_t)cnt[r];
    case 9: case 11: case 19: return e * (size_t)n * (size_t)p;
    case 10: return e * (size_t)(dsp[p - 1] + cnt[p - 1]);
    case 12: return e * (size_t)(dsp[3 * p - 1] + cnt[3 * p - 1] + 1);
    case 16: return r == 0 ? 0 : e * (size_t)n;
    case 4: case 17: return e * (size_t)(n & ~1);
    default: return e * (size_t)n;
    }
}

typedef struct {
    int32_t *in, *out;
    int *cnt, *dsp;
} bufs_t;

static void complete_all(int how, int nreq, MPI_Request *reqs)
{
    switch (how % 4) {
    case 0: LC_MPI(MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE)); break;
    case 1: {
        int flag = 0;
        while (!flag) LC_MPI(MPI_Testall(nreq, reqs, &flag, MPI_STATUSES_IGNORE));
        break;
    }
    case 2: {
        for (int left = nreq; left > 0;) {
            int idx, flag;
            LC_MPI(MPI_Testany(nreq, reqs, &idx, &flag, MPI_STATUS_IGNORE));
            if (flag && idx != MPI_UNDEFINED) left--;
            if (flag && idx == MPI_UNDEFINED) break;
        }
        break;
    }
    default:
        for (int i = nreq - 1; i >= 0; i--) LC_MPI(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < nreq; i++) LC_CHECK(reqs[i] == MPI_REQUEST_NULL, "request %d not freed by completion", i);
}

/* One round: all cases on c[0] and c[1] (a duplicate) and a pt2pt ring,
 * outstanding together; then the blocking runs; compare. */
static void round_all(ctx_t c[2], bufs_t b[2][NCASE], int32_t *blk_out, int how, const char *cname)
{
    MPI_Request reqs[2 * NCASE + 2];
    int nreq = 0, p = c[0].p, r = c[0].r;
    size_t cap = sizeof(int32_t) * (size_t)(c[0].n + 4) * (size_t)p * 2;
    int32_t ring_out = val(r, 0, 99), ring_in = -1;
    for (int k = 0; k < NCASE; k++) {
        for (int d = 0; d < 2; d++) {
            memset(b[d][k].out, 0, cap);
            run_case(&c[d], k, b[d][k].in, b[d][k].out, b[d][k].cnt, b[d][k].dsp, &reqs[nreq++]);
        }
        if (k == NCASE / 2) { /* user point-to-point in the middle, same communicator */
            LC_MPI(MPI_Irecv(&ring_in, 1, MPI_INT, (r + p - 1) % p, 5, c[0].comm, &reqs[nreq++]));
            LC_MPI(MPI_Isend(&ring_out, 1, MPI_INT, (r + 1) % p, 5, c[0].comm, &reqs[nreq++]));
        }
    }
    complete_all(how, nreq, reqs);
    LC_CHECK(ring_in == val((r + p - 1) % p, 0, 99), "%s: the point-to-point ring got %d", cname, ring_in);
    for (int k = 0; k < NCASE; k++) {
        /* 3 p counts and displacements (case 12 keeps its send and receive
         * vectors behind the first p): on the heap, a stack array sized
         * for 64 ranks overflowed at 256 (the job's segfault). */
        int *cnt = lc_malloc(sizeof(int) * 3 * (size_t)p), *dsp = lc_malloc(sizeof(int) * 3 * (size_t)p);
        int32_t *in = lc_malloc(cap);
        memset(blk_out, 0, cap);
        run_case(&c[0], k, in, blk_out, cnt, dsp, NULL);
        size_t nb = case_bytes(&c[0], k, cnt, dsp);
        for (int d = 0; d < 2; d++)
            LC_CHECK(memcmp(blk_out, b[d][k].out, nb) == 0, "%s%s n=%d: I%s differs from its blocking result",
                     cname, d ? " (dup)" : "", c[0].n, case_names[k]);
        free(in);
        free(cnt);
        free(dsp);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Ibarrier: no rank completes it before every rank started it.  The last
 * rank starts 30 ms late; every rank's completion time (one clock: all
 * ranks run on this machine) must follow the late start. */
static void check_ibarrier(MPI_Comm comm)
{
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    double start = 0, done, late = 0;
    MPI_Request req;
    if (r == p - 1) {
        struct timespec ts = { 0, 30000000L };
        nanosleep(&ts, NULL);
        start = now();
    }
    LC_MPI(MPI_Ibarrier(comm, &req));
    int flag = 0;
    while (!flag) LC_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    done = now();
    LC_MPI(MPI_Bcast(r == p - 1 ? &start : &late, 1, MPI_DOUBLE, p - 1, comm));
    if (r == p - 1) late = start;
    LC_CHECK(done >= late, "Ibarrier completed %.6f s before the last rank started it", late - done);
}

static void add_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) ((int32_t *)inout)[i] += ((const int32_t *)in)[i];
}

/* MPI_Op_free right after starting reductions with the operation: they
 * still apply it (MPI 4.1 §6.9.5; MPICH's coll/nonblocking3 does this,
 * and Locus crashed on the freed operation). */
static void check_op_freed_while_pending(MPI_Comm comm)
{
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    enum { N = 1000 };
    static int32_t in[N], red[N], all[N];
    for (int i = 0; i < N; i++) in[i] = r + i;
    MPI_Op add;
    MPI_Request req[2];
    LC_MPI(MPI_Op_create(add_fn, 1, &add));
    LC_MPI(MPI_Ireduce(in, red, N, MPI_INT32_T, add, 0, comm, &req[0]));
    LC_MPI(MPI_Iallreduce(in, all, N, MPI_INT32_T, add, comm, &req[1]));
    LC_MPI(MPI_Op_free(&add));
    LC_CHECK(add == MPI_OP_NULL, "MPI_Op_free left %#x", (unsigned)add);
    LC_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    int bad = 0;
    for (int i = 0; i < N; i++) {
        int32_t want = p * (p - 1) / 2 + p * i;
        bad += all[i] != want || (r == 0 && red[i] != want);
    }
    LC_CHECK(bad == 0, "reductions with an operation freed while they ran: %d wrong elements", bad);
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    check_op_freed_while_pending(MPI_COMM_WORLD);
    int quick = lc_quick_arg(argc, argv);
    MPI_Comm comms[4];
    const char *cnames[4];
    int ncomms = lc_test_comms(comms, cnames, quick);
    MPI_Op affine;
    LC_MPI(MPI_Op_create(affine_fn, 0, &affine));
    const int ns[] = { 1, 6, 1001, 40000 };
    int nns = quick ? 3 : 4;
    for (int ci = 0; ci < ncomms; ci++) {
        ctx_t c[2];
        c[0].comm = comms[ci];
        LC_MPI(MPI_Comm_dup(comms[ci], &c[1].comm));
        for (int d = 0; d < 2; d++) {
            MPI_Comm_rank(c[d].comm, &c[d].r);
            MPI_Comm_size(c[d].comm, &c[d].p);
            c[d].affine = affine;
        }
        check_ibarrier(c[0].comm);
        for (int ni = 0; ni < nns; ni++) {
            int n = ns[ni];
            /* Quick at large p: 81 buffers of 8 B x (n + 4) x p each are
             * 165 MB per rank at n = 1001, p = 256 (x 256 ranks: more than
             * the host).  Keep each buffer within 128 KiB (n = 60 at 256
             * ranks, unchanged up to 16 ranks); such a job's messages are
             * eager, rendezvous is the smaller jobs' part. */
            if (quick && n > 16384 / c[0].p - 4) n = 16384 / c[0].p - 4 > 6 ? 16384 / c[0].p - 4 : 6;
            c[0].n = c[1].n = n;
            size_t cap = sizeof(int32_t) * (size_t)(n + 4) * (size_t)c[0].p * 2;
            bufs_t b[2][NCASE];
            for (int d = 0; d < 2; d++)
                for (int k = 0; k < NCASE; k++) {
                    b[d][k].in = lc_malloc(cap);
                    b[d][k].out = lc_malloc(cap);
                    b[d][k].cnt = lc_malloc(sizeof(int) * 3 * (size_t)c[0].p);
                    b[d][k].dsp = lc_malloc(sizeof(int) * 3 * (size_t)c[0].p);
                }
            int32_t *blk = lc_malloc(cap);
            for (int how = 0; how < 4; how++) round_all(c, b, blk, how + ni, cnames[ci]);
            free(blk);
            for (int d = 0; d < 2; d++)
                for (int k = 0; k < NCASE; k++) {
                    free(b[d][k].in);
                    free(b[d][k].out);
                    free(b[d][k].cnt);
                    free(b[d][k].dsp);
                }
        }
        LC_MPI(MPI_Comm_free(&c[1].comm));
    }
    LC_MPI(MPI_Op_free(&affine));
    lc_free_comms(comms, ncomms);
    return lc_finish();
}
