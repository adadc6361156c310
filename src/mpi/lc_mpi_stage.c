/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_stage.c — staging derived-datatype buffers of collectives as
 * contiguous packed bytes (lc_mpi_stage.h says how it is used).
 *
 * Layout of a staged vector: block i (count_i items at item displacement
 * d_i in the user's buffer) sits at byte (d_i - min d) * size of the
 * packed buffer.  Blocks that do not overlap in items do not overlap
 * there either (size <= extent keeps their order), so receive blocks stay
 * apart and the coll layer sees an ordinary byte vector.
 */
#include "mpi/lc_mpi_stage.h"
#include "coll/lc_sched.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *lc_stage_at(const void *buf, MPI_Aint off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off); /* buf may be MPI_BOTTOM */
}

/* ---- staging as steps of a schedule (nonblocking, persistent) ------------- */

static void lc_stage_step_drop(void *arg)
{
    lc_stage_step_t *st = arg;
    if (st->t) lc_dt_release(st->t);
    st->t = NULL;
}

int lc_stage_step_new(lc_sched_t *sc, lc_dt_t *t, const void *user, int n, size_t packed_bytes, void *packed,
                      lc_stage_step_t **st_p)
{
    int rc;
    size_t arrays = (size_t)n * (sizeof(MPI_Count) + 2 * sizeof(MPI_Aint));
    lc_stage_step_t *st = lc_sched_alloc(sc, sizeof(*st) + arrays, &rc);
    if (!st) return rc;
    memset(st, 0, sizeof(*st));
    st->cnt = (MPI_Count *)(st + 1);
    st->uoff = (MPI_Aint *)(st->cnt + n);
    st->poff = st->uoff + n;
    st->packed = packed;
    if (!packed && !(st->packed = lc_sched_alloc(sc, packed_bytes, &rc))) return rc;
    /* The hook first: once it is there, the retained type is always released. */
    if ((rc = lc_sched_on_free(sc, lc_stage_step_drop, st)) != MPI_SUCCESS) return rc;
    if (t) lc_dt_retain(t);
    st->t = t;
    st->user = (void *)user;
    st->n = n;
    *st_p = st;
    return MPI_SUCCESS;
}

/* Call steps (lc_sched_call_fn): return MPI codes. */
static int lc_stage_step_pack(void *arg)
{
    lc_stage_step_t *st = arg;
    int rc = MPI_SUCCESS;
    size_t size = st->t ? (size_t)st->t->size : 0;
    for (int i = 0; i < st->n && rc == MPI_SUCCESS; i++)
        if (st->cnt[i])
            rc = lc_dt_pack(st->t, st->cnt[i], lc_stage_at(st->user, st->uoff[i]), 0, st->packed + st->poff[i],
                            (size_t)st->cnt[i] * size);
    if (rc == MPI_SUCCESS && st->b)
        rc = lc_dt_unpack(st->b, (MPI_Count)st->nb, st->arr, 0, st->packed, st->nb * (size_t)st->b->size);
    return rc;
}

static int lc_stage_step_unpack(void *arg)
{
    lc_stage_step_t *st = arg;
    int rc = MPI_SUCCESS;
    if (st->b) rc = lc_dt_pack(st->b, (MPI_Count)st->nb, st->arr, 0, st->packed, st->nb * (size_t)st->b->size);
    size_t size = st->t ? (size_t)st->t->size : 0;
    for (int i = 0; i < st->n && rc == MPI_SUCCESS; i++)
        if (st->cnt[i])
            rc = lc_dt_unpack(st->t, st->cnt[i], lc_stage_at(st->user, st->uoff[i]), 0, st->packed + st->poff[i],
                              (size_t)st->cnt[i] * size);
    return rc;
}

/* The pack step is added while the schedule has only the steps of
 * earlier stages of the same call: it runs in the first round, before the
 * collective's first send (steps of a round start in order). */
int lc_stage_step_pack_at_start(lc_sched_t *sc, lc_stage_step_t *st)
{
    return lc_sched_call(sc, lc_stage_step_pack, st);
}

/* The fence makes every receive of the collective complete first. */
int lc_stage_step_unpack_at_end(lc_sched_t *sc, lc_stage_step_t *st)
{
    int rc = lc_sched_fence(sc);
    return rc != MPI_SUCCESS ? rc : lc_sched_call(sc, lc_stage_step_unpack, st);
}

/* Stage count items of t at buf into a buffer of the capturing schedule. */
static int lc_stage_buf_sched(lc_stage_t *s, lc_dt_t *t, const void *buf, MPI_Count count, int dir, void **buf_p)
{
    lc_sched_t *sc = lc_coll_capture;
    size_t bytes = (size_t)count * (size_t)t->size;
    lc_stage_step_t *st;
    int rc = lc_stage_step_new(sc, t, buf, 1, bytes, NULL, &st);
    if (rc != MPI_SUCCESS) return rc;
    st->cnt[0] = count;
    st->uoff[0] = st->poff[0] = 0;
    if ((dir & LC_STAGE_IN) && (rc = lc_stage_step_pack_at_start(sc, st)) != MPI_SUCCESS) return rc;
    s->sched = sc;
    s->step = st;
    s->dir = dir;
    s->count = count;
    *buf_p = st->packed;
    return MPI_SUCCESS;
}

static int lc_stage_alloc(size_t bytes, void **p)
{
    if (!(*p = malloc(bytes ? bytes : 1)))
        return lc_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte buffer to pack a derived datatype into", bytes);
    return MPI_SUCCESS;
}

int lc_stage_buf(lc_stage_t *s, const void *buf, MPI_Count count, MPI_Datatype dt, int dir, bool significant,
                 void **buf_p, MPI_Datatype *dt_p)
{
    memset(s, 0, sizeof(*s));
    s->per = 1;
    *buf_p = (void *)buf;
    *dt_p = dt;
    if (!significant || buf == MPI_IN_PLACE || lc_mpi_coll_plain(dt)) return MPI_SUCCESS;
    lc_dt_t *t = lc_dt_get(dt);
    if (!t) return lc_error(MPI_ERR_TYPE, "datatype %#x is not valid", (unsigned)dt);
    s->per = (size_t)t->size;
    *dt_p = MPI_BYTE;
    if (lc_dt_is_contig(t, count)) { /* already its packed form */
        *buf_p = lc_stage_at(buf, t->true_lb);
        return MPI_SUCCESS;
    }
    if (lc_unlikely(lc_coll_capture != NULL)) return lc_stage_buf_sched(s, t, buf, count, dir, buf_p);
    size_t bytes = (size_t)count * (size_t)t->size;
    int rc = lc_stage_alloc(bytes, &s->packed);
    if (rc) return rc;
    if (dir & LC_STAGE_IN) {
        rc = lc_dt_pack(t, count, buf, 0, s->packed, bytes);
        if (rc) {
            lc_stage_free(s);
            return rc;
        }
    }
    lc_dt_retain(t);
    s->t = t;
    s->user = (void *)buf;
    s->count = count;
    s->dir = dir;
    *buf_p = s->packed;
    return MPI_SUCCESS;
}

int lc_stage_vec(lc_stage_t *s, const void *buf, const lc_vec_t *v, int n, MPI_Datatype dt, int dir, bool significant,
                 void **buf_p, lc_vec_t *v_p, MPI_Datatype *dt_p)
{
    memset(s, 0, sizeof(*s));
    s->per = 1;
    *buf_p = (void *)buf;
    *v_p = *v;
    *dt_p = dt;
    if (!significant || buf == MPI_IN_PLACE || lc_mpi_coll_plain(dt)) return MPI_SUCCESS;
    lc_dt_t *t = lc_dt_get(dt);
    if (!t) return lc_error(MPI_ERR_TYPE, "datatype %#x is not valid", (unsigned)dt);
    size_t size = (size_t)t->size;
    s->vcount = malloc(2 * (size_t)n * sizeof(MPI_Count) + 1);
    s->vdispl = malloc(2 * (size_t)n * sizeof(MPI_Aint) + 1);
    if (!s->vcount || !s->vdispl) {
        lc_stage_free(s);
        return lc_error(MPI_ERR_NO_MEM, "out of memory for the counts of %d staged blocks", n);
    }
    MPI_Aint lo = 0, hi = 0, next = 0;
    for (int i = 0; i < n; i++) {
        MPI_Count c = (MPI_Count)lc_vec_count(v, i);
        MPI_Aint d = v->displs ? (MPI_Aint)lc_vec_offset(v, i, 1) : next; /* NULL: blocks in rank order */
        next = d + (MPI_Aint)c;
        s->vcount[i] = c;
        s->vdispl[i] = d;
        if (c == 0) continue;
        if (i == 0 || d < lo) lo = d;
        if (i == 0 || d + (MPI_Aint)c > hi) hi = d + (MPI_Aint)c;
    }
    if (hi < lo) hi = lo;
    for (int i = 0; i < n; i++) {
        s->vcount[n + i] = s->vcount[i] * (MPI_Count)size;
        s->vdispl[n + i] = s->vcount[i] ? (s->vdispl[i] - lo) * (MPI_Aint)size : 0;
    }
    MPI_Aint ext = lc_dt_extent(t);
    int rc;
    if (lc_unlikely(lc_coll_capture != NULL)) {
        lc_sched_t *sc = lc_coll_capture;
        lc_stage_step_t *st;
        rc = lc_stage_step_new(sc, t, buf, n, (size_t)(hi - lo) * size, NULL, &st);
        for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
            st->cnt[i] = s->vcount[i];
            st->uoff[i] = s->vdispl[i] * ext;
            st->poff[i] = s->vdispl[n + i];
        }
        if (rc == MPI_SUCCESS && (dir & LC_STAGE_IN)) rc = lc_stage_step_pack_at_start(sc, st);
        if (rc) {
            lc_stage_free(s);
            return rc;
        }
        s->sched = sc;
        s->step = st;
        s->dir = dir;
        s->per = size;
        *buf_p = st->packed;
        *v_p = lc_vec_wide(s->vcount + n, s->vdispl + n);
        *dt_p = MPI_BYTE;
        return MPI_SUCCESS;
    }
    rc = lc_stage_alloc((size_t)(hi - lo) * size, &s->packed);
    if (rc) {
        lc_stage_free(s);
        return rc;
    }
    for (int i = 0; (dir & LC_STAGE_IN) && i < n; i++) {
        if (!s->vcount[i]) continue;
        rc = lc_dt_pack(t, s->vcount[i], lc_stage_at(buf, s->vdispl[i] * ext), 0, (char *)s->packed + s->vdispl[n + i],
                        (size_t)s->vcount[n + i]);
        if (rc) {
            lc_stage_free(s);
            return rc;
        }
    }
    lc_dt_retain(t);
    s->t = t;
    s->user = (void *)buf;
    s->nblocks = n;
    s->dir = dir;
    s->per = size;
    *buf_p = s->packed;
    *v_p = lc_vec_wide(s->vcount + n, s->vdispl + n);
    *dt_p = MPI_BYTE;
    return MPI_SUCCESS;
}

int lc_stage_finish(lc_stage_t *s)
{
    int rc = MPI_SUCCESS;
    if (s->step && (s->dir & LC_STAGE_OUT)) rc = lc_stage_step_unpack_at_end(s->sched, s->step);
    if (s->t && (s->dir & LC_STAGE_OUT)) {
        if (!s->nblocks) {
            lc_dt_unpack(s->t, s->count, s->user, 0, s->packed, (size_t)s->count * (size_t)s->t->size);
        } else {
            MPI_Aint ext = lc_dt_extent(s->t);
            int n = s->nblocks;
            for (int i = 0; i < n; i++)
                if (s->vcount[i])
                    lc_dt_unpack(s->t, s->vcount[i], lc_stage_at(s->user, s->vdispl[i] * ext), 0,
                                 (char *)s->packed + s->vdispl[n + i], (size_t)s->vcount[n + i]);
        }
    }
    lc_stage_free(s);
    return rc;
}

/* A captured stage's packed buffer and step belong to the schedule. */
void lc_stage_free(lc_stage_t *s)
{
    free(s->packed);
    free(s->vcount);
    free(s->vdispl);
    if (s->t) lc_dt_release(s->t);
    memset(s, 0, sizeof(*s));
    s->per = 1;
}
