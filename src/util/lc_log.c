/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_log.c — diagnostics to stderr, prefixed with the world rank (or to a
 * program's own sink: mpiexec). */
#include "util/lc_params.h"
#include "util/lc_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int lc_log_rank = -1;
void (*lc_log_sink)(const char *text);

static void lc_log_vprint(const char *kind, const char *fmt, va_list ap)
{
    char line[1024];
    if (lc_log_sink) {
        vsnprintf(line, sizeof(line), fmt, ap);
        lc_log_sink(line);
        return;
    }
    int n = snprintf(line, sizeof(line), "locus[%d]: %s", lc_log_rank, kind);
    if (n < 0) return;
    vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    /* One write per line so that the launcher never splits it. */
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

void lc_log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lc_log_vprint("error: ", fmt, ap);
    va_end(ap);
}

void lc_log_warn(const char *fmt, ...)
{
    if (lc_params.quiet) return;
    va_list ap;
    va_start(ap, fmt);
    lc_log_vprint("warning: ", fmt, ap);
    va_end(ap);
}

void (*lc_fatal_hook)(const char *text);

void lc_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lc_log_vprint("fatal: ", fmt, ap);
    va_end(ap);
    if (lc_fatal_hook) {
        char text[512];
        va_start(ap, fmt);
        vsnprintf(text, sizeof(text), fmt, ap);
        va_end(ap);
        lc_fatal_hook(text);
    }
    _exit(1);
}

double lc_time_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
