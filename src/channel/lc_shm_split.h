/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_shm_split.h — the split copy's claim slots (issue 13): the shared
 * words through which a receiver and its sender move one large CMA
 * message together, the receiver pulling chunks from the front with
 * process_vm_readv while the sender pushes chunks from the back with
 * process_vm_writev (the protocol: src/pt2pt/lc_pt2pt_split.c).
 *
 * Where: the last 3 KiB of the header page of each process's segment
 * (after the segment header and the doorbell line), LC_SHM_SPLIT_SLOTS
 * lines of 64 bytes.  The slots of a segment belong to its owner as a
 * *receiver*: it allocates one per split message and names it (its
 * index) in the CTS it sends; the sender reaches it through its mapping
 * of the receiver's segment.  The page is zero when the segment is
 * created, so every slot starts free.  No geometry changes: the rings
 * start at 4096 as before, and a peer that never splits never reads it.
 */
#ifndef LC_SHM_SPLIT_H
#define LC_SHM_SPLIT_H

#include <stdatomic.h>
#include <stdint.h>

#define LC_SHM_SPLIT_OFFSET 1024
#define LC_SHM_SPLIT_SLOTS 48

/* One slot, one cache line.  Written by the receiver before it sends the
 * CTS that names the slot (the ring cell's release store publishes them);
 * `claim`, `done` and `refs` are then shared by both sides. */
typedef struct lc_shm_split_slot {
    /* Chunks still unclaimed, [lo, hi): lo in the low 32 bits (the
     * receiver's next chunk, taken upward), hi in the high 32 bits (one
     * past the sender's next chunk, taken downward).  A side claims a
     * chunk by a CAS that moves its own end; the CAS makes each chunk
     * copied exactly once, whichever side comes first. */
    _Atomic uint64_t claim;
    /* Bytes in place: each side adds a chunk's length after its copy
     * returned (acq_rel), so the side whose add reaches `len` knows every
     * byte of the other side is in place too; that side completes the
     * message (it sends the FIN).  Bit 63: a push of the sender's failed. */
    _Atomic uint64_t done;
    /* 2 while both sides may touch the slot, taken 0 -> 2 by the
     * receiver's CAS (acquire) when it allocates the slot; each side
     * drops 1 with release after its last access (the sender even when it
     * claimed nothing), so a slot is reused only when neither looks. */
    _Atomic uint32_t refs;
    uint32_t chunk;   /* bytes per chunk (the last one may be shorter) */
    uint64_t raddr;   /* the receiver's buffer, its byte 0 (the message's byte 0) */
    uint64_t len;     /* bytes to place: min(message, posted receive) */
    char pad[24];
} lc_shm_split_slot_t;

#define LC_SHM_SPLIT_FAILED (1ull << 63)

_Static_assert(sizeof(lc_shm_split_slot_t) == 64, "a split slot is one cache line");
_Static_assert(LC_SHM_SPLIT_OFFSET + LC_SHM_SPLIT_SLOTS * 64 <= 4096, "the slots stay in the header page");

#endif
