/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_commit.c — MPI_Type_commit: the loop program of a datatype.
 *
 * The program is a small tree of lc_dt_loop_t nodes (lc_dt.h) built from
 * the layout, bottom-up, and simplified as it goes:
 *   - a dense type (one run of data) is one leaf block, whatever built
 *     it: a contiguous of contiguous, a vector whose stride is its block,
 *     an indexed type whose blocks touch;
 *   - n copies of a node at a stride become one vector node, merged into
 *     the child's vector when the stride continues it (a subarray face of
 *     a 3-D array is a single strided leaf);
 *   - a block list whose blocks are plain byte runs becomes one leaf list
 *     with touching runs merged, or a leaf vector when the runs are
 *     regular;
 *   - blocks without data are dropped.
 * Nodes are immutable and shared: a parent points at its children's
 * programs (children outlive parents, which hold references to them).
 * Each type frees the nodes it allocated (loop_mem) when it is destroyed.
 */
#include "datatype/lc_dt_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct lc_dt_mem {
    struct lc_dt_mem *next;
    max_align_t data[];
} lc_dt_mem_t;

static void *lc_dt_mem_alloc(lc_dt_t *owner, size_t n)
{
    lc_dt_mem_t *m = malloc(sizeof(*m) + n);
    if (!m) return NULL;
    m->next = owner->loop_mem;
    owner->loop_mem = m;
    return m->data;
}

void lc_dt_loop_mem_free(void *mem)
{
    for (lc_dt_mem_t *m = mem, *next; m; m = next) {
        next = m->next;
        free(m);
    }
}

static lc_dt_loop_t *lc_dt_node_keep(lc_dt_t *owner, const lc_dt_loop_t *tmp)
{
    lc_dt_loop_t *n = lc_dt_mem_alloc(owner, sizeof(*n));
    if (n) *n = *tmp;
    return n;
}

void lc_dt_loop_repeat(lc_dt_loop_t *out, const lc_dt_loop_t *c, MPI_Count n, MPI_Aint stride, MPI_Aint displ)
{
    *out = *c;
    out->offset = c->offset + displ;
    if (n == 1) return;
    out->size = n * c->size;
    if (c->kind == LC_DT_LOOP_LEAF_VEC && c->count == 1) {
        if (stride == c->blen) {
            out->blen = n * c->blen; /* the copies touch: one longer run */
        } else {
            out->count = n;
            out->stride = stride;
        }
        return;
    }
    if ((c->kind == LC_DT_LOOP_LEAF_VEC || c->kind == LC_DT_LOOP_NEST_VEC) && stride == c->count * c->stride) {
        out->count = n * c->count; /* the copies continue the child's own vector */
        return;
    }
    memset(out, 0, sizeof(*out));
    out->kind = LC_DT_LOOP_NEST_VEC;
    out->depth = (uint8_t)(c->depth + 1);
    out->offset = displ;
    out->size = n * c->size;
    out->count = n;
    out->stride = stride;
    out->child = c;
}

/* n copies of c, as a kept node (c itself when nothing changes). */
static const lc_dt_loop_t *lc_dt_loop_rep(lc_dt_t *owner, const lc_dt_loop_t *c, MPI_Count n, MPI_Aint stride,
                                          MPI_Aint displ)
{
    if (n == 1 && displ == 0) return c;
    lc_dt_loop_t tmp;
    lc_dt_loop_repeat(&tmp, c, n, stride, displ);
    return lc_dt_node_keep(owner, &tmp);
}

static const lc_dt_loop_t *lc_dt_loop_vector(lc_dt_t *t, int *rc_p)
{
    const lc_dt_loop_t *c = lc_dt_loop_of(t->child, rc_p);
    if (!c) return NULL;
    const lc_dt_loop_t *blk = lc_dt_loop_rep(t, c, t->blocklen, lc_dt_extent(t->child), 0);
    return blk ? lc_dt_loop_rep(t, blk, t->count, t->stride, 0) : NULL;
}

/* A block list whose every block is a run of bytes: one leaf. */
static const lc_dt_loop_t *lc_dt_loop_runs(lc_dt_t *t, const lc_dt_entry_t *e, MPI_Count n)
{
    MPI_Aint *displs = lc_dt_mem_alloc(t, (size_t)n * 2 * sizeof(MPI_Aint));
    MPI_Count *prefix = lc_dt_mem_alloc(t, (size_t)n * sizeof(MPI_Count));
    if (!displs || !prefix) return NULL;
    MPI_Aint *blens = displs + n;
    MPI_Count runs = 0;
    for (MPI_Count i = 0; i < n; i++) {
        MPI_Aint start = e[i].displ + e[i].child->offset, len = e[i].reps * e[i].child->blen;
        if (runs > 0 && displs[runs - 1] + blens[runs - 1] == start) {
            blens[runs - 1] += len; /* touching: merge */
            continue;
        }
        displs[runs] = start;
        blens[runs++] = len;
    }
    bool same_len = true, same_step = true;
    for (MPI_Count i = 1; i < runs; i++) {
        same_len = same_len && blens[i] == blens[0];
        same_step = same_step && displs[i] - displs[i - 1] == displs[1] - displs[0];
    }
    lc_dt_loop_t node = { .kind = LC_DT_LOOP_LEAF_VEC, .depth = 1, .size = t->size, .count = runs };
    if (same_len && same_step) {
        node.offset = displs[0];
        node.blen = blens[0];
        node.stride = runs > 1 ? displs[1] - displs[0] : 0;
        return lc_dt_node_keep(t, &node);
    }
    node.kind = LC_DT_LOOP_LEAF_LIST;
    node.blen = blens[0];
    node.blens = same_len ? NULL : blens;
    node.displs = displs;
    node.prefix = prefix;
    MPI_Count sum = 0;
    for (MPI_Count i = 0; i < runs; i++) {
        prefix[i] = sum;
        sum += blens[i];
    }
    return lc_dt_node_keep(t, &node);
}

static bool lc_dt_entry_is_run(const lc_dt_entry_t *e)
{
    const lc_dt_loop_t *c = e->child;
    return c->kind == LC_DT_LOOP_LEAF_VEC && c->count == 1 && (e->reps == 1 || e->stride == c->blen);
}

/* Entries all alike and evenly spaced: a vector of one entry's block. */
static bool lc_dt_entries_regular(const lc_dt_entry_t *e, MPI_Count n)
{
    for (MPI_Count i = 1; i < n; i++)
        if (e[i].child != e[0].child || e[i].reps != e[0].reps || e[i].stride != e[0].stride ||
            e[i].displ - e[i - 1].displ != e[1].displ - e[0].displ)
            return false;
    return true;
}

static const lc_dt_loop_t *lc_dt_loop_list(lc_dt_t *t, lc_dt_entry_t *e, MPI_Count n)
{
    MPI_Count *prefix = lc_dt_mem_alloc(t, (size_t)n * sizeof(MPI_Count));
    if (!prefix) return NULL;
    lc_dt_loop_t node = { .kind = LC_DT_LOOP_NEST_LIST, .size = t->size, .count = n, .entries = e,
                          .prefix = prefix };
    MPI_Count sum = 0;
    for (MPI_Count i = 0; i < n; i++) {
        prefix[i] = sum;
        sum += e[i].reps * e[i].child->size;
        if (e[i].child->depth + 1 > node.depth) node.depth = (uint8_t)(e[i].child->depth + 1);
    }
    return lc_dt_node_keep(t, &node);
}

static const lc_dt_loop_t *lc_dt_loop_blocks(lc_dt_t *t, int *rc_p)
{
    lc_dt_entry_t *e = lc_dt_mem_alloc(t, (size_t)t->count * sizeof(*e));
    if (!e) return NULL;
    MPI_Count n = 0;
    bool runs = true;
    for (MPI_Count i = 0; i < t->count; i++) {
        lc_dt_t *c = t->types ? t->types[i] : t->child;
        MPI_Count reps = t->blens ? t->blens[i] : t->blocklen;
        if (reps <= 0 || c->size == 0) continue;
        const lc_dt_loop_t *cl = lc_dt_loop_of(c, rc_p);
        if (!cl) return NULL;
        e[n] = (lc_dt_entry_t){ .displ = t->displs[i], .reps = reps, .stride = lc_dt_extent(c), .child = cl };
        runs = runs && lc_dt_entry_is_run(&e[n]);
        n++;
    }
    if (runs) return lc_dt_loop_runs(t, e, n);
    if (n == 1 || lc_dt_entries_regular(e, n)) {
        const lc_dt_loop_t *blk = lc_dt_loop_rep(t, e[0].child, e[0].reps, e[0].stride, 0);
        return blk ? lc_dt_loop_rep(t, blk, n, n > 1 ? e[1].displ - e[0].displ : 0, e[0].displ) : NULL;
    }
    return lc_dt_loop_list(t, e, n);
}

const lc_dt_loop_t *lc_dt_loop_of(lc_dt_t *t, int *rc_p)
{
    if (t->loop || t->size == 0) return t->loop;
    const lc_dt_loop_t *loop;
    if (t->flags & LC_DT_F_DENSE) {
        lc_dt_loop_t leaf = { .kind = LC_DT_LOOP_LEAF_VEC, .depth = 1, .offset = t->true_lb, .size = t->size,
                              .count = 1, .blen = (MPI_Aint)t->size };
        loop = lc_dt_node_keep(t, &leaf);
    } else if (t->layout == LC_DT_L_RESIZED) {
        loop = lc_dt_loop_of(t->child, rc_p);
        if (*rc_p) return NULL;
    } else if (t->layout == LC_DT_L_VECTOR) {
        loop = lc_dt_loop_vector(t, rc_p);
    } else {
        loop = lc_dt_loop_blocks(t, rc_p);
    }
    if (!loop) {
        if (!*rc_p) *rc_p = lc_error(MPI_ERR_NO_MEM, "out of memory committing a datatype");
        return NULL;
    }
    t->loop = loop;
    return loop;
}

int lc_dt_commit(lc_dt_t *t)
{
    int rc = MPI_SUCCESS;
    lc_dt_lock();
    if (!lc_dt_is_committed(t)) {
        lc_dt_loop_of(t, &rc);
        if (!rc) t->flags |= LC_DT_F_COMMITTED;
    }
    lc_dt_unlock();
    return rc;
}
