/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_attr.c — keyvals and the attribute lists objects embed (see
 * lc_mpi_attr.h for when callbacks run).
 *
 * An object's list is singly linked in the order attributes were first
 * set; lists are short (a library or two hang a few attributes on a
 * communicator), so lookups walk it.
 *
 * An entry holds its value in the form it was set in (lc_attr_form_t),
 * and the integer of a Fortran value also in the two fields C's pointer
 * may point at (aint, fint): they live as long as the entry, and a set
 * on the same key rewrites them in place.
 */
#include "mpi/lc_mpi_attr.h"
#include "util/lc_handle.h"

#include <stdlib.h>

typedef struct lc_keyval {
    lc_attr_kind_t kind;
    lc_attr_copy_fn_t *copy;  /* NULL: never copied */
    lc_attr_delete_fn_t *del; /* NULL: nothing to do */
    void *extra;
    lc_attr_form_t form;      /* the callbacks' language: LC_ATTR_PTR (C) or a Fortran integer form */
    int handle;               /* what callbacks receive, also after the handle is freed */
    int refs;                 /* 1 for the handle until it is freed, + 1 per attribute using the key */
    bool freed;               /* MPI_*_free_keyval was called: the handle's reference is gone */
} lc_keyval_t;

typedef struct lc_attr {
    struct lc_attr *next;
    lc_keyval_t *key;
    void *value; /* the address, or the integer as (void *)(MPI_Aint) */
    lc_attr_form_t form;
    MPI_Aint aint; /* a Fortran value, for C's pointer to it */
    MPI_Fint fint;
} lc_attr_t;

static void lc_attr_store(lc_attr_t *a, void *value, lc_attr_form_t form)
{
    a->value = value;
    a->form = form;
    a->aint = (MPI_Aint)value;
    a->fint = (MPI_Fint)(MPI_Aint)value; /* MPI_ATTR_PUT's values were sign-extended: the same int */
}

/* The value as C (as_int false) or Fortran (true) reads it. */
static void *lc_attr_view(const lc_attr_t *a, bool as_int)
{
    if (as_int) return a->form == LC_ATTR_FINT ? (void *)(MPI_Aint)a->fint : a->value;
    switch (a->form) {
    case LC_ATTR_AINT:
        return (void *)&a->aint;
    case LC_ATTR_FINT:
        return (void *)&a->fint;
    default:
        return a->value;
    }
}

#define LC_KEYVAL_KIND_SHIFT 22
static lc_handle_table_t lc_keyvals[3] = {
    LC_HANDLE_TABLE_INIT(0xa4000000u | (LC_ATTR_COMM << LC_KEYVAL_KIND_SHIFT), 0x003fffffu),
    LC_HANDLE_TABLE_INIT(0xa4000000u | (LC_ATTR_TYPE << LC_KEYVAL_KIND_SHIFT), 0x003fffffu),
    LC_HANDLE_TABLE_INIT(0xa4000000u | (LC_ATTR_WIN << LC_KEYVAL_KIND_SHIFT), 0x003fffffu),
};

static lc_handle_table_t *lc_keyval_table(lc_attr_kind_t kind)
{
    return &lc_keyvals[kind == LC_ATTR_COMM ? 0 : kind == LC_ATTR_TYPE ? 1 : 2];
}

static const char *lc_attr_kind_name(lc_attr_kind_t kind)
{
    return kind == LC_ATTR_COMM ? "communicator" : kind == LC_ATTR_TYPE ? "datatype" : "window";
}

/* The handle stays in the table until the last reference goes: a program
 * may still name a freed key that an object uses (MPI_Attr_delete of it,
 * as MPICH's attr/fkeyval does), and the handle cannot meanwhile be given
 * to a new keyval. */
static void lc_keyval_release(lc_keyval_t *k)
{
    if (--k->refs > 0) return;
    lc_handle_remove(lc_keyval_table(k->kind), k->handle);
    free(k);
}

int lc_keyval_create(lc_attr_kind_t kind, lc_attr_copy_fn_t *copy, lc_attr_delete_fn_t *del, void *extra,
                     int *keyval_p)
{
    lc_keyval_t *k = malloc(sizeof(*k));
    if (!k) return lc_error(MPI_ERR_NO_MEM, "out of memory creating a keyval");
    *k = (lc_keyval_t){ .kind = kind, .copy = copy, .del = del, .extra = extra, .form = LC_ATTR_PTR, .refs = 1 };
    int rc = lc_handle_add(lc_keyval_table(kind), k, &k->handle);
    if (rc != MPI_SUCCESS) {
        free(k);
        return rc;
    }
    *keyval_p = k->handle;
    return MPI_SUCCESS;
}

/* The user keyval `keyval` of `kind`, or NULL with *rc set. */
static lc_keyval_t *lc_keyval_find(lc_attr_kind_t kind, int keyval, int *rc)
{
    lc_keyval_t *k = lc_handle_get(lc_keyval_table(kind), keyval);
    if (lc_likely(k != NULL)) return k;
    unsigned h = (unsigned)keyval;
    if (keyval == MPI_KEYVAL_INVALID)
        *rc = lc_error(MPI_ERR_KEYVAL, "the keyval is MPI_KEYVAL_INVALID");
    else if ((h & 0xfc000000u) == 0x64000000u)
        *rc = lc_error(MPI_ERR_KEYVAL, "keyval %#x is predefined: it cannot be set, deleted or freed", h);
    else if ((h & 0xfc000000u) == 0xa4000000u && ((h >> LC_KEYVAL_KIND_SHIFT) & 0xf) != (unsigned)kind)
        *rc = lc_error(MPI_ERR_KEYVAL, "keyval %#x was made for another kind of object, not for a %s", h,
                       lc_attr_kind_name(kind));
    else
        *rc = lc_error(MPI_ERR_KEYVAL, "%#x is not a valid %s keyval (freed, or never created)", h,
                       lc_attr_kind_name(kind));
    return NULL;
}

int lc_keyval_set_form(int keyval, lc_attr_form_t form)
{
    int rc = MPI_SUCCESS;
    unsigned kind = ((unsigned)keyval >> LC_KEYVAL_KIND_SHIFT) & 0xf;
    if (kind != LC_ATTR_COMM && kind != LC_ATTR_TYPE && kind != LC_ATTR_WIN)
        return lc_error(MPI_ERR_KEYVAL, "%#x is not a keyval", (unsigned)keyval);
    lc_keyval_t *k = lc_keyval_find((lc_attr_kind_t)kind, keyval, &rc);
    if (k) k->form = form;
    return rc;
}

LC_API int lc_mpi_keyval_fortran(int keyval, int mpi1)
{
    bool locking = lc_attr_f_enter();
    int rc = lc_keyval_set_form(keyval, mpi1 ? LC_ATTR_FINT : LC_ATTR_AINT);
    lc_attr_f_leave(locking);
    return rc == MPI_SUCCESS ? rc : lc_mpi_error(NULL, "MPI_COMM_CREATE_KEYVAL", rc);
}

int lc_keyval_check(lc_attr_kind_t kind, int keyval)
{
    int rc = MPI_SUCCESS;
    lc_keyval_find(kind, keyval, &rc);
    return rc;
}

int lc_keyval_free(lc_attr_kind_t kind, int *keyval_p)
{
    int rc = MPI_SUCCESS;
    lc_keyval_t *k = lc_keyval_find(kind, *keyval_p, &rc);
    if (!k) return rc;
    /* A second free of a key still in use (through a copy of the handle)
     * changes nothing, as in MPICH (attr/keyval_double_free). */
    if (!k->freed) {
        k->freed = true;
        lc_keyval_release(k);
    }
    *keyval_p = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static lc_attr_t *lc_attr_find(void *const *attrs, const lc_keyval_t *k)
{
    for (lc_attr_t *a = *attrs; a; a = a->next)
        if (a->key == k) return a;
    return NULL;
}

/* Unlink entry `e` (if it is still in the list) and free it. */
static void lc_attr_unlink(void **attrs, lc_attr_t *e)
{
    for (lc_attr_t **pp = (lc_attr_t **)attrs; *pp; pp = &(*pp)->next) {
        if (*pp == e) {
            *pp = e->next;
            lc_keyval_release(e->key);
            free(e);
            return;
        }
    }
}

static int lc_attr_append(void **attrs, lc_keyval_t *k, void *value, lc_attr_form_t form)
{
    lc_attr_t *e = malloc(sizeof(*e));
    if (!e) return lc_error(MPI_ERR_NO_MEM, "out of memory storing an attribute");
    *e = (lc_attr_t){ .next = NULL, .key = k };
    lc_attr_store(e, value, form);
    k->refs++;
    lc_attr_t **pp = (lc_attr_t **)attrs;
    while (*pp) pp = &(*pp)->next;
    *pp = e;
    return MPI_SUCCESS;
}

static int lc_attr_call_delete(int handle, const lc_attr_t *a)
{
    if (!a->key->del) return MPI_SUCCESS;
    return a->key->del(handle, a->key->handle, lc_attr_view(a, a->key->form != LC_ATTR_PTR), a->key->extra);
}

int lc_attr_set(lc_attr_kind_t kind, int handle, void **attrs, int keyval, void *value, lc_attr_form_t form)
{
    int rc = MPI_SUCCESS;
    lc_keyval_t *k = lc_keyval_find(kind, keyval, &rc);
    if (!k) return rc;
    lc_attr_t *a = lc_attr_find(attrs, k);
    if (!a) return lc_attr_append(attrs, k, value, form);
    rc = lc_attr_call_delete(handle, a);
    if (rc != MPI_SUCCESS) return rc;
    a = lc_attr_find(attrs, k); /* the callback may have changed the list */
    if (a) lc_attr_store(a, value, form);
    return a ? MPI_SUCCESS : lc_attr_append(attrs, k, value, form);
}

int lc_attr_get(lc_attr_kind_t kind, void *const *attrs, int keyval, bool as_int, void **value_p, int *flag_p)
{
    int rc = MPI_SUCCESS;
    lc_keyval_t *k = lc_keyval_find(kind, keyval, &rc);
    if (!k) return rc;
    const lc_attr_t *a = lc_attr_find(attrs, k);
    *flag_p = a != NULL;
    if (a) *value_p = lc_attr_view(a, as_int);
    return MPI_SUCCESS;
}

int lc_attr_delete(lc_attr_kind_t kind, int handle, void **attrs, int keyval)
{
    int rc = MPI_SUCCESS;
    lc_keyval_t *k = lc_keyval_find(kind, keyval, &rc);
    if (!k) return rc;
    lc_attr_t *a = lc_attr_find(attrs, k);
    if (!a) return MPI_SUCCESS; /* nothing to delete (MPICH agrees; the standard names no error) */
    rc = lc_attr_call_delete(handle, a);
    if (rc == MPI_SUCCESS) lc_attr_unlink(attrs, a);
    return rc;
}

int lc_attr_delete_all(lc_attr_kind_t kind, int handle, void **attrs)
{
    (void)kind;
    while (*attrs) {
        lc_attr_t *last = *attrs;
        while (last->next) last = last->next;
        int rc = lc_attr_call_delete(handle, last);
        if (rc != MPI_SUCCESS) return rc;
        lc_attr_unlink(attrs, last);
    }
    return MPI_SUCCESS;
}

void lc_attr_discard(void **attrs)
{
    while (*attrs) lc_attr_unlink(attrs, *attrs);
}

/* Copy the snapshot's entries whose callbacks ask for it to *new_attrs. */
static int lc_attr_copy_snapshot(int old_handle, lc_attr_t *snap, int n, void **new_attrs)
{
    for (int i = 0; i < n; i++) {
        lc_keyval_t *k = snap[i].key;
        if (!k->copy) continue;
        if (k->copy == (lc_attr_copy_fn_t *)MPIR_Dup_fn) { /* MPI_*_DUP_FN: the value as it is, in its form
                                                            * (a pointer to the snapshot's integer would dangle) */
            int rc = lc_attr_append(new_attrs, k, snap[i].value, snap[i].form);
            if (rc != MPI_SUCCESS) return rc;
            continue;
        }
        void *out = NULL;
        int flag = 0;
        /* in the keyval's language; the copy keeps the value's form (lc_mpi_attr.h) */
        int rc = k->copy(old_handle, k->handle, k->extra, lc_attr_view(&snap[i], k->form != LC_ATTR_PTR), &out, &flag);
        if (rc != MPI_SUCCESS) return rc;
        if (flag && (rc = lc_attr_append(new_attrs, k, out, snap[i].form)) != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int lc_attr_copy_all(lc_attr_kind_t kind, int old_handle, void *const *old_attrs, int new_handle,
                     void **new_attrs)
{
    int n = 0;
    for (const lc_attr_t *a = *old_attrs; a; a = a->next) n++;
    if (n == 0) return MPI_SUCCESS;
    /* A snapshot (keys held) so that callbacks may change the old list. */
    lc_attr_t *snap = malloc(sizeof(*snap) * (size_t)n);
    if (!snap) return lc_error(MPI_ERR_NO_MEM, "out of memory copying %d attributes", n);
    int i = 0;
    for (const lc_attr_t *a = *old_attrs; a; a = a->next, i++) {
        snap[i] = *a;
        a->key->refs++;
    }
    int rc = lc_attr_copy_snapshot(old_handle, snap, n, new_attrs);
    for (i = 0; i < n; i++) lc_keyval_release(snap[i].key);
    free(snap);
    if (rc != MPI_SUCCESS && lc_attr_delete_all(kind, new_handle, new_attrs) != MPI_SUCCESS)
        lc_attr_discard(new_attrs);
    return rc;
}

void lc_keyval_fini(void)
{
    for (size_t t = 0; t < LC_ARRAY_SIZE(lc_keyvals); t++) {
        for (int i = 0; i < lc_keyvals[t].len; i++) {
            lc_keyval_t *k = lc_handle_slot(&lc_keyvals[t], i);
            if (k && !k->freed && --k->refs == 0) free(k); /* the table goes below */
        }
        lc_handle_table_reset(&lc_keyvals[t]);
    }
}
