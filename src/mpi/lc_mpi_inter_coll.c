/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_inter_coll.c — the blocking collectives on intercommunicators
 * (MPI 4.1 §6.2.2): simple, correct algorithms, not tuned ones.
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

static int lc_ic_isend(const void *buf, MPI_Count n, MPI_Datatype dt, int dest, int tag, lc_comm_t *c,
                       lc_request_t **r)
{
    lc_dt_t *t = lc_mpi_derived(dt);
    if (t) return lc_pt2pt_isend_dt(buf, n, t, dest, tag, c, LC_CTX_COLL, LC_MODE_STANDARD, r);
    return lc_pt2pt_isend(buf, lc_bytes(n, dt), dest, tag, c, LC_CTX_COLL, LC_MODE_STANDARD, r);
}

static int lc_ic_irecv(void *buf, MPI_Count n, MPI_Datatype dt, int src, int tag, lc_comm_t *c, lc_request_t **r)
{
    lc_dt_t *t = lc_mpi_derived(dt);
    if (t) return lc_pt2pt_irecv_dt(buf, n, t, src, tag, c, LC_CTX_COLL, r);
    return lc_pt2pt_irecv(buf, lc_bytes(n, dt), src, tag, c, LC_CTX_COLL, r);
}

/* Wait for the n requests posted so far and release them; the first error
 * (rc's if it is one). */
static int lc_ic_waitall(int rc, int n, lc_request_t **reqs)
{
    int wrc = n ? lc_pt2pt_waitall_release(n, reqs) : MPI_SUCCESS;
    return rc != MPI_SUCCESS ? rc : wrc;
}

static int lc_ic_send(const void *buf, MPI_Count n, MPI_Datatype dt, int dest, int tag, lc_comm_t *c)
{
    lc_request_t *r;
    int rc = lc_ic_isend(buf, n, dt, dest, tag, c, &r);
    return rc == MPI_SUCCESS ? lc_pt2pt_wait_release(r, MPI_STATUS_IGNORE) : rc;
}

static int lc_ic_recv(void *buf, MPI_Count n, MPI_Datatype dt, int src, int tag, lc_comm_t *c)
{
    lc_request_t *r;
    int rc = lc_ic_irecv(buf, n, dt, src, tag, c, &r);
    return rc == MPI_SUCCESS ? lc_pt2pt_wait_release(r, MPI_STATUS_IGNORE) : rc;
}

static int lc_ic_sendrecv(const void *sbuf, MPI_Count sn, void *rbuf, MPI_Count rn, MPI_Datatype dt, int peer,
                          int tag, lc_comm_t *c)
{
    lc_request_t *r[2];
    int n = 0;
    int rc = lc_ic_irecv(rbuf, rn, dt, peer, tag, c, &r[n]);
    if (rc == MPI_SUCCESS) n++, rc = lc_ic_isend(sbuf, sn, dt, peer, tag, c, &r[n]);
    if (rc == MPI_SUCCESS) n++;
    return lc_ic_waitall(rc, n, r);
}

/* Extent of dt (its size for a predefined type). */
static MPI_Aint lc_ic_extent(MPI_Datatype dt)
{
    lc_dt_t *t = lc_mpi_derived(dt);
    return t ? lc_dt_extent(t) : (MPI_Aint)lc_dtype_size(dt);
}

/* A buffer for count items of dt: *mem to free, the buffer is the return
 * value (it may point before *mem for a type with a positive true lb). */
static void *lc_ic_tmp(MPI_Count count, MPI_Datatype dt, void **mem, int *rc)
{
    lc_dt_t *t = lc_mpi_derived(dt);
    MPI_Aint ext = lc_ic_extent(dt), tlb = t ? t->true_lb : 0, tsz = t ? t->true_ub - t->true_lb : ext;
    size_t bytes = count > 0 ? (size_t)tsz + (size_t)(count - 1) * (size_t)(ext < 0 ? -ext : ext) : 0;
    *mem = malloc(bytes ? bytes : 1);
    if (!*mem) {
        *rc = lc_error(MPI_ERR_NO_MEM, "out of memory for %zu bytes of a collective's temporary buffer", bytes);
        return NULL;
    }
    return (char *)*mem - tlb;
}

static int lc_ic_root(const lc_comm_t *c, int root)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->peer_count)) return MPI_SUCCESS;
    return lc_error(MPI_ERR_ROOT, "root %d is invalid on an intercommunicator: MPI_ROOT, MPI_PROC_NULL or a rank of "
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
    int rc = lc_coll_barrier(c->local);
    char token = 0, got;
    if (rc == MPI_SUCCESS && c->rank == 0) rc = lc_ic_sendrecv(&token, 1, &got, 1, MPI_CHAR, 0, LC_TAG_IC_BARRIER, c);
    if (rc == MPI_SUCCESS) rc = lc_coll_barrier(c->local);
    return rc;
}

int lc_inter_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, lc_comm_t *c)
{
    int rc = lc_ic_root(c, root);
    if (rc != MPI_SUCCESS || root == MPI_PROC_NULL) return rc;
    if ((rc = lc_ic_no_in_place(buf, "buffer")) || (rc = lc_check_side(buf, count, dt))) return rc;
    if (root == MPI_ROOT) return lc_ic_send(buf, count, dt, 0, LC_TAG_IC_BCAST, c);
    if (c->rank == 0) rc = lc_ic_recv(buf, count, dt, root, LC_TAG_IC_BCAST, c);
    if (rc == MPI_SUCCESS) rc = lc_stage_bcast(buf, (size_t)count, dt, 0, c->local);
    return rc;
}

/* Gather and gatherv: rv NULL for gather (rcount each, packed). */
int lc_inter_gather(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                    const lc_vec_t *rv, MPI_Datatype rdt, int root, lc_comm_t *c)
{
    int rc = lc_ic_root(c, root);
    if (rc != MPI_SUCCESS || root == MPI_PROC_NULL) return rc;
    if (root != MPI_ROOT) {
        if ((rc = lc_ic_no_in_place(sbuf, "sendbuf")) || (rc = lc_check_side(sbuf, scount, sdt))) return rc;
        return lc_ic_send(sbuf, scount, sdt, root, LC_TAG_IC_GATHER, c);
    }
    int q = c->peer_count, n = 0;
    if ((rc = lc_ic_no_in_place(rbuf, "recvbuf"))) return rc;
    rc = rv ? lc_check_vector(c, rbuf, rv, "recvcounts", "displs", rdt) : lc_check_side(rbuf, rcount * q, rdt);
    if (rc != MPI_SUCCESS) return rc;
    lc_request_t **r = malloc(sizeof(*r) * (size_t)q);
    if (!r) return lc_error(MPI_ERR_NO_MEM, "out of memory for %d requests", q);
    for (int i = 0; i < q && rc == MPI_SUCCESS; i++) {
        MPI_Aint at = rv ? (MPI_Aint)(lc_vec_offset(rv, i, 1)) : (MPI_Aint)(rcount * i);
        rc = lc_ic_irecv(lc_ic_at(rbuf, at, rdt), rv ? (MPI_Count)lc_vec_count(rv, i) : rcount, rdt, i,
                         LC_TAG_IC_GATHER, c, &r[n]);
        if (rc == MPI_SUCCESS) n++;
    }
    rc = lc_ic_waitall(rc, n, r);
    free(r);
    return rc;
}

/* Scatter and scatterv: sv NULL for scatter. */
int lc_inter_scatter(const void *sbuf, MPI_Count scount, const lc_vec_t *sv, MPI_Datatype sdt, void *rbuf,
                     MPI_Count rcount, MPI_Datatype rdt, int root, lc_comm_t *c)
{
    int rc = lc_ic_root(c, root);
    if (rc != MPI_SUCCESS || root == MPI_PROC_NULL) return rc;
    if (root != MPI_ROOT) {
        if ((rc = lc_ic_no_in_place(rbuf, "recvbuf")) || (rc = lc_check_side(rbuf, rcount, rdt))) return rc;
        return lc_ic_recv(rbuf, rcount, rdt, root, LC_TAG_IC_SCATTER, c);
    }
    int q = c->peer_count, n = 0;
    if ((rc = lc_ic_no_in_place(sbuf, "sendbuf"))) return rc;
    rc = sv ? lc_check_vector(c, sbuf, sv, "sendcounts", "displs", sdt) : lc_check_side(sbuf, scount * q, sdt);
    if (rc != MPI_SUCCESS) return rc;
    lc_request_t **r = malloc(sizeof(*r) * (size_t)q);
    if (!r) return lc_error(MPI_ERR_NO_MEM, "out of memory for %d requests", q);
    for (int i = 0; i < q && rc == MPI_SUCCESS; i++) {
        MPI_Aint at = sv ? (MPI_Aint)(lc_vec_offset(sv, i, 1)) : (MPI_Aint)(scount * i);
        rc = lc_ic_isend(lc_ic_at(sbuf, at, sdt), sv ? (MPI_Count)lc_vec_count(sv, i) : scount, sdt, i,
                         LC_TAG_IC_SCATTER, c, &r[n]);
        if (rc == MPI_SUCCESS) n++;
    }
    rc = lc_ic_waitall(rc, n, r);
    free(r);
    return rc;
}

/* Every process sends block sblock(j) to remote j and receives rblock(j)
 * from it.  Allgather(v): the same send block to all (sv NULL, svary
 * false); alltoall(v): block j (svary true).  Counts/displacements: a
 * vector, or `count` items per rank packed (vector NULL). */
static int lc_ic_exchange(const void *sbuf, MPI_Count scount, const lc_vec_t *sv, bool svary, MPI_Datatype sdt,
                          void *rbuf, MPI_Count rcount, const lc_vec_t *rv, MPI_Datatype rdt, int tag, lc_comm_t *c)
{
    int q = c->peer_count, n = 0, rc = MPI_SUCCESS;
    lc_request_t **r = malloc(sizeof(*r) * 2 * (size_t)q);
    if (!r) return lc_error(MPI_ERR_NO_MEM, "out of memory for %d requests", 2 * q);
    for (int j = 0; j < q && rc == MPI_SUCCESS; j++) {
        MPI_Aint at = rv ? (MPI_Aint)lc_vec_offset(rv, j, 1) : (MPI_Aint)(rcount * j);
        rc = lc_ic_irecv(lc_ic_at(rbuf, at, rdt), rv ? (MPI_Count)lc_vec_count(rv, j) : rcount, rdt, j, tag, c,
                         &r[n]);
        if (rc == MPI_SUCCESS) n++;
    }
    /* Start with the peer of the same rank so that not everyone sends to
     * remote rank 0 first. */
    for (int k = 0; k < q && rc == MPI_SUCCESS; k++) {
        int j = (c->rank + k) % q;
        MPI_Aint at = !svary ? 0 : sv ? (MPI_Aint)lc_vec_offset(sv, j, 1) : (MPI_Aint)(scount * j);
        rc = lc_ic_isend(lc_ic_at(sbuf, at, sdt), sv ? (MPI_Count)lc_vec_count(sv, j) : scount, sdt, j, tag, c, &r[n]);
        if (rc == MPI_SUCCESS) n++;
    }
    rc = lc_ic_waitall(rc, n, r);
    free(r);
    return rc;
}

int lc_inter_allgather(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                       const lc_vec_t *rv, MPI_Datatype rdt, lc_comm_t *c)
{
    int rc;
    if ((rc = lc_ic_no_in_place(sbuf, "sendbuf")) || (rc = lc_ic_no_in_place(rbuf, "recvbuf"))) return rc;
    if ((rc = lc_check_side(sbuf, scount, sdt))) return rc;
    rc = rv ? lc_check_vector(c, rbuf, rv, "recvcounts", "displs", rdt) : lc_check_side(rbuf, rcount * c->peer_count, rdt);
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
    if (rc != MPI_SUCCESS) return rc;
    return lc_ic_exchange(sbuf, scount, sv, true, sdt, rbuf, rcount, rv, rdt, LC_TAG_IC_ALLTOALL, c);
}

int lc_inter_alltoallw(const void *sbuf, const size_t *sbytes, const ptrdiff_t *soff, void *rbuf,
                       const size_t *rbytes, const ptrdiff_t *roff, lc_comm_t *c)
{
    int q = c->peer_count, n = 0, rc = MPI_SUCCESS;
    lc_request_t **r = malloc(sizeof(*r) * 2 * (size_t)q);
    if (!r) return lc_error(MPI_ERR_NO_MEM, "out of memory for %d requests", 2 * q);
    for (int j = 0; j < q && rc == MPI_SUCCESS; j++) {
        rc = lc_pt2pt_irecv((char *)rbuf + roff[j], rbytes[j], j, LC_TAG_IC_ALLTOALL, c, LC_CTX_COLL, &r[n]);
        if (rc == MPI_SUCCESS) n++;
    }
    for (int k = 0; k < q && rc == MPI_SUCCESS; k++) {
        int j = (c->rank + k) % q;
        rc = lc_pt2pt_isend((const char *)sbuf + soff[j], sbytes[j], j, LC_TAG_IC_ALLTOALL, c, LC_CTX_COLL,
                            LC_MODE_STANDARD, &r[n]);
        if (rc == MPI_SUCCESS) n++;
    }
    rc = lc_ic_waitall(rc, n, r);
    free(r);
    return rc;
}

int lc_inter_reduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op, int root,
                    lc_comm_t *c)
{
    int rc = lc_ic_root(c, root);
    if (rc != MPI_SUCCESS || root == MPI_PROC_NULL) return rc;
    if ((rc = lc_check_reduction(count, dt, op))) return rc;
    if (root == MPI_ROOT) {
        if ((rc = lc_ic_no_in_place(rbuf, "recvbuf")) || (rc = lc_check_buf(rbuf, count, dt))) return rc;
        return lc_ic_recv(rbuf, count, dt, 0, LC_TAG_IC_REDUCE, c);
    }
    if ((rc = lc_ic_no_in_place(sbuf, "sendbuf")) || (rc = lc_check_buf(sbuf, count, dt))) return rc;
    void *mem = NULL, *tmp = NULL;
    if (c->rank == 0 && !(tmp = lc_ic_tmp(count, dt, &mem, &rc))) return rc;
    rc = lc_stage_reduce(sbuf, tmp, (size_t)count, dt, op, 0, c->local);
    if (rc == MPI_SUCCESS && c->rank == 0) rc = lc_ic_send(tmp, count, dt, root, LC_TAG_IC_REDUCE, c);
    free(mem);
    return rc;
}

int lc_inter_allreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op, lc_comm_t *c)
{
    int rc;
    if ((rc = lc_check_reduction(count, dt, op))) return rc;
    if ((rc = lc_ic_no_in_place(sbuf, "sendbuf")) || (rc = lc_ic_no_in_place(rbuf, "recvbuf"))) return rc;
    if ((rc = lc_check_buf(sbuf, count, dt)) || (rc = lc_check_buf(rbuf, count, dt))) return rc;
    void *mem = NULL, *tmp = NULL;
    if (c->rank == 0 && !(tmp = lc_ic_tmp(count, dt, &mem, &rc))) return rc;
    rc = lc_stage_reduce(sbuf, tmp, (size_t)count, dt, op, 0, c->local);
    if (rc == MPI_SUCCESS && c->rank == 0) rc = lc_ic_sendrecv(tmp, count, rbuf, count, dt, 0, LC_TAG_IC_ALLREDUCE, c);
    free(mem);
    if (rc == MPI_SUCCESS) rc = lc_stage_bcast(rbuf, (size_t)count, dt, 0, c->local);
    return rc;
}

/* Reduce_scatter(_block): rv has this group's counts (the size of the
 * local group); the input vectors are as long as the remote group's
 * counts add up to, which the leaders tell each other. */
int lc_inter_reduce_scatter(const void *sbuf, void *rbuf, const lc_vec_t *rv, MPI_Datatype dt, MPI_Op op,
                            lc_comm_t *c)
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
    /* Block i of this group's result starts at the sum of counts before it. */
    MPI_Count *counts = malloc((sizeof(MPI_Count) + sizeof(MPI_Aint)) * (size_t)p);
    if (!counts) return lc_error(MPI_ERR_NO_MEM, "out of memory for %d counts", p);
    MPI_Aint *displs = (MPI_Aint *)(counts + p);
    uint64_t total[2] = { 0, 0 }; /* this group's, the remote group's */
    for (int i = 0; i < p; i++) {
        counts[i] = (MPI_Count)lc_vec_count(rv, i);
        displs[i] = (MPI_Aint)total[0];
        total[0] += (uint64_t)counts[i];
    }
    if (c->rank == 0) rc = lc_ic_sendrecv(&total[0], 1, &total[1], 1, MPI_UINT64_T, 0, LC_TAG_IC_REDSCAT, c);
    if (rc == MPI_SUCCESS) rc = lc_coll_bcast(&total[1], 1, MPI_UINT64_T, 0, c->local);
    if (rc == MPI_SUCCESS) rc = lc_check_buf(sbuf, (MPI_Count)total[1], dt);
    void *mem1 = NULL, *mem2 = NULL, *in = NULL, *out = NULL;
    if (rc == MPI_SUCCESS && c->rank == 0 && (in = lc_ic_tmp((MPI_Count)total[1], dt, &mem1, &rc)))
        out = lc_ic_tmp((MPI_Count)total[0], dt, &mem2, &rc);
    if (rc == MPI_SUCCESS) rc = lc_stage_reduce(sbuf, in, (size_t)total[1], dt, op, 0, c->local);
    if (rc == MPI_SUCCESS && c->rank == 0)
        rc = lc_ic_sendrecv(in, (MPI_Count)total[1], out, (MPI_Count)total[0], dt, 0, LC_TAG_IC_REDSCAT, c);
    lc_vec_t sv = lc_vec_wide(counts, displs);
    if (rc == MPI_SUCCESS) rc = lc_stage_scatterv(out, &sv, dt, rbuf, (size_t)mine, dt, 0, c->local);
    free(mem1);
    free(mem2);
    free(counts);
    return rc;
}
