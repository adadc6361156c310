/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_type_query.c — MPI_Type_commit, MPI_Type_free, the size and
 * extent queries (with their _c and _x forms and the MPI-1
 * MPI_Type_extent/lb/ub), and datatype names.
 */
#include "mpi/lc_mpi_dt.h"

#include <string.h>

LC_API int PMPI_Type_commit(MPI_Datatype *datatype)
{
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(datatype, "datatype"));
    LC_TRY(lc_mpi_dt_arg(*datatype, &t));
    LC_TRY(lc_dt_commit(t));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Type_commit", rc);
}
LC_MPI_ALIAS(Type_commit);

LC_API int PMPI_Type_free(MPI_Datatype *datatype)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(datatype, "datatype"));
    /* Delete callbacks first (a predefined type is refused below, before any). */
    lc_dt_t *t = lc_dt_get(*datatype);
    if (t && !lc_dt_is_predefined(t)) LC_TRY(lc_mpi_type_attr_free(*datatype));
    LC_TRY(lc_dt_handle_free(datatype));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Type_free", rc);
}
LC_MPI_ALIAS(Type_free);

/* ---- size ---------------------------------------------------------------------------- */

static int lc_mpi_type_size_any(MPI_Datatype datatype, MPI_Count *size, const char *fn)
{
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_dt_arg(datatype, &t));
    LC_TRY(lc_check_ptr(size, "size"));
    *size = t->size;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, fn, rc);
}

LC_API int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    MPI_Count n = 0;
    int rc = lc_mpi_type_size_any(datatype, size ? &n : NULL, "MPI_Type_size");
    if (rc == MPI_SUCCESS) *size = lc_mpi_int_or_undefined(n);
    return rc;
}
LC_MPI_ALIAS(Type_size);

LC_API int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    return lc_mpi_type_size_any(datatype, size, "MPI_Type_size_c");
}
LC_MPI_ALIAS(Type_size_c);

LC_API int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    return lc_mpi_type_size_any(datatype, size, "MPI_Type_size_x");
}
LC_MPI_ALIAS(Type_size_x);

/* ---- extents ------------------------------------------------------------------------- */

enum { LC_EXT, LC_TRUE_EXT, LC_EXT_ONLY, LC_LB_ONLY, LC_UB_ONLY };

static int lc_mpi_type_extent_any(MPI_Datatype datatype, int what, MPI_Count *a, MPI_Count *b, const char *fn)
{
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_dt_arg(datatype, &t));
    LC_TRY(lc_check_ptr(a, what == LC_TRUE_EXT ? "true_lb" : what == LC_EXT ? "lb" : "result"));
    if (what == LC_EXT || what == LC_TRUE_EXT) LC_TRY(lc_check_ptr(b, what == LC_EXT ? "extent" : "true_extent"));
    switch (what) {
    case LC_EXT: *a = t->lb, *b = lc_dt_extent(t); break;
    case LC_TRUE_EXT: *a = t->true_lb, *b = t->true_ub - t->true_lb; break;
    case LC_EXT_ONLY: *a = lc_dt_extent(t); break;
    case LC_LB_ONLY: *a = t->lb; break;
    default: *a = t->ub; break;
    }
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, fn, rc);
}

/* MPI_Aint outputs: the values fit (bounds are MPI_Aint inside). */
static int lc_mpi_type_extent_aint(MPI_Datatype datatype, int what, MPI_Aint *a, MPI_Aint *b, const char *fn)
{
    MPI_Count x = 0, y = 0;
    int rc = lc_mpi_type_extent_any(datatype, what, a ? &x : NULL, b ? &y : NULL, fn);
    if (rc == MPI_SUCCESS) {
        *a = (MPI_Aint)x;
        if (b) *b = (MPI_Aint)y;
    }
    return rc;
}

LC_API int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    return lc_mpi_type_extent_aint(datatype, LC_EXT, lb, extent, "MPI_Type_get_extent");
}
LC_MPI_ALIAS(Type_get_extent);

LC_API int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return lc_mpi_type_extent_any(datatype, LC_EXT, lb, extent, "MPI_Type_get_extent_c");
}
LC_MPI_ALIAS(Type_get_extent_c);

LC_API int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return lc_mpi_type_extent_any(datatype, LC_EXT, lb, extent, "MPI_Type_get_extent_x");
}
LC_MPI_ALIAS(Type_get_extent_x);

LC_API int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    return lc_mpi_type_extent_aint(datatype, LC_TRUE_EXT, true_lb, true_extent, "MPI_Type_get_true_extent");
}
LC_MPI_ALIAS(Type_get_true_extent);

LC_API int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return lc_mpi_type_extent_any(datatype, LC_TRUE_EXT, true_lb, true_extent, "MPI_Type_get_true_extent_c");
}
LC_MPI_ALIAS(Type_get_true_extent_c);

LC_API int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return lc_mpi_type_extent_any(datatype, LC_TRUE_EXT, true_lb, true_extent, "MPI_Type_get_true_extent_x");
}
LC_MPI_ALIAS(Type_get_true_extent_x);

/* MPI-1 names (deprecated; MPICH still exports them). */
LC_API int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    return lc_mpi_type_extent_aint(datatype, LC_EXT_ONLY, extent, NULL, "MPI_Type_extent");
}
LC_MPI_ALIAS(Type_extent);

LC_API int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    return lc_mpi_type_extent_aint(datatype, LC_LB_ONLY, displacement, NULL, "MPI_Type_lb");
}
LC_MPI_ALIAS(Type_lb);

LC_API int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    return lc_mpi_type_extent_aint(datatype, LC_UB_ONLY, displacement, NULL, "MPI_Type_ub");
}
LC_MPI_ALIAS(Type_ub);

/* ---- names --------------------------------------------------------------------------- */

LC_API int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_dt_arg(datatype, &t));
    LC_TRY(lc_check_ptr(type_name, "type_name"));
    LC_TRY(lc_dt_set_name(t, type_name));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Type_set_name", rc);
}
LC_MPI_ALIAS(Type_set_name);

LC_API int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(type_name, "type_name"));
    LC_TRY(lc_check_ptr(resultlen, "resultlen"));
    const char *name = "MPI_DATATYPE_NULL"; /* MPI 4.1 names the null handle too */
    if (datatype != MPI_DATATYPE_NULL) {
        LC_TRY(lc_mpi_dt_arg(datatype, &t));
        name = lc_dt_name(t);
    }
    size_t len = strnlen(name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(type_name, name, len);
    type_name[len] = '\0';
    *resultlen = (int)len;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Type_get_name", rc);
}
LC_MPI_ALIAS(Type_get_name);
