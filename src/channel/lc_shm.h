/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_shm.h — shared-memory rings between the processes of one host.
 *
 * Every process owns one segment holding one single-producer/single-
 * consumer ring per local sender.  A ring is an array of fixed-size cells;
 * each cell starts with a 64-bit sequence number that carries both
 * ownership and ordering (the scheme of Vyukov's bounded queue):
 *
 *   seq == pos            cell is free for the sender's write number pos
 *   seq == pos + 1        cell holds packet number pos for the receiver
 *   seq == pos + ncells   receiver released it: free for write pos + ncells
 *
 * Sender and receiver positions live in private memory (lc_peer_t), so the
 * only cache lines that move between the two cores are the cells
 * themselves; an 8-byte message is one line (8 B seq + 24 B header +
 * payload from byte 32).  No lock, no system call, no allocation.
 *
 * Ring cells are small (LOCUS_SHM_RING_CELL_SIZE, 128 B): the per-pair
 * part of the memory, N^2 of them on a host of N ranks.  A packet that
 * does not fit one goes through the sender's *pool* (issue 13): every
 * segment also holds a pool of large cells (LOCUS_SHM_POOL_CELLS x
 * LOCUS_SHM_CELL_SIZE) that its owner fills for any receiver; the ring
 * cell then carries the header, LC_SHM_FLAG_POOL and the pool cell's
 * index (lc_shm_pool.c).  The receiver reads the payload in place from
 * the sender's segment, checks index and length against the geometry it
 * validated at attach, and hands the pool cell back by clearing its
 * `busy` word.  Pipeline fragments larger than a pool cell go the same
 * way through the sender's few *big cells* (LOCUS_SHM_BIG_CELLS x
 * LOCUS_SHM_BIG_CELL_SIZE, issue 13: more data in flight, fewer
 * fragments), marked LC_SHM_FLAG_POOL | LC_SHM_FLAG_BIG.  Memory of a
 * host: N x (N x ring + pool + big cells), formula in
 * lc_shm_segment_bytes.
 */
#ifndef LC_SHM_H
#define LC_SHM_H

#include "channel/lc_channel.h"
#include "channel/lc_shm_bell.h"
#include "datatype/lc_dt.h"

#include <stdatomic.h>
#include <string.h>

#define LC_SHM_CELL_HDR 32 /* sequence + packet header */

typedef struct lc_shm_cell {
    _Atomic uint64_t seq;
    lc_pkt_hdr_t hdr;
    /* payload follows at offset LC_SHM_CELL_HDR */
} lc_shm_cell_t;

_Static_assert(sizeof(lc_shm_cell_t) == LC_SHM_CELL_HDR, "cell header must be 32 bytes");

/* A ring packet whose payload is in the sender's pool: the ring cell's
 * payload is the pool cell's index (uint32_t).  Channel-private: the poll
 * clears it before the engine sees the header. */
#define LC_SHM_FLAG_POOL 0x80
_Static_assert((LC_SHM_FLAG_POOL & LC_PKT_FLAG_SYNC) == 0, "pool flag collides with a pt2pt flag");
/* With LC_SHM_FLAG_POOL: the index is of one of the sender's big cells
 * (a DATA packet only); same layout and ownership as a pool cell. */
#define LC_SHM_FLAG_BIG 0x40
_Static_assert((LC_SHM_FLAG_BIG & (LC_PKT_FLAG_SYNC | LC_PKT_FLAG_LIST | LC_PKT_FLAG_NOPULL | LC_SHM_FLAG_POOL)) == 0,
               "big-cell flag collides with another flag");

/* A pool cell: the `busy` word in its own line (sender sets it, receiver
 * clears it with release once it has read the payload), the payload from
 * byte LC_SHM_POOL_HDR. */
#define LC_SHM_POOL_HDR 64
typedef struct lc_shm_pool_cell {
    _Atomic uint64_t busy;
} lc_shm_pool_cell_t;

/* Out of line (lc_shm_pool.c): a packet larger than the peer's ring
 * cells, through our pool, or a DATA packet larger than a pool cell
 * through our big cells.  LC_AGAIN when the ring or the cells are full. */
int lc_shm_try_send_pooled(lc_peer_t *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                           const void *data, size_t datalen);

/* Out of line (lc_shm_pool.c): the same with the data packed from a
 * datatype cursor (datalen bytes from its position) straight into the
 * ring or pool cell.  LC_AGAIN leaves the cursor where it was. */
int lc_shm_try_send_cursor(lc_peer_t *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                           lc_dt_cursor_t *cur, size_t datalen);

/* Whether our pipeline fragments to `peer` go into our big cells with
 * non-temporal stores (lc_copy_nt.h; docs/architecture.md "Non-temporal
 * big cells").  lc_shm_connect sets it from LOCUS_SHM_BIG_NT; a per-pair
 * choice may change it at any time, even while a message is streaming:
 * only the speed depends on it, and only this sender reads it. */
static inline void lc_shm_set_big_nt(lc_peer_t *peer, bool on)
{
    peer->shm.tx_big_nt = on;
}

static inline lc_shm_cell_t *lc_shm_cell(char *cells, uint64_t pos, uint64_t mask, uint32_t cell_size)
{
    return (lc_shm_cell_t *)(cells + (pos & mask) * cell_size);
}

/* Fast path of a send: one packet into the peer's ring, or LC_AGAIN when
 * the ring is full.  The caller guarantees prelen + datalen fits a packet
 * (peer->eager_limit, peer->chunk); what does not fit a ring cell goes
 * through the pool. */
LC_INLINE int lc_shm_try_send(lc_peer_t *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                              const void *data, size_t datalen)
{
    if (lc_unlikely(prelen + datalen > peer->shm.tx_cell_size - LC_SHM_CELL_HDR))
        return lc_shm_try_send_pooled(peer, hdr, pre, prelen, data, datalen);
    uint64_t pos = peer->shm.tx_pos;
    lc_shm_cell_t *cell = lc_shm_cell(peer->shm.tx_cells, pos, peer->shm.tx_mask, peer->shm.tx_cell_size);
    /* Acquire: the receiver's reads of this cell's previous contents
     * happened before it released the cell to us. */
    if (atomic_load_explicit(&cell->seq, memory_order_acquire) != pos) return LC_AGAIN;
    cell->hdr = *hdr;
    cell->hdr.len = (uint32_t)(prelen + datalen);
    char *payload = (char *)cell + LC_SHM_CELL_HDR;
    if (prelen) memcpy(payload, pre, prelen);
    if (datalen) lc_copy_short(payload + prelen, data, datalen);
    /* Release: header and payload are visible before the receiver sees
     * the new sequence number. */
    atomic_store_explicit(&cell->seq, pos + 1, memory_order_release);
    peer->shm.tx_pos = pos + 1;
    lc_shm_bell_check(peer);
    return LC_OK;
}

/* ---- objects (lc_shm_obj.c): <where>/<stem>-<token>/<leaf> ------------
 * Every shared-memory object (a rank's rings, a shared window) is alone
 * in a directory of its creator's, mode 0700, named with 64 random bits
 * that only the job's ranks learn (issue 12, point 3). */
#define LC_SHM_PATH_MAX 512
/* The directory of the objects: /dev/shm, or LOCUS_SHM_DIR. */
const char *lc_shm_where(void);
/* "<where>/<stem>-<token as 16 hex digits>/<leaf>" in buf: 0, or -1 when
 * it does not fit. */
int lc_shm_obj_path(char *buf, size_t len, const char *stem, uint64_t token, const char *leaf);
/* Open the (checked) directory of the object at `path`: its descriptor,
 * or -1 with the reason in `why`. */
int lc_shm_obj_opendir(const char *path, char *why, size_t whylen);
/* Open the object at `path` through its checked directory, without
 * following links (flags: O_RDWR or O_RDONLY).  A descriptor, or -1 with
 * errno and the reason in `why`.  The caller checks the object
 * (lc_shm_check_owned). */
int lc_shm_obj_open(const char *path, int flags, char *why, size_t whylen);
/* Create the directory of `path` (exclusively, mode 0700) and put the
 * object in it: the unnamed object `fd` (O_TMPFILE) is linked there, or
 * with fd < 0 a new empty one is created (O_EXCL, mode 0600).  Returns
 * the object's descriptor (fd itself when given); -1 with errno (EEXIST:
 * the name is taken); -2 when the new directory was removed before the
 * object was in it (a sweep took it for a dead job's: draw another
 * token and call again). */
int lc_shm_obj_place(const char *path, int fd);
/* Remove the object at `path` and its directory.  Idempotent. */
void lc_shm_obj_remove(const char *path);

/* A shared window's segment (lc_shm_winobj.c; its layout is
 * src/rma/lc_rma_seg.c's): what every rank of the window expects of it.
 * A header of LC_SHM_WIN_HDR bytes at hdr_off holds a magic, the key and
 * this geometry; len is the whole object. */
#define LC_SHM_WIN_HDR 64
typedef struct lc_shm_win_geom {
    uint64_t key; /* random, drawn by the window's rank 0 and sent to its ranks only */
    size_t len;
    uint32_t nranks;
    uint32_t hdr_off;
} lc_shm_win_geom_t;
/* Rank 0: create the object at `path` (lc_shm_obj_place: its own 0700
 * directory), size it (posix_fallocate) and write the header.  0, or an
 * errno value: ENOENT when its new directory vanished (draw another
 * token), EPERM when it is not a file of ours with mode 0600 (`why` says
 * what); nothing is left behind on failure. */
int lc_shm_win_create(const char *path, const lc_shm_win_geom_t *g, char *why, size_t whylen);
/* Every rank: open the object through its checked directory without
 * following links, check it (a regular file of ours, mode 0600, at least
 * len bytes) and its header (magic, key, len, nranks, hdr_off: all as
 * expected), then map len bytes.  The mapping, or NULL with an errno
 * value in *err_p and the reason, naming the object, in `why`. */
void *lc_shm_win_map(const char *path, const lc_shm_win_geom_t *g, int *err_p, char *why, size_t whylen);

/* Segment of this process: rings for `nsenders` local senders, then
 * (optional) this process's send pool. */
typedef struct lc_shm_segment {
    char name[LC_SHM_PATH_MAX]; /* "<where>/locus-<kvsname>-<rank>-<token>/rings" (lc_shm_obj.c) */
    void *base;
    uint64_t token;     /* random part of the name */
    uint64_t key;       /* random key in the header, checked at attach */
    size_t size;
    uint32_t cell_size, ncells, nrings;
    uint32_t pool_cell_size, pool_cells; /* 0 cells: no pool */
    uint32_t big_cell_size, big_cells;   /* 0 cells: no big cells */
    int unlinked;
    int hold;           /* the object's descriptor + 1 (0: none), kept open: the owner's lock is on it */
} lc_shm_segment_t;

/* The shape of a segment. */
typedef struct lc_shm_geometry {
    uint32_t nrings, cell_size, ncells;  /* rings: one per local sender */
    uint32_t pool_cell_size, pool_cells; /* the owner's send pool */
    uint32_t big_cell_size, big_cells;   /* the owner's big cells (pipeline fragments), after the pool */
} lc_shm_geometry_t;

/* Bytes of a segment of geometry g (what posix_fallocate reserves):
 *   4096 + nrings x ncells x cell_size, rounded up to 4096,
 *   + pool_cells x pool_cell_size + big_cells x big_cell_size.
 * The one formula: segment creation, MPI_Init's space check and
 * locus-info --shm-footprint all use it. */
size_t lc_shm_segment_bytes(const lc_shm_geometry_t *g);
/* The geometry of this process's segment on a host where `nlocal` ranks
 * share memory (the LOCUS_SHM_* parameters). */
void lc_shm_geometry_default(uint32_t nlocal, lc_shm_geometry_t *g);
/* What `nlocal` ranks need together: nlocal x lc_shm_segment_bytes. */
uint64_t lc_shm_host_bytes(uint32_t nlocal);
/* Before any rank of this host maps anything: does the segment directory
 * (/dev/shm or LOCUS_SHM_DIR) have room for `nseg` segments of `nrings`
 * rings each (nseg = nrings = the local rank count, unless some of them
 * are in other containers with their own /dev/shm)?  Free space plus what
 * this job's segments there already hold (a faster rank may have created
 * its own) is compared with nseg x lc_shm_segment_bytes.  Returns LC_OK,
 * or LC_ERROR; with `loud` it logs how much is needed, how much is free
 * and how to give more. */
int lc_shm_check_space(const char *kvsname, uint32_t nseg, uint32_t nrings, int loud);

/* Create and initialise this process's segment (all cells free).
 * Returns 0, or -1 after logging why (and what to do). */
int lc_shm_segment_create(lc_shm_segment_t *seg, const char *kvsname, int rank, uint32_t nsenders,
                          uint32_t cell_size, uint32_t ncells);
/* Memory placement of a new segment: called on the mapping before any of
 * its pages exists, so that the policy it sets (e.g. a NUMA node) decides
 * where they are allocated.  Returns what lc_shm_segment_create_placed
 * hands back in `placed` (the caller's convention, e.g. 1 applied). */
typedef int (*lc_shm_place_fn)(void *addr, size_t len, void *arg);
/* lc_shm_segment_create with a placement hook (NULL: none).  Without one,
 * or if it sets no policy, the pages are allocated by this process — the
 * segment's receiver — when it creates the segment (first touch: its
 * current node). */
int lc_shm_segment_create_placed(lc_shm_segment_t *seg, const char *kvsname, int rank, uint32_t nsenders,
                                 uint32_t cell_size, uint32_t ncells, lc_shm_place_fn place, void *arg,
                                 int *placed);
/* The general form: rings and pool of geometry g. */
int lc_shm_segment_create_geom(lc_shm_segment_t *seg, const char *kvsname, int rank, const lc_shm_geometry_t *g,
                               lc_shm_place_fn place, void *arg, int *placed);
/* What a peer needs to find and trust a segment: its name's random token
 * and its header's key, 32 hex digits (buf of at least 33 bytes).  It is
 * published only through the job's PMI key/value space. */
#define LC_SHM_CARD_LEN 33
void lc_shm_segment_card(const lc_shm_segment_t *seg, char *buf, size_t len);
/* Map a peer's segment read-write, given the card its owner published:
 * opened without following links, a regular file of ours with mode 0600,
 * the key of the card in its header, a valid geometry that fits its size.
 * Returns 0, or -1 with the reason (naming the segment) in `why` (not
 * logged: the caller decides whether it matters). */
int lc_shm_segment_attach(lc_shm_segment_t *seg, const char *kvsname, int rank, const char *card, char *why,
                          size_t whylen);
/* n random bytes (getrandom).  0, or -1 with errno. */
int lc_shm_random(void *buf, size_t n);
/* An opened segment object is a regular file (its directory: a
 * directory, `dir`) owned by us that nobody else may open or look into
 * (no group/other permission bits).  0, or -1 with the reason in `why`. */
int lc_shm_check_owned(int fd, const char *name, bool dir, char *why, size_t whylen);
/* Remove the name (mappings stay valid).  Idempotent. */
void lc_shm_segment_unlink(lc_shm_segment_t *seg);
void lc_shm_segment_detach(lc_shm_segment_t *seg);
/* Does the process that created `seg` still live?  Its creator holds a
 * lock on the object until it dies (the kernel drops it then, in any PID
 * namespace): 1 yes, 0 no, -1 cannot tell (no lock support).  One
 * fcntl: for the slow path of waits (lc_liveness.c). */
int lc_shm_segment_owner_alive(const lc_shm_segment_t *seg);
/* Before this rank creates its segment: remove from the segment directory
 * every ring segment of ours whose creator died before it could remove
 * the name (every process of a job killed during MPI_Init, under a
 * launcher that does not clean up): a current segment (its magic), not
 * locked by any process, a regular file of ours; with it its directory,
 * and every empty object directory of ours (a creator killed between
 * mkdir and link).  Objects of job `own_kvsname` (ours: NULL for none)
 * are left alone.  Returns how many objects and empty directories were
 * removed (lc_shm_sweep.c). */
int lc_shm_sweep_dead(const char *own_kvsname);
/* An opened object (checked by the caller: a regular file of ours) is a
 * ring segment whose creator held its lock and has died: 1, else 0. */
int lc_shm_object_orphaned(int fd);
/* The same test on a connected peer's segment (lc_shm_wireup.c): 1, 0,
 * -1 as above; -1 also when `world_rank` is no shm peer. */
int lc_shm_peer_alive(int world_rank);
/* Start of ring `index` (the sender's local index) inside a segment. */
char *lc_shm_segment_ring(const lc_shm_segment_t *seg, uint32_t index);
/* This process's segment (its header page holds the doorbell,
 * lc_shm_bell.h), or NULL before/without one. */
char *lc_shm_own_base(void);
/* Start of the segment's pool (NULL without one). */
char *lc_shm_segment_pool(const lc_shm_segment_t *seg);
/* Start of the segment's big cells (NULL without them). */
char *lc_shm_segment_big(const lc_shm_segment_t *seg);
/* Send through the pool and big cells of `seg` (ours; NULL: no pool,
 * packets are at most one ring cell).  All their cells must be free. */
void lc_shm_pool_init(const lc_shm_segment_t *seg);

/* ---- wire-up (lc_shm_wireup.c), driven by the coordinator ------------
 *
 * open (our segment) -> connect (each shm peer: attach its segment) ->
 * unlink (after the fence that follows every attach) -> start (poll the
 * connected peers' rings) -> close.  The segments are the channel's own;
 * the coordinator only decides which peers to try and what a failure
 * means. */

/* Cell size and cells per ring this process uses (LOCUS_SHM_RING_CELL_SIZE
 * rounded up to 64 bytes, at least 64; LOCUS_SHM_RING_CELLS rounded up
 * to a power of two, at least 2). */
uint32_t lc_shm_cell_size(void);
uint32_t lc_shm_ring_cells(void);
/* Pool cell size (LOCUS_SHM_CELL_SIZE rounded up to 64, at least 256)
 * and pool cells (LOCUS_SHM_POOL_CELLS, 1 to 65536). */
uint32_t lc_shm_pool_cell_size(void);
uint32_t lc_shm_pool_cells(void);
/* Big cells (lc_shm_space.c): LOCUS_SHM_BIG_CELL_SIZE rounded up to 64
 * (at least 256), and their count on a host of `nlocal` ranks
 * (LOCUS_SHM_BIG_CELLS; auto: 16 up to 16 ranks, 8 up to 32, 4 beyond;
 * 0 when a big cell would not be larger than a pool cell). */
uint32_t lc_shm_big_cell_size(void);
uint32_t lc_shm_big_cells(uint32_t nlocal);
/* The largest packet payload a shm peer (and the self peer) carries: one
 * pool cell's payload. */
size_t lc_shm_packet_max(void);

/* Create this process's segment: `nsenders` rings, ring i written by the
 * local sender of index i (ourselves included, as in lc_shm_connect).
 * `peers` is the world-rank-indexed table of `size` peers; `place` as in
 * lc_shm_segment_create_placed (NULL: first touch), its result in
 * `placed`.  Our segment's card (lc_shm_segment_card) in `card`, for the
 * coordinator to publish.  Returns LC_OK, or LC_ERROR after logging what
 * failed and what to do. */
int lc_shm_open(lc_peer_t *peers, int rank, int size, const char *kvsname, uint32_t nsenders,
                lc_shm_place_fn place, void *arg, int *placed, char *card, size_t cardlen);
/* Make `peer` a shared-memory peer: map its segment (found and checked
 * with the card it published), write to its ring
 * `tx_ring` (our local index) and read ours `rx_ring` (its local index).
 * Sets kind, ops, eager_limit and chunk (what the peer's cells and ours
 * hold) and peer->shm; can_pull stays for a single-copy mechanism to
 * prove (lc_cma_connect).  Returns LC_OK, or LC_ERROR with the reason in
 * `why`, not logged: whether it matters is the caller's decision. */
int lc_shm_connect(lc_peer_t *peer, const char *card, uint32_t tx_ring, uint32_t rx_ring, char *why,
                   size_t whylen);
/* Undo lc_shm_connect (the pair goes another way): unmap the peer's
 * segment; kind LC_CHANNEL_NONE, no ops, nothing to pull. */
void lc_shm_disconnect(lc_peer_t *peer);
/* Remove our segment's name once every peer has mapped it (mappings stay). */
void lc_shm_unlink(void);
/* Poll the rings of every peer in the table that is connected (kind
 * LC_CHANNEL_SHM).  Call when no peer can have sent yet. */
void lc_shm_start(void);
/* Stop polling, unmap every segment, unlink ours.  Idempotent. */
void lc_shm_close(void);

/* Peers whose rings this process polls (lc_shm_start, or a test). */
void lc_shm_set_rx_peers(lc_peer_t **peers, int n, uint32_t ncells, uint32_t cell_size);
/* Hand every waiting packet (at most a bounded batch per peer) to the
 * engine's handler.  Returns the number of packets handled. */
int lc_shm_poll(void);

#endif
