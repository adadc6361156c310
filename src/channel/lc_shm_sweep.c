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
 * locked and stamped (created unnamed with O_TMPFILE, then linked into
 * its new 0700 directory: lc_shm_obj.c), so every name the sweep meets
 * can be judged; where O_TMPFILE or /proc is missing it is created under
 * its name, and a creator killed before its lock leaves a name the sweep
 * cannot judge and leaves alone.  A directory is removed once empty: its
 * segment swept, or never linked (its creator killed between mkdir and
 * link; a live one in that instant draws another name).  The sweeping
 * job's own directories are never looked at.
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
#include <stdio.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* locus-<kvsname>-<rank>-<16 hex digits>: a ring segment's directory,
 * or (before issue 12's directories) a ring segment itself.  Window
 * directories (locus-<kvsname>-w<rank>-<n>-<token>) match too: they
 * hold no "rings" and are removed only when empty. */
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

/* The object `name` in directory `dfd`, if it is a ring segment of ours
 * whose creator died: removed (1), else left (0).  This process holds no
 * lock on any segment yet (we sweep before creating ours), so closing
 * the descriptor releases none. */
static int lc_shm_sweep_object(int dfd, const char *name)
{
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    int gone = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && lc_shm_object_orphaned(fd) &&
               unlinkat(dfd, name, 0) == 0;
    close(fd);
    return gone;
}

/* An object directory of ours: its dead creator's segment goes, then the
 * directory if that left it empty (rmdir refuses a directory that holds
 * anything: a live creator's segment, a window). */
static int lc_shm_sweep_objdir(int parent, const char *name)
{
    int dfd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) return 0;
    struct stat st;
    if (fstat(dfd, &st) != 0 || st.st_uid != geteuid()) {
        close(dfd);
        return 0;
    }
    int removed = lc_shm_sweep_object(dfd, "rings");
    close(dfd);
    return unlinkat(parent, name, AT_REMOVEDIR) == 0 ? 1 : removed;
}

int lc_shm_sweep_dead(const char *own_kvsname)
{
    const char *dir = lc_shm_where();
    DIR *d = opendir(dir);
    if (!d) return 0; /* the creation that follows says what is wrong with it */
    char own[300] = "";
    if (own_kvsname) snprintf(own, sizeof(own), "locus-%s-", own_kvsname);
    size_t ownlen = strlen(own);
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!lc_shm_sweep_ring_name(e->d_name) || (ownlen && strncmp(e->d_name, own, ownlen) == 0)) continue;
        int n = e->d_type == DT_DIR || e->d_type == DT_UNKNOWN ? lc_shm_sweep_objdir(dirfd(d), e->d_name) : 0;
        if (!n && e->d_type != DT_DIR) n = lc_shm_sweep_object(dirfd(d), e->d_name); /* the old flat form */
        removed += n;
        if (n && lc_params.debug)
            lc_log_warn("removed %s/%s: a shared-memory segment whose creator died during MPI_Init", dir, e->d_name);
    }
    closedir(d);
    return removed;
}
