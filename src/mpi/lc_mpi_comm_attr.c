/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_comm_attr.c — attributes on communicators: keyvals, set/get/
 * delete, the deprecated MPI-1 names, the predefined attributes and
 * MPIR_Dup_fn (MPICH's MPI_DUP_FN / MPI_COMM_DUP_FN: binaries built with
 * MPICH's mpi.h reference it by that name).
 *
 * The predefined attributes (MPI 4.1 §11.1.1) are read through a pointer
 * to an int, on any communicator (MPICH answers on every one, the
 * standard only requires MPI_COMM_WORLD).
 */
#include "mpi/lc_mpi.h"
#include "pmi/lc_pmi_spawn.h"
#include "mpi/lc_mpi_attr.h"
#include "mpi/lc_mpi_comm.h"
#include "mpi/lc_mpi_errhandler.h"

LC_API int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                       void *attribute_val_out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

/* The value of a predefined attribute, or NULL when `keyval` is none. */
static int *lc_comm_predefined_attr(int keyval)
{
    static int tag_ub = LC_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_is_global = 0;
    static int universe_size, appnum;
    switch (keyval) {
    case MPI_TAG_UB: return &tag_ub;
    case MPI_HOST: return &host;                    /* no process is "the host" */
    case MPI_IO: return &io;                        /* every process can do I/O */
    case MPI_WTIME_IS_GLOBAL: return &wtime_is_global; /* each host's monotonic clock */
    case MPI_UNIVERSE_SIZE:                         /* the launcher's slots; absent when unknown */
        universe_size = lc_pmi_universe_size();
        return universe_size >= 0 ? &universe_size : NULL;
    case MPI_APPNUM:
        appnum = lc_mpi_appnum;
        return lc_mpi_appnum >= 0 ? &appnum : NULL;
    case MPI_LASTUSEDCODE: return lc_mpi_lastusedcode();
    default: return NULL;
    }
}

static bool lc_comm_keyval_predefined(int keyval)
{
    return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO || keyval == MPI_WTIME_IS_GLOBAL ||
           keyval == MPI_UNIVERSE_SIZE || keyval == MPI_APPNUM || keyval == MPI_LASTUSEDCODE;
}

static int lc_comm_keyval_create(lc_attr_copy_fn_t *copy, lc_attr_delete_fn_t *del, int *keyval, void *extra,
                                 const char *func)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(keyval, "keyval"));
    LC_TRY(lc_keyval_create(LC_ATTR_COMM, copy, del, extra, keyval));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, func, rc);
}

LC_API int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                                   MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                                   void *extra_state)
{
    return lc_comm_keyval_create(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state,
                                 "MPI_Comm_create_keyval");
}
LC_MPI_ALIAS(Comm_create_keyval);

LC_API int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                              void *extra_state)
{
    return lc_comm_keyval_create(copy_fn, delete_fn, keyval, extra_state, "MPI_Keyval_create");
}
LC_MPI_ALIAS(Keyval_create);

static int lc_comm_keyval_free(int *keyval, const char *func)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(keyval, "keyval"));
    LC_TRY(lc_keyval_free(LC_ATTR_COMM, keyval));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, func, rc);
}

LC_API int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return lc_comm_keyval_free(comm_keyval, "MPI_Comm_free_keyval");
}
LC_MPI_ALIAS(Comm_free_keyval);

LC_API int PMPI_Keyval_free(int *keyval)
{
    return lc_comm_keyval_free(keyval, "MPI_Keyval_free");
}
LC_MPI_ALIAS(Keyval_free);

static int lc_comm_attr_set(MPI_Comm comm, int keyval, void *value, lc_attr_form_t form, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (lc_comm_keyval_predefined(keyval))
        LC_TRY(lc_error(MPI_ERR_KEYVAL, "keyval %#x is a predefined attribute: it cannot be set", (unsigned)keyval));
    LC_TRY(lc_attr_set(LC_ATTR_COMM, c->handle, &c->attrs, keyval, value, form));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return lc_comm_attr_set(comm, comm_keyval, attribute_val, LC_ATTR_PTR, "MPI_Comm_set_attr");
}
LC_MPI_ALIAS(Comm_set_attr);

LC_API int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return lc_comm_attr_set(comm, keyval, attribute_val, LC_ATTR_PTR, "MPI_Attr_put");
}
LC_MPI_ALIAS(Attr_put);

LC_API int lc_mpi_comm_attr_set_f(MPI_Comm comm, int keyval, MPI_Aint value, int mpi1)
{
    bool locking = lc_attr_f_enter();
    int rc = lc_comm_attr_set(comm, keyval, (void *)value, mpi1 ? LC_ATTR_FINT : LC_ATTR_AINT,
                              mpi1 ? "MPI_ATTR_PUT" : "MPI_COMM_SET_ATTR");
    lc_attr_f_leave(locking);
    return rc;
}

/* attribute_val is a void ** in disguise (MPI's C binding takes void *);
 * as_int: Fortran's reading, an integer in it (the predefined attributes'
 * values themselves). */
static int lc_comm_attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag, bool as_int, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(attribute_val, "attribute_val"));
    LC_TRY(lc_check_ptr(flag, "flag"));
    if (lc_comm_keyval_predefined(keyval)) {
        int *v = lc_comm_predefined_attr(keyval);
        *flag = v != NULL;
        if (v) *(void **)attribute_val = as_int ? (void *)(MPI_Aint)*v : v;
        return MPI_SUCCESS;
    }
    LC_TRY(lc_attr_get(LC_ATTR_COMM, &c->attrs, keyval, as_int, (void **)attribute_val, flag));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return lc_comm_attr_get(comm, comm_keyval, attribute_val, flag, false, "MPI_Comm_get_attr");
}
LC_MPI_ALIAS(Comm_get_attr);

LC_API int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return lc_comm_attr_get(comm, keyval, attribute_val, flag, false, "MPI_Attr_get");
}
LC_MPI_ALIAS(Attr_get);

LC_API int lc_mpi_comm_attr_get_f(MPI_Comm comm, int keyval, MPI_Aint *value, int *flag)
{
    void *v = NULL;
    bool locking = lc_attr_f_enter();
    int rc = lc_comm_attr_get(comm, keyval, &v, flag, true, "MPI_COMM_GET_ATTR");
    if (rc == MPI_SUCCESS && *flag) *value = (MPI_Aint)v;
    lc_attr_f_leave(locking);
    return rc;
}

static int lc_comm_attr_delete(MPI_Comm comm, int keyval, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (lc_comm_keyval_predefined(keyval))
        LC_TRY(lc_error(MPI_ERR_KEYVAL, "keyval %#x is a predefined attribute: it cannot be deleted",
                        (unsigned)keyval));
    LC_TRY(lc_attr_delete(LC_ATTR_COMM, c->handle, &c->attrs, keyval));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return lc_comm_attr_delete(comm, comm_keyval, "MPI_Comm_delete_attr");
}
LC_MPI_ALIAS(Comm_delete_attr);

LC_API int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return lc_comm_attr_delete(comm, keyval, "MPI_Attr_delete");
}
LC_MPI_ALIAS(Attr_delete);
