/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_shm.c — shared-memory segments and the receive side of the rings. */
#include "channel/lc_shm.h"
#include "channel/lc_shm_split.h"
#include "channel/lc_cma.h"
#include "channel/lc_pkt_decode.h"
#include "util/lc_params.h"
#include "util/lc_thread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define LC_SHM_MAGIC 0x4c4f435553484d33ull /* "LOCUSHM3": a key, and a send pool */
#define LC_SHM_RINGS_OFFSET 4096
#define LC_SHM_MAX_CELL (64u << 20) /* far above any sane LOCUS_SHM_CELL_SIZE */
#define LC_SHM_MAX_CELLS (1u << 20) /* lc_shm_ring_cells' cap */
#define LC_SHM_MAX_POOL_CELLS (1u << 16) /* lc_shm_pool_cells' cap */
#define LC_SHM_MAX_BIG_CELLS 4096u       /* LOCUS_SHM_BIG_CELLS' cap */

typedef struct lc_shm_seg_hdr {
    uint64_t magic;
    uint32_t cell_size;
    uint32_t ncells;
    uint32_t nrings;
    uint32_t pool_cells;
    uint64_t key; /* the owner's random key, published through PMI only */
    uint32_t pool_cell_size;
    uint32_t held; /* LC_SHM_HELD: its creator holds a lock on the object while it lives (lc_shm_hold) */
    /* The big cells, after the pool.  Appended: a segment without them
     * reads 0 here (the header page is zero past the header). */
    uint32_t big_cells;
    uint32_t big_cell_size;
} lc_shm_seg_hdr_t;

_Static_assert(sizeof(lc_shm_seg_hdr_t) <= LC_SHM_BELL_OFFSET, "the doorbell has the header page's second line");

/* The split copy's claim slots fill the rest of the header page. */
_Static_assert(LC_SHM_SPLIT_OFFSET >= LC_SHM_BELL_OFFSET + 64 &&
                   LC_SHM_SPLIT_OFFSET + LC_SHM_SPLIT_SLOTS * sizeof(lc_shm_split_slot_t) <= LC_SHM_RINGS_OFFSET,
               "the split slots sit between the doorbell and the rings");

#define LC_SHM_HELD 0x444c4548u /* "HELD" */

/* Segments live in a directory of their own (lc_shm_obj.c):
 * <where>/locus-<kvsname>-<rank>-<token>/rings, the token 64 random bits
 * drawn by the owner and published only through the job's PMI key/value
 * space (the card, lc_shm_segment_card), the directory the owner's with
 * mode 0700.  Another user (or another container's root, in a shared
 * LOCUS_SHM_DIR) who sees one segment of the job can neither create the
 * others' names first nor look into them (issue 12, point 3); the
 * "locus-<kvsname>-" prefix stays for mpiexec's clean-up. */
#define LC_SHM_LEAF "rings"

static int lc_shm_name(lc_shm_segment_t *seg, const char *kvsname, int rank, uint64_t token)
{
    char stem[300];
    snprintf(stem, sizeof(stem), "locus-%s-%d", kvsname, rank);
    seg->token = token;
    return lc_shm_obj_path(seg->name, sizeof(seg->name), stem, token, LC_SHM_LEAF);
}

/* 1 while unnamed creation works here; 0 once it failed (then segments
 * are created under their name, as before, with a short window in which
 * a job killed whole leaves a name no sweep can judge). */
static int lc_shm_unnamed_ok = 1;

/* An object without a name in the segment directory (O_TMPFILE), or -1:
 * it is built, locked and stamped before lc_shm_place gives it its
 * name, so no process ever sees a half-made segment and a creator killed
 * at any instant leaves either nothing, an empty directory, or a segment
 * the sweep can judge (lc_shm_sweep.c). */
static int lc_shm_object_create_unnamed(void)
{
    if (!lc_shm_unnamed_ok) return -1;
    int fd = open(lc_shm_where(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) lc_shm_unnamed_ok = 0; /* EOPNOTSUPP, EISDIR (old kernel), ...: the named way */
    return fd;
}

/* Put a segment in its own new directory under a fresh token: the
 * unnamed object `fd`, or (fd < 0) a new empty object.  A directory a
 * sweep removed in the instant before the object was in it costs another
 * token (lc_shm_obj_place's -2); bounded, as each try is one mkdir and
 * one link.  The object's descriptor, or -1 with errno. */
static int lc_shm_place(lc_shm_segment_t *seg, const char *kvsname, int rank, int fd)
{
    for (int tries = 0; tries < 16; tries++) {
        uint64_t token;
        if (lc_shm_random(&token, sizeof(token)) != 0) return -1;
        if (lc_shm_name(seg, kvsname, rank, token) != 0) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int rc = lc_shm_obj_place(seg->name, fd);
        if (rc != -2) return rc;
    }
    errno = EAGAIN;
    return -1;
}

int lc_shm_random(void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom((char *)buf + got, n - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

int lc_shm_check_owned(int fd, const char *name, bool dir, char *why, size_t whylen)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(why, whylen, "cannot stat %s: %s", name, strerror(errno));
        return -1;
    }
    if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "%s is not a %s", name, dir ? "directory" : "regular file");
        return -1;
    }
    if (st.st_uid != geteuid()) {
        /* Never share memory with another user's process. */
        snprintf(why, whylen, "%s belongs to uid %u, not to us (uid %u)", name, (unsigned)st.st_uid,
                 (unsigned)geteuid());
        return -1;
    }
    if (st.st_mode & 077) {
        snprintf(why, whylen, "%s has mode %04o: others could %s (%s expected)", name,
                 (unsigned)(st.st_mode & 07777), dir ? "look into it" : "open it", dir ? "0700" : "0600");
        return -1;
    }
    return 0;
}

void lc_shm_segment_card(const lc_shm_segment_t *seg, char *buf, size_t len)
{
    snprintf(buf, len, "%016llx%016llx", (unsigned long long)seg->token, (unsigned long long)seg->key);
}

static int lc_shm_parse_card(const char *card, uint64_t *token, uint64_t *key)
{
    char half[17];
    if (!card || strlen(card) != 32 || strspn(card, "0123456789abcdef") != 32) return -1;
    memcpy(half, card, 16);
    half[16] = 0;
    *token = strtoull(half, NULL, 16);
    *key = strtoull(card + 16, NULL, 16);
    return 0;
}

int lc_shm_segment_create(lc_shm_segment_t *seg, const char *kvsname, int rank, uint32_t nsenders,
                          uint32_t cell_size, uint32_t ncells)
{
    return lc_shm_segment_create_placed(seg, kvsname, rank, nsenders, cell_size, ncells, NULL, NULL, NULL);
}

/* Why creating `name` failed, with what to do about it: errno decides. */
static void lc_shm_create_error(const char *name, int err)
{
    const char *where = lc_shm_where(), *var = lc_params.shm_dir[0] ? "LOCUS_SHM_DIR=" : "";
    switch (err) {
    case EEXIST:
        lc_log_error("cannot create shared memory object %s: it already exists (File exists); names carry a "
                     "random part, so another process is interfering with %s%s: remove the object, and do "
                     "not share that directory with users you do not trust",
                     name, var, where);
        break;
    case ENOSPC:
        lc_log_error("cannot create shared memory object %s: %s%s is full (No space left on device); free "
                     "space there or give it more",
                     name, var, where);
        break;
    case ENOENT:
    case ENOTDIR:
        lc_log_error("cannot create shared memory object %s (%s): %s%s does not exist; %s", name, strerror(err),
                     var, where,
                     lc_params.shm_dir[0] ? "create it or fix LOCUS_SHM_DIR" : "check that /dev/shm is mounted");
        break;
    case EACCES:
    case EPERM:
    case EROFS:
        lc_log_error("cannot create shared memory object %s (%s): %s%s is not writable by this user", name,
                     strerror(err), var, where);
        break;
    default:
        lc_log_error("cannot create shared memory object %s in %s%s: %s", name, var, where, strerror(err));
        break;
    }
}

static int lc_shm_hold(lc_shm_segment_t *seg, int fd);

static size_t lc_shm_pool_offset(uint32_t nrings, uint32_t cell_size, uint32_t ncells)
{
    size_t rings = (size_t)nrings * cell_size * ncells;
    return LC_SHM_RINGS_OFFSET + ((rings + 4095) & ~(size_t)4095);
}

/* The big cells follow the pool (a multiple of 64 bytes: cells stay
 * 64-byte aligned). */
static size_t lc_shm_big_offset(uint32_t nrings, uint32_t cell_size, uint32_t ncells, uint32_t pool_cells,
                                uint32_t pool_cell_size)
{
    return lc_shm_pool_offset(nrings, cell_size, ncells) + (size_t)pool_cells * pool_cell_size;
}

size_t lc_shm_segment_bytes(const lc_shm_geometry_t *g)
{
    return lc_shm_big_offset(g->nrings, g->cell_size, g->ncells, g->pool_cells, g->pool_cell_size) +
           (size_t)g->big_cells * g->big_cell_size;
}

int lc_shm_segment_create_placed(lc_shm_segment_t *seg, const char *kvsname, int rank, uint32_t nsenders,
                                 uint32_t cell_size, uint32_t ncells, lc_shm_place_fn place, void *arg,
                                 int *placed)
{
    lc_shm_geometry_t g = { .nrings = nsenders, .cell_size = cell_size, .ncells = ncells };
    return lc_shm_segment_create_geom(seg, kvsname, rank, &g, place, arg, placed);
}

static int lc_shm_segment_build(lc_shm_segment_t *seg, const char *kvsname, int rank, const lc_shm_geometry_t *g,
                                lc_shm_place_fn place, void *arg, int *placed);

int lc_shm_segment_create_geom(lc_shm_segment_t *seg, const char *kvsname, int rank, const lc_shm_geometry_t *g,
                               lc_shm_place_fn place, void *arg, int *placed)
{
    int rc = lc_shm_segment_build(seg, kvsname, rank, g, place, arg, placed);
    if (rc == 1) /* unnamed creation works, naming does not: the named way */
        rc = lc_shm_segment_build(seg, kvsname, rank, g, place, arg, placed);
    return rc;
}

/* 0 when built, -1 after saying why, 1 when the unnamed object could not
 * be named (nothing said; lc_shm_unnamed_ok is now 0). */
static int lc_shm_segment_build(lc_shm_segment_t *seg, const char *kvsname, int rank, const lc_shm_geometry_t *g,
                                lc_shm_place_fn place, void *arg, int *placed)
{
    uint32_t nsenders = g->nrings, cell_size = g->cell_size, ncells = g->ncells;
    memset(seg, 0, sizeof(*seg));
    uint64_t key;
    if (lc_shm_random(&key, sizeof(key)) != 0) {
        lc_log_error("cannot draw the random key of the shared memory segment (getrandom: %m)");
        return -1;
    }
    seg->key = key ? key : 1;           /* 0 never matches a card */
    lc_shm_name(seg, kvsname, rank, 0); /* for messages until it is placed */
    seg->size = lc_shm_segment_bytes(g);
    int fd = lc_shm_object_create_unnamed(), named = fd < 0;
    /* O_EXCL: a name that exists is someone else's, never reused. */
    if (named) fd = lc_shm_place(seg, kvsname, rank, -1);
    if (fd < 0) {
        lc_shm_create_error(seg->name, errno);
        return -1;
    }
    char why[256];
    /* A umask cannot widen 0600, but may narrow it: make it exactly 0600,
     * then check what we really have before any byte goes in. */
    if (fchmod(fd, 0600) != 0 || lc_shm_check_owned(fd, seg->name, false, why, sizeof(why)) != 0) {
        lc_log_error("shared memory object %s is not what this rank just created (%s); not used", seg->name,
                     why);
        close(fd);
        if (named) lc_shm_obj_remove(seg->name);
        return -1;
    }
    /* Map first (the object is still empty: no page exists yet), let the
     * placement hook set the memory policy of the range (on tmpfs it is
     * the object's shared policy), and only then allocate the pages. */
    seg->base = mmap(NULL, seg->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (seg->base == MAP_FAILED) {
        lc_log_error("cannot map shared memory object %s (%zu bytes): %m", seg->name, seg->size);
        close(fd);
        if (named) lc_shm_obj_remove(seg->name);
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
    int held = 0;
    if (!err) held = lc_shm_hold(seg, fd);
    else close(fd);
    if (err) {
        errno = err;
        if (err == ENOSPC && lc_params.shm_dir[0])
            lc_log_error("cannot size shared memory object %s to %zu bytes (%m): LOCUS_SHM_DIR=%s is full or too "
                         "small; free space there or lower LOCUS_SHM_RING_CELLS / LOCUS_SHM_CELL_SIZE",
                         seg->name, seg->size, lc_params.shm_dir);
        else if (err == ENOSPC)
            lc_log_error("cannot size shared memory object %s to %zu bytes (%m): /dev/shm is too small; "
                         "give the container a larger /dev/shm (e.g. docker --shm-size=1g) or lower "
                         "LOCUS_SHM_RING_CELLS / LOCUS_SHM_CELL_SIZE", seg->name, seg->size);
        else
            lc_log_error("cannot size shared memory object %s in %s to %zu bytes: %m", seg->name, lc_shm_where(),
                         seg->size);
        munmap(seg->base, seg->size);
        seg->base = NULL;
        if (named) lc_shm_obj_remove(seg->name);
        return -1;
    }
    seg->cell_size = cell_size;
    seg->ncells = ncells;
    seg->nrings = nsenders;
    seg->pool_cells = g->pool_cells;
    seg->pool_cell_size = g->pool_cells ? g->pool_cell_size : 0;
    /* Big cells only beside a pool (the packets that need them are larger
     * than a pool cell; lc_shm_big_cells says when they are). */
    seg->big_cells = g->pool_cells ? g->big_cells : 0;
    seg->big_cell_size = seg->big_cells ? g->big_cell_size : 0;
    /* Pool and big cells: fallocate's zero pages are free (busy == 0). */
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
    h->pool_cells = seg->pool_cells;
    h->pool_cell_size = seg->pool_cell_size;
    h->big_cells = seg->big_cells;
    h->big_cell_size = seg->big_cell_size;
    h->key = seg->key;
    h->held = held ? LC_SHM_HELD : 0;
    /* Release: the rings are initialised before a peer sees the magic. */
    atomic_thread_fence(memory_order_release);
    h->magic = LC_SHM_MAGIC;
    if (!named && lc_shm_place(seg, kvsname, rank, seg->hold - 1) < 0) {
        int err = errno;
        if (err == EEXIST) lc_shm_create_error(seg->name, err);
        else lc_shm_unnamed_ok = 0;
        munmap(seg->base, seg->size);
        close(seg->hold - 1);
        memset(seg, 0, sizeof(*seg));
        return err == EEXIST ? -1 : 1;
    }
    return 0;
}

/* The geometry a peer's header claims, checked before any ring is
 * touched: what lc_shm_cell_size and lc_shm_ring_cells can produce, and
 * rings that fit the object's size.  0, or -1 with the reason. */
static int lc_shm_check_geometry(const lc_shm_seg_hdr_t *h, size_t size, const char *name, char *why,
                                 size_t whylen)
{
    if (h->cell_size < 64 || h->cell_size % 64 || h->cell_size > LC_SHM_MAX_CELL) {
        snprintf(why, whylen, "%s: invalid cell size %u in its header", name, h->cell_size);
        return -1;
    }
    if (h->ncells < 2 || h->ncells > LC_SHM_MAX_CELLS || (h->ncells & (h->ncells - 1))) {
        snprintf(why, whylen, "%s: invalid cell count %u in its header (a power of two from 2 to %u)", name,
                 h->ncells, LC_SHM_MAX_CELLS);
        return -1;
    }
    uint64_t ring = (uint64_t)h->cell_size * h->ncells; /* < 2^46: no overflow */
    if (h->nrings < 1 || (size - LC_SHM_RINGS_OFFSET) / ring < h->nrings) {
        snprintf(why, whylen, "%s: %u rings of %u cells of %u bytes do not fit its %zu bytes", name, h->nrings,
                 h->ncells, h->cell_size, size);
        return -1;
    }
    if (!h->pool_cells) return 0;
    /* The pool: a peer's pooled packets are read at index x cell size
     * from its start, so both must be sane and the whole pool inside. */
    if (h->pool_cells > LC_SHM_MAX_POOL_CELLS || h->pool_cell_size < 256 || h->pool_cell_size % 64 ||
        h->pool_cell_size > LC_SHM_MAX_CELL) {
        snprintf(why, whylen, "%s: invalid pool of %u cells of %u bytes in its header", name, h->pool_cells,
                 h->pool_cell_size);
        return -1;
    }
    uint64_t end = lc_shm_pool_offset(h->nrings, h->cell_size, h->ncells) + (uint64_t)h->pool_cells * h->pool_cell_size;
    if (end > size) {
        snprintf(why, whylen, "%s: its pool of %u cells of %u bytes does not fit its %zu bytes", name,
                 h->pool_cells, h->pool_cell_size, size);
        return -1;
    }
    if (!h->big_cells) return 0;
    /* The big cells, read at index x big cell size from the pool's end:
     * the same checks (64 MiB x 4096 < 2^38: no overflow). */
    if (h->big_cells > LC_SHM_MAX_BIG_CELLS || h->big_cell_size < 256 || h->big_cell_size % 64 ||
        h->big_cell_size > LC_SHM_MAX_CELL) {
        snprintf(why, whylen, "%s: invalid set of %u big cells of %u bytes in its header", name, h->big_cells,
                 h->big_cell_size);
        return -1;
    }
    end += (uint64_t)h->big_cells * h->big_cell_size;
    if (end > size) {
        snprintf(why, whylen, "%s: its %u big cells of %u bytes do not fit its %zu bytes", name, h->big_cells,
                 h->big_cell_size, size);
        return -1;
    }
    return 0;
}

int lc_shm_segment_attach(lc_shm_segment_t *seg, const char *kvsname, int rank, const char *card, char *why,
                          size_t whylen)
{
    memset(seg, 0, sizeof(*seg));
    uint64_t token, key;
    if (lc_shm_parse_card(card, &token, &key) != 0) {
        snprintf(why, whylen, "its segment card \"%.40s\" is malformed", card ? card : "(none)");
        return -1;
    }
    if (lc_shm_name(seg, kvsname, rank, token) != 0) {
        snprintf(why, whylen, "the name of its segment is too long");
        return -1;
    }
    /* Through its directory, checked first (ours, 0700); no links. */
    int fd = lc_shm_obj_open(seg->name, O_RDWR, why, whylen);
    if (fd < 0) return -1;
    struct stat st;
    if (lc_shm_check_owned(fd, seg->name, false, why, whylen) != 0) {
        close(fd);
        return -1;
    }
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < LC_SHM_RINGS_OFFSET) {
        snprintf(why, whylen, "%s has an unexpected size", seg->name);
        close(fd);
        return -1;
    }
    seg->size = (size_t)st.st_size;
    seg->base = mmap(NULL, seg->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (seg->base == MAP_FAILED) {
        snprintf(why, whylen, "cannot map %s: %s", seg->name, strerror(errno));
        close(fd);
        seg->base = NULL;
        return -1;
    }
    seg->hold = fd + 1; /* its owner's lock tells whether it lives (lc_shm_segment_owner_alive) */
    /* One copy of the header: what is checked is what is used. */
    lc_shm_seg_hdr_t h;
    uint64_t magic = atomic_load_explicit((_Atomic uint64_t *)seg->base, memory_order_acquire);
    memcpy(&h, seg->base, sizeof(h));
    if (magic != LC_SHM_MAGIC) {
        snprintf(why, whylen, "%s is not an initialised Locus segment", seg->name);
        goto bad;
    }
    if (h.key != key) {
        snprintf(why, whylen, "%s does not carry the key its owner published: not this job's segment", seg->name);
        goto bad;
    }
    if (lc_shm_check_geometry(&h, seg->size, seg->name, why, whylen) != 0) goto bad;
    seg->token = token;
    seg->key = key;
    seg->cell_size = h.cell_size;
    seg->ncells = h.ncells;
    seg->nrings = h.nrings;
    seg->pool_cells = h.pool_cells;
    seg->pool_cell_size = h.pool_cells ? h.pool_cell_size : 0;
    seg->big_cells = h.pool_cells ? h.big_cells : 0;
    seg->big_cell_size = seg->big_cells ? h.big_cell_size : 0;
    seg->unlinked = 1; /* the owner unlinks it */
    return 0;
bad:
    munmap(seg->base, seg->size);
    seg->base = NULL;
    close(seg->hold - 1);
    seg->hold = 0;
    return -1;
}

void lc_shm_segment_unlink(lc_shm_segment_t *seg)
{
    if (seg->base && !seg->unlinked) {
        lc_shm_obj_remove(seg->name);
        seg->unlinked = 1;
    }
}

void lc_shm_segment_detach(lc_shm_segment_t *seg)
{
    lc_shm_segment_unlink(seg);
    if (seg->base) munmap(seg->base, seg->size);
    seg->base = NULL;
    if (seg->hold) close(seg->hold - 1); /* the owner's: releases its lock */
    seg->hold = 0;
}

/* Our new segment's descriptor stays open, with a write lock on the whole
 * object for as long as this process lives: the kernel releases it when
 * the process dies, however it dies, so a peer — in any PID namespace
 * that shares the object — and a later job's sweep can tell a dead
 * owner's segment from a live one (lc_shm_sweep.c).  A POSIX lock, not an
 * OFD lock: a child forked by the application does not inherit it and
 * cannot keep a dead owner "alive".  It lasts while this process closes
 * no other descriptor of the same object, and none is ever opened.
 * Returns 1 when locked; 0 on a file system without locks (not an
 * error: the segment says so in its header, and no sweep touches it). */
static int lc_shm_hold(lc_shm_segment_t *seg, int fd)
{
    struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
    int locked = fcntl(fd, F_SETLK, &lk) == 0;
    if (!locked && lc_params.debug)
        lc_log_warn("shared memory object %s: no lock (%m): its owner's death cannot be seen through it",
                    seg->name);
    seg->hold = fd + 1;
    return locked;
}

int lc_shm_object_orphaned(int fd)
{
    lc_shm_seg_hdr_t h;
    if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) return 0;
    /* The magic is written last, after the lock is taken: a segment being
     * created is never taken for an orphan. */
    if (h.magic != LC_SHM_MAGIC || h.held != LC_SHM_HELD) return 0;
    struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
    if (fcntl(fd, F_GETLK, &lk) != 0) return 0;
    return lk.l_type == F_UNLCK;
}

int lc_shm_segment_owner_alive(const lc_shm_segment_t *seg)
{
    /* Only a creator that says it took the lock can be judged by it (the
     * word never changes after creation; attach checked the key). */
    if (!seg->hold || !seg->base || ((const lc_shm_seg_hdr_t *)seg->base)->held != LC_SHM_HELD) return -1;
    struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
    if (fcntl(seg->hold - 1, F_GETLK, &lk) != 0) return -1;
    return lk.l_type != F_UNLCK;
}

char *lc_shm_segment_ring(const lc_shm_segment_t *seg, uint32_t index)
{
    return (char *)seg->base + LC_SHM_RINGS_OFFSET + (size_t)index * seg->cell_size * seg->ncells;
}

char *lc_shm_segment_pool(const lc_shm_segment_t *seg)
{
    if (!seg->base || !seg->pool_cells) return NULL;
    return (char *)seg->base + lc_shm_pool_offset(seg->nrings, seg->cell_size, seg->ncells);
}

char *lc_shm_segment_big(const lc_shm_segment_t *seg)
{
    if (!seg->base || !seg->big_cells) return NULL;
    return (char *)seg->base +
           lc_shm_big_offset(seg->nrings, seg->cell_size, seg->ncells, seg->pool_cells, seg->pool_cell_size);
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

_Static_assert(LC_PKT_SHM_CELL_HDR == LC_SHM_CELL_HDR && LC_PKT_SHM_POOL_HDR == LC_SHM_POOL_HDR &&
                   LC_PKT_SHM_FLAG_POOL == LC_SHM_FLAG_POOL && offsetof(lc_shm_cell_t, hdr) == 8,
               "lc_pkt_decode.h's view of a cell is lc_shm.h's");

void lc_shm_bell_ring_peers(uint32_t mode)
{
    for (int i = 0; i < lc_shm_rx_count; i++) {
        lc_peer_shm_t *s = &lc_shm_rx_peers[i]->shm;
        if (s->tx_bell_word && s->tx_bell != LC_SHM_BELL_ALWAYS) s->tx_bell = mode;
    }
}

/* A batch bound keeps one chatty peer from starving the others. */
#define LC_SHM_POLL_BATCH 8

/* Anything but a small eager packet in the ring cell: pooled, control,
 * DATA, or malformed.  Decoded on the copy of the header the fast path
 * took; the pool cell goes back to the sender once the handler is done. */
static __attribute__((noinline)) void lc_shm_poll_slow(lc_peer_t *peer, lc_shm_cell_t *cell, lc_pkt_in_t *in)
{
    const lc_shm_rx_ctx_t ctx = { .cell_size = lc_shm_rx_cell_size,
                                  .pool_cells = peer->shm.rx_pool_cells,
                                  .pool_cell_size = peer->shm.rx_pool_cell_size,
                                  .pool = peer->shm.rx_pool,
                                  .big_cells = peer->shm.rx_big_cells,
                                  .big_cell_size = peer->shm.rx_big_cell_size,
                                  .big = peer->shm.rx_big };
    char why[160];
    if (lc_shm_decode_slow(cell, &ctx, in, why, sizeof(why)) != NULL) lc_peer_fault(peer, "%s", why);
    lc_channel_recv_handler(peer, &in->hdr, in->payload);
    if (in->pool_index != UINT32_MAX) {
        /* Release: our reads of the payload are done before the sender
         * reuses the pool cell (its acquire in lc_shm_pool_take). */
        char *pc = in->pool_big ? peer->shm.rx_big + (size_t)in->pool_index * peer->shm.rx_big_cell_size
                                : peer->shm.rx_pool + (size_t)in->pool_index * peer->shm.rx_pool_cell_size;
        atomic_store_explicit(&((lc_shm_pool_cell_t *)pc)->busy, 0, memory_order_release);
    }
}

/* Every packet is decoded (lc_pkt_decode.h) before the engine sees it:
 * one private copy of the header (and of a control packet's payload) —
 * the sender can still write the cell — checked against the ring cell,
 * or for a pooled packet against the sender's pool geometry validated at
 * attach, so that a peer cannot make us read outside its segment.  A
 * malformed packet ends the job (lc_peer_fault). */
int lc_shm_poll(void)
{
    int handled = 0;
    /* MULTIPLE: one thread drains a ring at a time, by try-lock: a thread
     * that finds it held goes on (the holder hands the packets to their
     * queues, where the waiting thread's requests are).  The packets of a
     * ring are matched while it is held, so in ring order. */
    int mt = lc_unlikely(lc_thread_locking());
    for (int i = 0; i < lc_shm_rx_count; i++) {
        lc_peer_t *peer = lc_shm_rx_peers[i];
        if (mt && !lc_lock_try(&peer->rx_lock)) continue;
        for (int n = 0; n < LC_SHM_POLL_BATCH; n++) {
            uint64_t pos = peer->shm.rx_pos;
            lc_shm_cell_t *cell = lc_shm_cell(peer->shm.rx_cells, pos, lc_shm_rx_mask, lc_shm_rx_cell_size);
            /* Acquire: pairs with the sender's release of seq; header and
             * payload are complete once we see pos + 1. */
            if (atomic_load_explicit(&cell->seq, memory_order_acquire) != pos + 1) break;
            lc_pkt_in_t in;
            if (lc_likely(lc_shm_decode_fast(cell, lc_shm_rx_cell_size, &in)))
                lc_channel_recv_handler(peer, &in.hdr, (char *)cell + LC_SHM_CELL_HDR);
            else
                lc_shm_poll_slow(peer, cell, &in);
            /* Release: the handler's reads of the cell are done before the
             * sender may overwrite it. */
            peer->shm.rx_pos = pos + 1;
            atomic_store_explicit(&cell->seq, pos + lc_shm_rx_ncells, memory_order_release);
            handled++;
        }
        if (mt) lc_lock_release(&peer->rx_lock);
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
    .pull_list = lc_cma_pull_list,
};
