/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_handle.h — tables that turn the handles of MPI objects into pointers.
 *
 * A handle follows MPICH's encoding (its ABI): the top bits say the kind
 * (0x4 builtin, 0x8 direct) and the object type (group 0x08000000, info
 * 0x1c000000, ...), the low bits index a table.  Builtin objects are
 * looked up by their owners before they reach a table; a table holds the
 * objects users create, under `base | index`.  A freed slot is reused by
 * the next object (as MPICH does), so a stale handle may name a newer
 * object of the same type; it never names a freed one.
 */
#ifndef LC_HANDLE_H
#define LC_HANDLE_H

#include <stdbool.h>

typedef struct lc_handle_table {
    unsigned base;  /* high bits of every handle of the table */
    unsigned mask;  /* bits of the index (the rest must equal base) */
    void **slots;   /* [len]; NULL = free */
    int len;
    int used;       /* non-NULL slots */
} lc_handle_table_t;

#define LC_HANDLE_TABLE_INIT(base_, mask_) { (base_), (mask_), 0, 0, 0 }

/* Store obj (not NULL) and return its handle in *handle_p: MPI_SUCCESS,
 * or an MPI_ERR_NO_MEM / MPI_ERR_INTERN code with its message. */
int lc_handle_add(lc_handle_table_t *t, void *obj, int *handle_p);
/* The object of `handle`, or NULL when it names no live object of this table. */
void *lc_handle_get(const lc_handle_table_t *t, int handle);
/* Forget `handle` (the object itself is the caller's). */
void lc_handle_remove(lc_handle_table_t *t, int handle);
/* The i-th slot (0 <= i < t->len), NULL when free: for walks over every object. */
static inline void *lc_handle_slot(const lc_handle_table_t *t, int i) { return t->slots[i]; }
/* Free the slot array (objects are the caller's: walk the slots first). */
void lc_handle_table_reset(lc_handle_table_t *t);

#endif
