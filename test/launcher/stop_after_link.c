/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An LD_PRELOAD module for t_harness_live_job.sh: in the rank whose
 * PMI_RANK is LC_TEST_STOP_RANK, right after the library linked its new
 * ring segment into its directory (lc_shm_obj_place: linkat of "rings"),
 * write this process's pid to LC_TEST_STOP_PIDFILE and stop (SIGSTOP).
 * Its peers have made theirs too and wait for it in MPI_Init, before
 * any of them opens another's segment: the window in which a segment's
 * only holder is its creator, through the unnamed descriptor it was
 * built on — held for seconds, deterministically.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags)
{
    static int stopped;
    int (*real)(int, const char *, int, const char *, int) =
        (int (*)(int, const char *, int, const char *, int))dlsym(RTLD_NEXT, "linkat");
    if (!real) return -1;
    int rc = real(olddirfd, oldpath, newdirfd, newpath, flags);
    const char *rank = getenv("PMI_RANK"), *stop = getenv("LC_TEST_STOP_RANK");
    const char *pidfile = getenv("LC_TEST_STOP_PIDFILE");
    if (rc == 0 && !stopped && rank && stop && pidfile && strcmp(rank, stop) == 0 && strcmp(newpath, "rings") == 0) {
        stopped = 1;
        char buf[32];
        int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
        int fd = open(pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            ssize_t w = write(fd, buf, (size_t)n); /* short: the test waits in vain, and says so */
            (void)w;
            close(fd);
        }
        raise(SIGSTOP);
    }
    return rc;
}
