/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_icoll_tree.c — the binomial gather and scatter as schedules (the
 * table's choice for short blocks), the trees of lc_coll_gather_binomial.c
 * and lc_coll_scatter_binomial.c: on ranks relative to the root, rank v's
 * subtree is v .. v + min(lowbit(v), p - v) - 1, carried in relative
 * order in one buffer, rotated into place at a root other than 0.  Gather:
 * one round receiving every child's subtree, then the send to the parent.
 * Scatter: the receive from the parent, then one round of sends.
 */
#include "coll/lc_icoll.h"

/* The blocks of v's subtree, and v's parent's lowest bit. */
static unsigned lc_icoll_span(unsigned v, unsigned p, unsigned *lowbit_p)
{
    unsigned lowbit = v ? (v & -v) : (unsigned)lc_coll_pof2_floor((int)p) * 2u;
    *lowbit_p = lowbit;
    return lowbit < p - v ? lowbit : p - v;
}

int lc_icoll_gather_binomial(lc_sched_t *s, const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, int root,
                             lc_comm_t *comm)
{
    int size = comm->size, rc = MPI_SUCCESS;
    bool is_root = comm->rank == root;
    char *rb = rbuf;
    size_t bs = is_root ? rbytes : sbytes; /* every block has this size */
    if (is_root && sbuf != MPI_IN_PLACE) {
        LC_SCHED_TRY(lc_icoll_check_fit(bs, sbytes));
        LC_SCHED_TRY(lc_sched_copy(s, rb + (size_t)root * bs, sbuf, sbytes));
    }
    if (size == 1) return MPI_SUCCESS;
    unsigned p = (unsigned)size, v = (unsigned)lc_coll_rel(comm->rank, root, size), lowbit;
    unsigned span = lc_icoll_span(v, p, &lowbit);
    int parent = lc_coll_abs((int)(v - lowbit), root, size);
    if (span == 1) return lc_sched_send(s, sbuf, sbytes, parent);
    char *tmp = (is_root && root == 0) ? rb : lc_sched_alloc(s, span * bs, &rc);
    if (!tmp) return rc;
    if (tmp != rb) LC_SCHED_TRY(lc_sched_copy(s, tmp, is_root ? rb + (size_t)root * bs : sbuf, bs));
    for (unsigned mask = 1; mask < lowbit && v + mask < p; mask <<= 1) {
        unsigned child = v + mask, cspan = mask < p - child ? mask : p - child;
        LC_SCHED_TRY(
            lc_sched_recv(s, tmp + (size_t)mask * bs, (size_t)cspan * bs, lc_coll_abs((int)child, root, size)));
    }
    LC_SCHED_TRY(lc_sched_fence(s));
    if (!is_root) return lc_sched_send(s, tmp, (size_t)span * bs, parent);
    if (tmp == rb) return MPI_SUCCESS;
    size_t head = (size_t)(p - (unsigned)root) * bs; /* tmp[j] is rank (root + j) mod p's block */
    LC_SCHED_TRY(lc_sched_copy(s, rb + (size_t)root * bs, tmp, head));
    return lc_sched_copy(s, rb, tmp + head, (size_t)root * bs);
}

int lc_icoll_scatter_binomial(lc_sched_t *s, const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, int root,
                              lc_comm_t *comm)
{
    int size = comm->size, rc = MPI_SUCCESS;
    bool is_root = comm->rank == root;
    const char *sb = sbuf;
    size_t bs = is_root ? sbytes : rbytes;
    if (is_root && rbuf != MPI_IN_PLACE) {
        LC_SCHED_TRY(lc_icoll_check_fit(rbytes, sbytes));
        LC_SCHED_TRY(lc_sched_copy(s, rbuf, sb + (size_t)root * bs, sbytes));
    }
    if (size == 1) return MPI_SUCCESS;
    unsigned p = (unsigned)size, v = (unsigned)lc_coll_rel(comm->rank, root, size), lowbit;
    unsigned span = lc_icoll_span(v, p, &lowbit);
    int parent = lc_coll_abs((int)(v - lowbit), root, size);
    if (span == 1) return lc_sched_recv(s, rbuf, rbytes, parent);
    const char *blocks = sb;
    if (!is_root || root != 0) {
        char *tmp = lc_sched_alloc(s, (size_t)span * bs, &rc);
        if (!tmp) return rc;
        blocks = tmp;
        if (is_root) {
            size_t head = (size_t)(p - (unsigned)root) * bs;
            LC_SCHED_TRY(lc_sched_copy(s, tmp, sb + (size_t)root * bs, head));
            LC_SCHED_TRY(lc_sched_copy(s, tmp + head, sb, (size_t)root * bs));
        } else {
            LC_SCHED_TRY(lc_sched_recv(s, tmp, (size_t)span * bs, parent));
            LC_SCHED_TRY(lc_sched_fence(s));
            LC_SCHED_TRY(lc_sched_copy(s, rbuf, tmp, bs));
        }
    }
    for (unsigned mask = lowbit >> 1; mask > 0; mask >>= 1) { /* largest subtree first */
        unsigned child = v + mask;
        if (child >= p) continue;
        unsigned cspan = mask < p - child ? mask : p - child;
        LC_SCHED_TRY(
            lc_sched_send(s, blocks + (size_t)mask * bs, (size_t)cspan * bs, lc_coll_abs((int)child, root, size)));
    }
    return MPI_SUCCESS;
}
