/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_inter_coll.c — the collectives on intercommunicators (MPI 4.1
 * §6.2.2), blocking, nonblocking and persistent: simple, correct
 * algorithms, not tuned ones.
 *
 *  - Rooted operations: the root passes MPI_ROOT, the rest of its group
 *    MPI_PROC_NULL (they do nothing), the other group the root's rank.
 *    Gather(v) / scatter(v) exchange one message per remote process with
 *    the root; bcast goes root -> remote leader, then a local bcast;
 *    reduce is a local reduce to the leader, then leader -> root.
 *  - Allgather(v), alltoall(v,w): every process exchanges its blocks with
 *    every remote process directly (p*q messages; fine at the sizes
 *    intercommunicators are used for).
 *  - Allreduce, reduce_scatter(_block): each group reduces locally to its
 *    leader (local rank 0), the leaders swap results, each leader
 *    broadcasts / scatters what it got in its group.
 *  - Barrier: local barrier, leaders swap a token, local barrier.
 *
 * The local steps run on the intercommunicator's hidden local
 * intracommunicator (c->local) through the staging front-ends, so
 * derived datatypes work as in intracommunicator collectives; the
 * messages between the groups use the intercommunicator's collective
 * context (never matched by user messages), one tag per operation.
 * MPI_IN_PLACE is not defined on intercommunicators: MPI_ERR_BUFFER.
 *
 * The same code builds the nonblocking and persistent forms: when the MPI
 * layer captures the call into a schedule (lc_coll_capture), the sends
 * and receives become steps (lc_ic_t below), the waits fences, and the
 * local steps are captured over c->local (the schedule's peer_comm).
 */
#include "mpi/lc_mpi_stage.h"
#include "mpi/lc_mpi_inter.h"
#include "pt2pt/lc_pt2pt.h"

#include <stdlib.h>
#include <string.h>

enum {
    LC_TAG_IC_BARRIER = 0x04000100,
    LC_TAG_IC_BCAST,
    LC_TAG_IC_GATHER,
    LC_TAG_IC_SCATTER,
    LC_TAG_IC_ALLGATHER,
    LC_TAG_IC_ALLTOALL,
    LC_TAG_IC_REDUCE,
    LC_TAG_IC_ALLREDUCE,
    LC_TAG_IC_REDSCAT,
};

/* ---- helpers --------------------------------------------------------------- */

/* One operation's traffic between the groups, blocking or captured.
 * Blocking (s NULL): sends and receives are posted as requests and
 * lc_ic_wait waits for them.  Captured (an MPI_I<coll> or <Coll>_init:
 * lc_coll_capture was set on entry): they become steps of the schedule s,
 * lc_ic_wait ends the round, and a receive into a derived datatype goes
 * to a packed buffer of the schedule, unpacked after that fence (st[]).
 * A send of a derived type is packed by a step just before it, so it
 * reads the buffer as the earlier rounds left it. */
typedef struct lc_ic {
    lc_comm_t *c;
    lc_sched_t *s;
    int tag;
    int n, max;
    lc_request_t **r; /* blocking: posted */
    lc_stage_t *st;   /* captured: receive stages to unpack at the fence */
} lc_ic_t;

/* Take the capture (if any) and room for `max` sends and receives. */
static int lc_ic_begin(lc_ic_t *ic, lc_comm_t *c, int tag, int max)
{
    memset(ic, 0, sizeof(*ic));
    ic->c = c;
    ic->s = lc_coll_capture;
    lc_coll_capture = NULL;
    ic->tag = tag;
    ic->max = max;
    if (max == 0) return MPI_SUCCESS;
    if (ic->s)
        ic->st = calloc((size_t)max, sizeof(*ic->st));
    else
        ic->r = malloc(sizeof(*ic->r) * (size_t)max);
    if (!ic->st && !ic->r) return lc_error(MPI_ERR_NO_MEM, "out of memory for %d requests", max);
    return MPI_SUCCESS;
}

/* Wait for (blocking) or fence (captured) what was posted; rc: an error
 * so far (then nothing more is added, the posted requests are still
 * waited for). */
static int lc_ic_wait(lc_ic_t *ic, int rc)
{
    if (!ic->s) {
        int wrc = ic->n ? lc_pt2pt_waitall_release(ic->n, ic->r) : MPI_SUCCESS;
        ic->n = 0;
        return rc != MPI_SUCCESS ? rc : wrc;
    }
    if (rc == MPI_SUCCESS) rc = lc_sched_fence(ic->s);
    for (int i = 0; i < ic->n; i++) {
        if (rc == MPI_SUCCESS)
            rc = lc_stage_finish(&ic->st[i]); /* fence + unpack step */
        else
            lc_stage_free(&ic->st[i]);
    }
    ic->n = 0;
    if (rc == MPI_SUCCESS) rc = lc_sched_fence(ic->s);
    return rc;
}

static int lc_ic_end(lc_ic_t *ic, int rc)
{
    rc = lc_ic_wait(ic, rc);
    free(ic->r);
    free(ic->st);
    return rc;
}

/* Stage n items of dt at buf for a step of the capturing schedule: *bytes
 * of packed data (or the buffer itself) at *p. */
static int lc_ic_stage(lc_ic_t *ic, lc_stage_t *stg, const void *buf, MPI_Count n, MPI_Datatype dt, int dir, void **p,
                       size_t *bytes)
{
    MPI_Datatype pdt;
    lc_coll_capture = ic->s;
    int rc = lc_stage_buf(stg, buf, n, dt, dir, true, p, &pdt);
    lc_coll_capture = NULL;
    *bytes = (size_t)n * stg->per * lc_dtype_size(pdt);
    return rc;
}

static int lc_ic_isend(lc_ic_t *ic, const void *buf, MPI_Count n, MPI_Datatype dt, int dest)
{
    if (ic->s) {
        lc_stage_t stg;
        void *p;
        size_t bytes;
        int rc = lc_ic_stage(ic, &stg, buf, n, dt, LC_STAGE_IN, &p, &bytes);
        lc_stage_free(&stg); /* a captured stage's buffer and step are the schedule's */
        return rc != MPI_SUCCESS ? rc : lc_sched_send(ic->s, p, bytes, dest);
    }
    lc_request_t **r = &ic->r[ic->n];
    lc_dt_t *t = lc_mpi_coll_type(dt); /* pair types: their signature */
    int rc = t ? lc_pt2pt_isend_dt(buf, n, t, dest, ic->tag, ic->c, LC_CTX_COLL, LC_MODE_STANDARD, r)
               : lc_pt2pt_isend(buf, lc_bytes(n, dt), dest, ic->tag, ic->c, LC_CTX_COLL, LC_MODE_STANDARD, r);
    if (rc == MPI_SUCCESS) ic->n++;
    return rc;
}

static int lc_ic_irecv(lc_ic_t *ic, void *buf, MPI_Count n, MPI_Datatype dt, int src)
{
    if (ic->s) {
        lc_stage_t *stg = &ic->st[ic->n];
        void *p;
        size_t bytes;
        int rc = lc_ic_stage(ic, stg, buf, n, dt, LC_STAGE_OUT, &p, &bytes);
        if (rc != MPI_SUCCESS) return rc;
        ic->n++; /* finished (unpacked) at the next lc_ic_wait */
        return lc_sched_recv(ic->s, p, bytes, src);
    }
    lc_request_t **r = &ic->r[ic->n];
    lc_dt_t *t = lc_mpi_coll_type(dt); /* pair types: their signature */
    int rc = t ? lc_pt2pt_irecv_dt(buf, n, t, src, ic->tag, ic->c, LC_CTX_COLL, r)
               : lc_pt2pt_irecv(buf, lc_bytes(n, dt), src, ic->tag, ic->c, LC_CTX_COLL, r);
    if (rc == MPI_SUCCESS) ic->n++;
    return rc;
}

static int lc_ic_sendrecv(lc_ic_t *ic, const void *sbuf, MPI_Count sn, void *rbuf, MPI_Count rn, MPI_Datatype dt,
                          int peer)
{
    int rc = lc_ic_irecv(ic, rbuf, rn, dt, peer);
    if (rc == MPI_SUCCESS) rc = lc_ic_isend(ic, sbuf, sn, dt, peer);
    return lc_ic_wait(ic, rc);
}

/* A collective of the local group (on c->local): run it (blocking), or
 * have the schedule capture it with its steps addressed to c->local, in
 * rounds of their own after everything added so far. */
static void lc_ic_local_begin(lc_ic_t *ic)
{
    if (!ic->s) return;
    lc_sched_fence(ic->s); /* only fails out of memory, which the capture reports again */
    ic->s->peer_comm = ic->c->local;
    lc_coll_capture = ic->s;
}

static int lc_ic_local_end(lc_ic_t *ic, int rc)
{
    if (!ic->s) return rc;
    lc_coll_capture = NULL; /* not taken when the local step had nothing to move */
    ic->s->peer_comm = NULL;
    return rc != MPI_SUCCESS ? rc : lc_sched_fence(ic->s);
}

#define LC_IC_LOCAL(ic, call) (lc_ic_local_begin(ic), lc_ic_local_end((ic), (call)))

/* Extent of dt (its size for a predefined type). */
static MPI_Aint lc_ic_extent(MPI_Datatype dt)
{
    lc_dt_t *t = lc_mpi_derived(dt);
    return t ? lc_dt_extent(t) : (MPI_Aint)lc_dtype_size(dt);
}

/* A buffer for count items of dt: *mem to free, the buffer is the return
 * value (it may point before *mem for a type with a positive true lb). */
static void *lc_ic_tmp_sized(lc_ic_t *ic, MPI_Count count, MPI_Datatype dt, void **mem, int *rc, bool zero)
{
    lc_dt_t *t = lc_mpi_derived(dt);
    MPI_Aint ext = lc_ic_extent(dt), tlb = t ? t->true_lb : 0, tsz = t ? t->true_ub - t->true_lb : ext;
    size_t bytes = count > 0 ? (size_t)tsz + (size_t)(count - 1) * (size_t)(ext < 0 ? -ext : ext) : 0;
    char *p;
    *mem = NULL;
    if (ic->s) /* the schedule's: it lives as long as the schedule */
        p = lc_sched_alloc(ic->s, bytes ? bytes : 1, rc);
    else if (!(p = *mem = malloc(bytes ? bytes : 1)))
        *rc = lc_error(MPI_ERR_NO_MEM, "out of memory for %zu bytes of a collective's temporary buffer", bytes);
    if (p && zero) memset(p, 0, bytes);
    return p ? p - tlb : NULL;
}

static void *lc_ic_tmp(lc_ic_t *ic, MPI_Count count, MPI_Datatype dt, void **mem, int *rc)
{
    return lc_ic_tmp_sized(ic, count, dt, mem, rc, false);
}

static int lc_ic_root(const lc_comm_t *c, int root)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->peer_count)) return MPI_SUCCESS;
    return lc_error(MPI_ERR_ROOT,
                    "root %d is invalid on an intercommunicator: MPI_ROOT, MPI_PROC_NULL or a rank of "
                    "the remote group (size %d)",
                    root, c->peer_count);
}

static int lc_ic_no_in_place(const void *buf, const char *what)
{
    if (buf != MPI_IN_PLACE) return MPI_SUCCESS;
    return lc_error(MPI_ERR_BUFFER, "%s cannot be MPI_IN_PLACE on an intercommunicator", what);
}

static char *lc_ic_at(const void *buf, MPI_Aint items, MPI_Datatype dt)
{
    return (char *)buf + items * lc_ic_extent(dt);
}

/* ---- the operations ---------------------------------------------------------- */

int lc_inter_barrier(lc_comm_t *c)
{
    lc_ic_t ic;
    int rc = lc_ic_begin(&ic, c, LC_TAG_IC_BARRIER, 2);
    char stack[2] = { 0, 0 }, *token = stack;
    void *mem = NULL;
    if (rc == MPI_SUCCESS && ic.s && !(token = lc_ic_tmp(&ic, 2, MPI_CHAR, &mem, &rc))) token = stack;
    if (rc == MPI_SUCCESS) rc = LC_IC_LOCAL(&ic, lc_coll_barrier(c->local));
    if (rc == MPI_SUCCESS && c->rank == 0) rc = lc_ic_sendrecv(&ic, &token[0], 1, &token[1], 1, MPI_CHAR, 0);
    if (rc == MPI_SUCCESS) rc = LC_IC_LOCAL(&ic, lc_coll_barrier(c->local));
    return lc_ic_end(&ic, rc);
}

int lc_inter_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, lc_comm_t *c)
{
    int rc = lc_ic_root(c, root);
    if (rc != MPI_SUCCESS || root == MPI_PROC_NULL) return rc;
    if ((rc = lc_ic_no_in_place(buf, "buffer")) || (rc = lc_check_side(buf, count, dt))) return rc;
    lc_ic_t ic;
    if ((rc = lc_ic_begin(&ic, c, LC_TAG_IC_BCAST, 1)) != MPI_SUCCESS) return lc_ic_end(&ic, rc);
    if (root == MPI_ROOT) return lc_ic_end(&ic, lc_ic_isend(&ic, buf, count, dt, 0));
    if (c->rank == 0) rc = lc_ic_wait(&ic, lc_ic_irecv(&ic, buf, count, dt, root));
    if (rc == MPI_SUCCESS) rc = LC_IC_LOCAL(&ic, lc_stage_bcast(buf, (size_t)count, dt, 0, c->local));
    return lc_ic_end(&ic, rc);
}

/* Gather and gatherv: rv NULL for gather (rcount each, packed). */
int lc_inter_gather(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                    const lc_vec_t *rv, MPI_Datatype rdt, int root, lc_comm_t *c)
{
    int rc = lc_ic_root(c, root);
    lc_ic_t ic;
    if (rc != MPI_SUCCESS || root == MPI_PROC_NULL) return rc;
    if (root != MPI_ROOT) {
        if ((rc = lc_ic_no_in_place(sbuf, "sendbuf")) || (rc = lc_check_side(sbuf, scount, sdt))) return rc;
        if ((rc = lc_ic_begin(&ic, c, LC_TAG_IC_GATHER, 1)) == MPI_SUCCESS)
            rc = lc_ic_isend(&ic, sbuf, scount, sdt, root);
        return lc_ic_end(&ic, rc);
    }
    int q = c->peer_count;
    if ((rc = lc_ic_no_in_place(rbuf, "recvbuf"))) return rc;
    rc = rv ? lc_check_vector(c, rbuf, rv, "recvcounts", "displs", rdt) : lc_check_side(rbuf, rcount * q, rdt);
    if (rc != MPI_SUCCESS) return rc;
    rc = lc_ic_begin(&ic, c, LC_TAG_IC_GATHER, q);
    for (int i = 0; i < q && rc == MPI_SUCCESS; i++) {
        MPI_Aint at = rv ? (MPI_Aint)(lc_vec_offset(rv, i, 1)) : (MPI_Aint)(rcount * i);
        rc = lc_ic_irecv(&ic, lc_ic_at(rbuf, at, rdt), rv ? (MPI_Count)lc_vec_count(rv, i) : rcount, rdt, i);
    }
    return lc_ic_end(&ic, rc);
}

/* Scatter and scatterv: sv NULL for scatter. */
int lc_inter_scatter(const void *sbuf, MPI_Count scount, const lc_vec_t *sv, MPI_Datatype sdt, void *rbuf,
                     MPI_Count rcount, MPI_Datatype rdt, int root, lc_comm_t *c)
{
    int rc = lc_ic_root(c, root);
    lc_ic_t ic;
    if (rc != MPI_SUCCESS || root == MPI_PROC_NULL) return rc;
    if (root != MPI_ROOT) {
        if ((rc = lc_ic_no_in_place(rbuf, "recvbuf")) || (rc = lc_check_side(rbuf, rcount, rdt))) return rc;
        if ((rc = lc_ic_begin(&ic, c, LC_TAG_IC_SCATTER, 1)) == MPI_SUCCESS)
            rc = lc_ic_irecv(&ic, rbuf, rcount, rdt, root);
        return lc_ic_end(&ic, rc);
    }
    int q = c->peer_count;
    if ((rc = lc_ic_no_in_place(sbuf, "sendbuf"))) return rc;
    rc = sv ? lc_check_vector(c, sbuf, sv, "sendcounts", "displs", sdt) : lc_check_side(sbuf, scount * q, sdt);
    if (rc != MPI_SUCCESS) return rc;
    rc = lc_ic_begin(&ic, c, LC_TAG_IC_SCATTER, q);
    for (int i = 0; i < q && rc == MPI_SUCCESS; i++) {
        MPI_Aint at = sv ? (MPI_Aint)(lc_vec_offset(sv, i, 1)) : (MPI_Aint)(scount * i);
        rc = lc_ic_isend(&ic, lc_ic_at(sbuf, at, sdt), sv ? (MPI_Count)lc_vec_count(sv, i) : scount, sdt, i);
    }
    return lc_ic_end(&ic, rc);
}

/* Every process sends block sblock(j) to remote j and receives rblock(j)
 * from it.  Allgather(v): the same send block to all (sv NULL, svary
 * false); alltoall(v): block j (svary true).  Counts/displacements: a
 * vector, or `count` items per rank packed (vector NULL). */
static int lc_ic_exchange(const void *sbuf, MPI_Count scount, const lc_vec_t *sv, bool svary, MPI_Datatype sdt,
                          void *rbuf, MPI_Count rcount, const lc_vec_t *rv, MPI_Datatype rdt, int tag, lc_comm_t *c)
{
    int q = c->peer_count;
    lc_ic_t ic;
    int rc = lc_ic_begin(&ic, c, tag, 2 * q);
    for (int j = 0; j < q && rc == MPI_SUCCESS; j++) {
        MPI_Aint at = rv ? (MPI_Aint)lc_vec_offset(rv, j, 1) : (MPI_Aint)(rcount * j);
        rc = lc_ic_irecv(&ic, lc_ic_at(rbuf, at, rdt), rv ? (MPI_Count)lc_vec_count(rv, j) : rcount, rdt, j);
    }
    /* Start with the peer of the same rank so that not everyone sends to
     * remote rank 0 first. */
    for (int k = 0; k < q && rc == MPI_SUCCESS; k++) {
        int j = (c->rank + k) % q;
        MPI_Aint at = !svary ? 0 : sv ? (MPI_Aint)lc_vec_offset(sv, j, 1) : (MPI_Aint)(scount * j);
        rc = lc_ic_isend(&ic, lc_ic_at(sbuf, at, sdt), sv ? (MPI_Count)lc_vec_count(sv, j) : scount, sdt, j);
    }
    return lc_ic_end(&ic, rc);
}

int lc_inter_allgather(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                       const lc_vec_t *rv, MPI_Datatype rdt, lc_comm_t *c)
{
    int rc;
    if ((rc = lc_ic_no_in_place(sbuf, "sendbuf")) || (rc = lc_ic_no_in_place(rbuf, "recvbuf"))) return rc;
    if ((rc = lc_check_side(sbuf, scount, sdt))) return rc;
    rc = rv ? lc_check_vector(c, rbuf, rv, "recvcounts", "displs", rdt)
            : lc_check_side(rbuf, rcount * c->peer_count, rdt);
    if (rc == MPI_SUCCESS)
        rc = lc_check_apart_sides(&(lc_alias_side_t){ .buf = sbuf, .n = 1, .count = scount, .type = sdt, .same = true },
                                  &(lc_alias_side_t){ .buf = rbuf, .n = c->peer_count, .vec = rv, .count = rcount,
                                                      .type = rdt },
                                  NULL);
    if (rc != MPI_SUCCESS) return rc;
    return lc_ic_exchange(sbuf, scount, NULL, false, sdt, rbuf, rcount, rv, rdt, LC_TAG_IC_ALLGATHER, c);
}

int lc_inter_alltoall(const void *sbuf, MPI_Count scount, const lc_vec_t *sv, MPI_Datatype sdt, void *rbuf,
                      MPI_Count rcount, const lc_vec_t *rv, MPI_Datatype rdt, lc_comm_t *c)
{
    int rc, q = c->peer_count;
    if ((rc = lc_ic_no_in_place(sbuf, "sendbuf")) || (rc = lc_ic_no_in_place(rbuf, "recvbuf"))) return rc;
    rc = sv ? lc_check_vector(c, sbuf, sv, "sendcounts", "sdispls", sdt) : lc_check_side(sbuf, scount * q, sdt);
    if (rc == MPI_SUCCESS)
        rc = rv ? lc_check_vector(c, rbuf, rv, "recvcounts", "rdispls", rdt) : lc_check_side(rbuf, rcount * q, rdt);
    if (rc == MPI_SUCCESS)
        rc = lc_check_apart_sides(&(lc_alias_side_t){ .buf = sbuf, .n = q, .vec = sv, .count = scount, .type = sdt },
                                  &(lc_alias_side_t){ .buf = rbuf, .n = q, .vec = rv, .count = rcount, .type = rdt },
                                  NULL);
    if (rc != MPI_SUCCESS) return rc;
    return lc_ic_exchange(sbuf, scount, sv, true, sdt, rbuf, rcount, rv, rdt, LC_TAG_IC_ALLTOALL, c);
}

/* The blocks are bytes already (staged by lc_mpi_alltoallw.c). */
int lc_inter_alltoallw(const void *sbuf, const size_t *sbytes, const ptrdiff_t *soff, void *rbuf, const size_t *rbytes,
                       const ptrdiff_t *roff, lc_comm_t *c)
{
    int q = c->peer_count;
    lc_ic_t ic;
    int rc = lc_ic_begin(&ic, c, LC_TAG_IC_ALLTOALL, 2 * q);
    for (int j = 0; j < q && rc == MPI_SUCCESS; j++)
        rc = lc_ic_irecv(&ic, (char *)rbuf + roff[j], (MPI_Count)rbytes[j], MPI_BYTE, j);
    for (int k = 0; k < q && rc == MPI_SUCCESS; k++) {
        int j = (c->rank + k) % q;
        rc = lc_ic_isend(&ic, (const char *)sbuf + soff[j], (MPI_Count)sbytes[j], MPI_BYTE, j);
    }
    return lc_ic_end(&ic, rc);
}

int lc_inter_reduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op, int root, lc_comm_t *c)
{
    int rc = lc_ic_root(c, root);
    lc_ic_t ic;
    if (rc != MPI_SUCCESS || root == MPI_PROC_NULL) return rc;
    if ((rc = lc_check_reduction(count, dt, op))) return rc;
    if (root == MPI_ROOT) {
        if ((rc = lc_ic_no_in_place(rbuf, "recvbuf")) || (rc = lc_check_buf(rbuf, count, dt))) return rc;
        if ((rc = lc_ic_begin(&ic, c, LC_TAG_IC_REDUCE, 1)) == MPI_SUCCESS) rc = lc_ic_irecv(&ic, rbuf, count, dt, 0);
        return lc_ic_end(&ic, rc);
    }
    if ((rc = lc_ic_no_in_place(sbuf, "sendbuf")) || (rc = lc_check_buf(sbuf, count, dt))) return rc;
    void *mem = NULL, *tmp = NULL;
    rc = lc_ic_begin(&ic, c, LC_TAG_IC_REDUCE, 1);
    if (rc == MPI_SUCCESS && c->rank == 0) tmp = lc_ic_tmp(&ic, count, dt, &mem, &rc);
    if (rc == MPI_SUCCESS) rc = LC_IC_LOCAL(&ic, lc_stage_reduce(sbuf, tmp, (size_t)count, dt, op, 0, c->local));
    if (rc == MPI_SUCCESS && c->rank == 0) rc = lc_ic_isend(&ic, tmp, count, dt, root);
    rc = lc_ic_end(&ic, rc);
    free(mem);
    return rc;
}

int lc_inter_allreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op, lc_comm_t *c)
{
    int rc;
    if ((rc = lc_check_reduction(count, dt, op))) return rc;
    if ((rc = lc_ic_no_in_place(sbuf, "sendbuf")) || (rc = lc_ic_no_in_place(rbuf, "recvbuf"))) return rc;
    if ((rc = lc_check_buf(sbuf, count, dt)) || (rc = lc_check_buf(rbuf, count, dt))) return rc;
    if ((rc = lc_check_apart(sbuf, count, dt, rbuf, count, dt))) return rc;
    void *mem = NULL, *tmp = NULL;
    lc_ic_t ic;
    rc = lc_ic_begin(&ic, c, LC_TAG_IC_ALLREDUCE, 2);
    if (rc == MPI_SUCCESS && c->rank == 0) tmp = lc_ic_tmp(&ic, count, dt, &mem, &rc);
    if (rc == MPI_SUCCESS) rc = LC_IC_LOCAL(&ic, lc_stage_reduce(sbuf, tmp, (size_t)count, dt, op, 0, c->local));
    if (rc == MPI_SUCCESS && c->rank == 0) rc = lc_ic_sendrecv(&ic, tmp, count, rbuf, count, dt, 0);
    if (rc == MPI_SUCCESS) rc = LC_IC_LOCAL(&ic, lc_stage_bcast(rbuf, (size_t)count, dt, 0, c->local));
    rc = lc_ic_end(&ic, rc);
    free(mem);
    return rc;
}

/* ---- reduce_scatter ---------------------------------------------------------- */
/* rv has this group's counts (the size of the local group); the input
 * vectors are as long as the remote group's counts add up to, which the
 * leaders tell each other and broadcast in their group.  Captured, that
 * length is known only when the schedule runs: its first rounds are the
 * exchange and the broadcast, then a call step (lc_ic_rs_build) adds the
 * rest of the schedule — once: a persistent collective's later starts run
 * the steps it added (the length cannot change between them). */
typedef struct lc_ic_rs {
    lc_comm_t *c;
    lc_sched_t *s;
    const void *sbuf;
    void *rbuf;
    MPI_Datatype dt;
    MPI_Op op;
    lc_dt_t *held; /* dt retained for the later build */
    MPI_Count *counts;
    MPI_Aint *displs;
    MPI_Count mine;
    uint64_t total[2]; /* this group's, the remote group's */
    int bad;           /* this rank's input was unusable (lc_ic_rs_steps) */
    bool built;
} lc_ic_rs_t;

/* Reduce the input (total[1] items) to the leader, the leaders swap the
 * results, each scatters what it got in its group (counts/displs). */
static int lc_ic_rs_steps(lc_ic_t *ic, lc_ic_rs_t *d)
{
    lc_comm_t *c = d->c;
    void *mem0 = NULL, *mem1 = NULL, *mem2 = NULL, *in = NULL, *out = NULL;
    const void *src = d->sbuf;
    int rc = MPI_SUCCESS;
    /* The input's length is known only now, after the leaders swapped
     * counts: a NULL input found here cannot stop this rank without
     * leaving the others waiting for its part.  It takes part with zeros
     * and its error is reported when the operation ends (lc_ic_rs_apart). */
    if ((d->bad = lc_check_buf(d->sbuf, (MPI_Count)d->total[1], d->dt)) != MPI_SUCCESS)
        src = lc_ic_tmp_sized(ic, (MPI_Count)d->total[1], d->dt, &mem0, &rc, true);
    if (rc == MPI_SUCCESS && c->rank == 0 && (in = lc_ic_tmp(ic, (MPI_Count)d->total[1], d->dt, &mem1, &rc)))
        out = lc_ic_tmp(ic, (MPI_Count)d->total[0], d->dt, &mem2, &rc);
    if (rc == MPI_SUCCESS)
        rc = LC_IC_LOCAL(ic, lc_stage_reduce(src, in, (size_t)d->total[1], d->dt, d->op, 0, c->local));
    if (rc == MPI_SUCCESS && c->rank == 0)
        rc = lc_ic_sendrecv(ic, in, (MPI_Count)d->total[1], out, (MPI_Count)d->total[0], d->dt, 0);
    lc_vec_t sv = lc_vec_wide(d->counts, d->displs);
    if (rc == MPI_SUCCESS)
        rc = LC_IC_LOCAL(ic, lc_stage_scatterv(out, &sv, d->dt, d->rbuf, (size_t)d->mine, d->dt, 0, c->local));
    free(mem0);
    free(mem1);
    free(mem2);
    return rc;
}

/* Input and result share no byte (MPI_ERR_BUFFER otherwise, as in every
 * collective: lc_mpi_coll_alias.c).  The input's length (total[1]) is
 * known only once the leaders swapped counts, so this is checked after
 * the operation, not before: refusing then would leave the other ranks
 * waiting for this one's contribution.  The operation is safe to finish
 * first: every byte of the input is read (reduced into the leader's
 * temporary) in rounds that end before the scatter writes the result,
 * so the other ranks get the right values and only this rank is told.
 * A NULL input found by the steps (d->bad) is reported here too.
 * Blocking: called after the steps; captured: the schedule's last step. */
static int lc_ic_rs_apart(void *arg)
{
    const lc_ic_rs_t *d = arg;
    if (d->bad != MPI_SUCCESS) return d->bad;
    return lc_check_apart(d->sbuf, (MPI_Count)d->total[1], d->dt, d->rbuf, d->mine, d->dt);
}

static void lc_ic_rs_drop(void *arg)
{
    lc_ic_rs_t *d = arg;
    if (d->held) lc_dt_release(d->held);
}

/* The call step, from the progress engine: add the rest of the schedule. */
static int lc_ic_rs_build(void *arg)
{
    lc_ic_rs_t *d = arg;
    if (d->built) return MPI_SUCCESS;
    d->built = true;
    lc_sched_t *outer = lc_coll_capture; /* none expected; kept in case */
    lc_ic_t ic;
    lc_coll_capture = d->s;
    int rc = lc_ic_begin(&ic, d->c, LC_TAG_IC_REDSCAT, 2);
    if (rc == MPI_SUCCESS) rc = lc_ic_rs_steps(&ic, d);
    rc = lc_ic_end(&ic, rc);
    if (rc == MPI_SUCCESS && d->s) rc = lc_sched_call(d->s, lc_ic_rs_apart, d); /* after the last fence */
    lc_coll_capture = outer;
    return rc;
}

int lc_inter_reduce_scatter(const void *sbuf, void *rbuf, const lc_vec_t *rv, MPI_Datatype dt, MPI_Op op, lc_comm_t *c)
{
    int p = c->size, rc;
    if ((rc = lc_check_reduction(0, dt, op))) return rc;
    if ((rc = lc_ic_no_in_place(sbuf, "sendbuf")) || (rc = lc_ic_no_in_place(rbuf, "recvbuf"))) return rc;
    if (rv->counts) {
        for (int i = 0; i < p; i++) {
            MPI_Count k = rv->wide ? ((const MPI_Count *)rv->counts)[i] : ((const int *)rv->counts)[i];
            if (k < 0) return lc_error(MPI_ERR_COUNT, "recvcounts[%d] = %lld is negative", i, (long long)k);
        }
    }
    MPI_Count mine = (MPI_Count)lc_vec_count(rv, c->rank);
    if ((rc = lc_check_buf(rbuf, mine, dt))) return rc;
    lc_ic_t ic;
    if ((rc = lc_ic_begin(&ic, c, LC_TAG_IC_REDSCAT, 2)) != MPI_SUCCESS) return lc_ic_end(&ic, rc);
    /* The state and the counts: the schedule's when captured. */
    size_t bytes = sizeof(lc_ic_rs_t) + (sizeof(MPI_Count) + sizeof(MPI_Aint)) * (size_t)p;
    lc_ic_rs_t *d = ic.s ? lc_sched_alloc(ic.s, bytes, &rc) : malloc(bytes);
    if (!d) return lc_ic_end(&ic, ic.s ? rc : lc_error(MPI_ERR_NO_MEM, "out of memory for %d counts", p));
    memset(d, 0, sizeof(*d));
    d->c = c;
    d->s = ic.s;
    d->sbuf = sbuf;
    d->rbuf = rbuf;
    d->dt = dt;
    d->op = op;
    d->mine = mine;
    d->counts = (MPI_Count *)(d + 1);
    d->displs = (MPI_Aint *)(d->counts + p);
    /* Block i of this group's result starts at the sum of counts before it. */
    for (int i = 0; i < p; i++) {
        d->counts[i] = (MPI_Count)lc_vec_count(rv, i);
        d->displs[i] = (MPI_Aint)d->total[0];
        d->total[0] += (uint64_t)d->counts[i];
    }
    if (c->rank == 0) rc = lc_ic_sendrecv(&ic, &d->total[0], 1, &d->total[1], 1, MPI_UINT64_T, 0);
    if (rc == MPI_SUCCESS) rc = LC_IC_LOCAL(&ic, lc_coll_bcast(&d->total[1], 1, MPI_UINT64_T, 0, c->local));
    if (ic.s) {
        if (rc == MPI_SUCCESS && (d->held = lc_mpi_derived(dt)) != NULL) lc_dt_retain(d->held);
        if (rc == MPI_SUCCESS) rc = lc_sched_on_free(ic.s, lc_ic_rs_drop, d);
        if (rc == MPI_SUCCESS) rc = lc_sched_call(ic.s, lc_ic_rs_build, d);
        return lc_ic_end(&ic, rc);
    }
    rc = lc_ic_end(&ic, rc);
    if (rc == MPI_SUCCESS) rc = lc_ic_rs_build(d);
    if (rc == MPI_SUCCESS) rc = lc_ic_rs_apart(d);
    free(d);
    return rc;
}
