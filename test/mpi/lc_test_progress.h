/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_test_progress.h — a file of /proc/self/task/TID/ for this process's
 * asynchronous progress thread (LOCUS_ASYNC_PROGRESS=1; the thread is
 * named "locus-progress"), for tests that count what it does: its CPU
 * time (schedstat), its sleeps (status).
 */
#ifndef LC_TEST_PROGRESS_H
#define LC_TEST_PROGRESS_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* /proc/self/task/TID/<file> of the progress thread, open for reading,
 * or NULL when there is no such thread. */
static inline FILE *lc_test_progress_open(const char *file)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return NULL;
    FILE *found = NULL;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[300], line[128];
        snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        int match = fgets(line, sizeof(line), f) && strncmp(line, "locus-progress", 14) == 0;
        fclose(f);
        if (!match) continue;
        snprintf(path, sizeof(path), "/proc/self/task/%s/%s", e->d_name, file);
        found = fopen(path, "r");
    }
    closedir(d);
    return found;
}

#endif
