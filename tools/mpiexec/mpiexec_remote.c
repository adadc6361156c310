/* SPDX-License-Identifier: BSD-3-Clause */
/* mpiexec's side of the remote hosts: one proxy per host.
 *
 *  1. prepare: choose the address the proxies are told (-iface, else this
 *     host's name) and listen on that address only; a random launch key
 *     per host (mpiexec_auth.h).
 *  2. per remote host, run the launcher agent (mpiexec_agent.c), which
 *     starts `mpiexec --proxy ADDR PORT INDEX` there, the key on its stdin.
 *  3. The proxy connects back; it and mpiexec prove to each other that they
 *     know the key (mpiexec_listen.c); mpiexec answers with the JOB:
 *     kvsname, size, program, arguments, working directory, environment,
 *     and the ranks of that host.  Once every proxy is in, the listener is
 *     closed.
 *  4. Then frames (mpiexec_frame.h) carry the ranks' PMI bytes, output,
 *     starts and exits; the PMI server, the output and the fate rules see
 *     remote ranks like local ones.
 *  5. When every rank is done, END: each proxy ends what is left, sweeps
 *     its host's /dev/shm, says BYE and hangs up; then the agents exit.
 *
 * Failures, each reported once naming the host and its ranks, end the job
 * (exit code 1): an agent that exits before its proxy connected, a proxy
 * that does not connect within LOCUS_LAUNCH_TIMEOUT seconds (docs/params.md),
 * a lost connection (EOF, reset, or keepalive timeout: mpiexec_net.c), a
 * proxy that breaks the frame protocol.  The proxies, for their part, end
 * their ranks when the connection to mpiexec is lost. */
#include "mpiexec.h"
#include "mpiexec_auth.h"
#include "mpiexec_frame.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* "rank 3", "ranks 2-5", or "ranks 1,4,7" (shortened) of a host. */
const char *mpiexec_remote_ranks_text(const mpiexec_host_t *h)
{
    static char buf[128];
    int contiguous = 1;
    size_t len;

    if (h->nranks == 1) {
        snprintf(buf, sizeof(buf), "rank %d", h->ranks[0]);
        return buf;
    }
    for (int i = 1; i < h->nranks; i++)
        contiguous &= h->ranks[i] == h->ranks[i - 1] + 1;
    if (contiguous) {
        snprintf(buf, sizeof(buf), "ranks %d-%d", h->ranks[0], h->ranks[h->nranks - 1]);
        return buf;
    }
    len = (size_t)snprintf(buf, sizeof(buf), "ranks %d", h->ranks[0]);
    for (int i = 1; i < h->nranks && len < sizeof(buf) - 16; i++)
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, ",%d", h->ranks[i]);
    if (len >= sizeof(buf) - 16)
        snprintf(buf + len, sizeof(buf) - len, ",...");
    return buf;
}

static const char *mpiexec_remote_name(const mpiexec_job_t *job, const mpiexec_proxy_t *px)
{
    return job->hosts[px->host].name;
}

/* ------------------------------------------------------------ prepare */

int mpiexec_remote_prepare(mpiexec_job_t *job)
{
    int loopback = 0, n = 0;

    job->listen_fd = -1;
    for (int h = 0; h < job->nhosts; h++)
        n += !job->hosts[h].local && job->hosts[h].nranks > 0;
    if (n == 0)
        return 0;
    job->proxies = calloc((size_t)n, sizeof(mpiexec_proxy_t));
    if (job->proxies == NULL) {
        mpiexec_say("out of memory");
        return -1;
    }
    for (int h = 0; h < job->nhosts; h++) {
        mpiexec_proxy_t *px;

        if (job->hosts[h].local || job->hosts[h].nranks == 0)
            continue;
        px = &job->proxies[job->nproxies++];
        px->host = h;
        px->state = MPIEXEC_PROXY_STARTING;
        px->fd = -1;
        px->npending = job->hosts[h].nranks;
        job->npending += px->npending;
        if (mpiexec_auth_random(px->key, sizeof(px->key)) != 0)
            return -1;
        job->hosts[h].proxy = px;
        for (int i = 0; i < job->hosts[h].nranks; i++)
            job->ranks[job->hosts[h].ranks[i]].proxy = px;
    }

    if (job->opt.iface != NULL) {
        if (mpiexec_net_iface_addr(job->opt.iface, job->addr, sizeof(job->addr)) != 0)
            return -1;
    } else {
        if (mpiexec_net_default_addr(job->addr, sizeof(job->addr), &loopback) != 0)
            return -1;
        if (loopback) {
            mpiexec_say("this host's name resolves to %s, a loopback address other hosts cannot "
                        "reach; name the interface they can reach with -iface", job->addr);
            return -1;
        }
    }
    /* The advertised address only: with -iface, nobody on another
     * network reaches the listener at all. */
    job->listen_fd = mpiexec_net_listen(job->addr, &job->port);
    if (job->listen_fd < 0)
        return -1;

    mpiexec_deadline(&job->launch_deadline, lc_params.launch_timeout * 1000L);
    return 0;
}


/* ------------------------------------------------------------ sending */

void mpiexec_remote_send(mpiexec_job_t *job, mpiexec_proxy_t *px, int type, int rank, const void *data,
                         size_t len)
{
    (void)job;
    if (px->fd < 0 || px->write_errno != 0)
        return;
    if (mpiexec_frame_put(&px->out, type, rank, data, len) != 0) {
        px->write_errno = ENOMEM;
        return;
    }
    /* Try at once; what does not fit waits for POLLOUT.  A failure is
     * handled by the event loop (mpiexec_remote_tick), never from inside
     * the PMI server or the fate code that called us. */
    if (mpiexec_buf_write(px->fd, &px->out) != 0)
        px->write_errno = errno ? errno : EPIPE;
}

static void mpiexec_remote_send_u32(mpiexec_job_t *job, mpiexec_proxy_t *px, int type, uint32_t v)
{
    mpiexec_buf_t b = {0};

    if (mpiexec_frame_put_u32(&b, v) == 0)
        mpiexec_remote_send(job, px, type, -1, b.data, b.len);
    mpiexec_buf_free(&b);
}

/* Variables not to forward: this host's own, and the PMI ones the proxy
 * sets for each rank. */
static int mpiexec_remote_env_skipped(const char *e)
{
    static const char *const names[] = {"HOSTNAME", "HOST", "PWD", "OLDPWD", "SHLVL", "_",
                                        "PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE",
                                        "PMI_SPAWNED", "LOCUS_LOCAL_RANK", "LOCUS_LOCAL_SIZE",
                                        "MPI_LOCALRANKID", "MPI_LOCALNRANKS", NULL};
    size_t n = strcspn(e, "=");

    if (strncmp(e, "SSH_", 4) == 0)
        return 1;
    for (int i = 0; names[i] != NULL; i++)
        if (strlen(names[i]) == n && strncmp(e, names[i], n) == 0)
            return 1;
    return 0;
}

/* JOB: str kvsname, u32 size, u32 flags (1 bind to cores, 2 rank 0 reads
 * our stdin), str cwd, u32 argc + argv strings, u32 nenv + NAME=VALUE
 * strings (our environment, then -genv), u32 nranks + global ranks. */
static int mpiexec_remote_send_job(mpiexec_job_t *job, mpiexec_proxy_t *px)
{
    const mpiexec_host_t *h = &job->hosts[px->host];
    mpiexec_buf_t b = {0};
    char cwd[PATH_MAX];
    uint32_t flags = 0, argc = 0, nenv = 0;
    int rc = 0;

    if (job->opt.bind_core)
        flags |= 1;
    if (h->ranks[0] == 0 && job->stdin_fd >= 0) {
        flags |= 2;
        job->stdin_proxy = px;
    }
    if (getcwd(cwd, sizeof(cwd)) == NULL)
        snprintf(cwd, sizeof(cwd), "/");
    while (job->opt.argv[argc] != NULL)
        argc++;
    for (char **e = environ; *e != NULL; e++)
        nenv += !mpiexec_remote_env_skipped(*e);
    nenv += (uint32_t)job->opt.ngenv;

    rc |= mpiexec_frame_put_str(&b, job->kvsname);
    rc |= mpiexec_frame_put_u32(&b, (uint32_t)job->size);
    rc |= mpiexec_frame_put_u32(&b, flags);
    rc |= mpiexec_frame_put_str(&b, cwd);
    rc |= mpiexec_frame_put_u32(&b, argc);
    for (uint32_t i = 0; i < argc; i++)
        rc |= mpiexec_frame_put_str(&b, job->opt.argv[i]);
    rc |= mpiexec_frame_put_u32(&b, nenv);
    for (char **e = environ; *e != NULL; e++)
        if (!mpiexec_remote_env_skipped(*e))
            rc |= mpiexec_frame_put_str(&b, *e);
    for (int i = 0; i < job->opt.ngenv; i++) {
        size_t n = strlen(job->opt.genv_names[i]) + strlen(job->opt.genv_values[i]) + 2;
        char *kv = malloc(n);

        if (kv == NULL) {
            rc = -1;
            break;
        }
        snprintf(kv, n, "%s=%s", job->opt.genv_names[i], job->opt.genv_values[i]);
        rc |= mpiexec_frame_put_str(&b, kv);
        free(kv);
    }
    rc |= mpiexec_frame_put_u32(&b, (uint32_t)h->nranks);
    for (int i = 0; i < h->nranks; i++)
        rc |= mpiexec_frame_put_u32(&b, (uint32_t)h->ranks[i]);
    if (rc == 0 && b.len <= MPIEXEC_FRAME_MAX)
        mpiexec_remote_send(job, px, MPX_JOB, -1, b.data, b.len);
    else
        mpiexec_say("the job description for host %s is too large", mpiexec_remote_name(job, px));
    mpiexec_buf_free(&b);
    return rc == 0 ? 0 : -1;
}

/* ------------------------------------------------------------ failures */

/* Ranks of px that were not started will never be. */
void mpiexec_remote_cancel_pending(mpiexec_job_t *job, mpiexec_proxy_t *px)
{
    job->npending -= px->npending;
    px->npending = 0;
}


/* The connection is gone (why: text for the message).  Expected after
 * END; otherwise its running ranks are lost and the job ends. */
static void mpiexec_remote_lost(mpiexec_job_t *job, mpiexec_proxy_t *px, const char *why)
{
    const mpiexec_host_t *h = &job->hosts[px->host];
    int was = px->state, had_ranks = px->nrunning > 0 || px->npending > 0;

    if (px->fd >= 0)
        close(px->fd);
    px->fd = -1;
    px->state = MPIEXEC_PROXY_GONE;
    mpiexec_buf_free(&px->out);
    mpiexec_buf_free(&px->in);
    if (was == MPIEXEC_PROXY_ENDING)
        return;
    if (had_ranks && !job->ending)
        mpiexec_say("lost the connection to the proxy on host %s (%s): %s; ending the job", h->name,
                    mpiexec_remote_ranks_text(h), why);
    for (int i = 0; i < h->nranks; i++) {
        mpiexec_rank_t *r = &job->ranks[h->ranks[i]];

        if (r->running) {
            r->running = 0;
            job->nrunning--;
        }
        mpiexec_pmi_close(job, r);
        mpiexec_io_close(job, &r->out);
        mpiexec_io_close(job, &r->err);
    }
    px->nrunning = 0;
    mpiexec_remote_cancel_pending(job, px);
    if (job->stdin_proxy == px)
        mpiexec_io_stdin_close(job);
    mpiexec_agent_kill(px, SIGTERM);
    if (had_ranks)
        mpiexec_fate_end_job(job, 1);
}

static void mpiexec_remote_broken(mpiexec_job_t *job, mpiexec_proxy_t *px, const char *what)
{
    if (!job->ending)
        mpiexec_say("the proxy on host %s %s; ending the job", mpiexec_remote_name(job, px), what);
    mpiexec_fate_end_job(job, 1);
    mpiexec_remote_lost(job, px, what);
}

/* ------------------------------------------------------------ receiving */

static void mpiexec_remote_frame(mpiexec_job_t *job, mpiexec_proxy_t *px, int type, int rank,
                                 const char *p, size_t len)
{
    mpiexec_rd_t rd = {.p = p, .left = len};
    mpiexec_rank_t *r = NULL;

    if (rank >= 0) {
        if (rank >= job->size || job->ranks[rank].proxy != px) {
            mpiexec_remote_broken(job, px, "sent a frame for a rank not on its host");
            return;
        }
        r = &job->ranks[rank];
    }
    switch (type) {
    case MPX_STARTED: {
        uint32_t pid = mpiexec_rd_u32(&rd);

        if (r == NULL || rd.bad || r->pid != 0 || r->running)
            break;
        r->pid = (pid_t)pid;
        r->running = 1;
        r->pmi_open = 1;
        job->nrunning++;
        px->nrunning++;
        if (px->npending > 0) {
            px->npending--;
            job->npending--;
        }
        mpiexec_io_init_stream(&r->out, -1, 1, r->rank);
        mpiexec_io_init_stream(&r->err, -1, 2, r->rank);
        return;
    }
    case MPX_SPAWN_FAILED:
        if (r == NULL)
            break;
        if (!r->running && r->pid == 0 && px->npending > 0) {
            px->npending--;
            job->npending--;
        }
        mpiexec_fate_end_job(job, 1); /* the proxy's NOTE said why */
        return;
    case MPX_PMI:
        if (r != NULL && r->running)
            mpiexec_pmi_feed(job, r, p, len);
        if (r != NULL)
            return;
        break;
    case MPX_PMI_STUCK:
        if (r != NULL && r->running)
            mpiexec_fate_protocol_error(job, r, "does not read its PMI replies");
        if (r != NULL)
            return;
        break;
    case MPX_OUT:
    case MPX_ERR:
        if (r != NULL) {
            mpiexec_io_feed(job, type == MPX_OUT ? &r->out : &r->err, p, len);
            return;
        }
        break;
    case MPX_OUT_EOF:
    case MPX_ERR_EOF:
        if (r != NULL) {
            mpiexec_io_close(job, type == MPX_OUT_EOF ? &r->out : &r->err);
            return;
        }
        break;
    case MPX_EXITED: {
        uint32_t status = mpiexec_rd_u32(&rd);

        if (r == NULL || rd.bad)
            break;
        if (r->running)
            mpiexec_fate_rank_exited(job, r, (int)status);
        return;
    }
    case MPX_STDIN_ACK:
        if (job->stdin_proxy == px)
            job->stdin_inflight = 0;
        return;
    case MPX_STDIN_CLOSED:
        if (job->stdin_proxy == px)
            mpiexec_io_stdin_close(job);
        return;
    case MPX_NOTE: {
        const char *text = mpiexec_rd_str(&rd);

        if (rd.bad)
            break;
        mpiexec_say("host %s: %s", mpiexec_remote_name(job, px), text);
        return;
    }
    case MPX_BYE:
        px->said_bye = 1;
        return;
    }
    mpiexec_remote_broken(job, px, "broke the mpiexec-proxy protocol");
}

void mpiexec_remote_readable(mpiexec_job_t *job, mpiexec_proxy_t *px)
{
    /* Bounded, so one chatty host cannot starve the others. */
    for (int i = 0; i < 16 && px->fd >= 0; i++) {
        ssize_t n = mpiexec_frame_fill(px->fd, &px->in, MPIEXEC_PROXY_FRAME_MAX);
        const char *payload;
        size_t len;
        int type, rank, rc;

        if (n == -1)
            return;
        if (n == 0 || n == -2) {
            mpiexec_remote_lost(job, px, n == 0 ? "the proxy hung up" : strerror(errno));
            return;
        }
        while (px->fd >= 0 && (rc = mpiexec_frame_next(&px->in, MPIEXEC_PROXY_FRAME_MAX, &type, &rank, &payload, &len)) != 0) {
            if (rc < 0) {
                mpiexec_remote_broken(job, px, "sent an oversized frame");
                return;
            }
            mpiexec_remote_frame(job, px, type, rank, payload, len);
        }
    }
}

void mpiexec_remote_writable(mpiexec_job_t *job, mpiexec_proxy_t *px)
{
    (void)job;
    if (px->fd >= 0 && px->write_errno == 0 && mpiexec_buf_write(px->fd, &px->out) != 0)
        px->write_errno = errno;
}

/* ------------------------------------------------------------ admission */

int mpiexec_remote_awaited(const mpiexec_proxy_t *px)
{
    return px->state == MPIEXEC_PROXY_STARTING && px->npending > 0;
}

void mpiexec_remote_admit(mpiexec_job_t *job, mpiexec_proxy_t *px, int fd, mpiexec_buf_t *in)
{
    px->fd = fd;
    px->in = *in; /* anything after the proof stays queued */
    *in = (mpiexec_buf_t){0};
    mpiexec_auth_wipe(px->key, sizeof(px->key));
    if (job->ending || px->npending == 0) {
        /* Too late: the job failed meanwhile. */
        px->state = MPIEXEC_PROXY_ENDING;
        mpiexec_remote_send(job, px, MPX_END, -1, NULL, 0);
    } else {
        px->state = MPIEXEC_PROXY_RUNNING;
        if (mpiexec_remote_send_job(job, px) != 0)
            mpiexec_remote_broken(job, px, "could not be sent the job");
    }
    mpiexec_listen_update(job);
}

/* ------------------------------------------------------------ fate hooks */

void mpiexec_remote_signal(mpiexec_job_t *job, int sig)
{
    for (int i = 0; i < job->nproxies; i++) {
        mpiexec_proxy_t *px = &job->proxies[i];

        if (px->state == MPIEXEC_PROXY_RUNNING && (px->nrunning > 0 || px->npending > 0))
            mpiexec_remote_send_u32(job, px, MPX_SIGNAL, (uint32_t)sig);
        if (px->state == MPIEXEC_PROXY_STARTING && job->ending) {
            /* Its ranks will not be started: stop the agent. */
            mpiexec_remote_cancel_pending(job, px);
            mpiexec_agent_kill(px, sig);
        }
    }
}


long mpiexec_remote_timeout(mpiexec_job_t *job)
{
    long t = -1, ms;

    for (int i = 0; i < job->nproxies; i++) {
        mpiexec_proxy_t *px = &job->proxies[i];

        if (px->state != MPIEXEC_PROXY_STARTING || px->npending == 0)
            continue;
        ms = mpiexec_ms_until(px->agent_exited_early ? &px->agent_exit_deadline : &job->launch_deadline);
        if (t < 0 || ms < t)
            t = ms;
    }
    ms = mpiexec_listen_timeout(job);
    if (ms >= 0 && (t < 0 || ms < t))
        t = ms;
    return t;
}

void mpiexec_remote_tick(mpiexec_job_t *job)
{
    mpiexec_listen_tick(job);
    for (int i = 0; i < job->nproxies; i++) {
        mpiexec_proxy_t *px = &job->proxies[i];
        const mpiexec_host_t *h = &job->hosts[px->host];

        if (px->fd >= 0 && px->write_errno != 0) {
            mpiexec_remote_lost(job, px, strerror(px->write_errno));
            continue;
        }
        if (px->state != MPIEXEC_PROXY_STARTING || px->npending == 0)
            continue;
        if (px->agent_exited_early && mpiexec_ms_until(&px->agent_exit_deadline) == 0) {
            mpiexec_say("cannot start the proxy on host %s for %s: the launcher agent exited before "
                        "the proxy connected; ending the job", h->name, mpiexec_remote_ranks_text(h));
        } else if (mpiexec_ms_until(&job->launch_deadline) == 0) {
            mpiexec_say("the proxy on host %s for %s did not connect within the launch timeout "
                        "(LOCUS_LAUNCH_TIMEOUT); ending the job", h->name, mpiexec_remote_ranks_text(h));
        } else {
            continue;
        }
        mpiexec_remote_cancel_pending(job, px);
        if (!px->agent_running)
            px->state = MPIEXEC_PROXY_GONE;
        mpiexec_fate_end_job(job, 1);
    }
    mpiexec_listen_update(job);
}

/* ------------------------------------------------------------ the end */

void mpiexec_remote_end(mpiexec_job_t *job)
{
    for (int i = 0; i < job->nproxies; i++) {
        mpiexec_proxy_t *px = &job->proxies[i];

        if (px->state == MPIEXEC_PROXY_RUNNING) {
            px->state = MPIEXEC_PROXY_ENDING;
            mpiexec_remote_send(job, px, MPX_END, -1, NULL, 0);
        } else if (px->state == MPIEXEC_PROXY_STARTING) {
            mpiexec_agent_kill(px, SIGTERM);
        }
    }
}

int mpiexec_remote_done(const mpiexec_job_t *job)
{
    for (int i = 0; i < job->nproxies; i++) {
        const mpiexec_proxy_t *px = &job->proxies[i];

        if (px->fd >= 0 || px->agent_running)
            return 0;
    }
    return 1;
}

void mpiexec_remote_finish(mpiexec_job_t *job)
{
    for (int i = 0; i < job->nproxies; i++) {
        if (job->proxies[i].fd >= 0)
            close(job->proxies[i].fd);
        job->proxies[i].fd = -1;
    }
    mpiexec_agent_finish(job);
    for (int i = 0; i < job->nproxies; i++) {
        mpiexec_buf_free(&job->proxies[i].out);
        mpiexec_buf_free(&job->proxies[i].in);
    }
    mpiexec_listen_close(job);
    free(job->proxies);
    job->proxies = NULL;
    job->nproxies = 0;
}
