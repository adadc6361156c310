/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_shm.c — shared-memory segments and the receive side of the rings. */
#include "channel/lc_shm.h"
#include "channel/lc_cma.h"
#include "util/lc_params.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define LC_SHM_MAGIC 0x4c4f435553484d31ull /* "LOCUSHM1" */
#define LC_SHM_RINGS_OFFSET 4096

typedef struct lc_shm_seg_hdr {
    uint64_t magic;
    uint32_t cell_size;
    uint32_t ncells;
    uint32_t nrings;
    uint32_t reserved;
} lc_shm_seg_hdr_t;

/* Segment providers: a POSIX shared-memory object (/dev/shm), or, with
 * LOCUS_SHM_DIR, a file in a directory that co-resident containers share
 * (bind-mounted from the host).  The rings do not know which. */
static void lc_shm_name(char *buf, size_t len, const char *kvsname, int rank)
{
    if (lc_params.shm_dir[0])
        snprintf(buf, len, "%s/locus-%s-%d", lc_params.shm_dir, kvsname, rank);
    else
        snprintf(buf, len, "/locus-%s-%d", kvsname, rank);
}

static int lc_shm_object_open(const char *name, int flags, mode_t mode)
{
    return lc_params.shm_dir[0] ? open(name, flags | O_CLOEXEC, mode) : shm_open(name, flags, mode);
}

static void lc_shm_remove(const char *name)
{
    if (lc_params.shm_dir[0]) unlink(name);
    else shm_unlink(name);
}

int lc_shm_segment_create(lc_shm_segment_t *seg, const char *kvsname, int rank, uint32_t nsenders,
                          uint32_t cell_size, uint32_t ncells)
{
    return lc_shm_segment_create_placed(seg, kvsname, rank, nsenders, cell_size, ncells, NULL, NULL, NULL);
}

int lc_shm_segment_create_placed(lc_shm_segment_t *seg, const char *kvsname, int rank, uint32_t nsenders,
                                 uint32_t cell_size, uint32_t ncells, lc_shm_place_fn place, void *arg,
                                 int *placed)
{
    memset(seg, 0, sizeof(*seg));
    lc_shm_name(seg->name, sizeof(seg->name), kvsname, rank);
    size_t ring_bytes = (size_t)cell_size * ncells;
    seg->size = LC_SHM_RINGS_OFFSET + ring_bytes * nsenders;
    int fd = lc_shm_object_open(seg->name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        lc_log_error("cannot create shared memory object %s (%m): check that %s is mounted and writable",
                     seg->name, lc_params.shm_dir[0] ? "LOCUS_SHM_DIR" : "/dev/shm");
        return -1;
    }
    /* Map first (the object is still empty: no page exists yet), let the
     * placement hook set the memory policy of the range (on tmpfs it is
     * the object's shared policy), and only then allocate the pages. */
    seg->base = mmap(NULL, seg->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (seg->base == MAP_FAILED) {
        lc_log_error("cannot map shared memory object %s (%zu bytes): %m", seg->name, seg->size);
        close(fd);
        lc_shm_remove(seg->name);
        seg->base = NULL;
        return -1;
    }
    int how = place ? place(seg->base, seg->size, arg) : 0;
    if (placed) *placed = how;
    /* posix_fallocate, not ftruncate: a /dev/shm that is too small (64 MiB
     * by default in Docker) fails here with a clear message instead of
     * SIGBUS on first touch.  On tmpfs it allocates the pages, under the
     * policy just set, else on this process's node. */
    int err = posix_fallocate(fd, 0, (off_t)seg->size);
    close(fd);
    if (err) {
        errno = err;
        lc_log_error("cannot size shared memory object %s to %zu bytes (%m): /dev/shm is too small; "
                     "give the container a larger /dev/shm (e.g. docker --shm-size=1g) or lower "
                     "LOCUS_SHM_RING_CELLS / LOCUS_SHM_CELL_SIZE", seg->name, seg->size);
        munmap(seg->base, seg->size);
        seg->base = NULL;
        lc_shm_remove(seg->name);
        return -1;
    }
    seg->cell_size = cell_size;
    seg->ncells = ncells;
    seg->nrings = nsenders;
    for (uint32_t r = 0; r < nsenders; r++) {
        char *cells = lc_shm_segment_ring(seg, r);
        for (uint32_t i = 0; i < ncells; i++)
            atomic_store_explicit(&((lc_shm_cell_t *)(cells + (size_t)i * cell_size))->seq, i,
                                  memory_order_relaxed);
    }
    lc_shm_seg_hdr_t *h = seg->base;
    h->cell_size = cell_size;
    h->ncells = ncells;
    h->nrings = nsenders;
    /* Release: the rings are initialised before a peer sees the magic. */
    atomic_thread_fence(memory_order_release);
    h->magic = LC_SHM_MAGIC;
    return 0;
}

int lc_shm_segment_attach(lc_shm_segment_t *seg, const char *kvsname, int rank, char *why, size_t whylen)
{
    memset(seg, 0, sizeof(*seg));
    lc_shm_name(seg->name, sizeof(seg->name), kvsname, rank);
    int fd = lc_shm_object_open(seg->name, O_RDWR, 0);
    if (fd < 0) {
        snprintf(why, whylen, "cannot open %s: %s", seg->name, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < LC_SHM_RINGS_OFFSET) {
        snprintf(why, whylen, "%s has an unexpected size", seg->name);
        close(fd);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        /* Never share memory with another user's process. */
        snprintf(why, whylen, "%s belongs to uid %u, not to us", seg->name, (unsigned)st.st_uid);
        close(fd);
        return -1;
    }
    seg->size = (size_t)st.st_size;
    seg->base = mmap(NULL, seg->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (seg->base == MAP_FAILED) {
        snprintf(why, whylen, "cannot map %s: %s", seg->name, strerror(errno));
        seg->base = NULL;
        return -1;
    }
    lc_shm_seg_hdr_t *h = seg->base;
    if (h->magic != LC_SHM_MAGIC) {
        snprintf(why, whylen, "%s is not an initialised Locus segment", seg->name);
        munmap(seg->base, seg->size);
        seg->base = NULL;
        return -1;
    }
    atomic_thread_fence(memory_order_acquire);
    seg->cell_size = h->cell_size;
    seg->ncells = h->ncells;
    seg->nrings = h->nrings;
    seg->unlinked = 1; /* the owner unlinks it */
    return 0;
}

void lc_shm_segment_unlink(lc_shm_segment_t *seg)
{
    if (seg->base && !seg->unlinked) {
        lc_shm_remove(seg->name);
        seg->unlinked = 1;
    }
}

void lc_shm_segment_detach(lc_shm_segment_t *seg)
{
    lc_shm_segment_unlink(seg);
    if (seg->base) munmap(seg->base, seg->size);
    seg->base = NULL;
}

char *lc_shm_segment_ring(const lc_shm_segment_t *seg, uint32_t index)
{
    return (char *)seg->base + LC_SHM_RINGS_OFFSET + (size_t)index * seg->cell_size * seg->ncells;
}

/* ---- receive side ---------------------------------------------------- */

static lc_peer_t **lc_shm_rx_peers;
static int lc_shm_rx_count;
static uint64_t lc_shm_rx_ncells;
static uint64_t lc_shm_rx_mask;
static uint32_t lc_shm_rx_cell_size;

void lc_shm_set_rx_peers(lc_peer_t **peers, int n, uint32_t ncells, uint32_t cell_size)
{
    lc_shm_rx_peers = peers;
    lc_shm_rx_count = n;
    lc_shm_rx_ncells = ncells;
    lc_shm_rx_mask = ncells - 1;
    lc_shm_rx_cell_size = cell_size;
}

/* A batch bound keeps one chatty peer from starving the others. */
#define LC_SHM_POLL_BATCH 8

int lc_shm_poll(void)
{
    int handled = 0;
    for (int i = 0; i < lc_shm_rx_count; i++) {
        lc_peer_t *peer = lc_shm_rx_peers[i];
        for (int n = 0; n < LC_SHM_POLL_BATCH; n++) {
            uint64_t pos = peer->shm.rx_pos;
            lc_shm_cell_t *cell = lc_shm_cell(peer->shm.rx_cells, pos, lc_shm_rx_mask, lc_shm_rx_cell_size);
            /* Acquire: pairs with the sender's release of seq; header and
             * payload are complete once we see pos + 1. */
            if (atomic_load_explicit(&cell->seq, memory_order_acquire) != pos + 1) break;
            lc_channel_recv_handler(peer, &cell->hdr, (char *)cell + LC_SHM_CELL_HDR);
            /* Release: the handler's reads of the cell are done before the
             * sender may overwrite it. */
            peer->shm.rx_pos = pos + 1;
            atomic_store_explicit(&cell->seq, pos + lc_shm_rx_ncells, memory_order_release);
            handled++;
        }
    }
    return handled;
}

static int lc_shm_ops_try_send(lc_peer_t *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                               const void *data, size_t datalen)
{
    return lc_shm_try_send(peer, hdr, pre, prelen, data, datalen);
}

const lc_channel_ops_t lc_channel_shm_ops = {
    .name = "shm",
    .try_send = lc_shm_ops_try_send,
    .pull = lc_cma_pull,
    .pullv = lc_cma_pullv,
};
