/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_init_times.c — LOCUS_SHOW_INIT_TIMES (issue 13: start-up at 256
 * ranks).  Each phase is the wall time between two marks on the calling
 * rank; rank 0 prints them.  A phase that ends in a PMI fence includes
 * the wait for the slowest rank, which is what start-up costs the job.
 * Off, a mark is one load and a branch.  Not thread-safe: MPI_Init and
 * MPI_Finalize run on one thread. */
#include "util/lc_init_times.h"
#include "util/lc_params.h"
#include "util/lc_util.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { LC_INIT_PHASES_MAX = 24 };

static int lc_it_on;
static const char *lc_it_what;
static double lc_it_begin, lc_it_last, lc_it_exec; /* lc_it_exec < 0: unknown */
static int lc_it_n;
static struct {
    const char *name;
    double sec;
} lc_it_phase[LC_INIT_PHASES_MAX];

/* Seconds since this process was exec'd: /proc/self/stat's start time
 * (clock ticks since boot) against CLOCK_BOOTTIME; -1 if unreadable.
 * Resolution one tick (10 ms). */
static double lc_since_exec(void)
{
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return -1;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = 0;
    /* the command name (field 2) may hold spaces and ')': skip to the last ')' */
    char *p = strrchr(buf, ')');
    if (!p) return -1;
    unsigned long long start = 0;
    /* fields 3..21 then starttime (22) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
               &start) != 1)
        return -1;
    long hz = sysconf(_SC_CLK_TCK);
    struct timespec ts;
    if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &ts) != 0) return -1;
    double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    return now - (double)start / (double)hz;
}

void lc_init_times_begin(const char *what)
{
    lc_it_on = lc_params.show_init_times;
    if (!lc_it_on) return;
    lc_it_what = what;
    lc_it_n = 0;
    lc_it_exec = strcmp(what, "MPI_Init") == 0 ? lc_since_exec() : -1;
    lc_it_begin = lc_it_last = lc_time_now();
}

void lc_init_times_mark(const char *phase)
{
    if (!lc_it_on) return;
    double now = lc_time_now();
    int i = lc_it_n < LC_INIT_PHASES_MAX ? lc_it_n++ : LC_INIT_PHASES_MAX - 1;
    if (i == LC_INIT_PHASES_MAX - 1 && lc_it_phase[i].name) phase = "(more)";
    lc_it_phase[i].name = phase;
    lc_it_phase[i].sec += now - lc_it_last;
    lc_it_last = now;
}

void lc_init_times_report(int nranks)
{
    if (!lc_it_on) return;
    double total = lc_time_now() - lc_it_begin;
    if (lc_log_rank == 0) {
        /* one write: the lines stay together among other ranks' output */
        char out[2048];
        size_t len = 0;
        len += (size_t)snprintf(out + len, sizeof(out) - len, "locus[0]: %s on rank 0 of %d: %.1f ms", lc_it_what,
                                nranks, 1e3 * total);
        if (lc_it_exec >= 0 && len < sizeof(out))
            len += (size_t)snprintf(out + len, sizeof(out) - len, " (entered %.0f ms after exec)",
                                    1e3 * lc_it_exec);
        for (int i = 0; i < lc_it_n && len < sizeof(out); i++)
            len += (size_t)snprintf(out + len, sizeof(out) - len, "\n  %-38s %9.1f ms", lc_it_phase[i].name,
                                    1e3 * lc_it_phase[i].sec);
        if (len >= sizeof(out)) len = sizeof(out) - 1;
        fprintf(stderr, "%.*s\n", (int)len, out);
    }
    memset(lc_it_phase, 0, sizeof(lc_it_phase));
    lc_it_n = 0;
    lc_it_on = 0;
}
