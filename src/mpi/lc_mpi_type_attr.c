/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_type_attr.c — attributes on datatypes (MPI 4.1 §7.7.4):
 * MPI_Type_create_keyval, free_keyval, set/get/delete_attr.
 *
 * The machinery is the communicators' (lc_mpi_attr.c) with kind
 * LC_ATTR_TYPE; a datatype's list lives in lc_dt_t.attrs.  Copy callbacks
 * run in MPI_Type_dup, delete callbacks in MPI_Type_free (both in
 * lc_mpi_type_attr_dup/free below, called from there).  Predefined
 * datatypes may carry attributes too: their objects are static and their
 * lists live until the process ends.
 */
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_attr.h"
#include "mpi/lc_mpi_dt.h"

LC_API int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                                   MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                                   void *extra_state)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(type_keyval, "type_keyval"));
    LC_TRY(lc_keyval_create(LC_ATTR_TYPE, (lc_attr_copy_fn_t *)type_copy_attr_fn,
                            (lc_attr_delete_fn_t *)type_delete_attr_fn, extra_state, type_keyval));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Type_create_keyval", rc);
}
LC_MPI_ALIAS(Type_create_keyval);

LC_API int PMPI_Type_free_keyval(int *type_keyval)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(type_keyval, "type_keyval"));
    LC_TRY(lc_keyval_free(LC_ATTR_TYPE, type_keyval));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Type_free_keyval", rc);
}
LC_MPI_ALIAS(Type_free_keyval);

static int lc_type_attr_set(MPI_Datatype datatype, int type_keyval, void *value, lc_attr_form_t form, const char *func)
{
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_dt_arg(datatype, &t));
    LC_TRY(lc_attr_set(LC_ATTR_TYPE, datatype, &t->attrs, type_keyval, value, form));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, func, rc);
}

LC_API int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    return lc_type_attr_set(datatype, type_keyval, attribute_val, LC_ATTR_PTR, "MPI_Type_set_attr");
}
LC_MPI_ALIAS(Type_set_attr);

LC_API int lc_mpi_type_attr_set_f(MPI_Datatype datatype, int keyval, MPI_Aint value)
{
    bool locking = lc_attr_f_enter();
    int rc = lc_type_attr_set(datatype, keyval, (void *)value, LC_ATTR_AINT, "MPI_TYPE_SET_ATTR");
    lc_attr_f_leave(locking);
    return rc;
}

/* attribute_val is a void ** in disguise (MPI's C binding takes void *);
 * as_int: Fortran's reading (lc_mpi_attr.h). */
static int lc_type_attr_get(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag, bool as_int,
                            const char *func)
{
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_dt_arg(datatype, &t));
    LC_TRY(lc_check_ptr(attribute_val, "attribute_val"));
    LC_TRY(lc_check_ptr(flag, "flag"));
    LC_TRY(lc_attr_get(LC_ATTR_TYPE, &t->attrs, type_keyval, as_int, (void **)attribute_val, flag));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, func, rc);
}

LC_API int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    return lc_type_attr_get(datatype, type_keyval, attribute_val, flag, false, "MPI_Type_get_attr");
}
LC_MPI_ALIAS(Type_get_attr);

LC_API int lc_mpi_type_attr_get_f(MPI_Datatype datatype, int keyval, MPI_Aint *value, int *flag)
{
    void *v = NULL;
    bool locking = lc_attr_f_enter();
    int rc = lc_type_attr_get(datatype, keyval, &v, flag, true, "MPI_TYPE_GET_ATTR");
    if (rc == MPI_SUCCESS && *flag) *value = (MPI_Aint)v;
    lc_attr_f_leave(locking);
    return rc;
}

LC_API int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_dt_arg(datatype, &t));
    LC_TRY(lc_attr_delete(LC_ATTR_TYPE, datatype, &t->attrs, type_keyval));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Type_delete_attr", rc);
}
LC_MPI_ALIAS(Type_delete_attr);

int lc_mpi_type_attr_dup(MPI_Datatype oldtype, MPI_Datatype newtype)
{
    lc_dt_t *old = lc_dt_get(oldtype), *t = lc_dt_get(newtype);
    if (!old || !old->attrs) return MPI_SUCCESS;
    return lc_attr_copy_all(LC_ATTR_TYPE, oldtype, &old->attrs, newtype, &t->attrs);
}

int lc_mpi_type_attr_free(MPI_Datatype datatype)
{
    lc_dt_t *t = lc_dt_get(datatype);
    if (!t || !t->attrs) return MPI_SUCCESS;
    return lc_attr_delete_all(LC_ATTR_TYPE, datatype, &t->attrs);
}
