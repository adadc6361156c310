/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_ofi_test.h — shared set-up of the ofi channel unit tests: two
 * processes (parent rank 0, forked child rank 1) open endpoints on the
 * loopback interface with the tcp provider and swap their addresses
 * through pipes, as PMI does in a job.
 */
#ifndef LC_OFI_TEST_H
#define LC_OFI_TEST_H

#include "channel/lc_ofi_impl.h"
#include "util/lc_params.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LC_SKIP 77

static lc_peer_t lc_t_peers[2];

/* The providers the tests run with: LC_OFI_TEST_PROVIDERS (comma list),
 * default both TCP providers of libfabric 1.17: tcp (under ofi_rxm) and
 * net, the one Locus picks by default. */
static inline const char *lc_t_providers(void)
{
    const char *p = getenv("LC_OFI_TEST_PROVIDERS");
    return p ? p : "tcp,net";
}

/* Parameters for one run: provider `prov` on loopback (LOCUS_OFI_IFACE
 * in the environment overrides the interface). */
static inline void lc_t_params(const char *prov)
{
    setenv("LOCUS_OFI_PROVIDER", prov, 1);
    setenv("LOCUS_OFI_IFACE", getenv("LOCUS_OFI_IFACE") ? getenv("LOCUS_OFI_IFACE") : "lo", 1);
    /* What lc_ofi_open sets, before lc_t_available's fi_getinfo
     * initialises libfabric. */
    setenv("FI_OFI_RXM_ENABLE_PASSTHRU", "1", 0);
    if (lc_params_load() != 0) exit(2);
}

/* Does this machine offer provider `prov` with RDM endpoints? */
static inline int lc_t_available(const char *prov)
{
    struct fi_info *hints = fi_allocinfo(), *list = NULL;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_MSG;
    hints->fabric_attr->prov_name = strdup(prov);
    int rc = fi_getinfo(LC_OFI_FI_VERSION, NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (rc || !list) {
        printf("provider \"%s\" offers no FI_EP_RDM endpoint here (%s): not tested\n", prov, fi_strerror(-rc));
        return 0;
    }
    fi_freeinfo(list);
    return 1;
}

/* Run `one(provider)` for every available test provider; exit 77 (skip)
 * if none is.  Returns the number of failed runs. */
static inline int lc_t_each_provider(int (*one)(const char *prov))
{
    char list[256];
    snprintf(list, sizeof(list), "%s", lc_t_providers());
    int ran = 0, failed = 0;
    for (char *save = NULL, *prov = strtok_r(list, ",", &save); prov; prov = strtok_r(NULL, ",", &save)) {
        lc_t_params(prov);
        if (!lc_t_available(prov)) continue;
        ran++;
        printf("== provider %s\n", prov);
        fflush(stdout);
        if (one(prov) != 0) {
            fprintf(stderr, "FAILED with provider %s\n", prov);
            failed++;
        }
    }
    if (!ran) {
        printf("SKIP: none of the providers %s is available\n", lc_t_providers());
        exit(LC_SKIP);
    }
    return failed;
}

static inline void lc_t_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n <= 0) {
            perror("pipe write");
            _exit(2);
        }
        p += n;
        len -= (size_t)n;
    }
}

static inline void lc_t_read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = read(fd, p, len);
        if (n <= 0) {
            fprintf(stderr, "pipe read: peer went away\n");
            _exit(2);
        }
        p += n;
        len -= (size_t)n;
    }
}

/* Open rank `me`'s endpoint and connect to the other rank, whose address
 * comes through `rfd` while ours goes out through `wfd`. */
static inline lc_peer_t *lc_t_open(int me, int rfd, int wfd)
{
    for (int r = 0; r < 2; r++) {
        memset(&lc_t_peers[r], 0, sizeof(lc_t_peers[r]));
        lc_t_peers[r].world_rank = r;
        lc_t_peers[r].kind = r == me ? LC_CHANNEL_SELF : LC_CHANNEL_NONE;
        lc_list_init(&lc_t_peers[r].pending);
    }
    char mine[LC_OFI_ADDR_TEXT_MAX], theirs[LC_OFI_ADDR_TEXT_MAX];
    if (lc_ofi_open(lc_t_peers, me, 2, 1, mine, sizeof(mine)) != 0) _exit(2);
    lc_t_write_all(wfd, mine, sizeof(mine));
    lc_t_read_all(rfd, theirs, sizeof(theirs));
    char why[256];
    lc_peer_t *peer = &lc_t_peers[1 - me];
    if (lc_ofi_connect(peer, theirs, "localhost", why, sizeof(why)) != 0) {
        fprintf(stderr, "rank %d: connect: %s\n", me, why);
        _exit(2);
    }
    return peer;
}

/* The channel's state, printed when a phase times out. */
static inline void lc_t_dump(void)
{
    int nrep = 0;
    for (lc_ofi_buf_t *b = lc_ofi.repost; b; b = b->next) nrep++;
    for (int r = 0; r < 2; r++) {
        lc_peer_t *p = &lc_ofi.peers[r];
        if (p->kind != LC_CHANNEL_OFI) continue;
        fprintf(stderr, "DUMP rank %d peer %d: tx_seq %u rx_seq %u credits %u owed %u nheld %u queued %d\n", lc_ofi.rank, r,
                p->ofi.tx_seq, p->ofi.rx_seq, p->ofi.credits, p->ofi.owed, p->ofi.state->nheld, p->ofi.state->credit_queued);
    }
    fprintf(stderr, "DUMP rank %d: nrx %u repost %d fifo %u ntx %u tx_busy %u ncredit %d\n", lc_ofi.rank, lc_ofi.nrx, nrep,
            lc_ofi.fifo_count, lc_ofi.ntx, lc_ofi.tx_busy, lc_ofi.ncredit);
}

/* Deadlines that tell a stall from slowness.  On a loaded machine (load
 * ~20 on 2 cores) a credit round trip waits for the scheduler to run the
 * other process: the tests ran at 35 (sockets) to 800 (net) packets/s, so
 * a fixed deadline fired while packets were still moving, and the state
 * dumped then (a packet or credit "in flight") looked like a hang.  With
 * lc_t_stall_s set, lc_t_expired says so only when nothing moved (no
 * sequence number of any peer changed) for that long, or at the hard
 * deadline, and lc_t_why() says which. */
static double lc_t_stall_s;     /* 0: the deadline alone */
static double lc_t_last_move;
static uint64_t lc_t_last_seqs;
static int lc_t_stalled_flag;

static inline uint64_t lc_t_seqs(void)
{
    uint64_t sum = 0;
    for (int r = 0; r < 2; r++) {
        const lc_peer_t *p = &lc_ofi.peers[r];
        if (p->kind == LC_CHANNEL_OFI) sum += ((uint64_t)p->ofi.tx_seq << 20) + p->ofi.rx_seq;
    }
    return sum + lc_ofi.fifo_count;
}

static inline int lc_t_expired(double deadline)
{
    double now = lc_time_now();
    if (lc_t_stall_s > 0) {
        uint64_t seqs = lc_t_seqs();
        if (seqs != lc_t_last_seqs || lc_t_last_move == 0) {
            lc_t_last_seqs = seqs;
            lc_t_last_move = now;
        } else if (now - lc_t_last_move > lc_t_stall_s) {
            lc_t_stalled_flag = 1;
            return 1;
        }
    }
    return now > deadline;
}

static inline const char *lc_t_why(void)
{
    return lc_t_stalled_flag ? "STALLED: no packet moved either way for the stall window"
                             : "too slow: packets still moving at the hard deadline";
}

/* A packet through the ops table, polling while the channel says AGAIN
 * (as the engine's pending queue would; it yields, as the engine does
 * when idle: a spinning rank starves its peer on a loaded machine).
 * Returns the number of AGAINs. */
static inline long lc_t_send(lc_peer_t *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                      const void *data, size_t datalen, double deadline)
{
    long again = 0;
    while (lc_channel_ofi_ops.try_send(peer, hdr, pre, prelen, data, datalen) != LC_OK) {
        again++;
        if (lc_ofi_poll() == 0) sched_yield();
        if (lc_t_expired(deadline)) {
            fprintf(stderr, "rank %d: send to rank %d stuck (credits %u): %s\n", lc_ofi.rank, peer->world_rank,
                    peer->ofi.credits, lc_t_why());
            lc_t_dump();
            _exit(3);
        }
    }
    return again;
}

/* Wait for the child; its exit status must be 0. */
static inline int lc_t_wait_child(pid_t child, const char *what)
{
    int status = 0;
    if (waitpid(child, &status, 0) != child) {
        perror("waitpid");
        return 1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    fprintf(stderr, "%s: child %s %d\n", what, WIFEXITED(status) ? "exited with" : "killed by signal",
            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    return 1;
}

#endif
