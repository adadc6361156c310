/* SPDX-License-Identifier: BSD-3-Clause */
/* Starting one rank, for mpiexec (local ranks) and for a proxy (the ranks
 * of its host): a PMI socketpair, stdout/stderr pipes, stdin (a pipe or
 * /dev/null), fork, and in the child: own process group (or, with
 * LOCUS_RANK_SESSIONS=1, own session), death with the parent, default
 * signal handling, environment, optional core binding, exec.
 *
 * A session per rank is Hydra's way: with the scheduler's autogroups
 * (sched_autogroup_enabled=1) CPU time is shared between sessions first,
 * so ranks in mpiexec's session are one share against each other
 * session's load.  Not the default: a sched_yield reaches only the
 * yielder's session, and the waits that sleep instead cost collectives of
 * many ranks on few cores (docs/architecture.md "Ranks stay in mpiexec's
 * session").  Either way the rank's process group id is its pid, so
 * mpiexec's signals to -pid reach it and what it starts.
 *
 * Every descriptor the parent opens is close-on-exec, and the child marks
 * whatever else is open from 3 up (what mpiexec or the proxy inherited:
 * ctest's fd 3, a shell's redirections) close-on-exec too; it clears the
 * flag only on its own PMI socket, so a rank inherits exactly stdin,
 * stdout, stderr and PMI_FD.  Exec failures travel back through a
 * close-on-exec pipe: EOF means exec succeeded, 4 bytes mean errno.
 *
 * IPATH_NO_BACKTRACE=1 unless the user set it: Debian's libfabric (loaded
 * by a rank whose network channel opens, src/channel/lc_ofi_dl.c) loads
 * libinfinipath (through the psm provider), whose constructor installs a
 * SIGSEGV/SIGBUS handler that prints a backtrace and exits with code 1,
 * so a crash would be reported as "exited with code 1" and leave no core
 * dump.  (The name is the one libinfinipath.so.4 reads; libpsm2, loaded
 * too, leaves SIGSEGV alone: test/launcher/t_segv.sh.) */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

static void mpiexec_spawn_setenv_int(const char *name, int v)
{
    char num[16];

    snprintf(num, sizeof(num), "%d", v);
    setenv(name, num, 1);
}

/* A failure: into req->why when the caller wants it, else said. */
__attribute__((format(printf, 2, 3)))
static void mpiexec_spawn_fail(const mpiexec_spawn_req_t *req, const char *fmt, ...)
{
    char text[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (req->why != NULL && req->whylen > 0)
        snprintf(req->why, req->whylen, "%s", text);
    else
        mpiexec_say("%s", text);
}

/* In the child, between fork and exec.  Never returns. */
static void mpiexec_spawn_child(const mpiexec_spawn_req_t *req, pid_t parent, int pmi_fd, int in_fd,
                                int out_fd, int err_fd, int status_fd, const cpu_set_t *cpus)
{
    int err;

    /* Neither can fail: the child of a fork leads no process group. */
    if (lc_params.rank_sessions)
        setsid();
    else
        setpgid(0, 0);
    /* The rank must not outlive whoever started it (mpiexec killed by
     * SIGKILL, a proxy whose host lost mpiexec): nobody else would end it.
     * If the parent died before this line, getppid() already changed. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    /* Ignored signals stay ignored across exec: give the rank defaults. */
    mpiexec_child_signals();

    /* All inputs are >= 3 (0, 1, 2 are kept open), so dup2 onto 0..2
     * cannot clobber one we still need. */
    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        goto fail;
    /* Also what mpiexec itself inherited (issue 12): only 0, 1, 2 and
     * PMI_FD survive the exec. */
    mpiexec_child_cloexec_all();
    if (fcntl(pmi_fd, F_SETFD, 0) != 0)
        goto fail;

    for (int i = 0; i < req->ngenv; i++)
        setenv(req->genv_names[i], req->genv_values[i], 1);
    setenv("IPATH_NO_BACKTRACE", "1", 0);
    /* The launch we are part of wins over any launcher that started us. */
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");
    unsetenv("PMI_SPAWNED");
    mpiexec_spawn_setenv_int("PMI_FD", pmi_fd);
    mpiexec_spawn_setenv_int("PMI_RANK", req->rank);
    mpiexec_spawn_setenv_int("PMI_SIZE", req->size);
    mpiexec_spawn_setenv_int("LOCUS_LOCAL_RANK", req->local_rank);
    mpiexec_spawn_setenv_int("LOCUS_LOCAL_SIZE", req->local_size);
    /* hydra's names for the same, read by MPICH-built programs. */
    mpiexec_spawn_setenv_int("MPI_LOCALRANKID", req->local_rank);
    mpiexec_spawn_setenv_int("MPI_LOCALNRANKS", req->local_size);

    if (cpus != NULL && sched_setaffinity(0, sizeof(*cpus), cpus) != 0)
        goto fail;
    if (req->wdir != NULL && req->wdir[0] != '\0' && chdir(req->wdir) != 0)
        goto fail;

    execv(req->path, req->argv);
fail:
    err = errno;
    (void)!write(status_fd, &err, sizeof(err));
    _exit(127);
}

int mpiexec_spawn(const mpiexec_spawn_req_t *req, mpiexec_spawned_t *res)
{
    int sv[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, in[2] = {-1, -1}, st[2] = {-1, -1};
    cpu_set_t cpus;
    ssize_t n;
    int child_errno = 0, rc = -1;
    pid_t pid, me = getpid();

    if (req->bind_core && mpiexec_bind_cpuset(req->local_rank, &cpus) != 0) {
        mpiexec_spawn_fail(req, "-bind-to core: cannot read this process's CPU set: %s", strerror(errno));
        return -1;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || pipe2(out, O_CLOEXEC) != 0 ||
        pipe2(err, O_CLOEXEC) != 0 || pipe2(st, O_CLOEXEC) != 0) {
        mpiexec_spawn_fail(req, "cannot create pipes for rank %d: %s", req->rank, strerror(errno));
        goto out;
    }
    if (req->stdin_pipe) {
        if (pipe2(in, O_CLOEXEC) != 0) {
            mpiexec_spawn_fail(req, "cannot create the stdin pipe for rank %d: %s", req->rank, strerror(errno));
            goto out;
        }
    } else if ((in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
        mpiexec_spawn_fail(req, "cannot open /dev/null: %s", strerror(errno));
        goto out;
    }

    pid = fork();
    if (pid < 0) {
        mpiexec_spawn_fail(req, "cannot start rank %d: fork: %s", req->rank, strerror(errno));
        goto out;
    }
    if (pid == 0)
        mpiexec_spawn_child(req, me, sv[1], in[0], out[1], err[1], st[1], req->bind_core ? &cpus : NULL);

    /* Also here, so the group exists before we might signal it.  Not for
     * a session: the child's setsid would fail once it leads a group; its
     * group exists before we return, which is after its exec (the status
     * pipe's EOF) or its failure. */
    if (!lc_params.rank_sessions)
        setpgid(pid, pid);
    res->pid = pid;

    close(st[1]);
    st[1] = -1;
    do {
        n = read(st[0], &child_errno, sizeof(child_errno));
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
        if (req->wdir != NULL)
            mpiexec_spawn_fail(req, "cannot execute '%s' in directory '%s' for rank %d: %s", req->path, req->wdir,
                               req->rank, strerror(child_errno));
        else
            mpiexec_spawn_fail(req, "cannot execute '%s' for rank %d: %s", req->path, req->rank,
                               strerror(child_errno));
        rc = 1; /* the child _exit()s 127; the caller reaps it */
        goto out;
    }

    res->pmi_fd = sv[0];
    res->out_fd = out[0];
    res->err_fd = err[0];
    res->in_fd = in[1];
    sv[0] = out[0] = err[0] = in[1] = -1;
    fcntl(res->pmi_fd, F_SETFL, O_NONBLOCK);
    fcntl(res->out_fd, F_SETFL, O_NONBLOCK);
    fcntl(res->err_fd, F_SETFL, O_NONBLOCK);
    if (res->in_fd >= 0)
        fcntl(res->in_fd, F_SETFL, O_NONBLOCK);
    rc = 0;
out:
    for (int i = 0; i < 2; i++) {
        if (sv[i] >= 0) close(sv[i]);
        if (out[i] >= 0) close(out[i]);
        if (err[i] >= 0) close(err[i]);
        if (in[i] >= 0) close(in[i]);
        if (st[i] >= 0) close(st[i]);
    }
    return rc;
}
