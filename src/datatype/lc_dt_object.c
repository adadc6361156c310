/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_object.c — life of a derived datatype object: allocation,
 * references, publication under a handle, constructor contents, names,
 * destruction.
 */
#include "datatype/lc_dt_impl.h"

#include <stdlib.h>
#include <string.h>

/* Frees the nodes of a loop program (lc_dt_commit.c). */
void lc_dt_loop_mem_free(void *mem);

lc_dt_t *lc_dt_alloc(int layout)
{
    lc_dt_t *t = calloc(1, sizeof(*t));
    if (!t) return NULL;
    t->layout = (uint8_t)layout;
    t->handle = MPI_DATATYPE_NULL;
    t->basic = MPI_DATATYPE_NULL;
    atomic_init(&t->refs, 1);
    return t;
}

void lc_dt_retain(lc_dt_t *t)
{
    if (!lc_dt_is_predefined(t)) atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
}

void lc_dt_release(lc_dt_t *t)
{
    if (!t || lc_dt_is_predefined(t)) return;
    /* acq_rel: the last owner sees every write the others made before
     * letting go, and only then frees */
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1) lc_dt_destroy(t);
}

void lc_dt_contents_free(lc_dt_contents_t *c)
{
    if (!c) return;
    for (MPI_Count i = 0; i < c->nd; i++)
        if (c->types[i]) lc_dt_release(c->types[i]);
    free(c);
}

/* Children are released after the object is gone from every table, in
 * the order they were taken; the recursion is as deep as the nesting. */
void lc_dt_destroy(lc_dt_t *t)
{
    lc_dt_release(t->child);
    if (t->types) {
        for (MPI_Count i = 0; i < t->count; i++) lc_dt_release(t->types[i]);
        free(t->types);
    }
    free(t->blens);
    free(t->displs);
    lc_dt_contents_free(t->contents);
    lc_dt_loop_mem_free(t->loop_mem);
    if (t->flags & LC_DT_F_NAME_OWNED) free(t->name);
    free(t);
}

lc_dt_contents_t *lc_dt_contents_new(int combiner, MPI_Count ni, MPI_Count na, MPI_Count nc, MPI_Count nd)
{
    /* one block: header, then the arrays, each aligned for its type */
    size_t off_a = sizeof(lc_dt_contents_t) + (size_t)ni * sizeof(int);
    off_a = (off_a + 7) & ~(size_t)7;
    size_t off_c = off_a + (size_t)na * sizeof(MPI_Aint);
    size_t off_d = off_c + (size_t)nc * sizeof(MPI_Count);
    size_t total = off_d + (size_t)nd * sizeof(lc_dt_t *);
    char *mem = calloc(1, total);
    if (!mem) return NULL;
    lc_dt_contents_t *c = (lc_dt_contents_t *)mem;
    c->combiner = combiner;
    c->ni = ni;
    c->na = na;
    c->nc = nc;
    c->nd = nd;
    c->ints = (int *)(mem + sizeof(lc_dt_contents_t));
    c->aints = (MPI_Aint *)(mem + off_a);
    c->counts = (MPI_Count *)(mem + off_c);
    c->types = (lc_dt_t **)(mem + off_d);
    return c;
}

int lc_dt_publish(lc_dt_t *t, lc_dt_contents_t *contents, MPI_Datatype *handle_p)
{
    if (contents) {
        for (MPI_Count i = 0; i < contents->nd; i++) lc_dt_retain(contents->types[i]);
        t->contents = contents;
        t->combiner = contents->combiner;
    }
    lc_dt_lock();
    int rc = lc_dt_slot_assign(t);
    if (!rc) t->urefs = 1; /* the creator's reference becomes the handle's */
    lc_dt_unlock();
    if (rc) {
        lc_dt_release(t);
        return rc;
    }
    *handle_p = t->handle;
    return MPI_SUCCESS;
}

int lc_dt_set_name(lc_dt_t *t, const char *name)
{
    size_t len = strnlen(name, MPI_MAX_OBJECT_NAME - 1); /* longer names are truncated */
    char *copy = malloc(len + 1);
    if (!copy) return lc_error(MPI_ERR_NO_MEM, "out of memory for a datatype name");
    memcpy(copy, name, len);
    copy[len] = '\0';
    lc_dt_lock();
    char *old = (t->flags & LC_DT_F_NAME_OWNED) ? t->name : NULL;
    t->name = copy;
    t->flags |= LC_DT_F_NAME_OWNED;
    lc_dt_unlock();
    free(old);
    return MPI_SUCCESS;
}

const char *lc_dt_name(const lc_dt_t *t)
{
    return t->name ? t->name : "";
}
