/* SPDX-License-Identifier: BSD-3-Clause */
/* PMI-1 client (see lc_pmi.h).  One blocking request/response exchange
 * per call over the launcher's socket; the reply is read through a small
 * line buffer because a server may send several lines at once (the
 * PMI_PORT handshake does). */
#include "pmi/lc_pmi_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

typedef struct lc_pmi_kv {
    char key[LC_PMI_KEY_MAX];
    char value[LC_PMI_VALUE_MAX];
} lc_pmi_kv_t;

static struct {
    int           initialized;
    int           singleton;
    int           fd;
    int           rank;
    int           size;
    char          kvsname[LC_PMI_KVSNAME_MAX];
    size_t        srv_keylen_max; /* the server's limits (cmd=maxes) */
    size_t        srv_vallen_max;
    size_t        bulk_max;       /* Locus's mpiexec: longest lc_getranks reply; 0 elsewhere */
    char          rbuf[LC_PMI_WIRE_MAX + 2]; /* bytes received, not yet consumed */
    size_t        rlen;
    lc_pmi_kv_t  *local;                     /* singleton key/value table */
    size_t        nlocal, caplocal;
} lc_pmi = {.fd = -1};

/* One line on stderr in a single write, so that it does not mix with
 * other ranks' output under a launcher that forwards bytes as they come. */
__attribute__((format(printf, 1, 2)))
static void lc_pmi_error(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    int saved = errno, n;

    n = snprintf(line, sizeof(line), "locus: PMI: ");
    errno = saved; /* for %m */
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    (void)!write(2, line, (size_t)n);
    errno = saved;
}

static int lc_pmi_write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        /* MSG_NOSIGNAL: a launcher that died must give EPIPE, not kill us
         * with SIGPIPE.  PMI_FD could in theory be a pipe: fall back. */
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK)
            n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            lc_pmi_error("cannot write to the launcher (fd %d): %m", fd);
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Some bytes from the launcher (EINTR retried): how many, or -1 after
 * saying why (a read error, or the launcher gone). */
static ssize_t lc_pmi_read_some(char *buf, size_t cap)
{
    for (;;) {
        ssize_t n = read(lc_pmi.fd, buf, cap);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            lc_pmi_error("cannot read from the launcher (fd %d): %m", lc_pmi.fd);
        else if (n == 0)
            lc_pmi_error("the launcher closed the PMI connection (did mpiexec die?)");
        return n > 0 ? n : -1;
    }
}

/* Read one '\n'-terminated line into msg_p (parsed as PMI-1). */
static int lc_pmi_read_msg(lc_pmi_msg_t *msg_p)
{
    for (;;) {
        char *nl = memchr(lc_pmi.rbuf, '\n', lc_pmi.rlen);
        ssize_t n;

        if (nl != NULL) {
            size_t linelen = (size_t)(nl - lc_pmi.rbuf) + 1;
            int rc = lc_pmi1_parse(lc_pmi.rbuf, linelen, msg_p);

            if (rc != 0)
                lc_pmi_error("malformed reply from the launcher: %.*s",
                             (int)(linelen - 1), lc_pmi.rbuf);
            memmove(lc_pmi.rbuf, nl + 1, lc_pmi.rlen - linelen);
            lc_pmi.rlen -= linelen;
            return rc;
        }
        if (lc_pmi.rlen >= sizeof(lc_pmi.rbuf)) {
            lc_pmi_error("reply from the launcher longer than %d bytes", LC_PMI_WIRE_MAX);
            return -1;
        }
        if ((n = lc_pmi_read_some(lc_pmi.rbuf + lc_pmi.rlen, sizeof(lc_pmi.rbuf) - lc_pmi.rlen)) < 0)
            return -1;
        lc_pmi.rlen += (size_t)n;
    }
}

/* Keeps each request and its reply together: after MPI_Init, the name
 * service, spawn and gets may come from several threads at once. */
static pthread_mutex_t lc_pmi_wire_lock = PTHREAD_MUTEX_INITIALIZER;

static int lc_pmi_check_reply(const char *expect, lc_pmi_msg_t *reply_p, long *rc_p);

/* Send the message built in fmt, read the reply, check that its command
 * is `expect` and, if it carries rc, that rc is 0.  When rc_p is not NULL
 * a non-zero rc is returned there instead of being an error. */
int lc_pmi_call(lc_pmi_fmt_t *fmt, const char *expect, lc_pmi_msg_t *reply_p, long *rc_p)
{
    ssize_t len = lc_pmi_fmt_finish(fmt);

    if (len < 0) {
        lc_pmi_error("request does not fit the PMI-1 wire format");
        return -1;
    }
    return lc_pmi_call_lines(fmt->buf, (size_t)len, expect, reply_p, rc_p);
}

int lc_pmi_call_lines(const char *lines, size_t len, const char *expect, lc_pmi_msg_t *reply_p, long *rc_p)
{
    int rc;

    pthread_mutex_lock(&lc_pmi_wire_lock);
    rc = lc_pmi_write_all(lc_pmi.fd, lines, len) != 0 || lc_pmi_read_msg(reply_p) != 0 ? -1 : 0;
    pthread_mutex_unlock(&lc_pmi_wire_lock);
    return rc != 0 ? -1 : lc_pmi_check_reply(expect, reply_p, rc_p);
}

size_t lc_pmi_bulk_max(void)
{
    return lc_pmi.initialized && !lc_pmi.singleton ? lc_pmi.bulk_max : 0;
}

/* One reply line of up to cap bytes ('\n' included) into line[cap]: the
 * bytes already buffered first, then straight from the socket.  Returns
 * its length without the '\n' (replaced by a NUL), or -1. */
static ssize_t lc_pmi_read_long(char *line, size_t cap)
{
    size_t len = 0;

    for (;;) {
        char *nl = memchr(line, '\n', len);
        ssize_t n;

        if (nl != NULL) {
            size_t used = (size_t)(nl - line) + 1;

            /* Bytes after the line (none from a well-behaved server) go
             * back to the buffer the short replies are read from. */
            if (len - used > sizeof(lc_pmi.rbuf) - lc_pmi.rlen) {
                lc_pmi_error("the launcher sent more than one reply");
                return -1;
            }
            memmove(lc_pmi.rbuf + (len - used), lc_pmi.rbuf, lc_pmi.rlen);
            memcpy(lc_pmi.rbuf, nl + 1, len - used);
            lc_pmi.rlen += len - used;
            *nl = '\0';
            return (ssize_t)(used - 1);
        }
        if (lc_pmi.rlen > 0) {
            n = (ssize_t)(lc_pmi.rlen < cap - len ? lc_pmi.rlen : cap - len);
            memcpy(line + len, lc_pmi.rbuf, (size_t)n);
            memmove(lc_pmi.rbuf, lc_pmi.rbuf + n, lc_pmi.rlen - (size_t)n);
            lc_pmi.rlen -= (size_t)n;
            len += (size_t)n;
            if (lc_pmi.rlen > 0 && len == cap) {
                lc_pmi_error("reply from the launcher longer than %zu bytes", cap);
                return -1;
            }
            continue;
        }
        if (len == cap) {
            lc_pmi_error("reply from the launcher longer than %zu bytes", cap);
            return -1;
        }
        if ((n = lc_pmi_read_some(line + len, cap - len)) < 0)
            return -1;
        len += (size_t)n;
    }
}

ssize_t lc_pmi_call_long(const char *req, size_t len, char *line, size_t cap)
{
    ssize_t n;

    pthread_mutex_lock(&lc_pmi_wire_lock);
    n = lc_pmi_write_all(lc_pmi.fd, req, len) != 0 ? -1 : lc_pmi_read_long(line, cap);
    pthread_mutex_unlock(&lc_pmi_wire_lock);
    return n;
}

static int lc_pmi_check_reply(const char *expect, lc_pmi_msg_t *reply_p, long *rc_p)
{
    long rc = 0;

    if (strcmp(lc_pmi_msg_cmd(reply_p), expect) != 0) {
        lc_pmi_error("expected cmd=%s from the launcher, got cmd=%s", expect,
                     lc_pmi_msg_cmd(reply_p));
        return -1;
    }
    if (lc_pmi_msg_get(reply_p, "rc") != NULL && lc_pmi_msg_get_int(reply_p, "rc", &rc) != 0)
        rc = -1;
    if (rc_p != NULL) {
        *rc_p = rc;
    } else if (rc != 0) {
        const char *why = lc_pmi_msg_get(reply_p, "msg");
        lc_pmi_error("launcher refused %s (rc=%ld): %s", expect, rc, why ? why : "no reason given");
        return -1;
    }
    return 0;
}

int lc_pmi_is_initialized(void)
{
    return lc_pmi.initialized;
}

int lc_pmi_is_singleton(void)
{
    return lc_pmi.singleton;
}

static int lc_pmi_env_int(const char *name, int dflt, int *value_p)
{
    const char *s = getenv(name);
    char *end;
    long v;

    if (s == NULL) {
        *value_p = dflt;
        return 0;
    }
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || end == s || v < -1 || v > 1 << 30) {
        lc_pmi_error("environment variable %s=%s is not a valid number", name, s);
        return -1;
    }
    *value_p = (int)v;
    return 0;
}

int lc_pmi_env_size(void)
{
    int size = 0;
    return lc_pmi_env_int("PMI_SIZE", 0, &size) == 0 && size > 0 ? size : 0;
}

/* PMI_PORT=host:port: connect, then `cmd=initack pmiid=N`; the server
 * answers `cmd=initack` and `cmd=set` lines with size, rank and debug. */
static int lc_pmi_connect_port(const char *hostport)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL, *ai;
    lc_pmi_fmt_t fmt;
    lc_pmi_msg_t msg;
    char buf[128];
    int pmiid, fd = -1, one = 1, rc;

    if (colon == NULL || colon == hostport || (size_t)(colon - hostport) >= sizeof(host)) {
        lc_pmi_error("PMI_PORT=%s is not host:port", hostport);
        return -1;
    }
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    rc = getaddrinfo(host, colon + 1, &hints, &res);
    if (rc != 0) {
        lc_pmi_error("cannot resolve PMI_PORT=%s: %s", hostport, gai_strerror(rc));
        return -1;
    }
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        lc_pmi_error("cannot connect to the launcher at PMI_PORT=%s: %m", hostport);
        return -1;
    }
    /* Requests are tiny and synchronous: do not let Nagle delay them. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    lc_pmi.fd = fd;

    if (lc_pmi_env_int("PMI_ID", lc_pmi.rank, &pmiid) != 0)
        goto err;
    lc_pmi_fmt_init(&fmt, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&fmt, "cmd", "initack");
    lc_pmi_fmt_add_int(&fmt, "pmiid", pmiid);
    if (lc_pmi_call(&fmt, "initack", &msg, NULL) != 0)
        goto err;
    /* Three `cmd=set` lines follow: size, rank, debug (in that order in
     * hydra; we take whichever attribute each line carries). */
    for (int i = 0; i < 3; i++) {
        long v;

        if (lc_pmi_read_msg(&msg) != 0)
            goto err;
        if (strcmp(lc_pmi_msg_cmd(&msg), "set") != 0) {
            lc_pmi_error("expected cmd=set after initack, got cmd=%s", lc_pmi_msg_cmd(&msg));
            goto err;
        }
        if (lc_pmi_msg_get_int(&msg, "size", &v) == 0)
            lc_pmi.size = (int)v;
        if (lc_pmi_msg_get_int(&msg, "rank", &v) == 0)
            lc_pmi.rank = (int)v;
    }
    return 0;

err:
    close(fd);
    lc_pmi.fd = -1;
    return -1;
}

static int lc_pmi_init_singleton(lc_pmi_info_t *info_p)
{
    lc_pmi.singleton = 1;
    lc_pmi.rank = 0;
    lc_pmi.size = 1;
    snprintf(lc_pmi.kvsname, sizeof(lc_pmi.kvsname), "single%ld", (long)getpid());
    info_p->rank = 0;
    info_p->size = 1;
    info_p->appnum = 0;
    info_p->singleton = 1;
    snprintf(info_p->kvsname, sizeof(info_p->kvsname), "%s", lc_pmi.kvsname);
    lc_pmi.initialized = 1;
    return 0;
}

int lc_pmi_init(lc_pmi_info_t *info_p)
{
    const char *fd_s = getenv("PMI_FD"), *port_s = getenv("PMI_PORT");
    lc_pmi_fmt_t fmt;
    lc_pmi_msg_t msg;
    char buf[128];
    const char *s;
    long v;
    int appnum = -1;

    if (lc_pmi.initialized) {
        lc_pmi_error("lc_pmi_init called twice");
        return -1;
    }
    if ((fd_s == NULL || fd_s[0] == '\0') && (port_s == NULL || port_s[0] == '\0'))
        return lc_pmi_init_singleton(info_p);

    lc_pmi.rlen = 0;
    if (fd_s != NULL && fd_s[0] != '\0') {
        int fd;

        if (lc_pmi_env_int("PMI_FD", -1, &fd) != 0 || fd < 0 ||
            lc_pmi_env_int("PMI_RANK", 0, &lc_pmi.rank) != 0 ||
            lc_pmi_env_int("PMI_SIZE", 1, &lc_pmi.size) != 0)
            return -1;
        if (fcntl(fd, F_GETFD) < 0) {
            lc_pmi_error("PMI_FD=%d is not an open file descriptor: %m", fd);
            return -1;
        }
        lc_pmi.fd = fd;
    } else {
        lc_pmi.rank = 0;
        lc_pmi.size = 1;
        if (lc_pmi_connect_port(port_s) != 0)
            return -1;
    }
    if (lc_pmi.size < 1 || lc_pmi.rank < 0 || lc_pmi.rank >= lc_pmi.size) {
        lc_pmi_error("inconsistent rank %d / size %d from the launcher", lc_pmi.rank, lc_pmi.size);
        goto err;
    }
    /* Programs this rank execs (system(), popen()) must not inherit the
     * connection: the launcher would see their traffic as ours. */
    fcntl(lc_pmi.fd, F_SETFD, FD_CLOEXEC);

    lc_pmi_fmt_init(&fmt, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&fmt, "cmd", "init");
    lc_pmi_fmt_add(&fmt, "pmi_version", "1");
    lc_pmi_fmt_add(&fmt, "pmi_subversion", "1");
    if (lc_pmi_call(&fmt, "response_to_init", &msg, NULL) != 0)
        goto err;

    lc_pmi_fmt_init(&fmt, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&fmt, "cmd", "get_maxes");
    if (lc_pmi_call(&fmt, "maxes", &msg, NULL) != 0)
        goto err;
    lc_pmi.srv_keylen_max = LC_PMI_KEY_MAX;
    lc_pmi.srv_vallen_max = LC_PMI_VALUE_MAX;
    if (lc_pmi_msg_get_int(&msg, "keylen_max", &v) == 0 && v > 0 && (size_t)v < lc_pmi.srv_keylen_max)
        lc_pmi.srv_keylen_max = (size_t)v;
    if (lc_pmi_msg_get_int(&msg, "vallen_max", &v) == 0 && v > 0 && (size_t)v < lc_pmi.srv_vallen_max)
        lc_pmi.srv_vallen_max = (size_t)v;

    /* Only Locus's mpiexec says lc_bulk_max: hydra would end the job on
     * a command it does not know, so nothing else is ever asked it. */
    lc_pmi.bulk_max = 0;
    if (lc_pmi_msg_get_int(&msg, "lc_bulk_max", &v) == 0 && v >= LC_PMI_BULK_MIN)
        lc_pmi.bulk_max = (size_t)v < LC_PMI_BULK_MAX ? (size_t)v : LC_PMI_BULK_MAX;

    lc_pmi_fmt_init(&fmt, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&fmt, "cmd", "get_appnum");
    if (lc_pmi_call(&fmt, "appnum", &msg, NULL) != 0)
        goto err;
    if (lc_pmi_msg_get_int(&msg, "appnum", &v) == 0)
        appnum = (int)v;

    lc_pmi_fmt_init(&fmt, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&fmt, "cmd", "get_my_kvsname");
    if (lc_pmi_call(&fmt, "my_kvsname", &msg, NULL) != 0)
        goto err;
    s = lc_pmi_msg_get(&msg, "kvsname");
    if (s == NULL || s[0] == '\0' || strlen(s) >= sizeof(lc_pmi.kvsname)) {
        lc_pmi_error("the launcher sent no usable kvsname");
        goto err;
    }
    snprintf(lc_pmi.kvsname, sizeof(lc_pmi.kvsname), "%s", s);

    info_p->rank = lc_pmi.rank;
    info_p->size = lc_pmi.size;
    info_p->appnum = appnum;
    info_p->singleton = 0;
    snprintf(info_p->kvsname, sizeof(info_p->kvsname), "%s", lc_pmi.kvsname);
    lc_pmi.initialized = 1;
    return 0;

err:
    close(lc_pmi.fd);
    lc_pmi.fd = -1;
    return -1;
}

static int lc_pmi_check_kv(const char *key, const char *value)
{
    if (!lc_pmi.initialized) {
        lc_pmi_error("called before lc_pmi_init");
        return -1;
    }
    if (!lc_pmi_key_is_valid(key) || (!lc_pmi.singleton && strlen(key) >= lc_pmi.srv_keylen_max)) {
        lc_pmi_error("invalid key '%s' (1..%zu characters, no space, '=', ';' or newline)", key,
                     (lc_pmi.singleton ? (size_t)LC_PMI_KEY_MAX : lc_pmi.srv_keylen_max) - 1);
        return -1;
    }
    if (value != NULL &&
        (!lc_pmi1_value_is_valid(value) || (!lc_pmi.singleton && strlen(value) >= lc_pmi.srv_vallen_max))) {
        lc_pmi_error("invalid value for key '%s' (%zu characters; at most %zu, no space or newline)",
                     key, strlen(value),
                     (lc_pmi.singleton ? (size_t)LC_PMI_VALUE_MAX : lc_pmi.srv_vallen_max) - 1);
        return -1;
    }
    return 0;
}

static lc_pmi_kv_t *lc_pmi_local_find(const char *key)
{
    for (size_t i = 0; i < lc_pmi.nlocal; i++)
        if (strcmp(lc_pmi.local[i].key, key) == 0)
            return &lc_pmi.local[i];
    return NULL;
}

int lc_pmi_put(const char *key, const char *value)
{
    lc_pmi_fmt_t fmt;
    lc_pmi_msg_t msg;
    char buf[LC_PMI_WIRE_MAX + 2];

    if (lc_pmi_check_kv(key, value) != 0)
        return -1;
    if (lc_pmi.singleton) {
        lc_pmi_kv_t *kv = lc_pmi_local_find(key);

        if (kv == NULL) {
            if (lc_pmi.nlocal == lc_pmi.caplocal) {
                size_t cap = lc_pmi.caplocal ? 2 * lc_pmi.caplocal : 8;
                lc_pmi_kv_t *p = realloc(lc_pmi.local, cap * sizeof(*p));

                if (p == NULL) {
                    lc_pmi_error("out of memory for the singleton key table");
                    return -1;
                }
                lc_pmi.local = p;
                lc_pmi.caplocal = cap;
            }
            kv = &lc_pmi.local[lc_pmi.nlocal++];
            snprintf(kv->key, sizeof(kv->key), "%s", key);
        }
        snprintf(kv->value, sizeof(kv->value), "%s", value);
        return 0;
    }
    lc_pmi_fmt_init(&fmt, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&fmt, "cmd", "put");
    lc_pmi_fmt_add(&fmt, "kvsname", lc_pmi.kvsname);
    lc_pmi_fmt_add(&fmt, "key", key);
    lc_pmi_fmt_add(&fmt, "value", value);
    return lc_pmi_call(&fmt, "put_result", &msg, NULL);
}

int lc_pmi_fence(void)
{
    lc_pmi_fmt_t fmt;
    lc_pmi_msg_t msg;
    char buf[64];

    if (!lc_pmi.initialized) {
        lc_pmi_error("called before lc_pmi_init");
        return -1;
    }
    if (lc_pmi.singleton)
        return 0;
    /* PMI-1 puts go to the server at once; the barrier is the commit. */
    lc_pmi_fmt_init(&fmt, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&fmt, "cmd", "barrier_in");
    return lc_pmi_call(&fmt, "barrier_out", &msg, NULL);
}

int lc_pmi_get(int src_rank, const char *key, char *value, size_t len)
{
    (void)src_rank; /* PMI-1 has one flat key space per job */
    return lc_pmi_get_from(NULL, key, value, len);
}

int lc_pmi_get_from(const char *kvsname, const char *key, char *value, size_t len)
{
    lc_pmi_fmt_t fmt;
    lc_pmi_msg_t msg;
    char buf[LC_PMI_WIRE_MAX + 2];
    const char *v;
    long rc;

    if (lc_pmi_check_kv(key, NULL) != 0)
        return -1;
    if (kvsname != NULL && strcmp(kvsname, lc_pmi.kvsname) != 0 && lc_pmi.singleton)
        return LC_PMI_NO_KEY; /* a singleton knows no other job */
    if (kvsname == NULL)
        kvsname = lc_pmi.kvsname;
    if (lc_pmi.singleton) {
        lc_pmi_kv_t *kv = lc_pmi_local_find(key);

        if (kv == NULL)
            return LC_PMI_NO_KEY;
        v = kv->value;
    } else {
        lc_pmi_fmt_init(&fmt, 1, buf, sizeof(buf));
        lc_pmi_fmt_add(&fmt, "cmd", "get");
        lc_pmi_fmt_add(&fmt, "kvsname", kvsname);
        lc_pmi_fmt_add(&fmt, "key", key);
        if (lc_pmi_call(&fmt, "get_result", &msg, &rc) != 0)
            return -1;
        if (rc != 0)
            return LC_PMI_NO_KEY; /* the caller decides whether that is fatal */
        v = lc_pmi_msg_get(&msg, "value");
        if (v == NULL) {
            lc_pmi_error("get_result for key '%s' carries no value", key);
            return -1;
        }
    }
    if (strlen(v) >= len) {
        lc_pmi_error("value of key '%s' (%zu characters) does not fit a %zu-byte buffer", key,
                     strlen(v), len);
        return -1;
    }
    memcpy(value, v, strlen(v) + 1);
    return 0;
}

int lc_pmi_abort(int exit_code, const char *msg)
{
    lc_pmi_fmt_t fmt;
    char buf[LC_PMI_WIRE_MAX + 2], text[1024];
    ssize_t len;

    if (!lc_pmi.initialized || lc_pmi.singleton || lc_pmi.fd < 0)
        return 0; /* nobody to tell: the caller's exit code says it */
    /* The message is free text to the end of the line: only newlines
     * would break the framing. */
    snprintf(text, sizeof(text), "%s", msg != NULL ? msg : "");
    for (char *p = text; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    lc_pmi_fmt_init(&fmt, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&fmt, "cmd", "abort");
    lc_pmi_fmt_add_int(&fmt, "exitcode", exit_code);
    if (text[0] != '\0')
        lc_pmi_fmt_add(&fmt, "message", text);
    len = lc_pmi_fmt_finish(&fmt);
    /* No reply comes: the launcher ends the job.  The message is in the
     * socket before our exit, so the launcher reads it before it sees the
     * exit status. */
    if (len < 0 || lc_pmi_write_all(lc_pmi.fd, buf, (size_t)len) != 0)
        return -1;
    return 0;
}

int lc_pmi_connection_lost(void)
{
    if (!lc_pmi.initialized || lc_pmi.singleton || lc_pmi.fd < 0) return 0;
    struct pollfd p = {.fd = lc_pmi.fd, .events = POLLIN | POLLRDHUP};
    if (poll(&p, 1, 0) <= 0) return 0;
    if (p.revents & (POLLHUP | POLLRDHUP | POLLERR)) return 1;
    if (!(p.revents & POLLIN)) return 0;
    /* Readable between requests: end of file, or (a server that talks
     * first) data, which stays in the socket for the next reply. */
    char c;
    ssize_t n = recv(lc_pmi.fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && errno == ENOTSOCK) return 0; /* a pipe: no peeking; the next call will tell */
    return n == 0;
}

int lc_pmi_finalize(void)
{
    lc_pmi_fmt_t fmt;
    lc_pmi_msg_t msg;
    char buf[64];
    int rc = 0;

    if (!lc_pmi.initialized)
        return 0;
    if (!lc_pmi.singleton) {
        lc_pmi_fmt_init(&fmt, 1, buf, sizeof(buf));
        lc_pmi_fmt_add(&fmt, "cmd", "finalize");
        rc = lc_pmi_call(&fmt, "finalize_ack", &msg, NULL);
        close(lc_pmi.fd);
        lc_pmi.fd = -1;
    }
    lc_pmi_names_fini();
    free(lc_pmi.local);
    lc_pmi.local = NULL;
    lc_pmi.nlocal = lc_pmi.caplocal = 0;
    lc_pmi.initialized = 0;
    lc_pmi.singleton = 0;
    return rc;
}
