/* SPDX-License-Identifier: BSD-3-Clause */
/* The run's jobs, and PMI `spawn`: a rank asks for a new job
 * (MPI_Comm_spawn / MPI_Comm_spawn_multiple; docs/dynamic.md "Step 2").
 *
 * The request is several PMI-1 lines (one line is at most LC_PMI_WIRE_MAX
 * bytes; a spawn carries arguments, info values and preput values of any
 * length), every string %-encoded (lc_pmi_encode) and cut into chunks:
 *
 *   cmd=spawn_begin ncmds=N npreput=P
 *   cmd=spawn_cmd i=K nprocs=M argc=A ninfo=I          once per command
 *   cmd=spawn_str f=F i=K j=J v=<chunk>                 appended to string F
 *        F: exec (command K's program), arg (its argument J), ikey / ival
 *        (its info pair J), pkey / pval (preput pair J; i ignored)
 *   cmd=spawn_end
 *
 * and one reply to spawn_end:
 *
 *   cmd=spawn_result rc=0 kvsname=<the new job>
 *   cmd=spawn_result rc=-1 err=<spawn|no_such_file|access|no_mem> msg=<%-encoded reason>
 *
 * No line before spawn_end is answered.  Everything is checked before
 * anything is forked: counts, the run's process cap, open files, every
 * program resolved (mpiexec_launch_find with the "path" and "wdir" info
 * keys), "host" naming this host.  Then the new job's key space gets the
 * preput pairs and lc-parent-kvs (owned by the launcher: no rank can
 * replace them) and its processes are started one by one, each exec
 * confirmed (mpiexec_spawn's status pipe).  If one cannot be started, the
 * ones already started are killed, the job is marked cancelled (their
 * exits are no news) and the spawner is refused: no child runs.
 *
 * Spawned jobs run on mpiexec's host, whichever host the spawner is on
 * (a remote rank's PMI is served here too), unbound, stdin /dev/null, the
 * environment of the world's ranks (ours plus -genv).  Their kvsname is
 * the world's plus "j<id>", so shared-memory names never collide and the
 * world's own /dev/shm accounting does not count theirs. */
#include "mpiexec_spawn_req.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

const char *mpiexec_rank_name(const mpiexec_rank_t *r)
{
    static char buf[48];

    if (r->pj == NULL || r->pj->id == 0)
        snprintf(buf, sizeof(buf), "rank %d", r->rank);
    else
        snprintf(buf, sizeof(buf), "job %d rank %d", r->pj->id, r->rank);
    return buf;
}

int mpiexec_pjobs_init(mpiexec_job_t *job)
{
    mpiexec_pjob_t *w = &job->world;

    job->pjobs = malloc(sizeof(*job->pjobs));
    if (job->pjobs == NULL) {
        mpiexec_say("out of memory");
        return -1;
    }
    w->id = 0;
    snprintf(w->kvsname, sizeof(w->kvsname), "%s", job->kvsname);
    w->size = job->size;
    w->ranks = job->ranks;
    w->kvs = job->kvs;
    w->node_attrs = job->node_attrs;
    w->process_mapping = job->process_mapping;
    for (int i = 0; i < job->size; i++) {
        job->ranks[i].pj = w;
        job->ranks[i].appnum = 0;
    }
    job->pjobs[0] = w;
    job->npjobs = 1;
    return 0;
}

void mpiexec_spawn_in_free(mpiexec_rank_t *r)
{
    mpiexec_spawn_in_destroy(r->spawn_in);
    r->spawn_in = NULL;
}

static void mpiexec_pjob_destroy(mpiexec_pjob_t *pj)
{
    for (int i = 0; i < pj->size; i++)
        mpiexec_spawn_in_destroy(pj->ranks[i].spawn_in);
    free(pj->ranks);
    mpiexec_kvs_destroy(pj->kvs);
    mpiexec_kvs_destroy(pj->node_attrs);
    free(pj->process_mapping);
    free(pj);
}

void mpiexec_pjobs_free(mpiexec_job_t *job)
{
    /* [0] is the world, whose parts belong to job. */
    for (int j = 1; j < job->npjobs; j++)
        mpiexec_pjob_destroy(job->pjobs[j]);
    free(job->pjobs);
    job->pjobs = NULL;
    job->npjobs = 0;
}

/* Enough open files for n more processes (4 each: PMI, out, err, and a
 * spare for the status pipe), raising our soft limit if we may. */
static int mpiexec_spawn_fd_room(const mpiexec_job_t *job, int n, char *why, size_t whylen)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)(job->nrunning + n) * 4 + (rlim_t)job->nproxies * 3 + MPIEXEC_CONNS_MAX + 32;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 0;
    if (rl.rlim_cur < need && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur < need) {
        snprintf(why, whylen, "%d more processes need %lu open files in mpiexec, but its limit is %lu "
                 "(raise it with ulimit -n)", n, (unsigned long)need, (unsigned long)rl.rlim_cur);
        return -1;
    }
    return 0;
}

/* The info keys of command c that matter here. */
typedef struct mpiexec_spawn_where {
    const char *wdir, *path, *host;
} mpiexec_spawn_where_t;

static void mpiexec_spawn_info(mpiexec_spawn_cmd_in_t *c, mpiexec_spawn_where_t *w)
{
    memset(w, 0, sizeof(*w));
    for (int j = 0; j < c->ninfo; j++) {
        const char *key = mpiexec_spawn_s(&c->ikeys[j]), *val = mpiexec_spawn_s(&c->ivals[j]);

        if (key == NULL || val == NULL)
            continue;
        if (strcmp(key, "wdir") == 0)
            w->wdir = val;
        else if (strcmp(key, "path") == 0)
            w->path = val;
        else if (strcmp(key, "host") == 0)
            w->host = val;
        /* other keys (soft, arch, file, ...) are ignored, as MPI allows */
    }
}

/* Check everything and resolve the programs (paths[k], malloc'd).  0, or
 * -1 with why[] and *err_p (the error word of the reply). */
static int mpiexec_spawn_check(mpiexec_job_t *job, struct mpiexec_spawn_in *in, char **paths, int *total_p,
                               char *why, size_t whylen, const char **err_p)
{
    long total = 0;

    *err_p = "spawn";
    if (in->refuse[0] != '\0') {
        snprintf(why, whylen, "%s", in->refuse);
        return -1;
    }
    if (job->ending) {
        snprintf(why, whylen, "the run is ending (a process failed or mpiexec was signalled)");
        return -1;
    }
    for (int k = 0; k < in->ncmds; k++) {
        if (!in->cmds[k].seen || in->cmds[k].nprocs < 1) {
            snprintf(why, whylen, "command %d of the spawn request asks for %d processes (at least 1)", k,
                     in->cmds[k].nprocs);
            return -1;
        }
        total += in->cmds[k].nprocs;
    }
    if (total + job->nrunning + job->npending > MPIEXEC_RUN_PROCS_MAX) {
        snprintf(why, whylen, "spawning %ld processes would make %ld in the run; this mpiexec runs at most %d at once",
                 total, total + job->nrunning + job->npending, MPIEXEC_RUN_PROCS_MAX);
        return -1;
    }
    if (mpiexec_spawn_fd_room(job, (int)total, why, whylen) != 0)
        return -1;
    for (int k = 0; k < in->ncmds; k++) {
        mpiexec_spawn_cmd_in_t *c = &in->cmds[k];
        mpiexec_spawn_where_t w;
        const char *exec = mpiexec_spawn_s(&c->exec);
        struct stat st;
        char rwhy[640];
        int noent;

        if (exec == NULL) {
            *err_p = "no_mem";
            snprintf(why, whylen, "out of memory in mpiexec");
            return -1;
        }
        mpiexec_spawn_info(c, &w);
        if (w.host != NULL && w.host[0] != '\0' && !mpiexec_net_is_this_host(w.host)) {
            snprintf(why, whylen, "info host=%s: spawned processes run on mpiexec's host only "
                     "(leave out the host key)", w.host);
            return -1;
        }
        if (w.wdir != NULL && w.wdir[0] != '\0' && (stat(w.wdir, &st) != 0 || !S_ISDIR(st.st_mode))) {
            *err_p = "no_such_file";
            snprintf(why, whylen, "info wdir=%s: not a directory", w.wdir);
            return -1;
        }
        paths[k] = mpiexec_launch_find(exec, w.path, w.wdir, rwhy, sizeof(rwhy), &noent);
        if (paths[k] == NULL) {
            *err_p = noent ? "no_such_file" : "access";
            if (in->ncmds > 1)
                snprintf(why, whylen, "command %d: %s", k, rwhy);
            else
                snprintf(why, whylen, "%s", rwhy);
            return -1;
        }
    }
    *total_p = (int)total;
    return 0;
}

/* "(vector,(0,1,n))": every process of the job on one node. */
static char *mpiexec_spawn_mapping(int n)
{
    char buf[64];

    snprintf(buf, sizeof(buf), "(vector,(0,1,%d))", n);
    return strdup(buf);
}

/* A new job of total processes, registered in the run (so its processes
 * are reaped and polled), its key space filled. */
static mpiexec_pjob_t *mpiexec_spawn_new_job(mpiexec_job_t *job, const mpiexec_rank_t *parent,
                                             struct mpiexec_spawn_in *in, int total, char *why, size_t whylen)
{
    mpiexec_pjob_t *pj = calloc(1, sizeof(*pj)), **pjobs;

    if (pj == NULL)
        goto oom;
    pj->id = job->npjobs;
    pj->size = total;
    snprintf(pj->kvsname, sizeof(pj->kvsname), "%sj%d", job->kvsname, pj->id);
    pj->ranks = calloc((size_t)total, sizeof(mpiexec_rank_t));
    pj->kvs = mpiexec_kvs_create();
    pj->node_attrs = mpiexec_kvs_create();
    pj->process_mapping = mpiexec_spawn_mapping(total);
    if (pj->ranks == NULL || pj->kvs == NULL || pj->node_attrs == NULL || pj->process_mapping == NULL)
        goto oom;
    for (int j = 0; j < in->npreput; j++) {
        const char *key = mpiexec_spawn_s(&in->pkeys[j]), *val = mpiexec_spawn_s(&in->pvals[j]);

        if (key == NULL || val == NULL)
            goto oom;
        if (!lc_pmi_key_is_valid(key) || !lc_pmi1_value_is_valid(val) || strncmp(key, "lc-parent-", 10) == 0) {
            snprintf(why, whylen, "preput key '%.64s' or its value cannot go into a PMI key space "
                     "(keys: 1..%d characters, no space, '=', ';'; values: under %d characters, no space or newline; "
                     "lc-parent-* is the launcher's)", key, LC_PMI_KEY_MAX - 1, LC_PMI_VALUE_MAX);
            mpiexec_pjob_destroy(pj);
            return NULL;
        }
        if (mpiexec_kvs_put(pj->kvs, key, val, -1) != 0)
            goto oom;
    }
    if (mpiexec_kvs_put(pj->kvs, "lc-parent-kvs", parent->pj->kvsname, -1) != 0)
        goto oom;
    pjobs = realloc(job->pjobs, (size_t)(job->npjobs + 1) * sizeof(*pjobs));
    if (pjobs == NULL)
        goto oom;
    job->pjobs = pjobs;
    job->pjobs[job->npjobs++] = pj;
    return pj;
oom:
    snprintf(why, whylen, "out of memory in mpiexec for %d processes", total);
    if (pj != NULL)
        mpiexec_pjob_destroy(pj);
    return NULL;
}

/* Kill what a failed spawn started; their exits will be ignored. */
static void mpiexec_spawn_cancel(mpiexec_job_t *job, mpiexec_pjob_t *pj)
{
    pj->cancelled = 1;
    for (int i = 0; i < pj->size; i++) {
        mpiexec_rank_t *r = &pj->ranks[i];

        if (r->running && kill(-r->pid, SIGKILL) != 0 && errno == ESRCH)
            kill(r->pid, SIGKILL);
        mpiexec_pmi_close(job, r);
        if (r->out.fd >= 0)
            close(r->out.fd);
        if (r->err.fd >= 0)
            close(r->err.fd);
        r->out.fd = r->err.fd = -1;
        r->out.open = r->err.open = 0;
    }
}

/* Start every process of pj: 0, or -1 with why[] (and pj cancelled). */
static int mpiexec_spawn_start(mpiexec_job_t *job, mpiexec_pjob_t *pj, struct mpiexec_spawn_in *in,
                               char **paths, char *why, size_t whylen)
{
    int rank = 0;

    for (int i = 0; i < pj->size; i++) {
        pj->ranks[i].pmi_fd = pj->ranks[i].out.fd = pj->ranks[i].err.fd = -1;
        pj->ranks[i].pj = pj;
    }
    for (int k = 0; k < in->ncmds; k++) {
        mpiexec_spawn_cmd_in_t *c = &in->cmds[k];
        mpiexec_spawn_where_t w;
        char **argv = calloc((size_t)c->argc + 2, sizeof(char *));

        if (argv == NULL) {
            snprintf(why, whylen, "out of memory in mpiexec");
            goto fail;
        }
        mpiexec_spawn_info(c, &w);
        argv[0] = (char *)mpiexec_spawn_s(&c->exec);
        for (int j = 0; j < c->argc; j++)
            argv[j + 1] = (char *)mpiexec_spawn_s(&c->args[j]);
        for (int j = 0; j < c->argc + 1; j++) {
            if (argv[j] == NULL) {
                free(argv);
                snprintf(why, whylen, "out of memory in mpiexec");
                goto fail;
            }
        }
        for (int m = 0; m < c->nprocs; m++, rank++) {
            mpiexec_rank_t *r = &pj->ranks[rank];
            mpiexec_spawn_req_t req = {
                .path = paths[k], .argv = argv, .rank = rank, .size = pj->size, .local_rank = rank,
                .local_size = pj->size, .ngenv = job->opt.ngenv, .genv_names = job->opt.genv_names,
                .genv_values = job->opt.genv_values, .bind_core = 0, .stdin_pipe = 0,
                .wdir = w.wdir != NULL && w.wdir[0] != '\0' ? w.wdir : NULL, .why = why, .whylen = whylen};
            mpiexec_spawned_t res;
            int rc;

            r->rank = rank;
            r->appnum = k;
            r->host = 0;
            rc = mpiexec_spawn(&req, &res);
            if (rc >= 0) {
                r->pid = res.pid;
                r->running = 1;
                job->nrunning++;
            }
            if (rc != 0) {
                free(argv);
                goto fail;
            }
            r->pmi_fd = res.pmi_fd;
            r->pmi_open = 1;
            mpiexec_io_init_stream(&r->out, res.out_fd, 1, rank);
            mpiexec_io_init_stream(&r->err, res.err_fd, 2, rank);
            r->out.jobid = r->err.jobid = pj->id;
        }
        free(argv);
    }
    return 0;
fail:
    mpiexec_spawn_cancel(job, pj);
    return -1;
}

/* spawn_end: check, start, and build the reply. */
static void mpiexec_spawn_end(mpiexec_job_t *job, mpiexec_rank_t *r, lc_pmi_fmt_t *fmt)
{
    struct mpiexec_spawn_in *in = r->spawn_in;
    char why[1024], enc[3 * sizeof(why) + 1];
    const char *err = "spawn";
    char **paths = calloc((size_t)in->ncmds, sizeof(char *));
    mpiexec_pjob_t *pj = NULL;
    int total = 0, ok = 0;

    why[0] = '\0';
    if (paths == NULL) {
        err = "no_mem";
        snprintf(why, sizeof(why), "out of memory in mpiexec");
    } else if (mpiexec_spawn_check(job, in, paths, &total, why, sizeof(why), &err) == 0 &&
               (pj = mpiexec_spawn_new_job(job, r, in, total, why, sizeof(why))) != NULL &&
               mpiexec_spawn_start(job, pj, in, paths, why, sizeof(why)) == 0) {
        ok = 1;
    }
    if (!ok && pj == NULL && strstr(why, "out of memory") != NULL)
        err = "no_mem";
    lc_pmi_fmt_add(fmt, "rc", ok ? "0" : "-1");
    if (ok) {
        lc_pmi_fmt_add(fmt, "kvsname", pj->kvsname);
    } else {
        lc_pmi_fmt_add(fmt, "err", err);
        lc_pmi_encode(why, strlen(why), enc, sizeof(enc));
        lc_pmi_fmt_add(fmt, "msg", enc);
    }
    for (int k = 0; paths != NULL && k < in->ncmds; k++)
        free(paths[k]);
    free(paths);
    mpiexec_spawn_in_free(r);
}

int mpiexec_spawn_line(mpiexec_job_t *job, mpiexec_rank_t *r, const lc_pmi_msg_t *msg, lc_pmi_fmt_t *fmt,
                       char *buf, size_t cap)
{
    if (strcmp(lc_pmi_msg_cmd(msg), "spawn_end") == 0 && r->spawn_in != NULL) {
        lc_pmi_fmt_init(fmt, 1, buf, cap);
        lc_pmi_fmt_add(fmt, "cmd", "spawn_result");
        mpiexec_spawn_end(job, r, fmt);
        return 1;
    }
    if (strcmp(lc_pmi_msg_cmd(msg), "spawn_end") == 0 || mpiexec_spawn_req_take(r, msg) != 0) {
        /* Only a broken client sends these; allocation failures too end
         * the job (mpiexec cannot keep its promises without memory). */
        mpiexec_spawn_in_free(r);
        mpiexec_fate_protocol_error(job, r, "sent a malformed spawn request");
    }
    return 0;
}
