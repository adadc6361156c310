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

/* Full path of prog as execvp would find it, or NULL after a message. */
char *mpiexec_launch_resolve(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[PATH_MAX];
    struct stat st;
    int saw_noexec = 0;

    if (prog[0] == '\0') {
        mpiexec_say("empty program name");
        return NULL;
    }
    if (strchr(prog, '/') != NULL) {
        if (stat(prog, &st) != 0) {
            mpiexec_say("cannot run '%s': %m", prog);
            return NULL;
        }
        if (S_ISDIR(st.st_mode) || access(prog, X_OK) != 0) {
            mpiexec_say("cannot run '%s': %s", prog, S_ISDIR(st.st_mode) ? "it is a directory" : "not executable");
            return NULL;
        }
        return strdup(prog);
    }
    if (path == NULL || path[0] == '\0')
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t dlen = colon ? (size_t)(colon - path) : strlen(path);

        int n = dlen == 0 ? snprintf(buf, sizeof(buf), "./%s", prog) /* empty element: cwd */
                          : snprintf(buf, sizeof(buf), "%.*s/%s", (int)dlen, path, prog);

        if (n > 0 && (size_t)n < sizeof(buf) && stat(buf, &st) == 0 && !S_ISDIR(st.st_mode)) {
            if (access(buf, X_OK) == 0)
                return strdup(buf);
            saw_noexec = 1;
        }
        path += dlen;
        if (*path == ':')
            path++;
    }
    mpiexec_say("program '%s' %s", prog, saw_noexec ? "found in PATH but not executable" : "not found in PATH");
    return NULL;
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
