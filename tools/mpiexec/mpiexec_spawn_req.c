/* SPDX-License-Identifier: BSD-3-Clause */
/* Receiving a spawn request: the lines before spawn_end, %-decoded chunk
 * by chunk into the strings of r->spawn_in (mpiexec_spawn_req.h; the wire
 * format is described in mpiexec_spawn_job.c). */
#include "mpiexec_spawn_req.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mpiexec_spawn_in_destroy(struct mpiexec_spawn_in *in)
{
    if (in == NULL)
        return;
    for (int k = 0; in->cmds != NULL && k < in->ncmds; k++) {
        mpiexec_spawn_cmd_in_t *c = &in->cmds[k];

        mpiexec_buf_free(&c->exec);
        for (int j = 0; c->args != NULL && j < c->argc; j++)
            mpiexec_buf_free(&c->args[j]);
        for (int j = 0; c->ikeys != NULL && j < c->ninfo; j++) {
            mpiexec_buf_free(&c->ikeys[j]);
            mpiexec_buf_free(&c->ivals[j]);
        }
        free(c->args);
        free(c->ikeys);
        free(c->ivals);
    }
    for (int j = 0; in->pkeys != NULL && j < in->npreput; j++) {
        mpiexec_buf_free(&in->pkeys[j]);
        mpiexec_buf_free(&in->pvals[j]);
    }
    free(in->cmds);
    free(in->pkeys);
    free(in->pvals);
    free(in);
}

static void mpiexec_spawn_refuse(struct mpiexec_spawn_in *in, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void mpiexec_spawn_refuse(struct mpiexec_spawn_in *in, const char *fmt, ...)
{
    va_list ap;

    if (in->refuse[0] != '\0')
        return; /* the first reason is the one to read */
    va_start(ap, fmt);
    vsnprintf(in->refuse, sizeof(in->refuse), fmt, ap);
    va_end(ap);
}

/* A count attribute in 0..max; -1 if absent or malformed. */
static long mpiexec_spawn_count(const lc_pmi_msg_t *msg, const char *key, long max)
{
    long v;

    if (lc_pmi_msg_get_int(msg, key, &v) != 0 || v < 0 || v > max)
        return -1;
    return v;
}

static mpiexec_buf_t *mpiexec_spawn_bufs(int n)
{
    return n > 0 ? calloc((size_t)n, sizeof(mpiexec_buf_t)) : NULL;
}

static int mpiexec_spawn_begin(mpiexec_rank_t *r, const lc_pmi_msg_t *msg)
{
    struct mpiexec_spawn_in *in;
    long ncmds = mpiexec_spawn_count(msg, "ncmds", MPIEXEC_SPAWN_CMDS_MAX);
    long npreput = mpiexec_spawn_count(msg, "npreput", MPIEXEC_SPAWN_ITEMS_MAX);

    if (r->spawn_in != NULL || ncmds < 1 || npreput < 0)
        return -1;
    in = calloc(1, sizeof(*in));
    if (in == NULL)
        return -1;
    r->spawn_in = in;
    in->cmds = calloc((size_t)ncmds, sizeof(*in->cmds));
    in->pkeys = mpiexec_spawn_bufs((int)npreput);
    in->pvals = mpiexec_spawn_bufs((int)npreput);
    if (in->cmds == NULL || (npreput > 0 && (in->pkeys == NULL || in->pvals == NULL)))
        return -1;
    in->ncmds = (int)ncmds;
    in->npreput = (int)npreput;
    return 0;
}

static int mpiexec_spawn_cmd(mpiexec_rank_t *r, const lc_pmi_msg_t *msg)
{
    struct mpiexec_spawn_in *in = r->spawn_in;
    long k = mpiexec_spawn_count(msg, "i", MPIEXEC_SPAWN_CMDS_MAX);
    long nprocs = mpiexec_spawn_count(msg, "nprocs", 1L << 30);
    long argc = mpiexec_spawn_count(msg, "argc", MPIEXEC_SPAWN_ITEMS_MAX);
    long ninfo = mpiexec_spawn_count(msg, "ninfo", MPIEXEC_SPAWN_ITEMS_MAX);
    mpiexec_spawn_cmd_in_t *c;

    if (in == NULL || k < 0 || k >= in->ncmds || nprocs < 0 || argc < 0 || ninfo < 0 || in->cmds[k].seen)
        return -1;
    c = &in->cmds[k];
    c->seen = 1;
    c->nprocs = (int)nprocs;
    c->args = mpiexec_spawn_bufs((int)argc);
    c->ikeys = mpiexec_spawn_bufs((int)ninfo);
    c->ivals = mpiexec_spawn_bufs((int)ninfo);
    if ((argc > 0 && c->args == NULL) || (ninfo > 0 && (c->ikeys == NULL || c->ivals == NULL)))
        return -1;
    c->argc = (int)argc;
    c->ninfo = (int)ninfo;
    return 0;
}

/* The string a spawn_str line appends to, or NULL if it names none. */
static mpiexec_buf_t *mpiexec_spawn_slot(struct mpiexec_spawn_in *in, const lc_pmi_msg_t *msg)
{
    const char *f = lc_pmi_msg_get(msg, "f");
    long k = mpiexec_spawn_count(msg, "i", MPIEXEC_SPAWN_CMDS_MAX);
    long j = mpiexec_spawn_count(msg, "j", MPIEXEC_SPAWN_ITEMS_MAX);
    mpiexec_spawn_cmd_in_t *c;

    if (f == NULL || j < 0)
        return NULL;
    if (strcmp(f, "pkey") == 0 || strcmp(f, "pval") == 0)
        return j < in->npreput ? (f[1] == 'k' ? &in->pkeys[j] : &in->pvals[j]) : NULL;
    if (k < 0 || k >= in->ncmds || !in->cmds[k].seen)
        return NULL;
    c = &in->cmds[k];
    if (strcmp(f, "exec") == 0)
        return &c->exec;
    if (strcmp(f, "arg") == 0)
        return j < c->argc ? &c->args[j] : NULL;
    if (strcmp(f, "ikey") == 0 || strcmp(f, "ival") == 0)
        return j < c->ninfo ? (f[1] == 'k' ? &c->ikeys[j] : &c->ivals[j]) : NULL;
    return NULL;
}

static int mpiexec_spawn_str(mpiexec_rank_t *r, const lc_pmi_msg_t *msg)
{
    struct mpiexec_spawn_in *in = r->spawn_in;
    const char *v = lc_pmi_msg_get(msg, "v");
    char dec[LC_PMI_WIRE_MAX];
    mpiexec_buf_t *b;
    ssize_t n;

    if (in == NULL || v == NULL || (b = mpiexec_spawn_slot(in, msg)) == NULL)
        return -1;
    n = lc_pmi_decode(v, dec, sizeof(dec));
    if (n < 0)
        return -1;
    if ((size_t)n != strlen(dec)) {
        mpiexec_spawn_refuse(in, "a string of the spawn request contains a NUL byte");
        return 0;
    }
    in->bytes += (size_t)n;
    if (in->bytes > MPIEXEC_SPAWN_BYTES_MAX) {
        mpiexec_spawn_refuse(in, "the spawn request's strings exceed %u bytes", MPIEXEC_SPAWN_BYTES_MAX);
        return 0;
    }
    if (in->refuse[0] == '\0' && mpiexec_buf_put(b, dec, (size_t)n) != 0)
        mpiexec_spawn_refuse(in, "out of memory for the spawn request");
    return 0;
}

const char *mpiexec_spawn_s(mpiexec_buf_t *b)
{
    if (mpiexec_buf_put(b, "", 1) != 0)
        return NULL;
    b->len--; /* the NUL stays after the data, not in it */
    return b->data;
}

int mpiexec_spawn_req_take(mpiexec_rank_t *r, const lc_pmi_msg_t *msg)
{
    const char *cmd = lc_pmi_msg_cmd(msg);

    if (strcmp(cmd, "spawn_begin") == 0)
        return mpiexec_spawn_begin(r, msg);
    if (strcmp(cmd, "spawn_cmd") == 0)
        return mpiexec_spawn_cmd(r, msg);
    if (strcmp(cmd, "spawn_str") == 0)
        return mpiexec_spawn_str(r, msg);
    return -1;
}
