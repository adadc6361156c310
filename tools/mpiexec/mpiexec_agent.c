/* SPDX-License-Identifier: BSD-3-Clause */
/* The launcher agents: one per remote host, started as
 *
 *     AGENT host 'exec <this mpiexec> --proxy ADDR PORT HOST-INDEX'
 *
 * AGENT is -launcher-exec (split at blanks), else `ssh -x` (-x: no X11
 * forwarding, as hydra asks) or `rsh`.  Each runs in its own process
 * group (so ssh and whatever it started can be signalled together), with
 * its stdout/stderr forwarded line by line to our stderr: an agent's
 * complaints (ssh: Could not resolve hostname ...) are what the user
 * needs to see.  Its stdin is a pipe that carries one line, the host's
 * launch key (mpiexec_auth.h), then EOF: ssh forwards it, encrypted, to
 * the proxy's stdin, so the key is never on a command line, where every
 * local user could read it (/proc/PID/cmdline).  Our own stdin is rank
 * 0's and never reaches an agent.
 *
 * An agent that exits non-zero before its proxy connected means the host
 * cannot be used: the job ends, naming the host and its ranks.  After the
 * proxy connected, the agent's fate no longer matters (the connection
 * does).  At the end the agents still there get SIGTERM, then SIGKILL. */
#include "mpiexec.h"
#include "mpiexec_auth.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* An agent that exited 0 (daemonized?) gets this long for its proxy to call. */
#define MPIEXEC_AGENT_GRACE_MS 5000

/* The agent's words: -launcher-exec split at blanks, else `ssh -x`
 * (-x: no X11 forwarding, as hydra asks) or `rsh`. */
static char **mpiexec_agent_words(const mpiexec_job_t *job, int *n_p)
{
    const char *spec = job->opt.launcher_exec;
    char *copy, *save = NULL, **words;
    int n = 0;

    if (spec == NULL)
        spec = job->opt.launcher != NULL && strcmp(job->opt.launcher, "rsh") == 0 ? "rsh" : "ssh -x";
    copy = strdup(spec);
    words = calloc(strlen(spec) / 2 + 4, sizeof(char *));
    if (copy == NULL || words == NULL) {
        free(copy);
        free(words);
        return NULL;
    }
    for (char *w = strtok_r(copy, " \t", &save); w != NULL; w = strtok_r(NULL, " \t", &save))
        words[n++] = w;
    *n_p = n;
    return words; /* words[0] points to the start of copy: free(words[0]) frees it */
}

/* Append s single-quoted for a POSIX shell. */
static int mpiexec_agent_quote(mpiexec_buf_t *b, const char *s)
{
    if (mpiexec_buf_put(b, "'", 1) != 0)
        return -1;
    for (; *s; s++) {
        if (*s == '\'' ? mpiexec_buf_put(b, "'\\''", 4) : mpiexec_buf_put(b, s, 1))
            return -1;
    }
    return mpiexec_buf_put(b, "'", 1);
}

static int mpiexec_agent_start(mpiexec_job_t *job, mpiexec_proxy_t *px, char **words, int nwords,
                                      const char *exe)
{
    mpiexec_buf_t cmd = {0};
    char tail[256], key_line[MPIEXEC_KEY_LINE_MAX];
    int out[2] = {-1, -1}, err[2] = {-1, -1}, in[2] = {-1, -1}, rc = -1;
    pid_t pid;

    snprintf(tail, sizeof(tail), " --proxy %s %d %d", job->addr, job->port, px->host);
    if (mpiexec_buf_put(&cmd, "exec ", 5) != 0 || mpiexec_agent_quote(&cmd, exe) != 0 ||
        mpiexec_buf_put(&cmd, tail, strlen(tail) + 1) != 0) {
        mpiexec_say("out of memory");
        goto out;
    }
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 || pipe2(in, O_CLOEXEC) != 0) {
        mpiexec_say("cannot create pipes for the launcher agent: %m");
        goto out;
    }
    pid = fork();
    if (pid < 0) {
        mpiexec_say("cannot start the launcher agent for host %s: fork: %m", job->hosts[px->host].name);
        goto out;
    }
    if (pid == 0) {
        char *argv[nwords + 3];

        setpgid(0, 0);
        mpiexec_child_signals();
        if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
            _exit(127);
        mpiexec_child_cloexec_all(); /* the agent (ssh) gets 0, 1, 2 only */
        for (int i = 0; i < nwords; i++)
            argv[i] = words[i];
        argv[nwords] = job->hosts[px->host].name;
        argv[nwords + 1] = cmd.data;
        argv[nwords + 2] = NULL;
        execvp(argv[0], argv);
        mpiexec_say("cannot execute the launcher agent '%s': %m", argv[0]);
        _exit(127);
    }
    setpgid(pid, pid);
    /* One short line into an empty pipe: it never blocks.  EPIPE (the
     * agent died at once) is the agent's exit to report, not ours. */
    mpiexec_auth_key_line(px->key, key_line);
    (void)mpiexec_write_all(in[1], key_line, strlen(key_line));
    mpiexec_auth_wipe(key_line, sizeof(key_line));
    px->agent_pid = pid;
    px->agent_running = 1;
    mpiexec_io_init_stream(&px->agent_out, out[0], 2, -1);
    mpiexec_io_init_stream(&px->agent_err, err[0], 2, -1);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    out[0] = err[0] = -1;
    rc = 0;
out:
    for (int i = 0; i < 2; i++) {
        if (out[i] >= 0) close(out[i]);
        if (err[i] >= 0) close(err[i]);
        if (in[i] >= 0) close(in[i]);
    }
    mpiexec_buf_free(&cmd);
    return rc;
}

int mpiexec_agent_launch_all(mpiexec_job_t *job)
{
    char exe[PATH_MAX];
    char **words;
    ssize_t n;
    int nwords, rc = 0;

    if (job->nproxies == 0)
        return 0;
    /* The proxy is this very program, at the same path on every host. */
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        mpiexec_say("cannot find this program's own path: %m");
        return -1;
    }
    exe[n] = '\0';
    words = mpiexec_agent_words(job, &nwords);
    if (words == NULL || nwords == 0) {
        mpiexec_say(words == NULL ? "out of memory" : "-launcher-exec: empty agent");
        free(words);
        return -1;
    }
    for (int i = 0; i < job->nproxies && rc == 0; i++)
        rc = mpiexec_agent_start(job, &job->proxies[i], words, nwords, exe);
    free(words[0]);
    free(words);
    return rc;
}

void mpiexec_agent_kill(mpiexec_proxy_t *px, int sig)
{
    /* Unreaped, so the process group id cannot have been reused. */
    if (px->agent_running && kill(-px->agent_pid, sig) != 0 && errno == ESRCH)
        kill(px->agent_pid, sig);
}

int mpiexec_agent_reaped(mpiexec_job_t *job, pid_t pid, int status)
{
    for (int i = 0; i < job->nproxies; i++) {
        mpiexec_proxy_t *px = &job->proxies[i];
        const mpiexec_host_t *h = &job->hosts[px->host];

        if (!px->agent_running || px->agent_pid != pid)
            continue;
        px->agent_running = 0;
        px->agent_status = status;
        /* Its complaints (ssh: Could not resolve hostname ...) first. */
        mpiexec_io_drain(job, &px->agent_out);
        mpiexec_io_drain(job, &px->agent_err);
        if (px->state != MPIEXEC_PROXY_STARTING)
            return 1;
        if (job->ending || px->npending == 0) {
            px->state = MPIEXEC_PROXY_GONE;
            return 1;
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            /* It may have left the proxy running in the background. */
            px->agent_exited_early = 1;
            mpiexec_deadline(&px->agent_exit_deadline, MPIEXEC_AGENT_GRACE_MS);
            return 1;
        }
        if (WIFSIGNALED(status))
            mpiexec_say("cannot start the proxy on host %s for %s: the launcher agent was killed by "
                        "signal %d (%s); ending the job", h->name, mpiexec_remote_ranks_text(h),
                        WTERMSIG(status), strsignal(WTERMSIG(status)));
        else
            mpiexec_say("cannot start the proxy on host %s for %s: the launcher agent exited with "
                        "code %d; ending the job", h->name, mpiexec_remote_ranks_text(h),
                        WEXITSTATUS(status));
        px->state = MPIEXEC_PROXY_GONE;
        mpiexec_remote_cancel_pending(job, px);
        mpiexec_fate_end_job(job, 1);
        return 1;
    }
    return 0;
}

void mpiexec_agent_finish(mpiexec_job_t *job)
{
    struct timespec until;
    int left = 0;

    for (int i = 0; i < job->nproxies; i++) {
        mpiexec_agent_kill(&job->proxies[i], SIGTERM);
        left += job->proxies[i].agent_running;
    }
    /* Agents are ours to reap: SIGTERM, a moment, then SIGKILL. */
    mpiexec_deadline(&until, 500);
    for (int hard = 0; left > 0; ) {
        for (int i = 0; i < job->nproxies; i++) {
            mpiexec_proxy_t *px = &job->proxies[i];
            int status;

            if (px->agent_running && waitpid(px->agent_pid, &status, WNOHANG) == px->agent_pid) {
                px->agent_running = 0;
                left--;
            }
        }
        if (left == 0)
            break;
        if (!hard && mpiexec_ms_until(&until) == 0) {
            hard = 1;
            for (int i = 0; i < job->nproxies; i++)
                mpiexec_agent_kill(&job->proxies[i], SIGKILL);
            mpiexec_deadline(&until, 2000);
        } else if (hard && mpiexec_ms_until(&until) == 0) {
            break; /* stuck in the kernel: give up rather than hang */
        }
        usleep(5000);
    }
    for (int i = 0; i < job->nproxies; i++) {
        mpiexec_proxy_t *px = &job->proxies[i];

        mpiexec_io_drain(job, &px->agent_out);
        mpiexec_io_drain(job, &px->agent_err);
        mpiexec_io_close(job, &px->agent_out);
        mpiexec_io_close(job, &px->agent_err);
    }
}
