/* SPDX-License-Identifier: BSD-3-Clause */
/* Small helpers shared by the mpiexec files: one-write messages, time,
 * signals, byte buffers. */
#include "mpiexec.h"
#include "util/lc_util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

const char *mpiexec_say_prefix = "mpiexec";
void (*mpiexec_say_hook)(const char *text);

/* Print "mpiexec: <message>\n" on stderr in a single write, so it never
 * lands in the middle of a forwarded line.  A proxy sets the hook while
 * it is connected: its messages then travel to mpiexec's stderr. */
void mpiexec_say(const char *fmt, ...)
{
    char line[2048];
    int saved = errno, n, head;
    va_list ap;

    head = snprintf(line, sizeof(line), "%s: ", mpiexec_say_prefix);
    n = head;
    errno = saved; /* for %m */
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    if (mpiexec_say_hook != NULL) {
        line[n] = '\0';
        mpiexec_say_hook(line + head);
    } else {
        line[n++] = '\n';
        mpiexec_write_all(2, line, (size_t)n);
    }
    errno = saved;
}

static void mpiexec_log_sink(const char *text)
{
    mpiexec_say("%s", text);
}

static void mpiexec_log_discard(const char *text)
{
    (void)text;
}

void mpiexec_params_load(int report)
{
    /* The table's loader reports through lc_log, which in mpiexec is
     * mpiexec_say.  A proxy loads mpiexec's environment, whose bad values
     * mpiexec has reported already: it keeps quiet. */
    lc_log_sink = report ? mpiexec_log_sink : mpiexec_log_discard;
    lc_params_load_for(LC_PARAM_LAUNCHER);
    lc_log_sink = mpiexec_log_sink;
    if (report && lc_params.launch_timeout <= 0) {
        const lc_param_desc_t *d = lc_param_find("LAUNCH_TIMEOUT");

        mpiexec_say("LOCUS_LAUNCH_TIMEOUT=%ld is not a number of seconds greater than 0; using the default %s",
                    lc_params.launch_timeout, d->default_value);
        lc_param_set_default(d);
    }
}

static int mpiexec_signal_fd = -1;

/* Async-signal-safe: just queue the signal number for the event loop. */
static void mpiexec_on_signal(int sig)
{
    int saved = errno;
    unsigned char c = (unsigned char)sig;

    (void)!write(mpiexec_signal_fd, &c, 1);
    errno = saved;
}

int mpiexec_install_signals(int signal_pipe[2])
{
    static const int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;

    if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        mpiexec_say("cannot create the signal pipe: %m");
        return -1;
    }
    mpiexec_signal_fd = signal_pipe[1];
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = mpiexec_on_signal;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
    /* A rank that closes its stdin, or a closed stdout of ours, must give
     * EPIPE, not kill us. */
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

/* Ranks get our 0..2 only through their own pipes, but the launcher's
 * dup2 onto 0..2 assumes no descriptor of ours sits there. */
void mpiexec_fix_std_fds(void)
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

int mpiexec_buf_reserve(mpiexec_buf_t *b, size_t more)
{
    size_t cap = b->cap ? b->cap : 4096;
    char *p;

    if (b->len + more <= b->cap)
        return 0;
    while (cap < b->len + more)
        cap *= 2;
    p = realloc(b->data, cap);
    if (p == NULL)
        return -1;
    b->data = p;
    b->cap = cap;
    return 0;
}

int mpiexec_buf_put(mpiexec_buf_t *b, const void *p, size_t n)
{
    if (mpiexec_buf_reserve(b, n) != 0)
        return -1;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

/* Drop n bytes from the front; with n = 0, just move the rest to the front. */
void mpiexec_buf_consume(mpiexec_buf_t *b, size_t n)
{
    b->off += n;
    if (b->off >= b->len) {
        b->off = b->len = 0;
    } else if (n == 0 && b->off > 0) {
        memmove(b->data, b->data + b->off, b->len - b->off);
        b->len -= b->off;
        b->off = 0;
    }
}

size_t mpiexec_buf_pending(const mpiexec_buf_t *b)
{
    return b->len - b->off;
}

void mpiexec_buf_free(mpiexec_buf_t *b)
{
    free(b->data);
    b->data = NULL;
    b->off = b->len = b->cap = 0;
}

/* Write what is queued without blocking (fd is non-blocking). */
int mpiexec_buf_write(int fd, mpiexec_buf_t *b)
{
    while (b->len > b->off) {
        ssize_t n = write(fd, b->data + b->off, b->len - b->off);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
        mpiexec_buf_consume(b, (size_t)n);
    }
    return 0;
}

int mpiexec_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

void mpiexec_deadline(struct timespec *t, long ms)
{
    clock_gettime(CLOCK_MONOTONIC, t);
    t->tv_sec += ms / 1000;
    t->tv_nsec += (ms % 1000) * 1000000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

/* Milliseconds until t (rounded up, never negative). */
long mpiexec_ms_until(const struct timespec *t)
{
    struct timespec now;
    long ms;

    clock_gettime(CLOCK_MONOTONIC, &now);
    ms = (long)(t->tv_sec - now.tv_sec) * 1000 + (t->tv_nsec - now.tv_nsec + 999999L) / 1000000L;
    return ms < 0 ? 0 : ms;
}

/* Become the reaper of our ranks' orphans: what a rank leaves behind
 * (a background or daemonized process) is re-parented to us instead of
 * to init, so that the end of the job can end it too. */
void mpiexec_adopt_orphans(void)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1);
}

/* At the very end (every rank reaped): SIGKILL every child still there
 * and reap it.  Killing one re-parents its own children to us, hence the
 * rounds; bounded, in case a process is stuck in the kernel.  Unreaped
 * children cannot have had their pids reused. */
void mpiexec_kill_orphans(void)
{
    char path[64];

    snprintf(path, sizeof(path), "/proc/self/task/%ld/children", (long)getpid());
    for (int round = 0; round < 100; round++) {
        FILE *f = fopen(path, "re");
        long pid;
        int n = 0;

        if (f == NULL)
            return;
        while (fscanf(f, "%ld", &pid) == 1) {
            kill((pid_t)pid, SIGKILL);
            n++;
        }
        fclose(f);
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (n == 0)
            return;
        usleep(2000);
    }
}

void mpiexec_child_signals(void)
{
    static const int sigs[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD };
    sigset_t none;

    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        signal(sigs[i], SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Descriptors mpiexec inherited (ctest's fd 3, a shell's redirections, a
 * batch system's sockets) are not close-on-exec: without this a rank would
 * hold them too — a job-control pipe kept open by every rank, a file
 * another user's program handed its launcher.  One system call where the
 * kernel has close_range (5.11: CLOSE_RANGE_CLOEXEC marks instead of
 * closing, so a failing exec can still report through its pipe); else
 * one fcntl per possible descriptor, up to a bound. */
void mpiexec_child_cloexec_all(void)
{
#if defined(SYS_close_range)
    if (syscall(SYS_close_range, 3u, ~0u, 1u << 2 /* CLOSE_RANGE_CLOEXEC */) == 0)
        return;
#endif
    struct rlimit rl;
    long max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long)rl.rlim_cur : 65536;
    if (max > 65536)
        max = 65536;
    for (int fd = 3; fd < max; fd++) {
        int fl = fcntl(fd, F_GETFD);
        if (fl >= 0 && !(fl & FD_CLOEXEC))
            (void)fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
    }
}
