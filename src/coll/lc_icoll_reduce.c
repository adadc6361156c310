/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_icoll_reduce.c — the nonblocking reduce and reduce_scatter as
 * schedules.
 *
 * Reduce: the binomial tree of lc_coll_reduce_binomial.c, with the same
 * operand order (a non-commutative operation runs on the ranks
 * themselves, rank 0 then sends the result to the root).  A rank with
 * children receives all of them in one round, into one buffer each, and
 * folds them in the blocking order (v + 1, v + 2, v + 4, ...) in the next,
 * which also sends to the parent.  "linear" (short vectors, small
 * communicators): every rank sends to the root, which receives all in
 * one round and folds right to left in the next, as
 * lc_coll_reduce_linear.c does.  The table's "scatter_gather" (long
 * vectors) has no schedule form yet: binomial runs.
 *
 * Reduce_scatter(_block): the table's "reduce_scatterv" (binomial reduce
 * of the whole vector to rank 0, which sends each rank its block) and
 * "ring" (lc_coll_reduce_scatter_ring.c's rounds, session 23).
 */
#include "coll/lc_icoll.h"

#include <string.h>

static int lc_icoll_reduce_tree(lc_sched_t *s, const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op,
                                int root, lc_comm_t *comm)
{
    int size = comm->size, rc = MPI_SUCCESS;
    bool is_root = comm->rank == root, ordered = !lc_op_commutative(op);
    size_t bytes = count * lc_dtype_size(dt);
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (size == 1) return lc_sched_copy(s, rbuf, mine, bytes);

    int tree_root = ordered ? 0 : root;
    unsigned p = (unsigned)size, v = (unsigned)lc_coll_rel(comm->rank, tree_root, size);
    unsigned nchild = 0;
    for (unsigned mask = 1; mask < p && !(v & mask); mask <<= 1)
        if ((v | mask) < p) nchild++;
    void *acc = (void *)mine;
    if (nchild) {
        char *tmp = lc_sched_alloc(s, nchild * bytes, &rc);
        if (!tmp) return rc;
        acc = (!ordered && is_root) ? rbuf : lc_sched_alloc(s, bytes, &rc);
        if (!acc) return rc;
        unsigned i = 0;
        for (unsigned mask = 1; mask < p && !(v & mask); mask <<= 1)
            if ((v | mask) < p)
                LC_SCHED_TRY(
                    lc_sched_recv(s, tmp + (i++) * bytes, bytes, lc_coll_abs((int)(v | mask), tree_root, size)));
        /* The copy reads `mine` before any step writes rbuf (in place at
         * the root, mine is rbuf). */
        LC_SCHED_TRY(lc_sched_copy(s, acc, mine, bytes));
        LC_SCHED_TRY(lc_sched_fence(s));
        for (unsigned k = 0; k < nchild; k++) /* acc = acc op child (ordered) or child op acc */
            LC_SCHED_TRY(lc_sched_reduce(s, tmp + k * bytes, acc, count, dt, op, !ordered, ordered));
    }
    if (v != 0) {
        unsigned low = v & -v;
        return lc_sched_send(s, acc, bytes, lc_coll_abs((int)(v - low), tree_root, size));
    }
    if (!ordered) return MPI_SUCCESS; /* the tree's root is the root: acc is rbuf */
    if (root == 0) return lc_sched_copy(s, rbuf, acc, bytes);
    return lc_sched_send(s, acc, bytes, root);
}

static int lc_icoll_reduce_linear(lc_sched_t *s, const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op,
                                  int root, lc_comm_t *comm)
{
    int p = comm->size, rc = MPI_SUCCESS;
    size_t bytes = count * lc_dtype_size(dt);
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (comm->rank != root) return lc_sched_send(s, mine, bytes, root);
    if (p == 1) return lc_sched_copy(s, rbuf, mine, bytes);
    char *tmp = lc_sched_alloc(s, (size_t)p * bytes, &rc); /* block i: rank i's vector */
    if (!tmp) return rc;
    /* The copy reads `mine` before the next round writes rbuf (in place,
     * mine is rbuf). */
    LC_SCHED_TRY(lc_sched_copy(s, tmp + (size_t)root * bytes, mine, bytes));
    for (int i = 0; i < p; i++)
        if (i != root) LC_SCHED_TRY(lc_sched_recv(s, tmp + (size_t)i * bytes, bytes, i));
    LC_SCHED_TRY(lc_sched_fence(s));
    LC_SCHED_TRY(lc_sched_copy(s, rbuf, tmp + (size_t)(p - 1) * bytes, bytes));
    for (int i = p - 2; i >= 0; i--) /* rbuf = x(i) op rbuf */
        LC_SCHED_TRY(lc_sched_reduce(s, tmp + (size_t)i * bytes, rbuf, count, dt, op, true, false));
    return MPI_SUCCESS;
}

int lc_icoll_reduce(lc_sched_t *s, const char *alg, const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt,
                    MPI_Op op, int root, lc_comm_t *comm)
{
    if (strcmp(alg, "linear") == 0) return lc_icoll_reduce_linear(s, sbuf, rbuf, count, dt, op, root, comm);
    LC_SCHED_TRY(lc_icoll_reduce_tree(s, sbuf, rbuf, count, dt, op, root, comm));
    /* Non-commutative: the root receives the result from rank 0, after
     * its own part of the tree (which may have sent from rbuf). */
    if (lc_op_commutative(op) || root == 0 || comm->rank != root || comm->size == 1) return MPI_SUCCESS;
    LC_SCHED_TRY(lc_sched_fence(s));
    return lc_sched_recv(s, rbuf, count * lc_dtype_size(dt), 0);
}

/* lc_coll_reduce_scatter_ring.c as rounds: the same blocks, buffers and
 * operand order (mine op partial, the partial received where the
 * blocking ring receives it), so the result has the blocking bits. */
static int lc_icoll_reduce_scatter_ring(lc_sched_t *s, const void *sbuf, void *rbuf, const lc_vec_t *rv,
                                        MPI_Datatype dt, MPI_Op op, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    size_t esize = lc_dtype_size(dt), total = lc_vec_total(rv, p);
    bool in_place = sbuf == MPI_IN_PLACE;
    const char *in = in_place ? rbuf : sbuf;
    char *mem = lc_sched_alloc(s, (size_t)p * (sizeof(ptrdiff_t) + sizeof(size_t)), &rc);
    if (!mem) return rc;
    ptrdiff_t *off = (ptrdiff_t *)mem;
    size_t *len = (size_t *)(mem + (size_t)p * sizeof(ptrdiff_t)), at = 0;
    for (int i = 0; i < p; i++) { /* packed blocks, as lc_coll_layout_vector without displs */
        len[i] = lc_vec_count(rv, i) * esize;
        off[i] = (ptrdiff_t)at;
        at += len[i];
    }
    char *acc = NULL; /* partial results; at 2 ranks out of place none */
    if ((p > 2 || in_place) && !(acc = lc_sched_alloc(s, total * esize, &rc))) return rc;
    int right = lc_coll_mod((long)r + 1, p), left = lc_coll_mod((long)r - 1, p);
    for (int k = 0; k < p - 1; k++) {
        int sb = lc_coll_mod((long)r - k - 1, p), rb = lc_coll_mod((long)r - k - 2, p);
        char *into = k == p - 2 && !in_place ? (char *)rbuf : acc + off[rb];
        LC_SCHED_TRY(lc_sched_recv(s, into, len[rb], left));
        LC_SCHED_TRY(lc_sched_send(s, (k == 0 ? in : acc) + off[sb], len[sb], right));
        LC_SCHED_TRY(lc_sched_fence(s));
        /* into = mine op into; `lower` never writes src */
        LC_SCHED_TRY(lc_sched_reduce(s, (void *)(in + off[rb]), into, len[rb] / esize, dt, op, true, false));
    }
    /* In place the result goes to the start of rbuf, which was input:
     * after the last reduction has read it (steps run in order). */
    return in_place ? lc_sched_copy(s, rbuf, acc + off[r], len[r]) : MPI_SUCCESS;
}

int lc_icoll_reduce_scatter(lc_sched_t *s, const char *alg, const void *sbuf, void *rbuf, const lc_vec_t *rv,
                            MPI_Datatype dt, MPI_Op op, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    size_t esize = lc_dtype_size(dt), total = lc_vec_total(rv, p);
    const void *input = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (p == 1) return lc_sched_copy(s, rbuf, input, total * esize);
    if (strcmp(alg, "ring") == 0) return lc_icoll_reduce_scatter_ring(s, sbuf, rbuf, rv, dt, op, comm);
    char *sum = NULL;
    if (r == 0 && !(sum = lc_sched_alloc(s, total * esize, &rc))) return rc;
    LC_SCHED_TRY(lc_icoll_reduce(s, "binomial", input, sum, total, dt, op, 0, comm));
    LC_SCHED_TRY(lc_sched_fence(s));
    if (r != 0) return lc_sched_recv(s, rbuf, lc_vec_count(rv, r) * esize, 0);
    size_t at = lc_vec_count(rv, 0) * esize;
    for (int i = 1; i < p; i++) {
        size_t len = lc_vec_count(rv, i) * esize;
        LC_SCHED_TRY(lc_sched_send(s, sum + at, len, i));
        at += len;
    }
    return lc_sched_copy(s, rbuf, sum, lc_vec_count(rv, 0) * esize);
}
