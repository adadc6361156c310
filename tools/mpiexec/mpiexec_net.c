/* SPDX-License-Identifier: BSD-3-Clause */
/* TCP for jobs across hosts: mpiexec's listening socket, the address it
 * tells the proxies, whether a host name means this machine, and the
 * socket settings that make a dead peer noticed within seconds. */
#include "mpiexec.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

/* Dead-peer detection: keepalive probes after 2 s of silence, every 1 s,
 * 3 unanswered = dead; unacknowledged data gives up after 6 s.  A host
 * that vanishes (cable, kernel panic, partition) sends no FIN: without
 * these it would take TCP minutes to notice. */
#define MPIEXEC_NET_KEEPIDLE_S   2
#define MPIEXEC_NET_KEEPINTVL_S  1
#define MPIEXEC_NET_KEEPCNT      3
#define MPIEXEC_NET_USER_TIMEOUT_MS 6000

void mpiexec_net_tune(int fd)
{
    int one = 1, idle = MPIEXEC_NET_KEEPIDLE_S, intvl = MPIEXEC_NET_KEEPINTVL_S;
    int cnt = MPIEXEC_NET_KEEPCNT;
    unsigned int ut = MPIEXEC_NET_USER_TIMEOUT_MS;

    /* PMI requests are small and synchronous: no Nagle delay. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ut, sizeof(ut));
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* Listen on addr (numeric, the address the proxies are told) only, on a
 * port the kernel chooses. */
int mpiexec_net_listen(const char *addr, int *port_p)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICHOST | AI_PASSIVE}, *res;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    int fd, rc;

    rc = getaddrinfo(addr, "0", &hints, &res);
    if (rc != 0) {
        mpiexec_say("cannot listen for remote hosts on %s: %s", addr, gai_strerror(rc));
        return -1;
    }
    fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) != 0) {
        mpiexec_say("cannot listen for remote hosts on %s, the address they are told to connect to: %m%s",
                    addr, errno == EADDRNOTAVAIL ? " (not an address of this host; name the interface the "
                                                   "other hosts reach with -iface)" : "");
        freeaddrinfo(res);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    freeaddrinfo(res);
    if (listen(fd, 128) != 0 || getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        mpiexec_say("cannot listen for remote hosts: %m");
        close(fd);
        return -1;
    }
    *port_p = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                             : ((struct sockaddr_in *)&ss)->sin_port);
    return fd;
}

static int mpiexec_net_is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a))
            return a->s6_addr[12] == 127;
        return IN6_IS_ADDR_LOOPBACK(a);
    }
    return 0;
}

static int mpiexec_net_ntop(const struct sockaddr *sa, char *buf, size_t len)
{
    const void *a = sa->sa_family == AF_INET ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
                                             : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;

    return inet_ntop(sa->sa_family, a, buf, (socklen_t)len) != NULL ? 0 : -1;
}

/* The address of interface `iface`: its IPv4 address, else a global IPv6
 * one (a link-local address would need a scope on the other host). */
int mpiexec_net_iface_addr(const char *iface, char *buf, size_t len)
{
    struct ifaddrs *ifs, *i;
    int found = 0, exists = 0;

    if (getifaddrs(&ifs) != 0) {
        mpiexec_say("-iface %s: cannot list the network interfaces: %m", iface);
        return -1;
    }
    for (int pass = 0; pass < 2 && !found; pass++) {
        for (i = ifs; i != NULL && !found; i = i->ifa_next) {
            if (strcmp(i->ifa_name, iface) != 0)
                continue;
            exists = 1;
            if (i->ifa_addr == NULL || i->ifa_addr->sa_family != (pass == 0 ? AF_INET : AF_INET6))
                continue;
            if (pass == 1 && IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr))
                continue;
            found = mpiexec_net_ntop(i->ifa_addr, buf, len) == 0;
        }
    }
    freeifaddrs(ifs);
    if (!found)
        mpiexec_say("-iface %s: %s", iface,
                    exists ? "the interface has no usable IPv4 or global IPv6 address"
                           : "no such network interface on this host");
    return found ? 0 : -1;
}

/* The address this host's name resolves to (IPv4 preferred). */
int mpiexec_net_default_addr(char *buf, size_t len, int *loopback_p)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai, *pick = NULL;
    char host[256];
    int rc;

    if (gethostname(host, sizeof(host)) != 0) {
        mpiexec_say("cannot get this host's name: %m");
        return -1;
    }
    host[sizeof(host) - 1] = '\0';
    rc = getaddrinfo(host, NULL, &hints, &res);
    if (rc != 0) {
        mpiexec_say("cannot resolve this host's name '%s' (%s); name an interface with -iface",
                    host, gai_strerror(rc));
        return -1;
    }
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        if (pick == NULL || (pick->ai_family != AF_INET && ai->ai_family == AF_INET) ||
            (mpiexec_net_is_loopback(pick->ai_addr) && !mpiexec_net_is_loopback(ai->ai_addr)))
            pick = ai;
    }
    rc = pick != NULL ? mpiexec_net_ntop(pick->ai_addr, buf, len) : -1;
    if (rc == 0)
        *loopback_p = mpiexec_net_is_loopback(pick->ai_addr);
    freeaddrinfo(res);
    if (rc != 0)
        mpiexec_say("this host's name '%s' has no usable address; name an interface with -iface", host);
    return rc;
}

/* Does `name` mean this machine?  Yes for localhost, for this host's name
 * (or its short form, or the long form of a short name), and for a name
 * that resolves to an address of a local interface. */
int mpiexec_net_is_this_host(const char *name)
{
    char me[256];
    size_t nlen = strcspn(name, "."), mlen;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai;
    struct ifaddrs *ifs;
    int local = 0;

    if (strcasecmp(name, "localhost") == 0)
        return 1;
    if (gethostname(me, sizeof(me)) == 0) {
        me[sizeof(me) - 1] = '\0';
        mlen = strcspn(me, ".");
        if (strcasecmp(name, me) == 0)
            return 1;
        /* One of the two is a short name, and it is the other's first label. */
        if ((name[nlen] == '\0' || me[mlen] == '\0') && nlen == mlen && strncasecmp(name, me, nlen) == 0)
            return 1;
    }
    if (getaddrinfo(name, NULL, &hints, &res) != 0)
        return 0; /* the agent will say what is wrong with it */
    if (getifaddrs(&ifs) != 0) {
        freeaddrinfo(res);
        return 0;
    }
    for (ai = res; ai != NULL && !local; ai = ai->ai_next) {
        if (mpiexec_net_is_loopback(ai->ai_addr)) {
            local = 1;
            break;
        }
        for (struct ifaddrs *i = ifs; i != NULL && !local; i = i->ifa_next) {
            if (i->ifa_addr == NULL || i->ifa_addr->sa_family != ai->ai_family)
                continue;
            if (ai->ai_family == AF_INET)
                local = ((struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr ==
                        ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
            else
                local = memcmp(&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr,
                               &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
                               sizeof(struct in6_addr)) == 0;
        }
    }
    freeifaddrs(ifs);
    freeaddrinfo(res);
    return local;
}

/* Connect to addr:port within timeout_ms.  Returns a tuned, non-blocking
 * socket, or -1 after a message. */
int mpiexec_net_connect(const char *addr, const char *port, int timeout_ms)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV}, *res;
    int fd, rc, err = 0;
    socklen_t el = sizeof(err);

    rc = getaddrinfo(addr, port, &hints, &res);
    if (rc != 0) {
        mpiexec_say("bad mpiexec address %s port %s: %s", addr, port, gai_strerror(rc));
        return -1;
    }
    fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        mpiexec_say("socket: %m");
        freeaddrinfo(res);
        return -1;
    }
    rc = connect(fd, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    if (rc != 0 && errno == EINPROGRESS) {
        struct pollfd p = {.fd = fd, .events = POLLOUT};

        do {
            rc = poll(&p, 1, timeout_ms);
        } while (rc < 0 && errno == EINTR);
        if (rc == 0) {
            errno = ETIMEDOUT;
            rc = -1;
        } else if (rc > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err != 0) {
            errno = err;
            rc = -1;
        } else if (rc > 0) {
            rc = 0;
        }
    }
    if (rc != 0) {
        mpiexec_say("cannot connect to mpiexec at %s port %s: %m", addr, port);
        close(fd);
        return -1;
    }
    mpiexec_net_tune(fd);
    return fd;
}
