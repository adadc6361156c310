/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_ofi_ep.c — the ofi channel's endpoint: provider choice, opening the
 * fabric/domain/endpoint, the receive and send pools, peer addresses, and
 * the goodbye exchange that closes it all.
 */
#include "channel/lc_ofi_impl.h"
#include "util/lc_params.h"
#include "util/lc_thread.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

lc_ofi_t lc_ofi;
bool lc_ofi_active;

const lc_channel_ops_t lc_channel_ofi_ops = {
    .name = "ofi",
    .try_send = lc_ofi_try_send,
    .pull = lc_ofi_pull, /* refused when the provider has no FI_RMA (can_pull is then false) */
    .pullv = lc_ofi_pullv,
};

const char *lc_ofi_strerror(ssize_t rc)
{
    return fi_strerror((int)(rc < 0 ? -rc : rc));
}

const char *lc_ofi_describe(void)
{
    return lc_ofi.describe;
}


void lc_ofi_set_idle_yield(int yield)
{
    lc_ofi.yield_when_idle = yield;
}

/* A key of our choosing (no FI_MR_PROV_KEY): random, so that what a
 * remote-read registration exposes (a rendezvous send buffer) cannot be
 * named by guessing 1, 2, 3... (issue 12, point 4).  As wide as the
 * provider takes (mr_key_size bytes), never 0.  Drawn from getrandom in
 * batches: one system call per 64 registrations.  0 when getrandom fails. */
static uint64_t lc_ofi_random_key(void)
{
    static uint64_t pool[64];
    static unsigned left;
    for (;;) {
        if (!left) {
            size_t got = 0;
            while (got < sizeof(pool)) {
                ssize_t r = getrandom((char *)pool + got, sizeof(pool) - got, 0);
                if (r < 0 && errno == EINTR) continue;
                if (r <= 0) return 0;
                got += (size_t)r;
            }
            left = 64;
        }
        uint64_t key = pool[--left];
        pool[left] = 0; /* a used key does not stay in memory */
        if (lc_ofi.mr_key_bytes < 8) key &= (UINT64_C(1) << (8 * lc_ofi.mr_key_bytes)) - 1;
        if (key) return key;
    }
}

int lc_ofi_mr_reg(const void *buf, size_t len, uint64_t access, struct fid_mr **mr)
{
    int rc;
    if (lc_ofi.mr_prov_key) {
        rc = fi_mr_reg(lc_ofi.domain, buf, len, access, 0, 0, 0, mr, NULL);
    } else {
        /* Our key must be unique in the domain: a provider that finds it
         * taken says FI_ENOKEY, and another draw is taken. */
        int tries = 0;
        do {
            uint64_t key = lc_ofi_random_key();
            if (!key) return -FI_EOTHER; /* getrandom failed: the caller reports the registration */
            rc = fi_mr_reg(lc_ofi.domain, buf, len, access, 0, key, 0, mr, NULL);
        } while (rc == -FI_ENOKEY && ++tries < 8);
    }
    if (rc) return rc;
    if (lc_ofi.mr_endpoint) {
        rc = fi_mr_bind(*mr, &lc_ofi.ep->fid, 0);
        if (!rc) rc = fi_mr_enable(*mr);
        if (rc) {
            fi_close(&(*mr)->fid);
            *mr = NULL;
        }
    }
    return rc;
}

/* ---- provider choice --------------------------------------------------- */

/* Loopback and link-local addresses reach no other host: a domain bound
 * to one is a last resort. */
static bool lc_ofi_addr_is_local_only(const struct fi_info *fi)
{
    if (!fi->src_addr) return false;
    if (fi->addr_format == FI_SOCKADDR_IN) {
        const struct sockaddr_in *sin = fi->src_addr;
        return (ntohl(sin->sin_addr.s_addr) >> 24) == 127;
    }
    if (fi->addr_format == FI_SOCKADDR_IN6) {
        const struct sockaddr_in6 *sin6 = fi->src_addr;
        return IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr) || IN6_IS_ADDR_LINKLOCAL(&sin6->sin6_addr);
    }
    return false;
}

static struct fi_info *lc_ofi_hints(int rma, int ordered, int source)
{
    struct fi_info *h = fi_allocinfo();
    if (!h) return NULL;
    h->ep_attr->type = FI_EP_RDM;
    /* RMA: fi_read for rendezvous pulls; fi_write and remote write for
     * one-sided windows (src/rma/lc_rma_ofi.c). */
    h->caps = FI_MSG | FI_SEND | FI_RECV | (rma ? FI_RMA | FI_READ | FI_REMOTE_READ | FI_WRITE | FI_REMOTE_WRITE : 0) |
              (source ? FI_SOURCE : 0);
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    /* Every registration mode we can honour: the provider keeps the ones
     * it needs and tells us in the answer. */
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    /* One thread drives each endpoint (the progress engine): providers
     * may drop their locks. */
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    if (ordered) {
        h->tx_attr->msg_order = FI_ORDER_SAS;
        h->rx_attr->msg_order = FI_ORDER_SAS;
    }
    if (lc_params.ofi_provider[0]) h->fabric_attr->prov_name = strdup(lc_params.ofi_provider);
    /* LOCUS_OFI_IFACE is matched by lc_ofi_pick: tcp;ofi_rxm ignores a
     * domain name in the hints. */
    return h;
}

/* With LOCUS_OFI_IFACE: its domain (or fabric) name must match. */
static bool lc_ofi_iface_matches(const struct fi_info *fi)
{
    const char *want = lc_params.ofi_iface;
    if (!want[0]) return true;
    return (fi->domain_attr->name && !strcmp(fi->domain_attr->name, want)) ||
           (fi->fabric_attr->name && !strcmp(fi->fabric_attr->name, want));
}

/* The provider: libfabric's first (on the requested interface), with one
 * exception.  When that is the sockets-based tcp (alone or under rxm)
 * and libfabric also offers "net" — its native TCP RDM provider, which
 * libfabric 1.18 renamed "tcp" — net is taken, unless LOCUS_OFI_PROVIDER
 * chose: between two emulated hosts (veth) it measured 7.0 us for 8 B
 * against 8.2 us for tcp;ofi_rxm (docs/ofi.md).  Hardware providers
 * (verbs, efa, cxi, ...) come first in libfabric's order and stay first. */
static const char *lc_ofi_pick_provider(struct fi_info *list)
{
    const char *first = NULL;
    for (struct fi_info *fi = list; fi && !first; fi = fi->next)
        if (lc_ofi_iface_matches(fi)) first = fi->fabric_attr->prov_name;
    if (!first || lc_params.ofi_provider[0]) return first;
    if (strcmp(first, "tcp;ofi_rxm") != 0 && strcmp(first, "tcp") != 0) return first;
    for (struct fi_info *fi = list; fi; fi = fi->next)
        if (lc_ofi_iface_matches(fi) && !strcmp(fi->fabric_attr->prov_name, "net")) return "net";
    return first;
}

/* The first entry of the chosen provider (on the requested interface),
 * preferring a domain that is not loopback-only.  Returns a copy (caller
 * frees), NULL if none. */
static struct fi_info *lc_ofi_pick(struct fi_info *list)
{
    const char *prov = lc_ofi_pick_provider(list);
    struct fi_info *best = NULL;
    for (struct fi_info *fi = list; fi && prov; fi = fi->next) {
        if (!lc_ofi_iface_matches(fi)) continue;
        if (strcmp(fi->fabric_attr->prov_name, prov) != 0) continue;
        if (!lc_ofi_addr_is_local_only(fi)) {
            best = fi;
            break;
        }
        if (!best) best = fi;
    }
    return best ? fi_dupinfo(best) : NULL;
}

/* The chosen provider and domain again, with FI_SOURCE (the provider names
 * each packet's sender, checked against the id the packet claims:
 * lc_ofi_arrived), when that costs nothing: only for `net`.  Asking it of
 * tcp;ofi_rxm gives another endpoint implementation than the pass-through
 * one (measured: a different send function), and asking it before the
 * choice could trade a provider without FI_SOURCE for one with it. */
static struct fi_info *lc_ofi_with_source(struct fi_info *fi, int rma, int ordered)
{
    if (strcmp(fi->fabric_attr->prov_name, "net") != 0) return fi;
    struct fi_info *hints = lc_ofi_hints(rma, ordered, 1), *list = NULL, *got = NULL;
    if (!hints) return fi;
    free(hints->fabric_attr->prov_name);
    hints->fabric_attr->prov_name = strdup("net");
    if (hints->fabric_attr->prov_name && fi_getinfo(LC_OFI_FI_VERSION, NULL, NULL, 0, hints, &list) == 0) {
        for (struct fi_info *x = list; x && !got; x = x->next)
            if (!strcmp(x->domain_attr->name, fi->domain_attr->name) && (x->caps & FI_SOURCE) &&
                x->addr_format == fi->addr_format)
                got = fi_dupinfo(x);
        fi_freeinfo(list);
    }
    fi_freeinfo(hints);
    if (!got) return fi;
    fi_freeinfo(fi);
    return got;
}

static struct fi_info *lc_ofi_getinfo(void)
{
    /* tcp;ofi_rxm: let rxm hand our calls straight to the tcp provider.
     * Measured on loopback: 16 KiB packets 7.7 us instead of 26 (no rxm
     * segmentation above its 16 KiB bounce buffers), and ~6 MB instead
     * of ~75 MB per process (rxm's bounce-buffer pools).  A value the
     * user set wins; libfabric reads it at its first fi_getinfo. */
    setenv("FI_OFI_RXM_ENABLE_PASSTHRU", "1", 0);
    const char *why = lc_ofi_dl_why();
    if (why) {
        lc_log_error("the network channel needs libfabric, which could not be loaded (%s): install it "
                     "(Debian: libfabric1), point LD_LIBRARY_PATH at it, or run all ranks on one host",
                     why);
        return NULL;
    }
    /* Most wanted first: RMA and send-after-send order; without SAS the
     * channel reorders itself, without RMA it streams. */
    static const int tries[4][2] = { { 1, 1 }, { 1, 0 }, { 0, 1 }, { 0, 0 } };
    int last = 0;
    for (int i = 0; i < 4; i++) {
        int rma = tries[i][0], ordered = tries[i][1];
        if (rma && !lc_params.ofi_rma) continue;
        struct fi_info *hints = lc_ofi_hints(rma, ordered, 0), *list = NULL;
        if (!hints) break;
        last = fi_getinfo(LC_OFI_FI_VERSION, NULL, NULL, 0, hints, &list);
        fi_freeinfo(hints);
        if (last == 0 && list) {
            struct fi_info *fi = lc_ofi_pick(list);
            fi_freeinfo(list);
            if (fi) return lc_ofi_with_source(fi, rma, ordered);
        }
    }
    lc_log_error("no libfabric provider offers reliable datagram endpoints (FI_EP_RDM)%s%s%s%s%s "
                 "(fi_getinfo: %s). `fi_info -t FI_EP_RDM` lists what this host offers (provider, and "
                 "domain = interface); set LOCUS_OFI_PROVIDER (e.g. tcp) and LOCUS_OFI_IFACE to one of "
                 "them, or run all ranks on one host",
                 lc_params.ofi_provider[0] ? " with provider \"" : "", lc_params.ofi_provider,
                 lc_params.ofi_provider[0] ? "\"" : "", lc_params.ofi_iface[0] ? " on domain " : "",
                 lc_params.ofi_iface, last ? fi_strerror(-last) : "no entry on that domain");
    return NULL;
}

/* ---- address text ------------------------------------------------------ */

/* "<provider>:<address format>:<credits>:<packet>:<incarnation>:<hex
 * address>": the provider name (with ';' as '+', PMI-safe) lets a peer
 * that chose another provider say so; credits and packet are what we
 * grant each sender (receive buffers for it, bytes per buffer).
 *
 * The incarnation (16 hex digits, random per endpoint) names this
 * process's endpoint, not just where it listens: the kernel hands the
 * port of a process that exited to a later one, so the same IP address
 * and port can be two processes in turn (a parent spawning one child
 * after another met its 35th, in another run its 90th child at an
 * earlier child's address: ports are picked at random).  A peer that met
 * the first must not take the second for it: the old pair's sequence
 * numbers, credits and ids would be used, and the new process, expecting
 * packet number 0, would wait forever (docs/ofi.md, "Peers of other
 * jobs"). */
static void lc_ofi_prov_token(char *out, size_t len, const char *prov)
{
    snprintf(out, len, "%s", prov);
    for (char *c = out; *c; c++)
        if (*c == ';') *c = '+';
}

static int lc_ofi_addr_format(char *out, size_t len, const void *raw, size_t rawlen)
{
    char prov[64];
    lc_ofi_prov_token(prov, sizeof(prov), lc_ofi.info->fabric_attr->prov_name);
    int n = snprintf(out, len, "%s:%u:%u:%zu:%016" PRIx64 ":", prov, (unsigned)lc_ofi.info->addr_format,
                     lc_ofi.credits, lc_ofi.packet, lc_ofi.incarnation);
    if (n < 0 || (size_t)n + 2 * rawlen + 1 > len) return -1;
    static const char hex[] = "0123456789abcdef";
    const unsigned char *b = raw;
    for (size_t i = 0; i < rawlen; i++) {
        out[n++] = hex[b[i] >> 4];
        out[n++] = hex[b[i] & 15];
    }
    out[n] = 0;
    return 0;
}

/* Random and never 0 (0 would read as "no incarnation").  Without
 * getrandom, the pid and the clock still differ between two processes
 * that follow each other on one address. */
static uint64_t lc_ofi_new_incarnation(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        v = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_sec * 1000000000u ^ (uint64_t)ts.tv_nsec;
    }
    return v ? v : 1;
}

static int lc_hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* ---- open ---------------------------------------------------------------- */

/* Receive pools are not zeroed: a buffer is read only after a completion
 * says the provider wrote it, and zeroing touched every page at open — up
 * to LOCUS_OFI_RX_POOL (64 MiB) of page faults per rank before its
 * address was even published (issue 13).  Their pages now fault in as
 * packets first land in them.  Providers with FI_MR_LOCAL pin the pool at
 * registration, which touches it anyway.  Send pools are zeroed: the
 * padding of a packet leaves the process. */
static void *lc_ofi_pool_alloc(size_t n, size_t slot, uint64_t access, int zero, struct fid_mr **mr, void **desc)
{
    size_t bytes = n * slot;
    void *p = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
    if (!p) return NULL;
    if (zero) memset(p, 0, bytes);
    if (lc_ofi.mr_local) {
        int rc = lc_ofi_mr_reg(p, bytes, access, mr);
        if (rc) {
            lc_log_error("network channel: cannot register %zu bytes of bounce buffers (fi_mr_reg: %s); "
                         "lower LOCUS_OFI_CREDITS or LOCUS_OFI_EAGER_LIMIT (the packet), or raise the locked-memory "
                         "limit (ulimit -l)", bytes, lc_ofi_strerror(rc));
            free(p);
            return NULL;
        }
        *desc = fi_mr_desc(*mr);
    }
    return p;
}

size_t lc_ofi_slot(size_t packet)
{
    return (LC_OFI_HDR + packet + 63) & ~(size_t)63;
}

void lc_ofi_budget(size_t eager, size_t pool, uint32_t credits, int npeers, size_t *packet_out,
                   uint32_t *credits_out)
{
    size_t packet = eager < 256 ? 256 : (eager + 7) & ~(size_t)7;
    if (packet > ((size_t)1 << 24)) packet = (size_t)1 << 24;
    if (npeers > 0) {
        /* Packets first: the largest whose slots fit `credits` + 3 per
         * peer, not below the floor. */
        size_t fit_slot = pool / ((size_t)npeers * ((size_t)credits + 3));
        size_t fit = fit_slot > 64 ? (fit_slot - 64) & ~(size_t)63 : 0;
        size_t floor = packet < LC_OFI_PACKET_FLOOR ? packet : LC_OFI_PACKET_FLOOR;
        if (fit < packet) packet = fit > floor ? fit : floor;
        /* Then the credits, never below 4 (or what was asked). */
        size_t fitc = pool / ((size_t)npeers * lc_ofi_slot(packet));
        fitc = fitc > 3 ? fitc - 3 : 0;
        if (credits > fitc) credits = fitc < 4 ? (credits < 4 ? credits : 4) : (uint32_t)fitc;
    }
    *packet_out = packet;
    *credits_out = credits;
}

/* Post n more receive buffers (a block of their own).  The fifo of
 * arrived buffers must hold every buffer: it grows with them, its
 * entries kept in order (this may run inside a delivery, whose loop
 * re-reads fifo_head from lc_ofi).  0, or -1 after logging. */
int lc_ofi_grow_rx(uint32_t n)
{
    lc_ofi_rxblock_t *blk = calloc(1, sizeof(*blk));
    lc_ofi_buf_t **fifo = malloc(sizeof(*fifo) * (size_t)(lc_ofi.nrx + n));
    if (blk) blk->bufs = calloc(n, sizeof(lc_ofi_buf_t));
    if (!blk || !fifo || !blk->bufs) {
        lc_log_error("network channel: out of memory for %u more receive buffers", n);
        goto fail;
    }
    blk->pool = lc_ofi_pool_alloc(n, lc_ofi.slot, FI_RECV, 0, &blk->mr, &blk->desc);
    if (!blk->pool) goto fail;
    blk->n = n;
    for (uint32_t i = 0; i < lc_ofi.fifo_count; i++) fifo[i] = lc_ofi.fifo[(lc_ofi.fifo_head + i) % lc_ofi.nrx];
    free(lc_ofi.fifo);
    lc_ofi.fifo = fifo;
    lc_ofi.fifo_head = 0;
    lc_ofi.nrx += n;
    blk->next = lc_ofi.rx_blocks;
    lc_ofi.rx_blocks = blk;
    uint32_t posted = 0;
    for (uint32_t i = 0; i < n; i++) {
        lc_ofi_buf_t *b = &blk->bufs[i];
        b->ctx.type = LC_OFI_CTX_RX;
        b->data = blk->pool + (size_t)i * lc_ofi.slot;
        b->desc = blk->desc;
        if (lc_ofi_post_rx(b) == LC_OK) posted++;
    }
    if (posted < n) {
        /* Flow control counts on every buffer being posted. */
        lc_log_error("network channel: %s took only %u of %u receive buffers; lower LOCUS_OFI_CREDITS "
                     "(now %u per peer) or LOCUS_OFI_RX_POOL", lc_ofi.describe, posted, n, lc_ofi.credits);
        return -1;
    }
    return 0;
fail:
    if (blk) free(blk->bufs);
    free(blk);
    free(fifo);
    return -1;
}

int lc_ofi_open(lc_peer_t *peers, int rank, int size, int npeers, char *addr, size_t addrlen)
{
    int rc;
    memset(&lc_ofi, 0, sizeof(lc_ofi));
    lc_ofi.peers = peers;
    lc_ofi.rank = rank;
    lc_ofi.size = size;
    lc_ofi.id_limit = (uint32_t)size;

    long credits = lc_params.ofi_credits;
    if (credits < 1 || credits > 255) {
        lc_log_error("LOCUS_OFI_CREDITS=%ld is out of range: use 1..255", credits);
        return -1;
    }
    lc_ofi_budget(lc_params.ofi_eager_limit, lc_params.ofi_rx_pool, (uint32_t)credits, npeers, &lc_ofi.packet,
                  &lc_ofi.credits);
    lc_ofi.slot = lc_ofi_slot(lc_ofi.packet);
    lc_ofi.credit_threshold = (lc_ofi.credits + 1) / 2;
    lc_ofi.window = lc_ofi.credits + 3; /* + 2 credit-only packets + 1 goodbye */
    lc_ofi.ntx = lc_params.ofi_tx_buffers < 2 ? 2 : (uint32_t)lc_params.ofi_tx_buffers;
    uint32_t nrx_world = (uint32_t)npeers * lc_ofi.window;
    lc_ofi.nrx = 0; /* counted by lc_ofi_grow_rx */

    lc_ofi.info = lc_ofi_getinfo();
    if (!lc_ofi.info) return -1;
    struct fi_info *fi = lc_ofi.info;
    uint64_t mr_mode = (uint64_t)fi->domain_attr->mr_mode;
    lc_ofi.mr_local = (mr_mode & FI_MR_LOCAL) != 0;
    lc_ofi.mr_virt_addr = (mr_mode & FI_MR_VIRT_ADDR) != 0;
    lc_ofi.mr_prov_key = (mr_mode & FI_MR_PROV_KEY) != 0;
    lc_ofi.mr_endpoint = (mr_mode & FI_MR_ENDPOINT) != 0;
    lc_ofi.mr_key_bytes = fi->domain_attr->mr_key_size && fi->domain_attr->mr_key_size < 8
                              ? (unsigned)fi->domain_attr->mr_key_size
                              : 8;
    lc_ofi.can_rma = lc_params.ofi_rma && (fi->caps & FI_RMA) && (fi->caps & FI_READ);
    lc_ofi.can_write =
        lc_ofi.can_rma && (fi->caps & FI_WRITE) && (fi->caps & FI_REMOTE_WRITE) && (fi->caps & FI_REMOTE_READ);
    lc_ofi.has_source = (fi->caps & FI_SOURCE) != 0;
    lc_ofi.rma_threshold = lc_params.ofi_rma_threshold;
    lc_ofi.connect_timeout = lc_params.ofi_connect_timeout > 0 ? (double)lc_params.ofi_connect_timeout : 1;
    lc_ofi.inject_size = fi->tx_attr->inject_size;
    if (lc_ofi.inject_size > 256) lc_ofi.inject_size = 256; /* the stack buffer in try_send */
    if (fi->ep_attr->max_msg_size < LC_OFI_HDR + lc_ofi.packet) {
        lc_ofi.packet = (fi->ep_attr->max_msg_size - LC_OFI_HDR) & ~(size_t)7;
        lc_ofi.slot = lc_ofi_slot(lc_ofi.packet);
    }
    /* Our pools are the queue depths we need: at most nrx receives and
     * ntx tracked sends are posted, plus injects.  Asking for no more
     * matters: tcp;ofi_rxm backs every queue entry with a bounce buffer
     * (~70 MB per process at its default depth of 2048). */
    /* (+ room for peers met later: a hello's stranger buffers and a
     * few groups of peers; beyond it the providers here still take the
     * receives, the size being a hint for their own pools.) */
    size_t rxq = nrx_world + LC_OFI_STRANGER_BUFS + 8 * (size_t)lc_ofi.window;
    fi->rx_attr->size = rxq > 64 ? rxq : 64;
    fi->tx_attr->size = 2 * lc_ofi.ntx > 128 ? 2 * lc_ofi.ntx : 128;
    snprintf(lc_ofi.describe, sizeof(lc_ofi.describe), "libfabric %s on %s", fi->fabric_attr->prov_name,
             fi->domain_attr->name);

    const char *step = "fi_fabric";
    rc = fi_fabric(fi->fabric_attr, &lc_ofi.fabric, NULL);
    if (rc) goto err;
    step = "fi_domain";
    rc = fi_domain(lc_ofi.fabric, fi, &lc_ofi.domain, NULL);
    if (rc) goto err;
    struct fi_cq_attr cq_attr = {
        .format = FI_CQ_FORMAT_MSG,
        .size = nrx_world + lc_ofi.ntx + 64 + 64 * (size_t)lc_ofi.window,
        .wait_obj = FI_WAIT_NONE,
    };
    step = "fi_cq_open";
    rc = fi_cq_open(lc_ofi.domain, &cq_attr, &lc_ofi.cq, NULL);
    if (rc) goto err;
    struct fi_av_attr av_attr = {
        .type = fi->domain_attr->av_type != FI_AV_UNSPEC ? fi->domain_attr->av_type : FI_AV_TABLE,
        .count = (size_t)size + 256, /* + peers met later (a hint: the AV grows) */
    };
    step = "fi_av_open";
    rc = fi_av_open(lc_ofi.domain, &av_attr, &lc_ofi.av, NULL);
    if (rc) goto err;
    step = "fi_endpoint";
    rc = fi_endpoint(lc_ofi.domain, fi, &lc_ofi.ep, NULL);
    if (rc) goto err;
    step = "fi_ep_bind(cq)";
    rc = fi_ep_bind(lc_ofi.ep, &lc_ofi.cq->fid, FI_TRANSMIT | FI_RECV);
    if (rc) goto err;
    step = "fi_ep_bind(av)";
    rc = fi_ep_bind(lc_ofi.ep, &lc_ofi.av->fid, 0);
    if (rc) goto err;
    step = "fi_enable";
    rc = fi_enable(lc_ofi.ep);
    if (rc) goto err;

    char raw[256];
    size_t rawlen = sizeof(raw);
    lc_ofi.incarnation = lc_ofi_new_incarnation();
    step = "fi_getname";
    rc = fi_getname(&lc_ofi.ep->fid, raw, &rawlen);
    if (rc) goto err;
    if (lc_ofi_addr_format(addr, addrlen, raw, rawlen) != 0) {
        lc_log_error("network channel: the endpoint address (%zu bytes) is too long to publish", rawlen);
        goto err_logged;
    }

    snprintf(lc_ofi.my_addr, sizeof(lc_ofi.my_addr), "%s", addr);
    lc_ofi.state = calloc((size_t)size, sizeof(lc_ofi_peer_t));
    lc_ofi.credit_cap = size + 16;
    lc_ofi.credit_list = malloc(sizeof(int) * (size_t)lc_ofi.credit_cap);
    lc_ofi.tx_bufs = calloc(lc_ofi.ntx, sizeof(lc_ofi_buf_t));
    if (!lc_ofi.state || !lc_ofi.credit_list || !lc_ofi.tx_bufs) {
        lc_log_error("network channel: out of memory for %d peers", size);
        goto err_logged;
    }
    lc_ofi.tx_pool = lc_ofi_pool_alloc(lc_ofi.ntx, lc_ofi.slot, FI_SEND, 1, &lc_ofi.tx_mr, &lc_ofi.tx_desc);
    if (!lc_ofi.tx_pool) goto err_logged;
    for (uint32_t i = 0; i < lc_ofi.ntx; i++) {
        lc_ofi_buf_t *b = &lc_ofi.tx_bufs[i];
        b->ctx.type = LC_OFI_CTX_TX;
        b->data = lc_ofi.tx_pool + (size_t)i * lc_ofi.slot;
        b->next = lc_ofi.tx_free;
        lc_ofi.tx_free = b;
    }
    /* Receives are posted before our address is published: no packet can
     * arrive before its buffer.  The first block also holds the buffers
     * for hellos of strangers (processes of other jobs). */
    if (lc_ofi_grow_rx(nrx_world + LC_OFI_STRANGER_BUFS) != 0) goto err_logged;
    lc_ofi_active = true;
    lc_thread_nofast_set(LC_NOFAST_OFI, 1);
    return 0;

err:
    lc_log_error("network channel: %s failed (%s) with %s. Check `fi_info -t FI_EP_RDM`; choose "
                 "another provider or interface with LOCUS_OFI_PROVIDER / LOCUS_OFI_IFACE",
                 step, fi_strerror(-rc), lc_ofi.describe);
err_logged:
    lc_ofi_close();
    return -1;
}

/* A peer met after wire-up now listens where an earlier one did: that
 * one's process is gone (the kernel gave its port to the new one).  Its
 * state stays (its table entry may still be named by a communicator the
 * program did not free), but nothing more goes to it — credits and
 * goodbyes would reach the new process with the old pair's numbers — and
 * nothing is awaited from it. */
static void lc_ofi_retire_at(const unsigned char *raw, uint32_t len, uint64_t incarnation)
{
    for (lc_ofi_peer_t *st = lc_ofi.added_states; st; st = st->next_added) {
        if (st->retired || st->incarnation == incarnation || st->addrlen != len || memcmp(st->addr, raw, len) != 0)
            continue;
        st->retired = 1;
        st->bye_sent = st->bye_received = 1;
    }
}

/* The parts of a peer's address text (lc_ofi_addr_format): its grant,
 * packet size, incarnation and raw endpoint address.  0, or -1 with the
 * reason in `why`. */
typedef struct lc_ofi_parsed {
    unsigned long grant;
    unsigned long long packet;
    uint64_t incarnation;
    unsigned char raw[256];
    size_t n;
} lc_ofi_parsed_t;

static int lc_ofi_parse(const char *text, lc_ofi_parsed_t *a, char *why, size_t whylen)
{
    char prov[64];
    lc_ofi_prov_token(prov, sizeof(prov), lc_ofi.info->fabric_attr->prov_name);
    size_t plen = strlen(prov);
    const char *c1 = strchr(text, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    char *end = NULL;
    unsigned long grant = c2 ? strtoul(c2 + 1, &end, 10) : 0;
    unsigned long long packet = end && *end == ':' ? strtoull(end + 1, &end, 10) : 0;
    uint64_t incarnation = 0;
    if (end && *end == ':' && packet >= 256) {
        const char *inc = end + 1;
        incarnation = lc_hexval(inc[0]) >= 0 ? strtoull(inc, &end, 16) : 0;
        if (end != inc + 16) incarnation = 0;
    }
    if (!c2 || !end || *end != ':' || grant < 1 || grant > 255 || packet < 256 || !incarnation) {
        snprintf(why, whylen, "its network address \"%.60s\" is malformed", text);
        return -1;
    }
    if ((size_t)(c1 - text) != plen || strncmp(text, prov, plen) != 0 ||
        strtoul(c1 + 1, NULL, 10) != lc_ofi.info->addr_format) {
        snprintf(why, whylen,
                 "it chose libfabric provider/address format %.*s, this rank %s:%u; set "
                 "LOCUS_OFI_PROVIDER (and LOCUS_OFI_IFACE) to one that both hosts offer",
                 (int)(c2 - text), text, prov, (unsigned)lc_ofi.info->addr_format);
        return -1;
    }
    const char *hex = end + 1;
    size_t n = strlen(hex) / 2;
    if (n == 0 || n > sizeof(a->raw) || strlen(hex) % 2) {
        snprintf(why, whylen, "its network address has a bad length");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        int hi = lc_hexval(hex[2 * i]), lo = lc_hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            snprintf(why, whylen, "its network address is not hexadecimal");
            return -1;
        }
        a->raw[i] = (unsigned char)(hi << 4 | lo);
    }
    a->n = n;
    a->grant = grant;
    a->packet = packet;
    a->incarnation = incarnation;
    return 0;
}

int lc_ofi_admit(int rank, const char *text, char *why, size_t whylen)
{
    if (!lc_ofi_active || rank < 0 || rank >= lc_ofi.size) {
        snprintf(why, whylen, "the network endpoint is not open");
        return -1;
    }
    lc_ofi_parsed_t a;
    if (lc_ofi_parse(text, &a, why, whylen) != 0) return -1;
    lc_ofi_peer_t *st = &lc_ofi.state[rank];
    if (st->admitted) return 0;
    fi_addr_t fa = FI_ADDR_NOTAVAIL;
    int rc = fi_av_insert(lc_ofi.av, a.raw, 1, &fa, 0, NULL);
    if (rc != 1) {
        snprintf(why, whylen, "fi_av_insert refused its address (%s)", rc < 0 ? fi_strerror(-rc) : "0 inserted");
        return -1;
    }
    st->admitted = 1;
    st->admitted_addr = fa;
    st->addrlen = (uint32_t)(a.n < sizeof(st->addr) ? a.n : sizeof(st->addr));
    memcpy(st->addr, a.raw, st->addrlen);
    return 0;
}

int lc_ofi_connect(lc_peer_t *peer, const char *text, const char *host, char *why, size_t whylen)
{
    lc_ofi_parsed_t a;
    if (lc_ofi_parse(text, &a, why, whylen) != 0) return -1;
    unsigned long grant = a.grant;
    unsigned long long packet = a.packet;
    uint64_t incarnation = a.incarnation;
    const unsigned char *raw = a.raw;
    size_t n = a.n;
    fi_addr_t fa = FI_ADDR_NOTAVAIL;
    lc_ofi_peer_t *admitted = peer->world_rank < lc_ofi.size ? &lc_ofi.state[peer->world_rank] : NULL;
    if (admitted && admitted->admitted && admitted->addrlen == n && memcmp(admitted->addr, raw, n) == 0) {
        fa = admitted->admitted_addr; /* in the address vector since lc_ofi_admit */
    } else {
        int rc = fi_av_insert(lc_ofi.av, raw, 1, &fa, 0, NULL);
        if (rc != 1) {
            snprintf(why, whylen, "fi_av_insert refused its address (%s)", rc < 0 ? fi_strerror(-rc) : "0 inserted");
            return -1;
        }
    }
    lc_ofi_peer_t *st;
    if (peer->world_rank < lc_ofi.size) {
        st = &lc_ofi.state[peer->world_rank];
        peer->ofi.remote_id = (uint32_t)lc_ofi.rank;
    } else {
        /* A peer met after wire-up (another job): its receive buffers
         * are posted now, before it can learn our address's grant from
         * anything we send it; it tells us its id for us (the `src` of
         * our packets) in the hello or the welcome, or the MPI layer's
         * exchange does (lc_ofi_set_remote_id). */
        st = calloc(1, sizeof(*st));
        if (!st) {
            snprintf(why, whylen, "out of memory");
            return -1;
        }
        if (lc_ofi_grow_rx(lc_ofi.window) != 0) {
            free(st);
            snprintf(why, whylen, "cannot post receive buffers for it");
            return -1;
        }
        if (lc_ofi.size + lc_ofi.nadded + 1 > lc_ofi.credit_cap) {
            /* Each peer is on the credit list at most once. */
            int cap = 2 * lc_ofi.credit_cap;
            int *cl = realloc(lc_ofi.credit_list, sizeof(int) * (size_t)cap);
            if (!cl) {
                free(st);
                snprintf(why, whylen, "out of memory");
                return -1;
            }
            lc_ofi.credit_list = cl;
            lc_ofi.credit_cap = cap;
        }
        lc_ofi.nadded++;
        st->next_added = lc_ofi.added_states;
        lc_ofi.added_states = st;
        peer->ofi.remote_id = UINT32_MAX;
    }
    st->addrlen = (uint32_t)(n < sizeof(st->addr) ? n : sizeof(st->addr));
    memcpy(st->addr, raw, st->addrlen);
    st->incarnation = incarnation;
    if (peer->world_rank >= lc_ofi.size) lc_ofi_retire_at(st->addr, st->addrlen, incarnation);
    st->peer = peer;
    if ((uint32_t)peer->world_rank >= lc_ofi.id_limit) lc_ofi.id_limit = (uint32_t)peer->world_rank + 1;
    snprintf(st->host, sizeof(st->host), "%s", host ? host : "?");
    peer->kind = LC_CHANNEL_OFI;
    peer->ops = &lc_channel_ofi_ops;
    peer->ofi.addr = fa;
    peer->ofi.state = st;
    peer->ofi.credits = (uint32_t)grant;
    peer->ofi.owed = 0;
    peer->ofi.tx_seq = 0;
    peer->ofi.rx_seq = 0;
    peer->can_pull = lc_ofi.can_rma;
    peer->pull_min = lc_ofi.rma_threshold;
    /* A packet must fit the receiver's buffers and ours. */
    size_t payload = packet < lc_ofi.packet ? (size_t)packet : lc_ofi.packet;
    peer->eager_limit = payload;
    peer->chunk = payload - sizeof(lc_pkt_data_t);
    snprintf(peer->reason, sizeof(peer->reason), "%.200s%s", lc_ofi.describe,
             lc_ofi.can_rma ? ", fi_read rendezvous" : ", streamed rendezvous");
    return 0;
}

/* ---- peers of other jobs ---------------------------------------------- */

int lc_ofi_ensure_open(lc_peer_t *peers, int rank, int size)
{
    if (lc_ofi_active) return 0;
    int yield = lc_ofi.yield_when_idle; /* lc_ofi_open clears lc_ofi */
    char addr[LC_OFI_ADDR_TEXT_MAX];
    if (lc_ofi_open(peers, rank, size, 0, addr, sizeof(addr)) != 0) return -1;
    lc_ofi.yield_when_idle = yield;
    return 0;
}

const char *lc_ofi_address(void)
{
    return lc_ofi_active ? lc_ofi.my_addr : "";
}

void lc_ofi_set_remote_id(lc_peer_t *peer, uint32_t id)
{
    peer->ofi.remote_id = id;
}

int lc_ofi_hello(lc_peer_t *peer, uint32_t cookie)
{
    lc_ofi_hello_body_t body = { .your_id = (uint32_t)peer->world_rank, .cookie = cookie };
    return lc_ofi_send_intro(peer, LC_OFI_WIRE_HELLO, &body, lc_ofi.my_addr);
}

bool lc_ofi_welcomed(const lc_peer_t *peer)
{
    return peer->kind == LC_CHANNEL_OFI && peer->ofi.state && peer->ofi.state->welcomed;
}

/* ---- close ------------------------------------------------------------- */

/* Goodbyes: a packet we sent may still sit in the provider or the kernel
 * when MPI_Finalize returns, and closing an endpoint can discard it (a TCP
 * reset).  So every pair that exchanged anything swaps a BYE — sent as a
 * tracked send, after all our other packets to that peer (FIFO) — and an
 * endpoint closes only once its BYEs are completed and the peers' arrived.
 * A peer that is gone costs at most the deadline. */
/* Every connected peer's state: the world's (indexed by rank), then the
 * peers met later.  Start with st = NULL, *r = 0. */
static lc_ofi_peer_t *lc_ofi_next_state(lc_ofi_peer_t *st, int *r)
{
    if (st && *r > lc_ofi.size) return st->next_added; /* among the peers met later */
    while (*r < lc_ofi.size) {
        lc_ofi_peer_t *w = &lc_ofi.state[(*r)++];
        if (w->peer) return w;
    }
    *r = lc_ofi.size + 1;
    return lc_ofi.added_states;
}

static void lc_ofi_say_goodbye(void)
{
    lc_ofi.closing = 1;
    double deadline = lc_time_now() + 10;
    for (;;) {
        int waiting = 0;
        lc_ofi_poll();
        int r = 0;
        for (lc_ofi_peer_t *st = lc_ofi_next_state(NULL, &r); st; st = lc_ofi_next_state(st, &r)) {
            lc_peer_t *peer = st->peer;
            if (peer->kind != LC_CHANNEL_OFI || peer->ofi.state != st) continue;
            if ((st->talked || st->bye_received) && !st->bye_sent) {
                if (lc_ofi_send_bare(peer, LC_OFI_WIRE_BYE) == LC_OK) st->bye_sent = 1;
                else waiting = 1;
            }
            if (st->bye_sent && !st->bye_received) waiting = 1;
        }
        if (lc_ofi.tx_busy) waiting = 1;
        if (!waiting) break;
        if (lc_time_now() > deadline) {
            int missing = 0;
            r = 0;
            for (lc_ofi_peer_t *st = lc_ofi_next_state(NULL, &r); st; st = lc_ofi_next_state(st, &r))
                if (st->bye_sent && !st->bye_received) missing++;
            lc_log_warn("network channel: %d peer(s) did not close within 10 s (%u sends unfinished); "
                        "closing anyway", missing, lc_ofi.tx_busy);
            break;
        }
        if (lc_ofi.yield_when_idle) sched_yield();
    }
}

void lc_ofi_close(void)
{
    if (lc_ofi.ep && lc_ofi.state && lc_ofi_active) lc_ofi_say_goodbye();
    lc_ofi_active = false;
    lc_thread_nofast_set(LC_NOFAST_OFI, 0);
    lc_ofi_keepalive_reset();
    if (lc_ofi.ep) fi_close(&lc_ofi.ep->fid);
    int r = 0;
    for (lc_ofi_peer_t *st = lc_ofi.state ? lc_ofi_next_state(NULL, &r) : NULL; st; st = lc_ofi_next_state(st, &r)) {
        while (st->exposed) {
            lc_ofi_exposed_t *e = st->exposed;
            st->exposed = e->next;
            fi_close(&e->mr->fid);
            free(e);
        }
        free(st->held);
        st->held = NULL;
        if (st->peer && st->peer->ofi.state == st) st->peer->ofi.state = NULL;
    }
    while (lc_ofi.added_states) {
        lc_ofi_peer_t *st = lc_ofi.added_states;
        lc_ofi.added_states = st->next_added;
        free(st);
    }
    while (lc_ofi.rx_blocks) {
        lc_ofi_rxblock_t *blk = lc_ofi.rx_blocks;
        lc_ofi.rx_blocks = blk->next;
        if (blk->mr) fi_close(&blk->mr->fid);
        free(blk->pool);
        free(blk->bufs);
        free(blk);
    }
    if (lc_ofi.tx_mr) fi_close(&lc_ofi.tx_mr->fid);
    if (lc_ofi.av) fi_close(&lc_ofi.av->fid);
    if (lc_ofi.cq) fi_close(&lc_ofi.cq->fid);
    if (lc_ofi.domain) fi_close(&lc_ofi.domain->fid);
    if (lc_ofi.fabric) fi_close(&lc_ofi.fabric->fid);
    if (lc_ofi.info) fi_freeinfo(lc_ofi.info);
    free(lc_ofi.tx_pool);
    free(lc_ofi.tx_bufs);
    free(lc_ofi.fifo);
    free(lc_ofi.credit_list);
    free(lc_ofi.state);
    memset(&lc_ofi, 0, sizeof(lc_ofi));
}
