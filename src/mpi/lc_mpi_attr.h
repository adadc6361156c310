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
 *
 * Languages (MPI 4.1 §19.3.7).  C stores addresses (void *), Fortran
 * integers: INTEGER(KIND=MPI_ADDRESS_KIND) through MPI_COMM_SET_ATTR and
 * the other MPI-2 names, a default INTEGER through MPI_ATTR_PUT.  Each
 * attribute remembers its form.  C reading an integer-valued attribute
 * gets a pointer to the integer (an MPI_Aint *, or an int * for
 * MPI_ATTR_PUT's), which stays valid while the attribute is there;
 * Fortran reading an address gets the address as an integer (its low
 * bytes for MPI_ATTR_GET), and an MPI_ATTR_PUT value sign-extended.
 * Callbacks see values as their keyval's language reads them (C
 * keyvals, Fortran's: lc_keyval_set_form), and a copy callback's result
 * keeps the form of the value it copied (an address set from C, turned
 * into an integer for a Fortran callback, is an address again: as MPICH
 * does).  MPI_*_DUP_FN copies the value in its form (the pointer C's
 * view would give is the old entry's).
 */
#ifndef LC_MPI_ATTR_H
#define LC_MPI_ATTR_H

#include "mpi/lc_mpi.h"
#include "util/lc_thread.h"

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

/* How a value is held (see "Languages" above). */
typedef enum lc_attr_form {
    LC_ATTR_PTR = 0, /* C: an address */
    LC_ATTR_AINT,    /* Fortran INTEGER(KIND=MPI_ADDRESS_KIND) */
    LC_ATTR_FINT,    /* Fortran default INTEGER (MPI_ATTR_PUT, MPI_KEYVAL_CREATE) */
} lc_attr_form_t;

/* Make a keyval of `kind`; NULL callbacks are the NULL_COPY/NULL_DELETE
 * functions.  Its callbacks are C's (LC_ATTR_PTR).  MPI error code. */
int lc_keyval_create(lc_attr_kind_t kind, lc_attr_copy_fn_t *copy, lc_attr_delete_fn_t *del, void *extra,
                     int *keyval_p);
/* A keyval whose callbacks are Fortran's (form LC_ATTR_AINT or
 * LC_ATTR_FINT): they get and give integers.  Set right after creation,
 * before the handle is handed out.  MPI_ERR_KEYVAL for a bad key. */
int lc_keyval_set_form(int keyval, lc_attr_form_t form);
/* MPI_*_free_keyval: the handle becomes MPI_KEYVAL_INVALID; attributes
 * using the key keep it alive.  MPI_ERR_KEYVAL for a bad, predefined or
 * other-kind key. */
int lc_keyval_free(lc_attr_kind_t kind, int *keyval_p);
/* Whether `keyval` is a key the user may use on objects of `kind`. */
int lc_keyval_check(lc_attr_kind_t kind, int keyval);

/* value: the address (LC_ATTR_PTR), or the integer as (void *)(MPI_Aint). */
int lc_attr_set(lc_attr_kind_t kind, int handle, void **attrs, int keyval, void *value, lc_attr_form_t form);
/* The value as C reads it (as_int false), or as Fortran does, an integer
 * in (void *)(MPI_Aint) (as_int true).  *flag_p = 0 and *value_p
 * untouched when the object has no such attribute. */
int lc_attr_get(lc_attr_kind_t kind, void *const *attrs, int keyval, bool as_int, void **value_p, int *flag_p);
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

/* Entry points of libmpifort (src/fortran): keyvals made from Fortran,
 * attributes set and read from Fortran, as integers (mpi1: MPI_ATTR_PUT,
 * MPI_KEYVAL_CREATE's default INTEGERs).  The get forms also answer the
 * predefined attributes, with their values.  MPI error codes, after the
 * object's error handler as the C functions do. */
LC_API int lc_mpi_keyval_fortran(int keyval, int mpi1);
/* (They take the process-wide section at MPI_THREAD_MULTIPLE, as the
 * generated wrappers of MPI functions do.) */
static inline bool lc_attr_f_enter(void)
{
    bool locking = lc_thread_locking();
    if (locking) lc_thread_enter();
    return locking;
}
static inline void lc_attr_f_leave(bool locking)
{
    if (locking) lc_thread_leave();
}
LC_API int lc_mpi_comm_attr_set_f(MPI_Comm comm, int keyval, MPI_Aint value, int mpi1);
LC_API int lc_mpi_comm_attr_get_f(MPI_Comm comm, int keyval, MPI_Aint *value, int *flag);
LC_API int lc_mpi_type_attr_set_f(MPI_Datatype datatype, int keyval, MPI_Aint value);
LC_API int lc_mpi_type_attr_get_f(MPI_Datatype datatype, int keyval, MPI_Aint *value, int *flag);
LC_API int lc_mpi_win_attr_set_f(MPI_Win win, int keyval, MPI_Aint value);
LC_API int lc_mpi_win_attr_get_f(MPI_Win win, int keyval, MPI_Aint *value, int *flag);

#endif
