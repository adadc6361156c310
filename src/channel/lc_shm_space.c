/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_shm_space.c — what the shared-memory segments of a host need, and
 * the check MPI_Init makes before any rank maps anything (issue 13).
 */
#include "channel/lc_shm.h"
#include "util/lc_params.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

void lc_shm_geometry_default(uint32_t nlocal, lc_shm_geometry_t *g)
{
    g->nrings = nlocal;
    g->cell_size = lc_shm_cell_size();
    g->ncells = lc_shm_ring_cells();
    g->pool_cell_size = lc_shm_pool_cell_size();
    g->pool_cells = lc_shm_pool_cells();
    g->big_cell_size = lc_shm_big_cell_size();
    g->big_cells = lc_shm_big_cells(nlocal);
}

uint32_t lc_shm_big_cell_size(void)
{
    size_t p = lc_params.shm_big_cell_size > (64u << 20) ? (64u << 20) : lc_params.shm_big_cell_size;
    size_t cell = p < 256 ? 256 : (p + 63) & ~(size_t)63;
    return (uint32_t)cell;
}

/* Every rank holds its own big cells, so their count shrinks as the host
 * fills: 16 x 64 KiB (1 MiB in flight per sender) costs 16 MiB on a host
 * of 16 ranks, 4 x 64 KiB at 256 ranks 64 MiB, inside issue 13's budget
 * (<= 64 MiB of segments at 64 ranks, <= 512 MiB at 256); on a full host
 * the ranks also share the cores, and CMA or the pool carries most. */
uint32_t lc_shm_big_cells(uint32_t nlocal)
{
    if (lc_shm_big_cell_size() <= lc_shm_pool_cell_size()) return 0; /* would carry nothing the pool cannot */
    long n = lc_params.shm_big_cells;
    if (n == LC_PARAM_INT_AUTO) return nlocal <= 16 ? 16 : nlocal <= 32 ? 8 : 4;
    return n < 0 ? 0 : n > 4096 ? 4096 : (uint32_t)n;
}

uint64_t lc_shm_host_bytes(uint32_t nlocal)
{
    lc_shm_geometry_t g;
    lc_shm_geometry_default(nlocal, &g);
    return (uint64_t)nlocal * lc_shm_segment_bytes(&g);
}

/* Bytes of the files directly in `dfd` (a segment's directory). */
static uint64_t lc_shm_dir_usage(int dfd)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return 0;
    }
    uint64_t used = 0;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d)) != NULL)
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
            used += (uint64_t)st.st_blocks * 512;
    closedir(d);
    return used;
}

/* Bytes that this job's segments already occupy in `dir` (ranks that got
 * here first may have created theirs): locus-<kvsname>-* directories
 * (lc_shm_obj.c) and what they hold, or files of that name. */
static uint64_t lc_shm_job_usage(const char *dir, const char *kvsname)
{
    char prefix[300];
    snprintf(prefix, sizeof(prefix), "locus-%s-", kvsname);
    size_t plen = strlen(prefix);
    uint64_t used = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, plen) != 0) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (S_ISREG(st.st_mode)) used += (uint64_t)st.st_blocks * 512;
        if (S_ISDIR(st.st_mode) && st.st_uid == geteuid()) {
            int dfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (dfd >= 0) used += lc_shm_dir_usage(dfd);
        }
    }
    closedir(d);
    return used;
}

static double lc_mib(uint64_t b)
{
    return (double)b / (1024.0 * 1024.0);
}

int lc_shm_check_space(const char *kvsname, uint32_t nseg, uint32_t nrings, int loud)
{
    const char *dir = lc_params.shm_dir[0] ? lc_params.shm_dir : "/dev/shm";
    struct statvfs vfs;
    /* No such directory, or not one statvfs understands: creating the
     * segment will say what is wrong. */
    if (statvfs(dir, &vfs) != 0) return LC_OK;
    lc_shm_geometry_t g;
    lc_shm_geometry_default(nrings, &g);
    uint64_t need = (uint64_t)nseg * lc_shm_segment_bytes(&g);
    uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
    uint64_t have = avail + lc_shm_job_usage(dir, kvsname);
    if (have >= need) return LC_OK;
    if (loud) {
        uint64_t size = (uint64_t)vfs.f_blocks * vfs.f_frsize;
        /* What the directory's file system must hold: our need plus what
         * others use there now, rounded up to 64 MiB. */
        uint64_t want = ((need + (size > have ? size - have : 0)) + (64ull << 20) - 1) & ~((64ull << 20) - 1);
        char how[400];
        if (lc_params.shm_dir[0])
            snprintf(how, sizeof(how),
                     "Give it more: a larger tmpfs at %s (e.g. mount -t tmpfs -o size=%llum), or LOCUS_SHM_DIR=<a "
                     "directory with more room>, or unset LOCUS_SHM_DIR to use /dev/shm",
                     dir, (unsigned long long)(want >> 20));
        else
            snprintf(how, sizeof(how),
                     "Give it more: docker run --shm-size=%llum; in Kubernetes an emptyDir volume with medium: "
                     "Memory (sizeLimit: %lluMi) mounted at /dev/shm; or LOCUS_SHM_DIR=<a directory on tmpfs "
                     "with more room>",
                     (unsigned long long)(want >> 20), (unsigned long long)(want >> 20));
        lc_log_error("not enough shared memory for the %u ranks on this host: they need %.1f MiB in %s%s (%u "
                     "segments of %.2f MiB: %u rings of %u x %u B + a send pool of %u x %u B + %u big cells of "
                     "%u B; see locus-info --shm-footprint %u), but only %.1f MiB are free there (of %.1f MiB). "
                     "%s; or make the segments smaller (LOCUS_SHM_BIG_CELLS, LOCUS_SHM_POOL_CELLS, "
                     "LOCUS_SHM_CELL_SIZE, LOCUS_SHM_RING_CELLS).",
                     nseg, lc_mib(need), lc_params.shm_dir[0] ? "LOCUS_SHM_DIR=" : "", dir, nseg,
                     lc_mib(lc_shm_segment_bytes(&g)), g.nrings, g.ncells, g.cell_size, g.pool_cells, g.pool_cell_size,
                     g.big_cells, g.big_cell_size, nrings, lc_mib(have), lc_mib(size), how);
    }
    return LC_ERROR;
}
