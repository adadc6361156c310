/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_persistent: MPI 4 persistent collectives.  Every <Coll>_init is
 * called once per communicator and vector length; then, many times, the
 * inputs change, the requests are started together (MPI_Startall, or
 * MPI_Start one by one) next to a nonblocking collective on the same
 * communicator, completed (Waitall, a Test loop, Wait in reverse), and
 * each output must equal the blocking collective's on the same inputs.
 * Inactive requests complete at once with an empty status; MPI_Start on
 * an active one and on a nonpersistent one fails (MPI_ERR_REQUEST). */
#include "lc_types.h"

#include <stdint.h>

#define NCASE 16
static const char *names[NCASE] = {
    "barrier", "bcast", "reduce", "allreduce", "allreduce_inplace", "gather", "gatherv", "scatter", "scatterv",
    "allgather", "allgatherv", "alltoall", "alltoallv", "reduce_scatter", "reduce_scatter_block", "scan+exscan",
};

typedef struct {
    MPI_Comm comm;
    int r, p, n;
    int32_t *in, *out, *ref, *out2, *ref2;
    int *cnt, *dsp;
    size_t cap; /* elements of each buffer */
} cs_t;

static void fill(cs_t *c, int k, int it)
{
    for (size_t i = 0; i < c->cap; i++) c->in[i] = lc_pattern(c->r, k * 100 + it, (long)i);
}

/* MPICH 4.0.2's MPI_Gather_init reads the send buffer at init and loses
 * the root's own block, and its MPI_Scatter_init fails with a truncation
 * error: there a barrier takes their place. */
static int skip(int k) { return (k == 5 || k == 7) && lc_library_is_mpich(); }

/* Init (req) or run blocking (req NULL, into ref) case k. */
static void go(cs_t *c, int k, MPI_Request *req)
{
    int n = c->n, r = c->r, root = k % c->p;
    int32_t *out = req ? c->out : c->ref, *out2 = req ? c->out2 : c->ref2;
    MPI_Comm comm = c->comm;
    MPI_Info info = MPI_INFO_NULL;
#define GO(pi, bl) LC_MPI(req ? (pi) : (bl))
    switch (k) {
    case 0: GO(MPI_Barrier_init(comm, info, req), MPI_Barrier(comm)); break;
    case 1:
        /* in place: the root's input is the buffer itself; copied at start time by the caller */
        GO(MPI_Bcast_init(out, n, MPI_INT, root, comm, info, req), MPI_Bcast(out, n, MPI_INT, root, comm));
        break;
    case 2: GO(MPI_Reduce_init(c->in, out, n, MPI_INT, MPI_SUM, root, comm, info, req), MPI_Reduce(c->in, out, n, MPI_INT, MPI_SUM, root, comm)); break;
    case 3: GO(MPI_Allreduce_init(c->in, out, n, MPI_INT, MPI_BXOR, comm, info, req), MPI_Allreduce(c->in, out, n, MPI_INT, MPI_BXOR, comm)); break;
    case 4: GO(MPI_Allreduce_init(MPI_IN_PLACE, out, n, MPI_INT, MPI_MAX, comm, info, req), MPI_Allreduce(MPI_IN_PLACE, out, n, MPI_INT, MPI_MAX, comm)); break;
    case 5:
    case 7:
        if (skip(k)) {
            GO(MPI_Barrier_init(comm, info, req), MPI_Barrier(comm));
        } else if (k == 5) {
            GO(MPI_Gather_init(c->in, n, MPI_INT, out, n, MPI_INT, root, comm, info, req),
               MPI_Gather(c->in, n, MPI_INT, out, n, MPI_INT, root, comm));
        } else {
            GO(MPI_Scatter_init(c->in, n, MPI_INT, out, n, MPI_INT, root, comm, info, req),
               MPI_Scatter(c->in, n, MPI_INT, out, n, MPI_INT, root, comm));
        }
        break;
    case 6: GO(MPI_Gatherv_init(c->in, c->cnt[r], MPI_INT, out, c->cnt, c->dsp, MPI_INT, root, comm, info, req), MPI_Gatherv(c->in, c->cnt[r], MPI_INT, out, c->cnt, c->dsp, MPI_INT, root, comm)); break;
    case 8: GO(MPI_Scatterv_init(c->in, c->cnt, c->dsp, MPI_INT, out, c->cnt[r], MPI_INT, root, comm, info, req), MPI_Scatterv(c->in, c->cnt, c->dsp, MPI_INT, out, c->cnt[r], MPI_INT, root, comm)); break;
    case 9: GO(MPI_Allgather_init(c->in, n, MPI_INT, out, n, MPI_INT, comm, info, req), MPI_Allgather(c->in, n, MPI_INT, out, n, MPI_INT, comm)); break;
    case 10: GO(MPI_Allgatherv_init(c->in, c->cnt[r], MPI_INT, out, c->cnt, c->dsp, MPI_INT, comm, info, req), MPI_Allgatherv(c->in, c->cnt[r], MPI_INT, out, c->cnt, c->dsp, MPI_INT, comm)); break;
    case 11: GO(MPI_Alltoall_init(c->in, n, MPI_INT, out, n, MPI_INT, comm, info, req), MPI_Alltoall(c->in, n, MPI_INT, out, n, MPI_INT, comm)); break;
    case 12: GO(MPI_Alltoallv_init(c->in, c->cnt, c->dsp, MPI_INT, out, c->cnt, c->dsp, MPI_INT, comm, info, req), MPI_Alltoallv(c->in, c->cnt, c->dsp, MPI_INT, out, c->cnt, c->dsp, MPI_INT, comm)); break;
    case 13: GO(MPI_Reduce_scatter_init(c->in, out, c->cnt, MPI_INT, MPI_SUM, comm, info, req), MPI_Reduce_scatter(c->in, out, c->cnt, MPI_INT, MPI_SUM, comm)); break;
    case 14: GO(MPI_Reduce_scatter_block_init(c->in, out, n, MPI_INT, MPI_MIN, comm, info, req), MPI_Reduce_scatter_block(c->in, out, n, MPI_INT, MPI_MIN, comm)); break;
    case 15:
        GO(MPI_Scan_init(c->in, out, n, MPI_INT, MPI_SUM, comm, info, req), MPI_Scan(c->in, out, n, MPI_INT, MPI_SUM, comm));
        GO(MPI_Exscan_init(c->in, out2, n, MPI_INT, MPI_BOR, comm, info, req + 1), MPI_Exscan(c->in, out2, n, MPI_INT, MPI_BOR, comm));
        break;
    }
#undef GO
}

/* Elements of out (and out2) defined on this rank. */
static size_t defined(const cs_t *c, int k, size_t *n2)
{
    int n = c->n, p = c->p, r = c->r, root = k % p;
    size_t all = (size_t)(c->dsp[p - 1] + c->cnt[p - 1]);
    *n2 = 0;
    switch (k) {
    case 0: return 0;
    case 2: return r == root ? (size_t)n : 0;
    case 5: return r == root && !skip(k) ? (size_t)n * (size_t)p : 0;
    case 6: return r == root ? all : 0;
    case 7: return skip(k) ? 0 : (size_t)n;
    case 8: case 13: return (size_t)c->cnt[r];
    case 9: case 11: return (size_t)n * (size_t)p;
    case 10: return lc_library_is_mpich() && p == 1 ? 0 : all; /* README: MPICH's 1-rank Allgatherv */
    case 12: return all;
    case 15: *n2 = r == 0 ? 0 : (size_t)n; return (size_t)n;
    default: return (size_t)n;
    }
}

/* The state before a start (or a blocking run): inputs and in-place outputs. */
static void prepare(cs_t *c, int k, int it, int blocking)
{
    fill(c, k, it);
    int32_t *out = blocking ? c->ref : c->out, *out2 = blocking ? c->ref2 : c->out2;
    memset(out, 0, c->cap * sizeof(int32_t));
    memset(out2, 0, c->cap * sizeof(int32_t));
    if (k == 1 || k == 4) memcpy(out, c->in, sizeof(int32_t) * (size_t)c->n);
}

static void test_comm(MPI_Comm comm, const char *cname, int n, int iters)
{
    cs_t cs[NCASE];
    MPI_Request reqs[NCASE + 2];
    int p, r;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (int k = 0; k < NCASE; k++) {
        cs_t *c = &cs[k];
        c->comm = comm;
        c->r = r;
        c->p = p;
        c->n = n;
        c->cap = (size_t)(n + 2) * (size_t)p + 8;
        c->in = lc_malloc(c->cap * 4);
        c->out = lc_malloc(c->cap * 4);
        c->ref = lc_malloc(c->cap * 4);
        c->out2 = lc_malloc(c->cap * 4);
        c->ref2 = lc_malloc(c->cap * 4);
        c->cnt = lc_malloc(sizeof(int) * (size_t)p);
        c->dsp = lc_malloc(sizeof(int) * (size_t)p);
        for (int i = 0; i < p; i++) {
            /* alltoallv: r sends cnt[i] to i and receives cnt[i] from i, so
             * the counts are symmetric in (r, i); elsewhere the same on
             * every rank */
            c->cnt[i] = n > 1 ? n - (i + (k == 12 ? r : k)) % 2 : n;
            c->dsp[i] = i == 0 ? 1 : c->dsp[i - 1] + c->cnt[i - 1] + 1;
        }
    }
    /* init: reqs[k] for case k, reqs[NCASE] for the exscan of case 15 */
    int nreq = NCASE + 1;
    for (int k = 0; k < NCASE; k++) go(&cs[k], k, k == 15 ? &reqs[15] : &reqs[k]);

    /* inactive requests: complete at once, empty status (MPICH 4.0.2
     * says not complete and leaves the status alone) */
    MPI_Status st;
    int flag = 0;
    LC_MPI(MPI_Test(&reqs[3], &flag, &st));
    LC_CHECK(lc_library_is_mpich() || (flag && st.MPI_TAG == MPI_ANY_TAG && st.MPI_SOURCE == MPI_ANY_SOURCE),
             "%s: an inactive persistent collective did not test complete and empty", cname);
    LC_CHECK(reqs[3] != MPI_REQUEST_NULL, "%s: completing an inactive request freed it", cname);

    for (int it = 0; it < iters; it++) {
        for (int k = 0; k < NCASE; k++) prepare(&cs[k], k, it, 0);
        int32_t x = r + it, sum = -1;
        MPI_Request extra;
        if (it % 2 == 0) {
            LC_MPI(MPI_Startall(nreq, reqs));
        } else {
            for (int i = nreq - 1; i >= 0; i--) LC_MPI(MPI_Start(&reqs[i]));
        }
        LC_MPI(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm, &extra));
        if (it == 0) { /* starting an active request is an error */
            /* (MPICH 4.0.2 reports it to MPI_COMM_WORLD's handler) */
            LC_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
            LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
            int rc = MPI_Start(&reqs[2]);
            LC_CHECK(rc != MPI_SUCCESS, "%s: MPI_Start of an active request succeeded", cname);
            LC_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
            LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
        }
        /* MPICH 4.0.2's MPI_Testall fails on persistent collective
         * requests (MPI_ERR_IN_STATUS, every status "pending"): Waitall there */
        switch (it % 3 == 1 && lc_library_is_mpich() ? 0 : it % 3) {
        case 0: LC_MPI(MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE)); break;
        case 1:
            for (flag = 0; !flag;) LC_MPI(MPI_Testall(nreq, reqs, &flag, MPI_STATUSES_IGNORE));
            break;
        default:
            for (int i = nreq - 1; i >= 0; i--) LC_MPI(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
        }
        LC_MPI(MPI_Wait(&extra, MPI_STATUS_IGNORE));
        LC_CHECK(sum == p * (p - 1) / 2 + p * it, "%s: Iallreduce next to persistent ones gave %d", cname, sum);
        for (int k = 0; k < nreq; k++)
            LC_CHECK(reqs[k] != MPI_REQUEST_NULL, "%s: completion freed persistent request %d", cname, k);
        for (int k = 0; k < NCASE; k++) {
            cs_t *c = &cs[k];
            size_t n2, n1 = defined(c, k, &n2);
            /* MPICH 4.0.2's MPI_Allgather_init keeps the first start's own
             * block: checked there on the first start only */
            if (k == 9 && it > 0 && lc_library_is_mpich()) n1 = 0;
            int32_t *keep_out = lc_malloc(c->cap * 4), *keep_out2 = lc_malloc(c->cap * 4);
            memcpy(keep_out, c->out, c->cap * 4);
            memcpy(keep_out2, c->out2, c->cap * 4);
            prepare(c, k, it, 1);
            go(c, k, NULL);
            LC_CHECK(memcmp(keep_out, c->ref, n1 * 4) == 0 && memcmp(keep_out2, c->ref2, n2 * 4) == 0,
                     "%s n=%d start %d: %s_init differs from its blocking result", cname, n, it, names[k]);
            free(keep_out);
            free(keep_out2);
        }
    }
    for (int k = 0; k < nreq; k++) {
        LC_MPI(MPI_Request_free(&reqs[k]));
        LC_CHECK(reqs[k] == MPI_REQUEST_NULL, "%s: MPI_Request_free left the handle", cname);
    }
    for (int k = 0; k < NCASE; k++) {
        free(cs[k].in);
        free(cs[k].out);
        free(cs[k].ref);
        free(cs[k].out2);
        free(cs[k].ref2);
        free(cs[k].cnt);
        free(cs[k].dsp);
    }
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int quick = lc_quick_arg(argc, argv);
    MPI_Comm comms[4];
    const char *cnames[4];
    int ncomms = lc_test_comms(comms, cnames, quick);
    const int ns[] = { 1, 300, 20000 };
    for (int ci = 0; ci < ncomms; ci++)
        for (int ni = 0; ni < 3; ni++) test_comm(comms[ci], cnames[ci], ns[ni], quick ? 3 : 6);

    /* MPI_Start of a request that is not persistent */
    MPI_Request req;
    int x = 1, y;
    LC_MPI(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Start(&req);
    LC_CHECK(rc != MPI_SUCCESS && lc_class_of(rc) == MPI_ERR_REQUEST,
             "MPI_Start of a nonblocking collective's request returned %d, not MPI_ERR_REQUEST", rc);
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    LC_CHECK(y == lc_world_size(), "Iallreduce gave %d", y);
    lc_free_comms(comms, ncomms);
    return lc_finish();
}
