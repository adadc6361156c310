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
 * shared by co-resident containers), and the same kind of object
 * (src/channel/lc_shm_obj.c, lc_shm_winobj.c): alone in a directory of
 * rank 0's with mode 0700,
 * <where>/locus-<job>-w<world rank of the window's rank 0>-<n>-<token>/win,
 * so mpiexec's clean-up of locus-<job>-* also removes what a crashed job
 * left.  The token and a 64-bit header key are random, drawn by rank 0
 * and broadcast to the window's ranks only: another user can neither
 * create the name first nor look into the directory, and a file that is
 * not the window's (wrong key, size, rank count) is refused before it is
 * used (issue 12, point 3).  The header sits after the lock lines, in the
 * padding before the ranks' memory.  Rank 0 creates it; everyone maps it;
 * after a barrier rank 0 removes it and its directory, so a running job
 * has nothing in /dev/shm and the memory goes with the last mapping.
 *
 * Dynamic windows whose ranks all share memory map one too, with a
 * page per rank holding its table of attached regions (lc_rma_dyn.c).
 */
#include "channel/lc_shm.h"
#include "coll/lc_coll.h"
#include "coord/lc_world.h"
#include "rma/lc_rma_impl.h"
#include "util/lc_params.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned lc_rma_seg_count; /* windows this process created segments for */

static void lc_rma_seg_name(char *buf, size_t len, int owner, unsigned n, uint64_t token)
{
    char stem[300];
    snprintf(stem, sizeof(stem), "locus-%s-w%d-%u", lc_world.kvsname, owner, n);
    if (lc_shm_obj_path(buf, len, stem, token, "win") != 0) buf[0] = 0;
}

/* Rank 0: draw token and key, create the object.  0, or an errno value. */
static int lc_rma_seg_make(char *name, size_t namelen, int owner, unsigned seq, lc_shm_win_geom_t *g, uint64_t *token_p,
                           char *why, size_t whylen)
{
    int err = ENOENT;
    /* ENOENT: its new directory was swept before the object was in it
     * (lc_shm_obj.c): another token. */
    for (int tries = 0; tries < 16 && err == ENOENT; tries++) {
        uint64_t r[2];
        if (lc_shm_random(r, sizeof(r)) != 0) return errno ? errno : EIO;
        *token_p = r[0];
        g->key = r[1] ? r[1] : 1;
        lc_rma_seg_name(name, namelen, owner, seq, *token_p);
        if (!name[0]) return ENAMETOOLONG;
        err = lc_shm_win_create(name, g, why, whylen);
    }
    return err;
}

int lc_rma_seg_map(lc_rma_win_t *win, const size_t *sizes, bool noncontig, char **bases)
{
    lc_comm_t *comm = win->comm;
    int n = comm->size;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    /* The lock lines, then the object's header (lc_shm_winobj.c). */
    size_t hdr_off = (size_t)n * sizeof(lc_rma_line_t);
    size_t hdr = (hdr_off + LC_SHM_WIN_HDR + page - 1) / page * page;
    size_t *offs = malloc((size_t)n * sizeof(size_t));
    if (!offs) return lc_error(MPI_ERR_NO_MEM, "out of memory creating a shared window");
    size_t len = hdr;
    for (int r = 0; r < n; r++) {
        if (noncontig) len = (len + page - 1) / page * page;
        offs[r] = len;
        len += sizes[r];
    }
    if (len == hdr) len += page; /* every rank asked for 0 bytes: still a valid base */

    char name[LC_SHM_PATH_MAX];
    char why[LC_SHM_PATH_MAX + 300] = "";
    unsigned seq = lc_rma_seg_count;
    int err = 0;
    uint64_t token = 0;
    void *p = NULL;
    lc_shm_win_geom_t g = { .len = len, .nranks = (uint32_t)n, .hdr_off = (uint32_t)hdr_off };
    if (comm->rank == 0) {
        err = lc_rma_seg_make(name, sizeof name, comm->world_ranks[0], seq, &g, &token, why, sizeof why);
        lc_rma_seg_count++;
        /* Mapped at once, not after the broadcast: an object in /dev/shm
         * that no process holds looks abandoned (test/run_mpi_test.sh's
         * leak check, run by a concurrent job, removed it). */
        if (!err && !(p = lc_shm_win_map(name, &g, &err, why, sizeof why))) lc_shm_obj_remove(name);
        if (!err && !p) err = EIO;
    }
    /* err, seq, the token's and the key's halves: name and key are known
     * only to the window's ranks. */
    unsigned msg[6] = { (unsigned)err,          seq, (unsigned)token, (unsigned)(token >> 32), (unsigned)g.key,
                        (unsigned)(g.key >> 32) };
    int rc = lc_coll_bcast(msg, 6, MPI_UNSIGNED, 0, comm);
    if (rc != MPI_SUCCESS) {
        if (p) { /* rank 0's mapping and object */
            munmap(p, len);
            lc_shm_obj_remove(name);
        }
        goto out;
    }
    token = (uint64_t)msg[2] | (uint64_t)msg[3] << 32;
    g.key = (uint64_t)msg[4] | (uint64_t)msg[5] << 32;
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
    if (comm->rank != 0) p = lc_shm_win_map(name, &g, &err, why, sizeof why);
    /* Everyone must have mapped it before the name goes, and everyone must
     * know whether someone failed. */
    int fails = p == NULL, all = 0;
    rc = lc_coll_allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, comm);
    if (comm->rank == 0) lc_shm_obj_remove(name);
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
    for (int r = 0; r < n; r++) bases[r] = (char *)p + offs[r];
out:
    free(offs);
    return rc;
}

int lc_rma_seg_create(lc_rma_win_t *win, bool noncontig)
{
    int rc = lc_rma_seg_map(win, win->sizes, noncontig, win->bases);
    if (rc == MPI_SUCCESS) win->base = win->bases[win->comm->rank];
    return rc;
}

void lc_rma_seg_destroy(lc_rma_win_t *win)
{
    if (win->seg) munmap(win->seg, win->seg_len);
    win->seg = NULL;
}
