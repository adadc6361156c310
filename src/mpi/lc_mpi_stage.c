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

/* A nonblocking or persistent collective being captured into a schedule
 * (lc_coll_capture) runs after the MPI call returns, so nothing staged
 * here — packed copies, the unpack at the end, owned count arrays — would
 * be there when its steps move data.  Until schedules carry pack and
 * unpack steps, those collectives take predefined datatypes only. */
int lc_stage_refuse_captured(MPI_Datatype dt)
{
    return lc_error(MPI_ERR_TYPE,
                    "datatype %#x is a derived datatype: nonblocking and persistent collectives take predefined "
                    "datatypes only for now (the blocking collective takes it, or pack it and pass MPI_PACKED)",
                    (unsigned)dt);
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
    if (!significant || buf == MPI_IN_PLACE || lc_likely(lc_dtype_valid(dt))) return MPI_SUCCESS;
    if (lc_unlikely(lc_coll_capture != NULL)) return lc_stage_refuse_captured(dt);
    lc_dt_t *t = lc_dt_get(dt);
    if (!t) return lc_error(MPI_ERR_TYPE, "datatype %#x is not valid", (unsigned)dt);
    s->per = (size_t)t->size;
    *dt_p = MPI_BYTE;
    if (lc_dt_is_contig(t, count)) { /* already its packed form */
        *buf_p = lc_stage_at(buf, t->true_lb);
        return MPI_SUCCESS;
    }
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
    if (!significant || buf == MPI_IN_PLACE || lc_likely(lc_dtype_valid(dt))) return MPI_SUCCESS;
    if (lc_unlikely(lc_coll_capture != NULL)) return lc_stage_refuse_captured(dt);
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
    int rc = lc_stage_alloc((size_t)(hi - lo) * size, &s->packed);
    if (rc) {
        lc_stage_free(s);
        return rc;
    }
    MPI_Aint ext = lc_dt_extent(t);
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

void lc_stage_finish(lc_stage_t *s)
{
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
}

void lc_stage_free(lc_stage_t *s)
{
    free(s->packed);
    free(s->vcount);
    free(s->vdispl);
    if (s->t) lc_dt_release(s->t);
    memset(s, 0, sizeof(*s));
    s->per = 1;
}
