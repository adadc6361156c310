/* Starting the ranks: resolve the program once, then per rank a PMI
 * socketpair, stdout/stderr pipes, stdin (a pipe for rank 0, /dev/null for
 * the others), fork, and in the child: own process group, default signal
 * handling, environment, optional core binding, exec.
 *
 * Every descriptor mpiexec opens is close-on-exec; the child clears the
 * flag only on its own PMI socket, so a rank inherits exactly stdin,
 * stdout, stderr and PMI_FD.  Exec failures travel back through a
 * close-on-exec pipe: EOF means exec succeeded, 4 bytes mean errno. */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

static void mpiexec_child_setenv_int(const char *name, int v)
{
    char num[16];

    snprintf(num, sizeof(num), "%d", v);
    setenv(name, num, 1);
}

/* In the child, between fork and exec.  Never returns. */
static void mpiexec_child(const mpiexec_job_t *job, int rank, int pmi_fd, int in_fd, int out_fd,
                          int err_fd, int status_fd, const cpu_set_t *cpus)
{
    sigset_t none;
    int err;

    setpgid(0, 0);
    /* Ignored signals stay ignored across exec: give the rank defaults. */
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    /* All inputs are >= 3 (main keeps 0, 1, 2 open), so dup2 onto 0..2
     * cannot clobber one we still need. */
    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        goto fail;
    if (fcntl(pmi_fd, F_SETFD, 0) != 0)
        goto fail;

    for (int i = 0; i < job->opt.ngenv; i++)
        setenv(job->opt.genv_names[i], job->opt.genv_values[i], 1);
    /* The launch we are part of wins over any launcher that started us. */
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");
    unsetenv("PMI_SPAWNED");
    mpiexec_child_setenv_int("PMI_FD", pmi_fd);
    mpiexec_child_setenv_int("PMI_RANK", rank);
    mpiexec_child_setenv_int("PMI_SIZE", job->size);
    mpiexec_child_setenv_int("LOCUS_LOCAL_RANK", rank);
    mpiexec_child_setenv_int("LOCUS_LOCAL_SIZE", job->size);
    /* hydra's names for the same, read by MPICH-built programs. */
    mpiexec_child_setenv_int("MPI_LOCALRANKID", rank);
    mpiexec_child_setenv_int("MPI_LOCALNRANKS", job->size);

    if (cpus != NULL && sched_setaffinity(0, sizeof(*cpus), cpus) != 0)
        goto fail;

    execv(job->program_path, job->opt.argv);
fail:
    err = errno;
    (void)!write(status_fd, &err, sizeof(err));
    _exit(127);
}

static int mpiexec_launch_one(mpiexec_job_t *job, mpiexec_rank_t *r)
{
    int sv[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, in[2] = {-1, -1}, st[2] = {-1, -1};
    cpu_set_t cpus;
    ssize_t n;
    int child_errno = 0, rc = -1;
    pid_t pid;

    if (job->opt.bind_core && mpiexec_bind_cpuset(r->rank, &cpus) != 0) {
        mpiexec_say("-bind-to core: cannot read this process's CPU set: %m");
        return -1;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || pipe2(out, O_CLOEXEC) != 0 ||
        pipe2(err, O_CLOEXEC) != 0 || pipe2(st, O_CLOEXEC) != 0) {
        mpiexec_say("cannot create pipes for rank %d: %m", r->rank);
        goto out;
    }
    if (r->rank == 0 && job->stdin_fd >= 0) {
        if (pipe2(in, O_CLOEXEC) != 0) {
            mpiexec_say("cannot create stdin pipe for rank 0: %m");
            goto out;
        }
    } else if ((in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
        mpiexec_say("cannot open /dev/null: %m");
        goto out;
    }

    pid = fork();
    if (pid < 0) {
        mpiexec_say("cannot start rank %d: fork: %m", r->rank);
        goto out;
    }
    if (pid == 0)
        mpiexec_child(job, r->rank, sv[1], in[0], out[1], err[1], st[1], job->opt.bind_core ? &cpus : NULL);

    /* Also here, so the group exists before we might signal it. */
    setpgid(pid, pid);
    r->pid = pid;
    r->running = 1;
    job->nrunning++;

    close(st[1]);
    st[1] = -1;
    do {
        n = read(st[0], &child_errno, sizeof(child_errno));
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
        errno = child_errno;
        mpiexec_say("cannot execute '%s' for rank %d: %m", job->program_path, r->rank);
        goto out; /* the child _exit()s 127; the reaper collects it */
    }

    r->pmi_fd = sv[0];
    sv[0] = -1;
    fcntl(r->pmi_fd, F_SETFL, O_NONBLOCK);
    mpiexec_io_init_stream(&r->out, out[0], 1, r->rank);
    mpiexec_io_init_stream(&r->err, err[0], 2, r->rank);
    out[0] = err[0] = -1;
    fcntl(r->out.fd, F_SETFL, O_NONBLOCK);
    fcntl(r->err.fd, F_SETFL, O_NONBLOCK);
    if (in[1] >= 0) {
        job->rank0_stdin = in[1];
        in[1] = -1;
        fcntl(job->rank0_stdin, F_SETFL, O_NONBLOCK);
    }
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

int mpiexec_launch_all(mpiexec_job_t *job)
{
    for (int i = 0; i < job->size; i++)
        if (mpiexec_launch_one(job, &job->ranks[i]) != 0)
            return -1;
    return 0;
}
