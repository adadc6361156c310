/* mpiexec / mpirun: start a job on this host and run it to its end.
 * Architecture and invariants: mpiexec.h. */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <termios.h>
#include <unistd.h>

static int mpiexec_signal_fd = -1;

/* Async-signal-safe: just queue the signal number for the event loop. */
static void mpiexec_on_signal(int sig)
{
    int saved = errno;
    unsigned char c = (unsigned char)sig;

    (void)!write(mpiexec_signal_fd, &c, 1);
    errno = saved;
}

static int mpiexec_install_signals(mpiexec_job_t *job)
{
    static const int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;

    if (pipe2(job->signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        mpiexec_say("cannot create the signal pipe: %m");
        return -1;
    }
    mpiexec_signal_fd = job->signal_pipe[1];
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = mpiexec_on_signal;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
    /* A rank that closes its stdin, or a closed stdout of ours, must give
     * EPIPE, not kill mpiexec. */
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

/* Ranks get our 0..2 only through their own pipes, but the launcher's
 * dup2 onto 0..2 assumes no descriptor of ours sits there. */
static void mpiexec_fix_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) < 0) {
            int nfd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (nfd >= 0 && nfd != fd) {
                dup2(nfd, fd);
                close(nfd);
            }
        }
    }
}

/* Unique per job: mpiexec's pid plus 32 random bits, so names of shared
 * memory objects (/dev/shm/locus-<kvsname>-*) never collide across jobs. */
static void mpiexec_make_kvsname(mpiexec_job_t *job)
{
    unsigned int rnd = 0;

    if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        rnd = (unsigned int)ts.tv_nsec ^ (unsigned int)getpid() * 2654435761u;
    }
    snprintf(job->kvsname, sizeof(job->kvsname), "lc%ldx%08x", (long)getpid(), rnd);
}

static int mpiexec_check_fd_limit(int nprocs)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)nprocs * 4 + 32;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 0;
    if (rl.rlim_cur < need && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur < need) {
        mpiexec_say("%d processes need %lu open files, but the limit is %lu (raise it with ulimit -n)",
                    nprocs, (unsigned long)need, (unsigned long)rl.rlim_cur);
        return -1;
    }
    return 0;
}

/* Forward our stdin only when reading it cannot stop us: a terminal we do
 * not own (mpiexec in the background) would send SIGTTIN. */
static int mpiexec_stdin_usable(void)
{
    if (fcntl(0, F_GETFD) < 0)
        return 0;
    if (isatty(0) && tcgetpgrp(0) != getpgrp())
        return 0;
    return 1;
}

static int mpiexec_streams_open(const mpiexec_job_t *job)
{
    for (int i = 0; i < job->size; i++)
        if (job->ranks[i].out.fd >= 0 || job->ranks[i].err.fd >= 0)
            return 1;
    return 0;
}

enum { MPIEXEC_PFD_SIGNAL, MPIEXEC_PFD_PMI, MPIEXEC_PFD_OUT, MPIEXEC_PFD_ERR, MPIEXEC_PFD_STDIN,
       MPIEXEC_PFD_RANK0_STDIN };

/* Add fd (if open) to the poll set; kind/who say what it is. */
static int mpiexec_watch(struct pollfd *pfd, int *kind, int *who, int n, int fd, short events, int k, int w)
{
    if (fd < 0)
        return n;
    pfd[n].fd = fd;
    pfd[n].events = events;
    pfd[n].revents = 0;
    kind[n] = k;
    who[n] = w;
    return n + 1;
}

static void mpiexec_run(mpiexec_job_t *job)
{
    size_t cap = (size_t)job->size * 3 + 4;
    struct pollfd *pfd = calloc(cap, sizeof(*pfd));
    int *kind = calloc(cap, sizeof(int)), *who = calloc(cap, sizeof(int));
    struct timespec drain_end;
    int draining = 0;

    if (pfd == NULL || kind == NULL || who == NULL) {
        mpiexec_say("out of memory");
        mpiexec_fate_end_job(job, 1);
        /* Without the loop we cannot wait politely; make sure nothing stays. */
        for (int i = 0; i < job->size; i++)
            if (job->ranks[i].running)
                kill(-job->ranks[i].pid, SIGKILL);
        goto out;
    }

    for (;;) {
        int n = 0, timeout = -1;

        if (job->nrunning == 0) {
            /* Everyone exited; collect output still in flight, but do not
             * wait for descendants that inherited the pipes. */
            if (!draining) {
                draining = 1;
                mpiexec_deadline(&drain_end, MPIEXEC_DRAIN_MS);
            }
            if (!mpiexec_streams_open(job) || mpiexec_ms_until(&drain_end) == 0)
                break;
            timeout = (int)mpiexec_ms_until(&drain_end);
        } else if (job->ending && !job->killed_hard) {
            timeout = (int)mpiexec_ms_until(&job->kill_at);
        }

        n = mpiexec_watch(pfd, kind, who, n, job->signal_pipe[0], POLLIN, MPIEXEC_PFD_SIGNAL, -1);
        for (int i = 0; i < job->size; i++) {
            mpiexec_rank_t *r = &job->ranks[i];
            n = mpiexec_watch(pfd, kind, who, n, r->pmi_fd, POLLIN, MPIEXEC_PFD_PMI, i);
            n = mpiexec_watch(pfd, kind, who, n, r->out.fd, POLLIN, MPIEXEC_PFD_OUT, i);
            n = mpiexec_watch(pfd, kind, who, n, r->err.fd, POLLIN, MPIEXEC_PFD_ERR, i);
        }
        if (job->rank0_stdin >= 0 && job->stdin_len == 0)
            n = mpiexec_watch(pfd, kind, who, n, job->stdin_fd, POLLIN, MPIEXEC_PFD_STDIN, -1);
        if (job->stdin_len > 0)
            n = mpiexec_watch(pfd, kind, who, n, job->rank0_stdin, POLLOUT, MPIEXEC_PFD_RANK0_STDIN, -1);

        if (poll(pfd, (nfds_t)n, timeout) < 0 && errno != EINTR) {
            mpiexec_say("poll: %m");
            mpiexec_fate_end_job(job, 1);
        }

        /* Data first, signals (and so exits) last: a rank's last words are
         * read before its death is judged. */
        for (int i = 1; i < n; i++) {
            mpiexec_rank_t *r = who[i] >= 0 ? &job->ranks[who[i]] : NULL;

            if (pfd[i].revents == 0)
                continue;
            switch (kind[i]) {
            case MPIEXEC_PFD_PMI:
                if (r->pmi_fd == pfd[i].fd)
                    mpiexec_pmi_readable(job, r);
                break;
            case MPIEXEC_PFD_OUT:
                if (r->out.fd == pfd[i].fd)
                    mpiexec_io_readable(job, &r->out);
                break;
            case MPIEXEC_PFD_ERR:
                if (r->err.fd == pfd[i].fd)
                    mpiexec_io_readable(job, &r->err);
                break;
            case MPIEXEC_PFD_STDIN:
                if (job->stdin_fd >= 0 && job->rank0_stdin >= 0)
                    mpiexec_io_stdin_readable(job);
                break;
            case MPIEXEC_PFD_RANK0_STDIN:
                mpiexec_io_stdin_writable(job);
                break;
            }
        }
        if (pfd[0].revents != 0) {
            unsigned char sigs[64];
            ssize_t got = read(job->signal_pipe[0], sigs, sizeof(sigs));
            int child = 0;

            for (ssize_t k = 0; k < got; k++) {
                if (sigs[k] == SIGCHLD)
                    child = 1;
                else
                    mpiexec_fate_signal(job, sigs[k]);
            }
            if (child)
                mpiexec_fate_reap(job);
        }
        mpiexec_fate_tick(job);
    }
out:
    free(pfd);
    free(kind);
    free(who);
}

static void mpiexec_job_free(mpiexec_job_t *job)
{
    mpiexec_kvs_destroy(job->kvs);
    mpiexec_kvs_destroy(job->node_attrs);
    free(job->ranks);
    free(job->program_path);
    free(job->opt.genv_names);
    free(job->opt.genv_values);
    free(job);
}

int main(int argc, char **argv)
{
    mpiexec_job_t *job;
    int rc;

    mpiexec_fix_std_fds();
    job = calloc(1, sizeof(*job));
    if (job == NULL) {
        mpiexec_say("out of memory");
        return 1;
    }
    rc = mpiexec_options_parse(argc, argv, &job->opt);
    if (rc != 0) {
        rc = rc == 2 ? 0 : 1; /* 2: --help was shown */
        goto out;
    }
    rc = 1;
    job->program_path = mpiexec_launch_resolve(job->opt.argv[0]);
    if (job->program_path == NULL || mpiexec_check_fd_limit(job->opt.nprocs) != 0)
        goto out;

    job->size = job->opt.nprocs;
    job->ranks = calloc((size_t)job->size, sizeof(mpiexec_rank_t));
    job->kvs = mpiexec_kvs_create();
    job->node_attrs = mpiexec_kvs_create();
    if (job->ranks == NULL || job->kvs == NULL || job->node_attrs == NULL) {
        mpiexec_say("out of memory for %d processes", job->size);
        goto out;
    }
    for (int i = 0; i < job->size; i++) {
        job->ranks[i].rank = i;
        job->ranks[i].pmi_fd = -1;
        job->ranks[i].out.fd = -1;
        job->ranks[i].err.fd = -1;
    }
    job->stdin_fd = mpiexec_stdin_usable() ? 0 : -1;
    job->rank0_stdin = -1;
    mpiexec_make_kvsname(job);
    if (mpiexec_install_signals(job) != 0)
        goto out;

    if (mpiexec_launch_all(job) != 0)
        mpiexec_fate_end_job(job, 1);
    if (job->rank0_stdin < 0)
        job->stdin_fd = -1;

    mpiexec_run(job);

    for (int i = 0; i < job->size; i++) {
        mpiexec_io_close(job, &job->ranks[i].out);
        mpiexec_io_close(job, &job->ranks[i].err);
        mpiexec_pmi_close(job, &job->ranks[i]);
    }
    mpiexec_io_stdin_close(job);
    mpiexec_fate_cleanup_shm(job);
    rc = job->exit_code_set ? job->exit_code : 0;
out:
    mpiexec_job_free(job);
    return rc;
}
