/* SPDX-License-Identifier: BSD-3-Clause */
/* mpiexec's listener for the proxies, and the connections that have not
 * proven who they are yet.
 *
 * Anyone who can reach the port can connect, so until a connection has
 * proven that it knows a host's launch key (the handshake of
 * mpiexec_auth.h) it gets little:
 *  - frames of at most MPIEXEC_PREAUTH_FRAME_MAX bytes: a larger
 *    announcement closes it, and nothing is reserved for it;
 *  - MPIEXEC_HELLO_MS to finish the handshake;
 *  - one of MPIEXEC_CONNS_MAX slots.  When they are full, a new connection
 *    takes the slot of the oldest connection of the address that holds the
 *    most slots (one still waiting for its HELLO before one that sent it):
 *    a flood from one address evicts its own connections, not a proxy's
 *    from another host.  A proxy evicted all the same connects again
 *    (mpiexec_proxy_connect.c).  At most MPIEXEC_ACCEPT_BURST connections
 *    are accepted per turn of the event loop, so the HELLO of a proxy is
 *    read before a burst of newcomers can push it out.
 * The listener is bound to the advertised address only
 * (mpiexec_remote_prepare) and closed, with every connection still
 * waiting, once no proxy is awaited any more. */
#include "mpiexec.h"
#include "mpiexec_auth.h"
#include "mpiexec_frame.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MPIEXEC_ACCEPT_BURST 8

static void mpiexec_listen_drop(mpiexec_job_t *job, int i)
{
    close(job->conns[i].fd);
    mpiexec_buf_free(&job->conns[i].in);
    job->conns[i] = job->conns[--job->nconns];
}

static int mpiexec_listen_same_peer(const mpiexec_conn_t *a, const mpiexec_conn_t *b)
{
    return a->peer_family == b->peer_family && memcmp(a->peer, b->peer, sizeof(a->peer)) == 0;
}

/* The connection to evict when the slots are full (see the top). */
static int mpiexec_listen_victim(const mpiexec_job_t *job)
{
    int best = 0, best_count = -1;

    for (int i = 0; i < job->nconns; i++) {
        const mpiexec_conn_t *c = &job->conns[i], *b = &job->conns[best];
        int count = 0;

        for (int k = 0; k < job->nconns; k++)
            count += mpiexec_listen_same_peer(c, &job->conns[k]);
        if (count > best_count ||
            (count == best_count && (c->state < b->state || (c->state == b->state && c->seq < b->seq)))) {
            best = i;
            best_count = count;
        }
    }
    return best;
}

static void mpiexec_listen_peer(mpiexec_conn_t *c, const struct sockaddr_storage *ss)
{
    c->peer_family = ss->ss_family;
    if (ss->ss_family == AF_INET)
        memcpy(c->peer, &((const struct sockaddr_in *)ss)->sin_addr, 4);
    else if (ss->ss_family == AF_INET6)
        memcpy(c->peer, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
}

static const char *mpiexec_listen_peer_text(const mpiexec_conn_t *c, char *buf, size_t len)
{
    if (inet_ntop(c->peer_family, c->peer, buf, (socklen_t)len) == NULL)
        snprintf(buf, len, "?");
    return buf;
}

void mpiexec_listen_accept(mpiexec_job_t *job)
{
    for (int k = 0; k < MPIEXEC_ACCEPT_BURST && job->listen_fd >= 0; k++) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd = accept4(job->listen_fd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
        mpiexec_conn_t *c;

        if (fd < 0)
            return; /* EAGAIN, or an aborted connection: nothing to do */
        if (job->nconns == MPIEXEC_CONNS_MAX)
            mpiexec_listen_drop(job, mpiexec_listen_victim(job));
        mpiexec_net_tune(fd);
        c = &job->conns[job->nconns++];
        memset(c, 0, sizeof(*c));
        c->fd = fd;
        c->state = MPIEXEC_CONN_HELLO;
        c->seq = job->conn_seq++;
        mpiexec_listen_peer(c, &ss);
        mpiexec_deadline(&c->deadline, MPIEXEC_HELLO_MS);
    }
}

/* HELLO: str magic, u32 index, blob nonce_p.  Answer with CHALLENGE:
 * our nonce and our proof.  0, or -1 to drop the connection. */
static int mpiexec_listen_hello(mpiexec_job_t *job, mpiexec_conn_t *c, int type, const char *p, size_t len)
{
    mpiexec_rd_t rd = {.p = p, .left = len};
    const char *magic = mpiexec_rd_str(&rd);
    uint32_t index = mpiexec_rd_u32(&rd);
    const uint8_t *nonce_p = mpiexec_rd_blob(&rd, MPIEXEC_NONCE_LEN);
    uint8_t proof[MPIEXEC_PROOF_LEN];
    mpiexec_buf_t b = {0}, q = {0};
    mpiexec_proxy_t *px;
    int rc = -1;

    if (type != MPX_HELLO || rd.bad || strcmp(magic, MPIEXEC_PROXY_MAGIC) != 0 || index >= (uint32_t)job->nhosts ||
        (px = job->hosts[index].proxy) == NULL || !mpiexec_remote_awaited(px))
        return -1; /* not one of ours, or not awaited (any more) */
    if (mpiexec_auth_random(c->nonce_m, sizeof(c->nonce_m)) != 0)
        return -1;
    memcpy(c->nonce_p, nonce_p, sizeof(c->nonce_p));
    c->index = index;
    mpiexec_auth_proof(px->key, MPIEXEC_AUTH_MPIEXEC, index, c->nonce_p, c->nonce_m, proof);
    if (mpiexec_frame_put_blob(&b, c->nonce_m, sizeof(c->nonce_m)) == 0 &&
        mpiexec_frame_put_blob(&b, proof, sizeof(proof)) == 0 &&
        mpiexec_frame_put(&q, MPX_CHALLENGE, -1, b.data, b.len) == 0) {
        /* Under 100 bytes into a fresh socket's empty buffer: it fits, or
         * the peer is not worth waiting for. */
        rc = mpiexec_buf_write(c->fd, &q) == 0 && mpiexec_buf_pending(&q) == 0 ? 0 : -1;
    }
    c->state = MPIEXEC_CONN_PROOF;
    mpiexec_buf_free(&b);
    mpiexec_buf_free(&q);
    return rc;
}

/* PROOF: blob proof_p, str hostname, u32 pid.  Right: the proxy is in and
 * the slot is freed (1).  Wrong: -1 to drop the connection. */
static int mpiexec_listen_proof(mpiexec_job_t *job, int i, int type, const char *p, size_t len)
{
    mpiexec_conn_t *c = &job->conns[i];
    mpiexec_rd_t rd = {.p = p, .left = len};
    const uint8_t *proof = mpiexec_rd_blob(&rd, MPIEXEC_PROOF_LEN);
    mpiexec_proxy_t *px = job->hosts[c->index].proxy;
    mpiexec_buf_t in;
    char peer[64];
    int fd;

    (void)mpiexec_rd_str(&rd);
    (void)mpiexec_rd_u32(&rd);
    if (type != MPX_PROOF || rd.bad || !mpiexec_remote_awaited(px))
        return -1;
    if (!mpiexec_auth_check(px->key, MPIEXEC_AUTH_PROXY, c->index, c->nonce_p, c->nonce_m, proof)) {
        /* Said once: an attacker must not be able to flood our stderr. */
        if (!job->said_refused)
            mpiexec_say("refused a connection from %s claiming to be the proxy of host %s: it does not "
                        "know that host's launch key (another user's program, or a stale proxy?)",
                        mpiexec_listen_peer_text(c, peer, sizeof(peer)), job->hosts[c->index].name);
        job->said_refused = 1;
        return -1;
    }
    fd = c->fd;
    in = c->in;
    job->conns[i] = job->conns[--job->nconns];
    mpiexec_remote_admit(job, px, fd, &in);
    return 1;
}

void mpiexec_listen_conn_readable(mpiexec_job_t *job, int i)
{
    mpiexec_conn_t *c = &job->conns[i];
    ssize_t n = mpiexec_frame_fill(c->fd, &c->in, MPIEXEC_PREAUTH_FRAME_MAX);
    const char *payload;
    size_t len;
    int type, rank, rc;

    if (n == -1)
        return;
    if (n == 0 || n == -2) {
        mpiexec_listen_drop(job, i);
        return;
    }
    while ((rc = mpiexec_frame_next(&c->in, MPIEXEC_PREAUTH_FRAME_MAX, &type, &rank, &payload, &len)) != 0) {
        if (rc < 0) {
            mpiexec_listen_drop(job, i); /* oversized: nothing was reserved for it */
            return;
        }
        if (c->state == MPIEXEC_CONN_HELLO) {
            if (mpiexec_listen_hello(job, c, type, payload, len) != 0) {
                mpiexec_listen_drop(job, i);
                return;
            }
            continue;
        }
        if (mpiexec_listen_proof(job, i, type, payload, len) < 0)
            mpiexec_listen_drop(job, i);
        return;
    }
}

long mpiexec_listen_timeout(const mpiexec_job_t *job)
{
    long t = -1;

    for (int i = 0; i < job->nconns; i++) {
        long ms = mpiexec_ms_until(&job->conns[i].deadline);

        if (t < 0 || ms < t)
            t = ms;
    }
    return t;
}

void mpiexec_listen_tick(mpiexec_job_t *job)
{
    for (int i = job->nconns - 1; i >= 0; i--)
        if (mpiexec_ms_until(&job->conns[i].deadline) == 0)
            mpiexec_listen_drop(job, i);
}

void mpiexec_listen_close(mpiexec_job_t *job)
{
    while (job->nconns > 0)
        mpiexec_listen_drop(job, job->nconns - 1);
    if (job->listen_fd >= 0)
        close(job->listen_fd);
    job->listen_fd = -1;
}

void mpiexec_listen_update(mpiexec_job_t *job)
{
    if (job->listen_fd < 0)
        return;
    for (int i = 0; i < job->nproxies; i++)
        if (mpiexec_remote_awaited(&job->proxies[i]))
            return;
    mpiexec_listen_close(job);
}
