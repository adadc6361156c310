/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_stage_reduce.c — reductions with derived datatypes (MPI 4.1
 * §6.9.1: a predefined operation applies to a derived type whose basic
 * elements are all of one predefined type it is defined for; a user
 * operation to any type).
 *
 * Predefined operation: the buffers are staged as arrays of the basic type
 * B (packed; a value-index pair B is re-laid out as its C struct, which is
 * what the kernels read) and the coll layer's own algorithm reduces
 * count * (size / size of B) elements.
 *
 * User operation: the function must see the user's datatype handle and
 * buffers laid out as the type says, so the coll layer's algorithms (which
 * cut buffers into byte segments) cannot run it.  Each rank's contribution
 * is gathered packed (allgather for the all-* forms), then combined in
 * rank order, x0 op (x1 op (... op xn-1)), in unpacked scratch buffers:
 * correct for non-commutative operations, O(n) memory per rank.  It is
 * the correctness path for a rare case, not a fast one.
 */
#include "mpi/lc_mpi_stage.h"
#include "coll/lc_sched.h"
#include "coll/lc_op.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- predefined operations: arrays of the basic type ---------------------------- */

typedef struct lc_rstage {
    lc_stage_t s; /* the packed form */
    void *arr;    /* what the kernels see: s's buffer, or a struct array (pair types) */
    void *own;    /* arr when allocated here */
    void *pk;     /* the packed records (the stage's buffer, or the user's when dense) */
    lc_dt_t *b;   /* the basic type's object */
    size_t n;     /* elements of B */
    int dir;
} lc_rstage_t;

/* A pair type in a captured reduction: the conversion between packed
 * records and C structs is part of the stage's pack and unpack steps
 * (a dense type gets a step that only converts, from the user's memory). */
static int lc_rstage_pair_sched(lc_rstage_t *r, lc_sched_t *sc, size_t esize, int dir)
{
    int rc;
    lc_stage_step_t *st = r->s.step;
    void *arr = lc_sched_alloc(sc, r->n * esize, &rc);
    if (arr && !st) {
        rc = lc_stage_step_new(sc, NULL, NULL, 0, 0, r->arr ? r->arr : arr, &st);
        if (rc == MPI_SUCCESS && (dir & LC_STAGE_IN)) rc = lc_stage_step_pack_at_start(sc, st);
        if (rc == MPI_SUCCESS) {
            r->s.sched = sc;
            r->s.step = st;
            r->s.dir = dir;
        }
    }
    if (!arr || rc != MPI_SUCCESS) {
        lc_stage_free(&r->s);
        return rc;
    }
    st->b = r->b;
    st->arr = arr;
    st->nb = r->n;
    r->arr = arr;
    return MPI_SUCCESS;
}

static int lc_rstage_init(lc_rstage_t *r, const void *buf, MPI_Count count, lc_dt_t *t, MPI_Datatype dt, int dir,
                          bool significant)
{
    memset(r, 0, sizeof(*r));
    MPI_Datatype bt;
    int rc = lc_stage_buf(&r->s, buf, count, dt, dir, significant, &r->arr, &bt);
    if (rc || !significant || buf == MPI_IN_PLACE) return rc;
    r->b = lc_dt_get(t->basic);
    r->dir = dir;
    r->n = r->b->size ? (size_t)(count * t->size / r->b->size) : 0;
    size_t esize = lc_dtype_size(t->basic);
    if ((size_t)r->b->size == esize) return MPI_SUCCESS; /* packed elements are the array */
    if (lc_unlikely(lc_coll_capture != NULL)) return lc_rstage_pair_sched(r, lc_coll_capture, esize, dir);
    /* A pair type: packed records of its data bytes; the kernels read the C struct. */
    if (!(r->own = malloc(r->n * esize + 1))) {
        lc_stage_free(&r->s);
        return lc_error(MPI_ERR_NO_MEM, "out of memory for %zu value-index pairs", r->n);
    }
    if (dir & LC_STAGE_IN) lc_dt_unpack(r->b, (MPI_Count)r->n, r->own, 0, r->arr, r->n * (size_t)r->b->size);
    r->pk = r->arr;
    r->arr = r->own;
    return MPI_SUCCESS;
}

static int lc_rstage_end(lc_rstage_t *r, int rc)
{
    /* back to packed records in the stage's buffer (the user's, when dense) */
    if (!rc && r->own && (r->dir & LC_STAGE_OUT))
        lc_dt_pack(r->b, (MPI_Count)r->n, r->own, 0, r->pk, r->n * (size_t)r->b->size);
    free(r->own);
    if (rc) {
        lc_stage_free(&r->s);
        return rc;
    }
    return lc_stage_finish(&r->s);
}

/* ---- user operations: gathered, combined in rank order -------------------------- */

/* count items of t in memory of their own (zeroed), at `origin`. */
typedef struct lc_scratch {
    void *mem;
    void *origin;
} lc_scratch_t;

static int lc_scratch_alloc(lc_scratch_t *s, const lc_dt_t *t, MPI_Count count)
{
    MPI_Aint ext = lc_dt_extent(t), lo = t->true_lb < 0 ? t->true_lb : 0;
    MPI_Aint hi = count > 0 ? (MPI_Aint)(count - 1) * (ext > 0 ? ext : 0) + t->true_ub : 0;
    if (ext < 0 && count > 1) lo += (MPI_Aint)(count - 1) * ext;
    size_t span = (size_t)(hi > lo ? hi - lo : 0);
    if (!(s->mem = calloc(1, span + 1)))
        return lc_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte reduction buffer", span);
    s->origin = (char *)s->mem - lo;
    return MPI_SUCCESS;
}

/* out (packed, count items) = x[from] op x[from+1] op ... op x[to], x[i]
 * the packed contribution of rank i in `all`. */
static int lc_user_fold(const char *all, int from, int to, lc_dt_t *t, MPI_Datatype dt, MPI_Count count, MPI_Op op,
                        void *out)
{
    size_t bytes = (size_t)count * (size_t)t->size;
    lc_scratch_t acc = { 0 }, tmp = { 0 };
    int rc = lc_scratch_alloc(&acc, t, count);
    if (!rc) rc = lc_scratch_alloc(&tmp, t, count);
    if (!rc) {
        lc_dt_unpack(t, count, acc.origin, 0, all + (size_t)to * bytes, bytes);
        for (int i = to - 1; i >= from; i--) {
            lc_dt_unpack(t, count, tmp.origin, 0, all + (size_t)i * bytes, bytes);
            lc_op_user_apply(op, dt, tmp.origin, acc.origin, (size_t)count); /* acc = x[i] op acc */
        }
        lc_dt_pack(t, count, acc.origin, 0, out, bytes);
    }
    free(acc.mem);
    free(tmp.mem);
    return rc;
}

enum { LC_UR_REDUCE, LC_UR_ALLREDUCE, LC_UR_SCAN, LC_UR_EXSCAN, LC_UR_SCATTER };

/* The user-operation path as steps of a schedule: pack this rank's
 * contribution, the captured gather, then (behind a fence) the fold and
 * the unpack into the receive buffer. */
typedef struct lc_ufold {
    lc_dt_t *t; /* retained */
    MPI_Datatype dt;
    MPI_Op op;
    MPI_Count count, off, cnt;
    const void *in;
    void *rbuf;
    char *mine, *all, *res;
    int to;
} lc_ufold_t;

static void lc_ufold_drop(void *arg)
{
    lc_ufold_t *u = arg;
    if (u->t) lc_dt_release(u->t);
    u->t = NULL;
}

static int lc_ufold_pack(void *arg)
{
    lc_ufold_t *u = arg;
    return lc_dt_pack(u->t, u->count, u->in, 0, u->mine, (size_t)u->count * (size_t)u->t->size);
}

static int lc_ufold_fold(void *arg)
{
    lc_ufold_t *u = arg;
    size_t size = (size_t)u->t->size;
    int rc = lc_user_fold(u->all, 0, u->to, u->t, u->dt, u->count, u->op, u->res);
    if (!rc) rc = lc_dt_unpack(u->t, u->cnt, u->rbuf, 0, u->res + (size_t)u->off * size, (size_t)u->cnt * size);
    return rc;
}

static int lc_user_reduce_sched(int kind, const void *sbuf, void *rbuf, MPI_Count count, MPI_Count off, MPI_Count cnt,
                                MPI_Datatype dt, MPI_Op op, int root, lc_comm_t *comm)
{
    lc_sched_t *sc = lc_coll_capture;
    lc_dt_t *t = lc_dt_get(dt);
    size_t bytes = (size_t)count * (size_t)t->size, n = (size_t)comm->size;
    bool gathers = kind != LC_UR_REDUCE || comm->rank == root;
    int rc;
    lc_ufold_t *u = lc_sched_alloc(sc, sizeof(*u), &rc);
    if (!u) return rc;
    memset(u, 0, sizeof(*u));
    if (!(u->mine = lc_sched_alloc(sc, bytes, &rc))) return rc;
    if (gathers && !(u->all = lc_sched_alloc(sc, n * bytes, &rc))) return rc;
    if (!(u->res = lc_sched_alloc(sc, bytes, &rc))) return rc;
    if ((rc = lc_sched_on_free(sc, lc_ufold_drop, u)) != MPI_SUCCESS) return rc;
    lc_dt_retain(t);
    u->t = t;
    u->dt = dt;
    u->op = op;
    u->count = count;
    u->off = off;
    u->cnt = cnt;
    u->in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    u->rbuf = rbuf;
    u->to = kind == LC_UR_SCAN ? comm->rank : kind == LC_UR_EXSCAN ? comm->rank - 1 : comm->size - 1;
    if ((rc = lc_sched_call(sc, lc_ufold_pack, u)) != MPI_SUCCESS) return rc;
    if (kind == LC_UR_REDUCE)
        rc = lc_coll_gather(u->mine, bytes, MPI_BYTE, u->all, bytes, MPI_BYTE, root, comm);
    else
        rc = lc_coll_allgather(u->mine, bytes, MPI_BYTE, u->all, bytes, MPI_BYTE, comm);
    lc_coll_capture = NULL;                     /* taken by the gather, or it had nothing to move */
    if (rc || !gathers || u->to < 0) return rc; /* exscan on rank 0: recvbuf is undefined */
    if ((rc = lc_sched_fence(sc)) != MPI_SUCCESS) return rc;
    return lc_sched_call(sc, lc_ufold_fold, u);
}

/* The user-operation path of every reduction: `count` items are each
 * rank's input; `off`, `cnt`: the items of the result this rank keeps
 * (reduce-scatter), else 0 and count. */
static int lc_user_reduce(int kind, const void *sbuf, void *rbuf, MPI_Count count, MPI_Count off, MPI_Count cnt,
                          MPI_Datatype dt, MPI_Op op, int root, lc_comm_t *comm)
{
    if (lc_unlikely(lc_coll_capture != NULL))
        return lc_user_reduce_sched(kind, sbuf, rbuf, count, off, cnt, dt, op, root, comm);
    lc_dt_t *t = lc_dt_get(dt);
    size_t bytes = (size_t)count * (size_t)t->size, n = (size_t)comm->size;
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    char *mine = NULL, *all = NULL, *res = NULL;
    bool gathers = kind != LC_UR_REDUCE || comm->rank == root;
    int rc = MPI_SUCCESS;
    if (!(mine = malloc(bytes + 1)) || (gathers && !(all = malloc(n * bytes + 1))) || !(res = malloc(bytes + 1))) {
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory for %zu contributions of %zu bytes to a reduction", n, bytes);
        goto out;
    }
    rc = lc_dt_pack(t, count, in, 0, mine, bytes);
    if (rc) goto out;
    if (kind == LC_UR_REDUCE)
        rc = lc_coll_gather(mine, bytes, MPI_BYTE, all, bytes, MPI_BYTE, root, comm);
    else
        rc = lc_coll_allgather(mine, bytes, MPI_BYTE, all, bytes, MPI_BYTE, comm);
    if (rc || !gathers) goto out;
    int to = kind == LC_UR_SCAN ? comm->rank : kind == LC_UR_EXSCAN ? comm->rank - 1 : comm->size - 1;
    if (to < 0) goto out; /* exscan on rank 0: recvbuf is undefined */
    rc = lc_user_fold(all, 0, to, t, dt, count, op, res);
    if (!rc) lc_dt_unpack(t, cnt, rbuf, 0, res + (size_t)off * (size_t)t->size, (size_t)cnt * (size_t)t->size);
out:
    free(mine);
    free(all);
    free(res);
    return rc;
}

/* ---- the front-ends ----------------------------------------------------------------- */

/* A user operation on a derived type takes the gathering path. */
static bool lc_derived_user(MPI_Op op)
{
    return !lc_op_is_predefined(op);
}

int lc_stage_reduce(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, int root, lc_comm_t *comm)
{
    if (lc_mpi_predefined(dt)) return lc_coll_reduce(sbuf, rbuf, count, dt, op, root, comm);
    if (lc_derived_user(op))
        return lc_user_reduce(LC_UR_REDUCE, sbuf, rbuf, (MPI_Count)count, 0, (MPI_Count)count, dt, op, root, comm);
    lc_dt_t *t = lc_dt_get(dt);
    lc_rstage_t s, r;
    int rc = lc_rstage_init(&s, sbuf, (MPI_Count)count, t, dt, LC_STAGE_IN, true);
    if (rc) return rc;
    rc = lc_rstage_init(&r, rbuf, (MPI_Count)count, t, dt, sbuf == MPI_IN_PLACE ? LC_STAGE_INOUT : LC_STAGE_OUT,
                        comm->rank == root);
    if (!rc) {
        size_t n = sbuf == MPI_IN_PLACE ? r.n : s.n;
        rc = lc_coll_reduce(s.arr, r.arr, n, t->basic, op, root, comm);
        rc = lc_rstage_end(&r, rc);
    }
    lc_rstage_end(&s, 1);
    return rc;
}

int lc_stage_reduce_local(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op)
{
    lc_dt_t *t = lc_dt_get(dt);
    lc_rstage_t s, r;
    int rc = lc_rstage_init(&s, inbuf, count, t, dt, LC_STAGE_IN, true);
    if (rc) return rc;
    rc = lc_rstage_init(&r, inoutbuf, count, t, dt, LC_STAGE_INOUT, true);
    if (!rc) {
        if (r.n) lc_op_apply(op, t->basic, s.arr, r.arr, r.n);
        rc = lc_rstage_end(&r, MPI_SUCCESS);
    }
    lc_rstage_end(&s, 1);
    return rc;
}

int lc_stage_allreduce(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm)
{
    if (lc_mpi_predefined(dt)) return lc_coll_allreduce(sbuf, rbuf, count, dt, op, comm);
    if (lc_derived_user(op))
        return lc_user_reduce(LC_UR_ALLREDUCE, sbuf, rbuf, (MPI_Count)count, 0, (MPI_Count)count, dt, op, 0, comm);
    lc_dt_t *t = lc_dt_get(dt);
    lc_rstage_t s, r;
    int rc = lc_rstage_init(&s, sbuf, (MPI_Count)count, t, dt, LC_STAGE_IN, true);
    if (rc) return rc;
    rc = lc_rstage_init(&r, rbuf, (MPI_Count)count, t, dt, sbuf == MPI_IN_PLACE ? LC_STAGE_INOUT : LC_STAGE_OUT, true);
    if (!rc) {
        rc = lc_coll_allreduce(s.arr, r.arr, r.n, t->basic, op, comm);
        rc = lc_rstage_end(&r, rc);
    }
    lc_rstage_end(&s, 1);
    return rc;
}

static int lc_stage_scan_any(bool ex, const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op,
                             lc_comm_t *comm)
{
    if (lc_derived_user(op))
        return lc_user_reduce(ex ? LC_UR_EXSCAN : LC_UR_SCAN, sbuf, rbuf, (MPI_Count)count, 0, (MPI_Count)count, dt, op,
                              0, comm);
    lc_dt_t *t = lc_dt_get(dt);
    lc_rstage_t s, r;
    int rc = lc_rstage_init(&s, sbuf, (MPI_Count)count, t, dt, LC_STAGE_IN, true);
    if (rc) return rc;
    /* exscan: rank 0's recvbuf is undefined; give the algorithm scratch it may write */
    int rdir = sbuf == MPI_IN_PLACE ? LC_STAGE_INOUT : (ex && comm->rank == 0) ? 0 : LC_STAGE_OUT;
    rc = lc_rstage_init(&r, rbuf, (MPI_Count)count, t, dt, rdir, true);
    if (!rc) {
        rc = ex ? lc_coll_exscan(s.arr, r.arr, r.n, t->basic, op, comm)
                : lc_coll_scan(s.arr, r.arr, r.n, t->basic, op, comm);
        rc = lc_rstage_end(&r, rc);
    }
    lc_rstage_end(&s, 1);
    return rc;
}

int lc_stage_scan(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm)
{
    if (lc_mpi_predefined(dt)) return lc_coll_scan(sbuf, rbuf, count, dt, op, comm);
    return lc_stage_scan_any(false, sbuf, rbuf, count, dt, op, comm);
}

int lc_stage_exscan(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm)
{
    if (lc_mpi_predefined(dt)) return lc_coll_exscan(sbuf, rbuf, count, dt, op, comm);
    return lc_stage_scan_any(true, sbuf, rbuf, count, dt, op, comm);
}

/* Both reduce-scatters: counts[i] items for rank i (rv NULL: rcount each). */
static int lc_stage_rs_any(const void *sbuf, void *rbuf, const lc_vec_t *rv, size_t rcount, MPI_Datatype dt, MPI_Op op,
                           lc_comm_t *comm)
{
    int n = comm->size, me = comm->rank;
    MPI_Count total = 0, off = 0;
    for (int i = 0; i < n; i++) {
        MPI_Count c = rv ? (MPI_Count)lc_vec_count(rv, i) : (MPI_Count)rcount;
        if (i < me) off += c;
        total += c;
    }
    MPI_Count mine = rv ? (MPI_Count)lc_vec_count(rv, me) : (MPI_Count)rcount;
    if (lc_derived_user(op)) return lc_user_reduce(LC_UR_SCATTER, sbuf, rbuf, total, off, mine, dt, op, 0, comm);
    lc_dt_t *t = lc_dt_get(dt);
    size_t per = (size_t)(t->size / lc_dt_get(t->basic)->size); /* elements of B in one item */
    MPI_Count *counts = NULL;
    lc_rstage_t s, r;
    int rc = lc_rstage_init(&s, sbuf, total, t, dt, LC_STAGE_IN, true);
    if (rc) return rc;
    rc = lc_rstage_init(&r, rbuf, sbuf == MPI_IN_PLACE ? total : mine, t, dt,
                        sbuf == MPI_IN_PLACE ? LC_STAGE_INOUT : LC_STAGE_OUT, true);
    if (rc) goto out;
    if (rv) {
        if (!(counts = malloc(sizeof(*counts) * (size_t)n))) {
            rc = lc_error(MPI_ERR_NO_MEM, "out of memory for %d counts", n);
            rc = lc_rstage_end(&r, rc);
            goto out;
        }
        for (int i = 0; i < n; i++) counts[i] = (MPI_Count)(lc_vec_count(rv, i) * per);
        lc_vec_t v = lc_vec_wide(counts, NULL);
        rc = lc_coll_reduce_scatter(s.arr, r.arr, &v, t->basic, op, comm);
    } else {
        rc = lc_coll_reduce_scatter_block(s.arr, r.arr, rcount * per, t->basic, op, comm);
    }
    rc = lc_rstage_end(&r, rc);
out:
    free(counts);
    lc_rstage_end(&s, 1);
    return rc;
}

int lc_stage_reduce_scatter(const void *sbuf, void *rbuf, const lc_vec_t *rv, MPI_Datatype dt, MPI_Op op,
                            lc_comm_t *comm)
{
    if (lc_mpi_predefined(dt)) return lc_coll_reduce_scatter(sbuf, rbuf, rv, dt, op, comm);
    return lc_stage_rs_any(sbuf, rbuf, rv, 0, dt, op, comm);
}

int lc_stage_reduce_scatter_block(const void *sbuf, void *rbuf, size_t rcount, MPI_Datatype dt, MPI_Op op,
                                  lc_comm_t *comm)
{
    if (lc_mpi_predefined(dt)) return lc_coll_reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm);
    return lc_stage_rs_any(sbuf, rbuf, NULL, rcount, dt, op, comm);
}
