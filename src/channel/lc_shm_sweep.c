/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_shm_sweep.c — removing the ring segments of jobs that died before
 * they could remove them (issue 12, point 7).
 *
 * A segment's name exists from its creation until every peer has mapped
 * it (the fence after the attaches, in MPI_Init); then its creator
 * removes it and the mapping lives on without a name.  If every process
 * of a job is killed inside that window, nobody removes it: Locus's own
 * mpiexec and its proxies sweep the job's names at its end, but a
 * foreign launcher (hydra, srun) does not.  So the next rank of ours that
 * creates a segment in the same directory first removes every segment
 * whose creator is dead.  A segment gets its name only once it is
 * locked and stamped (created unnamed with O_TMPFILE, then linked), so
 * every name the sweep meets can be judged; where O_TMPFILE or /proc is
 * missing it is created under its name, and a creator killed before its
 * lock leaves a name the sweep cannot judge and leaves alone.
 * "Dead" is the kernel's word, not a guess: the
 * creator holds a write lock on the object for its whole life
 * (lc_shm_hold) and says so in the header; the kernel releases the lock
 * when the process ends, in whatever PID namespace or container it ran.
 * Segments of another user, of another format, or of a creator that could
 * not lock (a file system without locks) are never touched.
 */
#include "channel/lc_shm.h"
#include "util/lc_params.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* locus-<kvsname>-<rank>-<16 hex digits>: a ring segment (window
 * segments, locus-<kvsname>-w<rank>-<n>-<token>, end differently). */
static int lc_shm_sweep_ring_name(const char *n)
{
    size_t len = strlen(n);
    if (strncmp(n, "locus-", 6) != 0 || len < 6 + 2 + 2 + 16) return 0;
    const char *tok = n + len - 16;
    if (strspn(tok, "0123456789abcdef") != 16 || tok[-1] != '-') return 0;
    const char *r = tok - 2; /* last digit of the rank */
    int digits = 0;
    while (r > n + 6 && *r >= '0' && *r <= '9') r--, digits++;
    return digits > 0 && *r == '-';
}

int lc_shm_sweep_dead(void)
{
    const char *dir = lc_params.shm_dir[0] ? lc_params.shm_dir : "/dev/shm";
    DIR *d = opendir(dir);
    if (!d) return 0; /* the creation that follows says what is wrong with it */
    int removed = 0;
    struct dirent *e;
    uid_t me = geteuid();
    while ((e = readdir(d)) != NULL) {
        if (!lc_shm_sweep_ring_name(e->d_name)) continue;
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) continue;
        struct stat st;
        /* This process holds no lock on any segment yet (we sweep before
         * creating ours), so closing this descriptor releases none. */
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == me && lc_shm_object_orphaned(fd) &&
            unlinkat(dirfd(d), e->d_name, 0) == 0) {
            removed++;
            if (lc_params.debug)
                lc_log_warn("removed %s/%s: a shared-memory segment whose creator died during MPI_Init", dir,
                            e->d_name);
        }
        close(fd);
    }
    closedir(d);
    return removed;
}
