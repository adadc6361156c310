/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_attr.h — attribute caching (MPI 4.1 §7.7), for any object kind.
 *
 * An object that can carry attributes (a communicator, a datatype, a
 * window) embeds one `void *attrs`, NULL while it has none, and hands its
 * address to these functions together with its kind and its handle (the
 * handle is what the user's callbacks receive).  Keys are keyvals, made
 * by MPI_Comm_create_keyval (MPI_Type_create_keyval, ...) with a copy and
 * a delete callback.
 *
 * When callbacks run:
 *   - set, on a key the object already has: delete(old value), then store;
 *   - delete_attr: delete(value), then remove;
 *   - duplication (MPI_Comm_dup, ...): copy(value) for every attribute, in
 *     the order they were first set; the copy is kept when the callback
 *     sets its flag;
 *   - freeing the object: delete(value) for every attribute, in reverse
 *     order of setting (MPI 4.1 requires this order for MPI_COMM_SELF at
 *     MPI_Finalize; for other objects any order is allowed).
 * A callback that returns an error code makes the operation fail with that
 * code; the attribute involved stays where it was.
 *
 * Callbacks may call MPI, even on the same object: every walk detaches
 * the entry it works on (or takes a snapshot) before calling out.
 *
 * A keyval lives on after MPI_*_free_keyval until no object uses it, and
 * so does its handle (a second free of it meanwhile does nothing).
 *
 * Handles: keyvals are 0xa4000000 | (kind << 22) | index (MPICH's direct
 * keyvals), so a keyval names its object kind; the predefined attribute
 * keys MPI_TAG_UB, ... (0x644000xx) are builtin communicator keys.
 */
#ifndef LC_MPI_ATTR_H
#define LC_MPI_ATTR_H

#include "mpi/lc_mpi.h"

/* Object kinds, as MPICH's handles encode them. */
typedef enum lc_attr_kind {
    LC_ATTR_COMM = 1,
    LC_ATTR_TYPE = 3,
    LC_ATTR_WIN = 8,
} lc_attr_kind_t;

/* The callbacks of every kind have this shape: the object handle is an
 * int in MPICH's ABI (MPI_Comm, MPI_Datatype and MPI_Win alike), so
 * MPI_Comm_copy_attr_function, MPI_Type_copy_attr_function,
 * MPI_Win_copy_attr_function and the deprecated MPI_Copy_function are all
 * this type; the delete functions likewise. */
typedef int lc_attr_copy_fn_t(int handle, int keyval, void *extra_state, void *value_in, void *value_out,
                              int *flag);
typedef int lc_attr_delete_fn_t(int handle, int keyval, void *value, void *extra_state);

/* Make a keyval of `kind`; NULL callbacks are the NULL_COPY/NULL_DELETE
 * functions.  MPI error code. */
int lc_keyval_create(lc_attr_kind_t kind, lc_attr_copy_fn_t *copy, lc_attr_delete_fn_t *del, void *extra,
                     int *keyval_p);
/* MPI_*_free_keyval: the handle becomes MPI_KEYVAL_INVALID; attributes
 * using the key keep it alive.  MPI_ERR_KEYVAL for a bad, predefined or
 * other-kind key. */
int lc_keyval_free(lc_attr_kind_t kind, int *keyval_p);
/* Whether `keyval` is a key the user may use on objects of `kind`. */
int lc_keyval_check(lc_attr_kind_t kind, int keyval);

int lc_attr_set(lc_attr_kind_t kind, int handle, void **attrs, int keyval, void *value);
/* *flag_p = 0 and *value_p untouched when the object has no such attribute. */
int lc_attr_get(lc_attr_kind_t kind, void *const *attrs, int keyval, void **value_p, int *flag_p);
int lc_attr_delete(lc_attr_kind_t kind, int handle, void **attrs, int keyval);
/* Copy old's attributes to the new object (copy callbacks).  On error the
 * attributes copied so far are deleted again (delete callbacks). */
int lc_attr_copy_all(lc_attr_kind_t kind, int old_handle, void *const *old_attrs, int new_handle,
                     void **new_attrs);
/* Run every delete callback and empty the list.  On error the entries not
 * yet deleted stay. */
int lc_attr_delete_all(lc_attr_kind_t kind, int handle, void **attrs);
/* Empty the list without callbacks (an object destroyed at MPI_Finalize). */
void lc_attr_discard(void **attrs);
/* Free every keyval (MPI_Finalize). */
void lc_keyval_fini(void);

#endif
