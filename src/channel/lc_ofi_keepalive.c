/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_ofi_keepalive.c — a network peer whose host went silent (powered
 * off, cut off the network: no FIN, no RST) ends the job after
 * LOCUS_NET_TIMEOUT seconds instead of leaving its peers waiting forever
 * (issue 12, point 6).
 *
 * Who answers a keepalive?  Not the peer's MPI library: a rank that
 * computes for minutes without MPI calls does not progress, and must not
 * be taken for dead.  Its kernel does: TCP keepalive probes are answered
 * by the peer's TCP stack whatever its process does (even stopped).
 * libfabric 1.17's socket providers (tcp;ofi_rxm, net) neither set
 * SO_KEEPALIVE nor offer an option for it (only the old `sockets`
 * provider has FI_SOCKETS_KEEPALIVE_*), and do not report a connection
 * that stopped answering.  So, from the slow path of waits
 * (lc_liveness_look), this file
 *
 *   - finds the provider's connections among this process's descriptors:
 *     TCP sockets whose local address is our endpoint's (accepted) or
 *     whose remote address is a peer's endpoint (connected) — nothing
 *     else of the process (the application's own sockets, the PMI
 *     connection) is touched;
 *   - turns kernel keepalive on for them (idle and interval a third of the
 *     timeout, enough probes that the kernel gives up well after we look);
 *   - reads TCP_INFO: the time since anything (data or an ACK, which is
 *     what a keepalive reply is) came from the peer.  More than the
 *     timeout means nobody answered the probes: the peer's host is gone.
 *
 * Cost: nothing on the fast path; at most every max(0.5 s, timeout/4)
 * while a rank waits: one readdir of /proc/self/fd (new sockets) and one
 * getsockopt per watched connection.  Providers without sockets (verbs,
 * psm) have nothing to find; their peers are not watched here.
 */
#include "channel/lc_ofi_impl.h"
#include "util/lc_params.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct lc_ka_sock {
    int fd;
    ino_t ino;                 /* the socket's inode: a reused fd number is another socket */
    double armed;              /* when its keepalive was turned on (lc_time_now) */
    struct sockaddr_storage peer;
} lc_ka_sock_t;

static struct {
    int ready, off;            /* off: no socket address of ours to match (not a socket provider) */
    double next;               /* next look (lc_time_now) */
    struct sockaddr_storage me;
    lc_ka_sock_t *s;
    int n, cap;
} lc_ka;

static int lc_ka_port(const struct sockaddr_storage *a)
{
    if (a->ss_family == AF_INET) return ntohs(((const struct sockaddr_in *)a)->sin_port);
    if (a->ss_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)a)->sin6_port);
    return -1;
}

/* Same IP address (and port too when `port`). */
static bool lc_ka_same(const struct sockaddr_storage *a, const void *b_raw, size_t blen, bool port)
{
    const struct sockaddr *b = b_raw;
    if (blen < sizeof(struct sockaddr) || a->ss_family != b->sa_family) return false;
    if (a->ss_family == AF_INET && blen >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *x = (const struct sockaddr_in *)a, *y = b_raw;
        return x->sin_addr.s_addr == y->sin_addr.s_addr && (!port || x->sin_port == y->sin_port);
    }
    if (a->ss_family == AF_INET6 && blen >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)a, *y = b_raw;
        return !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) &&
               (!port || x->sin6_port == y->sin6_port);
    }
    return false;
}

static lc_ofi_peer_t *lc_ka_state(int i)
{
    return i < lc_ofi.size ? &lc_ofi.state[i] : NULL;
}

/* Whether the connection to `peer` is one of the provider's: to a peer's
 * endpoint, or from any address of a peer's host to our endpoint. */
static bool lc_ka_ours(const struct sockaddr_storage *local, const struct sockaddr_storage *peer)
{
    bool to_me = lc_ka_port(local) == lc_ka_port(&lc_ka.me) &&
                 lc_ka_same(local, &lc_ka.me, sizeof(lc_ka.me), true);
    for (int i = 0; i < lc_ofi.size; i++) {
        lc_ofi_peer_t *st = lc_ka_state(i);
        if (i == lc_ofi.rank || !st || !st->addrlen) continue;
        if (lc_ka_same(peer, st->addr, st->addrlen, !to_me)) return true;
    }
    return false;
}

static void lc_ka_arm(int fd)
{
    int one = 1, idle = (int)(lc_params.net_timeout / 3), cnt = 8;
    if (idle < 1) idle = 1;
    /* the kernel gives up after idle + cnt * idle > 3 timeouts: we look first */
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

/* New provider connections among our descriptors. */
static void lc_ka_scan(double now)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return;
    int dfd = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long v = strtol(e->d_name, &end, 10);
        if (*end || end == e->d_name || v == dfd) continue;
        int fd = (int)v;
        struct stat sb;
        if (fstat(fd, &sb) != 0 || !S_ISSOCK(sb.st_mode)) continue;
        bool known = false;
        for (int i = 0; i < lc_ka.n && !known; i++) known = lc_ka.s[i].fd == fd && lc_ka.s[i].ino == sb.st_ino;
        if (known) continue;
        int proto = 0, type = 0;
        socklen_t len = sizeof(proto);
        if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) != 0 || proto != IPPROTO_TCP) continue;
        len = sizeof(type);
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM) continue;
        struct sockaddr_storage local, peer;
        socklen_t ll = sizeof(local), pl = sizeof(peer);
        if (getsockname(fd, (struct sockaddr *)&local, &ll) != 0 || getpeername(fd, (struct sockaddr *)&peer, &pl) != 0)
            continue; /* a listener, or not connected yet */
        if (!lc_ka_ours(&local, &peer)) continue;
        if (lc_ka.n == lc_ka.cap) {
            int cap = lc_ka.cap ? 2 * lc_ka.cap : 16;
            lc_ka_sock_t *s = realloc(lc_ka.s, sizeof(*s) * (size_t)cap);
            if (!s) break;
            lc_ka.s = s;
            lc_ka.cap = cap;
        }
        lc_ka_arm(fd);
        lc_ka.s[lc_ka.n++] = (lc_ka_sock_t){ .fd = fd, .ino = sb.st_ino, .armed = now, .peer = peer };
    }
    closedir(d);
}

/* Who is behind a connection, for the message: the rank whose endpoint it
 * is, else every rank of the host it comes from. */
static void lc_ka_name(const struct sockaddr_storage *peer, char *out, size_t len)
{
    char ranks[96] = "", host[64] = "?";
    int n = 0, used = 0;
    for (int pass = 0; pass < 2 && n == 0; pass++) {
        for (int i = 0; i < lc_ofi.size; i++) {
            lc_ofi_peer_t *st = lc_ka_state(i);
            if (i == lc_ofi.rank || !st || !st->addrlen || !lc_ka_same(peer, st->addr, st->addrlen, pass == 0)) continue;
            if (n++ == 0) snprintf(host, sizeof(host), "%s", st->host);
            if (used < (int)sizeof(ranks) - 16)
                used += snprintf(ranks + used, sizeof(ranks) - (size_t)used, "%s%d", n > 1 ? ", " : "", i);
        }
    }
    char ip[INET6_ADDRSTRLEN] = "?";
    if (peer->ss_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)peer)->sin_addr, ip, sizeof(ip));
    else if (peer->ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)peer)->sin6_addr, ip, sizeof(ip));
    snprintf(out, len, "%s %s (host %s, %s)", n > 1 ? "ranks" : "rank", n ? ranks : "?", host, ip);
}

int lc_ofi_keepalive_check(double now, char *msg, size_t len)
{
    if (!lc_ofi_active || lc_ofi.closing || lc_ka.off || lc_params.net_timeout <= 0 || now < lc_ka.next) return 0;
    double period = (double)lc_params.net_timeout / 4;
    lc_ka.next = now + (period < 0.5 ? 0.5 : period);
    if (!lc_ka.ready) {
        char raw[256];
        size_t rawlen = sizeof(raw);
        if (fi_getname(&lc_ofi.ep->fid, raw, &rawlen) != 0 || rawlen > sizeof(lc_ka.me)) {
            lc_ka.off = 1; /* not an address we can match: not watched */
            return 0;
        }
        memcpy(&lc_ka.me, raw, rawlen);
        if (lc_ka_port(&lc_ka.me) < 0) {
            lc_ka.off = 1; /* not a socket provider */
            return 0;
        }
        lc_ka.ready = 1;
    }
    lc_ka_scan(now);
    for (int i = 0; i < lc_ka.n; i++) {
        struct tcp_info ti;
        socklen_t tl = sizeof(ti);
        struct stat sb;
        /* Gone, reused or no longer established: the provider closed it
         * (and reports what it saw); forget it. */
        if (fstat(lc_ka.s[i].fd, &sb) != 0 || sb.st_ino != lc_ka.s[i].ino ||
            getsockopt(lc_ka.s[i].fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) != 0 || ti.tcpi_state != TCP_ESTABLISHED) {
            lc_ka.s[i--] = lc_ka.s[--lc_ka.n];
            continue;
        }
        /* Seconds since the last segment that carried data, or
         * acknowledged ours (a keepalive probe's answer is such an ACK) —
         * but only since the probes began: a connection idle before this
         * rank first waited (it computed for minutes without MPI calls)
         * was never probed, and its silence says nothing yet. */
        uint32_t ms = ti.tcpi_last_data_recv < ti.tcpi_last_ack_recv ? ti.tcpi_last_data_recv : ti.tcpi_last_ack_recv;
        double quiet = (double)ms / 1000, probed = now - lc_ka.s[i].armed;
        if (quiet > probed) quiet = probed;
        if (quiet > (double)lc_params.net_timeout) {
            char who[192];
            lc_ka_name(&lc_ka.s[i].peer, who, sizeof(who));
            snprintf(msg, len,
                     "network peer %s went silent: nothing came from it for %.1f s although its kernel was "
                     "probed (TCP keepalive; LOCUS_NET_TIMEOUT=%ld): its host is down or cut off the network; "
                     "ending the job",
                     who, quiet, lc_params.net_timeout);
            return 1;
        }
    }
    return 0;
}

void lc_ofi_keepalive_reset(void)
{
    free(lc_ka.s);
    memset(&lc_ka, 0, sizeof(lc_ka));
}
