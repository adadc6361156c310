/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_blocks_stage.c — derived datatypes in MPI_Alltoallw and the
 * neighbourhood collectives, blocking or captured by a schedule
 * (lc_mpi_blocks.h).  Each block may have its own type, so each staged
 * block is packed and unpacked on its own, into its slice of one packed
 * buffer; blocks of predefined types keep their place in the user's
 * buffer, which is why offsets become addresses once anything is staged.
 */
#include "mpi/lc_mpi_blocks.h"
#include "datatype/lc_dt.h"
#include "mpi/lc_mpi_stage.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* buf may be MPI_BOTTOM (absolute displacements) */
static void *lc_bstage_at(const void *buf, ptrdiff_t off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

struct lc_bstage_blk {
    lc_dt_t *t;
    MPI_Count count;
    void *user;
    char *at;
};

static MPI_Count lc_blocks_count(const lc_blocks_t *b, int i)
{
    return b->icounts ? b->icounts[i] : b->wcounts ? b->wcounts[i] : b->count;
}

static MPI_Datatype lc_blocks_type(const lc_blocks_t *b, int i)
{
    return b->types ? b->types[i] : b->type;
}

bool lc_blocks_derived(const lc_blocks_t *b, int n)
{
    for (int i = 0; i < n; i++)
        if (lc_blocks_count(b, i) > 0 && !lc_mpi_coll_plain(lc_blocks_type(b, i))) return true;
    return false;
}

int lc_blocks_stage(lc_blocks_stage_t *st, const lc_blocks_t *b, int n, const int *peers, int dir, bool all,
                    size_t *bytes, ptrdiff_t *off, const void **base_p)
{
    memset(st, 0, sizeof(*st));
    st->dir = dir;
    *base_p = b->buf;
    if (!all && !lc_blocks_derived(b, n)) return MPI_SUCCESS;
    /* Which blocks go through the packed buffer, and where. */
    size_t total = 0;
    int nstaged = 0, rc = MPI_SUCCESS;
    ptrdiff_t *poff = malloc(sizeof(*poff) * (size_t)(n ? n : 1));
    if (!poff) return lc_error(MPI_ERR_NO_MEM, "out of memory staging %d blocks", n);
    for (int i = 0; i < n; i++) {
        poff[i] = -1;
        MPI_Count count = lc_blocks_count(b, i);
        lc_dt_t *t = lc_dt_get(lc_blocks_type(b, i));
        if (count == 0 || (peers && peers[i] == MPI_PROC_NULL) || !t) continue;
        if (!all && lc_mpi_coll_plain(lc_blocks_type(b, i))) continue;
        if (!all && lc_dt_is_contig(t, count)) { /* already its packed form */
            off[i] += (ptrdiff_t)t->true_lb;
            continue;
        }
        poff[i] = (ptrdiff_t)total;
        total += bytes[i];
        nstaged++;
    }
    lc_sched_t *sc = lc_coll_capture;
    if (nstaged) {
        if (sc) {
            st->packed = NULL;
            char *p = lc_sched_alloc(sc, total, &rc);
            st->steps = malloc(sizeof(*st->steps) * (size_t)nstaged);
            if (!p || !st->steps) {
                if (p) rc = lc_error(MPI_ERR_NO_MEM, "out of memory staging %d blocks", nstaged);
                goto out;
            }
            st->sched = sc;
            for (int i = 0; i < n; i++) {
                if (poff[i] < 0) continue;
                lc_stage_step_t *step;
                void *user = lc_bstage_at(b->buf, off[i]);
                rc = lc_stage_step_new(sc, lc_dt_get(lc_blocks_type(b, i)), user, 1, 0, p + poff[i], &step);
                if (rc) goto out;
                step->cnt[0] = lc_blocks_count(b, i);
                step->uoff[0] = step->poff[0] = 0;
                st->steps[st->n++] = step;
                if ((dir & LC_STAGE_IN) && (rc = lc_stage_step_pack_at_start(sc, step))) goto out;
                poff[i] = (ptrdiff_t)(uintptr_t)(p + poff[i]);
            }
        } else {
            st->packed = malloc(total ? total : 1);
            st->blk = malloc(sizeof(*st->blk) * (size_t)nstaged);
            if (!st->packed || !st->blk) {
                rc = lc_error(MPI_ERR_NO_MEM, "out of memory for %zu bytes to pack %d blocks into", total, nstaged);
                goto out;
            }
            for (int i = 0; i < n; i++) {
                if (poff[i] < 0) continue;
                struct lc_bstage_blk *k = &st->blk[st->n++];
                k->t = lc_dt_get(lc_blocks_type(b, i));
                k->count = lc_blocks_count(b, i);
                k->user = lc_bstage_at(b->buf, off[i]);
                k->at = st->packed + poff[i];
                if ((dir & LC_STAGE_IN) && (rc = lc_dt_pack(k->t, k->count, k->user, 0, k->at, bytes[i]))) goto out;
                poff[i] = (ptrdiff_t)(uintptr_t)k->at;
            }
        }
    }
    /* Addresses from here: staged blocks in the packed buffer, the others
     * where the user has them. */
    for (int i = 0; i < n; i++) off[i] = poff[i] >= 0 ? poff[i] : (ptrdiff_t)(uintptr_t)lc_bstage_at(b->buf, off[i]);
    *base_p = MPI_BOTTOM;
out:
    free(poff);
    if (rc) lc_blocks_stage_free(st);
    return rc;
}

int lc_blocks_stage_finish(lc_blocks_stage_t *st)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < st->n && rc == MPI_SUCCESS && (st->dir & LC_STAGE_OUT); i++) {
        if (st->steps) {
            rc = lc_stage_step_unpack_at_end(st->sched, st->steps[i]);
        } else {
            struct lc_bstage_blk *k = &st->blk[i];
            rc = lc_dt_unpack(k->t, k->count, k->user, 0, k->at, (size_t)k->count * (size_t)k->t->size);
        }
    }
    lc_blocks_stage_free(st);
    return rc;
}

void lc_blocks_stage_free(lc_blocks_stage_t *st)
{
    free(st->packed);
    free(st->blk);
    free(st->steps);
    memset(st, 0, sizeof(*st));
}
