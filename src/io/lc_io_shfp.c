/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_io_shfp.c — the shared file pointer: one 8-byte counter (etypes,
 * native byte order) in a side file next to the data file, read and
 * updated under an exclusive fcntl lock on the side file.
 *
 * Why a side file: the update must be atomic across every rank that
 * opened the file, with no help from the other ranks (read_shared and
 * write_shared are independent calls: a counter owned by a rank would
 * need that rank to make progress).  A lock on a file every rank can
 * reach works on one host and, where the file system honours fcntl locks
 * (NFS with lockd), across hosts.  The file is created by the first
 * rank that uses the pointer (O_CREAT: an empty file reads as 0) and
 * removed by the MPI layer when the file is closed.
 */
#include "io/lc_io.h"
#include "util/lc_error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lc_io_shfp_name(const char *file, unsigned long tag, char *buf, size_t len)
{
    /* Beside the file, hidden: .<name>.locus-shfp.<tag> */
    const char *slash = strrchr(file, '/');
    int dir_len = slash ? (int)(slash - file + 1) : 0;
    const char *base = slash ? slash + 1 : file;
    int n = snprintf(buf, len, "%.*s.%s.locus-shfp.%lx", dir_len, file, base, tag);
    if (n < 0 || (size_t)n >= len)
        return lc_error(MPI_ERR_BAD_FILE, "the shared file pointer's side file name for %s is too long", file);
    return MPI_SUCCESS;
}

int lc_io_shfp_attach(lc_io_shfp_t *s, const char *path)
{
    s->fd = -1;
    s->path = strdup(path);
    if (!s->path) return lc_error(MPI_ERR_NO_MEM, "out of memory for the shared file pointer");
    return MPI_SUCCESS;
}

static int lc_io_shfp_open(lc_io_shfp_t *s)
{
    if (s->fd >= 0) return MPI_SUCCESS;
    if (!s->path) return lc_error(MPI_ERR_INTERN, "the file has no shared file pointer");
    int fd;
    do
        fd = open(s->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return lc_error(MPI_ERR_IO,
                        "cannot use the shared file pointer: its side file %s cannot be created (%s); the "
                        "directory of the file must be writable",
                        s->path, strerror(errno));
    s->fd = fd;
    return MPI_SUCCESS;
}

static int lc_io_shfp_read(lc_io_shfp_t *s, MPI_Offset *v_p)
{
    int64_t v = 0;
    size_t got;
    int rc = lc_io_pread(s->fd, &v, sizeof v, 0, &got);
    if (rc) return rc;
    *v_p = got == sizeof v ? (MPI_Offset)v : 0;
    return MPI_SUCCESS;
}

int lc_io_shfp_fetch_add(lc_io_shfp_t *s, MPI_Offset delta, MPI_Offset *old_p)
{
    int rc = lc_io_shfp_open(s);
    if (rc) return rc;
    if ((rc = lc_io_lock(s->fd, 0, 8, true))) return rc;
    MPI_Offset v;
    rc = lc_io_shfp_read(s, &v);
    if (!rc && delta != 0) {
        int64_t nv = (int64_t)(v + delta);
        rc = lc_io_pwrite(s->fd, &nv, sizeof nv, 0);
    }
    lc_io_unlock(s->fd, 0, 8);
    if (!rc) *old_p = v;
    return rc;
}

int lc_io_shfp_set(lc_io_shfp_t *s, MPI_Offset value)
{
    int rc = lc_io_shfp_open(s);
    if (rc) return rc;
    if ((rc = lc_io_lock(s->fd, 0, 8, true))) return rc;
    int64_t nv = (int64_t)value;
    rc = lc_io_pwrite(s->fd, &nv, sizeof nv, 0);
    lc_io_unlock(s->fd, 0, 8);
    return rc;
}

void lc_io_shfp_detach(lc_io_shfp_t *s, bool unlink_it)
{
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    if (unlink_it && s->path) unlink(s->path);
    free(s->path);
    s->path = NULL;
}
