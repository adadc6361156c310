/* SPDX-License-Identifier: BSD-3-Clause */
/* comm_idup_order: context-id agreements in progress at once, started in
 * a different order on every rank (legal: MPI 4.1 §6.12 orders the
 * collectives of one communicator only).
 *  - parents with overlapping groups: duplicates of world, a split that
 *    leaves out the last rank, one that leaves out rank 0, even/odd;
 *  - on each, several MPI_Comm_idup outstanding, the starts interleaved
 *    across parents in a rank-dependent order (rank 0 one way, rank 1 the
 *    reverse, others rotated), so each rank's held offers differ;
 *  - blocking MPI_Comm_dup and MPI_Comm_create_group among them, after a
 *    rank-dependent number of starts, and on odd ranks after waiting for
 *    the idups of one parent (an idup every member started must complete
 *    whatever a member does next);
 *  - every new communicator is congruent to its parent and distinct from
 *    all others (messages on one never match receives on another).
 * Repeated, so slots are freed and reused while others are in flight.
 * Before lc_mpi_ctx.c's established/owner rounds, two idups started in
 * opposite orders held disjoint windows and failed with MPI_ERR_INTERN. */
#include "lc_test.h"

#include <stdlib.h>

#define NPAR 6
#define PER 3 /* idups outstanding per parent */
#define ITERS 12

static int salt_of(int parent, int k)
{
    return 100 * parent + k;
}

/* Messages with a distinct value on every communicator of `cs` that
 * contains both this rank and its neighbors: a crossed context shows. */
static void check_distinct(MPI_Comm *cs, int n)
{
    int *in = calloc((size_t)n, sizeof(int));
    MPI_Request *q = calloc((size_t)n, sizeof(MPI_Request));
    for (int i = 0; i < n; i++) {
        q[i] = MPI_REQUEST_NULL;
        if (cs[i] == MPI_COMM_NULL) continue;
        int r, p;
        MPI_Comm_rank(cs[i], &r);
        MPI_Comm_size(cs[i], &p);
        LC_MPI(MPI_Irecv(&in[i], 1, MPI_INT, (r + p - 1) % p, 5, cs[i], &q[i]));
    }
    for (int i = n - 1; i >= 0; i--) {
        if (cs[i] == MPI_COMM_NULL) continue;
        int r, p;
        MPI_Comm_rank(cs[i], &r);
        MPI_Comm_size(cs[i], &p);
        LC_MPI(MPI_Send(&i, 1, MPI_INT, (r + 1) % p, 5, cs[i]));
    }
    LC_MPI(MPI_Waitall(n, q, MPI_STATUSES_IGNORE));
    for (int i = 0; i < n; i++)
        if (cs[i] != MPI_COMM_NULL) LC_CHECK(in[i] == i, "communicator %d received %d: contexts overlap", i, in[i]);
    free(in);
    free(q);
}

/* Waitall, naming the first failed request's error (MPI_ERR_INTERN "no
 * context id free" before the fix) rather than MPI_ERR_IN_STATUS. */
static void wait_all(int n, MPI_Request *rq)
{
    MPI_Status st[PER];
    if (MPI_Waitall(n, rq, st) == MPI_SUCCESS) return;
    for (int i = 0; i < n; i++)
        if (st[i].MPI_ERROR != MPI_SUCCESS) LC_FATAL("MPI_Comm_idup failed: %s", lc_err_str(st[i].MPI_ERROR));
    LC_FATAL("MPI_Waitall failed with no failed request");
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int me = lc_world_rank(), np = lc_world_size();
    MPI_Comm par[NPAR];
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &par[0]));
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &par[1]));
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &par[2]));
    LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, np > 1 && me == np - 1 ? MPI_UNDEFINED : 0, me, &par[3]));
    LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, np > 1 && me == 0 ? MPI_UNDEFINED : 0, me, &par[4]));
    LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &par[5]));
    MPI_Group wgroup, pair;
    LC_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wgroup));
    int two[2] = { 0, np - 1 };
    LC_MPI(MPI_Group_incl(wgroup, np > 1 ? 2 : 1, two, &pair));

    /* The starts: (parent, k) for every parent this rank is in, k in
     * order per parent; the interleaving across parents is this rank's. */
    int order[NPAR * PER][2], n = 0;
    for (int j = 0; j < NPAR; j++) {
        int pj = me % 2 ? NPAR - 1 - j : (j + me / 2) % NPAR; /* odd: reversed; even: rotated */
        for (int k = 0; k < PER; k++) {
            if (par[pj] == MPI_COMM_NULL) continue;
            order[n][0] = pj;
            order[n][1] = k;
            n++;
        }
    }
    /* interleave: take the per-parent runs round-robin on ranks 2, 3 */
    if (me >= 2) {
        int tmp[NPAR * PER][2], m = 0;
        for (int k = 0; k < PER; k++)
            for (int i = 0; i < n; i++)
                if (order[i][1] == k) {
                    tmp[m][0] = order[i][0];
                    tmp[m][1] = k;
                    m++;
                }
        for (int i = 0; i < n; i++) order[i][0] = tmp[i][0], order[i][1] = tmp[i][1];
    }

    for (int it = 0; it < ITERS; it++) {
        MPI_Comm out[NPAR][PER], bdup = MPI_COMM_NULL, bgrp = MPI_COMM_NULL;
        MPI_Request rq[NPAR][PER];
        for (int j = 0; j < NPAR; j++)
            for (int k = 0; k < PER; k++) {
                out[j][k] = MPI_COMM_NULL;
                rq[j][k] = MPI_REQUEST_NULL;
            }
        /* After this many starts: a rank-dependent point after the
         * last start on par[0], so odd ranks may wait for those first
         * (every rank has started them before it blocks). */
        int pos0 = 0;
        for (int i = 0; i < n; i++)
            if (order[i][0] == 0) pos0 = i + 1;
        int blocking_at = pos0 + (me + it) % (n - pos0 + 1);
        for (int i = 0; i <= n; i++) {
            if (i == blocking_at) {
                /* odd ranks first wait for what they started on par[0] */
                if (me % 2) wait_all(PER, rq[0]);
                LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &bdup));
                if (me == 0 || me == np - 1) LC_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, pair, it, &bgrp));
            }
            if (i == n) break;
            int j = order[i][0], k = order[i][1];
            LC_MPI(MPI_Comm_idup(par[j], &out[j][k], &rq[j][k]));
        }
        for (int j = NPAR - 1; j >= 0; j--) wait_all(PER, rq[j]);

        MPI_Comm all[NPAR * PER + NPAR + 3];
        int na = 0;
        for (int j = 0; j < NPAR; j++) {
            for (int k = 0; k < PER; k++) {
                all[na++] = out[j][k]; /* indices alike on every rank */
                if (par[j] == MPI_COMM_NULL) continue;
                int cmp = -1, x = salt_of(j, k), sum = 0, p;
                LC_MPI(MPI_Comm_compare(par[j], out[j][k], &cmp));
                LC_CHECK(cmp == MPI_CONGRUENT, "idup %d of parent %d: compare says %d", k, j, cmp);
                MPI_Comm_size(out[j][k], &p);
                LC_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, out[j][k]));
                LC_CHECK(sum == p * x, "idup %d of parent %d: allreduce gave %d", k, j, sum);
            }
            all[na++] = par[j];
        }
        all[na++] = bdup;
        all[na++] = bgrp;
        all[na++] = MPI_COMM_WORLD;
        check_distinct(all, na);
        for (int j = 0; j < NPAR; j++)
            for (int k = 0; k < PER; k++)
                if (out[j][k] != MPI_COMM_NULL) LC_MPI(MPI_Comm_free(&out[j][k]));
        LC_MPI(MPI_Comm_free(&bdup));
        if (bgrp != MPI_COMM_NULL) LC_MPI(MPI_Comm_free(&bgrp));
    }
    for (int j = 0; j < NPAR; j++)
        if (par[j] != MPI_COMM_NULL) LC_MPI(MPI_Comm_free(&par[j]));
    LC_MPI(MPI_Group_free(&pair));
    LC_MPI(MPI_Group_free(&wgroup));
    return lc_finish();
}
