/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of what a segment says about its creator (issue 12, points 6
 * and 7): a forked child — in a new PID namespace when we may create one,
 * as a rank in another container would be — creates a segment and waits;
 * we attach it.  While the child lives, lc_shm_segment_owner_alive says 1
 * and lc_shm_sweep_dead leaves the segment alone; once it is killed
 * (SIGKILL: no clean-up of its own), owner_alive says 0 and the sweep
 * removes its name and directory.  An empty object directory (a creator
 * killed between mkdir and link) is removed too, unless it is the
 * sweeping job's own; a segment still being made by name (no magic yet)
 * is not.
 */
#include "channel/lc_shm.h"
#include "util/lc_params.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lc_unit_check.h"

/* The segment's path, or (dir) its directory's. */
static int exists(const char *path, int dir)
{
    char buf[600];
    struct stat st;
    snprintf(buf, sizeof(buf), "%s", path);
    if (dir) *strrchr(buf, '/') = 0;
    return stat(buf, &st) == 0;
}

/* A creator killed between its mkdir and its link leaves an empty
 * directory: the sweep removes it, unless it is of the sweeping job. */
static void check_empty_dirs(void)
{
    char path[LC_SHM_PATH_MAX], stem[64];
    snprintf(stem, sizeof(stem), "locus-unitdead%d-0", (int)getpid());
    CHECK(lc_shm_obj_path(path, sizeof(path), stem, 0xfeedfacecafebeefull, "rings") == 0);
    *strrchr(path, '/') = 0;
    CHECK(mkdir(path, 0700) == 0);
    char own[64];
    snprintf(own, sizeof(own), "unitdead%d", (int)getpid());
    lc_shm_sweep_dead(own);
    CHECKF(exists(path, 0), "the sweep removed %s, a directory of its own job", path);
    int removed = lc_shm_sweep_dead(NULL);
    CHECKF(!exists(path, 0) && removed >= 1, "the sweep left the empty directory %s (%d removed)", path, removed);
    rmdir(path);
}

/* A segment made by name (no O_TMPFILE here) exists, empty and unlocked,
 * from its creator's openat until it is sized, locked and stamped: the
 * sweep must take it for a live creator's, not a dead one's (the magic,
 * written last, is what lets it judge). */
static void check_unstamped(void)
{
    char path[LC_SHM_PATH_MAX], stem[64];
    snprintf(stem, sizeof(stem), "locus-unitnew%d-0", (int)getpid());
    CHECK(lc_shm_obj_path(path, sizeof(path), stem, 0x0123456789abcdefull, "rings") == 0);
    int fd = lc_shm_obj_place(path, -1);
    CHECKF(fd >= 0, "cannot place %s", path);
    if (fd < 0) return;
    /* Sized but not stamped: what a creator between fallocate and its
     * header leaves (zero pages, no lock yet). */
    CHECK(ftruncate(fd, 8192) == 0);
    int removed = lc_shm_sweep_dead(NULL);
    CHECKF(exists(path, 0), "the sweep removed %s, a segment still being made (%d removed)", path, removed);
    close(fd);
    lc_shm_obj_remove(path);
}

int main(void)
{
    if (lc_params_load() != 0) return 1;
    if (lc_params.shm_dir[0]) {
        printf("SKIP: LOCUS_SHM_DIR is set\n");
        return 77;
    }
    char kvs[64];
    snprintf(kvs, sizeof(kvs), "unitlive%d", (int)getpid());
    int pipefd[2], nspipe[2];
    if (pipe(pipefd) != 0 || pipe(nspipe) != 0) return 1;
    /* A helper moves its children to a new PID namespace (this process
     * stays where it is: LeakSanitizer forks at exit) and forks the
     * creator there, whose pid then means nothing to us: only the lock
     * tells.  The helper passes on the creator's pid as we see it. */
    pid_t helper = fork();
    if (helper < 0) return 1;
    if (helper == 0) {
        int newns = unshare(CLONE_NEWPID) == 0;
        pid_t c = fork();
        if (c < 0) _exit(1);
        if (c == 0) {
            lc_shm_segment_t seg;
            char card[LC_SHM_CARD_LEN] = "";
            if (lc_shm_segment_create(&seg, kvs, 0, 1, 1024, 8) == 0) lc_shm_segment_card(&seg, card, sizeof(card));
            if (write(pipefd[1], card, sizeof(card)) != (ssize_t)sizeof(card)) _exit(1);
            for (;;) pause();
        }
        int msg[2] = { (int)c, newns };
        if (write(nspipe[1], msg, sizeof(msg)) != (ssize_t)sizeof(msg)) _exit(1);
        waitpid(c, NULL, 0);
        _exit(0);
    }
    int msg[2];
    if (read(nspipe[0], msg, sizeof(msg)) != (ssize_t)sizeof(msg)) return 1;
    pid_t child = msg[0];
    int newns = msg[1];
    char card[LC_SHM_CARD_LEN];
    if (read(pipefd[0], card, sizeof(card)) != (ssize_t)sizeof(card) || !card[0]) {
        fprintf(stderr, "the child could not create its segment\n");
        kill(child, SIGKILL);
        return 1;
    }
    lc_shm_segment_t peer;
    char why[600];
    if (lc_shm_segment_attach(&peer, kvs, 0, card, why, sizeof(why)) != 0) {
        fprintf(stderr, "attach: %s\n", why);
        kill(child, SIGKILL);
        return 1;
    }
    CHECKF(lc_shm_segment_owner_alive(&peer) == 1, "a live creator is not seen alive (%d)",
          lc_shm_segment_owner_alive(&peer));
    lc_shm_sweep_dead(NULL);
    CHECKF(exists(peer.name, 0), "the sweep removed %s, whose creator lives", peer.name);

    kill(child, SIGKILL);
    waitpid(helper, NULL, 0); /* returns once the creator is gone */
    CHECKF(lc_shm_segment_owner_alive(&peer) == 0, "a killed creator is not seen dead (%d)",
          lc_shm_segment_owner_alive(&peer));
    int removed = lc_shm_sweep_dead(NULL);
    CHECKF(!exists(peer.name, 0) && !exists(peer.name, 1) && removed >= 1,
           "the sweep left %s or its directory, whose creator is dead (%d removed)", peer.name, removed);
    /* The mapping outlives the name. */
    CHECKF(lc_shm_segment_ring(&peer, 0) != NULL, "no ring");
    lc_shm_segment_detach(&peer);
    lc_shm_obj_remove(peer.name);
    check_empty_dirs();
    check_unstamped();
    if (failures) return 1;
    printf("PASS (creator %s)\n", newns ? "in another PID namespace" : "in our PID namespace");
    return 0;
}
