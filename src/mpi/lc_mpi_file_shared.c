/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_file_shared.c — data access through the shared file pointer
 * (MPI 4.1 §14.4.4): read/write_shared and their nonblocking forms,
 * read/write_ordered (collective, in rank order), seek_shared and
 * get_position_shared.
 *
 * The pointer is a counter of etypes in a side file, updated atomically
 * under an fcntl lock (src/io/lc_io_shfp.c; docs/io.md).  An independent
 * access reserves its etypes with one fetch-and-add and then accesses
 * the reserved range, so concurrent accesses never overlap.  An ordered
 * access computes each rank's place with an exclusive prefix sum; rank 0
 * reserves the whole job's etypes with one fetch-and-add and broadcasts
 * the start.
 */
#include "coll/lc_coll.h"
#include "mpi/lc_mpi_file.h"
#include "mpi/lc_mpi_request.h"

/* The etypes that count items of dt occupy in the view. */
int lc_file_etypes(lc_file_t *f, MPI_Count count, MPI_Datatype dt, MPI_Offset *n_p)
{
    lc_dt_t *t;
    MPI_Count item;
    int rc = lc_check_count(count);
    if (!rc) rc = lc_dt_check_comm(dt, &t);
    if (!rc) rc = lc_file_rep_item(f->rep, t, &item);
    if (rc) return rc;
    if (item % f->view.esize)
        return lc_error(MPI_ERR_TYPE, "the datatype's size %lld is not a multiple of the view's etype size %lld",
                        (long long)item, (long long)f->view.esize);
    *n_p = (MPI_Offset)count * item / f->view.esize;
    return MPI_SUCCESS;
}

int lc_file_shared_access(lc_file_t *f, const void *buf, MPI_Count count, MPI_Datatype dt, bool write,
                          size_t *bytes_p)
{
    MPI_Offset n, at;
    int rc = lc_file_check_mode(f, write, false);
    if (!rc) rc = lc_file_etypes(f, count, dt, &n);
    if (!rc) rc = lc_io_shfp_fetch_add(&f->shfp, n, &at);
    if (!rc) rc = lc_file_access(f, at, buf, count, dt, write, bytes_p, NULL);
    return rc;
}

int lc_file_ordered_access(lc_file_t *f, const void *buf, MPI_Count count, MPI_Datatype dt, bool write,
                           size_t *bytes_p)
{
    MPI_Offset n = 0, before = 0, total = 0, base = 0;
    size_t bytes = 0;
    int rc = lc_file_check_mode(f, write, false);
    if (!rc) rc = lc_file_etypes(f, count, dt, &n);
    if (rc) n = 0; /* still take part: the others wait for this rank */
    int crc = lc_coll_exscan(&n, &before, 1, MPI_LONG, MPI_SUM, f->comm);
    if (!crc) crc = lc_coll_allreduce(&n, &total, 1, MPI_LONG, MPI_SUM, f->comm);
    if (f->comm->rank == 0) {
        before = 0; /* Exscan leaves rank 0's result undefined */
        int src = crc ? crc : lc_io_shfp_fetch_add(&f->shfp, total, &base);
        if (!rc) rc = src;
    }
    if (!crc) crc = lc_coll_bcast(&base, 1, MPI_LONG, 0, f->comm);
    if (!rc) rc = crc;
    if (!rc) rc = lc_file_access(f, base + before, buf, count, dt, write, &bytes, NULL);
    rc = lc_file_agree(f->comm, rc, write ? "the ordered write" : "the ordered read");
    if (!rc) *bytes_p = bytes;
    return rc;
}

static int lc_file_shared_blocking(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype dt,
                                   MPI_Status *status, bool ordered, bool write, const char *func)
{
    lc_file_t *f = NULL;
    size_t bytes = 0;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    if (ordered && f->split_active)
        LC_TRY(lc_error(MPI_ERR_OTHER, "a split collective is open on the file: end it first"));
    LC_TRY(ordered ? lc_file_ordered_access(f, buf, count, dt, write, &bytes)
                   : lc_file_shared_access(f, buf, count, dt, write, &bytes));
    lc_file_status(status, bytes);
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, func, rc);
}

static int lc_file_shared_nonblocking(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype dt,
                                      MPI_Request *request, bool write, const char *func)
{
    lc_file_t *f = NULL;
    size_t bytes = 0;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_check_request_out(request));
    LC_TRY(lc_file_shared_access(f, buf, count, dt, write, &bytes));
    LC_TRY(lc_file_request_done(bytes, request));
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, func, rc);
}

#define LC_FILE_SHARED(name, ordered, write, BUF, COUNT)                                                        \
    LC_API int PMPI_File_##name(MPI_File fh, BUF buf, COUNT count, MPI_Datatype datatype, MPI_Status *status) \
    {                                                                                                        \
        return lc_file_shared_blocking(fh, buf, count, datatype, status, ordered, write, "MPI_File_" #name);  \
    }                                                                                                        \
    LC_MPI_ALIAS(File_##name)

#define LC_FILE_ISHARED(name, write, BUF, COUNT)                                                                  \
    LC_API int PMPI_File_##name(MPI_File fh, BUF buf, COUNT count, MPI_Datatype datatype, MPI_Request *request) \
    {                                                                                                           \
        return lc_file_shared_nonblocking(fh, buf, count, datatype, request, write, "MPI_File_" #name);          \
    }                                                                                                           \
    LC_MPI_ALIAS(File_##name)

LC_FILE_SHARED(read_shared, false, false, void *, int);
LC_FILE_SHARED(read_shared_c, false, false, void *, MPI_Count);
LC_FILE_SHARED(write_shared, false, true, const void *, int);
LC_FILE_SHARED(write_shared_c, false, true, const void *, MPI_Count);
LC_FILE_SHARED(read_ordered, true, false, void *, int);
LC_FILE_SHARED(read_ordered_c, true, false, void *, MPI_Count);
LC_FILE_SHARED(write_ordered, true, true, const void *, int);
LC_FILE_SHARED(write_ordered_c, true, true, const void *, MPI_Count);
LC_FILE_ISHARED(iread_shared, false, void *, int);
LC_FILE_ISHARED(iread_shared_c, false, void *, MPI_Count);
LC_FILE_ISHARED(iwrite_shared, true, const void *, int);
LC_FILE_ISHARED(iwrite_shared_c, true, const void *, MPI_Count);

int lc_file_shared_reset(lc_file_t *f)
{
    /* Every rank is in the (collective) caller, so no access through the
     * old value is in flight; the agreement publishes the new one. */
    int rc = f->comm->rank == 0 ? lc_io_shfp_set(&f->shfp, 0) : MPI_SUCCESS;
    return lc_file_agree(f->comm, rc, "resetting the shared file pointer");
}

LC_API int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    lc_file_t *f = NULL;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    /* Every rank gives the same offset and whence (MPI 4.1 §14.4.4). */
    long mm[4] = { offset, -offset, whence, -whence }, agreed[4];
    LC_TRY(lc_coll_allreduce(mm, agreed, 4, MPI_LONG, MPI_MAX, f->comm));
    if (agreed[0] != -agreed[1] || agreed[2] != -agreed[3])
        rc = lc_error(MPI_ERR_NOT_SAME, "the ranks gave different offsets or whences: each must give the same");
    if (!rc && f->comm->rank == 0) {
        MPI_Offset cur, pos;
        rc = lc_io_shfp_fetch_add(&f->shfp, 0, &cur);
        if (!rc) rc = lc_file_seek_target(f, cur, offset, whence, &pos);
        if (!rc) rc = lc_io_shfp_set(&f->shfp, pos);
    }
    LC_TRY(lc_file_agree(f->comm, rc, "MPI_File_seek_shared"));
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_seek_shared", rc);
}
LC_MPI_ALIAS(File_seek_shared);

LC_API int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    lc_file_t *f = NULL;
    MPI_Offset v;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_check_ptr(offset, "offset"));
    LC_TRY(lc_io_shfp_fetch_add(&f->shfp, 0, &v));
    *offset = v;
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_get_position_shared", rc);
}
LC_MPI_ALIAS(File_get_position_shared);
