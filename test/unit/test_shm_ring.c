/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the shared-memory ring: a forked sender pushes packets of
 * varying sizes through one ring (forcing it to fill up again and again);
 * the receiver checks that every packet arrives once, in order, intact.
 * Before that, attach refuses segments it must not trust (issue 12,
 * point 3): a wrong key, a malformed card, a bad geometry in the header,
 * a directory others may look into, links in place of the directory or
 * the segment — an error naming the segment, not a crash.
 */
#include "channel/lc_shm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NPKT 20000
#define CELL 1024
#define NCELLS 8

static int expected;
static int failures;

static void on_packet(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload)
{
    (void)from;
    if (hdr->tag != expected) {
        fprintf(stderr, "packet %d arrived when %d was expected\n", hdr->tag, expected);
        failures++;
    }
    size_t len = (size_t)(hdr->tag * 7) % (CELL - LC_SHM_CELL_HDR);
    if (hdr->len != len) {
        fprintf(stderr, "packet %d: length %u, expected %zu\n", hdr->tag, hdr->len, len);
        failures++;
    }
    const unsigned char *p = payload;
    for (size_t i = 0; i < len && i < hdr->len; i++)
        if (p[i] != (unsigned char)(hdr->tag + i)) {
            fprintf(stderr, "packet %d: byte %zu corrupted\n", hdr->tag, i);
            failures++;
            break;
        }
    expected = hdr->tag + 1;
}

/* Header offsets (lc_shm.c): magic 0, cell_size 8, ncells 12, nrings 16, key 24. */
static void expect_refused(const char *kvs, const char *card, const char *what, const char *name)
{
    lc_shm_segment_t s;
    char why[600] = "";
    if (lc_shm_segment_attach(&s, kvs, 1, card, why, sizeof(why)) == 0) {
        fprintf(stderr, "attach accepted a segment with %s\n", what);
        failures++;
        lc_shm_segment_detach(&s);
    } else if (name && !strstr(why, name)) {
        fprintf(stderr, "refusal of %s does not name the segment: %s\n", what, why);
        failures++;
    }
}

/* The segment is alone in a directory of ours with mode 0700 (issue 12,
 * point 3); attach refuses a directory others may look into, a link in
 * place of the directory or of the segment, and restores nothing. */
static void check_directory(const char *kvs, const char *card, const char *name)
{
    char dir[600], moved[620];
    struct stat st;
    snprintf(dir, sizeof(dir), "%s", name);
    *strrchr(dir, '/') = 0;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || (st.st_mode & 07777) != 0700 || st.st_uid != geteuid()) {
        fprintf(stderr, "%s is not a directory of ours with mode 0700 (mode %04o)\n", dir,
                (unsigned)(st.st_mode & 07777));
        failures++;
        return;
    }
    if (lstat(name, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & 07777) != 0600) {
        fprintf(stderr, "%s is not a regular file with mode 0600\n", name);
        failures++;
    }
    chmod(dir, 0755);
    expect_refused(kvs, card, "a directory of mode 0755", dir);
    chmod(dir, 0700);
    /* The directory moved away and a link to it in its place. */
    snprintf(moved, sizeof(moved), "%s.moved", dir);
    if (rename(dir, moved) == 0 && symlink(moved, dir) == 0) {
        expect_refused(kvs, card, "a link in place of the directory", dir);
        unlink(dir);
    }
    rename(moved, dir);
    /* The segment moved away and a link to it in its place. */
    snprintf(moved, sizeof(moved), "%s.moved", name);
    if (rename(name, moved) == 0 && symlink(moved, name) == 0) {
        expect_refused(kvs, card, "a link in place of the segment", name);
        unlink(name);
    }
    rename(moved, name);
}

static void check_untrusted(const char *kvs)
{
    lc_shm_segment_t seg;
    if (lc_shm_segment_create(&seg, kvs, 1, 2, CELL, NCELLS) != 0) {
        failures++;
        return;
    }
    char card[LC_SHM_CARD_LEN], bad[LC_SHM_CARD_LEN];
    lc_shm_segment_card(&seg, card, sizeof(card));
    memcpy(bad, card, sizeof(bad));
    bad[31] = bad[31] == '0' ? '1' : '0';
    expect_refused(kvs, bad, "another key", seg.name);
    expect_refused(kvs, "zz", "a malformed card", NULL);
    bad[31] = card[31];
    bad[0] = bad[0] == '0' ? '1' : '0';
    expect_refused(kvs, bad, "another name token", NULL);
    struct { size_t off; uint32_t v; const char *what; } geo[] = {
        { 8, 32, "a cell size below 64" },      { 8, CELL + 1, "a cell size not a multiple of 64" },
        { 8, 1u << 31, "a huge cell size" },      { 12, 6, "a cell count not a power of two" },
        { 12, 0, "no cells" },                    { 12, 1u << 30, "a huge cell count" },
        { 16, 0, "no rings" },                    { 16, 3, "more rings than fit the object" },
        { 16, 0xffffffffu, "2^32-1 rings" },
    };
    for (size_t i = 0; i < sizeof(geo) / sizeof(geo[0]); i++) {
        uint32_t *field = (uint32_t *)((char *)seg.base + geo[i].off), saved = *field;
        *field = geo[i].v;
        expect_refused(kvs, card, geo[i].what, seg.name);
        *field = saved;
    }
    check_directory(kvs, card, seg.name);
    lc_shm_segment_t ok;
    char why[600];
    if (lc_shm_segment_attach(&ok, kvs, 1, card, why, sizeof(why)) != 0) {
        fprintf(stderr, "restored segment refused: %s\n", why);
        failures++;
    } else
        lc_shm_segment_detach(&ok);
    lc_shm_segment_detach(&seg);
}

int main(void)
{
    char kvs[64];
    snprintf(kvs, sizeof(kvs), "unit%d", (int)getpid());
    check_untrusted(kvs);
    lc_shm_segment_t seg, peer_seg;
    if (lc_shm_segment_create(&seg, kvs, 0, 1, CELL, NCELLS) != 0) return 1;
    char why[600], card[LC_SHM_CARD_LEN];
    lc_shm_segment_card(&seg, card, sizeof(card));
    if (lc_shm_segment_attach(&peer_seg, kvs, 0, card, why, sizeof(why)) != 0) {
        fprintf(stderr, "attach: %s\n", why);
        return 1;
    }
    lc_shm_segment_unlink(&seg);

    pid_t child = fork();
    if (child == 0) {
        lc_peer_t tx = { .shm = { .tx_cells = lc_shm_segment_ring(&peer_seg, 0), .tx_mask = NCELLS - 1,
                                  .tx_cell_size = CELL },
                         .kind = LC_CHANNEL_SHM };
        unsigned char buf[CELL];
        int full = 0;
        for (int n = 0; n < NPKT; n++) {
            size_t len = (size_t)(n * 7) % (CELL - LC_SHM_CELL_HDR);
            for (size_t i = 0; i < len; i++) buf[i] = (unsigned char)(n + i);
            lc_pkt_hdr_t hdr = { .kind = LC_PKT_EAGER, .tag = n };
            /* Split the payload in two parts to exercise pre + data. */
            size_t pre = len / 3;
            while (lc_shm_try_send(&tx, &hdr, buf, pre, buf + pre, len - pre) != LC_OK) full++;
        }
        _exit(full > 0 ? 0 : 3); /* the ring must have been full at times */
    }
    lc_peer_t rx = { .shm.rx_cells = lc_shm_segment_ring(&seg, 0) };
    lc_peer_t *rxp = &rx;
    lc_channel_recv_handler = on_packet;
    lc_shm_set_rx_peers(&rxp, 1, NCELLS, CELL);
    double deadline = lc_time_now() + 30;
    while (expected < NPKT && lc_time_now() < deadline) lc_shm_poll();
    int status;
    waitpid(child, &status, 0);
    if (expected != NPKT) {
        fprintf(stderr, "only %d of %d packets arrived\n", expected, NPKT);
        failures++;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "sender failed (status %d)\n", status);
        failures++;
    }
    lc_shm_segment_detach(&peer_seg);
    lc_shm_segment_detach(&seg);
    if (!failures) printf("ring: %d packets in order through %d cells\n", NPKT, NCELLS);
    return failures ? 1 : 0;
}
