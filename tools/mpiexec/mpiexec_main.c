/* SPDX-License-Identifier: BSD-3-Clause */
/* mpiexec / mpirun: start a job on this host or across hosts and run it
 * to its end; `mpiexec --proxy ...` is the remote side (mpiexec_proxy.c).
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

static int mpiexec_check_fd_limit(int nprocs, int nproxies)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)nprocs * 4 + (rlim_t)nproxies * 3 + MPIEXEC_CONNS_MAX + 32;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 0;
    if (rl.rlim_cur < need && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur < need) {
        mpiexec_say("%d local processes and %d remote hosts need %lu open files, but the limit is %lu "
                    "(raise it with ulimit -n)", nprocs, nproxies, (unsigned long)need, (unsigned long)rl.rlim_cur);
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

/* The ranks' LOCUS_SHM_DIR: -genv wins over our environment (NULL: that). */
static const char *mpiexec_shm_dir(const mpiexec_job_t *job)
{
    const char *dir = NULL;

    for (int i = 0; i < job->opt.ngenv; i++)
        if (strcmp(job->opt.genv_names[i], "LOCUS_SHM_DIR") == 0)
            dir = job->opt.genv_values[i];
    return dir;
}

static int mpiexec_streams_open(const mpiexec_job_t *job)
{
    for (int j = 0; j < job->npjobs; j++)
        for (int i = 0; i < job->pjobs[j]->size; i++)
            if (job->pjobs[j]->ranks[i].out.open || job->pjobs[j]->ranks[i].err.open)
                return 1;
    return 0;
}

/* Processes of every job: the poll set's size. */
static size_t mpiexec_all_ranks(const mpiexec_job_t *job)
{
    size_t n = 0;

    for (int j = 0; j < job->npjobs; j++)
        n += (size_t)job->pjobs[j]->size;
    return n;
}

enum { MPIEXEC_PFD_SIGNAL, MPIEXEC_PFD_PMI, MPIEXEC_PFD_OUT, MPIEXEC_PFD_ERR, MPIEXEC_PFD_STDIN,
       MPIEXEC_PFD_RANK0_STDIN, MPIEXEC_PFD_LISTEN, MPIEXEC_PFD_CONN, MPIEXEC_PFD_PROXY,
       MPIEXEC_PFD_AGENT_OUT, MPIEXEC_PFD_AGENT_ERR };

/* The poll set: fds and, for each, what it is (kind), whose (who: a
 * connection or proxy index; rk: a rank of any job). */
typedef struct mpiexec_pollset {
    size_t           cap;
    struct pollfd   *pfd;
    int             *kind, *who;
    mpiexec_rank_t **rk;
} mpiexec_pollset_t;

/* Room for every fd the loop may watch now (a spawn adds processes). */
static int mpiexec_pollset_fit(mpiexec_pollset_t *ps, const mpiexec_job_t *job)
{
    size_t cap = mpiexec_all_ranks(job) * 3 + (size_t)job->nproxies * 3 + MPIEXEC_CONNS_MAX + 8;
    struct pollfd *pfd;
    int *kind, *who;
    mpiexec_rank_t **rk;

    if (cap <= ps->cap)
        return 0;
    pfd = realloc(ps->pfd, cap * sizeof(*pfd));
    if (pfd != NULL)
        ps->pfd = pfd;
    kind = realloc(ps->kind, cap * sizeof(int));
    if (kind != NULL)
        ps->kind = kind;
    who = realloc(ps->who, cap * sizeof(int));
    if (who != NULL)
        ps->who = who;
    rk = realloc(ps->rk, cap * sizeof(*rk));
    if (rk != NULL)
        ps->rk = rk;
    if (pfd == NULL || kind == NULL || who == NULL || rk == NULL)
        return -1;
    ps->cap = cap;
    return 0;
}

/* Add fd (if open) to the poll set; k/w/r say what it is. */
static int mpiexec_watch(mpiexec_pollset_t *ps, int n, int fd, short events, int k, int w, mpiexec_rank_t *r)
{
    if (fd < 0)
        return n;
    ps->pfd[n].fd = fd;
    ps->pfd[n].events = events;
    ps->pfd[n].revents = 0;
    ps->kind[n] = k;
    ps->who[n] = w;
    ps->rk[n] = r;
    return n + 1;
}

static int mpiexec_min_timeout(int a, long b)
{
    if (b < 0)
        return a;
    if (b > 1000000)
        b = 1000000;
    return a < 0 || b < a ? (int)b : a;
}

/* The event loop.  Phases: ranks run (or are still being started on
 * remote hosts); all are done -> output still in flight is collected for
 * MPIEXEC_DRAIN_MS; then the proxies are told to END and given
 * MPIEXEC_BYE_MS to sweep their hosts and hang up. */
static void mpiexec_run(mpiexec_job_t *job)
{
    mpiexec_pollset_t ps = {0};
    struct timespec drain_end, bye_end;
    int draining = 0, ending_remote = 0;

    for (;;) {
        int n = 0, timeout = -1;
        struct pollfd *pfd;

        if (mpiexec_pollset_fit(&ps, job) != 0) {
            mpiexec_say("out of memory");
            mpiexec_fate_end_job(job, 1);
            /* Without the loop we cannot wait politely; make sure nothing stays. */
            for (int j = 0; j < job->npjobs; j++)
                for (int i = 0; i < job->pjobs[j]->size; i++)
                    if (job->pjobs[j]->ranks[i].running && job->pjobs[j]->ranks[i].proxy == NULL)
                        kill(-job->pjobs[j]->ranks[i].pid, SIGKILL);
            break;
        }
        pfd = ps.pfd;

        if (job->nrunning == 0 && job->npending == 0) {
            /* Everyone exited; collect output still in flight, but do not
             * wait for descendants that inherited the pipes. */
            if (!draining) {
                draining = 1;
                mpiexec_deadline(&drain_end, MPIEXEC_DRAIN_MS);
            }
            if (!ending_remote && (!mpiexec_streams_open(job) || mpiexec_ms_until(&drain_end) == 0)) {
                ending_remote = 1;
                mpiexec_remote_end(job);
                mpiexec_deadline(&bye_end, MPIEXEC_BYE_MS);
            }
            if (ending_remote && (mpiexec_remote_done(job) || mpiexec_ms_until(&bye_end) == 0))
                break;
            timeout = (int)mpiexec_ms_until(ending_remote ? &bye_end : &drain_end);
        } else if (job->ending && !job->killed_hard) {
            timeout = (int)mpiexec_ms_until(&job->kill_at);
        }
        timeout = mpiexec_min_timeout(timeout, mpiexec_remote_timeout(job));
        if (job->abort_held)
            timeout = mpiexec_min_timeout(timeout, mpiexec_ms_until(&job->abort_at));

        n = mpiexec_watch(&ps, n, job->signal_pipe[0], POLLIN, MPIEXEC_PFD_SIGNAL, -1, NULL);
        for (int j = 0; j < job->npjobs; j++) {
            for (int i = 0; i < job->pjobs[j]->size; i++) {
                mpiexec_rank_t *r = &job->pjobs[j]->ranks[i];

                if (r->proxy != NULL)
                    continue;
                n = mpiexec_watch(&ps, n, r->pmi_open ? r->pmi_fd : -1, POLLIN, MPIEXEC_PFD_PMI, i, r);
                n = mpiexec_watch(&ps, n, r->out.fd, POLLIN, MPIEXEC_PFD_OUT, i, r);
                n = mpiexec_watch(&ps, n, r->err.fd, POLLIN, MPIEXEC_PFD_ERR, i, r);
            }
        }
        if (mpiexec_io_stdin_wanted(job))
            n = mpiexec_watch(&ps, n, job->stdin_fd, POLLIN, MPIEXEC_PFD_STDIN, -1, NULL);
        if (job->stdin_len > 0)
            n = mpiexec_watch(&ps, n, job->rank0_stdin, POLLOUT, MPIEXEC_PFD_RANK0_STDIN, -1, NULL);
        n = mpiexec_watch(&ps, n, job->listen_fd, POLLIN, MPIEXEC_PFD_LISTEN, -1, NULL);
        for (int i = 0; i < job->nconns; i++)
            n = mpiexec_watch(&ps, n, job->conns[i].fd, POLLIN, MPIEXEC_PFD_CONN, i, NULL);
        for (int i = 0; i < job->nproxies; i++) {
            mpiexec_proxy_t *px = &job->proxies[i];
            short ev = POLLIN | (mpiexec_buf_pending(&px->out) > 0 ? POLLOUT : 0);

            n = mpiexec_watch(&ps, n, px->fd, ev, MPIEXEC_PFD_PROXY, i, NULL);
            n = mpiexec_watch(&ps, n, px->agent_out.fd, POLLIN, MPIEXEC_PFD_AGENT_OUT, i, NULL);
            n = mpiexec_watch(&ps, n, px->agent_err.fd, POLLIN, MPIEXEC_PFD_AGENT_ERR, i, NULL);
        }

        if (poll(pfd, (nfds_t)n, timeout) < 0 && errno != EINTR) {
            mpiexec_say("poll: %m");
            mpiexec_fate_end_job(job, 1);
        }

        /* Data first, signals (and so exits) last: a rank's last words are
         * read before its death is judged.  Connections are handled from
         * the last to the first, so dropping one (which moves the last into
         * its slot) cannot skip another. */
        for (int i = n - 1; i >= 1; i--) {
            int *kind = ps.kind, *who = ps.who;
            mpiexec_rank_t *r = ps.rk[i];
            mpiexec_proxy_t *px = kind[i] >= MPIEXEC_PFD_PROXY ? &job->proxies[who[i]] : NULL;

            if (pfd[i].revents == 0)
                continue;
            switch (kind[i]) {
            case MPIEXEC_PFD_PMI:
                if (r->pmi_open && r->pmi_fd == pfd[i].fd)
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
                if (mpiexec_io_stdin_wanted(job))
                    mpiexec_io_stdin_readable(job);
                break;
            case MPIEXEC_PFD_RANK0_STDIN:
                mpiexec_io_stdin_writable(job);
                break;
            case MPIEXEC_PFD_LISTEN:
                mpiexec_listen_accept(job);
                break;
            case MPIEXEC_PFD_CONN:
                if (who[i] < job->nconns && job->conns[who[i]].fd == pfd[i].fd)
                    mpiexec_listen_conn_readable(job, who[i]);
                break;
            case MPIEXEC_PFD_PROXY:
                if (px->fd == pfd[i].fd && (pfd[i].revents & POLLOUT))
                    mpiexec_remote_writable(job, px);
                if (px->fd == pfd[i].fd && (pfd[i].revents & ~POLLOUT))
                    mpiexec_remote_readable(job, px);
                break;
            case MPIEXEC_PFD_AGENT_OUT:
                if (px->agent_out.fd == pfd[i].fd)
                    mpiexec_io_readable(job, &px->agent_out);
                break;
            case MPIEXEC_PFD_AGENT_ERR:
                if (px->agent_err.fd == pfd[i].fd)
                    mpiexec_io_readable(job, &px->agent_err);
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
        mpiexec_remote_tick(job);
        mpiexec_fate_tick(job);
    }
    free(ps.pfd);
    free(ps.kind);
    free(ps.who);
    free(ps.rk);
}

static void mpiexec_job_free(mpiexec_job_t *job)
{
    mpiexec_pjobs_free(job);
    mpiexec_kvs_destroy(job->kvs);
    mpiexec_kvs_destroy(job->node_attrs);
    mpiexec_kvs_destroy(job->names);
    for (int h = 0; h < job->nhosts; h++) {
        free(job->hosts[h].name);
        free(job->hosts[h].ranks);
    }
    free(job->hosts);
    free(job->process_mapping);
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
    if (argc > 1 && strcmp(argv[1], "--proxy") == 0)
        return mpiexec_proxy_main(argc, argv);
    mpiexec_params_load(1);
    job = calloc(1, sizeof(*job));
    if (job == NULL) {
        mpiexec_say("out of memory");
        return 1;
    }
    job->listen_fd = -1;
    rc = mpiexec_options_parse(argc, argv, &job->opt);
    if (rc != 0) {
        rc = rc == 2 ? 0 : 1; /* 2: --help was shown */
        goto out;
    }
    rc = 1;
    if (mpiexec_hosts_place(job) != 0)
        goto out;
    /* The program must exist here if ranks run here; remote hosts look it
     * up themselves (in the same PATH and directory). */
    if (job->nlocal > 0) {
        job->program_path = mpiexec_launch_resolve(job->opt.argv[0]);
        if (job->program_path == NULL)
            goto out;
    }
    job->kvs = mpiexec_kvs_create();
    job->node_attrs = mpiexec_kvs_create();
    job->names = mpiexec_kvs_create();
    if (job->kvs == NULL || job->node_attrs == NULL || job->names == NULL) {
        mpiexec_say("out of memory for %d processes", job->size);
        goto out;
    }
    for (int i = 0; i < job->size; i++) {
        job->ranks[i].pmi_fd = -1;
        job->ranks[i].out.fd = -1;
        job->ranks[i].err.fd = -1;
    }
    job->stdin_fd = mpiexec_stdin_usable() ? 0 : -1;
    job->rank0_stdin = -1;
    mpiexec_make_kvsname(job);
    if (mpiexec_pjobs_init(job) != 0)
        goto out;
    if (mpiexec_remote_prepare(job) != 0 || mpiexec_check_fd_limit(job->nlocal, job->nproxies) != 0) {
        mpiexec_remote_finish(job);
        goto out;
    }
    if (mpiexec_install_signals(job->signal_pipe) != 0)
        goto out;

    mpiexec_adopt_orphans();
    /* Remote hosts first: their start-up (ssh) overlaps the local forks. */
    if (mpiexec_agent_launch_all(job) != 0 || mpiexec_launch_all(job) != 0)
        mpiexec_fate_end_job(job, 1);
    if (job->rank0_stdin < 0 && job->ranks[0].proxy == NULL)
        job->stdin_fd = -1;

    mpiexec_run(job);
    if (lc_params.pmi_stats) mpiexec_pmi_report(job);

    for (int j = 0; j < job->npjobs; j++) {
        for (int i = 0; i < job->pjobs[j]->size; i++) {
            mpiexec_io_close(job, &job->pjobs[j]->ranks[i].out);
            mpiexec_io_close(job, &job->pjobs[j]->ranks[i].err);
            mpiexec_pmi_close(job, &job->pjobs[j]->ranks[i]);
        }
    }
    mpiexec_io_stdin_close(job);
    mpiexec_remote_finish(job);
    mpiexec_kill_orphans();
    for (int j = 0; j < job->npjobs; j++)
        mpiexec_fate_cleanup_shm(job->pjobs[j]->kvsname, mpiexec_shm_dir(job));
    rc = job->exit_code_set ? job->exit_code : 0;
out:
    mpiexec_job_free(job);
    return rc;
}
