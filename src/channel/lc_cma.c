/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_cma.c — Cross Memory Attach single copy. */
#include "channel/lc_cma.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t lc_cma_cookie;
static bool lc_cma_ptracer_any; /* PR_SET_PTRACER_ANY is in force (we set it) */

void lc_cma_cookie_init(void)
{
    if (!lc_cma_cookie) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        lc_cma_cookie = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^ 0x9e3779b97f4a7c15ull;
    }
}

void lc_cma_allow_peers(void)
{
#ifdef PR_SET_PTRACER
    /* EINVAL without Yama: then nothing restricts a same-uid reader. */
    if (!lc_cma_ptracer_any && prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) == 0) lc_cma_ptracer_any = true;
#endif
}

void lc_cma_forbid_peers(void)
{
#ifdef PR_SET_PTRACER
    if (lc_cma_ptracer_any) prctl(PR_SET_PTRACER, 0, 0, 0, 0);
#endif
    lc_cma_ptracer_any = false;
}

uint64_t lc_cma_cookie_value(void) { return lc_cma_cookie; }
uint64_t lc_cma_cookie_addr(void) { return (uint64_t)(uintptr_t)&lc_cma_cookie; }

bool lc_cma_probe(pid_t pid, uint64_t addr, uint64_t cookie, char *why, size_t whylen)
{
    uint64_t seen = 0;
    struct iovec local = { .iov_base = &seen, .iov_len = sizeof(seen) };
    struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = sizeof(seen) };
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n != (ssize_t)sizeof(seen)) {
        snprintf(why, whylen, "process_vm_readv of pid %d failed: %s", (int)pid,
                 n < 0 ? strerror(errno) : "short read");
        return false;
    }
    if (seen != cookie) {
        /* Same pid number, another process: separate PID namespaces. */
        snprintf(why, whylen, "pid %d is another process here (separate PID namespace)", (int)pid);
        return false;
    }
    return true;
}

int lc_cma_connect(lc_peer_t *peer, pid_t pid, uint64_t cookie_addr, uint64_t cookie, size_t pull_min, char *why,
                   size_t whylen)
{
    if (!lc_cma_probe(pid, cookie_addr, cookie, why, whylen)) return LC_ERROR;
    peer->cma.pid = pid;
    peer->can_pull = true;
    peer->pull_min = pull_min;
    return LC_OK;
}

int lc_cma_pull(lc_peer_t *peer, void *local, uint64_t remote, uint64_t key, size_t len)
{
    (void)key; /* the pid is the only credential CMA needs */
    char *dst = local;
    while (len) {
        struct iovec l = { .iov_base = dst, .iov_len = len };
        struct iovec r = { .iov_base = (void *)(uintptr_t)remote, .iov_len = len };
        ssize_t n = process_vm_readv(peer->cma.pid, &l, 1, &r, 1, 0);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            lc_log_error("single-copy read of %zu bytes from rank %d (pid %d) failed: %s", len,
                         peer->world_rank, (int)peer->cma.pid, n < 0 ? strerror(errno) : "no progress");
            return LC_ERROR;
        }
        dst += n;
        remote += (uint64_t)n;
        len -= (size_t)n;
    }
    return LC_OK;
}

int lc_cma_push(lc_peer_t *peer, uint64_t remote, const void *local, size_t len)
{
    const char *src = local;
    while (len) {
        struct iovec l = { .iov_base = (void *)src, .iov_len = len };
        struct iovec r = { .iov_base = (void *)(uintptr_t)remote, .iov_len = len };
        ssize_t n = process_vm_writev(peer->cma.pid, &l, 1, &r, 1, 0);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            lc_log_error("single-copy write of %zu bytes to rank %d (pid %d) failed: %s", len, peer->world_rank,
                         (int)peer->cma.pid, n < 0 ? strerror(errno) : "no progress");
            return LC_ERROR;
        }
        src += n;
        remote += (uint64_t)n;
        len -= (size_t)n;
    }
    return LC_OK;
}

int lc_cma_pullv(lc_peer_t *peer, const struct iovec *local, int niov, uint64_t remote, uint64_t key, size_t len)
{
    (void)key;
    struct iovec l[LC_CMA_IOV_MAX];
    if (niov > LC_CMA_IOV_MAX) return LC_ERROR; /* callers pass at most LC_CMA_IOV_MAX */
    memcpy(l, local, sizeof(*l) * (size_t)niov);
    int first = 0;
    while (len) {
        struct iovec r = { .iov_base = (void *)(uintptr_t)remote, .iov_len = len };
        ssize_t n = process_vm_readv(peer->cma.pid, l + first, (unsigned long)(niov - first), &r, 1, 0);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            lc_log_error("single-copy read of %zu bytes into %d segments from rank %d (pid %d) failed: %s", len,
                         niov - first, peer->world_rank, (int)peer->cma.pid, n < 0 ? strerror(errno) : "no progress");
            return LC_ERROR;
        }
        remote += (uint64_t)n;
        len -= (size_t)n;
        /* a partial read: skip the segments it filled, trim the one it stopped in */
        for (size_t left = (size_t)n; left && first < niov;) {
            if (left >= l[first].iov_len) {
                left -= l[first].iov_len;
                first++;
            } else {
                l[first].iov_base = (char *)l[first].iov_base + left;
                l[first].iov_len -= left;
                left = 0;
            }
        }
    }
    return LC_OK;
}

/* Drop the first n bytes of an iovec array that starts at *first. */
static void lc_cma_iov_skip(struct iovec *v, int nv, int *first, size_t n)
{
    while (n && *first < nv) {
        struct iovec *s = &v[*first];
        if (n >= s->iov_len) {
            n -= s->iov_len;
            (*first)++;
        } else {
            s->iov_base = (char *)s->iov_base + n;
            s->iov_len -= n;
            n = 0;
        }
    }
}

int lc_cma_pull_list(lc_peer_t *peer, const struct iovec *local, int nlocal, const struct iovec *remote, int nremote,
                     size_t len)
{
    struct iovec l[LC_CHANNEL_IOV_MAX], r[LC_CHANNEL_IOV_MAX];
    if (nlocal > LC_CHANNEL_IOV_MAX || nremote > LC_CHANNEL_IOV_MAX || nlocal < 0 || nremote < 0)
        return LC_ERROR; /* callers pass at most LC_CHANNEL_IOV_MAX */
    memcpy(l, local, sizeof(*l) * (size_t)nlocal);
    memcpy(r, remote, sizeof(*r) * (size_t)nremote);
    int lf = 0, rf = 0;
    while (len) {
        if (lf == nlocal || rf == nremote) {
            lc_log_error("single-copy read from rank %d: %zu bytes left but no %s segment (the sender's block list "
                         "is shorter than its message)",
                         peer->world_rank, len, lf == nlocal ? "local" : "remote");
            return LC_ERROR;
        }
        /* The kernel copies min(local, remote) bytes; both sides are trimmed
         * by what it did, so a partial read resumes where it stopped. */
        ssize_t n = process_vm_readv(peer->cma.pid, l + lf, (unsigned long)(nlocal - lf), r + rf,
                                     (unsigned long)(nremote - rf), 0);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            lc_log_error("single-copy read of %zu bytes from %d segments of rank %d (pid %d) into %d segments "
                         "failed: %s",
                         len, nremote - rf, peer->world_rank, (int)peer->cma.pid, nlocal - lf,
                         n < 0 ? strerror(errno) : "no progress");
            return LC_ERROR;
        }
        if ((size_t)n > len) n = (ssize_t)len;
        len -= (size_t)n;
        lc_cma_iov_skip(l, nlocal, &lf, (size_t)n);
        lc_cma_iov_skip(r, nremote, &rf, (size_t)n);
    }
    return LC_OK;
}
