/* SPDX-License-Identifier: BSD-3-Clause */
/* PMI client: spawn and universe size (lc_pmi_spawn.h).
 *
 * A spawn is one request of several PMI-1 lines and one reply, Locus's own
 * commands (the wire format: tools/mpiexec/mpiexec_spawn_job.c and
 * docs/dynamic.md "Step 2").  Every string travels %-encoded
 * (lc_pmi_encode) in chunks, so arguments and info values may hold any
 * byte but NUL and be of any length.  Only Locus's mpiexec knows these
 * commands: it says so through the key `lc-launcher`, asked once; under
 * any other launcher (or as a singleton) a spawn is refused here without
 * a word on the wire. */
#include "pmi/lc_pmi_spawn.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "pmi/lc_pmi_impl.h"

/* Raw bytes per spawn_str line: encoded at most 3x, well inside a line. */
#define LC_PMI_SPAWN_CHUNK 1000

typedef struct lc_pmi_req {
    char  *buf;
    size_t len, cap;
    int    failed;
} lc_pmi_req_t;

/* 1: Locus's mpiexec serves spawn; -1: another launcher; 0: not asked yet. */
static int lc_pmi_spawn_launcher;
static int lc_pmi_usize_cached = -2; /* -2: not asked yet */
static pthread_mutex_t lc_pmi_spawn_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((format(printf, 3, 4)))
static void lc_pmi_spawn_why(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;

    if (why == NULL || whylen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
}

/* Append one finished line (built in fmt) to the request. */
static void lc_pmi_req_line(lc_pmi_req_t *req, lc_pmi_fmt_t *fmt)
{
    ssize_t n = lc_pmi_fmt_finish(fmt);

    if (n < 0 || req->failed) {
        req->failed = 1;
        return;
    }
    if (req->len + (size_t)n > req->cap) {
        size_t cap = req->cap ? req->cap : 8192;
        char *p;

        while (cap < req->len + (size_t)n)
            cap *= 2;
        p = realloc(req->buf, cap);
        if (p == NULL) {
            req->failed = 1;
            return;
        }
        req->buf = p;
        req->cap = cap;
    }
    memcpy(req->buf + req->len, fmt->buf, (size_t)n);
    req->len += (size_t)n;
}

/* spawn_str lines carrying s into string f (command i, item j). */
static void lc_pmi_req_str(lc_pmi_req_t *req, const char *f, int i, int j, const char *s)
{
    size_t n = strlen(s);

    for (size_t off = 0; off < n; off += LC_PMI_SPAWN_CHUNK) {
        char enc[3 * LC_PMI_SPAWN_CHUNK + 1], line[LC_PMI_WIRE_MAX + 2];
        size_t k = n - off < LC_PMI_SPAWN_CHUNK ? n - off : LC_PMI_SPAWN_CHUNK;
        lc_pmi_fmt_t fmt;

        if (lc_pmi_encode(s + off, k, enc, sizeof(enc)) < 0) {
            req->failed = 1;
            return;
        }
        lc_pmi_fmt_init(&fmt, 1, line, sizeof(line));
        lc_pmi_fmt_add(&fmt, "cmd", "spawn_str");
        lc_pmi_fmt_add(&fmt, "f", f);
        lc_pmi_fmt_add_int(&fmt, "i", i);
        lc_pmi_fmt_add_int(&fmt, "j", j);
        lc_pmi_fmt_add(&fmt, "v", enc);
        lc_pmi_req_line(req, &fmt);
    }
}

static void lc_pmi_req_simple(lc_pmi_req_t *req, const char *cmd, const char *k1, long v1, const char *k2, long v2)
{
    char line[256];
    lc_pmi_fmt_t fmt;

    lc_pmi_fmt_init(&fmt, 1, line, sizeof(line));
    lc_pmi_fmt_add(&fmt, "cmd", cmd);
    if (k1 != NULL)
        lc_pmi_fmt_add_int(&fmt, k1, v1);
    if (k2 != NULL)
        lc_pmi_fmt_add_int(&fmt, k2, v2);
    lc_pmi_req_line(req, &fmt);
}

static int lc_pmi_spawn_class(const char *err)
{
    if (err != NULL && strcmp(err, "no_such_file") == 0)
        return MPI_ERR_NO_SUCH_FILE;
    if (err != NULL && strcmp(err, "access") == 0)
        return MPI_ERR_ACCESS;
    if (err != NULL && strcmp(err, "no_mem") == 0)
        return MPI_ERR_NO_MEM;
    return MPI_ERR_SPAWN;
}

/* Whether the launcher is Locus's mpiexec (asked once). */
static int lc_pmi_spawn_is_locus(void)
{
    char v[64];
    int rc;

    pthread_mutex_lock(&lc_pmi_spawn_lock);
    if (lc_pmi_spawn_launcher == 0) {
        rc = lc_pmi_get(-1, "lc-launcher", v, sizeof(v));
        lc_pmi_spawn_launcher = rc == 0 && strncmp(v, "locus-mpiexec", 13) == 0 ? 1 : rc == LC_PMI_NO_KEY ? -1 : 0;
    }
    rc = lc_pmi_spawn_launcher;
    pthread_mutex_unlock(&lc_pmi_spawn_lock);
    return rc;
}

static void lc_pmi_spawn_build(lc_pmi_req_t *req, int ncmds, const lc_pmi_spawn_cmd_t *cmds, int npreput,
                               const char *const *preput_keys, const char *const *preput_vals)
{
    lc_pmi_req_simple(req, "spawn_begin", "ncmds", ncmds, "npreput", npreput);
    for (int k = 0; k < ncmds; k++) {
        const lc_pmi_spawn_cmd_t *c = &cmds[k];
        int argc = 0, ninfo = c->ninfo > 0 ? c->ninfo : 0;
        char line[256];
        lc_pmi_fmt_t fmt;

        while (c->argv != NULL && c->argv[argc] != NULL)
            argc++;
        lc_pmi_fmt_init(&fmt, 1, line, sizeof(line));
        lc_pmi_fmt_add(&fmt, "cmd", "spawn_cmd");
        lc_pmi_fmt_add_int(&fmt, "i", k);
        lc_pmi_fmt_add_int(&fmt, "nprocs", c->maxprocs);
        lc_pmi_fmt_add_int(&fmt, "argc", argc);
        lc_pmi_fmt_add_int(&fmt, "ninfo", ninfo);
        lc_pmi_req_line(req, &fmt);
        lc_pmi_req_str(req, "exec", k, 0, c->command);
        for (int j = 0; j < argc; j++)
            lc_pmi_req_str(req, "arg", k, j, c->argv[j]);
        for (int j = 0; j < ninfo; j++) {
            lc_pmi_req_str(req, "ikey", k, j, c->info_keys[j] != NULL ? c->info_keys[j] : "");
            lc_pmi_req_str(req, "ival", k, j, c->info_vals[j] != NULL ? c->info_vals[j] : "");
        }
    }
    for (int j = 0; j < npreput; j++) {
        lc_pmi_req_str(req, "pkey", 0, j, preput_keys[j] != NULL ? preput_keys[j] : "");
        lc_pmi_req_str(req, "pval", 0, j, preput_vals[j] != NULL ? preput_vals[j] : "");
    }
    lc_pmi_req_simple(req, "spawn_end", NULL, 0, NULL, 0);
}

int lc_pmi_spawn(int ncmds, const lc_pmi_spawn_cmd_t *cmds,
                 int npreput, const char *const *preput_keys, const char *const *preput_vals,
                 char *child_kvs, size_t kvslen, int *errcodes, char *why, size_t whylen)
{
    lc_pmi_req_t req = {0};
    lc_pmi_msg_t *msg = NULL;
    long total = 0, prc = 0;
    int rc = LC_PMI_REFUSED, cls = MPI_ERR_SPAWN;

    if (ncmds < 1 || cmds == NULL || npreput < 0 || (npreput > 0 && (preput_keys == NULL || preput_vals == NULL))) {
        lc_pmi_spawn_why(why, whylen, "lc_pmi_spawn: no command, or preput keys without values");
        return LC_PMI_REFUSED; /* total unknown: errcodes untouched */
    }
    for (int k = 0; k < ncmds; k++)
        total += cmds[k].maxprocs > 0 ? cmds[k].maxprocs : 0;
    for (int k = 0; k < ncmds; k++) {
        if (cmds[k].command == NULL || cmds[k].maxprocs < 1 || total > (1L << 30) ||
            (cmds[k].ninfo > 0 && (cmds[k].info_keys == NULL || cmds[k].info_vals == NULL))) {
            lc_pmi_spawn_why(why, whylen, "spawn command %d: %s", k,
                             cmds[k].command == NULL ? "no program" : cmds[k].maxprocs < 1 ?
                             "maxprocs must be at least 1" : total > (1L << 30) ? "too many processes" :
                             "info keys without values");
            goto out;
        }
    }
    if (!lc_pmi_is_initialized()) {
        lc_pmi_spawn_why(why, whylen, "lc_pmi_spawn called before lc_pmi_init");
        goto out;
    }
    if (lc_pmi_is_singleton() || lc_pmi_spawn_is_locus() != 1) {
        lc_pmi_spawn_why(why, whylen, "MPI_Comm_spawn needs Locus's mpiexec: this process was started %s; "
                         "run the program with Locus's mpiexec (mpiexec -n 1 ./prog)",
                         lc_pmi_is_singleton() ? "without a launcher (singleton)" : "by another launcher");
        goto out;
    }
    lc_pmi_spawn_build(&req, ncmds, cmds, npreput, preput_keys, preput_vals);
    msg = malloc(sizeof(*msg));
    if (req.failed || msg == NULL) {
        cls = MPI_ERR_NO_MEM;
        lc_pmi_spawn_why(why, whylen, "out of memory for the spawn request");
        goto out;
    }
    if (lc_pmi_call_lines(req.buf, req.len, "spawn_result", msg, &prc) != 0) {
        lc_pmi_spawn_why(why, whylen, "the spawn request to mpiexec failed (see the message above)");
        rc = -1;
        goto out;
    }
    if (prc == 0) {
        const char *kvs = lc_pmi_msg_get(msg, "kvsname");

        if (kvs == NULL || kvs[0] == '\0' || strlen(kvs) >= kvslen) {
            lc_pmi_spawn_why(why, whylen, "mpiexec's spawn_result carries no usable kvsname");
            rc = -1;
            goto out;
        }
        memcpy(child_kvs, kvs, strlen(kvs) + 1);
        for (long i = 0; errcodes != NULL && i < total; i++)
            errcodes[i] = 0;
        rc = 0;
    } else {
        const char *m = lc_pmi_msg_get(msg, "msg");
        char text[1024];

        cls = lc_pmi_spawn_class(lc_pmi_msg_get(msg, "err"));
        if (m == NULL || lc_pmi_decode(m, text, sizeof(text)) < 0)
            snprintf(text, sizeof(text), "mpiexec refused the spawn");
        lc_pmi_spawn_why(why, whylen, "%s", text);
    }
out:
    if (rc == LC_PMI_REFUSED)
        for (long i = 0; errcodes != NULL && i < total; i++)
            errcodes[i] = cls;
    free(req.buf);
    free(msg);
    return rc;
}

int lc_pmi_universe_size(void)
{
    char line[64];
    lc_pmi_fmt_t fmt;
    lc_pmi_msg_t *msg;
    long prc = 0, v;
    int size = -1;

    if (!lc_pmi_is_initialized() || lc_pmi_is_singleton())
        return -1;
    pthread_mutex_lock(&lc_pmi_spawn_lock);
    size = lc_pmi_usize_cached;
    pthread_mutex_unlock(&lc_pmi_spawn_lock);
    if (size != -2)
        return size;
    size = -1;
    msg = malloc(sizeof(*msg));
    if (msg == NULL)
        return -1;
    /* PMI-1's own command: hydra and Slurm answer it too. */
    lc_pmi_fmt_init(&fmt, 1, line, sizeof(line));
    lc_pmi_fmt_add(&fmt, "cmd", "get_universe_size");
    if (lc_pmi_call(&fmt, "universe_size", msg, &prc) == 0 && prc == 0 &&
        lc_pmi_msg_get_int(msg, "size", &v) == 0 && v > 0 && v <= (1L << 30))
        size = (int)v;
    free(msg);
    pthread_mutex_lock(&lc_pmi_spawn_lock);
    lc_pmi_usize_cached = size;
    pthread_mutex_unlock(&lc_pmi_spawn_lock);
    return size;
}
