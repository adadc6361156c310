/* SPDX-License-Identifier: BSD-3-Clause */
/* What the processes that have not exited are doing, said once when
 * mpiexec is told to end the job by a signal (a test's time limit, a
 * batch system's wall clock, Ctrl-C).
 *
 * A job that hangs is most often ended from outside, and then the only
 * witness of where it hung is what mpiexec says on its way out: which
 * ranks had not exited, how far each got in the PMI conversation (before
 * init, inside MPI, after PMI finalize — a rank past finalize hangs in
 * its teardown or its exit, not in MPI), the last request it made and
 * whether it still waits for the answer, and for a local rank the
 * kernel's view (/proc: run state, where it sleeps, CPU time, threads).
 * A rank that spins shows state R and growing CPU time; a lost wake-up
 * shows S in a futex or poll wait with little CPU.  Reading /proc costs
 * a few system calls per rank; at most MPIEXEC_STUCK_LINES ranks are
 * listed (a 256-rank job would bury the cause). */
#include "mpiexec.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MPIEXEC_STUCK_LINES 16

/* Whole small file `path` into buf (NUL-terminated); its length, or -1. */
static ssize_t mpiexec_stuck_read(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0) return -1;
    n = read(fd, buf, cap - 1);
    close(fd);
    if (n < 0) return -1;
    buf[n] = '\0';
    return n;
}

/* "; state S, CPU 0.02 s, 1 thread, waiting in do_epoll_wait" for a
 * local process, from /proc/<pid>/stat (fields after the command name,
 * which may hold spaces and parentheses: parse from the last ')') and
 * /proc/<pid>/wchan ("0" when it runs). */
static void mpiexec_stuck_proc(pid_t pid, char *out, size_t cap)
{
    char path[64], stat[1024], wchan[128];
    char state = '?';
    unsigned long utime = 0, stime = 0;
    long threads = 0;
    const char *p;

    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    if (mpiexec_stuck_read(path, stat, sizeof(stat)) < 0 || (p = strrchr(stat, ')')) == NULL) {
        snprintf(out, cap, "; no /proc entry");
        return;
    }
    /* ") S ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
     *  priority nice num_threads" */
    if (sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu %*d %*d %*d %*d %ld", &state, &utime, &stime,
               &threads) < 4) {
        snprintf(out, cap, "; unreadable /proc entry");
        return;
    }
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0) hz = 100;
    snprintf(path, sizeof(path), "/proc/%ld/wchan", (long)pid);
    if (mpiexec_stuck_read(path, wchan, sizeof(wchan)) <= 0 || strcmp(wchan, "0") == 0) wchan[0] = '\0';
    snprintf(out, cap, "; state %c, CPU %.2f s, %ld thread%s%s%s", state, (double)(utime + stime) / (double)hz, threads,
             threads == 1 ? "" : "s", wchan[0] ? ", waiting in " : "", wchan);
}

/* How far the rank got with PMI, and its last request. */
static const char *mpiexec_stuck_pmi(const mpiexec_rank_t *r, char *out, size_t cap)
{
    const char *where;

    if (!r->pmi_inited)
        where = r->pmi_open ? "has not initialized PMI" : "closed PMI before initializing it";
    else if (r->pmi_finalized)
        where = "finalized PMI (past MPI_Finalize's last exchange)";
    else if (!r->pmi_open)
        where = "closed its PMI connection without finalizing";
    else
        where = "initialized PMI, not finalized (inside MPI)";
    if (r->in_barrier)
        snprintf(out, cap, "%s, waiting in the PMI barrier", where);
    else if (r->pmi_last[0])
        snprintf(out, cap, "%s, last request '%s'", where, r->pmi_last);
    else
        snprintf(out, cap, "%s", where);
    return out;
}

void mpiexec_stuck_report(const mpiexec_job_t *job, int sig)
{
    int left = 0, total = 0, said = 0;

    for (int j = 0; j < job->npjobs; j++) {
        total += job->pjobs[j]->size;
        for (int i = 0; i < job->pjobs[j]->size; i++) left += job->pjobs[j]->ranks[i].running;
    }
    if (left == 0) return;
    mpiexec_say("at signal %d, %d of %d processes had not exited:", sig, left, total);
    for (int j = 0; j < job->npjobs; j++) {
        for (int i = 0; i < job->pjobs[j]->size; i++) {
            const mpiexec_rank_t *r = &job->pjobs[j]->ranks[i];
            char pmi[160], proc[256] = "";

            if (!r->running) continue;
            if (said++ == MPIEXEC_STUCK_LINES) {
                mpiexec_say("  ... and %d more", left - MPIEXEC_STUCK_LINES);
                return;
            }
            if (r->proxy == NULL) mpiexec_stuck_proc(r->pid, proc, sizeof(proc));
            mpiexec_say("  %s (%s): %s%s", mpiexec_rank_name(r), mpiexec_rank_where(job, r),
                        mpiexec_stuck_pmi(r, pmi, sizeof(pmi)), proc);
        }
    }
}
