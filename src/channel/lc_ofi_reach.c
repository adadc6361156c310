/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_ofi_reach.c — telling an unreachable peer from a busy one.
 *
 * libfabric 1.17's TCP providers (tcp;ofi_rxm, net) do not report a
 * failed connection to the application: they log "Connection refused" and
 * the send keeps returning FI_EAGAIN.  A peer that is merely busy (computing, not calling MPI, so
 * its provider does not progress the connection handshake) looks the
 * same from here.  So when the first packet to a peer has waited
 * LOCUS_OFI_CONNECT_TIMEOUT seconds, we connect to its address ourselves:
 * the kernel completes a TCP handshake with a listening socket even while
 * its process is busy, so a refused, unroutable or silent address means
 * the peer cannot be reached — the job ends naming rank, host and address
 * — while a successful connect means "wait on" (with a warning).
 *
 * Only IP address formats can be probed; for others the wait goes on with
 * a periodic warning.
 */
#include "channel/lc_ofi_impl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define LC_OFI_PROBE_MS 3000

void lc_ofi_addr_text(const lc_ofi_peer_t *st, char *out, size_t len)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    const struct sockaddr *sa = (const struct sockaddr *)st->addr;
    if (st->addrlen >= sizeof(struct sockaddr_in) && sa->sa_family == AF_INET) {
        const struct sockaddr_in *sin = (const struct sockaddr_in *)st->addr;
        inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
        snprintf(out, len, "%s:%u", ip, (unsigned)ntohs(sin->sin_port));
    } else if (st->addrlen >= sizeof(struct sockaddr_in6) && sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)st->addr;
        inet_ntop(AF_INET6, &sin6->sin6_addr, ip, sizeof(ip));
        snprintf(out, len, "[%s]:%u", ip, (unsigned)ntohs(sin6->sin6_port));
    } else {
        snprintf(out, len, "(a %u-byte %s address)", st->addrlen, lc_ofi.describe);
    }
}

/* 1: something accepts TCP connections at the address; 0: nothing does
 * (why says what happened); -1: not an IP address. */
static int lc_ofi_probe(const lc_ofi_peer_t *st, char *why, size_t whylen)
{
    const struct sockaddr *sa = (const struct sockaddr *)st->addr;
    socklen_t salen;
    if (st->addrlen >= sizeof(struct sockaddr_in) && sa->sa_family == AF_INET) salen = sizeof(struct sockaddr_in);
    else if (st->addrlen >= sizeof(struct sockaddr_in6) && sa->sa_family == AF_INET6) salen = sizeof(struct sockaddr_in6);
    else return -1;
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(why, whylen, "socket: %s", strerror(errno));
        return -1;
    }
    int ok = 0;
    if (connect(fd, sa, salen) == 0) {
        ok = 1;
    } else if (errno == EINPROGRESS) {
        struct pollfd pfd = { .fd = fd, .events = POLLOUT };
        int n;
        do n = poll(&pfd, 1, LC_OFI_PROBE_MS);
        while (n < 0 && errno == EINTR);
        if (n == 0) {
            snprintf(why, whylen, "no answer within %d s", LC_OFI_PROBE_MS / 1000);
        } else {
            int err = 0;
            socklen_t elen = sizeof(err);
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen);
            if (err == 0) ok = 1;
            else snprintf(why, whylen, "%s", strerror(err));
        }
    } else {
        snprintf(why, whylen, "%s", strerror(errno));
    }
    close(fd);
    return ok;
}

void lc_ofi_stalled(lc_peer_t *peer)
{
    lc_ofi_peer_t *st = peer->ofi.state;
    if (st->reached || lc_ofi.closing) return;
    double now = lc_time_now();
    if (st->stall_since == 0) {
        st->stall_since = now;
        st->next_check = now + lc_ofi.connect_timeout;
        return;
    }
    if (now < st->next_check) return;
    st->next_check = now + lc_ofi.connect_timeout;
    char addr[96], why[128] = "";
    lc_ofi_addr_text(st, addr, sizeof(addr));
    int r = lc_ofi_probe(st, why, sizeof(why));
    if (r == 0)
        lc_fatal("network channel: cannot reach rank %d (host %s) at %s: %s. The rank may have died, or "
                 "its address is not reachable from this host over %s: check the network between the "
                 "hosts (firewall, routes), or choose the interface both can use with LOCUS_OFI_IFACE",
                 peer->world_rank, st->host, addr, why, lc_ofi.describe);
    lc_log_warn("network channel: rank %d (host %s, %s) has not accepted a connection for %.0f s%s; still "
                "waiting (a rank that computes long without calling MPI delays its connections)",
                peer->world_rank, st->host, addr, now - st->stall_since,
                r > 0 ? " although its address answers" : "");
}
