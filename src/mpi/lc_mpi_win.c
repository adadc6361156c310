/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_win.c — window creation and freeing (MPI 4.1 §12.2):
 * Win_create, Win_allocate, Win_allocate_shared, Win_create_dynamic (and
 * their _c forms), Win_free, Win_shared_query, Win_attach/detach,
 * Win_get_group, names and hints.  Every window gets a private duplicate
 * of its communicator, so its one-sided traffic never meets the user's.
 */
#include "datatype/lc_dt.h"
#include "mpi/lc_mpi_attr.h"
#include "mpi/lc_mpi_comm.h"
#include "mpi/lc_mpi_errhandler.h"
#include "mpi/lc_mpi_group.h"
#include "mpi/lc_mpi_win.h"
#include "util/lc_handle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static lc_handle_table_t lc_wins = LC_HANDLE_TABLE_INIT(0xa0000000u, 0x03ffffffu);

lc_win_t *lc_win_find(MPI_Win handle)
{
    return lc_likely(lc_mpi_state == LC_MPI_STATE_INIT) ? lc_handle_get(&lc_wins, handle) : NULL;
}

int lc_check_win(MPI_Win handle, lc_win_t **win_p)
{
    int rc = lc_check_initialized();
    if (rc) return rc;
    lc_win_t *w = lc_handle_get(&lc_wins, handle);
    if (w) {
        *win_p = w;
        return MPI_SUCCESS;
    }
    if (handle == MPI_WIN_NULL) return lc_error(MPI_ERR_WIN, "the window is MPI_WIN_NULL");
    return lc_error(MPI_ERR_WIN, "%#x is not a valid window (freed, or not a window)", (unsigned)handle);
}

int lc_mpi_win_error(lc_win_t *win, const char *func, int code)
{
    if (!win) return lc_mpi_error(NULL, func, code);
    return lc_mpi_error_handler(win->errhandler, (int)win->handle, "window", func, code);
}

int lc_check_rma_dtype(MPI_Datatype dt)
{
    if (lc_likely(lc_dtype_valid(dt))) return MPI_SUCCESS;
    lc_dt_t *t; /* derived: committed (MPI 4.1 §12.3) */
    return lc_dt_check_comm(dt, &t);
}

static bool lc_info_true(const lc_info_t *info, const char *key)
{
    const char *v = info ? lc_info_get(info, key) : NULL;
    return v && strcmp(v, "true") == 0;
}

/* Everything the creation calls share; `base_p` as lc_rma_win_create. */
static int lc_win_make(MPI_Comm comm, int flavor, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, void **base_p,
                       MPI_Win *win_p, lc_comm_t **c_p)
{
    lc_comm_t *c = NULL, *dup = NULL;
    lc_info_t *hints = NULL, *copy = NULL;
    int rc = lc_check_comm(comm, &c);
    *c_p = c;
    if (rc) return rc;
    if ((rc = lc_check_intra(c, "a window (MPI_Win_create and the other window constructors)"))) return rc;
    if ((rc = lc_check_info_or_null(info, &hints))) return rc;
    if ((rc = lc_check_ptr(win_p, "win"))) return rc;
    if (size < 0) return lc_error(MPI_ERR_SIZE, "window size %ld is negative", (long)size);
    if (disp_unit <= 0 || disp_unit > INT32_MAX)
        return lc_error(MPI_ERR_DISP, "displacement unit %ld must be positive (and fit an int)", (long)disp_unit);
    if (flavor != LC_RMA_CREATE && flavor != LC_RMA_DYNAMIC && (rc = lc_check_ptr(base_p, "baseptr"))) return rc;
    lc_win_t *w = calloc(1, sizeof *w);
    if (!w) return lc_error(MPI_ERR_NO_MEM, "out of memory creating a window");
    if ((rc = lc_info_dup(hints, &copy))) goto fail;
    w->info = copy;
    if ((rc = lc_mpi_comm_derive(c, c->rank, c->size, c->world_ranks, &dup))) goto fail;
    rc = lc_rma_win_create(dup, flavor, (size_t)size, (int)disp_unit, lc_info_true(hints, "alloc_shared_noncontig"),
                           base_p, &w->rma);
    if (rc) goto fail;
    w->comm = dup;
    w->errhandler = MPI_ERRORS_ARE_FATAL;
    w->size_attr = (size_t)size;
    w->disp_unit_attr = (int)disp_unit;
    w->flavor_attr = flavor;
    w->model_attr = MPI_WIN_UNIFIED;
    if ((rc = lc_handle_add(&lc_wins, w, &w->handle))) {
        lc_rma_win_free(w->rma);
        goto fail;
    }
    *win_p = w->handle;
    return MPI_SUCCESS;
fail:
    if (dup) lc_comm_free_handle(dup);
    lc_info_free(w->info);
    free(w);
    return rc;
}

/* MPI_Win_allocate(size, disp_unit, info, comm, baseptr, win): the
 * argument order differs from Win_create, hence two shapes. */
static int lc_win_alloc(const char *func, int flavor, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_win_make(comm, flavor, size, disp_unit, info, (void **)baseptr, win, &c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    return lc_win_alloc("MPI_Win_allocate", LC_RMA_ALLOCATE, size, disp_unit, info, comm, baseptr, win);
}
LC_MPI_ALIAS(Win_allocate);

LC_API int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                               MPI_Win *win)
{
    return lc_win_alloc("MPI_Win_allocate_c", LC_RMA_ALLOCATE, size, disp_unit, info, comm, baseptr, win);
}
LC_MPI_ALIAS(Win_allocate_c);

/* Win_allocate_shared refuses, with MPI_ERR_RMA_SHARED, a communicator
 * whose ranks are not all proven shared-memory peers. */
static int lc_win_alloc_shared(const char *func, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void *baseptr, MPI_Win *win)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_intra(c, "a window (MPI_Win_create and the other window constructors)"));
    for (int r = 0; r < c->size; r++) {
        lc_channel_kind_t k = c->peers[r]->kind;
        if (k != LC_CHANNEL_SELF && k != LC_CHANNEL_SHM)
            LC_TRY(lc_error(MPI_ERR_RMA_SHARED,
                            "rank %d of the communicator (world rank %d) does not share memory with rank %d: "
                            "make the communicator with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)",
                            r, c->world_ranks[r], c->rank));
    }
    LC_TRY(lc_win_make(comm, LC_RMA_SHARED, size, disp_unit, info, (void **)baseptr, win, &c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                                    MPI_Win *win)
{
    return lc_win_alloc_shared("MPI_Win_allocate_shared", size, disp_unit, info, comm, baseptr, win);
}
LC_MPI_ALIAS(Win_allocate_shared);

LC_API int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                                      MPI_Win *win)
{
    return lc_win_alloc_shared("MPI_Win_allocate_shared_c", size, disp_unit, info, comm, baseptr, win);
}
LC_MPI_ALIAS(Win_allocate_shared_c);

static int lc_win_create(const char *func, void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                         MPI_Win *win)
{
    lc_comm_t *c = NULL;
    int rc;
    if (base == NULL && size > 0) {
        rc = lc_check_comm(comm, &c);
        if (!rc) rc = lc_error(MPI_ERR_BASE, "base is NULL but the window has %ld bytes", (long)size);
        goto err;
    }
    LC_TRY(lc_win_make(comm, LC_RMA_CREATE, size, disp_unit, info, &base, win, &c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return lc_win_create("MPI_Win_create", base, size, disp_unit, info, comm, win);
}
LC_MPI_ALIAS(Win_create);

LC_API int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return lc_win_create("MPI_Win_create_c", base, size, disp_unit, info, comm, win);
}
LC_MPI_ALIAS(Win_create_c);

LC_API int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_win_make(comm, LC_RMA_DYNAMIC, 0, 1, info, NULL, win, &c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Win_create_dynamic", rc);
}
LC_MPI_ALIAS(Win_create_dynamic);

LC_API int PMPI_Win_free(MPI_Win *win)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_ptr(win, "win"));
    LC_TRY(lc_check_win(*win, &w));
    /* Delete callbacks first: they may still use the window. */
    LC_TRY(lc_attr_delete_all(LC_ATTR_WIN, (int)w->handle, &w->attrs));
    rc = lc_rma_win_free(w->rma);
    lc_handle_remove(&lc_wins, w->handle);
    lc_comm_free_handle(w->comm);
    lc_errhandler_release(w->errhandler);
    lc_info_free(w->info);
    free(w);
    *win = MPI_WIN_NULL;
    if (rc) return lc_mpi_error(NULL, "MPI_Win_free", rc);
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_free", rc);
}
LC_MPI_ALIAS(Win_free);

static int lc_win_shared_query(const char *func, MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *unit_big, int *unit,
                               void *baseptr)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_check_ptr(size, "size"));
    LC_TRY(lc_check_ptr(unit_big ? (void *)unit_big : (void *)unit, "disp_unit"));
    LC_TRY(lc_check_ptr(baseptr, "baseptr"));
    if (rank != MPI_PROC_NULL) LC_TRY(lc_check_rank(w->comm, rank, false));
    size_t sz;
    int du;
    void *base;
    lc_rma_win_shared_query(w->rma, rank, &sz, &du, &base);
    *size = (MPI_Aint)sz;
    if (unit_big)
        *unit_big = du;
    else
        *unit = du;
    *(void **)baseptr = base;
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, func, rc);
}

LC_API int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    return lc_win_shared_query("MPI_Win_shared_query", win, rank, size, NULL, disp_unit, baseptr);
}
LC_MPI_ALIAS(Win_shared_query);

LC_API int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr)
{
    return lc_win_shared_query("MPI_Win_shared_query_c", win, rank, size, disp_unit, NULL, baseptr);
}
LC_MPI_ALIAS(Win_shared_query_c);

LC_API int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    if (lc_rma_win_flavor(w->rma) != LC_RMA_DYNAMIC)
        LC_TRY(lc_error(MPI_ERR_RMA_FLAVOR, "MPI_Win_attach needs a window made by MPI_Win_create_dynamic"));
    if (size < 0) LC_TRY(lc_error(MPI_ERR_SIZE, "size %ld is negative", (long)size));
    if (size > 0) LC_TRY(lc_check_ptr(base, "base"));
    LC_TRY(lc_rma_win_attach(w->rma, base, (size_t)size));
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_attach", rc);
}
LC_MPI_ALIAS(Win_attach);

LC_API int PMPI_Win_detach(MPI_Win win, const void *base)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    if (lc_rma_win_flavor(w->rma) != LC_RMA_DYNAMIC)
        LC_TRY(lc_error(MPI_ERR_RMA_FLAVOR, "MPI_Win_detach needs a window made by MPI_Win_create_dynamic"));
    LC_TRY(lc_rma_win_detach(w->rma, base));
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_detach", rc);
}
LC_MPI_ALIAS(Win_detach);

LC_API int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    lc_win_t *w = NULL;
    lc_group_t *g;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_check_ptr(group, "group"));
    LC_TRY(lc_group_new(w->comm->size, w->comm->world_ranks, &g));
    LC_TRY(lc_group_publish(g, group));
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_get_group", rc);
}
LC_MPI_ALIAS(Win_get_group);

LC_API int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_check_ptr(win_name, "win_name"));
    /* Longer names are cut (MPI 4.1 §7.8 allows it), as for communicators. */
    snprintf(w->name, sizeof w->name, "%s", win_name);
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_set_name", rc);
}
LC_MPI_ALIAS(Win_set_name);

LC_API int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    lc_win_t *w = NULL;
    int rc;
    /* MPI 4.1 names the null handle too, as for MPI_COMM_NULL. */
    if (win != MPI_WIN_NULL) LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(win_name, "win_name"));
    LC_TRY(lc_check_ptr(resultlen, "resultlen"));
    const char *name = w ? w->name : "MPI_WIN_NULL";
    strcpy(win_name, name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_get_name", rc);
}
LC_MPI_ALIAS(Win_get_name);

LC_API int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    lc_win_t *w = NULL;
    lc_info_t *in, *copy;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_check_info(info, &in));
    LC_TRY(lc_info_dup(w->info, &copy));
    for (int i = 0; i < in->n; i++) {
        rc = lc_info_set(copy, in->entries[i].key, in->entries[i].value);
        if (rc) {
            lc_info_free(copy);
            goto err;
        }
    }
    lc_info_free(w->info);
    w->info = copy;
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_set_info", rc);
}
LC_MPI_ALIAS(Win_set_info);

LC_API int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    lc_win_t *w = NULL;
    lc_info_t *copy;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_check_ptr(info_used, "info_used"));
    LC_TRY(lc_info_dup(w->info, &copy));
    LC_TRY(lc_info_publish(copy, info_used));
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_get_info", rc);
}
LC_MPI_ALIAS(Win_get_info);
