/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_seg.c — the shared segment of a direct window: one object that
 * every rank of the window maps, holding a header line per rank (lock
 * words, lc_rma_impl.h) and then the ranks' memory in rank order,
 * contiguous (MPI 4.1 §12.2.3: Win_allocate_shared memory is contiguous
 * across ranks unless alloc_shared_noncontig says otherwise; then each
 * part starts on its own page).
 *
 * The same providers as the rings' segments (/dev/shm, or LOCUS_SHM_DIR
 * shared by co-resident containers), named locus-<job>-w<world rank of
 * the window's rank 0>-<n>-<token>, so mpiexec's clean-up of locus-<job>-*
 * also removes a segment a crashed job left.  The token is 64 random bits
 * rank 0 draws and broadcasts to the window's ranks only: another user
 * cannot create the name first (issue 12, point 3).  Rank 0 creates it
 * with O_EXCL and checks it is a regular file of ours with mode 0600;
 * the others check the same on what they open, without following links.  Rank 0 creates it; everyone maps
 * it; after a barrier rank 0 removes the name, so a running job has
 * nothing in /dev/shm and the memory goes with the last mapping.
 */
#include "channel/lc_shm.h"
#include "coll/lc_coll.h"
#include "coord/lc_world.h"
#include "rma/lc_rma_impl.h"
#include "util/lc_params.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned lc_rma_seg_count; /* windows this process created segments for */

static void lc_rma_seg_name(char *buf, size_t len, int owner, unsigned n, uint64_t token)
{
    if (lc_params.shm_dir[0])
        snprintf(buf, len, "%s/locus-%s-w%d-%u-%016llx", lc_params.shm_dir, lc_world.kvsname, owner, n,
                 (unsigned long long)token);
    else
        snprintf(buf, len, "/locus-%s-w%d-%u-%016llx", lc_world.kvsname, owner, n, (unsigned long long)token);
}

static int lc_rma_seg_open(const char *name, int flags)
{
    flags |= O_NOFOLLOW;
    return lc_params.shm_dir[0] ? open(name, flags | O_CLOEXEC, 0600) : shm_open(name, flags, 0600);
}

static void lc_rma_seg_remove(const char *name)
{
    if (lc_params.shm_dir[0])
        unlink(name);
    else
        shm_unlink(name);
}

/* Rank 0: create and size the object.  0, or an errno value (EPERM: not
 * a file of ours with mode 0600, `why` says what). */
static int lc_rma_seg_make(const char *name, size_t len, char *why, size_t whylen)
{
    int fd = lc_rma_seg_open(name, O_RDWR | O_CREAT | O_EXCL);
    if (fd < 0) return errno;
    if (fchmod(fd, 0600) != 0 || lc_shm_check_fd(fd, name, why, whylen) != 0) {
        close(fd);
        lc_rma_seg_remove(name);
        return EPERM;
    }
    /* posix_fallocate: a /dev/shm too small fails here, not with SIGBUS
     * at the first store. */
    int err = posix_fallocate(fd, 0, (off_t)len);
    close(fd);
    if (err) lc_rma_seg_remove(name);
    return err;
}

static void *lc_rma_seg_map(const char *name, size_t len, int *err_p, char *why, size_t whylen)
{
    int fd = lc_rma_seg_open(name, O_RDWR);
    if (fd < 0) {
        *err_p = errno;
        snprintf(why, whylen, "%s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (lc_shm_check_fd(fd, name, why, whylen) != 0 || fstat(fd, &st) != 0 || (size_t)st.st_size < len) {
        if (!why[0]) snprintf(why, whylen, "%s is smaller than the window's %zu bytes", name, len);
        *err_p = EPERM;
        close(fd);
        return NULL;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    *err_p = p == MAP_FAILED ? errno : 0;
    if (p == MAP_FAILED) snprintf(why, whylen, "%s", strerror(errno));
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

int lc_rma_seg_create(lc_rma_win_t *win, bool noncontig)
{
    lc_comm_t *comm = win->comm;
    int n = comm->size;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t hdr = ((size_t)n * sizeof(lc_rma_line_t) + page - 1) / page * page;
    size_t *offs = malloc((size_t)n * sizeof(size_t));
    if (!offs) return lc_error(MPI_ERR_NO_MEM, "out of memory creating a shared window");
    size_t len = hdr;
    for (int r = 0; r < n; r++) {
        if (noncontig) len = (len + page - 1) / page * page;
        offs[r] = len;
        len += win->sizes[r];
    }
    if (len == hdr) len += page; /* every rank asked for 0 bytes: still a valid base */

    char name[LC_PARAM_STRING_MAX + 340]; /* dir + kvsname (256) + suffix */
    char why[LC_PARAM_STRING_MAX + 500] = "";
    unsigned seq = lc_rma_seg_count;
    int err = 0;
    uint64_t token = 0;
    if (comm->rank == 0) {
        if (lc_shm_random(&token, sizeof token) != 0) err = errno ? errno : EIO;
        lc_rma_seg_name(name, sizeof name, comm->world_ranks[0], seq, token);
        if (!err) err = lc_rma_seg_make(name, len, why, sizeof why);
        lc_rma_seg_count++;
    }
    /* err, seq and the token's two halves: the name is known only to the
     * window's ranks. */
    unsigned msg[4] = { (unsigned)err, seq, (unsigned)token, (unsigned)(token >> 32) };
    int rc = lc_coll_bcast(msg, 4, MPI_UNSIGNED, 0, comm);
    if (rc != MPI_SUCCESS) goto out;
    token = (uint64_t)msg[2] | (uint64_t)msg[3] << 32;
    lc_rma_seg_name(name, sizeof name, comm->world_ranks[0], msg[1], token);
    if (msg[0]) {
        const char *where = lc_params.shm_dir[0] ? lc_params.shm_dir : "/dev/shm";
        int e = (int)msg[0];
        if (comm->rank != 0 || !why[0])
            snprintf(why, sizeof why, "%s", e == EEXIST ? "it already exists: another process is interfering"
                                            : e == ENOSPC ? "no space left there"
                                            : strerror(e));
        rc = lc_error(MPI_ERR_NO_MEM, "cannot create the shared window segment %s of %zu bytes in %s%s: %s%s", name,
                      len, lc_params.shm_dir[0] ? "LOCUS_SHM_DIR=" : "", where, why,
                      e == ENOSPC && !lc_params.shm_dir[0]
                          ? "; give the container a larger /dev/shm (docker --shm-size) or set LOCUS_SHM_DIR"
                          : "");
        goto out;
    }
    void *p = lc_rma_seg_map(name, len, &err, why, sizeof why);
    /* Everyone must have mapped it before the name goes, and everyone must
     * know whether someone failed. */
    int fails = p == NULL, all = 0;
    rc = lc_coll_allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, comm);
    if (comm->rank == 0) lc_rma_seg_remove(name);
    if (rc == MPI_SUCCESS && all) {
        rc = lc_error(MPI_ERR_NO_MEM, "%d rank(s) could not map the shared window segment %s (%s)", all, name,
                      p ? "see their error" : why);
    }
    if (rc != MPI_SUCCESS) {
        if (p) munmap(p, len);
        goto out;
    }
    win->seg = p;
    win->seg_len = len;
    win->lines = p;
    for (int r = 0; r < n; r++) win->bases[r] = (char *)p + offs[r];
    win->base = win->bases[comm->rank];
out:
    free(offs);
    return rc;
}

void lc_rma_seg_destroy(lc_rma_win_t *win)
{
    if (win->seg) munmap(win->seg, win->seg_len);
    win->seg = NULL;
}
