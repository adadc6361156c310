/* SPDX-License-Identifier: BSD-3-Clause */
/* Standard I/O of the ranks.
 *
 * Output: each rank's stdout and stderr are pipes.  Bytes are collected
 * per pipe and written out only as complete lines (with "[rank] " in
 * front under -prepend-rank, "[job:rank] " for a spawned job's process),
 * so lines of different ranks never mix.  A
 * line longer than the buffer is written in pieces (it cannot be held
 * forever); a last line without '\n' is written when its pipe closes.
 *
 * Remote ranks' bytes arrive through their proxy (mpiexec_io_feed) and go
 * through the same buffers, so they are cut into lines the same way.
 * Launcher agents' own output (ssh's complaints) is forwarded the same
 * way too, to stderr, without a rank prefix.
 *
 * Input: mpiexec's stdin goes to rank 0 only (the others read /dev/null),
 * through a bounded buffer: stdin is not read while rank 0 has not taken
 * what was read before, so a slow reader does not make mpiexec grow.  A
 * remote rank 0 gets it through its proxy, one chunk at a time: the next
 * is read only when the proxy acknowledges the last (STDIN_ACK). */
#include "mpiexec.h"
#include "mpiexec_frame.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Set once a destination refused a write (e.g. `mpiexec ... | head`):
 * later output to it is dropped instead of failing again and again. */
static int mpiexec_io_target_broken[3];

void mpiexec_io_init_stream(mpiexec_stream_t *s, int fd, int target, int rank)
{
    s->fd = fd;
    s->open = 1;
    s->target = target;
    s->rank = rank;
    s->jobid = 0; /* a spawned job's streams are marked by their creator */
    s->at_line_start = 1;
    s->len = 0;
}

static void mpiexec_io_emit(const mpiexec_job_t *job, mpiexec_stream_t *s, const char *p, size_t n,
                            int ends_line)
{
    char prefix[24];
    struct iovec iov[2];
    int iovcnt = 0;

    if (mpiexec_io_target_broken[s->target] || n == 0)
        return;
    if (job->opt.prepend_rank && s->at_line_start && s->rank >= 0) {
        iov[iovcnt].iov_base = prefix;
        iov[iovcnt].iov_len = s->jobid > 0 ? (size_t)snprintf(prefix, sizeof(prefix), "[%d:%d] ", s->jobid, s->rank)
                                           : (size_t)snprintf(prefix, sizeof(prefix), "[%d] ", s->rank);
        iovcnt++;
    }
    iov[iovcnt].iov_base = (void *)p;
    iov[iovcnt].iov_len = n;
    iovcnt++;
    s->at_line_start = ends_line;

    /* writev of a prefix and one line is a single write for pipes and
     * terminals; loop only for the (rare) partial write. */
    while (iovcnt > 0) {
        ssize_t w = writev(s->target, iov, iovcnt);

        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            mpiexec_io_target_broken[s->target] = 1;
            return;
        }
        while (iovcnt > 0 && (size_t)w >= iov[0].iov_len) {
            w -= (ssize_t)iov[0].iov_len;
            iov[0] = iov[1];
            iovcnt--;
        }
        if (iovcnt > 0) {
            iov[0].iov_base = (char *)iov[0].iov_base + w;
            iov[0].iov_len -= (size_t)w;
        }
    }
}

/* Write out the complete lines in s->buf; keep the unfinished tail. */
static void mpiexec_io_flush_lines(const mpiexec_job_t *job, mpiexec_stream_t *s)
{
    size_t start = 0;

    for (;;) {
        char *nl = memchr(s->buf + start, '\n', s->len - start);
        size_t end;

        if (nl == NULL)
            break;
        end = (size_t)(nl - s->buf) + 1;
        if (job->opt.prepend_rank && s->rank >= 0) {
            mpiexec_io_emit(job, s, s->buf + start, end - start, 1);
            start = end;
        } else {
            /* Without a prefix, all complete lines can go in one write. */
            char *last = memrchr(s->buf + start, '\n', s->len - start);
            end = (size_t)(last - s->buf) + 1;
            mpiexec_io_emit(job, s, s->buf + start, end - start, 1);
            start = end;
            break;
        }
    }
    if (start == 0 && s->len == sizeof(s->buf)) {
        /* A line longer than the buffer: pass it on in pieces. */
        mpiexec_io_emit(job, s, s->buf, s->len, 0);
        start = s->len;
    }
    memmove(s->buf, s->buf + start, s->len - start);
    s->len -= start;
}

/* Read once; returns 1 if data was read, 0 on EOF/close, -1 if nothing. */
static int mpiexec_io_read_once(mpiexec_job_t *job, mpiexec_stream_t *s)
{
    ssize_t n;

    if (s->fd < 0)
        return 0;
    do {
        n = read(s->fd, s->buf + s->len, sizeof(s->buf) - s->len);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return -1;
    if (n <= 0) {
        mpiexec_io_close(job, s);
        return 0;
    }
    s->len += (size_t)n;
    mpiexec_io_flush_lines(job, s);
    return 1;
}

void mpiexec_io_readable(mpiexec_job_t *job, mpiexec_stream_t *s)
{
    mpiexec_io_read_once(job, s);
}

void mpiexec_io_drain(mpiexec_job_t *job, mpiexec_stream_t *s)
{
    /* Bounded: a child that keeps writing cannot hold us here forever. */
    for (int i = 0; i < 64 && mpiexec_io_read_once(job, s) > 0; i++)
        ;
}

void mpiexec_io_feed(mpiexec_job_t *job, mpiexec_stream_t *s, const char *data, size_t len)
{
    while (s->open && len > 0) {
        size_t n = sizeof(s->buf) - s->len;

        if (n > len)
            n = len;
        memcpy(s->buf + s->len, data, n);
        s->len += n;
        data += n;
        len -= n;
        mpiexec_io_flush_lines(job, s);
    }
}

void mpiexec_io_close(mpiexec_job_t *job, mpiexec_stream_t *s)
{
    if (!s->open)
        return;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    s->open = 0;
    mpiexec_io_emit(job, s, s->buf, s->len, 0);
    /* A last line without '\n' is completed when other ranks may print
     * after it (else their next line would continue it); the bytes of a
     * single process pass unchanged. */
    if (s->len > 0 && (job->size > 1 || s->rank < 0 || job->npjobs > 1))
        mpiexec_io_emit(job, s, "\n", 1, 1);
    s->len = 0;
}

void mpiexec_io_stdin_close(mpiexec_job_t *job)
{
    if (job->rank0_stdin >= 0)
        close(job->rank0_stdin);
    job->rank0_stdin = -1;
    job->stdin_proxy = NULL;
    job->stdin_inflight = 0;
    job->stdin_fd = -1; /* stop reading; fd 0 itself stays open */
    job->stdin_len = 0;
}

int mpiexec_io_stdin_wanted(const mpiexec_job_t *job)
{
    if (job->stdin_fd < 0)
        return 0;
    if (job->rank0_stdin >= 0)
        return job->stdin_len == 0;
    /* Remote rank 0: once it runs, one chunk in flight at a time. */
    return job->stdin_proxy != NULL && job->stdin_proxy->state == MPIEXEC_PROXY_RUNNING &&
           job->ranks[0].running && !job->stdin_inflight;
}

void mpiexec_io_stdin_readable(mpiexec_job_t *job)
{
    ssize_t n;

    do {
        n = read(job->stdin_fd, job->stdin_buf, sizeof(job->stdin_buf));
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (n <= 0) {
        /* EOF: rank 0 sees EOF too once it has read everything. */
        if (job->stdin_proxy != NULL)
            mpiexec_remote_send(job, job->stdin_proxy, MPX_STDIN_EOF, 0, NULL, 0);
        mpiexec_io_stdin_close(job);
        return;
    }
    if (job->stdin_proxy != NULL) {
        mpiexec_remote_send(job, job->stdin_proxy, MPX_STDIN, 0, job->stdin_buf, (size_t)n);
        job->stdin_inflight = 1;
        return;
    }
    job->stdin_len = (size_t)n;
    mpiexec_io_stdin_writable(job);
}

void mpiexec_io_stdin_writable(mpiexec_job_t *job)
{
    ssize_t n;

    if (job->rank0_stdin < 0 || job->stdin_len == 0)
        return;
    do {
        n = write(job->rank0_stdin, job->stdin_buf, job->stdin_len);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (n < 0) {
        /* EPIPE: rank 0 closed its stdin or exited; the rest is unwanted. */
        mpiexec_io_stdin_close(job);
        return;
    }
    memmove(job->stdin_buf, job->stdin_buf + n, job->stdin_len - (size_t)n);
    job->stdin_len -= (size_t)n;
}
