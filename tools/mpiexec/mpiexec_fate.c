/* SPDX-License-Identifier: BSD-3-Clause */
/* What happens to the job when its processes exit, abort or are signalled.
 *
 * The first failure decides the exit code and is reported in one line;
 * then every remaining rank gets SIGTERM, and SIGKILL if it is still
 * there MPIEXEC_KILL_GRACE_MS later, so the whole job is gone within two
 * seconds of the failure.  Failures that happen while the job is already
 * ending (most often the ranks we just killed) are not reported again.
 *
 * Failures: a rank killed by a signal (code 128+S), a rank exiting
 * non-zero (its code), a PMI abort (its code), a rank that initialized
 * PMI and exited without PMI finalize (1: its peers would wait for it
 * forever), a PMI protocol violation (1), SIGINT/SIGTERM/SIGHUP to
 * mpiexec (128+S); for remote hosts also a proxy that cannot be started
 * or whose connection is lost (1, mpiexec_remote.c).
 *
 * An abort or a non-zero exit is not acted on at once: it is held for
 * MPIEXEC_ABORT_SETTLE_MS while the job runs on.  A rank that loses a peer
 * (killed, its host gone) often aborts, or exits on a fatal communication
 * error, before the launcher hears of the death itself, and the death is
 * the cause the user needs to read.  A rank killed by a signal (or another
 * hard failure) while one is held is reported as the cause, the held one
 * after it as a consequence; otherwise the held one is reported when the
 * time is up (or when no rank is left running).  Further aborts and exits
 * while one is held add nothing: the first decided.
 *
 * A process of a spawned job is judged like a rank ("job 1 rank 0" in
 * messages): any failure ends the whole run.  Processes of a spawn that
 * failed half-way are killed at once and their exits ignored.
 *
 * Remote ranks are signalled through their proxies (SIGNAL frames) and
 * their exits arrive as EXITED frames; they are judged here like local
 * ones, and messages name their host. */
#include "mpiexec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void mpiexec_fate_set_code(mpiexec_job_t *job, int code)
{
    if (!job->exit_code_set) {
        job->exit_code = code;
        job->exit_code_set = 1;
    }
}

static void mpiexec_fate_signal_all(mpiexec_job_t *job, int sig)
{
    for (int j = 0; j < job->npjobs; j++) {
        for (int i = 0; i < job->pjobs[j]->size; i++) {
            mpiexec_rank_t *r = &job->pjobs[j]->ranks[i];

            /* Unreaped, so the pid (= process group id) cannot be reused. */
            if (r->proxy == NULL && r->running && kill(-r->pid, sig) != 0 && errno == ESRCH)
                kill(r->pid, sig); /* not yet a group leader (just forked) */
        }
    }
    mpiexec_remote_signal(job, sig);
}

static void mpiexec_fate_say_abort(mpiexec_job_t *job, const char *tail)
{
    mpiexec_say("%s%s", job->abort_text, tail);
}

/* Hold a failure (its report and exit code) unless one is held already or
 * the job is ending; the first decides. */
static void mpiexec_fate_hold(mpiexec_job_t *job, int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void mpiexec_fate_hold(mpiexec_job_t *job, int exit_code, const char *fmt, ...)
{
    va_list ap;

    if (job->ending || job->abort_held)
        return;
    va_start(ap, fmt);
    vsnprintf(job->abort_text, sizeof(job->abort_text), fmt, ap);
    va_end(ap);
    job->abort_held = 1;
    job->abort_exit_code = exit_code;
    mpiexec_deadline(&job->abort_at, MPIEXEC_ABORT_SETTLE_MS);
}

/* The held failure is the first one after all: report it, end the job. */
static void mpiexec_fate_release_abort(mpiexec_job_t *job)
{
    mpiexec_fate_say_abort(job, "; ending the job");
    job->abort_held = 0;
    mpiexec_fate_end_job(job, job->abort_exit_code);
}

void mpiexec_fate_end_job(mpiexec_job_t *job, int code)
{
    mpiexec_fate_set_code(job, code);
    if (job->ending)
        return;
    if (job->abort_held) {
        /* Another failure came first to be reported: the abort follows. */
        mpiexec_fate_say_abort(job, " (after the failure above)");
        job->abort_held = 0;
    }
    job->ending = 1;
    mpiexec_fate_signal_all(job, SIGTERM);
    mpiexec_deadline(&job->kill_at, MPIEXEC_KILL_GRACE_MS);
}

/* Called from the event loop: escalate to SIGKILL when the grace ends. */
void mpiexec_fate_tick(mpiexec_job_t *job)
{
    if (job->abort_held && mpiexec_ms_until(&job->abort_at) == 0)
        mpiexec_fate_release_abort(job);
    if (job->ending && !job->killed_hard && mpiexec_ms_until(&job->kill_at) == 0) {
        job->killed_hard = 1;
        mpiexec_fate_signal_all(job, SIGKILL);
    }
}

void mpiexec_fate_abort(mpiexec_job_t *job, mpiexec_rank_t *r, long code, const char *msg)
{
    int exit_code = (int)(code & 0xff);

    /* A non-zero code that truncates to 0 must still report failure. */
    if (exit_code == 0 && code != 0)
        exit_code = 1;
    r->pmi_finalized = 1; /* its exit is expected now; do not report it again */
    r->aborted = 1;
    mpiexec_fate_hold(job, exit_code, "%s (%s) called MPI_Abort (exit code %ld)%s%s", mpiexec_rank_name(r),
                      mpiexec_rank_where(job, r), code, msg != NULL && msg[0] ? ": " : "", msg != NULL ? msg : "");
}

void mpiexec_fate_protocol_error(mpiexec_job_t *job, mpiexec_rank_t *r, const char *what)
{
    if (!job->ending)
        mpiexec_say("%s (%s) %s; ending the job", mpiexec_rank_name(r), mpiexec_rank_where(job, r), what);
    mpiexec_pmi_close(job, r);
    mpiexec_fate_end_job(job, 1);
}

void mpiexec_fate_signal(mpiexec_job_t *job, int sig)
{
    if (job->ending) {
        /* Second request (impatient Ctrl-C): no more grace. */
        if (!job->killed_hard) {
            job->killed_hard = 1;
            mpiexec_fate_signal_all(job, SIGKILL);
        }
        return;
    }
    mpiexec_say("received signal %d (%s); forwarding it to all ranks and ending the job", sig,
                strsignal(sig));
    mpiexec_stuck_report(job, sig);
    if (job->abort_held) {
        mpiexec_fate_say_abort(job, " (before the signal)");
        job->abort_held = 0;
    }
    mpiexec_fate_set_code(job, 128 + sig);
    job->ending = 1;
    mpiexec_fate_signal_all(job, sig);
    mpiexec_deadline(&job->kill_at, MPIEXEC_KILL_GRACE_MS);
}

/* "pid 123", or "pid 123 on node7" for a remote rank. */
const char *mpiexec_rank_where(const mpiexec_job_t *job, const mpiexec_rank_t *r)
{
    static char buf[320];

    if (r->proxy == NULL)
        snprintf(buf, sizeof(buf), "pid %ld", (long)r->pid);
    else
        snprintf(buf, sizeof(buf), "pid %ld on %s", (long)r->pid, job->hosts[r->host].name);
    return buf;
}

void mpiexec_fate_rank_exited(mpiexec_job_t *job, mpiexec_rank_t *r, int status)
{
    /* Whatever it said before dying comes first.  (A proxy has already
     * relayed a remote rank's last bytes before its exit.) */
    if (r->proxy == NULL) {
        if (r->pmi_open)
            mpiexec_pmi_readable(job, r);
        mpiexec_io_drain(job, &r->out);
        mpiexec_io_drain(job, &r->err);
    }
    if (r->rank == 0 && r->pj->id == 0)
        mpiexec_io_stdin_close(job);

    r->running = 0;
    job->nrunning--;
    if (r->proxy != NULL)
        r->proxy->nrunning--;
    mpiexec_pmi_close(job, r);

    if (r->pj->cancelled) {
        /* Killed by us when its spawn failed: the spawner was told. */
        if (job->abort_held && job->nrunning == 0)
            mpiexec_fate_release_abort(job);
        return;
    }
    if (r->aborted) {
        /* Its abort is the news (held or acted on); nobody left to wait. */
        if (job->abort_held && job->nrunning == 0)
            mpiexec_fate_release_abort(job);
        return;
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);

        if (!job->ending)
            mpiexec_say("%s (%s) killed by signal %d (%s); ending the job", mpiexec_rank_name(r),
                        mpiexec_rank_where(job, r), sig, strsignal(sig));
        mpiexec_fate_end_job(job, 128 + sig);
    } else if (WEXITSTATUS(status) != 0) {
        mpiexec_fate_hold(job, WEXITSTATUS(status), "%s (%s) exited with code %d", mpiexec_rank_name(r),
                          mpiexec_rank_where(job, r), WEXITSTATUS(status));
    } else if (r->pmi_inited && !r->pmi_finalized) {
        if (!job->ending)
            mpiexec_say("%s (%s) exited without finalizing PMI (MPI_Finalize not "
                        "called?); ending the job", mpiexec_rank_name(r), mpiexec_rank_where(job, r));
        mpiexec_fate_end_job(job, 1);
    }
    if (job->abort_held && job->nrunning == 0)
        mpiexec_fate_release_abort(job); /* nobody left whose death could explain it */
}

/* Collect every exited child (called after SIGCHLD). */
void mpiexec_fate_reap(mpiexec_job_t *job)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);

        if (pid < 0 && errno == EINTR)
            continue;
        if (pid <= 0)
            return;
        if (mpiexec_agent_reaped(job, pid, status))
            continue;
        for (int j = 0; j < job->npjobs; j++) {
            mpiexec_pjob_t *pj = job->pjobs[j];
            int i;

            for (i = 0; i < pj->size; i++) {
                mpiexec_rank_t *r = &pj->ranks[i];

                if (r->proxy == NULL && r->running && r->pid == pid) {
                    mpiexec_fate_rank_exited(job, r, status);
                    break;
                }
            }
            if (i < pj->size)
                break;
        }
    }
}

/* Empty the directory `name` of `parent` (one level: the library puts
 * one object in each, src/channel/lc_shm_obj.c) and remove it.  Links
 * are not followed: a link planted under the name is removed itself. */
static int mpiexec_sweep_objdir(int parent, const char *name)
{
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d;
    struct dirent *e;

    if (fd < 0)
        return -1;
    d = fdopendir(fd);
    if (d == NULL) {
        close(fd);
        return -1;
    }
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
    return unlinkat(parent, name, AT_REMOVEDIR);
}

/* The library names every shared-memory object of a job
 * <dir>/locus-<kvsname>-...-<token>/<object> in /dev/shm, or in
 * LOCUS_SHM_DIR when that is set (files locus-<kvsname>-... before issue
 * 12's directories, and the PMI probes'); whatever a crashed job left is
 * removed. */
static void mpiexec_sweep_dir(const char *dir, const char *prefix, size_t plen)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, plen) != 0 || unlinkat(dirfd(d), e->d_name, 0) == 0 || errno == ENOENT)
            continue;
        if ((errno == EISDIR || errno == EPERM) && mpiexec_sweep_objdir(dirfd(d), e->d_name) == 0)
            continue;
        if (errno != ENOENT)
            mpiexec_say("cannot remove %s/%s: %m", dir, e->d_name);
    }
    closedir(d);
}

void mpiexec_fate_cleanup_shm(const char *kvsname, const char *shm_dir)
{
    char prefix[128];
    size_t plen = (size_t)snprintf(prefix, sizeof(prefix), "locus-%s-", kvsname);
    /* -genv LOCUS_SHM_DIR reaches the ranks only: the caller passes it */
    const char *dir = shm_dir != NULL ? shm_dir : lc_params.shm_dir;

    mpiexec_sweep_dir("/dev/shm", prefix, plen);
    if (dir[0] != '\0')
        mpiexec_sweep_dir(dir, prefix, plen);
}
