/* SPDX-License-Identifier: BSD-3-Clause */
/* The proxy: `mpiexec --proxy ADDR PORT HOST-INDEX`, started on a remote
 * host by the launcher agent (ssh), one per host and job, with the host's
 * launch key on its stdin.
 *
 * It connects back to mpiexec; the two prove to each other that they know
 * the key (mpiexec_proxy_connect.c); it receives the JOB, and then
 *  - starts the host's ranks (mpiexec_spawn.c: own process group, death
 *    with the proxy, PMI_FD socketpair, stdout/stderr pipes);
 *  - relays each rank's PMI bytes to mpiexec and mpiexec's replies back,
 *    without parsing them;
 *  - relays the ranks' output as it comes (mpiexec cuts it into lines),
 *    and rank 0's stdin when rank 0 is here;
 *  - reports each exit (EXITED), after relaying that rank's last PMI bytes
 *    and output, so mpiexec judges it exactly as a local exit;
 *  - signals its ranks when mpiexec says so (SIGNAL);
 *  - on END: kills what is left (ranks, and what they left behind: the
 *    proxy is their child subreaper), sweeps /dev/shm/locus-<kvsname>-* on its
 *    host, says BYE and exits 0;
 *  - when the connection to mpiexec is lost (EOF, reset, keepalive
 *    timeout) or the proxy gets SIGTERM/SIGINT/SIGHUP (the agent's session
 *    ended): SIGTERM to its ranks, SIGKILL 1 s later, sweep, exit 1.  Its
 *    ranks die with it even if it is killed outright (PR_SET_PDEATHSIG).
 *
 * While connected, the proxy's own messages travel to mpiexec (NOTE) and
 * appear on mpiexec's stderr as "mpiexec: host H: ...".
 *
 * Output is read from the ranks only while less than
 * MPIEXEC_PROXY_BACKLOG bytes wait to be sent: a slow mpiexec stdout
 * slows the ranks down instead of growing the proxy. */
#include "mpiexec.h"
#include "mpiexec_frame.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MPIEXEC_PROXY_BACKLOG (4u << 20)
#define MPIEXEC_PROXY_PMI_BACKLOG 65536 /* replies a rank has not read: it is stuck */

typedef struct mpiexec_proxy_rank {
    int           rank;
    pid_t         pid;
    int           running;
    int           pmi_fd;
    mpiexec_buf_t pmi_out;  /* replies the rank has not read yet */
    int           pmi_stuck;
    int           out_fd, err_fd;
} mpiexec_proxy_rank_t;

static struct {
    int                   fd;       /* to mpiexec; -1 once lost */
    mpiexec_buf_t         in, out;
    char                  host[256];
    char                  prefix[300];
    char                  kvsname[LC_PMI_KVSNAME_MAX];
    int                   have_job;
    int                   nranks;
    mpiexec_proxy_rank_t *ranks;
    int                   stdin_fd;  /* rank 0's stdin pipe, or -1 */
    mpiexec_buf_t         stdin_q;
    int                   stdin_eof;
    int                   signal_pipe[2];
} px = {.fd = -1, .stdin_fd = -1};

static char px_iobuf[MPIEXEC_IO_BUF];

static void mpiexec_proxy_send(int type, int rank, const void *data, size_t len)
{
    if (px.fd < 0 || mpiexec_frame_put(&px.out, type, rank, data, len) != 0)
        return;
    /* Errors show up as EOF/POLLERR on the next poll. */
    (void)mpiexec_buf_write(px.fd, &px.out);
}

static void mpiexec_proxy_send_u32(int type, int rank, uint32_t v)
{
    mpiexec_buf_t b = {0};

    if (mpiexec_frame_put_u32(&b, v) == 0)
        mpiexec_proxy_send(type, rank, b.data, b.len);
    mpiexec_buf_free(&b);
}

/* mpiexec_say while connected: the message goes to mpiexec's stderr. */
static void mpiexec_proxy_note(const char *text)
{
    mpiexec_buf_t b = {0};

    if (mpiexec_frame_put_str(&b, text) == 0)
        mpiexec_proxy_send(MPX_NOTE, -1, b.data, b.len);
    mpiexec_buf_free(&b);
}

/* Block until what is queued is sent, for at most ms. */
static void mpiexec_proxy_flush(long ms)
{
    struct timespec until;

    mpiexec_deadline(&until, ms);
    while (px.fd >= 0 && mpiexec_buf_pending(&px.out) > 0 && mpiexec_ms_until(&until) > 0) {
        struct pollfd p = {.fd = px.fd, .events = POLLOUT};

        if (poll(&p, 1, (int)mpiexec_ms_until(&until)) < 0 && errno != EINTR)
            return;
        if (mpiexec_buf_write(px.fd, &px.out) != 0)
            return;
    }
}

static mpiexec_proxy_rank_t *mpiexec_proxy_find(int rank)
{
    int lo = 0, hi = px.nranks - 1;

    /* Block placement hands a host its ranks in increasing order. */
    while (lo <= hi) {
        int mid = (lo + hi) / 2;

        if (px.ranks[mid].rank == rank)
            return &px.ranks[mid];
        if (px.ranks[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

static void mpiexec_proxy_close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* ------------------------------------------------------------ ranks */

/* Relay what a rank's descriptor holds; at EOF close it (and say so for
 * output).  `all`: read until empty (bounded), else once. */
static void mpiexec_proxy_relay(mpiexec_proxy_rank_t *pr, int *fd, int type, int all)
{
    for (int i = 0; i < (all ? 64 : 1) && *fd >= 0; i++) {
        ssize_t n = read(*fd, px_iobuf, type == MPX_PMI ? 4096 : sizeof(px_iobuf));

        if (n < 0 && errno == EINTR) {
            i--;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            mpiexec_proxy_close_fd(fd);
            if (type == MPX_OUT || type == MPX_ERR)
                mpiexec_proxy_send(type == MPX_OUT ? MPX_OUT_EOF : MPX_ERR_EOF, pr->rank, NULL, 0);
            return;
        }
        mpiexec_proxy_send(type, pr->rank, px_iobuf, (size_t)n);
    }
}

static void mpiexec_proxy_pmi_write(mpiexec_proxy_rank_t *pr)
{
    if (pr->pmi_fd >= 0 && mpiexec_buf_write(pr->pmi_fd, &pr->pmi_out) != 0) {
        /* The rank is gone or closed PMI: its exit tells the rest. */
        mpiexec_buf_free(&pr->pmi_out);
    }
}

static void mpiexec_proxy_signal_ranks(int sig)
{
    for (int i = 0; i < px.nranks; i++) {
        mpiexec_proxy_rank_t *pr = &px.ranks[i];

        /* Unreaped, so the process group id cannot have been reused. */
        if (pr->running && kill(-pr->pid, sig) != 0 && errno == ESRCH)
            kill(pr->pid, sig);
    }
}

static int mpiexec_proxy_nrunning(void)
{
    int n = 0;

    for (int i = 0; i < px.nranks; i++)
        n += px.ranks[i].running;
    return n;
}

/* Collect exited ranks; report each after relaying its last bytes. */
static void mpiexec_proxy_reap(int report)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);

        if (pid < 0 && errno == EINTR)
            continue;
        if (pid <= 0)
            return;
        for (int i = 0; i < px.nranks; i++) {
            mpiexec_proxy_rank_t *pr = &px.ranks[i];

            if (!pr->running || pr->pid != pid)
                continue;
            pr->running = 0;
            if (report) {
                mpiexec_proxy_relay(pr, &pr->pmi_fd, MPX_PMI, 1);
                mpiexec_proxy_relay(pr, &pr->out_fd, MPX_OUT, 1);
                mpiexec_proxy_relay(pr, &pr->err_fd, MPX_ERR, 1);
                mpiexec_proxy_send_u32(MPX_EXITED, pr->rank, (uint32_t)status);
            }
            mpiexec_proxy_close_fd(&pr->pmi_fd);
            mpiexec_buf_free(&pr->pmi_out);
            if (pr->rank == 0)
                mpiexec_proxy_close_fd(&px.stdin_fd);
            break;
        }
    }
}

/* End every rank: first_sig, then SIGKILL after the grace; wait for all. */
static void mpiexec_proxy_stop_ranks(int first_sig)
{
    struct timespec until;
    int hard = first_sig == SIGKILL;

    mpiexec_proxy_signal_ranks(first_sig);
    mpiexec_deadline(&until, MPIEXEC_KILL_GRACE_MS);
    while (mpiexec_proxy_nrunning() > 0) {
        mpiexec_proxy_reap(0);
        if (mpiexec_proxy_nrunning() == 0)
            break;
        if (mpiexec_ms_until(&until) == 0) {
            if (hard)
                break; /* stuck in the kernel: do not hang */
            hard = 1;
            mpiexec_proxy_signal_ranks(SIGKILL);
            mpiexec_deadline(&until, 2000);
        }
        usleep(5000);
    }
}

/* ------------------------------------------------------------ the job */

static void mpiexec_proxy_start(mpiexec_proxy_rank_t *pr, const char *path, char **argv, int size,
                                int local_rank, uint32_t flags, int *failed_p)
{
    mpiexec_spawn_req_t req = {
        .path = path, .argv = argv, .rank = pr->rank, .size = size, .local_rank = local_rank,
        .local_size = px.nranks, .bind_core = (flags & 1) != 0,
        .stdin_pipe = pr->rank == 0 && (flags & 2) != 0};
    mpiexec_spawned_t res;
    int rc;

    if (*failed_p || path == NULL) {
        mpiexec_proxy_send(MPX_SPAWN_FAILED, pr->rank, NULL, 0);
        return;
    }
    rc = mpiexec_spawn(&req, &res);
    if (rc < 0) {
        *failed_p = 1;
        mpiexec_proxy_send(MPX_SPAWN_FAILED, pr->rank, NULL, 0);
        return;
    }
    pr->pid = res.pid;
    pr->running = 1;
    mpiexec_proxy_send_u32(MPX_STARTED, pr->rank, (uint32_t)res.pid);
    if (rc > 0) {
        *failed_p = 1; /* exec failed: the child exits 127 and is reaped */
        mpiexec_proxy_send(MPX_SPAWN_FAILED, pr->rank, NULL, 0);
        return;
    }
    pr->pmi_fd = res.pmi_fd;
    pr->out_fd = res.out_fd;
    pr->err_fd = res.err_fd;
    if (res.in_fd >= 0)
        px.stdin_fd = res.in_fd;
}

/* JOB (mpiexec_proxy_job.c): take on mpiexec's environment and
 * directory, find the program here, start the ranks. */
static int mpiexec_proxy_job(const char *p, size_t len)
{
    mpiexec_proxy_job_t job;
    char *path, here[4096];
    int failed = 0;

    if (px.have_job || mpiexec_proxy_job_decode(p, len, &job) != 0)
        return -1;
    px.ranks = calloc((size_t)job.nranks, sizeof(mpiexec_proxy_rank_t));
    if (px.ranks == NULL) {
        mpiexec_proxy_job_free(&job);
        return -1;
    }
    mpiexec_params_load(0); /* mpiexec's environment, now ours; mpiexec reported its faults */
    px.nranks = job.nranks;
    for (int i = 0; i < px.nranks; i++) {
        px.ranks[i].rank = job.ranks[i];
        px.ranks[i].pmi_fd = px.ranks[i].out_fd = px.ranks[i].err_fd = -1;
    }
    snprintf(px.kvsname, sizeof(px.kvsname), "%s", job.kvsname);
    px.have_job = 1;

    /* The ranks run where mpiexec was started, as far as this host has
     * that directory. */
    if (chdir(job.cwd) != 0)
        mpiexec_say("cannot change to directory '%s' (%m); the ranks run in '%s'", job.cwd,
                    getcwd(here, sizeof(here)) != NULL ? here : "?");
    path = mpiexec_launch_resolve(job.argv[0]);
    for (int i = 0; i < px.nranks; i++)
        mpiexec_proxy_start(&px.ranks[i], path, job.argv, (int)job.size, i, job.flags, &failed);
    free(path);
    mpiexec_proxy_job_free(&job);
    return 0;
}

static void mpiexec_proxy_stdin_write(void)
{
    if (px.stdin_fd >= 0 && mpiexec_buf_write(px.stdin_fd, &px.stdin_q) != 0) {
        /* EPIPE: rank 0 closed its stdin or exited; the rest is unwanted. */
        mpiexec_buf_free(&px.stdin_q);
        mpiexec_proxy_close_fd(&px.stdin_fd);
        mpiexec_proxy_send(MPX_STDIN_CLOSED, -1, NULL, 0);
        return;
    }
    if (mpiexec_buf_pending(&px.stdin_q) == 0) {
        mpiexec_proxy_send(MPX_STDIN_ACK, -1, NULL, 0);
        if (px.stdin_eof)
            mpiexec_proxy_close_fd(&px.stdin_fd);
    }
}

/* ------------------------------------------------------------ frames */

/* Returns 1 when the proxy is to end (END received). */
static int mpiexec_proxy_frame(int type, int rank, const char *p, size_t len)
{
    mpiexec_rd_t rd = {.p = p, .left = len};
    mpiexec_proxy_rank_t *pr = rank >= 0 ? mpiexec_proxy_find(rank) : NULL;

    switch (type) {
    case MPX_JOB:
        if (mpiexec_proxy_job(p, len) != 0) {
            mpiexec_say("received a malformed job description");
            return 1;
        }
        return 0;
    case MPX_PMI_REPLY:
        if (pr == NULL || pr->pmi_fd < 0)
            return 0;
        if (mpiexec_buf_put(&pr->pmi_out, p, len) != 0)
            return 0;
        mpiexec_proxy_pmi_write(pr);
        if (mpiexec_buf_pending(&pr->pmi_out) > MPIEXEC_PROXY_PMI_BACKLOG && !pr->pmi_stuck) {
            pr->pmi_stuck = 1;
            mpiexec_proxy_send(MPX_PMI_STUCK, pr->rank, NULL, 0);
        }
        return 0;
    case MPX_PMI_CLOSE:
        if (pr != NULL) {
            mpiexec_proxy_close_fd(&pr->pmi_fd);
            mpiexec_buf_free(&pr->pmi_out);
        }
        return 0;
    case MPX_STDIN:
        if (px.stdin_fd < 0) {
            mpiexec_proxy_send(MPX_STDIN_CLOSED, -1, NULL, 0);
            return 0;
        }
        if (mpiexec_buf_put(&px.stdin_q, p, len) == 0)
            mpiexec_proxy_stdin_write(); /* what does not fit waits for POLLOUT */
        return 0;
    case MPX_STDIN_EOF:
        px.stdin_eof = 1;
        if (mpiexec_buf_pending(&px.stdin_q) == 0)
            mpiexec_proxy_close_fd(&px.stdin_fd);
        return 0;
    case MPX_SIGNAL: {
        uint32_t sig = mpiexec_rd_u32(&rd);

        if (!rd.bad && sig > 0 && sig < 65)
            mpiexec_proxy_signal_ranks((int)sig);
        return 0;
    }
    case MPX_END:
        return 1;
    }
    mpiexec_say("received an unknown frame type %d from mpiexec", type);
    return 1;
}

/* ------------------------------------------------------------ main */

enum { PX_SIGNAL, PX_CONN, PX_PMI, PX_OUT, PX_ERR, PX_STDIN };

/* The event loop.  Returns the proxy's exit code. */
static int mpiexec_proxy_run(void)
{
    size_t cap = 8;
    struct pollfd *pfd = NULL;
    int *kind = NULL, *who = NULL, code = 1;

    for (;;) {
        int n = 0, reading = mpiexec_buf_pending(&px.out) < MPIEXEC_PROXY_BACKLOG;

        if (cap < (size_t)px.nranks * 3 + 8 || pfd == NULL) {
            cap = (size_t)px.nranks * 3 + 8;
            free(pfd);
            free(kind);
            free(who);
            pfd = calloc(cap, sizeof(*pfd));
            kind = calloc(cap, sizeof(int));
            who = calloc(cap, sizeof(int));
            if (pfd == NULL || kind == NULL || who == NULL) {
                mpiexec_say("out of memory");
                goto out;
            }
        }
#define PX_WATCH(f, ev, k, w)                                                                      \
    do {                                                                                           \
        if ((f) >= 0) {                                                                            \
            pfd[n] = (struct pollfd){.fd = (f), .events = (short)(ev)};                            \
            kind[n] = (k);                                                                         \
            who[n++] = (w);                                                                        \
        }                                                                                          \
    } while (0)
        PX_WATCH(px.signal_pipe[0], POLLIN, PX_SIGNAL, -1);
        PX_WATCH(px.fd, POLLIN | (mpiexec_buf_pending(&px.out) > 0 ? POLLOUT : 0), PX_CONN, -1);
        for (int i = 0; i < px.nranks; i++) {
            mpiexec_proxy_rank_t *pr = &px.ranks[i];
            short pmi_ev = (short)((reading ? POLLIN : 0) | (mpiexec_buf_pending(&pr->pmi_out) ? POLLOUT : 0));

            if (pmi_ev != 0)
                PX_WATCH(pr->pmi_fd, pmi_ev, PX_PMI, i);
            if (reading) {
                PX_WATCH(pr->out_fd, POLLIN, PX_OUT, i);
                PX_WATCH(pr->err_fd, POLLIN, PX_ERR, i);
            }
        }
        if (mpiexec_buf_pending(&px.stdin_q) > 0)
            PX_WATCH(px.stdin_fd, POLLOUT, PX_STDIN, -1);
#undef PX_WATCH

        if (poll(pfd, (nfds_t)n, -1) < 0 && errno != EINTR) {
            mpiexec_say("poll: %m");
            goto out;
        }
        for (int i = 1; i < n; i++) {
            mpiexec_proxy_rank_t *pr = who[i] >= 0 ? &px.ranks[who[i]] : NULL;
            short re = pfd[i].revents;

            if (re == 0)
                continue;
            switch (kind[i]) {
            case PX_CONN: {
                ssize_t got;
                const char *payload;
                size_t len;
                int type, rank, rc;

                if ((re & POLLOUT) && mpiexec_buf_write(px.fd, &px.out) != 0) {
                    mpiexec_say_hook = NULL;
                    mpiexec_say("lost the connection to mpiexec (%m); ending the ranks");
                    goto lost;
                }
                if (!(re & ~POLLOUT))
                    break;
                got = mpiexec_frame_fill(px.fd, &px.in, MPIEXEC_FRAME_MAX);
                if (got == 0 || got == -2) {
                    mpiexec_say_hook = NULL;
                    if (got == 0)
                        mpiexec_say("mpiexec hung up; ending the ranks");
                    else
                        mpiexec_say("lost the connection to mpiexec (%m); ending the ranks");
                    goto lost;
                }
                while ((rc = mpiexec_frame_next(&px.in, MPIEXEC_FRAME_MAX, &type, &rank, &payload, &len)) != 0) {
                    if (rc < 0 || mpiexec_proxy_frame(type, rank, payload, len) != 0) {
                        if (rc < 0 || type != MPX_END)
                            goto lost;
                        code = 0;
                        goto end;
                    }
                }
                break;
            }
            case PX_PMI:
                if ((re & POLLOUT) && pr->pmi_fd == pfd[i].fd)
                    mpiexec_proxy_pmi_write(pr);
                if ((re & ~POLLOUT) && pr->pmi_fd == pfd[i].fd)
                    mpiexec_proxy_relay(pr, &pr->pmi_fd, MPX_PMI, 0);
                break;
            case PX_OUT:
                if (pr->out_fd == pfd[i].fd)
                    mpiexec_proxy_relay(pr, &pr->out_fd, MPX_OUT, 0);
                break;
            case PX_ERR:
                if (pr->err_fd == pfd[i].fd)
                    mpiexec_proxy_relay(pr, &pr->err_fd, MPX_ERR, 0);
                break;
            case PX_STDIN:
                mpiexec_proxy_stdin_write();
                break;
            }
        }
        if (pfd[0].revents != 0) {
            unsigned char sigs[64];
            ssize_t got = read(px.signal_pipe[0], sigs, sizeof(sigs));

            for (ssize_t k = 0; k < got; k++) {
                if (sigs[k] != SIGCHLD) {
                    /* The agent's session ended (sshd, lc-hosts): stop. */
                    mpiexec_say("received signal %d (%s); ending the ranks", sigs[k], strsignal(sigs[k]));
                    mpiexec_proxy_flush(500);
                    code = 128 + sigs[k];
                    goto lost;
                }
            }
            mpiexec_proxy_reap(1);
        }
    }
lost:
    /* mpiexec is gone or unreachable: nobody else will end the ranks. */
    mpiexec_proxy_stop_ranks(SIGTERM);
    goto out;
end:
    /* mpiexec has judged every rank: end whatever is left at once. */
    mpiexec_proxy_stop_ranks(SIGKILL);
out:
    mpiexec_kill_orphans();
    if (px.have_job)
        mpiexec_fate_cleanup_shm(px.kvsname, NULL); /* the JOB's environment is ours */
    if (code == 0) {
        mpiexec_proxy_send(MPX_BYE, -1, NULL, 0);
        mpiexec_proxy_flush(MPIEXEC_BYE_MS);
    }
    free(pfd);
    free(kind);
    free(who);
    return code;
}

int mpiexec_proxy_main(int argc, char **argv)
{
    int rc;

    if (gethostname(px.host, sizeof(px.host)) != 0)
        snprintf(px.host, sizeof(px.host), "?");
    px.host[sizeof(px.host) - 1] = '\0';
    snprintf(px.prefix, sizeof(px.prefix), "mpiexec proxy on %s", px.host);
    mpiexec_say_prefix = px.prefix;
    if (argc != 5) {
        mpiexec_say("usage: mpiexec --proxy ADDR PORT HOST-INDEX, the launch key on stdin (started by mpiexec)");
        return 1;
    }
    if (mpiexec_install_signals(px.signal_pipe) != 0)
        return 1;
    mpiexec_adopt_orphans();
    px.fd = mpiexec_proxy_connect(argv[2], argv[3], (uint32_t)atoi(argv[4]), px.host);
    if (px.fd < 0)
        return 1;
    mpiexec_say_hook = mpiexec_proxy_note;
    rc = mpiexec_proxy_run();
    mpiexec_say_hook = NULL;
    if (px.fd >= 0)
        close(px.fd);
    for (int i = 0; i < px.nranks; i++) {
        mpiexec_proxy_close_fd(&px.ranks[i].pmi_fd);
        mpiexec_proxy_close_fd(&px.ranks[i].out_fd);
        mpiexec_proxy_close_fd(&px.ranks[i].err_fd);
        mpiexec_buf_free(&px.ranks[i].pmi_out);
    }
    free(px.ranks);
    mpiexec_buf_free(&px.in);
    mpiexec_buf_free(&px.out);
    mpiexec_buf_free(&px.stdin_q);
    return rc;
}
