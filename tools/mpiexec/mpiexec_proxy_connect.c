/* SPDX-License-Identifier: BSD-3-Clause */
/* The proxy's way in: read the launch key from stdin, connect to mpiexec,
 * and run the handshake of mpiexec_auth.h from the proxy's side.
 *
 * The proxy obeys nothing before the peer proved it knows the key: the
 * first frame must be a CHALLENGE of at most MPIEXEC_PREAUTH_FRAME_MAX
 * bytes with the right proof, else the proxy says so and exits -- someone
 * else listens at that address, or an impostor answered.
 *
 * A connection that mpiexec accepts and then closes before its CHALLENGE
 * (its slots were full of unidentified connections and ours was evicted:
 * mpiexec_listen.c) is tried again, with a growing pause, until
 * MPIEXEC_PROXY_CONNECT_MS have passed.  A refused or unreachable address
 * is not: mpiexec is gone or was never there. */
#include "mpiexec.h"
#include "mpiexec_auth.h"
#include "mpiexec_frame.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MPIEXEC_PROXY_CONNECT_MS 20000
#define MPIEXEC_PROXY_KEY_MS     10000 /* the key arrives with the agent's start */

/* Read exactly n bytes before the deadline.  0, or -1 (errno: ETIMEDOUT,
 * or ECONNRESET for EOF). */
static int mpiexec_proxy_read_exact(int fd, void *buf, size_t n, const struct timespec *until)
{
    size_t got = 0;

    while (got < n) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        ssize_t r;

        if (poll(&p, 1, (int)mpiexec_ms_until(until)) == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = ECONNRESET;
            return -1;
        }
        got += (size_t)r;
    }
    return 0;
}

/* One frame of at most MPIEXEC_PREAUTH_FRAME_MAX bytes into buf (which has
 * room for it).  0; -1 lost (errno); -2 oversized. */
static int mpiexec_proxy_read_small(int fd, int *type_p, char *buf, size_t *len_p, const struct timespec *until)
{
    unsigned char hdr[MPIEXEC_FRAME_HDR];
    uint32_t len;

    if (mpiexec_proxy_read_exact(fd, hdr, sizeof(hdr), until) != 0)
        return -1;
    *type_p = (int)((uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3]);
    len = (uint32_t)hdr[8] << 24 | (uint32_t)hdr[9] << 16 | (uint32_t)hdr[10] << 8 | hdr[11];
    if (len > MPIEXEC_PREAUTH_FRAME_MAX)
        return -2;
    *len_p = len;
    return mpiexec_proxy_read_exact(fd, buf, len, until);
}

static int mpiexec_proxy_send_frame(int fd, int type, const mpiexec_buf_t *payload)
{
    mpiexec_buf_t q = {0};
    int rc = -1;

    /* The socket is non-blocking, but a few hundred bytes into an empty
     * buffer of a fresh connection always fit. */
    if (mpiexec_frame_put(&q, type, -1, payload->data, payload->len) == 0)
        rc = mpiexec_buf_write(fd, &q) == 0 && mpiexec_buf_pending(&q) == 0 ? 0 : -1;
    mpiexec_buf_free(&q);
    return rc;
}

/* One attempt on a connected fd.  0 in; 1 closed before the challenge (try
 * again); -1 give up (message said). */
static int mpiexec_proxy_handshake(int fd, const uint8_t *key, uint32_t index, const char *addr,
                                   const char *port, const char *host, const struct timespec *until)
{
    uint8_t nonce_p[MPIEXEC_NONCE_LEN], proof[MPIEXEC_PROOF_LEN];
    char buf[MPIEXEC_PREAUTH_FRAME_MAX];
    mpiexec_buf_t b = {0};
    const uint8_t *nonce_m, *proof_m;
    mpiexec_rd_t rd;
    size_t len;
    int type, rc;

    if (mpiexec_auth_random(nonce_p, sizeof(nonce_p)) != 0)
        return -1;
    if (mpiexec_frame_put_str(&b, MPIEXEC_PROXY_MAGIC) != 0 || mpiexec_frame_put_u32(&b, index) != 0 ||
        mpiexec_frame_put_blob(&b, nonce_p, sizeof(nonce_p)) != 0 || mpiexec_proxy_send_frame(fd, MPX_HELLO, &b) != 0) {
        mpiexec_buf_free(&b);
        return 1;
    }
    mpiexec_buf_free(&b);
    rc = mpiexec_proxy_read_small(fd, &type, buf, &len, until);
    if (rc == -1 && errno == ETIMEDOUT) {
        mpiexec_say("mpiexec at %s port %s did not answer the proxy's hello; giving up", addr, port);
        return -1;
    }
    if (rc == -1)
        return 1;
    rd = (mpiexec_rd_t){.p = buf, .left = rc == 0 ? len : 0, .bad = rc != 0};
    nonce_m = mpiexec_rd_blob(&rd, MPIEXEC_NONCE_LEN);
    proof_m = mpiexec_rd_blob(&rd, MPIEXEC_PROOF_LEN);
    if (type != MPX_CHALLENGE || rd.bad ||
        !mpiexec_auth_check(key, MPIEXEC_AUTH_MPIEXEC, index, nonce_p, nonce_m, proof_m)) {
        mpiexec_say("the process at %s port %s did not prove it is the mpiexec that started this proxy "
                    "(it does not know the launch key); not obeying it", addr, port);
        return -1;
    }
    mpiexec_auth_proof(key, MPIEXEC_AUTH_PROXY, index, nonce_p, nonce_m, proof);
    if (mpiexec_frame_put_blob(&b, proof, sizeof(proof)) != 0 || mpiexec_frame_put_str(&b, host) != 0 ||
        mpiexec_frame_put_u32(&b, (uint32_t)getpid()) != 0 || mpiexec_proxy_send_frame(fd, MPX_PROOF, &b) != 0)
        rc = 1;
    else
        rc = 0;
    mpiexec_buf_free(&b);
    return rc;
}

int mpiexec_proxy_connect(const char *addr, const char *port, uint32_t index, const char *host)
{
    uint8_t key[MPIEXEC_KEY_LEN];
    struct timespec until;
    long pause_ms = 50;
    int fd = -1, null;

    if (mpiexec_auth_read_key(0, MPIEXEC_PROXY_KEY_MS, key) != 0)
        return -1;
    /* stdin has served its purpose; the ranks get their own. */
    null = open("/dev/null", O_RDONLY);
    if (null >= 0 && null != 0) {
        dup2(null, 0);
        close(null);
    }
    mpiexec_deadline(&until, MPIEXEC_PROXY_CONNECT_MS);
    for (;;) {
        int rc;

        fd = mpiexec_net_connect(addr, port, (int)mpiexec_ms_until(&until));
        if (fd < 0)
            break;
        rc = mpiexec_proxy_handshake(fd, key, index, addr, port, host, &until);
        if (rc == 0)
            break;
        close(fd);
        fd = -1;
        if (rc < 0)
            break;
        if (mpiexec_ms_until(&until) <= pause_ms) {
            mpiexec_say("mpiexec at %s port %s kept closing the connection before the handshake; giving up",
                        addr, port);
            break;
        }
        usleep((useconds_t)pause_ms * 1000);
        pause_ms = pause_ms * 2 > 1000 ? 1000 : pause_ms * 2;
    }
    mpiexec_auth_wipe(key, sizeof(key));
    return fd;
}
