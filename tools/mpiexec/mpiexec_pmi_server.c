/* SPDX-License-Identifier: BSD-3-Clause */
/* PMI server: answers each rank's PMI-1 or PMI-2 requests on its socket.
 *
 * Every connection starts in PMI-1 framing; the client's first line
 * `cmd=init pmi_version=V` picks the framing for the rest of the
 * connection (V=2 switches to length-prefixed PMI-2), as hydra does.
 *
 * The key space is one table per job (the world, or one a rank spawned:
 * r->pj; mpiexec_spawn_job.c).  A put is stored at once, and a barrier
 * (PMI-1 barrier_in, PMI-2 kvs-fence) releases nobody until every rank of
 * that job has entered it, so after it every put made before it is
 * visible.  Both versions share one barrier count, so a job may mix
 * clients.  A get may name another job of the run (read only); the name
 * service is run-wide.
 *
 * A rank writes only its own keys (issue 12): a key belongs to the rank
 * that put it first (a node attribute to that rank's host), and Locus's
 * per-rank keys, `lc-<what>-<rank>[-...]`, to that rank from the start, so
 * no rank (nor a proxy, which speaks only for its host's ranks:
 * mpiexec_remote.c) can publish, say, another rank's network address.
 *
 * Replies are a few hundred bytes at most (Locus's lc_getranks: at most
 * LC_PMI_BULK_MAX, 32 KiB, mpiexec_pmi_bulk.c) and a well-behaved client
 * reads each before its next request, so a reply always fits the socket
 * buffer (208 KiB by default); one that does not is a protocol violation
 * that ends the job.
 *
 * A remote rank's bytes arrive through its proxy (mpiexec_pmi_feed) and
 * replies go back the same way; the proxy relays them unchanged, so the
 * server does not care where a rank runs. */
#include "mpiexec.h"
#include "mpiexec_frame.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

static void mpiexec_pmi_send(mpiexec_job_t *job, mpiexec_rank_t *r, lc_pmi_fmt_t *fmt)
{
    ssize_t len = lc_pmi_fmt_finish(fmt);

    if (!r->pmi_open)
        return;
    if (len < 0) {
        /* Only a value we were given can make this fail, e.g. a PMI-1 get
         * of a value put through PMI-2 with a space in it. */
        mpiexec_say("cannot encode a PMI reply for %s; ending the job", mpiexec_rank_name(r));
        mpiexec_fate_end_job(job, 1);
        return;
    }
    mpiexec_pmi_send_bytes(job, r, fmt->buf, (size_t)len);
}

void mpiexec_pmi_send_bytes(mpiexec_job_t *job, mpiexec_rank_t *r, const char *buf, size_t len)
{
    size_t off = 0;

    if (!r->pmi_open)
        return;
    if (r->proxy != NULL) {
        mpiexec_remote_send(job, r->proxy, MPX_PMI_REPLY, r->rank, buf, len);
        return;
    }
    while (off < len) {
        ssize_t n = send(r->pmi_fd, buf + off, len - off, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                mpiexec_fate_protocol_error(job, r, "does not read its PMI replies");
            /* EPIPE/ECONNRESET: the rank is dying; its exit tells the rest. */
            mpiexec_pmi_close(job, r);
            return;
        }
        off += (size_t)n;
    }
}

void mpiexec_pmi_close(mpiexec_job_t *job, mpiexec_rank_t *r)
{
    if (!r->pmi_open)
        return;
    r->pmi_open = 0;
    if (r->pmi_fd >= 0)
        close(r->pmi_fd);
    r->pmi_fd = -1;
    if (r->proxy != NULL && r->running)
        mpiexec_remote_send(job, r->proxy, MPX_PMI_CLOSE, r->rank, NULL, 0);
    if (r->in_barrier) {
        r->in_barrier = 0;
        r->pj->nbarrier--;
    }
    mpiexec_spawn_in_free(r);
}

/* Start a reply in the connection's framing. */
static void mpiexec_pmi_reply(const mpiexec_rank_t *r, lc_pmi_fmt_t *fmt, char *buf, size_t cap,
                              const char *cmd)
{
    lc_pmi_fmt_init(fmt, r->pmi_version == 2 ? 2 : 1, buf, cap);
    lc_pmi_fmt_add(fmt, "cmd", cmd);
}

/* A rank entered the barrier; release everyone once all are in. */
static void mpiexec_pmi_barrier_enter(mpiexec_job_t *job, mpiexec_rank_t *r)
{
    char buf[128];
    lc_pmi_fmt_t fmt;

    if (r->in_barrier) {
        mpiexec_fate_protocol_error(job, r, "entered the PMI barrier twice");
        return;
    }
    r->in_barrier = 1;
    if (++r->pj->nbarrier < r->pj->size)
        return;
    for (int i = 0; i < r->pj->size; i++) {
        mpiexec_rank_t *p = &r->pj->ranks[i];

        if (!p->in_barrier)
            continue;
        p->in_barrier = 0;
        mpiexec_pmi_reply(p, &fmt, buf, sizeof(buf), p->pmi_version == 2 ? "kvs-fence-response" : "barrier_out");
        lc_pmi_fmt_add(&fmt, "rc", "0");
        mpiexec_pmi_send(job, p, &fmt);
    }
    r->pj->nbarrier = 0;
}

/* The rank a Locus key `lc-<letters>-<digits>[-...]` belongs to, or -1. */
static int mpiexec_pmi_key_rank(const char *key)
{
    const char *p = key + 3;
    long rank = 0;

    if (strncmp(key, "lc-", 3) != 0 || *p < 'a' || *p > 'z')
        return -1;
    while (*p >= 'a' && *p <= 'z')
        p++;
    if (*p++ != '-' || *p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9' && rank <= INT_MAX / 10; p++)
        rank = rank * 10 + (*p - '0');
    return (*p == '\0' || *p == '-') && rank <= INT_MAX / 10 ? (int)rank : -1;
}

/* Reasons are single words: PMI-1 values cannot carry spaces.  owner: the
 * writing rank (its host for node attributes). */
static int mpiexec_pmi_put(mpiexec_kvs_t *kvs, const char *key, const char *value, int owner,
                           const char **why_p)
{
    int rc;

    if (key == NULL || value == NULL) {
        *why_p = "missing_key_or_value";
        return -1;
    }
    if (!lc_pmi_key_is_valid(key)) {
        *why_p = "invalid_key";
        return -1;
    }
    if (strlen(value) >= LC_PMI_VALUE_MAX) {
        *why_p = "value_too_long";
        return -1;
    }
    rc = mpiexec_kvs_put(kvs, key, value, owner);
    if (rc == -2) {
        *why_p = "key_of_another_rank";
        return -1;
    }
    if (rc != 0) {
        *why_p = "out_of_memory";
        return -1;
    }
    return 0;
}

/* A put into the job's key space by rank r. */
static int mpiexec_pmi_put_rank(const mpiexec_rank_t *r, const char *key, const char *value, const char **why_p)
{
    int want = key != NULL ? mpiexec_pmi_key_rank(key) : -1;

    if (want >= 0 && want != r->rank) {
        *why_p = "key_of_another_rank";
        return -1;
    }
    return mpiexec_pmi_put(r->pj->kvs, key, value, r->rank, why_p);
}

/* Keys the launcher defines itself; looked up after the job's own puts.
 * PMI_process_mapping (mpiexec_hosts.c) tells MPICH which ranks share a node;
 * lc-launcher tells Locus's client it may ask for a spawn. */
static const char *mpiexec_pmi_job_attr(const mpiexec_job_t *job, const mpiexec_pjob_t *pj, const char *key,
                                        char *buf, size_t len)
{
    if (strcmp(key, "PMI_process_mapping") == 0)
        return pj->process_mapping;
    if (strcmp(key, "universeSize") == 0) {
        snprintf(buf, len, "%d", job->universe_size);
        return buf;
    }
    if (strcmp(key, "lc-launcher") == 0)
        return "locus-mpiexec-spawn1";
    return NULL;
}

/* The job named kvsname (NULL: r's own), or NULL.  A process reads any
 * job's keys of the run (a parent its children's, a child its parent's)
 * but writes only its own job's. */
static mpiexec_pjob_t *mpiexec_pmi_find_job(const mpiexec_job_t *job, const mpiexec_rank_t *r, const char *kvsname)
{
    if (kvsname == NULL || strcmp(kvsname, r->pj->kvsname) == 0)
        return r->pj;
    for (int i = 0; i < job->npjobs; i++)
        if (strcmp(job->pjobs[i]->kvsname, kvsname) == 0)
            return job->pjobs[i];
    return NULL;
}

static void mpiexec_pmi_handle_init(mpiexec_job_t *job, mpiexec_rank_t *r, const lc_pmi_msg_t *msg)
{
    char buf[256];
    lc_pmi_fmt_t fmt;
    long version = 0;

    /* The reply to init is always PMI-1 framed, whatever was asked. */
    lc_pmi_fmt_init(&fmt, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&fmt, "cmd", "response_to_init");
    lc_pmi_msg_get_int(msg, "pmi_version", &version);
    if (version == 1 || version == 2) {
        lc_pmi_fmt_add_int(&fmt, "pmi_version", version);
        lc_pmi_fmt_add(&fmt, "pmi_subversion", version == 1 ? "1" : "0");
        lc_pmi_fmt_add(&fmt, "rc", "0");
        r->pmi_version = (int)version;
        r->pmi_inited = 1;
    } else {
        lc_pmi_fmt_add(&fmt, "pmi_version", "1");
        lc_pmi_fmt_add(&fmt, "pmi_subversion", "1");
        lc_pmi_fmt_add(&fmt, "rc", "-1");
        mpiexec_say("%s asked for PMI version %ld; this mpiexec serves 1 and 2", mpiexec_rank_name(r), version);
    }
    mpiexec_pmi_send(job, r, &fmt);
}

/* The job's name service (MPI_Publish_name & co., hydra's PMI-1 commands
 * and replies): service -> port.  Any rank of the job may unpublish a
 * name, given the port it was published with (MPI 4.1 §11.4.5). */
static void mpiexec_pmi_names(mpiexec_job_t *job, const mpiexec_rank_t *r, const lc_pmi_msg_t *msg,
                              lc_pmi_fmt_t *fmt, char *buf, size_t cap)
{
    const char *cmd = lc_pmi_msg_cmd(msg), *service = lc_pmi_msg_get(msg, "service");
    const char *port = lc_pmi_msg_get(msg, "port"), *have, *why = "success";
    int rc = 0;

    have = service != NULL ? mpiexec_kvs_get(job->names, service) : NULL;
    if (service == NULL || service[0] == '\0') {
        rc = -1;
        why = "missing_service";
    } else if (cmd[0] == 'p') {
        if (port == NULL || port[0] == '\0' || strlen(port) >= LC_PMI_VALUE_MAX) {
            rc = -1;
            why = "missing_or_too_long_port";
        } else if (have != NULL) {
            rc = -1;
            why = "service_already_published";
        } else if (mpiexec_kvs_put(job->names, service, port, -1) != 0) {
            rc = -1;
            why = "out_of_memory";
        }
    } else if (have == NULL) {
        rc = -1;
        why = "service_not_published";
    } else if (cmd[0] == 'u') {
        if (port != NULL && strcmp(port, have) != 0) {
            rc = -1;
            why = "service_published_with_another_port";
        } else {
            mpiexec_kvs_delete(job->names, service, -1);
        }
    }
    mpiexec_pmi_reply(r, fmt, buf, cap,
                      cmd[0] == 'p' ? "publish_result" : cmd[0] == 'u' ? "unpublish_result" : "lookup_result");
    lc_pmi_fmt_add(fmt, "rc", rc == 0 ? "0" : "-1");
    lc_pmi_fmt_add(fmt, "msg", why);
    if (rc == 0 && cmd[0] == 'l')
        lc_pmi_fmt_add(fmt, "port", have);
}

static void mpiexec_pmi1_handle(mpiexec_job_t *job, mpiexec_rank_t *r, const lc_pmi_msg_t *msg)
{
    const char *cmd = lc_pmi_msg_cmd(msg), *why = NULL;
    char buf[LC_PMI_WIRE_MAX + 2], attr[64];
    lc_pmi_fmt_t fmt;

    if (strcmp(cmd, "get_maxes") == 0) {
        mpiexec_pmi_reply(r, &fmt, buf, sizeof(buf), "maxes");
        lc_pmi_fmt_add(&fmt, "rc", "0");
        lc_pmi_fmt_add_int(&fmt, "kvsname_max", LC_PMI_KVSNAME_MAX);
        lc_pmi_fmt_add_int(&fmt, "keylen_max", LC_PMI_KEY_MAX);
        lc_pmi_fmt_add_int(&fmt, "vallen_max", LC_PMI_VALUE_MAX);
        /* Locus's client may ask lc_getranks (others ignore this). */
        lc_pmi_fmt_add_int(&fmt, "lc_bulk_max", LC_PMI_BULK_MAX);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        mpiexec_pmi_reply(r, &fmt, buf, sizeof(buf), "appnum");
        lc_pmi_fmt_add(&fmt, "rc", "0");
        lc_pmi_fmt_add_int(&fmt, "appnum", r->appnum);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        mpiexec_pmi_reply(r, &fmt, buf, sizeof(buf), "my_kvsname");
        lc_pmi_fmt_add(&fmt, "rc", "0");
        lc_pmi_fmt_add(&fmt, "kvsname", r->pj->kvsname);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        mpiexec_pmi_reply(r, &fmt, buf, sizeof(buf), "universe_size");
        lc_pmi_fmt_add(&fmt, "rc", "0");
        lc_pmi_fmt_add_int(&fmt, "size", job->universe_size);
    } else if (strcmp(cmd, "put") == 0) {
        const char *kvsname = lc_pmi_msg_get(msg, "kvsname");
        int rc;

        if (kvsname != NULL && strcmp(kvsname, r->pj->kvsname) != 0) {
            rc = -1;
            why = mpiexec_pmi_find_job(job, r, kvsname) != NULL ? "key_space_of_another_job" : "unknown_kvsname";
        } else {
            rc = mpiexec_pmi_put_rank(r, lc_pmi_msg_get(msg, "key"), lc_pmi_msg_get(msg, "value"), &why);
        }
        mpiexec_pmi_reply(r, &fmt, buf, sizeof(buf), "put_result");
        lc_pmi_fmt_add(&fmt, "rc", rc == 0 ? "0" : "-1");
        lc_pmi_fmt_add(&fmt, "msg", rc == 0 ? "success" : why);
    } else if (strcmp(cmd, "get") == 0) {
        const char *kvsname = lc_pmi_msg_get(msg, "kvsname"), *key = lc_pmi_msg_get(msg, "key");
        const char *value = NULL;
        mpiexec_pjob_t *pj = mpiexec_pmi_find_job(job, r, kvsname);

        if (key != NULL && pj != NULL) {
            value = mpiexec_kvs_get(pj->kvs, key);
            if (value == NULL)
                value = mpiexec_pmi_job_attr(job, pj, key, attr, sizeof(attr));
        }
        mpiexec_pmi_reply(r, &fmt, buf, sizeof(buf), "get_result");
        if (value != NULL && !lc_pmi1_value_is_valid(value)) {
            /* Put by a PMI-2 client with a space in it: PMI-1 cannot say it. */
            lc_pmi_fmt_add(&fmt, "rc", "-1");
            lc_pmi_fmt_add(&fmt, "msg", "value_not_representable_in_PMI-1");
        } else if (value != NULL) {
            lc_pmi_fmt_add(&fmt, "rc", "0");
            lc_pmi_fmt_add(&fmt, "msg", "success");
            lc_pmi_fmt_add(&fmt, "value", value);
        } else {
            lc_pmi_fmt_add(&fmt, "rc", "-1");
            lc_pmi_fmt_add(&fmt, "msg", "key_not_found");
        }
    } else if (strcmp(cmd, "lc_getranks") == 0) {
        mpiexec_pmi_getranks(job, r, msg);
        return;
    } else if (strcmp(cmd, "barrier_in") == 0) {
        mpiexec_pmi_barrier_enter(job, r);
        return;
    } else if (strcmp(cmd, "publish_name") == 0 || strcmp(cmd, "unpublish_name") == 0 ||
               strcmp(cmd, "lookup_name") == 0) {
        mpiexec_pmi_names(job, r, msg, &fmt, buf, sizeof(buf));
    } else if (strncmp(cmd, "spawn_", 6) == 0) {
        if (!mpiexec_spawn_line(job, r, msg, &fmt, buf, sizeof(buf)))
            return; /* more of the request to come; or the job ends */
    } else if (strcmp(cmd, "finalize") == 0) {
        r->pmi_finalized = 1;
        mpiexec_pmi_reply(r, &fmt, buf, sizeof(buf), "finalize_ack");
        lc_pmi_fmt_add(&fmt, "rc", "0");
    } else if (strcmp(cmd, "abort") == 0) {
        long code = 1;
        const char *text = lc_pmi_msg_get(msg, "message");

        if (text == NULL)
            text = lc_pmi_msg_get(msg, "error_msg");
        lc_pmi_msg_get_int(msg, "exitcode", &code);
        mpiexec_fate_abort(job, r, code, text);
        return; /* no reply: the job ends */
    } else {
        /* Name the command in a reply the client cannot mistake for the
         * one it waits for, so it fails at once instead of hanging. */
        mpiexec_say("%s sent an unsupported PMI-1 command '%s'", mpiexec_rank_name(r), cmd);
        mpiexec_pmi_reply(r, &fmt, buf, sizeof(buf), "unsupported_command");
        lc_pmi_fmt_add(&fmt, "rc", "-1");
    }
    mpiexec_pmi_send(job, r, &fmt);
}

static void mpiexec_pmi2_handle(mpiexec_job_t *job, mpiexec_rank_t *r, const lc_pmi_msg_t *msg)
{
    const char *cmd = lc_pmi_msg_cmd(msg), *why = NULL;
    char buf[LC_PMI_WIRE_MAX + 8], attr[64], name[64];
    lc_pmi_fmt_t fmt;

    if (strcmp(cmd, "fullinit") == 0) {
        mpiexec_pmi_reply(r, &fmt, buf, sizeof(buf), "fullinit-response");
        lc_pmi_fmt_add(&fmt, "pmi-version", "2");
        lc_pmi_fmt_add(&fmt, "pmi-subversion", "0");
        lc_pmi_fmt_add_int(&fmt, "rank", r->rank);
        lc_pmi_fmt_add_int(&fmt, "size", r->pj->size);
        lc_pmi_fmt_add_int(&fmt, "appnum", r->appnum);
        lc_pmi_fmt_add(&fmt, "debugged", "FALSE");
        lc_pmi_fmt_add(&fmt, "pmiverbose", "FALSE");
        lc_pmi_fmt_add(&fmt, "rc", "0");
    } else if (strcmp(cmd, "job-getid") == 0) {
        mpiexec_pmi_reply(r, &fmt, buf, sizeof(buf), "job-getid-response");
        lc_pmi_fmt_add(&fmt, "jobid", r->pj->kvsname);
        lc_pmi_fmt_add(&fmt, "rc", "0");
    } else if (strcmp(cmd, "kvs-put") == 0 || strcmp(cmd, "info-putnodeattr") == 0) {
        int node = cmd[0] == 'i';
        int rc = node ? mpiexec_pmi_put(r->pj->node_attrs, lc_pmi_msg_get(msg, "key"), lc_pmi_msg_get(msg, "value"),
                                        r->host, &why)
                      : mpiexec_pmi_put_rank(r, lc_pmi_msg_get(msg, "key"), lc_pmi_msg_get(msg, "value"), &why);

        snprintf(name, sizeof(name), "%s-response", cmd);
        mpiexec_pmi_reply(r, &fmt, buf, sizeof(buf), name);
        lc_pmi_fmt_add(&fmt, "rc", rc == 0 ? "0" : "-1");
        if (rc != 0)
            lc_pmi_fmt_add(&fmt, "errmsg", why);
    } else if (strcmp(cmd, "kvs-fence") == 0) {
        mpiexec_pmi_barrier_enter(job, r);
        return;
    } else if (strcmp(cmd, "kvs-get") == 0 || strcmp(cmd, "info-getjobattr") == 0 ||
               strcmp(cmd, "info-getnodeattr") == 0) {
        const char *key = lc_pmi_msg_get(msg, "key"), *jobid = lc_pmi_msg_get(msg, "jobid");
        const char *value = NULL;
        mpiexec_pjob_t *pj = mpiexec_pmi_find_job(job, r, jobid);

        if (key != NULL && pj != NULL) {
            if (strcmp(cmd, "info-getnodeattr") == 0) {
                /* wait=TRUE is answered at once too: found=FALSE if absent. */
                value = mpiexec_kvs_get(pj->node_attrs, key);
            } else {
                if (cmd[0] == 'k')
                    value = mpiexec_kvs_get(pj->kvs, key);
                if (value == NULL)
                    value = mpiexec_pmi_job_attr(job, pj, key, attr, sizeof(attr));
            }
        }
        snprintf(name, sizeof(name), "%s-response", cmd);
        mpiexec_pmi_reply(r, &fmt, buf, sizeof(buf), name);
        lc_pmi_fmt_add(&fmt, "found", value != NULL ? "TRUE" : "FALSE");
        if (value != NULL)
            lc_pmi_fmt_add(&fmt, "value", value);
        lc_pmi_fmt_add(&fmt, "rc", "0");
    } else if (strcmp(cmd, "finalize") == 0) {
        r->pmi_finalized = 1;
        mpiexec_pmi_reply(r, &fmt, buf, sizeof(buf), "finalize-response");
        lc_pmi_fmt_add(&fmt, "rc", "0");
    } else if (strcmp(cmd, "abort") == 0) {
        long code = 1;
        const char *text = lc_pmi_msg_get(msg, "msg");

        if (text == NULL)
            text = lc_pmi_msg_get(msg, "message");
        lc_pmi_msg_get_int(msg, "exitcode", &code);
        mpiexec_fate_abort(job, r, code, text);
        return;
    } else {
        mpiexec_say("%s sent an unsupported PMI-2 command '%s'", mpiexec_rank_name(r), cmd);
        snprintf(name, sizeof(name), "%.40s-response", cmd[0] ? cmd : "unknown");
        mpiexec_pmi_reply(r, &fmt, buf, sizeof(buf), name);
        lc_pmi_fmt_add(&fmt, "rc", "-1");
        lc_pmi_fmt_add(&fmt, "errmsg", "unsupported command");
    }
    mpiexec_pmi_send(job, r, &fmt);
}

/* LOCUS_PMI_STATS: the kind of request cmd (a PMI-1 or PMI-2 command). */
static int mpiexec_pmi_kind(const char *cmd)
{
    if (strcmp(cmd, "get") == 0 || strcmp(cmd, "kvs-get") == 0) return MPIEXEC_PMI_GET;
    if (strcmp(cmd, "lc_getranks") == 0) return MPIEXEC_PMI_GETRANKS;
    if (strcmp(cmd, "put") == 0 || strcmp(cmd, "kvs-put") == 0) return MPIEXEC_PMI_PUT;
    if (strcmp(cmd, "barrier_in") == 0 || strcmp(cmd, "kvs-fence") == 0) return MPIEXEC_PMI_FENCE;
    return MPIEXEC_PMI_OTHER;
}

void mpiexec_pmi_report(const mpiexec_job_t *job)
{
    const unsigned long *c = job->pmi_count;
    struct rusage ru;
    double cpu = -1;

    /* mpiexec's own CPU time (not its children's): what serving them cost. */
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
              (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    mpiexec_say("PMI requests answered: %lu (get %lu, lc_getranks %lu, put %lu, fence %lu, other %lu); "
                "mpiexec CPU %.2f s",
                c[0] + c[1] + c[2] + c[3] + c[4], c[MPIEXEC_PMI_GET], c[MPIEXEC_PMI_GETRANKS], c[MPIEXEC_PMI_PUT],
                c[MPIEXEC_PMI_FENCE], c[MPIEXEC_PMI_OTHER], cpu);
}

/* Take every complete message out of r->pmi_in.  Returns -1 after a
 * protocol error (connection closed). */
static int mpiexec_pmi_dispatch(mpiexec_job_t *job, mpiexec_rank_t *r)
{
    static lc_pmi_msg_t msg; /* 5 KiB; single-threaded, not reentrant */

    while (r->pmi_open && r->pmi_len > 0) {
        size_t used;

        if (r->pmi_version != 2) {
            char *nl = memchr(r->pmi_in, '\n', r->pmi_len);

            if (nl == NULL)
                break;
            used = (size_t)(nl - r->pmi_in) + 1;
            if (lc_pmi1_parse(r->pmi_in, used, &msg) != 0) {
                mpiexec_fate_protocol_error(job, r, "sent a malformed PMI-1 message");
                return -1;
            }
            job->pmi_count[mpiexec_pmi_kind(lc_pmi_msg_cmd(&msg))]++;
            /* Commands before init are answered in PMI-1, as a PMI-1 client
             * that skipped init (hydra tolerates it) expects. */
            if (strcmp(lc_pmi_msg_cmd(&msg), "init") == 0)
                mpiexec_pmi_handle_init(job, r, &msg);
            else
                mpiexec_pmi1_handle(job, r, &msg);
        } else {
            ssize_t body;

            if (r->pmi_len < LC_PMI2_PREFIX_LEN)
                break;
            body = lc_pmi2_prefix_decode(r->pmi_in);
            if (body < 0) {
                mpiexec_fate_protocol_error(job, r, "sent a malformed PMI-2 length prefix");
                return -1;
            }
            if (r->pmi_len < LC_PMI2_PREFIX_LEN + (size_t)body)
                break;
            used = LC_PMI2_PREFIX_LEN + (size_t)body;
            if (lc_pmi2_parse(r->pmi_in + LC_PMI2_PREFIX_LEN, (size_t)body, &msg) != 0) {
                mpiexec_fate_protocol_error(job, r, "sent a malformed PMI-2 message");
                return -1;
            }
            job->pmi_count[mpiexec_pmi_kind(lc_pmi_msg_cmd(&msg))]++;
            mpiexec_pmi2_handle(job, r, &msg);
        }
        snprintf(r->pmi_last, sizeof(r->pmi_last), "%s", lc_pmi_msg_cmd(&msg));
        /* Handlers may have closed the connection (and reset pmi_len). */
        if (!r->pmi_open)
            return -1;
        memmove(r->pmi_in, r->pmi_in + used, r->pmi_len - used);
        r->pmi_len -= used;
    }
    if (r->pmi_open && r->pmi_len >= sizeof(r->pmi_in) - 1) {
        mpiexec_fate_protocol_error(job, r, "sent a PMI message longer than allowed");
        return -1;
    }
    return 0;
}

/* Bytes of a remote rank, relayed by its proxy: answer what is complete. */
void mpiexec_pmi_feed(mpiexec_job_t *job, mpiexec_rank_t *r, const char *data, size_t len)
{
    while (r->pmi_open && len > 0) {
        size_t n = sizeof(r->pmi_in) - 1 - r->pmi_len;

        if (n > len)
            n = len;
        memcpy(r->pmi_in + r->pmi_len, data, n);
        r->pmi_len += n;
        data += n;
        len -= n;
        if (mpiexec_pmi_dispatch(job, r) != 0)
            return;
    }
}

/* Read what the socket holds (until EAGAIN or EOF) and answer it. */
void mpiexec_pmi_readable(mpiexec_job_t *job, mpiexec_rank_t *r)
{
    while (r->pmi_open && r->pmi_fd >= 0) {
        ssize_t n = read(r->pmi_fd, r->pmi_in + r->pmi_len, sizeof(r->pmi_in) - 1 - r->pmi_len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            /* EOF (or reset): the rank closed the connection or died.  Its
             * exit status, reaped separately, decides what it means. */
            mpiexec_pmi_close(job, r);
            return;
        }
        r->pmi_len += (size_t)n;
        if (mpiexec_pmi_dispatch(job, r) != 0)
            return;
    }
}
