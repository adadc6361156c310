/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_win_ops.c — one-sided communication calls (MPI 4.1 §12.3):
 * Put, Get, Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap
 * and the request forms, with their _c forms.  One check routine for
 * all; the engine (src/rma) does the rest.
 *
 * Request forms return a request the engine completes: at once where the
 * operation is done in place (direct windows, CMA, the origin's own
 * memory), else when the target's answer arrives (active messages): that
 * is completion at the target, which MPI_Rput may and MPI_Rget must await.
 *
 * Datatypes: predefined types go straight to lc_rma_op (the fast path).
 * Committed derived types (MPI 4.1 §12.3) on any side: when every side is
 * one run they are mapped onto lc_rma_op too (count elements of the basic
 * type, or bytes); otherwise lc_rma_op_typed walks the target's blocks.
 * Put/Get need equal sizes and, where both sides are made of one basic
 * type, the same one (MPI_BYTE and MPI_PACKED match anything);
 * accumulates need one predefined basic type on every side.  Sizes are
 * compared as extents when every side is predefined (the fast path moves
 * count x extent bytes, a padded pair's padding included) and as
 * MPI_Type_size otherwise (the typed path moves packed data, which a
 * padded pair such as MPI_DOUBLE_INT enters without its padding).
 */
#include "coll/lc_op.h"
#include "mpi/lc_mpi_request.h"
#include "mpi/lc_mpi_win.h"

typedef struct lc_win_args {
    lc_rma_kind_t kind;
    const void *origin;
    MPI_Count ocount;
    MPI_Datatype odt;
    void *result;
    MPI_Count rcount;
    MPI_Datatype rdt;
    const void *compare;
    int target;
    MPI_Aint disp;
    MPI_Count tcount;
    MPI_Datatype tdt;
    MPI_Op op;
    bool single; /* Fetch_and_op, Compare_and_swap: one predefined element */
} lc_win_args_t;

/* Bytes of one item of a type lc_check_rma_dtype accepted. */
static size_t lc_win_size(MPI_Datatype dt)
{
    size_t size = lc_dtype_size(dt); /* 0: derived (a predefined type of no data is refused before) */
    if (lc_likely(size)) return size;
    const lc_dt_t *t = lc_dt_get(dt);
    return t ? (size_t)t->size : 0;
}

/* Data bytes (MPI_Type_size) of one item of a type lc_check_rma_dtype
 * accepted: its packed size. */
static size_t lc_win_data(MPI_Datatype dt)
{
    size_t size = lc_dtype_type_size(dt); /* 0: derived */
    if (lc_likely(size)) return size;
    const lc_dt_t *t = lc_dt_get(dt);
    return t ? (size_t)t->size : 0;
}

/* The one predefined type a type is made of, or MPI_DATATYPE_NULL. */
static MPI_Datatype lc_win_basic(MPI_Datatype dt)
{
    if (lc_dtype_valid(dt)) return dt;
    const lc_dt_t *t = lc_dt_get(dt);
    return t ? t->basic : MPI_DATATYPE_NULL;
}

/* *pre_p: dt is predefined (one table lookup per side, as before derived
 * types: the predefined path stays as fast).  The target's size: tbytes
 * (extents) when it is predefined, as this side is, else tdata (type
 * sizes; see the head of the file). */
static int lc_win_check_side(const void *buf, MPI_Count count, MPI_Datatype dt, bool tpre, size_t tbytes, size_t tdata,
                             const char *what, bool *pre_p)
{
    int rc = lc_check_count(count);
    *pre_p = lc_dtype_valid(dt);
    if (!rc && !*pre_p) rc = lc_check_rma_dtype(dt);
    if (!rc) rc = lc_check_buf(buf, count, dt);
    if (rc) return rc;
    size_t have, want;
    if (lc_likely(tpre && *pre_p)) {
        have = (size_t)count * lc_dtype_size(dt);
        want = tbytes;
    } else {
        have = (size_t)count * lc_win_data(dt);
        want = tdata;
    }
    if (lc_likely(have == want)) return MPI_SUCCESS;
    return lc_error(MPI_ERR_TYPE, "the %s buffer holds %zu bytes but the target buffer %zu", what, have, want);
}

/* Put/Get: the type signatures must match (MPI 4.1 §12.3.1); checked as
 * far as one basic type per side tells. */
static int lc_win_check_match(MPI_Datatype a, MPI_Datatype b, const char *what)
{
    if (lc_likely(a == b)) return MPI_SUCCESS;
    MPI_Datatype x = lc_win_basic(a), y = lc_win_basic(b);
    if (x == y || x == MPI_DATATYPE_NULL || y == MPI_DATATYPE_NULL || x == MPI_BYTE || y == MPI_BYTE ||
        x == MPI_PACKED || y == MPI_PACKED)
        return MPI_SUCCESS;
    const lc_dtype_info_t *xi = lc_dtype_lookup(x), *yi = lc_dtype_lookup(y);
    return lc_error(MPI_ERR_TYPE, "the %s datatype is made of %s but the target datatype of %s: the type signatures differ",
                    what, xi ? xi->name : "?", yi ? yi->name : "?");
}

/* The operation with at least one derived type: one run on every side
 * (mapped onto lc_rma_op) or block by block. */
static int lc_win_typed(lc_win_t *w, const lc_win_args_t *a, bool sends, bool fetch, MPI_Datatype basic,
                        size_t tbytes, lc_request_t *req)
{
    lc_dt_t *tt = lc_dt_get(a->tdt), *ot = sends ? lc_dt_get(a->odt) : NULL, *rt = fetch ? lc_dt_get(a->rdt) : NULL;
    MPI_Datatype el = a->kind == LC_RMA_PUT || a->kind == LC_RMA_GET ? MPI_BYTE : basic;
    /* (One padded pair is one run of packed data, 12 of MPI_DOUBLE_INT's
     * 16 bytes: not an element of lc_rma_op, so it goes block-wise.) */
    if (lc_dt_is_contig(tt, a->tcount) && tt->true_lb == 0 && (!ot || lc_dt_is_contig(ot, a->ocount)) &&
        (!rt || lc_dt_is_contig(rt, a->rcount)) && !lc_dtype_padded(el))
        return lc_rma_op(w->rma, a->kind, a->target, a->disp, el, tbytes / lc_dtype_size(el), a->op,
                         ot ? (const char *)a->origin + ot->true_lb : a->origin, NULL,
                         rt ? (char *)a->result + rt->true_lb : a->result, req);
    return lc_rma_op_typed(w->rma, a->kind, a->target, a->disp, el, a->op, tt, a->tcount, ot, a->ocount, a->origin, rt,
                           a->rcount, a->result, req);
}

static int lc_win_do(const char *func, MPI_Win win, const lc_win_args_t *a, MPI_Request *request)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    if (request) LC_TRY(lc_check_ptr(request, "request"));
    if (a->target != MPI_PROC_NULL) LC_TRY(lc_check_rank(w->comm, a->target, false));
    LC_TRY(lc_check_count(a->tcount));
    bool tpre = lc_dtype_valid(a->tdt), opre = true, rpre = true;
    if (!tpre) LC_TRY(lc_check_rma_dtype(a->tdt));
    if (a->single && !tpre)
        LC_TRY(lc_error(MPI_ERR_TYPE, "%s takes one element of a predefined datatype, not the derived datatype %#x",
                        func, (unsigned)a->tdt));
    size_t tbytes = (size_t)a->tcount * lc_win_size(a->tdt); /* a derived type's is its data already */
    size_t tdata = tpre ? (size_t)a->tcount * lc_dtype_type_size(a->tdt) : tbytes;
    bool acc = a->kind == LC_RMA_ACC || a->kind == LC_RMA_GACC || a->kind == LC_RMA_CAS;
    bool uses_origin = a->kind != LC_RMA_GET && !(a->kind == LC_RMA_GACC && a->op == MPI_NO_OP);
    bool fetch = a->kind == LC_RMA_GET || a->kind == LC_RMA_GACC || a->kind == LC_RMA_CAS;
    /* else nothing is combined: a zero count, or a type of no data
     * (contiguous(0, MPI_INT) is made of no predefined type) */
    bool moves = a->target != MPI_PROC_NULL && tdata > 0;
    if (uses_origin) LC_TRY(lc_win_check_side(a->origin, a->ocount, a->odt, tpre, tbytes, tdata, "origin", &opre));
    if (fetch) LC_TRY(lc_win_check_side(a->result, a->rcount, a->rdt, tpre, tbytes, tdata, "result", &rpre));
    bool predefined = tpre && opre && rpre;
    MPI_Datatype basic = tpre ? a->tdt : lc_win_basic(a->tdt);
    if (acc && moves && predefined) {
        if ((uses_origin && a->odt != basic) || (a->kind != LC_RMA_ACC && a->rdt != basic))
            LC_TRY(lc_error(MPI_ERR_TYPE, "accumulate operations need the same basic datatype on the origin, "
                                          "result and target sides"));
    } else if (acc && moves) {
        /* Accumulates combine elements of one basic type (§12.3.4). */
        if (basic == MPI_DATATYPE_NULL)
            LC_TRY(lc_error(MPI_ERR_TYPE, "the target datatype of an accumulate must be made of one predefined "
                                          "datatype; %#x mixes several",
                            (unsigned)a->tdt));
        /* (A padded pair, MPI_DOUBLE_INT ..., is combined in its packed
         * form by the engine: lc_rma_apply_packed.) */
        if ((uses_origin && lc_win_basic(a->odt) != basic) || (a->kind != LC_RMA_ACC && lc_win_basic(a->rdt) != basic))
            LC_TRY(lc_error(MPI_ERR_TYPE, "accumulate operations need the same basic datatype on the origin, "
                                          "result and target sides"));
    } else if (!acc && moves) {
        LC_TRY(lc_win_check_match(uses_origin ? a->odt : a->rdt, a->tdt, uses_origin ? "origin" : "result"));
    }
    if (acc) {
        if (a->kind == LC_RMA_CAS) {
            LC_TRY(lc_check_ptr(a->compare, "compare_addr"));
        } else if (!lc_op_is_predefined(a->op)) {
            LC_TRY(lc_error(MPI_ERR_OP,
                            "one-sided accumulates take predefined operations only (MPI 4.1 "
                            "§12.3.4), not the user operation %#x",
                            (unsigned)a->op));
        } else if (a->op != MPI_REPLACE && a->op != MPI_NO_OP && moves) {
            /* (nothing combines in an empty operation: any predefined op
             * goes, as in MPICH, e.g. mpi4py's default MPI_SUM on MPI_BYTE) */
            LC_TRY(lc_check_op(a->op, basic));
        }
    }
    bool act = a->target != MPI_PROC_NULL && tbytes > 0;
    if (act && tpre) {
        LC_TRY(lc_rma_check_access(w->rma, a->target, a->disp, tbytes));
    } else if (act) {
        /* item k's data is [k * extent + true_lb, k * extent + true_ub) */
        const lc_dt_t *t = lc_dt_get(a->tdt);
        MPI_Aint span = (MPI_Aint)(a->tcount - 1) * lc_dt_extent(t);
        LC_TRY(lc_rma_check_span(w->rma, a->target, a->disp, t->true_lb + (span < 0 ? span : 0),
                                 t->true_ub + (span > 0 ? span : 0)));
    }
    lc_request_t *req = NULL;
    if (request) {
        /* Completed by the engine: at once on the direct and CMA paths,
         * with the target's answer on the active-message path. */
        req = act ? lc_request_alloc(LC_REQ_DONE) : lc_mpi_request_done();
        if (!req) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory allocating a request"));
        req->st_source = MPI_ANY_SOURCE;
        req->st_tag = MPI_ANY_TAG;
    }
    if (act) {
        if (lc_likely(predefined))
            rc = lc_rma_op(w->rma, a->kind, a->target, a->disp, a->tdt, (size_t)a->tcount, a->op, a->origin,
                           a->compare, a->result, req);
        else
            rc = lc_win_typed(w, a, uses_origin, fetch, basic, tdata, req);
        if (rc != MPI_SUCCESS) {
            if (req) lc_request_release(req);
            goto err;
        }
    }
    if (request) *request = lc_request_handle(req);
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, func, rc);
}

/* The fast paths' window and element size: count > 0 elements of one
 * predefined type dt on both sides, a valid window and target rank; else
 * NULL, and the general path checks everything and says what was wrong. */
static inline lc_win_t *lc_win_fast(MPI_Win win, int target, int count, MPI_Datatype dt, int tcount,
                                    MPI_Datatype tdt, size_t *esz)
{
    if (dt != tdt || count != tcount || count <= 0) return NULL;
    lc_win_t *w = lc_win_find(win);
    if (!w || target < 0 || target >= w->comm->size) return NULL;
    const lc_dtype_info_t *info = lc_dtype_lookup(dt);
    if (!info || info->cls == LC_DT_MARKER || !info->size) return NULL;
    *esz = info->size;
    return w;
}

/* Put and Get: the engine's direct copy when it applies. */
static inline bool lc_win_fast_copy(bool put, void *buf, int count, MPI_Datatype dt, int target, MPI_Aint disp,
                                    int tcount, MPI_Datatype tdt, MPI_Win win)
{
    size_t esz;
    lc_win_t *w = buf ? lc_win_fast(win, target, count, dt, tcount, tdt, &esz) : NULL;
    return w && lc_rma_direct_copy(w->rma, put, target, disp, buf, (size_t)count * esz);
}

/* Accumulate, Fetch_and_op with a reduction (MPI_SUM ...) and
 * Compare_and_swap: the engine's direct atomic when it applies
 * (MPI_REPLACE, MPI_NO_OP and every error take the general path). */
static inline bool lc_win_fast_atomic(lc_rma_kind_t kind, const void *origin, const void *compare, void *result,
                                      int count, MPI_Datatype dt, int target, MPI_Aint disp, int tcount,
                                      MPI_Datatype tdt, MPI_Op op, MPI_Win win)
{
    if (!origin || (kind != LC_RMA_ACC && !result) || (kind == LC_RMA_CAS ? !compare : !lc_op_kernel(op, dt)))
        return false;
    size_t esz;
    lc_win_t *w = lc_win_fast(win, target, count, dt, tcount, tdt, &esz);
    return w && lc_rma_direct_atomic(w->rma, kind, target, disp, dt, esz, (size_t)count, op, origin, compare, result);
}

/* One body for the int and MPI_Count (_c) forms of Put, Get, Accumulate
 * and their request forms (request NULL: the blocking ones).  buf is the
 * origin buffer: the data sent (Put, Accumulate) or the one written
 * (Get).  func is the caller's name, for its error messages. */
static int lc_win_xfer(const char *func, lc_rma_kind_t kind, const void *buf, MPI_Count count, MPI_Datatype dt,
                       int target, MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win,
                       MPI_Request *request)
{
    lc_win_args_t a = { .kind = kind, .target = target, .disp = disp, .tcount = tcount, .tdt = tdt, .op = op };
    if (kind == LC_RMA_GET) {
        a.result = (void *)(uintptr_t)buf;
        a.rcount = count;
        a.rdt = dt;
    } else {
        a.origin = buf;
        a.ocount = count;
        a.odt = dt;
    }
    return lc_win_do(func, win, &a, request);
}

/* One body for the int and _c forms of Get_accumulate and Rget_accumulate. */
static int lc_win_gacc(const char *func, const void *origin, MPI_Count ocount, MPI_Datatype odt, void *result,
                       MPI_Count rcount, MPI_Datatype rdt, int target, MPI_Aint disp, MPI_Count tcount,
                       MPI_Datatype tdt, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    lc_win_args_t a = { .kind = LC_RMA_GACC,
                        .origin = origin,
                        .ocount = ocount,
                        .odt = odt,
                        .result = result,
                        .rcount = rcount,
                        .rdt = rdt,
                        .target = target,
                        .disp = disp,
                        .tcount = tcount,
                        .tdt = tdt,
                        .op = op };
    return lc_win_do(func, win, &a, request);
}

LC_API int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    if (lc_win_fast_copy(true, (void *)(uintptr_t)origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                         target_count, target_datatype, win))
        return MPI_SUCCESS;
    return lc_win_xfer("MPI_Put", LC_RMA_PUT, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, MPI_REPLACE, win, NULL);
}
LC_MPI_ALIAS(Put);

LC_API int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return lc_win_xfer("MPI_Put_c", LC_RMA_PUT, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, MPI_REPLACE, win, NULL);
}
LC_MPI_ALIAS(Put_c);

LC_API int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    if (lc_win_fast_copy(false, origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                         target_datatype, win))
        return MPI_SUCCESS;
    return lc_win_xfer("MPI_Get", LC_RMA_GET, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, MPI_REPLACE, win, NULL);
}
LC_MPI_ALIAS(Get);

LC_API int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return lc_win_xfer("MPI_Get_c", LC_RMA_GET, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, MPI_REPLACE, win, NULL);
}
LC_MPI_ALIAS(Get_c);

LC_API int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                     MPI_Request *request)
{
    return lc_win_xfer("MPI_Rput", LC_RMA_PUT, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, MPI_REPLACE, win, request);
}
LC_MPI_ALIAS(Rput);

LC_API int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                       MPI_Request *request)
{
    return lc_win_xfer("MPI_Rput_c", LC_RMA_PUT, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, MPI_REPLACE, win, request);
}
LC_MPI_ALIAS(Rput_c);

LC_API int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                     MPI_Request *request)
{
    return lc_win_xfer("MPI_Rget", LC_RMA_GET, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, MPI_REPLACE, win, request);
}
LC_MPI_ALIAS(Rget);

LC_API int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                       MPI_Request *request)
{
    return lc_win_xfer("MPI_Rget_c", LC_RMA_GET, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, MPI_REPLACE, win, request);
}
LC_MPI_ALIAS(Rget_c);

LC_API int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                           MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    if (lc_win_fast_atomic(LC_RMA_ACC, origin_addr, NULL, NULL, origin_count, origin_datatype, target_rank, target_disp,
                           target_count, target_datatype, op, win))
        return MPI_SUCCESS;
    return lc_win_xfer("MPI_Accumulate", LC_RMA_ACC, origin_addr, origin_count, origin_datatype, target_rank,
                       target_disp, target_count, target_datatype, op, win, NULL);
}
LC_MPI_ALIAS(Accumulate);

LC_API int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return lc_win_xfer("MPI_Accumulate_c", LC_RMA_ACC, origin_addr, origin_count, origin_datatype, target_rank,
                       target_disp, target_count, target_datatype, op, win, NULL);
}
LC_MPI_ALIAS(Accumulate_c);

LC_API int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                            MPI_Win win, MPI_Request *request)
{
    return lc_win_xfer("MPI_Raccumulate", LC_RMA_ACC, origin_addr, origin_count, origin_datatype, target_rank,
                       target_disp, target_count, target_datatype, op, win, request);
}
LC_MPI_ALIAS(Raccumulate);

LC_API int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                              MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    return lc_win_xfer("MPI_Raccumulate_c", LC_RMA_ACC, origin_addr, origin_count, origin_datatype, target_rank,
                       target_disp, target_count, target_datatype, op, win, request);
}
LC_MPI_ALIAS(Raccumulate_c);

LC_API int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                               void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                               MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                               MPI_Win win)
{
    return lc_win_gacc("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                       result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, NULL);
}
LC_MPI_ALIAS(Get_accumulate);

LC_API int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                                 void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
                                 int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return lc_win_gacc("MPI_Get_accumulate_c", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                       result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, NULL);
}
LC_MPI_ALIAS(Get_accumulate_c);

LC_API int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                                MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                                MPI_Win win, MPI_Request *request)
{
    return lc_win_gacc("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                       result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, request);
}
LC_MPI_ALIAS(Rget_accumulate);

LC_API int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                                  void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
                                  int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    return lc_win_gacc("MPI_Rget_accumulate_c", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                       result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, request);
}
LC_MPI_ALIAS(Rget_accumulate_c);

LC_API int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
                             MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    if (lc_win_fast_atomic(LC_RMA_GACC, origin_addr, NULL, result_addr, 1, datatype, target_rank, target_disp, 1,
                           datatype, op, win))
        return MPI_SUCCESS;
    lc_win_args_t a = { .kind = LC_RMA_GACC,
                        .origin = origin_addr,
                        .ocount = 1,
                        .odt = datatype,
                        .result = result_addr,
                        .rcount = 1,
                        .rdt = datatype,
                        .target = target_rank,
                        .disp = target_disp,
                        .tcount = 1,
                        .tdt = datatype,
                        .op = op,
                        .single = true };
    return lc_win_do("MPI_Fetch_and_op", win, &a, NULL);
}
LC_MPI_ALIAS(Fetch_and_op);

LC_API int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                                 MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    if (lc_win_fast_atomic(LC_RMA_CAS, origin_addr, compare_addr, result_addr, 1, datatype, target_rank, target_disp,
                           1, datatype, MPI_REPLACE, win))
        return MPI_SUCCESS;
    lc_win_args_t a = { .kind = LC_RMA_CAS,
                        .origin = origin_addr,
                        .ocount = 1,
                        .odt = datatype,
                        .result = result_addr,
                        .rcount = 1,
                        .rdt = datatype,
                        .compare = compare_addr,
                        .target = target_rank,
                        .disp = target_disp,
                        .tcount = 1,
                        .tdt = datatype,
                        .op = MPI_REPLACE,
                        .single = true };
    return lc_win_do("MPI_Compare_and_swap", win, &a, NULL);
}
LC_MPI_ALIAS(Compare_and_swap);
