/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_ofi.h — the network channel: libfabric (OFI) reliable datagram
 * endpoints, for peers on other hosts (and for every peer with
 * LOCUS_NET_FORCE).  See docs/ofi.md for the design.
 *
 * What the channel gives the pt2pt engine is what every channel gives:
 * packets (header + payload of at most peer->eager_limit bytes) in FIFO
 * order per (sender, receiver), try_send that says LC_AGAIN instead of
 * blocking, and — where the provider offers FI_RMA — `pull`, a one-sided
 * fi_read of the sender's buffer named in an RTS.
 *
 * Flow control: a receiver pre-posts `credits` bounce buffers per peer
 * (+2 for credit returns, see lc_ofi_impl.h), a sender spends one credit
 * per packet and gets them back piggy-backed on the receiver's packets or
 * in explicit credit packets.  A slow receiver therefore never loses a
 * packet and a fast sender never buffers more than its fixed pools: when
 * it is out of credits or send buffers, try_send returns LC_AGAIN and the
 * engine retries from progress.
 *
 * Completions are polled by the one progress engine (lc_ofi_poll from
 * lc_progress); the channel starts no thread.
 */
#ifndef LC_OFI_H
#define LC_OFI_H

#include "channel/lc_channel.h"

#include <sys/types.h>

/* Longest address text lc_ofi_open writes (fits a PMI value: no spaces,
 * under 1024 characters). */
#define LC_OFI_ADDR_TEXT_MAX 600

/* Keepalive for network peers on other hosts (lc_ofi_keepalive.c), from
 * the slow path of waits: 1 and a message in msg when a provider
 * connection heard nothing for LOCUS_NET_TIMEOUT seconds although its
 * kernel was probed.  _reset at close. */
int lc_ofi_keepalive_check(double now, char *msg, size_t len);
void lc_ofi_keepalive_reset(void);

/* True while the endpoint is open: lc_progress polls it. */
extern bool lc_ofi_active;

extern const lc_channel_ops_t lc_channel_ofi_ops;

/* Open the endpoint of this process (rank `rank` of `size`; `peers` is
 * the world-rank-indexed peer table, `npeers` how many of them will use
 * this channel: it sizes the receive pool) and post the receive buffers.
 * Reads the LOCUS_OFI_* parameters.  Writes this endpoint's address as
 * text for the other ranks into `addr`.  Returns 0, or -1 after logging
 * what failed and what to do. */
int lc_ofi_open(lc_peer_t *peers, int rank, int size, int npeers, char *addr, size_t addrlen);

/* Make `peer` an ofi peer reached at `addr` (its lc_ofi_open text);
 * `host` names it in diagnostics.  Sets kind, ops, can_pull, pull_min,
 * eager_limit and chunk (the packet size both ends accept), reason.
 * Returns 0, or -1 with the reason in `why`. */
int lc_ofi_connect(lc_peer_t *peer, const char *addr, const char *host, char *why, size_t whylen);

/* Put world rank `rank`'s address (its lc_ofi_open text) in the address
 * vector now, before it may send to us, without making it a peer: a
 * packet from a process outside the vector is dropped (lc_ofi_arrived),
 * so wire-up admits every rank that might fall back to the network after
 * the last fence (the agree phase) before that fence.  lc_ofi_connect
 * later uses the same entry.  0, or -1 with the reason in `why`. */
int lc_ofi_admit(int rank, const char *addr, char *why, size_t whylen);

/* ---- peers of other jobs (docs/dynamic.md) ----------------------------- */

/* Open the endpoint now if wire-up did not (no world peer needed the
 * network): for ports, connect/accept and spawn.  Receive buffers are
 * then posted peer by peer as peers are met.  0, or -1 after logging. */
int lc_ofi_ensure_open(lc_peer_t *peers, int rank, int size);
/* This endpoint's address text (as lc_ofi_open wrote it); "" if closed. */
const char *lc_ofi_address(void);
/* Our id in `peer`'s table: the `src` its packets from us must carry. */
void lc_ofi_set_remote_id(lc_peer_t *peer, uint32_t id);
/* First contact with a process of another job that does not know us
 * (its address came in a port name): `peer` is connected (lc_ofi_connect
 * on an entry added after wire-up); the hello carries our address, our id
 * for it and `cookie`; the peer answers with a welcome (its id for us).
 * Nothing else may be sent to the peer before lc_ofi_welcomed.  LC_OK or
 * LC_AGAIN (call again after progress). */
int lc_ofi_hello(lc_peer_t *peer, uint32_t cookie);
bool lc_ofi_welcomed(const lc_peer_t *peer);
/* Called from progress when a hello arrives: add the sender (address
 * text `addr`) as a peer connected by lc_ofi_connect and return it, or
 * return NULL (after logging) to ignore the hello.  Set by the MPI layer. */
typedef lc_peer_t *lc_ofi_stranger_fn(const char *addr, uint32_t cookie);
extern lc_ofi_stranger_fn *lc_ofi_stranger_hook;

/* Waiting inside the channel (a pull waiting for its fi_read) yields the
 * CPU between fruitless polls, like the engine's waits. */
void lc_ofi_set_idle_yield(int yield);

/* Provider and domain in use, for diagnostics ("tcp;ofi_rxm on eth0"). */
const char *lc_ofi_describe(void);

/* Progress: read completions, deliver arrived packets to the engine's
 * handler (in order per peer), return credits.  Returns the number of
 * packets delivered. */
int lc_ofi_poll(void);

/* ---- one-sided windows (lc_ofi_rma.c; used by src/rma/lc_rma_ofi.c) ---- */

/* Operations in flight of one window (or of one call that waits for its
 * own): posting one adds 1 to `pending`, its completion takes 1 away and
 * records the first failure.  Lives until `pending` is 0. */
typedef struct lc_ofi_rma_track {
    uint64_t pending;
    int err;       /* libfabric error of the first failed operation, 0: none */
    char why[160]; /* its text */
} lc_ofi_rma_track_t;

/* The endpoint is open and the provider reads and writes registered
 * memory of peers (FI_RMA with FI_WRITE, FI_REMOTE_WRITE, FI_REMOTE_READ). */
bool lc_ofi_rma_usable(void);
/* Whether a completed write is in the target's memory (FI_DELIVERY_COMPLETE
 * honoured).  When not, a read issued after writes to the same peer
 * completes after them (FI_ORDER_RAW, checked by lc_ofi_rma_usable). */
bool lc_ofi_rma_delivery_complete(void);
/* Whether the provider says it serves peers' reads and writes of our
 * memory by itself (FI_PROGRESS_AUTO).  Only what it says: net says so
 * and still needs polling (docs/ofi.md, "One-sided windows"). */
bool lc_ofi_rma_auto_progress(void);
/* Register [buf, buf+len) for peers to read and write; *key_p is the key
 * they name it by (random where the provider lets us choose), *addr_p
 * the address they name its first byte by (buf, or 0 for providers that
 * address registrations by offset).  0 or a negative libfabric code. */
/* fi_strerror for a negative libfabric return code. */
const char *lc_ofi_strerror(ssize_t rc);
int lc_ofi_rma_reg(void *buf, size_t len, void **mr_p, uint64_t *key_p, uint64_t *addr_p);
void lc_ofi_rma_dereg(void *mr);
/* Post a write of `len` bytes at `local` to `remote` (key `key`) of
 * `peer`, or a read of them into `local`.  LC_OK (counted in `t`),
 * LC_AGAIN (the provider's queue is full: drive progress, try again) or
 * LC_ERROR after logging.  `local` must stay valid until the completion. */
int lc_ofi_rma_write(lc_peer_t *peer, const void *local, size_t len, uint64_t remote, uint64_t key,
                     lc_ofi_rma_track_t *t);
int lc_ofi_rma_read(lc_peer_t *peer, void *local, size_t len, uint64_t remote, uint64_t key, lc_ofi_rma_track_t *t);

/* Say goodbye to every peer this process exchanged packets with (so that
 * nothing still in flight is lost when endpoints close), then close
 * everything.  Idempotent. */
void lc_ofi_close(void);

#endif
