/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the IVSHMEM region (lc_ivshmem.h) on a plain file, the way
 * LOCUS_IVSHMEM=<path> uses one: the first user lays out the header and
 * every later mapping sees the same region id; slots are claimed once
 * each, reclaimed only when stale (lease) or when their owner on this
 * kernel is gone, and a renewal after a reclaim fails; a region holding
 * garbage (init word, magic, version, geometry, size) is refused with a
 * message, never trusted.
 */
#include "channel/lc_ivshmem.h"
#include "util/lc_params.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lc_unit_check.h"

static char path[64];

static void fresh(size_t size)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
        perror(path);
        exit(1);
    }
    close(fd);
}

/* Overwrite `len` bytes at `off` of the file. */
static void poke(off_t off, const void *buf, size_t len)
{
    int fd = open(path, O_RDWR);
    if (fd < 0 || pwrite(fd, buf, len, off) != (ssize_t)len) {
        perror(path);
        exit(1);
    }
    close(fd);
}

int main(void)
{
    lc_params_load();
    lc_params.ivshmem_slots = 4;
    lc_params.ivshmem_lease = 2;
    snprintf(path, sizeof(path), "/tmp/lc-ivs-unit-%d", (int)getpid());
    fresh(1u << 20);

    /* First user initialises; a second mapping sees the same id. */
    lc_ivs_region_t a, b;
    CHECK(lc_ivs_region_open_path(&a, path) == 1);
    CHECK(a.id != 0 && a.nslots == 4 && a.slot_bytes % 4096 == 0 && a.slot_bytes > 0);
    CHECK(a.data_offset + a.nslots * a.slot_bytes <= a.size);
    CHECK(lc_ivs_region_open_path(&b, path) == 1);
    CHECK(b.id == a.id && b.nslots == a.nslots && b.slot_bytes == a.slot_bytes);

    /* Four owners get four different slots. */
    uint32_t now = lc_ivs_now();
    uint64_t own[5];
    int got[5], seen = 0;
    for (int i = 0; i < 4; i++) {
        lc_ivs_owner_t o = { .job = 7, .kernel = 1000 + (uint64_t)i, .pid = 0, .rank = (uint32_t)i };
        got[i] = lc_ivs_slot_claim(i % 2 ? &b : &a, &o, now, &own[i]);
        CHECK(got[i] >= 0 && got[i] < 4);
        if (got[i] >= 0) seen |= 1 << got[i];
    }
    CHECK(seen == 0xf);
    /* Full: a fifth claimer waits a lease for a slot, then is refused —
     * unless the owners stopped renewing: then it takes a stale one. */
    fprintf(stderr, "(an \"all 4 slots are in use\" error follows: expected)\n");
    lc_ivs_owner_t late = { .job = 8, .kernel = 2000, .pid = 0, .rank = 0 };
    CHECK(lc_ivs_slot_claim(&a, &late, now, &own[4]) == -1);
    CHECK(lc_ivs_slot_renew(&a, (uint32_t)got[0], &own[0], now + 9) == 0);
    got[4] = lc_ivs_slot_claim(&a, &late, now + 10, &own[4]); /* slots 1..3 renewed at `now`: stale */
    CHECK(got[4] >= 0 && got[4] != got[0]);
    /* The owner it was taken from can no longer renew it. */
    for (int i = 1; i < 4; i++)
        if (got[i] == got[4]) CHECK(lc_ivs_slot_renew(&a, (uint32_t)got[i], &own[i], now + 10) == -1);
    /* Release frees a slot; a stale owner's release does nothing. */
    lc_ivs_slot_release(&a, (uint32_t)got[4], own[4]);
    CHECK(atomic_load(&lc_ivs_slot(&a, (uint32_t)got[4])->own) == 0);

    /* An owner on this kernel whose pid is gone is stale at once. */
    pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, NULL, 0);
    uint64_t k = lc_ivs_kernel_hash("boot");
    CHECK(lc_ivs_slot_stale((uint64_t)now << 32 | 5, k, (uint32_t)child, k, now, 100) == 1);
    CHECK(lc_ivs_slot_stale((uint64_t)now << 32 | 5, k, (uint32_t)getpid(), k, now, 100) == 0);
    CHECK(lc_ivs_slot_stale((uint64_t)now << 32 | 5, k + 1, (uint32_t)child, k, now, 100) == 0);
    CHECK(lc_ivs_slot_stale((uint64_t)now << 32 | 5, k + 1, (uint32_t)child, k, now + 101, 100) == 1);
    lc_ivs_region_close(&a);
    lc_ivs_region_close(&b);

    /* Garbage is refused. */
    lc_ivs_region_t g;
    fprintf(stderr, "(errors about unusable regions follow: expected)\n");
    fresh(1u << 20);
    uint64_t junk = 0x1234567812345678ull;
    poke(offsetof(lc_ivs_hdr_t, init), &junk, sizeof(junk));
    CHECK(lc_ivs_region_open_path(&g, path) == -1);
    fresh(1u << 20);
    poke(0, &junk, sizeof(junk)); /* a magic-like word in a "fresh" region: someone's data */
    CHECK(lc_ivs_region_open_path(&g, path) == -1);
    fresh(1u << 20);
    CHECK(lc_ivs_region_open_path(&g, path) == 1);
    lc_ivs_region_close(&g);
    uint32_t bad32 = 1000;
    poke(offsetof(lc_ivs_hdr_t, nslots), &bad32, sizeof(bad32));
    CHECK(lc_ivs_region_open_path(&g, path) == -1);
    fresh(1u << 20);
    CHECK(lc_ivs_region_open_path(&g, path) == 1);
    lc_ivs_region_close(&g);
    uint64_t big = 1ull << 40;
    poke(offsetof(lc_ivs_hdr_t, slot_bytes), &big, sizeof(big));
    CHECK(lc_ivs_region_open_path(&g, path) == -1);
    fresh(1u << 20);
    CHECK(lc_ivs_region_open_path(&g, path) == 1);
    lc_ivs_region_close(&g);
    bad32 = 99;
    poke(offsetof(lc_ivs_hdr_t, version), &bad32, sizeof(bad32));
    CHECK(lc_ivs_region_open_path(&g, path) == -1);
    fresh(8192); /* too small for a table and a slot */
    CHECK(lc_ivs_region_open_path(&g, path) == -1);
    /* A dead initialiser (BUSY long ago) is taken over. */
    fresh(1u << 20);
    uint64_t busy = LC_IVS_INIT_BUSY | 1000u;
    poke(offsetof(lc_ivs_hdr_t, init), &busy, sizeof(busy));
    CHECK(lc_ivs_region_open_path(&g, path) == 1);
    lc_ivs_region_close(&g);

    unlink(path);
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("ivshmem region: ok\n");
    return 0;
}
