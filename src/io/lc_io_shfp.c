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
 *
 * A job killed before MPI_File_close leaves its side file behind (issue
 * 12, point 7: seen in /dev/shm after killed benchmark runs).  The
 * segments' rule applies: every rank that has the side file open holds a
 * shared lock on its byte 8 (an open-file-description lock: the kernel
 * drops it when the process dies, however it dies, and it is not lost when
 * another descriptor of the same file in this process is closed).  The
 * rank that creates a side file then sweeps its directory: a side file of
 * ours on which an exclusive lock of byte 8 can be taken has no living
 * user, and is removed.  A rank that opened a name checks, once it holds
 * its lock, that the name is still the file it locked (a sweep may have
 * removed it in between: then it opens again), so no two ranks of a job
 * ever count in two files.  Without OFD locks (Linux < 3.15, a file
 * system that refuses them) neither the lock nor the sweep is done.
 */
#include "io/lc_io.h"
#include "util/lc_error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* The liveness byte: beyond the 8-byte counter (locked 0..7 for updates). */
#define LC_IO_SHFP_LIVE 8

/* An OFD lock of the liveness byte: shared (a user) or exclusive (the
 * sweep), waiting or not.  0, or -1 with errno (EINVAL: no OFD locks). */
static int lc_io_shfp_lock_live(int fd, bool excl, bool wait)
{
#ifdef F_OFD_SETLKW
    struct flock fl = { .l_type = excl ? F_WRLCK : F_RDLCK, .l_whence = SEEK_SET, .l_start = LC_IO_SHFP_LIVE, .l_len = 1 };
    int rc;
    do
        rc = fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl);
    while (rc < 0 && errno == EINTR);
    return rc;
#else
    (void)fd, (void)excl, (void)wait;
    errno = EINVAL;
    return -1;
#endif
}

static bool lc_io_same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Remove the side files of dead jobs from the directory of `path` (ours
 * excluded): regular files of our uid, no bigger than a counter, named
 * like a side file, on which nobody holds the liveness lock.  The name is
 * removed while we hold the exclusive lock, after checking that it still
 * names the file we locked. */
static void lc_io_shfp_sweep(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (slash) snprintf(dir, sizeof dir, "%.*s", (int)(slash - path) + 1, path);
    else snprintf(dir, sizeof dir, ".");
    const char *mine = slash ? slash + 1 : path;
    DIR *d = opendir(dir);
    if (!d) return;
    int dfd = dirfd(d);
    uid_t me = geteuid();
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] != '.' || !strstr(e->d_name, ".locus-shfp.") || !strcmp(e->d_name, mine)) continue;
        if (e->d_type != DT_REG && e->d_type != DT_UNKNOWN) continue;
        int fd = openat(dfd, e->d_name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) continue;
        struct stat st, now;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == me && st.st_size <= 8 &&
            lc_io_shfp_lock_live(fd, true, false) == 0 && fstatat(dfd, e->d_name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
            lc_io_same_file(&st, &now))
            (void)unlinkat(dfd, e->d_name, 0);
        close(fd); /* drops the exclusive lock */
    }
    closedir(d);
}

static int lc_io_shfp_open(lc_io_shfp_t *s)
{
    if (s->fd >= 0) return MPI_SUCCESS;
    if (!s->path) return lc_error(MPI_ERR_INTERN, "the file has no shared file pointer");
    for (int tries = 0;; tries++) {
        int fd, created = 1;
        do
            fd = open(s->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        while (fd < 0 && errno == EINTR);
        if (fd < 0 && errno == EEXIST) {
            created = 0;
            do
                fd = open(s->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
            while (fd < 0 && errno == EINTR);
            if (fd < 0 && errno == ENOENT && tries < 16) continue; /* removed in between: create it */
        }
        if (fd < 0)
            return lc_error(MPI_ERR_IO,
                            "cannot use the shared file pointer: its side file %s cannot be %s (%s); the "
                            "directory of the file must be writable",
                            s->path, created ? "created" : "opened", strerror(errno));
        /* Alive while open; then the name must still be this file. */
        bool held = lc_io_shfp_lock_live(fd, false, true) == 0;
        /* No OFD locks here (old kernel, a file system without them): no
         * liveness, no sweep, as before. */
        if (!held && errno != EINVAL && errno != EOPNOTSUPP && errno != ENOLCK) {
            int err = errno;
            close(fd);
            return lc_error(MPI_ERR_IO, "cannot lock the shared file pointer's side file %s (%s)", s->path,
                            strerror(err));
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && (!S_ISREG(a.st_mode) || a.st_uid != geteuid())) {
            close(fd);
            return lc_error(MPI_ERR_IO,
                            "the shared file pointer's side file %s is not a regular file of this user: "
                            "another user created it first",
                            s->path);
        }
        if (held && (fstat(fd, &a) != 0 || lstat(s->path, &b) != 0 || !lc_io_same_file(&a, &b))) {
            close(fd);
            if (tries < 16) continue;
            return lc_error(MPI_ERR_IO, "the shared file pointer's side file %s keeps being removed", s->path);
        }
        s->fd = fd;
        if (created && held) lc_io_shfp_sweep(s->path);
        return MPI_SUCCESS;
    }
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
