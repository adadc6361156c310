/* SPDX-License-Identifier: BSD-3-Clause */
/* threads_intercomm: MPI_THREAD_MULTIPLE, threads creating
 * intercommunicators while other threads of the same process create
 * intracommunicators (issue 14): the context slots of every creation must
 * come from one agreement (src/mpi/lc_mpi_bridge.c, lc_mpi_ctx.c).  Until
 * session 18 the intercommunicator bridge read the free-slot mask, waited
 * on the leaders' exchange, then took the lowest slot it had seen: a slot
 * that a dup or idup of another thread could have taken meanwhile, and
 * two communicators of one process sharing a slot receive each other's
 * messages.
 *
 * Even ranks form one group, odd ranks the other (an even number of
 * ranks).  argv[1] threads per rank (default 4).  Each iteration, an even
 * thread t: MPI_Intercomm_create of its own halves (peer: its own
 * duplicate of MPI_COMM_WORLD, tag t), MPI_Comm_dup of the
 * intercommunicator, MPI_Intercomm_merge, MPI_Comm_split of the
 * intercommunicator; an odd thread: MPI_Comm_idup then MPI_Comm_dup of its
 * own parent, and an MPI_Comm_dup of MPI_COMM_SELF (under an application
 * lock: MPI orders one communicator's collectives).  Every new
 * communicator is checked at once, while the other threads create and
 * use theirs: a message on tag 0 to a peer carrying (thread, kind,
 * iteration), received on another thread's communicator, carries the
 * wrong one (or leaves a receive waiting: the test's timeout). */
#include "lc_test.h"
#include "lc_test_threads.h"

#define MAXT 8
#define ITERS 12

static int rank, size, nthreads;
static MPI_Comm parents[MAXT], halves[MAXT];
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;

enum { K_INTER, K_INTER_DUP, K_MERGED, K_SPLIT, K_IDUP, K_DUP, K_SELF };
static const char *kinds[] = { "Intercomm_create", "Comm_dup(inter)", "Intercomm_merge", "Comm_split(inter)",
                               "Comm_idup",        "Comm_dup",        "Comm_dup(SELF)" };

/* One message each way between this process and `peer` of c (the remote
 * group's rank on an intercommunicator) on tag 0, carrying who sent it. */
static void ping(MPI_Comm c, int peer, int t, int kind, int it)
{
    int out[3] = { t, kind, it }, in[3] = { -1, -1, -1 };
    LC_MPI(MPI_Sendrecv(out, 3, MPI_INT, peer, 0, in, 3, MPI_INT, peer, 0, c, MPI_STATUS_IGNORE));
    TCHECK(in[0] == t && in[1] == kind && in[2] == it,
           "%s of thread %d, iteration %d: got the message of thread %d's %s, iteration %d", kinds[kind], t, it, in[0],
           in[1] >= 0 && in[1] <= K_SELF ? kinds[in[1]] : "?", in[2]);
}

/* An intercommunicator of the even and the odd ranks: its groups, one
 * message to the same local rank on the other side, an allreduce (each
 * side gets the sum of the other's world ranks' parities). */
static void use_inter(MPI_Comm ic, int t, int kind, int it)
{
    int n, rn, me, flag, got = -1;
    LC_MPI(MPI_Comm_test_inter(ic, &flag));
    LC_MPI(MPI_Comm_size(ic, &n));
    LC_MPI(MPI_Comm_remote_size(ic, &rn));
    LC_MPI(MPI_Comm_rank(ic, &me));
    TCHECK(flag && n == size / 2 && rn == size / 2 && me == rank / 2, "%s of thread %d: inter %d size %d/%d rank %d",
           kinds[kind], t, flag, n, rn, me);
    ping(ic, me, t, kind, it);
    int mine = rank % 2;
    LC_MPI(MPI_Allreduce(&mine, &got, 1, MPI_INT, MPI_SUM, ic));
    TCHECK(got == (1 - mine) * size / 2, "%s of thread %d: allreduce %d", kinds[kind], t, got);
}

/* An intracommunicator of n processes in which this one is rank me. */
static void use_intra(MPI_Comm c, int n, int me, int t, int kind, int it)
{
    int cn, cme, sum = -1;
    LC_MPI(MPI_Comm_size(c, &cn));
    LC_MPI(MPI_Comm_rank(c, &cme));
    TCHECK(cn == n && cme == me, "%s of thread %d: size %d rank %d, expected %d %d", kinds[kind], t, cn, cme, n, me);
    LC_MPI(MPI_Allreduce(&cme, &sum, 1, MPI_INT, MPI_SUM, c));
    TCHECK(sum == n * (n - 1) / 2, "%s of thread %d: sum of ranks %d", kinds[kind], t, sum);
    if (n > 1) {
        int out[3] = { t, kind, it }, in[3] = { -1, -1, -1 };
        LC_MPI(MPI_Sendrecv(out, 3, MPI_INT, (cme + 1) % n, 0, in, 3, MPI_INT, (cme + n - 1) % n, 0, c,
                            MPI_STATUS_IGNORE));
        TCHECK(in[0] == t && in[1] == kind && in[2] == it,
               "%s of thread %d, iteration %d: got thread %d's kind %d "
               "iteration %d",
               kinds[kind], t, it, in[0], in[1], in[2]);
    }
}

static void inter_thread(int t, int it)
{
    MPI_Comm ic, icd, merged, split;
    /* the leaders: world ranks 0 (even group) and 1 (odd group) */
    LC_MPI(MPI_Intercomm_create(halves[t], 0, parents[t], rank % 2 ? 0 : 1, t, &ic));
    use_inter(ic, t, K_INTER, it);
    LC_MPI(MPI_Comm_dup(ic, &icd));
    use_inter(icd, t, K_INTER_DUP, it);
    LC_MPI(MPI_Intercomm_merge(ic, rank % 2, &merged));
    /* even group first (high = 0): rank r of the even group is r / 2 */
    use_intra(merged, size, rank % 2 ? size / 2 + rank / 2 : rank / 2, t, K_MERGED, it);
    LC_MPI(MPI_Comm_split(icd, 0, rank, &split));
    use_inter(split, t, K_SPLIT, it);
    ping(ic, rank / 2, t, K_INTER, it); /* ic still its own after the others came */
    LC_MPI(MPI_Comm_free(&split));
    LC_MPI(MPI_Comm_free(&merged));
    LC_MPI(MPI_Comm_free(&icd));
    LC_MPI(MPI_Comm_free(&ic));
}

static void intra_thread(int t, int it)
{
    MPI_Comm idup, dup, self_dup;
    MPI_Request r;
    LC_MPI(MPI_Comm_idup(parents[t], &idup, &r));
    LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    use_intra(idup, size, rank, t, K_IDUP, it);
    LC_MPI(MPI_Comm_dup(parents[t], &dup));
    use_intra(dup, size, rank, t, K_DUP, it);
    pthread_mutex_lock(&self_lock);
    LC_MPI(MPI_Comm_dup(MPI_COMM_SELF, &self_dup));
    pthread_mutex_unlock(&self_lock);
    use_intra(self_dup, 1, 0, t, K_SELF, it);
    use_intra(idup, size, rank, t, K_IDUP, it);
    LC_MPI(MPI_Comm_free(&self_dup));
    LC_MPI(MPI_Comm_free(&dup));
    LC_MPI(MPI_Comm_free(&idup));
}

static void *body(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int it = 0; it < ITERS; it++) {
        if (t % 2 == 0)
            inter_thread(t, it);
        else
            intra_thread(t, it);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    lc_threads_init(&argc, &argv);
    nthreads = lc_threads_count(argc, argv, 4, MAXT);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2) LC_FATAL("an even number of ranks, not %d", size);
    for (int t = 0; t < nthreads; t++) {
        LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]));
        LC_MPI(MPI_Comm_split(parents[t], rank % 2, rank, &halves[t]));
    }
    lc_threads_run(nthreads, body);
    for (int t = 0; t < nthreads; t++) {
        LC_MPI(MPI_Comm_free(&halves[t]));
        LC_MPI(MPI_Comm_free(&parents[t]));
    }
    return lc_threads_finish();
}
