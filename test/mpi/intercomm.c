/* SPDX-License-Identifier: BSD-3-Clause */
/* intercomm.c: intercommunicators (MPI 4.1 §7.6, §6.2.2).
 *
 * MPI_COMM_WORLD splits into A (even world ranks) and B (odd), joined by
 * MPI_Intercomm_create; with an odd number of ranks the groups differ in
 * size.  Checked: the queries (test_inter, size/rank/group local,
 * remote_size/remote_group), point-to-point both ways with remote ranks
 * (ANY_SOURCE and status.MPI_SOURCE, probe, mprobe, persistent, sendrecv),
 * Intercomm_merge in both orders and with equal flags, dup / idup /
 * compare / set_name / free, Comm_split and Comm_create on the
 * intercommunicator (MPI_COMM_NULL where a side is empty),
 * Intercomm_create_from_groups, every blocking collective with a root in
 * each group (MPI_ROOT / MPI_PROC_NULL), derived datatypes in some, and errors: scan/exscan,
 * remote queries and merge on an intracommunicator, bad roots and ranks.
 * arg=quick (8 ranks) skips the second round of collectives.
 * Needs at least 2 ranks. */
#include "lc_test.h"

static int wrank, wsize, color, asize, bsize;

static int world_of(int group, int r) { return group == 0 ? 2 * r : 2 * r + 1; }

static void check_queries(MPI_Comm ic, const char *what)
{
    int flag = 0, size, rank, rsize, lsize = color == 0 ? asize : bsize, rs = color == 0 ? bsize : asize;
    LC_MPI(MPI_Comm_test_inter(ic, &flag));
    LC_CHECK(flag, "%s: MPI_Comm_test_inter is false", what);
    LC_MPI(MPI_Comm_size(ic, &size));
    LC_MPI(MPI_Comm_rank(ic, &rank));
    LC_MPI(MPI_Comm_remote_size(ic, &rsize));
    LC_CHECK(size == lsize && rank == wrank / 2 && rsize == rs, "%s: size %d rank %d remote %d (want %d %d %d)", what,
             size, rank, rsize, lsize, wrank / 2, rs);
    MPI_Group wg, rg, lg;
    LC_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    LC_MPI(MPI_Comm_remote_group(ic, &rg));
    LC_MPI(MPI_Comm_group(ic, &lg));
    for (int i = 0; i < rsize; i++) {
        int w;
        LC_MPI(MPI_Group_translate_ranks(rg, 1, &i, wg, &w));
        LC_CHECK(w == world_of(!color, i), "%s: remote rank %d is world %d, want %d", what, i, w, world_of(!color, i));
    }
    for (int i = 0; i < size; i++) {
        int w;
        LC_MPI(MPI_Group_translate_ranks(lg, 1, &i, wg, &w));
        LC_CHECK(w == world_of(color, i), "%s: local rank %d is world %d", what, i, w);
    }
    MPI_Group_free(&wg);
    MPI_Group_free(&rg);
    MPI_Group_free(&lg);
}

/* Every process sends its local rank to every remote process; receives
 * with ANY_SOURCE check MPI_SOURCE against the content. */
static void check_pt2pt(MPI_Comm ic, const char *what)
{
    int rank, rsize;
    LC_MPI(MPI_Comm_rank(ic, &rank));
    LC_MPI(MPI_Comm_remote_size(ic, &rsize));
    /* An intercommunicator's remote group is never empty; saying so (the
     * fatal call does not return) also bounds the sizes below, which gcc
     * otherwise takes for any int cast to size_t. */
    if (rsize < 1) LC_FATAL("%s: remote size %d", what, rsize);
    MPI_Request *reqs = lc_malloc(sizeof(MPI_Request) * (size_t)rsize);
    for (int j = 0; j < rsize; j++) LC_MPI(MPI_Isend(&rank, 1, MPI_INT, j, 5, ic, &reqs[j]));
    int *seen = lc_calloc((size_t)rsize, sizeof(int));
    for (int k = 0; k < rsize; k++) {
        int v = -1, flag = 0;
        MPI_Status st;
        if (k % 3 == 0) {
            LC_MPI(MPI_Probe(MPI_ANY_SOURCE, 5, ic, &st));
            LC_MPI(MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 5, ic, &st));
        } else if (k % 3 == 1) {
            MPI_Message m;
            while (!flag) LC_MPI(MPI_Improbe(MPI_ANY_SOURCE, 5, ic, &flag, &m, &st));
            LC_MPI(MPI_Mrecv(&v, 1, MPI_INT, &m, &st));
        } else {
            LC_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, ic, &st));
        }
        LC_CHECK(v >= 0 && v < rsize && st.MPI_SOURCE == v, "%s: got %d from source %d", what, v, st.MPI_SOURCE);
        if (v >= 0 && v < rsize) seen[v]++;
    }
    for (int j = 0; j < rsize; j++) LC_CHECK(seen[j] == 1, "%s: %d messages from remote %d", what, seen[j], j);
    LC_MPI(MPI_Waitall(rsize, reqs, MPI_STATUSES_IGNORE));
    /* Sendrecv and persistent requests with the remote process of my rank
     * (modulo the remote size): each remote process hears from the local
     * ranks congruent to it. */
    int peer = rank % rsize, got = -1;
    int lsize;
    MPI_Comm_size(ic, &lsize);
    if (rank < rsize) {
        /* pairs (r, r) with r < min(sizes) exchange with Sendrecv */
        if (rank < lsize) {
            int v = 1000 + rank;
            MPI_Status st;
            LC_MPI(MPI_Sendrecv(&v, 1, MPI_INT, rank, 6, &got, 1, MPI_INT, rank, 6, ic, &st));
            LC_CHECK(got == 1000 + rank && st.MPI_SOURCE == rank, "%s: sendrecv got %d from %d", what, got,
                     st.MPI_SOURCE);
        }
    }
    (void)peer;
    MPI_Request p[2];
    int out = 2000 + rank, in = -1, partner = rank < rsize ? rank : MPI_PROC_NULL;
    LC_MPI(MPI_Send_init(&out, 1, MPI_INT, partner, 7, ic, &p[0]));
    LC_MPI(MPI_Recv_init(&in, 1, MPI_INT, partner, 7, ic, &p[1]));
    for (int it = 0; it < 2; it++) {
        in = -1;
        LC_MPI(MPI_Startall(2, p));
        LC_MPI(MPI_Waitall(2, p, MPI_STATUSES_IGNORE));
        if (partner != MPI_PROC_NULL) LC_CHECK(in == 2000 + rank, "%s: persistent got %d", what, in);
    }
    MPI_Request_free(&p[0]);
    MPI_Request_free(&p[1]);
    free(seen);
    free(reqs);
}

static void check_merge(MPI_Comm ic)
{
    int rank, lsize = color == 0 ? asize : bsize;
    MPI_Comm_rank(ic, &rank);
    for (int order = 0; order < 3; order++) {
        /* 0: A low; 1: B low; 2: both the same (any consistent order) */
        int high = order == 0 ? color : order == 1 ? !color : 0;
        MPI_Comm m;
        LC_MPI(MPI_Intercomm_merge(ic, high, &m));
        int mrank, msize, flag = 1;
        MPI_Comm_rank(m, &mrank);
        MPI_Comm_size(m, &msize);
        MPI_Comm_test_inter(m, &flag);
        LC_CHECK(msize == wsize && !flag, "merge %d: size %d inter %d", order, msize, flag);
        int *w = lc_malloc(sizeof(int) * (size_t)wsize);
        LC_MPI(MPI_Allgather(&wrank, 1, MPI_INT, w, 1, MPI_INT, m));
        if (order < 2) {
            int first = !high;
            int want = first ? rank : (wsize - lsize) + rank;
            LC_CHECK(mrank == want, "merge %d: rank %d, want %d", order, mrank, want);
        }
        /* each group contiguous, in local order */
        int g0 = w[0] % 2;
        for (int i = 0; i < wsize; i++) {
            int g = i < (g0 == 0 ? asize : bsize) ? g0 : !g0;
            int r = g == g0 ? i : i - (g0 == 0 ? asize : bsize);
            LC_CHECK(w[i] == world_of(g, r), "merge %d: merged rank %d is world %d", order, i, w[i]);
        }
        int sum = 0;
        LC_MPI(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, m));
        LC_CHECK(sum == wsize * (wsize - 1) / 2, "merge %d: allreduce %d", order, sum);
        free(w);
        MPI_Comm_free(&m);
    }
}

static void check_dup_compare(MPI_Comm ic)
{
    MPI_Comm d, d2;
    int res;
    LC_MPI(MPI_Comm_dup(ic, &d));
    LC_MPI(MPI_Comm_compare(ic, d, &res));
    LC_CHECK(res == MPI_CONGRUENT, "compare(inter, dup) = %d", res);
    LC_MPI(MPI_Comm_compare(ic, ic, &res));
    LC_CHECK(res == MPI_IDENT, "compare(inter, inter) = %d", res);
    LC_MPI(MPI_Comm_compare(ic, MPI_COMM_WORLD, &res));
    LC_CHECK(res == MPI_UNEQUAL, "compare(inter, world) = %d", res);
    LC_MPI(MPI_Comm_set_name(d, "h1 dup"));
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    LC_MPI(MPI_Comm_get_name(d, name, &len));
    LC_CHECK(!strcmp(name, "h1 dup"), "name %s", name);
    check_queries(d, "dup");
    check_pt2pt(d, "dup");
    MPI_Request r;
    LC_MPI(MPI_Comm_idup(d, &d2, &r));
    LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_queries(d2, "idup");
    LC_MPI(MPI_Barrier(d2));
    LC_MPI(MPI_Comm_free(&d2));
    LC_MPI(MPI_Comm_free(&d));
    LC_CHECK(d == MPI_COMM_NULL, "freed handle not MPI_COMM_NULL");
}

/* Split on the intercommunicator: color = local rank % 2, key reverses. */
static void check_split_create(MPI_Comm ic)
{
    int rank, lsize, rsize;
    MPI_Comm_rank(ic, &rank);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_remote_size(ic, &rsize);
    int c = rank % 2;
    MPI_Comm s;
    LC_MPI(MPI_Comm_split(ic, c, -rank, &s));
    int nloc = (lsize + (c == 0)) / 2, nrem = (rsize + (c == 0)) / 2;
    if (nrem == 0) {
        LC_CHECK(s == MPI_COMM_NULL, "split: no remote of color %d but a communicator", c);
    } else {
        LC_CHECK(s != MPI_COMM_NULL, "split: MPI_COMM_NULL for color %d", c);
        if (s != MPI_COMM_NULL) {
            int flag = 0, sr, ss, srs;
            MPI_Comm_test_inter(s, &flag);
            MPI_Comm_rank(s, &sr);
            MPI_Comm_size(s, &ss);
            MPI_Comm_remote_size(s, &srs);
            int want = 0;
            for (int r = rank + 2; r < lsize; r += 2) want++;
            LC_CHECK(flag && ss == nloc && srs == nrem && sr == want, "split: inter %d size %d/%d remote %d/%d rank %d/%d",
                     flag, ss, nloc, srs, nrem, sr, want);
            /* remote rank 0 of the split is the highest local rank of that color over there */
            int v = wrank, got = -1;
            if (sr == 0) {
                LC_MPI(MPI_Sendrecv(&v, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, s, MPI_STATUS_IGNORE));
                int top = -1;
                for (int r = c; r < rsize; r += 2) top = r;
                LC_CHECK(got == world_of(!color, top), "split: remote 0 is world %d, want %d", got,
                         world_of(!color, top));
            }
            int one = 1, sum = 0;
            LC_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, s));
            LC_CHECK(sum == nrem, "split: allreduce %d want %d", sum, nrem);
            MPI_Comm_free(&s);
        }
    }
    /* Comm_create: each side keeps its ranks >= 1 (empty when alone). */
    MPI_Group g, sub;
    MPI_Comm_group(ic, &g);
    int zero = 0;
    LC_MPI(MPI_Group_excl(g, 1, &zero, &sub));
    MPI_Comm cc;
    LC_MPI(MPI_Comm_create(ic, sub, &cc));
    if (rank == 0 || lsize == 1 || rsize == 1) {
        LC_CHECK(cc == MPI_COMM_NULL, "create: expected MPI_COMM_NULL");
    } else {
        LC_CHECK(cc != MPI_COMM_NULL, "create: got MPI_COMM_NULL");
        if (cc != MPI_COMM_NULL) {
            int cr, crs;
            MPI_Comm_rank(cc, &cr);
            MPI_Comm_remote_size(cc, &crs);
            LC_CHECK(cr == rank - 1 && crs == rsize - 1, "create: rank %d remote size %d", cr, crs);
            LC_MPI(MPI_Barrier(cc));
            MPI_Comm_free(&cc);
        }
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&g);
}

/* Every blocking collective; the root is local rank `rr` of group `rg`. */
static void check_colls(MPI_Comm ic, int rg, int rr)
{
    int rank, lsize, rsize;
    MPI_Comm_rank(ic, &rank);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_remote_size(ic, &rsize);
    int in_root_group = color == rg, am_root = in_root_group && rank == rr;
    int root = in_root_group ? (am_root ? MPI_ROOT : MPI_PROC_NULL) : rr;
    int n = wsize + 4, *buf = lc_malloc(sizeof(int) * (size_t)n * (size_t)wsize * 2);
    int *buf2 = lc_malloc(sizeof(int) * (size_t)n * (size_t)wsize * 2);
    int *counts = lc_malloc(sizeof(int) * (size_t)wsize), *displs = lc_malloc(sizeof(int) * (size_t)wsize);
    char what[64];
    snprintf(what, sizeof what, "root %d of group %d", rr, rg);

    LC_MPI(MPI_Barrier(ic));

    /* Bcast */
    for (int i = 0; i < 3; i++) buf[i] = am_root ? 77 + i : -1;
    LC_MPI(MPI_Bcast(buf, 3, MPI_INT, root, ic));
    if (!in_root_group) LC_CHECK(buf[0] == 77 && buf[2] == 79, "%s: bcast got %d %d", what, buf[0], buf[2]);
    if (in_root_group && !am_root) LC_CHECK(buf[0] == -1, "%s: bcast touched a PROC_NULL buffer", what);

    /* Gather: root gets 2 ints (r, r*3) from each remote r */
    int two[2] = { rank, rank * 3 };
    for (int i = 0; i < 2 * rsize; i++) buf[i] = -1;
    LC_MPI(MPI_Gather(two, 2, MPI_INT, buf, 2, MPI_INT, root, ic));
    if (am_root)
        for (int r = 0; r < rsize; r++)
            LC_CHECK(buf[2 * r] == r && buf[2 * r + 1] == 3 * r, "%s: gather[%d] = %d", what, r, buf[2 * r]);

    /* Gatherv: r+1 ints from remote r, at displs 2*r*... */
    int off = 0;
    for (int r = 0; r < rsize; r++) counts[r] = r + 1, displs[r] = off, off += r + 2;
    for (int i = 0; i < n; i++) buf2[i] = rank * 10 + i;
    for (int i = 0; i < off; i++) buf[i] = -1;
    LC_MPI(MPI_Gatherv(buf2, rank + 1, MPI_INT, buf, counts, displs, MPI_INT, root, ic));
    if (am_root)
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i <= r; i++)
                LC_CHECK(buf[displs[r] + i] == r * 10 + i, "%s: gatherv[%d][%d] = %d", what, r, i, buf[displs[r] + i]);

    /* Scatter / Scatterv: remote r gets (r*5, r*5+1) / r+1 ints r*100+i */
    if (am_root) {
        for (int r = 0; r < rsize; r++) buf[2 * r] = r * 5, buf[2 * r + 1] = r * 5 + 1;
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i <= r; i++) buf2[displs[r] + i] = r * 100 + i;
    }
    int got[2] = { -1, -1 };
    LC_MPI(MPI_Scatter(buf, 2, MPI_INT, got, 2, MPI_INT, root, ic));
    if (!in_root_group) LC_CHECK(got[0] == rank * 5 && got[1] == rank * 5 + 1, "%s: scatter got %d", what, got[0]);
    int *sv = lc_malloc(sizeof(int) * (size_t)(rank + 2));
    LC_MPI(MPI_Scatterv(buf2, counts, displs, MPI_INT, sv, rank + 1, MPI_INT, root, ic));
    if (!in_root_group)
        for (int i = 0; i <= rank; i++) LC_CHECK(sv[i] == rank * 100 + i, "%s: scatterv[%d] = %d", what, i, sv[i]);
    free(sv);

    /* Reduce: root gets the sum over the remote group of (r, 1) */
    int red[2] = { rank, 1 }, rsum[2] = { -1, -1 };
    LC_MPI(MPI_Reduce(red, rsum, 2, MPI_INT, MPI_SUM, root, ic));
    if (am_root)
        LC_CHECK(rsum[0] == rsize * (rsize - 1) / 2 && rsum[1] == rsize, "%s: reduce %d %d", what, rsum[0], rsum[1]);
    free(buf);
    free(buf2);
    free(counts);
    free(displs);
}

static void check_allcolls(MPI_Comm ic)
{
    int rank, lsize, rsize;
    MPI_Comm_rank(ic, &rank);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_remote_size(ic, &rsize);
    int *buf = lc_malloc(sizeof(int) * 64 * (size_t)wsize), *out = lc_malloc(sizeof(int) * 64 * (size_t)wsize);
    int *sc = lc_malloc(sizeof(int) * (size_t)wsize), *sd = lc_malloc(sizeof(int) * (size_t)wsize);
    int *rc = lc_malloc(sizeof(int) * (size_t)wsize), *rd = lc_malloc(sizeof(int) * (size_t)wsize);

    /* Allreduce: the remote group's sum */
    int v[2] = { wrank, 1 }, s[2];
    LC_MPI(MPI_Allreduce(v, s, 2, MPI_INT, MPI_SUM, ic));
    int want = 0;
    for (int r = 0; r < rsize; r++) want += world_of(!color, r);
    LC_CHECK(s[0] == want && s[1] == rsize, "allreduce %d %d want %d %d", s[0], s[1], want, rsize);

    /* Allgather: (wrank, rank) of every remote process */
    int two[2] = { wrank, rank };
    LC_MPI(MPI_Allgather(two, 2, MPI_INT, out, 2, MPI_INT, ic));
    for (int r = 0; r < rsize; r++)
        LC_CHECK(out[2 * r] == world_of(!color, r) && out[2 * r + 1] == r, "allgather[%d] = %d", r, out[2 * r]);

    /* Allgatherv: remote r sends r+1 copies of its world rank */
    for (int i = 0; i <= rank; i++) buf[i] = wrank;
    int off = 0;
    for (int r = 0; r < rsize; r++) rc[r] = r + 1, rd[r] = off, off += r + 1;
    LC_MPI(MPI_Allgatherv(buf, rank + 1, MPI_INT, out, rc, rd, MPI_INT, ic));
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i <= r; i++) LC_CHECK(out[rd[r] + i] == world_of(!color, r), "allgatherv[%d][%d]", r, i);

    /* Alltoall: to remote j the value rank*1000 + j */
    for (int j = 0; j < rsize; j++) buf[j] = rank * 1000 + j;
    LC_MPI(MPI_Alltoall(buf, 1, MPI_INT, out, 1, MPI_INT, ic));
    for (int j = 0; j < rsize; j++) LC_CHECK(out[j] == j * 1000 + rank, "alltoall[%d] = %d", j, out[j]);

    /* Alltoallv: to remote j, j+1 copies of rank*1000+j; from remote j, rank+1 copies */
    off = 0;
    for (int j = 0; j < rsize; j++) {
        sc[j] = j + 1, sd[j] = off;
        for (int i = 0; i <= j; i++) buf[off + i] = rank * 1000 + j;
        off += j + 1;
    }
    for (int j = 0; j < rsize; j++) rc[j] = rank + 1, rd[j] = j * (rank + 1);
    LC_MPI(MPI_Alltoallv(buf, sc, sd, MPI_INT, out, rc, rd, MPI_INT, ic));
    for (int j = 0; j < rsize; j++)
        for (int i = 0; i <= rank; i++)
            LC_CHECK(out[rd[j] + i] == j * 1000 + rank, "alltoallv[%d][%d] = %d", j, i, out[rd[j] + i]);

    /* Alltoallw: one int each, byte displacements */
    MPI_Datatype *ty = lc_malloc(sizeof(MPI_Datatype) * (size_t)wsize);
    for (int j = 0; j < rsize; j++) {
        buf[j] = rank * 7 + j, sc[j] = 1, sd[j] = j * (int)sizeof(int), ty[j] = MPI_INT;
        rc[j] = 1, rd[j] = j * (int)sizeof(int);
    }
    LC_MPI(MPI_Alltoallw(buf, sc, sd, ty, out, rc, rd, ty, ic));
    for (int j = 0; j < rsize; j++) LC_CHECK(out[j] == j * 7 + rank, "alltoallw[%d] = %d", j, out[j]);
    free(ty);

    /* Reduce_scatter_block: both groups' vectors have 2 * lsize * rsize
     * items (MPI 4.1 §6.10.2: the same count in both groups), so
     * recvcount = 2 * rsize here */
    int rcount = 2 * rsize, total = 2 * lsize * rsize;
    for (int i = 0; i < total; i++) buf[i] = i + rank;
    LC_MPI(MPI_Reduce_scatter_block(buf, out, rcount, MPI_INT, MPI_SUM, ic));
    for (int i = 0; i < rcount; i++) {
        int w = 0;
        for (int r = 0; r < rsize; r++) w += rank * rcount + i + r;
        LC_CHECK(out[i] == w, "reduce_scatter_block[%d] = %d want %d", i, out[i], w);
    }

    /* Reduce_scatter: the same total, in uneven blocks */
    for (int i = 0; i < lsize; i++) rc[i] = 2 * rsize;
    if (lsize > 1) rc[0] = rsize, rc[lsize - 1] += rsize;
    int mine0 = 0;
    for (int i = 0; i < rank; i++) mine0 += rc[i];
    for (int i = 0; i < total; i++) buf[i] = i * 2 + rank;
    LC_MPI(MPI_Reduce_scatter(buf, out, rc, MPI_INT, MPI_SUM, ic));
    for (int i = 0; i < rc[rank]; i++) {
        int w = 0;
        for (int r = 0; r < rsize; r++) w += (mine0 + i) * 2 + r;
        LC_CHECK(out[i] == w, "reduce_scatter[%d] = %d want %d", i, out[i], w);
    }
    free(buf), free(out), free(sc), free(sd), free(rc), free(rd);
}

/* Derived datatypes: a strided vector in bcast (root in A) and gather
 * (root in B), a contiguous pair in allgather. */
static void check_dtypes(MPI_Comm ic)
{
    int rank, rsize;
    MPI_Comm_rank(ic, &rank);
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Datatype vec, pair;
    LC_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    LC_MPI(MPI_Type_commit(&vec));
    LC_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    LC_MPI(MPI_Type_commit(&pair));
    int b[6] = { -1, -1, -1, -1, -1, -1 };
    int root = color == 0 ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    if (root == MPI_ROOT) b[0] = 10, b[2] = 12, b[4] = 14, b[1] = 99;
    LC_MPI(MPI_Bcast(b, 1, vec, root, ic));
    if (color == 1)
        LC_CHECK(b[0] == 10 && b[2] == 12 && b[4] == 14 && b[1] == -1, "vector bcast got %d %d %d %d", b[0], b[2], b[4],
                 b[1]);
    /* gather: each A process sends 3 ints, the root of B receives them strided */
    int *g = lc_malloc(sizeof(int) * 6 * (size_t)wsize), mine[3] = { rank, rank + 1, rank + 2 };
    for (int i = 0; i < 6 * wsize; i++) g[i] = -1;
    int groot = color == 1 ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    LC_MPI(MPI_Gather(mine, 3, MPI_INT, g, 1, vec, groot, ic));
    /* consecutive vec items start one extent (5 ints) apart */
    if (groot == MPI_ROOT)
        for (int r = 0; r < rsize; r++)
            LC_CHECK(g[5 * r] == r && g[5 * r + 2] == r + 1 && g[5 * r + 4] == r + 2, "vector gather[%d] = %d %d %d", r,
                     g[5 * r], g[5 * r + 2], g[5 * r + 4]);
    free(g);
    int in[2] = { rank, wrank }, *out = lc_malloc(sizeof(int) * 2 * (size_t)wsize);
    LC_MPI(MPI_Allgather(in, 1, pair, out, 1, pair, ic));
    for (int r = 0; r < rsize; r++)
        LC_CHECK(out[2 * r] == r && out[2 * r + 1] == world_of(!color, r), "pair allgather[%d] = %d %d", r, out[2 * r],
                 out[2 * r + 1]);
    free(out);
    MPI_Type_free(&vec);
    MPI_Type_free(&pair);
}

static void check_errors(MPI_Comm ic, MPI_Comm local)
{
    int x = 0, y, err, size;
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
    err = MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic);
    LC_CHECK(lc_class_of(err) == MPI_ERR_COMM, "scan on an intercomm: %s", lc_class_name(lc_class_of(err)));
    err = MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, ic);
    LC_CHECK(lc_class_of(err) == MPI_ERR_COMM, "exscan on an intercomm: %s", lc_class_name(lc_class_of(err)));
    /* Remote queries and merge on an intracommunicator are erroneous;
     * MPICH does not check (its merge asserts), Locus says MPI_ERR_COMM. */
    if (!lc_library_is_mpich()) {
        err = MPI_Comm_remote_size(local, &size);
        LC_CHECK(lc_class_of(err) == MPI_ERR_COMM, "remote_size on an intracomm: %s", lc_class_name(lc_class_of(err)));
        MPI_Group g;
        err = MPI_Comm_remote_group(local, &g);
        LC_CHECK(lc_class_of(err) == MPI_ERR_COMM, "remote_group on an intracomm: %s", lc_class_name(lc_class_of(err)));
        MPI_Comm m;
        err = MPI_Intercomm_merge(local, 0, &m);
        LC_CHECK(lc_class_of(err) == MPI_ERR_COMM, "merge of an intracomm: %s", lc_class_name(lc_class_of(err)));
    }
    int rsize;
    MPI_Comm_remote_size(ic, &rsize);
    err = MPI_Send(&x, 1, MPI_INT, rsize, 0, ic);
    LC_CHECK(lc_class_of(err) == MPI_ERR_RANK, "send to remote rank %d: %s", rsize, lc_class_name(lc_class_of(err)));
    err = MPI_Bcast(&x, 1, MPI_INT, rsize + 5, ic);
    LC_CHECK(lc_class_of(err) == MPI_ERR_ROOT, "bcast root %d: %s", rsize + 5, lc_class_name(lc_class_of(err)));
    MPI_Comm bad;
    err = MPI_Intercomm_create(local, 1000, MPI_COMM_WORLD, 0, 9, &bad);
    LC_CHECK(lc_class_of(err) == MPI_ERR_RANK || lc_class_of(err) == MPI_ERR_ARG, "intercomm_create leader 1000: %s",
             lc_class_name(lc_class_of(err)));
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(local, MPI_ERRORS_ARE_FATAL);
}

static void check_from_groups(void)
{
    MPI_Group wg, ag, bg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int r[1][3] = { { 0, wsize - 1 - (wsize - 1) % 2, 2 } }; /* the even world ranks */
    LC_MPI(MPI_Group_range_incl(wg, 1, r, &ag));
    int r2[1][3] = { { 1, wsize - 1 - wsize % 2, 2 } }; /* the odd ones */
    LC_MPI(MPI_Group_range_incl(wg, 1, r2, &bg));
    MPI_Comm ic;
    LC_MPI(MPI_Intercomm_create_from_groups(color == 0 ? ag : bg, 0, color == 0 ? bg : ag, 0, "h1-intercomm",
                                            MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &ic));
    check_queries(ic, "from_groups");
    int one = 1, sum = 0;
    LC_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ic));
    LC_CHECK(sum == (color == 0 ? bsize : asize), "from_groups allreduce %d", sum);
    MPI_Comm_free(&ic);
    MPI_Group_free(&ag);
    MPI_Group_free(&bg);
    MPI_Group_free(&wg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int quick = argc > 1 && !strcmp(argv[1], "quick");
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) {
        if (wrank == 0) fprintf(stderr, "intercomm needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    color = wrank % 2;
    asize = (wsize + 1) / 2;
    bsize = wsize / 2;
    MPI_Comm local, ic;
    LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local));
    LC_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 42, &ic));
    check_queries(ic, "intercomm");
    check_pt2pt(ic, "intercomm");
    check_merge(ic);
    check_dup_compare(ic);
    check_split_create(ic);
    check_colls(ic, 0, 0);
    check_colls(ic, 1, bsize - 1);
    if (!quick) {
        check_colls(ic, 0, asize - 1);
        check_colls(ic, 1, 0);
    }
    check_allcolls(ic);
    check_dtypes(ic);
    check_errors(ic, local);
    check_from_groups();
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    return lc_finish();
}
