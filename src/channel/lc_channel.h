/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_channel.h — what every channel (transport) offers the pt2pt engine.
 *
 * A channel moves *packets*: a 24-byte header plus a payload of at most
 * `peer->eager_limit` bytes, in FIFO order per (sender, receiver) pair.  On top
 * of that the pt2pt engine builds its eager and rendezvous protocols.  A
 * channel may also offer `pull`: a single copy from the peer's memory
 * (CMA for shm peers, memcpy for self).
 *
 * Incoming packets are handed to one handler that the pt2pt engine
 * registers at start-up (a downward dependency: channels never call the
 * engine by name).
 *
 * Ops tables are filled with designated initializers; an operation a
 * channel cannot do points at an explicit "unsupported" function.
 */
#ifndef LC_CHANNEL_H
#define LC_CHANNEL_H

#include "util/lc_lock.h"
#include "util/lc_error.h"
#include "util/lc_list.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/types.h>

/* Packet kinds of the pt2pt protocols. */
typedef enum lc_pkt_kind {
    LC_PKT_EAGER = 1, /* header + whole message */
    LC_PKT_RTS,       /* request to send: lc_pkt_rts_t, the data stays with the sender */
    LC_PKT_CTS,       /* clear to send (two-copy pipeline): lc_pkt_ctl_t */
    LC_PKT_DATA,      /* pipeline fragment: lc_pkt_data_t + bytes */
    LC_PKT_FIN,       /* receiver pulled the data: sender may complete (lc_pkt_ctl_t) */
    LC_PKT_ACK,       /* synchronous eager message was matched (lc_pkt_ctl_t) */
} lc_pkt_kind_t;

#define LC_PKT_FLAG_SYNC 0x1 /* sender waits for ACK (MPI_Ssend) */
/* RTS of a derived-datatype send that was not packed (lc_pt2pt_typed.c).
 * LIST: rts.addr is the sender's block list, rts.nblocks struct iovec
 * entries in its memory naming the message's segments in packed order;
 * a receiver that pulls reads the list, then the segments (one copy).
 * NOPULL: no readable copy exists; the receiver answers CTS and the
 * sender packs the pipeline's DATA fragments straight into the cells. */
#define LC_PKT_FLAG_LIST 0x2
#define LC_PKT_FLAG_NOPULL 0x4
/* CTS: write this message's pipeline fragments into the big cells with
 * non-temporal stores (the receiver's pick chose that variant,
 * src/pt2pt/lc_pt2pt_pick_variant.c; the sender calls lc_shm_set_big_nt). */
#define LC_PKT_FLAG_NT 0x8
/* The split copy (src/pt2pt/lc_pt2pt_split.c).  CTS: push your part of
 * this message; hdr.tag names the claim slot in the receiver's segment
 * (lc_shm_split.h), ctl.rreq the receive.  FIN, from the sender: the
 * sender placed the message's last bytes; it names the receive (rreq),
 * and sreq is 1 when one of its pushes failed, else 0. */
#define LC_PKT_FLAG_SPLIT 0x10

typedef struct lc_pkt_hdr {
    uint8_t kind;    /* lc_pkt_kind_t */
    uint8_t flags;
    uint16_t reserved;
    uint32_t len;    /* payload bytes that follow this header */
    int32_t tag;
    uint32_t ctx;    /* context id of the communicator */
    int32_t src;     /* sender's rank in that communicator */
    uint32_t sreq;   /* EAGER with LC_PKT_FLAG_SYNC: sender's request, echoed in ACK */
} lc_pkt_hdr_t;      /* 24 bytes: with the ring's 8-byte sequence, a 32-byte cell header */

/* Requests are named on the wire by their index in the owner's request
 * pool (never a pointer: the peer only echoes it back). */
typedef struct lc_pkt_rts {
    uint64_t size;   /* whole message */
    uint64_t addr;   /* sender's buffer, for pull (as the channel names it: see key) */
    uint32_t sreq;   /* sender's request, echoed in CTS/FIN */
    uint32_t nblocks; /* LC_PKT_FLAG_LIST: entries of the block list at addr; else 0 */
    uint64_t key;    /* remote-access key of the buffer: filled in by a channel that needs one
                      * (ofi registers the buffer as the RTS leaves, and may rewrite addr to an
                      * offset in that registration); 0 for self and shm */
    uint64_t stamp_ns; /* sender's CLOCK_MONOTONIC (ns) as the RTS left, for a receiver on the same
                        * kernel that calibrates CMA against the pipeline (lc_pt2pt_pick.c); 0: none */
} lc_pkt_rts_t;

typedef struct lc_pkt_ctl {
    uint32_t sreq;
    uint32_t rreq;   /* CTS: receiver's request, echoed in DATA */
} lc_pkt_ctl_t;

typedef struct lc_pkt_data {
    uint32_t rreq;
    uint32_t reserved;
    uint64_t offset;
} lc_pkt_data_t;

typedef enum lc_channel_kind {
    LC_CHANNEL_SELF = 0,
    LC_CHANNEL_SHM,
    LC_CHANNEL_OFI,   /* libfabric (lc_ofi.h): peers on other hosts, or all with LOCUS_NET_FORCE */
    LC_CHANNEL_NONE,  /* unreachable: no channel proved usable */
    LC_CHANNEL_IVSHMEM, /* shm rings in an IVSHMEM region (lc_ivshmem.h): a rank in another VM on this host */
} lc_channel_kind_t;

struct lc_peer;

typedef struct lc_channel_ops {
    const char *name;
    /* Send one packet made of hdr + (pre, prelen) + (data, datalen).
     * LC_OK, or LC_AGAIN when the channel has no room right now. */
    int (*try_send)(struct lc_peer *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                    const void *data, size_t datalen);
    /* Copy len bytes at the peer's address `remote` (with the RTS's
     * remote-access `key`) into `local`.  LC_OK, or LC_ERROR (message
     * logged). */
    int (*pull)(struct lc_peer *peer, void *local, uint64_t remote, uint64_t key, size_t len);
    /* Optional (NULL when the channel has none): the same, scattered into
     * niov local segments totalling len bytes (a derived datatype's
     * receive buffer, described by the datatype cursor). */
    int (*pullv)(struct lc_peer *peer, const struct iovec *local, int niov, uint64_t remote, uint64_t key, size_t len);
    /* Optional (NULL when the channel has none): len bytes from nremote
     * segments of the peer's memory (addresses as the peer sees them: a
     * derived-datatype send's block list) into nlocal local segments;
     * the remote segments may total more than len.  At most
     * LC_CHANNEL_IOV_MAX on each side. */
    int (*pull_list)(struct lc_peer *peer, const struct iovec *local, int nlocal, const struct iovec *remote,
                     int nremote, size_t len);
} lc_channel_ops_t;

/* Segments per side of one pull_list call: Linux's IOV_MAX (UIO_MAXIOV),
 * the most one process_vm_readv takes. */
#define LC_CHANNEL_IOV_MAX 1024

/*
 * Per-peer state of each channel, embedded by value in lc_peer_t (no
 * pointer to chase on the message path).  Only the owning channel's files
 * read or write it; the coordinator makes a peer a channel's peer through
 * that channel's connect function (lc_shm_connect, lc_cma_connect,
 * lc_ofi_connect) and never sets these fields itself.
 */

/* shm (lc_shm.h): one ring each way.  The positions are private copies
 * (only the cells are shared), see the ring protocol in lc_shm.h. */
typedef struct lc_peer_shm {
    /* The ring in the peer's segment that this process writes to. */
    char *tx_cells;
    uint64_t tx_pos;
    uint64_t tx_mask;       /* cells - 1 (a power of two) */
    uint32_t tx_cell_size;
    /* Nonzero: ring the peer's doorbell after each packet when it asked
     * (LC_SHM_BELL_ALWAYS), or also only while it says it is pressed
     * (LC_SHM_BELL_IF_PRESSED; lc_shm_bell.h, tx_bell_word). */
    uint32_t tx_bell;
    /* Nonzero: our pipeline fragments to this peer go into our big cells
     * with non-temporal stores (lc_copy_nt.h; set at connect from
     * LOCUS_SHM_BIG_NT; lc_shm_set_big_nt, the switch a per-pair choice sets). */
    uint32_t tx_big_nt;
    /* The ring in this process's segment that the peer writes to (its
     * mask and cell size are this process's, held by lc_shm.c). */
    char *rx_cells;
    uint64_t rx_pos;
    /* The peer's send pool (in its segment), where its pooled packets'
     * payloads are; its geometry as checked when the segment was mapped. */
    char *rx_pool;
    uint32_t rx_pool_cells;
    uint32_t rx_pool_cell_size;
    /* Its big cells (pipeline fragments), checked likewise. */
    char *rx_big;
    uint32_t rx_big_cells;
    uint32_t rx_big_cell_size;
    struct lc_shm_bell *tx_bell_word; /* in the peer's segment */
    /* The split copy's claim slots (lc_shm_split.h): the peer's, in its
     * segment (we push our part of a message it split), and ours (we
     * split messages from it).  NULL where there are none (IVSHMEM). */
    struct lc_shm_split_slot *tx_split;
    struct lc_shm_split_slot *rx_split;
} lc_peer_shm_t;

/* cma (lc_cma.h): the single copy needs nothing but the peer's pid, valid
 * once the probe read the peer's cookie through it. */
typedef struct lc_peer_cma {
    pid_t pid;
} lc_peer_cma_t;

/* ofi (lc_ofi.h): the hot per-peer state of the network channel; the rest
 * (reorder window, registered send buffers, address) behind `state`. */
typedef struct lc_peer_ofi {
    uint64_t addr;          /* fi_addr_t of the peer in our address vector */
    uint32_t credits;       /* packets we may still send: receive buffers the peer holds for us */
    uint32_t owed;          /* the peer's packets we consumed and not yet credited back */
    uint16_t tx_seq;        /* number of our next packet to the peer */
    uint16_t rx_seq;        /* number of the next packet we deliver from the peer */
    uint32_t remote_id;     /* our id in the peer's table: the `src` of our packets (our world
                             * rank for a peer of our job; told at connect for others) */
    struct lc_ofi_peer *state;
} lc_peer_ofi_t;

/* The receiver's choice between pulling a rendezvous message (single
 * copy) and asking for the two-copy pipeline, per size class of the
 * messages from one peer, when LOCUS_CMA_THRESHOLD is auto (the pt2pt
 * engine's, src/pt2pt/lc_pt2pt_pick.c; the channel only holds it). */
#define LC_PICK_CLASSES 4
typedef struct lc_pick_class {
    uint8_t n_pull, n_pipe;   /* samples taken of each (counted up to LC_PICK_SAMPLES: the first decision) */
    uint8_t choice;           /* lc_pick_choice_t (lc_pt2pt_pick.h): undecided, pull, pipeline */
    uint8_t demoted;          /* CMA because the chosen pipeline crawled (not because it sampled slower) */
    uint8_t slow_watch;       /* watch periods in a row that read the chosen pipeline crawling */
    uint32_t uses;            /* messages since the decision: at LC_PICK_RETRY, sampled afresh */
    uint32_t since_probe;     /* timed messages since the protocol not chosen was last tried */
    uint32_t flips;           /* times a decided class changed its mind on newer samples */
    uint32_t pulls, pull_skip; /* windowed pulls of the decided class timed, and untimed ones to
                                * come before the next (lc_pick_pull_timed) */
    double pull_bw, pipe_bw;  /* recent throughput of each, bytes per second: the best of the
                               * current round of samples and the round before */
    double round_best[2];     /* best of the current round: [0] pipeline, [1] pull; as timed
                               * from the receiver's taking the RTS, without the transit */
    double last_best[2];      /* best of the round before */
    double round_size[2], last_size[2]; /* those best samples' sizes (bytes) */
    uint8_t round_n[2];       /* samples in the current round (both end it together) */
    uint32_t round_msgs;      /* samples of either since a round last ended */
    /* The pipeline's rate over a watch period (LC_PICK_WATCH_MSGS messages)
     * of this class alone with no pull from the peer in it: a window's
     * rate, which lone samples cannot show (0: none yet).  Best of this
     * round of LC_PICK_SAMPLES periods and the one before, like the rest. */
    double win_bw;
    double win_round_best, win_last_best;
    uint8_t win_round_n;
    double win_pull_bw;       /* pull_bw when a watch period last renewed win_bw: what the window
                               * figure is weighed against when CMA's has risen since (lc_pt2pt_pick_winprobe.c) */
    uint32_t win_since_probe; /* windows pulled since one went through the pipeline whole (a window
                               * probe, lc_pt2pt_pick_winprobe.c) */
    /* Bytes and seconds of the watch periods of this round and the one
     * before (those win_bw is the best of) that were a window's (not lone
     * messages': watch_win): their mean is what a whole
     * window through the pipeline moves, its slow first period included,
     * which spaces the window probes (session 22, lc_pick_win_mean). */
    double win_round_bytes, win_round_time, win_last_bytes, win_last_time;
    /* CMA's own window figure (session 19, lc_pt2pt_pick_pullwin.c): the
     * rate of back-to-back pulls in windows over periods of
     * LC_PICK_WATCH_MSGS of them, best of this round of LC_PICK_SAMPLES
     * periods and the one before (0: none yet).  What the pipeline's
     * window figure (win_bw) is weighed against, where a lone pull's
     * samples were all there was. */
    double pwin_bw;
    double pwin_round_best, pwin_last_best;
    uint8_t pwin_round_n;
    uint32_t pwin_since_probe; /* windows pipelined since one was pulled whole (a CMA window probe) */
    double win_pwin_bw;       /* pwin_bw when a watch period last renewed win_bw (as win_pull_bw) */
    /* The pipeline's variant (session 15): fragments with normal stores
     * ([0]) or non-temporal ones ([1]), picked on their own lone samples
     * (every pipeline sample is also one of its variant's), kept in
     * rounds as the protocols' are. */
    uint8_t nt;               /* the variant pipelined messages of the class take */
    uint8_t var_n[2];         /* samples of each (up to LC_PICK_SAMPLES: both there, the variant
                               * is decided) */
    uint8_t var_round_n[2];
    uint32_t var_round_msgs, var_since_probe;
    double var_bw[2], var_round_best[2], var_last_best[2];
    double var_round_size[2], var_last_size[2];
    /* CMA's variant (session 22, lc_pt2pt_pick_split.c): one core's pull
     * ([0]) or the split copy with the sender ([1]), picked on CMA's
     * window periods of each (sv_*, rounds as the others'). */
    uint8_t split;   /* the variant this class's pulls take */
    uint8_t sv_able; /* some message of the class could be split (LOCUS_CMA_SPLIT=auto) */
    uint8_t sv_n[2]; /* window periods of each (up to LC_PICK_SAMPLES: both there, decided) */
    uint8_t sv_round_n[2];
    uint32_t sv_round_msgs, sv_since_probe;
    double sv_bw[2], sv_round_best[2], sv_last_best[2];
    double sv_round_size[2], sv_last_size[2];
    /* The same choice for lone pulls (session 23, lc_pt2pt_pick_split.c):
     * picked on the lone timed pulls of each variant (ls_*), a split one
     * timed to the receive's completion. */
    uint8_t lsplit;  /* the variant this class's lone pulls take, once ls_n says decided */
    uint8_t ls_n[2]; /* lone timed pulls of each (up to LC_PICK_SAMPLES: both there, decided) */
    uint8_t ls_probe; /* pulls left in a run of the lone variant not chosen (a probe) */
    uint8_t ls_round_n[2];
    uint32_t ls_round_msgs, ls_since_probe;
    double ls_bw[2], ls_round_best[2], ls_last_best[2];
    double ls_round_size[2], ls_last_size[2];
} lc_pick_class_t;
typedef struct lc_peer_pick {
    bool calibrate;           /* can_pull, pull_min is where candidates start, classes decide */
    bool sampling;            /* a pipeline sample from this peer is in flight */
    uint32_t pipelining;      /* receives from this peer waiting for DATA */
    uint32_t sending;         /* our rendezvous sends to this peer whose RTS left, not yet finished */
    double transit;           /* fastest RTS seen, sender's stamp to the receiver taking it (s) */
    double last_rts;          /* sender's stamp of the last candidate's RTS (s; 0: unknown) */
    bool win_seen;            /* a window started since the last lone candidate (lc_pt2pt_pick.c
                               * counts windows by their starts) */
    uint8_t win_probe;        /* 1 + the class of a window probe going on; 0: none */
    /* The pipeline at work once chosen: bytes it delivered and the time
     * some pipelined receive was pending, since the last judgement; only
     * candidates count (from LC_PICK_MIN on: smaller ones always pipeline),
     * and only contiguous ones: while a receive that a datatype packs or
     * unpacks (`layout_bound` of them) is pending, the clock stops. */
    uint32_t watching, watch_msgs, layout_bound;
    double watch_bytes, watch_time, watch_since;
    uint8_t watch_cls;        /* 1 + the class of the period's messages; 0: none yet, 0xff: several */
    bool watch_mixed;         /* a pull from the peer while some pipelined receive was pending */
    bool watch_win;           /* two watched receives pending at once in the period (a window's) */
    /* Pulls in windows (lc_pt2pt_pick_pullwin.c): the end of the last pull
     * from the peer, the RTS stamp of the pull being made, and the period
     * of windowed pulls being added up. */
    double pull_end, pull_rts;
    double pw_bytes, pw_time;
    uint32_t pw_msgs;
    uint8_t pw_cls;           /* 1 + the class of the period's pulls; 0: none yet */
    uint8_t pw_split;         /* the CMA variant of the period's pulls (1: split copy) */
    uint8_t pull_probe;       /* 1 + the class of a CMA window probe going on; 0: none */
    lc_pick_class_t cls[LC_PICK_CLASSES];
} lc_peer_pick_t;
/* The smallest candidate for calibration: below it, the pipeline (a pull's
 * system call costs as much as a few 8 KiB fragments). */
#define LC_PICK_MIN ((size_t)64 << 10)

/* Per-peer state, indexed by world rank.  Filled once at wire-up (the
 * coordinator in src/coord and the channels' connect functions), then
 * read on every message.
 *
 * Layout: what a small send to a shm peer reads (kind, eager_limit, the
 * pending queue's head, the tx half of `shm`) is the first 64 bytes, and
 * the table is 64-byte aligned, so that fast path touches one cache line
 * of it.  The diagnostic text comes last. */
typedef struct lc_peer {
    _Alignas(64) lc_channel_kind_t kind;
    int world_rank;
    size_t eager_limit;     /* messages up to this size go in one EAGER packet */
    /* Outgoing work that found the channel full, in FIFO order (the pt2pt
     * engine owns the entries).  Non-empty => new messages queue too, so
     * that MPI's non-overtaking order holds. */
    lc_list_t pending;
    lc_peer_shm_t shm;
    /* MPI_THREAD_MULTIPLE, shm peers only (lc_lock.h): tx_lock guards the
     * ring we write and `pending` (a packet goes into the ring, or joins
     * the queue, in one hold: non-overtaking); rx_lock the ring we read,
     * taken by try-lock — a thread that finds it held goes on, the holder
     * drains it. */
    lc_lock_t tx_lock;
    lc_lock_t rx_lock;

    const lc_channel_ops_t *ops;
    size_t chunk;           /* data bytes of one pipelined DATA packet */
    bool can_pull;          /* ops->pull proven to work for this peer */
    size_t pull_min;        /* with can_pull: rendezvous messages at least this large are pulled */
    lc_peer_cma_t cma;
    lc_peer_ofi_t ofi;
    lc_peer_pick_t pick;

    char reason[256];       /* why this channel was chosen (SHOW_CHANNELS) */
} lc_peer_t;

/* Start a peer's pick afresh (wire-up, once CMA is proven): with
 * `calibrate`, rendezvous messages from LC_PICK_MIN on are candidates and
 * the receiver measures which way each size class goes. */
static inline void lc_peer_pick_reset(lc_peer_t *peer, bool calibrate)
{
    memset(&peer->pick, 0, sizeof(peer->pick));
    peer->pick.calibrate = calibrate;
    if (calibrate) peer->pull_min = LC_PICK_MIN;
}

_Static_assert(offsetof(lc_peer_t, shm.tx_bell) + sizeof(uint32_t) <= 64,
               "a shm send must find what it needs in the peer's first cache line");

typedef void (*lc_channel_recv_func_t)(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload);

/* The engine's packet handler: set once at start-up. */
extern lc_channel_recv_func_t lc_channel_recv_handler;

extern const lc_channel_ops_t lc_channel_self_ops;
extern const lc_channel_ops_t lc_channel_shm_ops;

/* A packet from `from` is malformed (what no Locus sender produces): say
 * so once ("rank R received a malformed packet from rank P (world) on
 * shm: <printf(fmt, ...)>; ending the job") and end the job through the
 * launcher, as MPI_Abort does, with exit code LC_PEER_FAULT_EXIT
 * (lc_channel_fault.c).  For the receive paths: never lc_fatal or a
 * crash on a peer's bytes. */
#define LC_PEER_FAULT_EXIT 1
void lc_peer_fault(const lc_peer_t *from, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/* Explicit "not supported" implementations for ops tables. */
int lc_channel_pull_unsupported(lc_peer_t *peer, void *local, uint64_t remote, uint64_t key, size_t len);

#endif
