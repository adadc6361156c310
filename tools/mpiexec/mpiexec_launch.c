/* SPDX-License-Identifier: BSD-3-Clause */
/* Starting the local ranks: resolve the program once (as a shell would),
 * then start each rank placed on this host (mpiexec_spawn.c); rank 0's
 * stdin is a pipe fed from ours, the others read /dev/null. */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether dir/prog (or prog alone when dir is NULL) names a runnable file:
 * 1 yes (its path in buf), 0 it exists but is not runnable, -1 it does not exist. */
static int mpiexec_launch_try(const char *dir, size_t dlen, const char *prog, char *buf, size_t cap)
{
    struct stat st;
    int n = dir == NULL ? snprintf(buf, cap, "%s", prog)
            : dlen == 0 ? snprintf(buf, cap, "./%s", prog) /* empty element: cwd */
                        : snprintf(buf, cap, "%.*s/%s", (int)dlen, dir, prog);

    if (n <= 0 || (size_t)n >= cap || stat(buf, &st) != 0)
        return -1;
    return !S_ISDIR(st.st_mode) && access(buf, X_OK) == 0 ? 1 : 0;
}

char *mpiexec_launch_find(const char *prog, const char *path, const char *wdir, char *why, size_t whylen,
                          int *noent_p)
{
    char buf[PATH_MAX], rel[PATH_MAX];
    struct stat st;
    int saw_noexec = 0, path_given = path != NULL;

    *noent_p = 1;
    if (prog[0] == '\0') {
        snprintf(why, whylen, "empty program name");
        return NULL;
    }
    /* Relative names (the program with a '/', PATH elements) are taken
     * from wdir: that is where the process will start. */
    if (wdir != NULL && wdir[0] != '\0' && prog[0] != '/' && strchr(prog, '/') != NULL) {
        if (snprintf(rel, sizeof(rel), "%s/%s", wdir, prog) >= (int)sizeof(rel)) {
            snprintf(why, whylen, "program '%s' in '%s': name too long", prog, wdir);
            return NULL;
        }
        prog = rel;
    }
    if (strchr(prog, '/') != NULL) {
        if (stat(prog, &st) != 0) {
            snprintf(why, whylen, "cannot run '%s': %s", prog, strerror(errno));
            *noent_p = errno == ENOENT || errno == ENOTDIR;
            return NULL;
        }
        *noent_p = 0;
        if (S_ISDIR(st.st_mode) || access(prog, X_OK) != 0) {
            snprintf(why, whylen, "cannot run '%s': %s", prog,
                     S_ISDIR(st.st_mode) ? "it is a directory" : "not executable");
            return NULL;
        }
        return strdup(prog);
    }
    if (path_given == 0)
        path = getenv("PATH");
    if (path == NULL || path[0] == '\0')
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t dlen = colon ? (size_t)(colon - path) : strlen(path);
        char dir[PATH_MAX];
        int found;

        if (wdir != NULL && wdir[0] != '\0' && (dlen == 0 || path[0] != '/'))
            snprintf(dir, sizeof(dir), "%s/%.*s", wdir, (int)dlen, path);
        else
            snprintf(dir, sizeof(dir), "%.*s", (int)dlen, path);
        found = mpiexec_launch_try(dir, dir[0] == '\0' ? 0 : strlen(dir), prog, buf, sizeof(buf));
        if (found > 0)
            return strdup(buf);
        if (found == 0)
            saw_noexec = 1;
        path += dlen;
        if (*path == ':')
            path++;
    }
    *noent_p = !saw_noexec;
    snprintf(why, whylen, "program '%s' %s %s", prog, saw_noexec ? "found but not executable in" : "not found in",
             path_given ? "the path info key" : "PATH");
    return NULL;
}

/* Full path of prog as execvp would find it, or NULL after a message. */
char *mpiexec_launch_resolve(const char *prog)
{
    char why[PATH_MAX + 128];
    int noent;
    char *p = mpiexec_launch_find(prog, NULL, NULL, why, sizeof(why), &noent);

    if (p == NULL)
        mpiexec_say("%s", why);
    return p;
}

static int mpiexec_launch_one(mpiexec_job_t *job, mpiexec_rank_t *r)
{
    const mpiexec_host_t *h = &job->hosts[r->host];
    mpiexec_spawn_req_t req = {
        .path = job->program_path, .argv = job->opt.argv, .rank = r->rank, .size = job->size,
        .local_rank = r->local_rank, .local_size = h->nranks, .ngenv = job->opt.ngenv,
        .genv_names = job->opt.genv_names, .genv_values = job->opt.genv_values,
        .bind_core = job->opt.bind_core, .stdin_pipe = r->rank == 0 && job->stdin_fd >= 0};
    mpiexec_spawned_t res;
    int rc = mpiexec_spawn(&req, &res);

    if (rc < 0)
        return -1;
    r->pid = res.pid;
    r->running = 1;
    job->nrunning++;
    if (rc > 0)
        return -1; /* exec failed: the reaper collects the child */
    r->pmi_fd = res.pmi_fd;
    r->pmi_open = 1;
    mpiexec_io_init_stream(&r->out, res.out_fd, 1, r->rank);
    mpiexec_io_init_stream(&r->err, res.err_fd, 2, r->rank);
    if (res.in_fd >= 0)
        job->rank0_stdin = res.in_fd;
    return 0;
}

int mpiexec_launch_all(mpiexec_job_t *job)
{
    for (int i = 0; i < job->size; i++)
        if (job->hosts[job->ranks[i].host].local && mpiexec_launch_one(job, &job->ranks[i]) != 0)
            return -1;
    return 0;
}
