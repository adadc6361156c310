/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_ivshmem_region.c — finding, mapping, initialising and validating an
 * IVSHMEM region, and its slot table (claim, renew, reclaim, release).
 * The layout and the claim protocol are described in lc_ivshmem.h.
 */
#include "channel/lc_ivshmem.h"
#include "channel/lc_shm.h"
#include "util/lc_params.h"
#include "util/lc_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LC_IVS_PAGE 4096u
/* An initialiser that has not finished after this many seconds is
 * presumed dead (initialising writes a few KiB). */
#define LC_IVS_INIT_STALE_MS 5000u

uint32_t lc_ivs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint32_t)ts.tv_sec;
}

static uint64_t lc_ivs_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t lc_ivs_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h ? h : 1;
}

uint64_t lc_ivs_kernel_hash(const char *boot_id)
{
    char buf[128];
    struct stat st;
    uint64_t pidns = stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
    snprintf(buf, sizeof(buf), "%s/%" PRIx64, boot_id, pidns);
    return lc_ivs_hash(buf);
}

lc_ivs_slot_t *lc_ivs_slot(const lc_ivs_region_t *r, uint32_t i)
{
    return (lc_ivs_slot_t *)((char *)r->base + LC_IVS_TABLE_OFFSET + (size_t)i * LC_IVS_SLOT_ENTRY);
}

char *lc_ivs_slot_data(const lc_ivs_region_t *r, uint32_t i)
{
    return (char *)r->base + r->data_offset + (size_t)i * r->slot_bytes;
}

/* The geometry a header claims, against the size of our mapping: what
 * lc_ivs_init writes can pass, nothing else.  0, or -1 with the reason. */
static int lc_ivs_check_header(const lc_ivs_hdr_t *h, size_t size, char *why, size_t whylen)
{
    if (h->version != LC_IVS_VERSION) {
        snprintf(why, whylen, "version %u (this Locus speaks %u)", h->version, LC_IVS_VERSION);
        return -1;
    }
    if (h->nslots < 1 || h->nslots > LC_IVS_MAX_SLOTS) {
        snprintf(why, whylen, "invalid slot count %u", h->nslots);
        return -1;
    }
    if (h->region_id == 0) {
        snprintf(why, whylen, "no region id");
        return -1;
    }
    uint64_t table_end = LC_IVS_TABLE_OFFSET + (uint64_t)h->nslots * LC_IVS_SLOT_ENTRY;
    if (h->size > size || h->data_offset < table_end || h->data_offset % LC_IVS_PAGE || h->slot_bytes == 0 ||
        h->slot_bytes % LC_IVS_PAGE || h->data_offset > h->size ||
        (h->size - h->data_offset) / h->slot_bytes < h->nslots) {
        snprintf(why, whylen,
                 "geometry does not fit: %u slots of %" PRIu64 " bytes from offset %" PRIu64 " in %" PRIu64
                 " bytes (mapped: %zu)",
                 h->nslots, h->slot_bytes, h->data_offset, h->size, size);
        return -1;
    }
    return 0;
}

/* First user: lay out the header and an empty slot table.  The caller
 * holds the init word (BUSY). */
static void lc_ivs_init(lc_ivs_region_t *r)
{
    lc_ivs_hdr_t *h = r->base;
    uint32_t nslots = (uint32_t)lc_params.ivshmem_slots;
    if (nslots < 1) nslots = 1;
    if (nslots > LC_IVS_MAX_SLOTS) nslots = LC_IVS_MAX_SLOTS;
    uint64_t data = LC_IVS_TABLE_OFFSET + (uint64_t)nslots * LC_IVS_SLOT_ENTRY;
    data = (data + LC_IVS_PAGE - 1) & ~(uint64_t)(LC_IVS_PAGE - 1);
    uint64_t slot = r->size > data ? ((r->size - data) / nslots) & ~(uint64_t)(LC_IVS_PAGE - 1) : 0;
    /* Too small for this many slots: fewer slots (at least a page each). */
    while (slot == 0 && nslots > 1) {
        nslots /= 2;
        data = (LC_IVS_TABLE_OFFSET + (uint64_t)nslots * LC_IVS_SLOT_ENTRY + LC_IVS_PAGE - 1) &
               ~(uint64_t)(LC_IVS_PAGE - 1);
        slot = r->size > data ? ((r->size - data) / nslots) & ~(uint64_t)(LC_IVS_PAGE - 1) : 0;
    }
    memset((char *)r->base + LC_IVS_TABLE_OFFSET, 0, (size_t)LC_IVS_MAX_SLOTS * LC_IVS_SLOT_ENTRY);
    uint64_t id = 0;
    while (id == 0)
        if (lc_shm_random(&id, sizeof(id)) != 0) id = lc_ivs_now_ms() ^ ((uint64_t)getpid() << 32);
    h->version = LC_IVS_VERSION;
    h->nslots = nslots;
    h->size = r->size;
    h->region_id = id;
    h->slot_bytes = slot;
    h->data_offset = data;
    /* Release: header and table are complete before anyone sees magic
     * and READY (readers acquire the init word). */
    atomic_store_explicit(&h->magic, LC_IVS_MAGIC, memory_order_release);
    atomic_store_explicit(&h->init, LC_IVS_INIT_READY, memory_order_release);
}

/* Wait for (or do) the initialisation; then validate.  0, or -1 with the
 * reason. */
static int lc_ivs_ready(lc_ivs_region_t *r, char *why, size_t whylen)
{
    lc_ivs_hdr_t *h = r->base;
    uint64_t start = lc_ivs_now_ms();
    for (;;) {
        uint64_t w = atomic_load_explicit(&h->init, memory_order_acquire);
        if (w == LC_IVS_INIT_READY) break;
        uint64_t now = lc_ivs_now_ms();
        if (w == 0 || ((w & LC_IVS_INIT_BUSY) && now - (w & ~LC_IVS_INIT_BUSY) > LC_IVS_INIT_STALE_MS &&
                       (w & ~LC_IVS_INIT_BUSY) <= now)) {
            /* Fresh (all zero, as QEMU's new backing file is), or an
             * initialiser that died: ours to lay out.  A fresh region
             * must really be empty, or it is someone else's data. */
            if (w == 0 && atomic_load_explicit(&h->magic, memory_order_relaxed) != 0) {
                snprintf(why, whylen, "its header has a magic but no init word: not a Locus region");
                return -1;
            }
            if (atomic_compare_exchange_strong(&h->init, &w, LC_IVS_INIT_BUSY | now)) {
                lc_ivs_init(r);
                break;
            }
            continue;
        }
        if (!(w & LC_IVS_INIT_BUSY)) {
            snprintf(why, whylen, "init word 0x%016" PRIx64 " is not a Locus region's", w);
            return -1;
        }
        if (now - start > 2 * LC_IVS_INIT_STALE_MS) {
            snprintf(why, whylen, "another user has been initialising it for %" PRIu64 " ms", now - start);
            return -1;
        }
        sched_yield();
    }
    if (atomic_load_explicit(&h->magic, memory_order_acquire) != LC_IVS_MAGIC) {
        snprintf(why, whylen, "bad magic 0x%016" PRIx64, atomic_load_explicit(&h->magic, memory_order_relaxed));
        return -1;
    }
    /* One copy of the header: what is checked is what is used. */
    lc_ivs_hdr_t c;
    memcpy(&c, (const void *)h, sizeof(c));
    if (lc_ivs_check_header(&c, r->size, why, whylen) != 0) return -1;
    r->id = c.region_id;
    r->nslots = c.nslots;
    r->slot_bytes = c.slot_bytes;
    r->data_offset = c.data_offset;
    return 0;
}

int lc_ivs_region_open_path(lc_ivs_region_t *r, const char *path)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->path, sizeof(r->path), "%s", path);
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        lc_log_error("IVSHMEM region %s cannot be opened: %m%s", path,
                     errno == EACCES ? " (a sysfs PCI resource needs root in the guest)" : "");
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        lc_log_error("IVSHMEM region %s is not a regular file (or a PCI resource file)", path);
        close(fd);
        return -1;
    }
    size_t need = LC_IVS_TABLE_OFFSET + LC_IVS_MAX_SLOTS * LC_IVS_SLOT_ENTRY + LC_IVS_PAGE;
    if ((uint64_t)st.st_size < need) {
        lc_log_error("IVSHMEM region %s has %lld bytes, fewer than the %zu a header, table and one slot need "
                     "(docs/vms.md: sizing)", path, (long long)st.st_size, need);
        close(fd);
        return -1;
    }
    r->size = (size_t)st.st_size;
    r->base = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (r->base == MAP_FAILED) {
        lc_log_error("IVSHMEM region %s (%zu bytes) cannot be mapped: %m", path, r->size);
        r->base = NULL;
        return -1;
    }
    char why[200];
    if (lc_ivs_ready(r, why, sizeof(why)) != 0) {
        lc_log_error("IVSHMEM region %s cannot be used: %s. If no job uses it, zero it (host: truncate and "
                     "re-create the backing file before starting the VMs), or set LOCUS_IVSHMEM=off",
                     path, why);
        lc_ivs_region_close(r);
        return -1;
    }
    return 1;
}

/* "0x1af4\n" of a sysfs attribute file as a number; -1 if unreadable. */
static long lc_ivs_sysfs_hex(const char *dev, const char *attr)
{
    char path[512], buf[32];
    snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", dev, attr);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long v = fgets(buf, sizeof(buf), f) ? strtol(buf, NULL, 16) : -1;
    fclose(f);
    return v;
}

/* The first ivshmem-plain device (1af4:1110, subsystem not checked) in
 * sysfs, by address order; 0 found (dev filled), -1 none. */
static int lc_ivs_find_pci(char *dev, size_t len)
{
    DIR *d = opendir("/sys/bus/pci/devices");
    if (!d) return -1;
    struct dirent *e;
    char best[256] = "";
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if (lc_ivs_sysfs_hex(e->d_name, "vendor") != 0x1af4 || lc_ivs_sysfs_hex(e->d_name, "device") != 0x1110)
            continue;
        if (!best[0] || strcmp(e->d_name, best) < 0) snprintf(best, sizeof(best), "%s", e->d_name);
    }
    closedir(d);
    if (!best[0]) return -1;
    snprintf(dev, len, "%s", best);
    return 0;
}

/* A PCI address as sysfs names it: dddd:bb:dd.f. */
static int lc_ivs_is_pci_address(const char *s)
{
    unsigned dom, bus, slot, fn;
    int end = -1;
    return sscanf(s, "%4x:%2x:%2x.%1x%n", &dom, &bus, &slot, &fn, &end) == 4 && end == (int)strlen(s);
}

int lc_ivs_region_open(lc_ivs_region_t *r)
{
    const char *want = lc_params.ivshmem;
    char dev[256], path[512];
    memset(r, 0, sizeof(*r));
    if (!strcmp(want, "off") || !strcmp(want, "0") || !strcmp(want, "no")) return 0;
    if (!want[0]) {
        if (lc_ivs_find_pci(dev, sizeof(dev)) != 0) return 0; /* not in a VM with a region */
    } else if (lc_ivs_is_pci_address(want)) {
        snprintf(dev, sizeof(dev), "%s", want);
        if (lc_ivs_sysfs_hex(dev, "vendor") != 0x1af4 || lc_ivs_sysfs_hex(dev, "device") != 0x1110) {
            lc_log_error("LOCUS_IVSHMEM=%s is not an ivshmem-plain PCI device (1af4:1110) here; see lspci -nn",
                         want);
            return -1;
        }
    } else {
        return lc_ivs_region_open_path(r, want);
    }
    /* BAR2 is the shared memory of ivshmem-plain.  Memory decoding must
     * be on; the firmware usually enables it, writing "enable" makes
     * sure (needs root, as the mapping does; failure is not fatal). */
    snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/enable", dev);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("1", f);
        fclose(f);
    }
    snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource2", dev);
    return lc_ivs_region_open_path(r, path);
}

void lc_ivs_region_close(lc_ivs_region_t *r)
{
    if (r->base) munmap(r->base, r->size);
    r->base = NULL;
}

int lc_ivs_slot_stale(uint64_t own, uint64_t owner_kernel, uint32_t owner_pid, uint64_t my_kernel, uint32_t now,
                      uint32_t lease)
{
    if (own == 0) return 1;
    uint32_t renewed = (uint32_t)(own >> 32);
    /* Wrapping difference: a renewal "in the future" (clocks of two
     * guests a little apart) counts as fresh. */
    int32_t age = (int32_t)(now - renewed);
    if (age > (int32_t)lease) return 1;
    /* On our kernel (and pid namespace) a gone owner is known at once. */
    if (owner_kernel == my_kernel && owner_pid > 0 && kill((pid_t)owner_pid, 0) != 0 && errno == ESRCH) return 1;
    return 0;
}

static int lc_ivs_slot_try_claim(const lc_ivs_region_t *r, const lc_ivs_owner_t *me, uint32_t now,
                                 uint64_t *own_word)
{
    uint32_t tag = 0;
    while (tag == 0)
        if (lc_shm_random(&tag, sizeof(tag)) != 0) tag = (uint32_t)getpid() ^ (uint32_t)lc_ivs_now_ms();
    uint64_t mine = (uint64_t)now << 32 | tag;
    uint32_t lease = lc_params.ivshmem_lease > 0 ? (uint32_t)lc_params.ivshmem_lease : 1;
    /* Free slots first, so that a stale one stays inspectable as long as
     * there is room. */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < r->nslots; i++) {
            lc_ivs_slot_t *s = lc_ivs_slot(r, i);
            uint64_t own = atomic_load_explicit(&s->own, memory_order_acquire);
            if (pass == 0 && own != 0) continue;
            if (pass == 1 && (own == 0 || !lc_ivs_slot_stale(own, s->kernel, s->pid, me->kernel, now, lease)))
                continue;
            if (!atomic_compare_exchange_strong(&s->own, &own, mine)) continue;
            /* Ours.  Not ready until the rings are laid out (peers check). */
            atomic_store_explicit(&s->ready, 0, memory_order_relaxed);
            s->job = me->job;
            s->kernel = me->kernel;
            s->pid = me->pid;
            s->rank = me->rank;
            *own_word = mine;
            return (int)i;
        }
    }
    return -1;
}

int lc_ivs_slot_claim(const lc_ivs_region_t *r, const lc_ivs_owner_t *me, uint32_t now, uint64_t *own_word)
{
    /* Every slot in use: wait up to a lease for one to be freed or to go
     * stale (a job that just died), then give up. */
    uint64_t until = lc_ivs_now_ms() + 1000u * (uint64_t)(lc_params.ivshmem_lease > 0 ? lc_params.ivshmem_lease : 1);
    int slot;
    while ((slot = lc_ivs_slot_try_claim(r, me, now, own_word)) < 0 && lc_ivs_now_ms() < until) {
        struct timespec ts = { 0, 100 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        now = lc_ivs_now();
    }
    if (slot >= 0) return slot;
    char list[600];
    size_t n = 0;
    list[0] = 0;
    for (uint32_t i = 0; i < r->nslots && n < sizeof(list) - 80; i++) {
        lc_ivs_slot_t *s = lc_ivs_slot(r, i);
        uint64_t own = atomic_load_explicit(&s->own, memory_order_relaxed);
        n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%u: job %08" PRIx64 " rank %u pid %u renewed %ds ago",
                              i ? "; " : "", i, s->job & 0xffffffffu, s->rank, s->pid,
                              (int)(int32_t)(now - (uint32_t)(own >> 32)));
    }
    lc_log_error("IVSHMEM region %s: all %u slots are in use (%s). Wait for those jobs (or %lds after they "
                 "died), or give the region more slots (LOCUS_IVSHMEM_SLOTS, applied when it is fresh)",
                 r->path, r->nslots, list, lc_params.ivshmem_lease);
    return -1;
}

int lc_ivs_slot_renew(const lc_ivs_region_t *r, uint32_t slot, uint64_t *own_word, uint32_t now)
{
    lc_ivs_slot_t *s = lc_ivs_slot(r, slot);
    uint64_t want = (uint64_t)now << 32 | (*own_word & 0xffffffffu);
    uint64_t expect = *own_word;
    if (!atomic_compare_exchange_strong(&s->own, &expect, want)) return -1;
    *own_word = want;
    return 0;
}

void lc_ivs_slot_release(const lc_ivs_region_t *r, uint32_t slot, uint64_t own_word)
{
    lc_ivs_slot_t *s = lc_ivs_slot(r, slot);
    uint64_t expect = own_word;
    /* Not ready first, so a late peer does not trust a slot being freed. */
    if (atomic_load_explicit(&s->own, memory_order_relaxed) == own_word)
        atomic_store_explicit(&s->ready, 0, memory_order_relaxed);
    atomic_compare_exchange_strong(&s->own, &expect, 0);
}
