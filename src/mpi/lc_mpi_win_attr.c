/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_win_attr.c — attributes and error handlers of windows: keyvals,
 * set/get/delete (the attribute machinery of lc_mpi_attr.c, kind 8), the
 * predefined MPI_WIN_BASE / SIZE / DISP_UNIT / CREATE_FLAVOR / MODEL, and
 * Win_create_errhandler / set / get / call_errhandler.
 */
#include "mpi/lc_mpi_attr.h"
#include "mpi/lc_mpi_errhandler.h"
#include "mpi/lc_mpi_win.h"

static bool lc_win_keyval_predefined(int keyval)
{
    return keyval == MPI_WIN_BASE || keyval == MPI_WIN_SIZE || keyval == MPI_WIN_DISP_UNIT ||
           keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL;
}

LC_API int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                                  MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(win_keyval, "win_keyval"));
    LC_TRY(lc_keyval_create(LC_ATTR_WIN, win_copy_attr_fn, win_delete_attr_fn, extra_state, win_keyval));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Win_create_keyval", rc);
}
LC_MPI_ALIAS(Win_create_keyval);

LC_API int PMPI_Win_free_keyval(int *win_keyval)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(win_keyval, "win_keyval"));
    LC_TRY(lc_keyval_free(LC_ATTR_WIN, win_keyval));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Win_free_keyval", rc);
}
LC_MPI_ALIAS(Win_free_keyval);

static int lc_win_attr_set(MPI_Win win, int win_keyval, void *attribute_val, lc_attr_form_t form, const char *func)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    if (lc_win_keyval_predefined(win_keyval))
        LC_TRY(lc_error(MPI_ERR_KEYVAL, "keyval %#x is a predefined window attribute: it cannot be set",
                        (unsigned)win_keyval));
    LC_TRY(lc_attr_set(LC_ATTR_WIN, (int)w->handle, &w->attrs, win_keyval, attribute_val, form));
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, func, rc);
}

LC_API int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    return lc_win_attr_set(win, win_keyval, attribute_val, LC_ATTR_PTR, "MPI_Win_set_attr");
}
LC_MPI_ALIAS(Win_set_attr);

LC_API int lc_mpi_win_attr_set_f(MPI_Win win, int keyval, MPI_Aint value)
{
    bool locking = lc_attr_f_enter();
    int rc = lc_win_attr_set(win, keyval, (void *)value, LC_ATTR_AINT, "MPI_WIN_SET_ATTR");
    lc_attr_f_leave(locking);
    return rc;
}

/* attribute_val is a void ** in disguise.  MPI_WIN_BASE is the base
 * itself; the others are pointers to the value (MPI 4.1 §12.2.6).
 * as_int: Fortran's reading, an integer (the base address, the others'
 * values). */
static int lc_win_attr_get(MPI_Win win, int win_keyval, void *attribute_val, int *flag, bool as_int, const char *func)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_check_ptr(attribute_val, "attribute_val"));
    LC_TRY(lc_check_ptr(flag, "flag"));
    void **out = attribute_val;
    *flag = 1;
    switch (win_keyval) {
    case MPI_WIN_BASE:
        *out = lc_rma_win_base(w->rma);
        return MPI_SUCCESS;
    case MPI_WIN_SIZE:
        *out = as_int ? (void *)(MPI_Aint)w->size_attr : &w->size_attr;
        return MPI_SUCCESS;
    case MPI_WIN_DISP_UNIT:
        *out = as_int ? (void *)(MPI_Aint)w->disp_unit_attr : &w->disp_unit_attr;
        return MPI_SUCCESS;
    case MPI_WIN_CREATE_FLAVOR:
        *out = as_int ? (void *)(MPI_Aint)w->flavor_attr : &w->flavor_attr;
        return MPI_SUCCESS;
    case MPI_WIN_MODEL:
        *out = as_int ? (void *)(MPI_Aint)w->model_attr : &w->model_attr;
        return MPI_SUCCESS;
    default:
        break;
    }
    LC_TRY(lc_attr_get(LC_ATTR_WIN, &w->attrs, win_keyval, as_int, out, flag));
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, func, rc);
}

LC_API int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    return lc_win_attr_get(win, win_keyval, attribute_val, flag, false, "MPI_Win_get_attr");
}
LC_MPI_ALIAS(Win_get_attr);

LC_API int lc_mpi_win_attr_get_f(MPI_Win win, int keyval, MPI_Aint *value, int *flag)
{
    void *v = NULL;
    bool locking = lc_attr_f_enter();
    int rc = lc_win_attr_get(win, keyval, &v, flag, true, "MPI_WIN_GET_ATTR");
    if (rc == MPI_SUCCESS && *flag) *value = (MPI_Aint)v;
    lc_attr_f_leave(locking);
    return rc;
}

LC_API int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    if (lc_win_keyval_predefined(win_keyval))
        LC_TRY(lc_error(MPI_ERR_KEYVAL, "keyval %#x is a predefined window attribute: it cannot be deleted",
                        (unsigned)win_keyval));
    LC_TRY(lc_attr_delete(LC_ATTR_WIN, (int)w->handle, &w->attrs, win_keyval));
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_delete_attr", rc);
}
LC_MPI_ALIAS(Win_delete_attr);

LC_API int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler)
{
    int rc;
    LC_TRY(lc_errhandler_create((MPI_Comm_errhandler_function *)win_errhandler_fn, errhandler));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Win_create_errhandler", rc);
}
LC_MPI_ALIAS(Win_create_errhandler);

LC_API int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_check_comm_errhandler(errhandler));
    lc_errhandler_retain(errhandler);
    lc_errhandler_release(w->errhandler);
    w->errhandler = errhandler;
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_set_errhandler", rc);
}
LC_MPI_ALIAS(Win_set_errhandler);

LC_API int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_check_ptr(errhandler, "errhandler"));
    lc_errhandler_retain(w->errhandler); /* the handle returned is the user's to free */
    *errhandler = w->errhandler;
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_get_errhandler", rc);
}
LC_MPI_ALIAS(Win_get_errhandler);

/* Runs the window's handler as an error on the window would. */
LC_API int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    lc_mpi_win_error(w, "MPI_Win_call_errhandler", errorcode);
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_call_errhandler", rc);
}
LC_MPI_ALIAS(Win_call_errhandler);
