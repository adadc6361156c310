/* Small helpers shared by the mpiexec files: one-write messages, time. */
#include "mpiexec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Print "mpiexec: <message>\n" on stderr in a single write, so it never
 * lands in the middle of a forwarded line. */
void mpiexec_say(const char *fmt, ...)
{
    char line[2048];
    int saved = errno, n;
    va_list ap;

    n = snprintf(line, sizeof(line), "mpiexec: ");
    errno = saved; /* for %m */
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    mpiexec_write_all(2, line, (size_t)n);
    errno = saved;
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
