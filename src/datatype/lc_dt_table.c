/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_table.c — handles of derived datatypes: slot table, lookup,
 * checks.
 *
 * Slots live in chunks of 4096 that are allocated on demand and never
 * freed or moved, so a lookup needs no lock: it loads the chunk pointer
 * and the slot's object with acquire ordering (paired with the release
 * stores in lc_dt_slot_assign) and compares the slot's generation with
 * the handle's.  Freed slots queue FIFO and are reused only when more
 * than LC_DT_REUSE_AFTER are waiting, so a stale handle value comes back
 * only after its slot went round the 8-bit generation counter.
 */
#include "datatype/lc_dt_impl.h"

#include <stdlib.h>

pthread_mutex_t lc_dt_mutex = PTHREAD_MUTEX_INITIALIZER;

#define LC_DT_CHUNK_BITS 12
#define LC_DT_CHUNK_SLOTS (1u << LC_DT_CHUNK_BITS)
#define LC_DT_NSLOTS (1u << LC_DT_SLOT_BITS)
#define LC_DT_NCHUNKS (LC_DT_NSLOTS >> LC_DT_CHUNK_BITS)
#define LC_DT_REUSE_AFTER 256

typedef struct lc_dt_slot {
    _Atomic(lc_dt_t *) obj;  /* NULL while free */
    _Atomic uint32_t gen;    /* generation of the slot's current (or next) handle */
    uint32_t next_free;      /* FIFO link, 0 = end (slot 0 is never used) */
} lc_dt_slot_t;

static _Atomic(lc_dt_slot_t *) lc_dt_chunks[LC_DT_NCHUNKS];
/* The rest is protected by lc_dt_mutex. */
static uint32_t lc_dt_next_unused = LC_DT_SLOT_FIRST;
static uint32_t lc_dt_free_head, lc_dt_free_tail, lc_dt_free_len;

static lc_dt_slot_t *lc_dt_slot_at(uint32_t slot)
{
    lc_dt_slot_t *chunk = atomic_load_explicit(&lc_dt_chunks[slot >> LC_DT_CHUNK_BITS], memory_order_acquire);
    return chunk ? &chunk[slot & (LC_DT_CHUNK_SLOTS - 1)] : NULL;
}

static int lc_dt_slot_take(uint32_t *slot_p)
{
    if (lc_dt_free_len > LC_DT_REUSE_AFTER || (lc_dt_next_unused == LC_DT_NSLOTS && lc_dt_free_len > 0)) {
        uint32_t slot = lc_dt_free_head;
        lc_dt_free_head = lc_dt_slot_at(slot)->next_free;
        if (!lc_dt_free_head) lc_dt_free_tail = 0;
        lc_dt_free_len--;
        *slot_p = slot;
        return MPI_SUCCESS;
    }
    if (lc_dt_next_unused == LC_DT_NSLOTS)
        return lc_error(MPI_ERR_OTHER, "%u derived datatypes exist at once, the most Locus can name: free unused "
                                       "ones with MPI_Type_free", LC_DT_NSLOTS - LC_DT_SLOT_FIRST);
    uint32_t slot = lc_dt_next_unused;
    uint32_t c = slot >> LC_DT_CHUNK_BITS;
    if (!atomic_load_explicit(&lc_dt_chunks[c], memory_order_relaxed)) {
        lc_dt_slot_t *chunk = calloc(LC_DT_CHUNK_SLOTS, sizeof(*chunk));
        if (!chunk) return lc_error(MPI_ERR_NO_MEM, "out of memory for the datatype handle table");
        /* release: a lookup that sees the chunk sees it zeroed */
        atomic_store_explicit(&lc_dt_chunks[c], chunk, memory_order_release);
    }
    lc_dt_next_unused++;
    *slot_p = slot;
    return MPI_SUCCESS;
}

int lc_dt_slot_assign(lc_dt_t *t)
{
    uint32_t slot = 0;
    int rc = lc_dt_slot_take(&slot);
    if (rc) return rc;
    lc_dt_slot_t *s = lc_dt_slot_at(slot);
    uint32_t gen = atomic_load_explicit(&s->gen, memory_order_relaxed) & LC_DT_GEN_MASK;
    t->handle = (MPI_Datatype)(LC_DT_HANDLE_KIND | gen << LC_DT_SLOT_BITS | slot);
    /* release: whoever finds t through the slot sees it fully built */
    atomic_store_explicit(&s->obj, t, memory_order_release);
    return MPI_SUCCESS;
}

void lc_dt_slot_drop(lc_dt_t *t)
{
    uint32_t slot = (uint32_t)t->handle & (LC_DT_NSLOTS - 1);
    lc_dt_slot_t *s = lc_dt_slot_at(slot);
    atomic_store_explicit(&s->obj, NULL, memory_order_release);
    atomic_fetch_add_explicit(&s->gen, 1, memory_order_release);
    s->next_free = 0;
    if (lc_dt_free_tail) lc_dt_slot_at(lc_dt_free_tail)->next_free = slot;
    else lc_dt_free_head = slot;
    lc_dt_free_tail = slot;
    lc_dt_free_len++;
    t->handle = MPI_DATATYPE_NULL;
}

static bool lc_dt_handle_shape(MPI_Datatype handle, uint32_t *slot_p)
{
    uint32_t h = (uint32_t)handle;
    uint32_t slot = h & (LC_DT_NSLOTS - 1);
    *slot_p = slot;
    return (h & LC_DT_HANDLE_KIND_MASK) == LC_DT_HANDLE_KIND && slot >= LC_DT_SLOT_FIRST;
}

lc_dt_t *lc_dt_slot_get(MPI_Datatype handle)
{
    uint32_t slot;
    if (!lc_dt_handle_shape(handle, &slot)) return NULL;
    lc_dt_slot_t *s = lc_dt_slot_at(slot);
    if (!s) return NULL;
    lc_dt_t *t = atomic_load_explicit(&s->obj, memory_order_acquire);
    uint32_t gen = atomic_load_explicit(&s->gen, memory_order_acquire) & LC_DT_GEN_MASK;
    if (!t || gen != (((uint32_t)handle >> LC_DT_SLOT_BITS) & LC_DT_GEN_MASK)) return NULL;
    return t;
}

/* A slot that ever held a type has a generation above 0 or an object. */
bool lc_dt_slot_was_freed(MPI_Datatype handle)
{
    uint32_t slot;
    if (!lc_dt_handle_shape(handle, &slot)) return false;
    lc_dt_slot_t *s = lc_dt_slot_at(slot);
    return s &&
           (atomic_load_explicit(&s->gen, memory_order_relaxed) != 0 ||
            atomic_load_explicit(&s->obj, memory_order_relaxed) != NULL) &&
           !lc_dt_slot_get(handle);
}

lc_dt_t *lc_dt_get(MPI_Datatype handle)
{
    lc_dt_t *t = lc_dt_builtin_get(handle);
    return t ? t : lc_dt_slot_get(handle);
}

int lc_dt_check(MPI_Datatype handle, lc_dt_t **t_p)
{
    lc_dt_t *t = lc_dt_get(handle);
    if (lc_likely(t != NULL)) {
        *t_p = t;
        return MPI_SUCCESS;
    }
    if (handle == MPI_DATATYPE_NULL) return lc_error(MPI_ERR_TYPE, "the datatype is MPI_DATATYPE_NULL");
    if (lc_dt_slot_was_freed(handle))
        return lc_error(MPI_ERR_TYPE, "datatype %#x has been freed (MPI_Type_free): it cannot be used any more",
                        (unsigned)handle);
    return lc_error(MPI_ERR_TYPE, "%#x is not a datatype (neither predefined nor made by a datatype constructor)",
                    (unsigned)handle);
}

int lc_dt_check_comm(MPI_Datatype dt, lc_dt_t **t_p)
{
    lc_dt_t *t = NULL;
    int rc = lc_dt_check(dt, &t);
    if (rc) return rc;
    if (t->info && t->info->cls == LC_DT_MARKER)
        return lc_error(MPI_ERR_TYPE, "%s marks a bound; it holds no data and cannot be sent or received",
                        t->info->name);
    if (!lc_dt_is_committed(t))
        return lc_error(MPI_ERR_TYPE, "datatype %#x is not committed: call MPI_Type_commit", (unsigned)dt);
    *t_p = t;
    return MPI_SUCCESS;
}

int lc_dt_handle_out(lc_dt_t *t, MPI_Datatype *handle_p)
{
    if (lc_dt_is_predefined(t)) {
        *handle_p = t->handle;
        return MPI_SUCCESS;
    }
    int rc = MPI_SUCCESS;
    lc_dt_lock();
    if (t->urefs == 0) {
        rc = lc_dt_slot_assign(t);
        if (!rc) atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed); /* the handle's */
    }
    if (!rc) {
        t->urefs++;
        *handle_p = t->handle;
    }
    lc_dt_unlock();
    return rc;
}

int lc_dt_handle_free(MPI_Datatype *handle_p)
{
    lc_dt_t *t;
    int rc = lc_dt_check(*handle_p, &t);
    if (rc) return rc;
    if (lc_dt_is_predefined(t))
        return lc_error(MPI_ERR_TYPE, "%s is a predefined datatype: it cannot be freed",
                        t->name ? t->name : "this datatype");
    bool dropped = false;
    lc_dt_lock();
    if (t->handle != *handle_p) { /* freed by another thread meanwhile */
        lc_dt_unlock();
        return lc_error(MPI_ERR_TYPE, "datatype %#x has been freed (MPI_Type_free): it cannot be used any more",
                        (unsigned)*handle_p);
    }
    if (--t->urefs == 0) {
        lc_dt_slot_drop(t);
        dropped = true;
    }
    lc_dt_unlock();
    *handle_p = MPI_DATATYPE_NULL;
    if (dropped) lc_dt_release(t);
    return MPI_SUCCESS;
}
