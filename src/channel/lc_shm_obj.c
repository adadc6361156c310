/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_shm_obj.c — where shared-memory objects live (issue 12, point 3):
 *
 *     <where>/<stem>-<token>/<leaf>
 *
 * <where> is /dev/shm, or LOCUS_SHM_DIR; <stem> is locus-<kvsname>-<rank>
 * for a rank's rings, locus-<kvsname>-w<rank>-<n> for a shared window;
 * <token> is 64 random bits the creator drew and tells only the job's
 * ranks; the directory is the creator's, mode 0700, and holds one object.
 *
 * One directory per object, not one per job and node: it is made by the
 * process that makes the object, with no extra PMI round before anyone
 * may create (a per-job directory needs one rank to make it and the others
 * to wait for its name), no agreement on who is "first" on a node where
 * containers see different /dev/shm, and it goes with its object (the
 * creator removes both once every peer mapped it).  What it adds to the
 * random 0600 file it replaces: another uid can see that a directory
 * exists but cannot list it, look anything up in it or create anything
 * in it; so the names and sizes inside, and the objects, are out of its
 * reach even where a file would be created with a wrong mode.
 *
 * /dev/shm is a tmpfs: an object opened there with open()/openat() is
 * what shm_open gives (shm_open cannot name a directory), and maps the
 * same.  Every open goes through the directory's descriptor, checked
 * first (a directory of ours, mode 0700), and refuses links (O_NOFOLLOW).
 *
 * A directory is never empty for long: the creator builds its object
 * unnamed (O_TMPFILE, lc_shm.c) and links it in right after mkdir.  The
 * sweep of dead jobs' leftovers (lc_shm_sweep.c) removes empty
 * directories of ours; should it take one of a live creator in that
 * instant, the link fails (ENOENT in a removed directory) and the creator
 * draws another name: lc_shm_obj_place returns -2 for that.
 */
#include "channel/lc_shm.h"
#include "util/lc_params.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *lc_shm_where(void)
{
    return lc_params.shm_dir[0] ? lc_params.shm_dir : "/dev/shm";
}

int lc_shm_obj_path(char *buf, size_t len, const char *stem, uint64_t token, const char *leaf)
{
    int n = snprintf(buf, len, "%s/%s-%016llx/%s", lc_shm_where(), stem, (unsigned long long)token, leaf);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The directory part of an object's path, in buf. */
static const char *lc_shm_obj_dir(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (n >= len) n = len - 1;
    memcpy(buf, path, n);
    buf[n] = 0;
    return buf;
}

static const char *lc_shm_obj_leaf(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}


int lc_shm_obj_opendir(const char *path, char *why, size_t whylen)
{
    char dir[LC_SHM_PATH_MAX];
    lc_shm_obj_dir(path, dir, sizeof(dir));
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    if (lc_shm_check_owned(dfd, dir, true, why, whylen) != 0) {
        close(dfd);
        return -1;
    }
    return dfd;
}

int lc_shm_obj_open(const char *path, int flags, char *why, size_t whylen)
{
    int dfd = lc_shm_obj_opendir(path, why, whylen);
    if (dfd < 0) return -1;
    int fd = openat(dfd, lc_shm_obj_leaf(path), flags | O_NOFOLLOW | O_CLOEXEC, 0600);
    int err = errno;
    close(dfd);
    if (fd < 0) snprintf(why, whylen, "cannot open %s: %s", path, strerror(err));
    errno = err;
    return fd;
}

/* mkdir exactly 0700 (a umask may narrow it: chmod), then its checked
 * descriptor.  -1 with errno (EEXIST: the name is taken). */
static int lc_shm_obj_mkdir(const char *dir)
{
    if (mkdir(dir, 0700) != 0) return -1;
    char why[LC_SHM_PATH_MAX + 80];
    int dfd = -1;
    if (chmod(dir, 0700) == 0) dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd >= 0 && lc_shm_check_owned(dfd, dir, true, why, sizeof(why)) == 0) return dfd;
    /* Ours a moment ago and not what we made now: someone swapped it in a
     * directory without the sticky bit.  Refuse like a taken name. */
    int err = dfd >= 0 ? EEXIST : errno;
    if (dfd >= 0) close(dfd);
    errno = err;
    return -1;
}

int lc_shm_obj_place(const char *path, int fd)
{
    char dir[LC_SHM_PATH_MAX];
    lc_shm_obj_dir(path, dir, sizeof(dir));
    int dfd = lc_shm_obj_mkdir(dir);
    if (dfd < 0) return -1;
    int rc;
    if (fd >= 0) {
        /* linkat through /proc/self/fd needs no capability, unlike
         * AT_EMPTY_PATH; without /proc it fails and the caller builds the
         * object again the named way. */
        char proc[64];
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        rc = linkat(AT_FDCWD, proc, dfd, lc_shm_obj_leaf(path), AT_SYMLINK_FOLLOW) == 0 ? fd : -1;
    } else
        rc = openat(dfd, lc_shm_obj_leaf(path), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int err = errno;
    struct stat st;
    /* ENOENT: our directory was swept while empty (it is gone: no links
     * left), or /proc is missing (the caller goes the named way). */
    int gone = rc < 0 && err == ENOENT && fstat(dfd, &st) == 0 && st.st_nlink == 0;
    close(dfd);
    if (gone) return -2;
    if (rc < 0) rmdir(dir);
    errno = err;
    return rc;
}

void lc_shm_obj_remove(const char *path)
{
    char dir[LC_SHM_PATH_MAX];
    lc_shm_obj_dir(path, dir, sizeof(dir));
    /* Through the directory's descriptor: a directory swapped for a link
     * (possible only in a shared directory without the sticky bit) is not
     * followed. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) return;
    unlinkat(dfd, lc_shm_obj_leaf(path), 0);
    close(dfd);
    rmdir(dir);
}
