/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_file_rw.c — data access through explicit offsets and the
 * individual file pointer (MPI 4.1 §14.4.2-14.4.5): read/write, _at,
 * _all, _at_all, their nonblocking forms (iread, iwrite_at_all, ...) and
 * split collectives (_begin/_end), each with its _c (MPI_Count) form.
 *
 * This slice:
 *   - collective calls (_all) go through two-phase collective buffering
 *     (lc_mpi_file_coll.c) when the romio_cb_* hints and the access
 *     pattern say so, else are independent accesses; both end with the
 *     agreement (every rank learns whether all succeeded);
 *   - nonblocking calls do the I/O when they are started and return a
 *     request that is already complete (allowed: MPI says when the
 *     operation may complete, not that it must be late); the ordered and
 *     collective ones are therefore collective at start;
 *   - a split collective does the whole operation in _begin and keeps
 *     its outcome for _end (one per file at a time, §14.4.5).
 * The shared-pointer and ordered calls are in lc_mpi_file_shared.c.
 */
#include "mpi/lc_mpi_file.h"
#include "mpi/lc_mpi_request.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int lc_file_check_mode(const lc_file_t *f, bool write, bool indiv)
{
    if (write && (f->amode & MPI_MODE_RDONLY))
        return lc_error(MPI_ERR_READ_ONLY, "%s was opened MPI_MODE_RDONLY: it cannot be written", f->path);
    if (!write && (f->amode & MPI_MODE_WRONLY))
        return lc_error(MPI_ERR_ACCESS, "%s was opened MPI_MODE_WRONLY: it cannot be read", f->path);
    if (indiv && (f->amode & MPI_MODE_SEQUENTIAL))
        return lc_error(MPI_ERR_UNSUPPORTED_OPERATION, "%s was opened MPI_MODE_SEQUENTIAL: only the shared file "
                                                       "pointer may be used", f->path);
    return MPI_SUCCESS;
}

/* Data sieving from ROMIO's hints: "romio_ds_read" / "romio_ds_write"
 * (automatic, enable, disable; anything else: automatic) and
 * "ind_rd_buffer_size" / "ind_wr_buffer_size" (bytes per span; not a
 * positive number: the default). */
void lc_file_sieve(const lc_file_t *f, bool write, lc_io_sieve_t *ds)
{
    ds->mode = LC_IO_DS_AUTO;
    ds->cap = write ? LC_IO_DS_WR_CAP : LC_IO_DS_CAP;
    ds->readable = !(f->amode & MPI_MODE_WRONLY);
    const char *mode = lc_info_get(f->hints, write ? "romio_ds_write" : "romio_ds_read");
    if (mode && !strcmp(mode, "enable")) ds->mode = LC_IO_DS_ENABLE;
    if (mode && !strcmp(mode, "disable")) ds->mode = LC_IO_DS_DISABLE;
    long long v = lc_file_hint_num(f, write ? "ind_wr_buffer_size" : "ind_rd_buffer_size");
    if (v > 0) ds->cap = (size_t)v;
}

long long lc_file_hint_num(const lc_file_t *f, const char *key)
{
    const char *s = lc_info_get(f->hints, key);
    if (!s) return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    return end != s && *end == '\0' && errno == 0 && v > 0 ? v : -1;
}

int lc_file_access_check(lc_file_t *f, const void *buf, MPI_Count count, MPI_Datatype dt, lc_dt_t **t_p,
                         MPI_Count *item_p)
{
    lc_dt_t *t;
    MPI_Count item;
    int rc = lc_check_count(count);
    if (!rc) rc = lc_dt_check_comm(dt, &t);
    if (!rc) rc = lc_check_buf(buf, count, dt);
    if (!rc) rc = lc_file_rep_item(f->rep, t, &item);
    if (rc) return rc;
    if (item % f->view.esize)
        return lc_error(MPI_ERR_TYPE, "the datatype's size %lld is not a multiple of the view's etype size %lld%s",
                        (long long)item, (long long)f->view.esize,
                        f->rep ? " (in the file's data representation)" : "");
    *t_p = t;
    *item_p = item;
    return MPI_SUCCESS;
}

int lc_file_access(lc_file_t *f, MPI_Offset pos, const void *buf, MPI_Count count, MPI_Datatype dt, bool write,
                   size_t *bytes_p, MPI_Offset *etypes_p)
{
    lc_dt_t *t;
    MPI_Count item;
    int rc = lc_file_access_check(f, buf, count, dt, &t, &item);
    if (rc) return rc;
    lc_file_conv_t fc = { .rep = f->rep, .t = t, .handle = dt };
    lc_io_conv_t conv = { .item = item, .fn = lc_file_rep_convert, .ctx = &fc };
    lc_io_sieve_t ds;
    lc_file_sieve(f, write, &ds);
    size_t fbytes = 0;
    rc = lc_io_access(f->fd, &f->view, pos * f->view.esize, (void *)buf, count, t, f->rep ? &conv : NULL, write,
                      f->atomic, &ds, bytes_p, &fbytes);
    if (!rc && etypes_p) *etypes_p = (MPI_Offset)fbytes / f->view.esize;
    return rc;
}

void lc_file_status(MPI_Status *status, size_t bytes)
{
    if (status != MPI_STATUS_IGNORE) lc_status_set(status, MPI_ANY_SOURCE, MPI_ANY_TAG, bytes, 0);
}

enum {
    LC_F_AT = 1,   /* explicit offset (else the individual pointer) */
    LC_F_COLL = 2, /* collective: the ranks agree on the outcome */
};

/* One access; the individual pointer moves by what was accessed. */
static int lc_file_rw(lc_file_t *f, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype dt, int how,
                      bool write, size_t *bytes_p)
{
    size_t bytes = 0;
    MPI_Offset etypes = 0;
    int rc = lc_file_check_mode(f, write, true);
    if (!rc && (how & LC_F_AT) && offset < 0)
        rc = lc_error(MPI_ERR_ARG, "offset %lld is negative", (long long)offset);
    if (!rc && (how & LC_F_COLL) && f->split_active)
        rc = lc_error(MPI_ERR_OTHER, "a split collective is open on the file: end it first");
    MPI_Offset pos = (how & LC_F_AT) ? offset : f->pos;
    /* Collective: two-phase when the hints and the access pattern ask for
     * it (every rank takes part, also one whose arguments were bad). */
    bool done = false;
    if (how & LC_F_COLL) rc = lc_file_coll_access(f, rc, pos, buf, count, dt, write, &bytes, &etypes, &done);
    if (!rc && !done) rc = lc_file_access(f, pos, buf, count, dt, write, &bytes, &etypes);
    if (how & LC_F_COLL) rc = lc_file_agree(f->comm, rc, write ? "the collective write" : "the collective read");
    if (rc) return rc;
    if (!(how & LC_F_AT)) f->pos += etypes;
    *bytes_p = bytes;
    return MPI_SUCCESS;
}

static int lc_file_blocking(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype dt,
                            MPI_Status *status, int how, bool write, const char *func)
{
    lc_file_t *f = NULL;
    size_t bytes;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_file_rw(f, offset, buf, count, dt, how, write, &bytes));
    lc_file_status(status, bytes);
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, func, rc);
}

/* A request that is complete at once with the status of `bytes`. */
int lc_file_request_done(size_t bytes, MPI_Request *request)
{
    lc_request_t *req = lc_mpi_request_done();
    if (!req) return lc_error(MPI_ERR_NO_MEM, "out of requests");
    req->st_bytes = bytes;
    lc_mpi_request_out(req, request);
    return MPI_SUCCESS;
}

static int lc_file_nonblocking(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype dt,
                               MPI_Request *request, int how, bool write, const char *func)
{
    lc_file_t *f = NULL;
    size_t bytes;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_check_request_out(request));
    LC_TRY(lc_file_rw(f, offset, buf, count, dt, how, write, &bytes));
    LC_TRY(lc_file_request_done(bytes, request));
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, func, rc);
}

/* Split collectives: the operation runs in _begin (`ordered`: through
 * the shared pointer in rank order), its outcome waits for _end. */
static int lc_file_split_begin(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype dt, int how,
                        bool ordered, bool write, const char *func)
{
    lc_file_t *f = NULL;
    size_t bytes = 0;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    if (f->split_active)
        LC_TRY(lc_error(MPI_ERR_OTHER, "a split collective is already open on the file: end it first"));
    if (ordered)
        rc = lc_file_ordered_access(f, buf, count, dt, write, &bytes);
    else
        rc = lc_file_rw(f, offset, buf, count, dt, how | LC_F_COLL, write, &bytes);
    LC_TRY(rc);
    f->split_active = true;
    f->split_buf = buf;
    f->split_bytes = bytes;
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, func, rc);
}

static int lc_file_split_end(MPI_File fh, const void *buf, MPI_Status *status, const char *func)
{
    lc_file_t *f = NULL;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    if (!f->split_active) LC_TRY(lc_error(MPI_ERR_OTHER, "no split collective is open on the file (no _begin)"));
    if (buf != f->split_buf)
        LC_TRY(lc_error(MPI_ERR_BUFFER, "the buffer differs from the one given to the matching _begin call"));
    f->split_active = false;
    lc_file_status(status, f->split_bytes);
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, func, rc);
}

/* ---- the API: one definition per name ------------------------------------ */

#define LC_FILE_BLOCKING(name, how, write, BUF, COUNT)                                                          \
    LC_API int PMPI_File_##name(MPI_File fh, BUF buf, COUNT count, MPI_Datatype datatype, MPI_Status *status) \
    {                                                                                                        \
        return lc_file_blocking(fh, 0, buf, count, datatype, status, how, write, "MPI_File_" #name);          \
    }                                                                                                        \
    LC_MPI_ALIAS(File_##name)

#define LC_FILE_BLOCKING_AT(name, how, write, BUF, COUNT)                                                     \
    LC_API int PMPI_File_##name(MPI_File fh, MPI_Offset offset, BUF buf, COUNT count, MPI_Datatype datatype, \
                                MPI_Status *status)                                                          \
    {                                                                                                        \
        return lc_file_blocking(fh, offset, buf, count, datatype, status, how | LC_F_AT, write,               \
                                "MPI_File_" #name);                                                          \
    }                                                                                                        \
    LC_MPI_ALIAS(File_##name)

#define LC_FILE_NONBLOCKING(name, how, write, BUF, COUNT)                                                        \
    LC_API int PMPI_File_##name(MPI_File fh, BUF buf, COUNT count, MPI_Datatype datatype, MPI_Request *request) \
    {                                                                                                           \
        return lc_file_nonblocking(fh, 0, buf, count, datatype, request, how, write, "MPI_File_" #name);         \
    }                                                                                                           \
    LC_MPI_ALIAS(File_##name)

#define LC_FILE_NONBLOCKING_AT(name, how, write, BUF, COUNT)                                                  \
    LC_API int PMPI_File_##name(MPI_File fh, MPI_Offset offset, BUF buf, COUNT count, MPI_Datatype datatype, \
                                MPI_Request *request)                                                        \
    {                                                                                                        \
        return lc_file_nonblocking(fh, offset, buf, count, datatype, request, how | LC_F_AT, write,           \
                                   "MPI_File_" #name);                                                       \
    }                                                                                                        \
    LC_MPI_ALIAS(File_##name)

#define LC_FILE_BEGIN(name, ordered, write, BUF, COUNT)                                                           \
    LC_API int PMPI_File_##name(MPI_File fh, BUF buf, COUNT count, MPI_Datatype datatype)                        \
    {                                                                                                            \
        return lc_file_split_begin(fh, 0, buf, count, datatype, 0, ordered, write, "MPI_File_" #name);            \
    }                                                                                                            \
    LC_MPI_ALIAS(File_##name)

#define LC_FILE_BEGIN_AT(name, write, BUF, COUNT)                                                                 \
    LC_API int PMPI_File_##name(MPI_File fh, MPI_Offset offset, BUF buf, COUNT count, MPI_Datatype datatype)     \
    {                                                                                                            \
        return lc_file_split_begin(fh, offset, buf, count, datatype, LC_F_AT, false, write, "MPI_File_" #name);   \
    }                                                                                                            \
    LC_MPI_ALIAS(File_##name)

#define LC_FILE_END(name, BUF)                                                        \
    LC_API int PMPI_File_##name(MPI_File fh, BUF buf, MPI_Status *status)             \
    {                                                                                \
        return lc_file_split_end(fh, buf, status, "MPI_File_" #name);                 \
    }                                                                                \
    LC_MPI_ALIAS(File_##name)

/* Blocking. */
LC_FILE_BLOCKING(read, 0, false, void *, int);
LC_FILE_BLOCKING(read_c, 0, false, void *, MPI_Count);
LC_FILE_BLOCKING(write, 0, true, const void *, int);
LC_FILE_BLOCKING(write_c, 0, true, const void *, MPI_Count);
LC_FILE_BLOCKING(read_all, LC_F_COLL, false, void *, int);
LC_FILE_BLOCKING(read_all_c, LC_F_COLL, false, void *, MPI_Count);
LC_FILE_BLOCKING(write_all, LC_F_COLL, true, const void *, int);
LC_FILE_BLOCKING(write_all_c, LC_F_COLL, true, const void *, MPI_Count);
LC_FILE_BLOCKING_AT(read_at, 0, false, void *, int);
LC_FILE_BLOCKING_AT(read_at_c, 0, false, void *, MPI_Count);
LC_FILE_BLOCKING_AT(write_at, 0, true, const void *, int);
LC_FILE_BLOCKING_AT(write_at_c, 0, true, const void *, MPI_Count);
LC_FILE_BLOCKING_AT(read_at_all, LC_F_COLL, false, void *, int);
LC_FILE_BLOCKING_AT(read_at_all_c, LC_F_COLL, false, void *, MPI_Count);
LC_FILE_BLOCKING_AT(write_at_all, LC_F_COLL, true, const void *, int);
LC_FILE_BLOCKING_AT(write_at_all_c, LC_F_COLL, true, const void *, MPI_Count);

/* Nonblocking (done at start). */
LC_FILE_NONBLOCKING(iread, 0, false, void *, int);
LC_FILE_NONBLOCKING(iread_c, 0, false, void *, MPI_Count);
LC_FILE_NONBLOCKING(iwrite, 0, true, const void *, int);
LC_FILE_NONBLOCKING(iwrite_c, 0, true, const void *, MPI_Count);
LC_FILE_NONBLOCKING(iread_all, LC_F_COLL, false, void *, int);
LC_FILE_NONBLOCKING(iread_all_c, LC_F_COLL, false, void *, MPI_Count);
LC_FILE_NONBLOCKING(iwrite_all, LC_F_COLL, true, const void *, int);
LC_FILE_NONBLOCKING(iwrite_all_c, LC_F_COLL, true, const void *, MPI_Count);
LC_FILE_NONBLOCKING_AT(iread_at, 0, false, void *, int);
LC_FILE_NONBLOCKING_AT(iread_at_c, 0, false, void *, MPI_Count);
LC_FILE_NONBLOCKING_AT(iwrite_at, 0, true, const void *, int);
LC_FILE_NONBLOCKING_AT(iwrite_at_c, 0, true, const void *, MPI_Count);
LC_FILE_NONBLOCKING_AT(iread_at_all, LC_F_COLL, false, void *, int);
LC_FILE_NONBLOCKING_AT(iread_at_all_c, LC_F_COLL, false, void *, MPI_Count);
LC_FILE_NONBLOCKING_AT(iwrite_at_all, LC_F_COLL, true, const void *, int);
LC_FILE_NONBLOCKING_AT(iwrite_at_all_c, LC_F_COLL, true, const void *, MPI_Count);

/* Split collectives. */
LC_FILE_BEGIN(read_all_begin, false, false, void *, int);
LC_FILE_BEGIN(read_all_begin_c, false, false, void *, MPI_Count);
LC_FILE_BEGIN(write_all_begin, false, true, const void *, int);
LC_FILE_BEGIN(write_all_begin_c, false, true, const void *, MPI_Count);
LC_FILE_BEGIN(read_ordered_begin, true, false, void *, int);
LC_FILE_BEGIN(read_ordered_begin_c, true, false, void *, MPI_Count);
LC_FILE_BEGIN(write_ordered_begin, true, true, const void *, int);
LC_FILE_BEGIN(write_ordered_begin_c, true, true, const void *, MPI_Count);
LC_FILE_BEGIN_AT(read_at_all_begin, false, void *, int);
LC_FILE_BEGIN_AT(read_at_all_begin_c, false, void *, MPI_Count);
LC_FILE_BEGIN_AT(write_at_all_begin, true, const void *, int);
LC_FILE_BEGIN_AT(write_at_all_begin_c, true, const void *, MPI_Count);
LC_FILE_END(read_all_end, void *);
LC_FILE_END(write_all_end, const void *);
LC_FILE_END(read_ordered_end, void *);
LC_FILE_END(write_ordered_end, const void *);
LC_FILE_END(read_at_all_end, void *);
LC_FILE_END(write_at_all_end, const void *);
