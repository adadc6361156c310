/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_shm_winobj.c — the object behind a shared window's segment
 * (src/rma/lc_rma_seg.c lays out what is in it): created by the window's
 * rank 0 in its own 0700 directory (lc_shm_obj.c), mapped by every rank
 * of the window.  Like a ring segment (issue 12, point 3) it carries a
 * header with a magic, a random key that rank 0 tells the window's ranks
 * only (with the name's token), and its geometry; a rank maps it only if
 * all of them are what it expects, so a file that merely has the name is
 * never used as the window's memory.
 *
 * The header sits at an offset the window chooses (after its lock lines,
 * in the padding before the ranks' memory), so the layout the RMA code
 * relies on does not move.
 */
#include "channel/lc_shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define LC_SHM_WIN_MAGIC 0x4c4f435553574e31ull /* "LOCUSWN1" */

typedef struct lc_shm_win_hdr {
    uint64_t magic;
    uint64_t key;
    uint64_t len;
    uint32_t nranks;
    uint32_t hdr_off;
} lc_shm_win_hdr_t;

_Static_assert(sizeof(lc_shm_win_hdr_t) <= LC_SHM_WIN_HDR, "window header larger than its room");

int lc_shm_win_create(const char *path, const lc_shm_win_geom_t *g, char *why, size_t whylen)
{
    if (g->hdr_off + LC_SHM_WIN_HDR > g->len) {
        snprintf(why, whylen, "internal: window header beyond the segment");
        return EINVAL;
    }
    int fd = lc_shm_obj_place(path, -1);
    if (fd == -2) return ENOENT; /* the caller draws another token */
    if (fd < 0) return errno;
    int err = 0;
    if (fchmod(fd, 0600) != 0 || lc_shm_check_owned(fd, path, false, why, whylen) != 0) {
        err = EPERM;
        goto bad;
    }
    /* posix_fallocate: a /dev/shm too small fails here, not with SIGBUS
     * at the first store. */
    err = posix_fallocate(fd, 0, (off_t)g->len);
    if (err) goto bad;
    lc_shm_win_hdr_t h = {
        .magic = LC_SHM_WIN_MAGIC, .key = g->key, .len = g->len, .nranks = g->nranks, .hdr_off = g->hdr_off
    };
    if (pwrite(fd, &h, sizeof(h), (off_t)g->hdr_off) != (ssize_t)sizeof(h)) {
        err = errno ? errno : EIO;
        goto bad;
    }
    close(fd);
    return 0;
bad:
    close(fd);
    lc_shm_obj_remove(path);
    return err;
}

/* The header as read once from the object, against what this rank
 * expects.  0, or -1 with the reason. */
static int lc_shm_win_check(const lc_shm_win_hdr_t *h, const lc_shm_win_geom_t *g, const char *path, char *why,
                            size_t whylen)
{
    if (h->magic != LC_SHM_WIN_MAGIC) {
        snprintf(why, whylen, "%s is not an initialised Locus window segment", path);
        return -1;
    }
    if (h->key != g->key) {
        snprintf(why, whylen, "%s does not carry the key the window's rank 0 sent: not this window's segment", path);
        return -1;
    }
    if (h->len != g->len || h->nranks != g->nranks || h->hdr_off != g->hdr_off) {
        snprintf(why, whylen,
                 "%s: its header says %llu bytes for %u ranks (header at %u), this rank expects %zu bytes for "
                 "%u ranks (header at %u)",
                 path, (unsigned long long)h->len, h->nranks, h->hdr_off, g->len, g->nranks, g->hdr_off);
        return -1;
    }
    return 0;
}

void *lc_shm_win_map(const char *path, const lc_shm_win_geom_t *g, int *err_p, char *why, size_t whylen)
{
    int fd = lc_shm_obj_open(path, O_RDWR, why, whylen);
    if (fd < 0) {
        *err_p = errno;
        return NULL;
    }
    struct stat st;
    lc_shm_win_hdr_t h;
    *err_p = EPERM;
    if (lc_shm_check_owned(fd, path, false, why, whylen) != 0) goto bad;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < g->len || g->hdr_off + LC_SHM_WIN_HDR > g->len) {
        snprintf(why, whylen, "%s is smaller than the window's %zu bytes", path, g->len);
        goto bad;
    }
    /* One copy of the header, before the memory is mapped and used. */
    if (pread(fd, &h, sizeof(h), (off_t)g->hdr_off) != (ssize_t)sizeof(h)) {
        snprintf(why, whylen, "cannot read the header of %s", path);
        goto bad;
    }
    if (lc_shm_win_check(&h, g, path, why, whylen) != 0) goto bad;
    void *p = mmap(NULL, g->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    *err_p = p == MAP_FAILED ? errno : 0;
    if (p == MAP_FAILED) snprintf(why, whylen, "cannot map %s: %s", path, strerror(*err_p));
    close(fd);
    return p == MAP_FAILED ? NULL : p;
bad:
    close(fd);
    return NULL;
}
