/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_ivshmem.h — the IVSHMEM segment provider and channel: shared-memory
 * rings between ranks in different virtual machines on one physical host
 * (QEMU's ivshmem-plain device maps one host file into every guest as
 * PCI BAR2), or, for tests, between ranks on different (emulated)
 * kernels that map one file (LOCUS_IVSHMEM=<path>).
 *
 * Region layout (every offset and size is checked against the mapping
 * before use: another guest, or another job, may have written anything):
 *
 *   0        header (lc_ivs_hdr_t): magic, version, the region's random id,
 *            its size, the slot count and geometry, the init word
 *   4096     slot table: nslots entries of 64 bytes (lc_ivs_slot_t)
 *   data     nslots slots of slot_bytes each (4 KiB aligned)
 *
 * Initialisation: the first user CASes the init word from 0 to
 * BUSY|time, writes the header and an empty slot table, then publishes
 * magic and READY (release).  Everyone else waits (yielding) for READY;
 * an initialiser that died leaves BUSY with an old time, and the next user
 * takes over after the lease.  A region whose init word or header is
 * neither of these is refused with a message: it is not ours to fix.
 *
 * Slots: a rank that reads rings in the region claims one slot.  Its
 * `own` word is (renewal time in seconds << 32 | owner tag), the tag a
 * random non-zero 32-bit value: 0 is a free slot.  Claiming is a CAS from
 * 0 (free) or from a *stale* value — the owner did not renew for
 * LOCUS_IVSHMEM_LEASE seconds, or it ran on this kernel and its pid is
 * gone — to (now << 32 | tag).  Renewal (a helper thread, every second)
 * is a CAS from the value it last wrote, so a renewal and a reclaim never
 * both succeed; an owner that finds its slot taken stops using it (and
 * says so).  Two jobs on one region never collide: a slot is claimed
 * atomically, and a peer accepts a slot only with the tag and the random
 * key its owner published through the job's PMI space.  A rank killed
 * with its job leaves its slot claimed until the lease expires (or at
 * once for a claimer on its kernel); MPI_Finalize frees it.
 */
#ifndef LC_IVSHMEM_H
#define LC_IVSHMEM_H

#include "channel/lc_channel.h"

#include <stdatomic.h>

#define LC_IVS_MAGIC 0x4c4f435553495653ull /* "LOCUSIVS" */
#define LC_IVS_VERSION 1u
#define LC_IVS_TABLE_OFFSET 4096u
#define LC_IVS_MAX_SLOTS 64u
#define LC_IVS_SLOT_ENTRY 64u

typedef struct lc_ivs_hdr {
    _Atomic uint64_t magic;   /* LC_IVS_MAGIC once READY */
    uint32_t version;
    uint32_t nslots;          /* 1..LC_IVS_MAX_SLOTS */
    uint64_t size;            /* bytes the initialiser saw (<= every mapping's size) */
    uint64_t region_id;       /* random, non-zero: the co-residence proof */
    uint64_t slot_bytes;      /* bytes of each slot, a multiple of 4096 */
    uint64_t data_offset;     /* slot i at data_offset + i * slot_bytes */
    _Atomic uint64_t init;    /* 0 fresh, LC_IVS_INIT_BUSY | ms, or LC_IVS_INIT_READY */
} lc_ivs_hdr_t;

#define LC_IVS_INIT_READY 1ull
#define LC_IVS_INIT_BUSY (1ull << 63)

typedef struct lc_ivs_slot {
    _Atomic uint64_t own;     /* renewal seconds << 32 | owner tag; 0 = free */
    uint64_t key;             /* random: peers accept the slot only with it */
    uint64_t job;             /* hash of the owner's job name (diagnostics) */
    uint64_t kernel;          /* hash of the owner's boot id and pid namespace */
    uint32_t pid, rank;       /* the owner (pid in its pid namespace) */
    uint32_t cell_size, ncells, nrings;
    _Atomic uint32_t ready;   /* geometry written and rings initialised (release) */
} lc_ivs_slot_t;

_Static_assert(sizeof(lc_ivs_slot_t) <= LC_IVS_SLOT_ENTRY, "a slot entry is 64 bytes");

/* A mapped region. */
typedef struct lc_ivs_region {
    char path[256];           /* the file or sysfs resource mapped */
    void *base;
    size_t size;              /* of the mapping */
    uint64_t id;              /* header's region_id */
    uint32_t nslots;
    uint64_t slot_bytes, data_offset;
} lc_ivs_region_t;

/* ---- the region (lc_ivshmem_region.c) --------------------------------- */

/* Find (LOCUS_IVSHMEM, else the first ivshmem-plain PCI device), map and
 * validate or initialise the region.  1 mapped (r filled), 0 none to use
 * (nothing configured or found: not an error), -1 after logging why a
 * configured or found region cannot be used. */
int lc_ivs_region_open(lc_ivs_region_t *r);
/* Map exactly `path` (a file or a sysfs resource file); as above. */
int lc_ivs_region_open_path(lc_ivs_region_t *r, const char *path);
void lc_ivs_region_close(lc_ivs_region_t *r);
/* Entry of slot i (i < r->nslots) and its memory. */
lc_ivs_slot_t *lc_ivs_slot(const lc_ivs_region_t *r, uint32_t i);
char *lc_ivs_slot_data(const lc_ivs_region_t *r, uint32_t i);

/* Who claims a slot. */
typedef struct lc_ivs_owner {
    uint64_t job, kernel;
    uint32_t pid, rank;
} lc_ivs_owner_t;
/* The kernel word of this process: hash of the boot id it reports and
 * its pid namespace (pids are comparable only within one). */
uint64_t lc_ivs_kernel_hash(const char *boot_id);
uint64_t lc_ivs_hash(const char *s);
/* Claim a free or stale slot: its index, or -1 (every slot in use: the
 * message names their owners).  *own_word receives what was written.
 * `now` is the time in seconds (tests pass their own). */
int lc_ivs_slot_claim(const lc_ivs_region_t *r, const lc_ivs_owner_t *me, uint32_t now, uint64_t *own_word);
/* Renew: CAS *own_word -> (now << 32 | tag).  0, or -1 if the slot was
 * taken from us. */
int lc_ivs_slot_renew(const lc_ivs_region_t *r, uint32_t slot, uint64_t *own_word, uint32_t now);
/* Free the slot if it is still ours. */
void lc_ivs_slot_release(const lc_ivs_region_t *r, uint32_t slot, uint64_t own_word);
/* Whether slot entry `s` (as read) is stale at `now` for a claimer on
 * kernel `kernel` (lease in seconds). */
int lc_ivs_slot_stale(uint64_t own, uint64_t owner_kernel, uint32_t owner_pid, uint64_t my_kernel, uint32_t now,
                      uint32_t lease);
uint32_t lc_ivs_now(void);

/* ---- the channel (lc_ivshmem.c), driven by the coordinator ------------ */

/* Probe at start-up, before the identity exchange: map the region if
 * there is one.  Its id (0: none), or (uint64_t)-1 after logging an error
 * that must end MPI_Init. */
uint64_t lc_ivshmem_probe(void);
/* Our slot: rings for `nrings` senders (ring i written by the sender of
 * index i among the ranks on the region), geometry from the shm
 * parameters, cells reduced to fit the slot.  The card for peers in
 * `card` (LC_IVS_CARD_LEN).  LC_OK, or LC_ERROR after logging. */
#define LC_IVS_CARD_LEN 48
int lc_ivshmem_open(lc_peer_t *peers, int rank, int size, const char *kvsname, uint32_t nrings, char *card,
                    size_t cardlen);
/* Make `peer` an ivshmem peer: check its slot (card), write its ring
 * `tx_ring`, read ours `rx_ring`.  LC_OK, or LC_ERROR with `why`. */
int lc_ivshmem_connect(lc_peer_t *peer, const char *card, uint32_t tx_ring, uint32_t rx_ring, char *why,
                       size_t whylen);
/* Poll the connected peers' rings from now on; start renewing our slot. */
void lc_ivshmem_start(void);
/* Stop, free our slot, unmap.  Idempotent. */
void lc_ivshmem_close(void);
/* Region mapped at probe (NULL: none), for diagnostics. */
const lc_ivs_region_t *lc_ivshmem_region(void);
/* Our slot (-1 none) and its ring geometry, for diagnostics. */
int lc_ivshmem_slot(uint32_t *cell_size, uint32_t *ncells);

extern int lc_ivshmem_active; /* progress polls lc_ivshmem_poll */
int lc_ivshmem_poll(void);

extern const lc_channel_ops_t lc_channel_ivshmem_ops;

#endif
