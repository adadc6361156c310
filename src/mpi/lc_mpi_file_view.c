/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_file_view.c — file views and the individual file pointer
 * (MPI 4.1 §14.3, §14.4.3): set_view / get_view, seek, get_position,
 * get_byte_offset, get_type_extent; and the hints (set_info/get_info).
 *
 * Data representations (§14.5, lc_mpi_datarep.c): the view keeps the
 * user's etype and filetype for get_view and works with their rebuilds
 * in the file's representation (lc_dt_file_rep), so displacements,
 * positions and extents are in file bytes; "native" and "internal" use
 * the user's types as they are.
 */
#include "coll/lc_coll.h"
#include "mpi/lc_mpi_dt.h"
#include "mpi/lc_mpi_file.h"

#include <string.h>

void lc_file_default_view(lc_file_t *f)
{
    f->view.disp = 0;
    f->view.etype = lc_dt_get(MPI_BYTE);
    f->view.ftype = lc_dt_get(MPI_BYTE);
    f->uetype = f->view.etype;
    f->uftype = f->view.ftype;
    lc_dt_retain(f->view.etype);
    lc_dt_retain(f->view.ftype);
    lc_dt_retain(f->uetype);
    lc_dt_retain(f->uftype);
    lc_io_view_init(&f->view);
    f->rep = NULL;
    strcpy(f->datarep, "native");
}

void lc_file_drop_view(lc_file_t *f)
{
    if (f->view.etype) lc_dt_release(f->view.etype);
    if (f->view.ftype) lc_dt_release(f->view.ftype);
    if (f->uetype) lc_dt_release(f->uetype);
    if (f->uftype) lc_dt_release(f->uftype);
    f->view.etype = f->view.ftype = f->uetype = f->uftype = NULL;
}

/* The order of a view type's data (MPI 4.1 §14.3): displacements
 * non-negative and monotonically non-decreasing, and no two elements
 * overlapping when the file may be written.  Walked run by run in
 * typemap order (origin 0: an address is the displacement). */
typedef struct lc_view_order {
    MPI_Aint start, end; /* the previous run's displacement, and the largest end so far */
    bool started, writable;
    const char *bad; /* what is wrong, or NULL */
} lc_view_order_t;

static int lc_view_order_visit(void *ctx, const lc_dtype_info_t *basic, uintptr_t addr, MPI_Count n)
{
    lc_view_order_t *o = ctx;
    MPI_Aint at = (MPI_Aint)addr, end = at + (MPI_Aint)n * (MPI_Aint)basic->size;
    if (at < 0)
        o->bad = "has a negative displacement";
    else if (o->started && at < o->start)
        o->bad = "has decreasing displacements";
    else if (o->started && o->writable && at < o->end)
        o->bad = "has overlapping elements, and the file is writable";
    o->started = true;
    o->start = at;
    if (end > o->end) o->end = end;
    return o->bad != NULL;
}

/* MPI_ERR_IO, as ROMIO answers (MPI 4.1 names no class for it). */
static int lc_file_check_order(lc_dt_t *t, const char *what, bool writable)
{
    lc_view_order_t o = { .writable = writable };
    lc_dt_walk(t, 0, 1, lc_view_order_visit, &o);
    if (!o.bad) return MPI_SUCCESS;
    return lc_error(MPI_ERR_IO,
                    "the %s %s: a file view's displacements must be non-negative and non-decreasing, "
                    "without overlaps in a file opened for writing (MPI 4.1 §14.3)",
                    what, o.bad);
}

static int lc_file_check_view_types(lc_dt_t *e, lc_dt_t *ft, bool writable)
{
    if (e->size <= 0) return lc_error(MPI_ERR_TYPE, "the etype has no data (size 0)");
    if (ft->size <= 0) return lc_error(MPI_ERR_TYPE, "the filetype has no data (size 0)");
    if (ft->size % e->size)
        return lc_error(MPI_ERR_TYPE, "the filetype's size %lld is not a multiple of the etype's %lld",
                        (long long)ft->size, (long long)e->size);
    int rc = lc_file_check_order(e, "etype", writable);
    if (!rc) rc = lc_file_check_order(ft, "filetype", writable);
    if (rc) return rc;
    if (lc_dt_extent(ft) <= 0)
        return lc_error(MPI_ERR_TYPE, "the filetype's extent %ld is not positive", (long)lc_dt_extent(ft));
    return MPI_SUCCESS;
}

static int lc_file_info_merge(lc_file_t *f, MPI_Info info)
{
    lc_info_t *user = NULL;
    int rc = lc_check_info_or_null(info, &user);
    for (int i = 0; !rc && user && i < user->n; i++)
        rc = lc_info_set(f->hints, user->entries[i].key, user->entries[i].value);
    return rc;
}

static int lc_file_set_view(lc_file_t *f, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                            const char *datarep, MPI_Info info)
{
    lc_dt_t *e = NULL, *ft = NULL, *fe = NULL, *fft = NULL;
    const lc_datarep_t *rep = NULL;
    int rc = MPI_SUCCESS;
    if (f->split_active) rc = lc_error(MPI_ERR_OTHER, "a split collective is open on the file: end it first");
    if (!rc) rc = lc_dt_check_comm(etype, &e);
    if (!rc) rc = lc_dt_check_comm(filetype, &ft);
    bool writable = !(f->amode & MPI_MODE_RDONLY);
    if (!rc) rc = lc_file_check_view_types(e, ft, writable);
    if (!rc) rc = lc_file_datarep_find(datarep, &rep);
    /* The types in the file's representation; checked again there (a
     * filetype may hold whole etypes in memory and not in the file). */
    if (!rc) rc = lc_file_rep_type(rep, e, &fe);
    if (!rc) rc = lc_file_rep_type(rep, ft, &fft);
    if (!rc && rep) rc = lc_file_check_view_types(fe, fft, writable);
    if (!rc && disp == MPI_DISPLACEMENT_CURRENT) {
        if (!(f->amode & MPI_MODE_SEQUENTIAL))
            rc = lc_error(MPI_ERR_ARG, "MPI_DISPLACEMENT_CURRENT is only allowed with MPI_MODE_SEQUENTIAL");
        else { /* the shared pointer's byte position in the current view */
            MPI_Offset sp;
            rc = lc_io_shfp_fetch_add(&f->shfp, 0, &sp);
            if (!rc) rc = lc_io_view_offset(&f->view, sp * f->view.esize, &disp);
        }
    } else if (!rc && disp < 0) {
        rc = lc_error(MPI_ERR_ARG, "displacement %lld is negative", (long long)disp);
    }
    rc = lc_file_agree(f->comm, rc, "MPI_File_set_view's arguments");
    if (!rc) rc = lc_file_info_merge(f, info);
    if (rc) {
        if (fe) lc_dt_release(fe);
        if (fft) lc_dt_release(fft);
        return rc;
    }
    lc_dt_retain(e);
    lc_dt_retain(ft);
    lc_file_drop_view(f);
    f->view.disp = disp;
    f->view.etype = fe;
    f->view.ftype = fft;
    f->uetype = e;
    f->uftype = ft;
    f->rep = rep;
    lc_io_view_init(&f->view);
    snprintf(f->datarep, sizeof f->datarep, "%s", datarep);
    f->pos = 0;
    return lc_file_shared_reset(f);
}

LC_API int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                              const char *datarep, MPI_Info info)
{
    lc_file_t *f = NULL;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_file_set_view(f, disp, etype, filetype, datarep, info));
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_set_view", rc);
}
LC_MPI_ALIAS(File_set_view);

LC_API int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                              char *datarep)
{
    lc_file_t *f = NULL;
    MPI_Datatype e = MPI_DATATYPE_NULL, ft = MPI_DATATYPE_NULL;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_check_ptr(disp, "disp"));
    LC_TRY(lc_check_ptr(etype, "etype"));
    LC_TRY(lc_check_ptr(filetype, "filetype"));
    LC_TRY(lc_check_ptr(datarep, "datarep"));
    /* Derived types come back as handles the user frees (MPI 4.1 §14.3). */
    LC_TRY(lc_dt_handle_out(f->uetype, &e));
    if ((rc = lc_dt_handle_out(f->uftype, &ft))) {
        lc_dt_handle_free(&e);
        goto err;
    }
    *disp = f->view.disp;
    *etype = e;
    *filetype = ft;
    strcpy(datarep, f->datarep);
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_get_view", rc);
}
LC_MPI_ALIAS(File_get_view);

/* The etype position of the end of the file seen through the view. */
static int lc_file_end_pos(lc_file_t *f, MPI_Offset *pos_p)
{
    MPI_Offset size, q;
    int rc = lc_io_get_size(f->fd, &size);
    if (!rc) rc = lc_io_view_data_below(&f->view, size, &q);
    if (!rc) *pos_p = (q + f->view.esize - 1) / f->view.esize;
    return rc;
}

int lc_file_seek_target(lc_file_t *f, MPI_Offset cur, MPI_Offset offset, int whence, MPI_Offset *pos_p)
{
    MPI_Offset base;
    int rc = MPI_SUCCESS;
    switch (whence) {
    case MPI_SEEK_SET: base = 0; break;
    case MPI_SEEK_CUR: base = cur; break;
    case MPI_SEEK_END: rc = lc_file_end_pos(f, &base); break;
    default:
        return lc_error(MPI_ERR_ARG, "whence %d is none of MPI_SEEK_SET, MPI_SEEK_CUR, MPI_SEEK_END", whence);
    }
    if (rc) return rc;
    if (base + offset < 0)
        return lc_error(MPI_ERR_ARG, "the seek would move the file pointer to %lld, before the start of the view",
                        (long long)(base + offset));
    *pos_p = base + offset;
    return MPI_SUCCESS;
}

LC_API int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    lc_file_t *f = NULL;
    MPI_Offset pos;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    if (f->amode & MPI_MODE_SEQUENTIAL)
        LC_TRY(lc_error(MPI_ERR_UNSUPPORTED_OPERATION, "a file opened with MPI_MODE_SEQUENTIAL has no individual "
                                                       "file pointer to seek"));
    LC_TRY(lc_file_seek_target(f, f->pos, offset, whence, &pos));
    f->pos = pos;
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_seek", rc);
}
LC_MPI_ALIAS(File_seek);

LC_API int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    lc_file_t *f = NULL;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_check_ptr(offset, "offset"));
    *offset = f->pos;
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_get_position", rc);
}
LC_MPI_ALIAS(File_get_position);

LC_API int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    lc_file_t *f = NULL;
    MPI_Offset off;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_check_ptr(disp, "disp"));
    if (offset < 0) LC_TRY(lc_error(MPI_ERR_ARG, "offset %lld is negative", (long long)offset));
    LC_TRY(lc_io_view_offset(&f->view, offset * f->view.esize, &off));
    *disp = off;
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_get_byte_offset", rc);
}
LC_MPI_ALIAS(File_get_byte_offset);

/* The extent of a type in the file's representation (MPI 4.1 §14.5.1):
 * with "native" its memory extent, else that of its rebuild in file
 * bytes. */
static int lc_file_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent, const char *func)
{
    lc_file_t *f = NULL;
    lc_dt_t *t, *r;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_mpi_dt_arg(datatype, &t));
    LC_TRY(lc_check_ptr(extent, "extent"));
    LC_TRY(lc_file_rep_type(f->rep, t, &r));
    *extent = lc_dt_extent(r);
    lc_dt_release(r);
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, func, rc);
}

LC_API int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Count e = 0;
    int rc = lc_file_type_extent(fh, datatype, extent ? &e : NULL, "MPI_File_get_type_extent");
    if (!rc) *extent = (MPI_Aint)e;
    return rc;
}
LC_MPI_ALIAS(File_get_type_extent);

LC_API int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    return lc_file_type_extent(fh, datatype, extent, "MPI_File_get_type_extent_c");
}
LC_MPI_ALIAS(File_get_type_extent_c);

LC_API int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    lc_file_t *f = NULL;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_file_agree(f->comm, lc_file_info_merge(f, info), "MPI_File_set_info"));
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_set_info", rc);
}
LC_MPI_ALIAS(File_set_info);

LC_API int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    lc_file_t *f = NULL;
    lc_info_t *copy;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_check_ptr(info_used, "info_used"));
    LC_TRY(lc_info_dup(f->hints, &copy));
    LC_TRY(lc_info_publish(copy, info_used));
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_get_info", rc);
}
LC_MPI_ALIAS(File_get_info);
