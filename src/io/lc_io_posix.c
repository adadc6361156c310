/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_io_posix.c — files through POSIX calls: open, close, delete, size,
 * preallocation, sync, whole-range pread/pwrite and byte-range locks,
 * with every errno turned into the MPI error class the I/O chapter names
 * (MPI 4.1 §14.7) and a message with the path and the reason.
 */
#include "io/lc_io.h"
#include "util/lc_error.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int lc_io_errno(int err, const char *what, const char *path)
{
    int cls;
    switch (err) {
    case ENOENT: cls = MPI_ERR_NO_SUCH_FILE; break;
    case EACCES:
    case EPERM: cls = MPI_ERR_ACCESS; break;
    case EEXIST: cls = MPI_ERR_FILE_EXISTS; break;
    case ENOSPC: cls = MPI_ERR_NO_SPACE; break;
    case EDQUOT: cls = MPI_ERR_QUOTA; break;
    case EROFS: cls = MPI_ERR_READ_ONLY; break;
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP: cls = MPI_ERR_BAD_FILE; break;
    case ETXTBSY:
    case EBUSY: cls = MPI_ERR_FILE_IN_USE; break;
    default: cls = MPI_ERR_IO; break;
    }
    return lc_error(cls, "cannot %s %s: %s", what, path ? path : "the file", strerror(err));
}

int lc_io_open(const char *path, int amode, bool create, bool excl, int *fd_p)
{
    int flags = O_CLOEXEC;
    if (amode & MPI_MODE_RDONLY)
        flags |= O_RDONLY;
    else if (amode & MPI_MODE_WRONLY)
        flags |= O_WRONLY;
    else
        flags |= O_RDWR;
    if (create) flags |= O_CREAT;
    if (create && excl) flags |= O_EXCL;
    int fd;
    do
        fd = open(path, flags, 0666);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) return lc_io_errno(errno, create ? (excl ? "create (MPI_MODE_EXCL)" : "create") : "open", path);
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return lc_io_errno(EISDIR, "open", path);
    }
    *fd_p = fd;
    return MPI_SUCCESS;
}

int lc_io_close(int fd, const char *path)
{
    /* No retry on EINTR: the descriptor is gone either way on Linux. */
    if (close(fd) != 0 && errno != EINTR) return lc_io_errno(errno, "close", path);
    return MPI_SUCCESS;
}

int lc_io_delete(const char *path)
{
    if (unlink(path) != 0) return lc_io_errno(errno, "delete", path);
    return MPI_SUCCESS;
}

int lc_io_get_size(int fd, MPI_Offset *size_p)
{
    struct stat st;
    if (fstat(fd, &st) != 0) return lc_io_errno(errno, "query the size of", NULL);
    *size_p = (MPI_Offset)st.st_size;
    return MPI_SUCCESS;
}

int lc_io_set_size(int fd, MPI_Offset size)
{
    int r;
    do
        r = ftruncate(fd, (off_t)size);
    while (r != 0 && errno == EINTR);
    if (r != 0) return lc_io_errno(errno, "resize", NULL);
    return MPI_SUCCESS;
}

int lc_io_preallocate(int fd, MPI_Offset size)
{
    if (size == 0) return MPI_SUCCESS;
    int err = posix_fallocate(fd, 0, (off_t)size);
    if (err == EOPNOTSUPP || err == EINVAL) {
        /* File systems without fallocate: at least make the size right
         * (blocks are then allocated when written). */
        MPI_Offset cur;
        int rc = lc_io_get_size(fd, &cur);
        if (rc == MPI_SUCCESS && cur < size) rc = lc_io_set_size(fd, size);
        return rc;
    }
    if (err) return lc_io_errno(err, "preallocate", NULL);
    return MPI_SUCCESS;
}

int lc_io_sync(int fd)
{
    if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS) return lc_io_errno(errno, "sync", NULL);
    return MPI_SUCCESS;
}

int lc_io_pread(int fd, void *buf, size_t len, MPI_Offset off, size_t *done_p)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + (MPI_Offset)done));
        if (n < 0) {
            if (errno == EINTR) continue;
            return lc_io_errno(errno, "read", NULL);
        }
        if (n == 0) break; /* end of file */
        done += (size_t)n;
    }
    *done_p = done;
    return MPI_SUCCESS;
}

int lc_io_pwrite(int fd, const void *buf, size_t len, MPI_Offset off)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pwrite(fd, (const char *)buf + done, len - done, (off_t)(off + (MPI_Offset)done));
        if (n < 0) {
            if (errno == EINTR) continue;
            return lc_io_errno(errno, "write", NULL);
        }
        done += (size_t)n;
    }
    return MPI_SUCCESS;
}

static int lc_io_setlk(int fd, short type, MPI_Offset off, MPI_Offset len)
{
    struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = (off_t)off, .l_len = (off_t)len };
#ifdef F_OFD_SETLKW
    /* OFD locks belong to this open file description: another MPI_File
     * (or the shared-pointer side file) closing in this process keeps
     * them, and threads are told apart. */
    int r;
    do
        r = fcntl(fd, F_OFD_SETLKW, &fl);
    while (r != 0 && errno == EINTR);
    if (r == 0 || errno != EINVAL) return r;
#endif
    int q;
    do
        q = fcntl(fd, F_SETLKW, &fl);
    while (q != 0 && errno == EINTR);
    return q;
}

int lc_io_lock(int fd, MPI_Offset off, MPI_Offset len, bool excl)
{
    if (lc_io_setlk(fd, excl ? F_WRLCK : F_RDLCK, off, len) != 0)
        return lc_io_errno(errno, "lock (fcntl) a range of", NULL);
    return MPI_SUCCESS;
}

void lc_io_unlock(int fd, MPI_Offset off, MPI_Offset len)
{
    (void)lc_io_setlk(fd, F_UNLCK, off, len);
}
