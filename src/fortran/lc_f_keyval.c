/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_f_keyval.c — MPI_COMM_CREATE_KEYVAL and MPI_KEYVAL_CREATE for Fortran
 * (hand-written: api/fortran_hints.txt marks them `handwritten`; module
 * interfaces are still generated), and the predefined Fortran callbacks
 * MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN and
 * their MPI-1 twins MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN.
 *
 * Why by hand: Locus calls copy/delete callbacks with C's conventions
 * (handles and values by value, an int result), Fortran's take every
 * argument by reference and return through IERROR.  Each Fortran keyval
 * gets a C trampoline pair and a record (the Fortran procedures, the
 * Fortran EXTRA_STATE, the attribute width) passed as the C extra_state.
 * The keyval is marked as Fortran's (lc_mpi_keyval_fortran), so libmpi
 * hands its callbacks every value as an integer in the void * (an
 * address set from C converted, MPI 4.1 §19.3.7) and keeps their copies
 * as integer-valued attributes: INTEGER(KIND=MPI_ADDRESS_KIND) for
 * MPI_COMM_CREATE_KEYVAL, default INTEGER for the MPI-1 MPI_KEYVAL_CREATE.
 *
 * The records live until the process ends (a freed keyval's attributes
 * may still be copied or deleted later); they are kept on a list so
 * they stay reachable.  Module mpi_f08's TYPE(MPI_Comm) is an INTEGER
 * in memory, so its callbacks take the same trampolines.
 */
#include "lc_f_glue.h"

#include <pthread.h>

/* The Fortran callbacks' upper-case names are mpi.h's C macros. */
#undef MPI_NULL_COPY_FN
#undef MPI_NULL_DELETE_FN
#undef MPI_DUP_FN
#undef MPI_COMM_NULL_COPY_FN
#undef MPI_COMM_NULL_DELETE_FN
#undef MPI_COMM_DUP_FN
#undef MPI_TYPE_NULL_COPY_FN
#undef MPI_TYPE_NULL_DELETE_FN
#undef MPI_TYPE_DUP_FN
#undef MPI_WIN_NULL_COPY_FN
#undef MPI_WIN_NULL_DELETE_FN
#undef MPI_WIN_DUP_FN

typedef void lc_f_copy_fn(MPI_Fint *comm, MPI_Fint *keyval, void *extra, void *in, void *out,
                          MPI_Fint *flag, MPI_Fint *ierr);
typedef void lc_f_delete_fn(MPI_Fint *comm, MPI_Fint *keyval, void *value, void *extra, MPI_Fint *ierr);

struct lc_f_keyval {
    lc_f_copy_fn *copy;
    lc_f_delete_fn *del;
    MPI_Aint extra;   /* the Fortran EXTRA_STATE (a default INTEGER when mpi1) */
    int mpi1;         /* values and extra state are default INTEGERs */
    struct lc_f_keyval *next;
};

static struct lc_f_keyval *lc_f_keyvals;
static pthread_mutex_t lc_f_keyvals_lock = PTHREAD_MUTEX_INITIALIZER;

static int lc_f_copy_trampoline(MPI_Comm oldcomm, int keyval, void *extra_state, void *in, void *out, int *flag)
{
    struct lc_f_keyval *k = extra_state;
    MPI_Fint comm = oldcomm, kv = keyval, fflag = LC_F_FALSE, ierr = MPI_SUCCESS;
    if (k->mpi1) {
        MPI_Fint ex = (MPI_Fint)k->extra, vin = (MPI_Fint)(MPI_Aint)in, vout = 0;
        k->copy(&comm, &kv, &ex, &vin, &vout, &fflag, &ierr);
        *(void **)out = (void *)(MPI_Aint)vout;
    } else {
        MPI_Aint ex = k->extra, vin = (MPI_Aint)in, vout = 0;
        k->copy(&comm, &kv, &ex, &vin, &vout, &fflag, &ierr);
        *(void **)out = (void *)vout;
    }
    *flag = fflag != LC_F_FALSE;
    return ierr;
}

static int lc_f_delete_trampoline(MPI_Comm c, int keyval, void *value, void *extra_state)
{
    struct lc_f_keyval *k = extra_state;
    MPI_Fint comm = c, kv = keyval, ierr = MPI_SUCCESS;
    if (k->mpi1) {
        MPI_Fint ex = (MPI_Fint)k->extra, v = (MPI_Fint)(MPI_Aint)value;
        k->del(&comm, &kv, &v, &ex, &ierr);
    } else {
        MPI_Aint ex = k->extra, v = (MPI_Aint)value;
        k->del(&comm, &kv, &v, &ex, &ierr);
    }
    return ierr;
}

static struct lc_f_keyval *lc_f_keyval_record(lc_f_copy_fn *copy, lc_f_delete_fn *del, MPI_Aint extra, int mpi1)
{
    struct lc_f_keyval *k = malloc(sizeof *k);
    if (!k)
        return NULL;
    *k = (struct lc_f_keyval){copy, del, extra, mpi1, NULL};
    pthread_mutex_lock(&lc_f_keyvals_lock);
    k->next = lc_f_keyvals;
    lc_f_keyvals = k;
    pthread_mutex_unlock(&lc_f_keyvals_lock);
    return k;
}

typedef int lc_c_create_fn(MPI_Comm_copy_attr_function *, MPI_Comm_delete_attr_function *, int *, void *);

static void lc_f_create(lc_c_create_fn *create, const char *name, lc_f_copy_fn *copy, lc_f_delete_fn *del,
                        MPI_Aint extra, int mpi1, MPI_Fint *keyval, MPI_Fint *ierr)
{
    struct lc_f_keyval *k = lc_f_keyval_record(copy, del, extra, mpi1);
    if (!k) {
        *ierr = lc_f_nomem(name);
        return;
    }
    *ierr = create(lc_f_copy_trampoline, lc_f_delete_trampoline, keyval, k);
    if (*ierr == MPI_SUCCESS) *ierr = lc_mpi_keyval_fortran(*keyval, mpi1);
}

/* Both C spellings of the creators have the prototype of lc_c_create_fn. */
#define LC_F_CREATE(lname, cname, xtype, mpi1)                                                              \
    LC_F_API void lname##_(lc_f_copy_fn *copy, lc_f_delete_fn *del, MPI_Fint *keyval, xtype *extra,          \
                           MPI_Fint *ierr);                                                                  \
    LC_F_API void lname##_(lc_f_copy_fn *copy, lc_f_delete_fn *del, MPI_Fint *keyval, xtype *extra,          \
                           MPI_Fint *ierr)                                                                   \
    {                                                                                                        \
        lc_f_create((lc_c_create_fn *)cname, #cname, copy, del, (MPI_Aint)*extra, mpi1, keyval, ierr);       \
    }

LC_F_CREATE(mpi_comm_create_keyval, MPI_Comm_create_keyval, MPI_Aint, 0)
LC_F_CREATE(pmpi_comm_create_keyval, PMPI_Comm_create_keyval, MPI_Aint, 0)
LC_F_CREATE(mpi_type_create_keyval, MPI_Type_create_keyval, MPI_Aint, 0)
LC_F_CREATE(pmpi_type_create_keyval, PMPI_Type_create_keyval, MPI_Aint, 0)
LC_F_CREATE(mpi_win_create_keyval, MPI_Win_create_keyval, MPI_Aint, 0)
LC_F_CREATE(pmpi_win_create_keyval, PMPI_Win_create_keyval, MPI_Aint, 0)
LC_F_CREATE(mpi_keyval_create, MPI_Keyval_create, MPI_Fint, 1)
LC_F_CREATE(pmpi_keyval_create, PMPI_Keyval_create, MPI_Fint, 1)
LC_F_ALIAS(mpi_comm_create_keyval_, mpi_comm_create_keyval)
LC_F_ALIAS(mpi_comm_create_keyval_, mpi_comm_create_keyval__)
LC_F_ALIAS(mpi_comm_create_keyval_, MPI_COMM_CREATE_KEYVAL)
LC_F_ALIAS(mpi_comm_create_keyval_, lc_f08_comm_create_keyval_)
LC_F_ALIAS(pmpi_comm_create_keyval_, lc_f08p_comm_create_keyval_) /* mpi_f08's PMPI_Comm_create_keyval */
LC_F_ALIAS(pmpi_comm_create_keyval_, pmpi_comm_create_keyval)
LC_F_ALIAS(pmpi_comm_create_keyval_, pmpi_comm_create_keyval__)
LC_F_ALIAS(pmpi_comm_create_keyval_, PMPI_COMM_CREATE_KEYVAL)
LC_F_ALIAS(mpi_type_create_keyval_, mpi_type_create_keyval)
LC_F_ALIAS(mpi_type_create_keyval_, mpi_type_create_keyval__)
LC_F_ALIAS(mpi_type_create_keyval_, MPI_TYPE_CREATE_KEYVAL)
LC_F_ALIAS(mpi_type_create_keyval_, lc_f08_type_create_keyval_)
LC_F_ALIAS(pmpi_type_create_keyval_, lc_f08p_type_create_keyval_) /* mpi_f08's PMPI_Type_create_keyval */
LC_F_ALIAS(pmpi_type_create_keyval_, pmpi_type_create_keyval)
LC_F_ALIAS(pmpi_type_create_keyval_, pmpi_type_create_keyval__)
LC_F_ALIAS(pmpi_type_create_keyval_, PMPI_TYPE_CREATE_KEYVAL)
LC_F_ALIAS(mpi_win_create_keyval_, mpi_win_create_keyval)
LC_F_ALIAS(mpi_win_create_keyval_, mpi_win_create_keyval__)
LC_F_ALIAS(mpi_win_create_keyval_, MPI_WIN_CREATE_KEYVAL)
LC_F_ALIAS(mpi_win_create_keyval_, lc_f08_win_create_keyval_)
LC_F_ALIAS(pmpi_win_create_keyval_, lc_f08p_win_create_keyval_) /* mpi_f08's PMPI_Win_create_keyval */
LC_F_ALIAS(pmpi_win_create_keyval_, pmpi_win_create_keyval)
LC_F_ALIAS(pmpi_win_create_keyval_, pmpi_win_create_keyval__)
LC_F_ALIAS(pmpi_win_create_keyval_, PMPI_WIN_CREATE_KEYVAL)
LC_F_ALIAS(mpi_keyval_create_, mpi_keyval_create)
LC_F_ALIAS(mpi_keyval_create_, mpi_keyval_create__)
LC_F_ALIAS(mpi_keyval_create_, MPI_KEYVAL_CREATE)
LC_F_ALIAS(pmpi_keyval_create_, pmpi_keyval_create)
LC_F_ALIAS(pmpi_keyval_create_, pmpi_keyval_create__)
LC_F_ALIAS(pmpi_keyval_create_, PMPI_KEYVAL_CREATE)

/* The predefined callbacks, Fortran conventions (MPI 4.1 §7.7.2). */
LC_F_API void mpi_comm_null_copy_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
                                     MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr);
LC_F_API void mpi_comm_null_copy_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
                                     MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
    (void)comm, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = LC_F_FALSE;
    *ierr = MPI_SUCCESS;
}

LC_F_API void mpi_comm_dup_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                               MPI_Fint *flag, MPI_Fint *ierr);
LC_F_API void mpi_comm_dup_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                               MPI_Fint *flag, MPI_Fint *ierr)
{
    (void)comm, (void)keyval, (void)extra;
    *out = *in;
    *flag = LC_F_TRUE;
    *ierr = MPI_SUCCESS;
}

LC_F_API void mpi_dup_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in, MPI_Fint *out,
                          MPI_Fint *flag, MPI_Fint *ierr);
LC_F_API void mpi_dup_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in, MPI_Fint *out,
                          MPI_Fint *flag, MPI_Fint *ierr)
{
    (void)comm, (void)keyval, (void)extra;
    *out = *in;
    *flag = LC_F_TRUE;
    *ierr = MPI_SUCCESS;
}

/* One body serves both widths: nothing is read or written but IERROR. */
LC_F_API void mpi_comm_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval, void *value, void *extra,
                                       MPI_Fint *ierr);
LC_F_API void mpi_comm_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval, void *value, void *extra,
                                       MPI_Fint *ierr)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    *ierr = MPI_SUCCESS;
}

#define LC_F_CALLBACK_NAMES(target, low, up)                                                    \
    LC_F_ALIAS(target, low) LC_F_ALIAS(target, low##_) LC_F_ALIAS(target, low##__)               \
    LC_F_ALIAS(target, up) LC_F_ALIAS(target, p##low) LC_F_ALIAS(target, p##low##_)              \
    LC_F_ALIAS(target, p##low##__) LC_F_ALIAS(target, P##up)

LC_F_ALIAS(mpi_comm_null_copy_fn_, mpi_comm_null_copy_fn)
LC_F_ALIAS(mpi_comm_null_copy_fn_, mpi_comm_null_copy_fn__)
LC_F_ALIAS(mpi_comm_null_copy_fn_, MPI_COMM_NULL_COPY_FN)
LC_F_ALIAS(mpi_comm_null_copy_fn_, pmpi_comm_null_copy_fn)
LC_F_ALIAS(mpi_comm_null_copy_fn_, pmpi_comm_null_copy_fn_)
LC_F_ALIAS(mpi_comm_null_copy_fn_, pmpi_comm_null_copy_fn__)
LC_F_ALIAS(mpi_comm_null_copy_fn_, PMPI_COMM_NULL_COPY_FN)
LC_F_CALLBACK_NAMES(mpi_comm_null_copy_fn_, mpi_null_copy_fn, MPI_NULL_COPY_FN)
LC_F_ALIAS(mpi_comm_dup_fn_, mpi_comm_dup_fn)
LC_F_ALIAS(mpi_comm_dup_fn_, mpi_comm_dup_fn__)
LC_F_ALIAS(mpi_comm_dup_fn_, MPI_COMM_DUP_FN)
LC_F_ALIAS(mpi_comm_dup_fn_, pmpi_comm_dup_fn)
LC_F_ALIAS(mpi_comm_dup_fn_, pmpi_comm_dup_fn_)
LC_F_ALIAS(mpi_comm_dup_fn_, pmpi_comm_dup_fn__)
LC_F_ALIAS(mpi_comm_dup_fn_, PMPI_COMM_DUP_FN)
LC_F_ALIAS(mpi_dup_fn_, mpi_dup_fn)
LC_F_ALIAS(mpi_dup_fn_, mpi_dup_fn__)
LC_F_ALIAS(mpi_dup_fn_, MPI_DUP_FN)
LC_F_ALIAS(mpi_dup_fn_, pmpi_dup_fn)
LC_F_ALIAS(mpi_dup_fn_, pmpi_dup_fn_)
LC_F_ALIAS(mpi_dup_fn_, pmpi_dup_fn__)
LC_F_ALIAS(mpi_dup_fn_, PMPI_DUP_FN)
LC_F_ALIAS(mpi_comm_null_delete_fn_, mpi_comm_null_delete_fn)
LC_F_ALIAS(mpi_comm_null_delete_fn_, mpi_comm_null_delete_fn__)
LC_F_ALIAS(mpi_comm_null_delete_fn_, MPI_COMM_NULL_DELETE_FN)
LC_F_ALIAS(mpi_comm_null_delete_fn_, pmpi_comm_null_delete_fn)
LC_F_ALIAS(mpi_comm_null_delete_fn_, pmpi_comm_null_delete_fn_)
LC_F_ALIAS(mpi_comm_null_delete_fn_, pmpi_comm_null_delete_fn__)
LC_F_ALIAS(mpi_comm_null_delete_fn_, PMPI_COMM_NULL_DELETE_FN)
LC_F_CALLBACK_NAMES(mpi_comm_null_delete_fn_, mpi_null_delete_fn, MPI_NULL_DELETE_FN)
/* Datatype and window keyvals take callbacks of the communicator ones' shape. */
LC_F_CALLBACK_NAMES(mpi_comm_null_copy_fn_, mpi_type_null_copy_fn, MPI_TYPE_NULL_COPY_FN)
LC_F_CALLBACK_NAMES(mpi_comm_dup_fn_, mpi_type_dup_fn, MPI_TYPE_DUP_FN)
LC_F_CALLBACK_NAMES(mpi_comm_null_delete_fn_, mpi_type_null_delete_fn, MPI_TYPE_NULL_DELETE_FN)
LC_F_CALLBACK_NAMES(mpi_comm_null_copy_fn_, mpi_win_null_copy_fn, MPI_WIN_NULL_COPY_FN)
LC_F_CALLBACK_NAMES(mpi_comm_dup_fn_, mpi_win_dup_fn, MPI_WIN_DUP_FN)
LC_F_CALLBACK_NAMES(mpi_comm_null_delete_fn_, mpi_win_null_delete_fn, MPI_WIN_NULL_DELETE_FN)
/* MPICH's mpi_f08 module has them as module procedures of its module
 * mpi_f08_callbacks (gfortran's names); a program built with it refers to
 * those.  TYPE(MPI_Comm) etc. are INTEGERs in memory: the same code. */
LC_F_ALIAS(mpi_comm_null_copy_fn_, __mpi_f08_callbacks_MOD_mpi_comm_null_copy_fn)
LC_F_ALIAS(mpi_comm_dup_fn_, __mpi_f08_callbacks_MOD_mpi_comm_dup_fn)
LC_F_ALIAS(mpi_comm_null_delete_fn_, __mpi_f08_callbacks_MOD_mpi_comm_null_delete_fn)
LC_F_ALIAS(mpi_comm_null_copy_fn_, __mpi_f08_callbacks_MOD_mpi_type_null_copy_fn)
LC_F_ALIAS(mpi_comm_dup_fn_, __mpi_f08_callbacks_MOD_mpi_type_dup_fn)
LC_F_ALIAS(mpi_comm_null_delete_fn_, __mpi_f08_callbacks_MOD_mpi_type_null_delete_fn)
LC_F_ALIAS(mpi_comm_null_copy_fn_, __mpi_f08_callbacks_MOD_mpi_win_null_copy_fn)
LC_F_ALIAS(mpi_comm_dup_fn_, __mpi_f08_callbacks_MOD_mpi_win_dup_fn)
LC_F_ALIAS(mpi_comm_null_delete_fn_, __mpi_f08_callbacks_MOD_mpi_win_null_delete_fn)
