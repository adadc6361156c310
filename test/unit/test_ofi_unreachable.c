/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the ofi channel's error path: rank 1 publishes its address
 * and goes away; rank 0's sends to it must end rank 0 within seconds
 * (LOCUS_OFI_CONNECT_TIMEOUT=2 here) with a message that names rank 1, its
 * host and address — not hang, not crash.  And the converse: a peer that
 * is alive but busy (no progress for longer than the timeout) is waited
 * for, not declared unreachable.
 *
 * Both ranks are children of the test: libfabric is not fork-safe once an
 * endpoint is open (its threads and sockets would be shared), so the
 * parent never opens one.
 */
#include "lc_ofi_test.h"

static int got;

static void on_any(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload)
{
    (void)from;
    (void)hdr;
    (void)payload;
    got++;
}

/* Rank 1 of the first case: open, swap addresses, close at once. */
static void rank_gone(int rfd, int wfd)
{
    lc_t_open(1, rfd, wfd);
    lc_ofi_close(); /* nothing was exchanged: no goodbye, the endpoint just closes */
    _exit(0);
}

/* Rank 0 of the first case: sends until the channel gives up on rank 1
 * (which ends this process with exit 1). */
static void rank_sender(int rfd, int wfd, int gone_done)
{
    lc_peer_t *peer = lc_t_open(0, rfd, wfd);
    char c;
    if (read(gone_done, &c, 1) < 0) _exit(2); /* rank 1 has closed (EOF) */
    unsigned char buf[512] = { 0 };
    lc_pkt_hdr_t hdr = { .kind = LC_PKT_EAGER };
    double deadline = lc_time_now() + 20;
    while (lc_time_now() < deadline) {
        lc_channel_ofi_ops.try_send(peer, &hdr, NULL, 0, buf, (size_t)(hdr.tag++ % 2 ? 8 : 500));
        lc_ofi_poll();
    }
    fprintf(stderr, "no error after 20 s of sending to a closed endpoint\n");
    _exit(5);
}

/* The busy case: rank 1 polls only after 5 s; rank 0 sends one packet. */
static void rank_busy(int rfd, int wfd)
{
    lc_t_open(1, rfd, wfd);
    sleep(5);
    double deadline = lc_time_now() + 20;
    while (!got && lc_time_now() < deadline) lc_ofi_poll();
    lc_ofi_close();
    _exit(got ? 0 : 4);
}

static void rank_patient(int rfd, int wfd)
{
    lc_peer_t *peer = lc_t_open(0, rfd, wfd);
    double t0 = lc_time_now();
    lc_pkt_hdr_t hdr = { .kind = LC_PKT_EAGER };
    lc_t_send(peer, &hdr, NULL, 0, NULL, 0, lc_time_now() + 30);
    double sent = lc_time_now() - t0;
    lc_ofi_close(); /* its goodbye waits for the busy rank to wake up */
    double closed = lc_time_now() - t0;
    printf("busy peer: packet accepted after %.1f s, delivered and closed after %.1f s, no false alarm\n",
           sent, closed);
    fflush(stdout);
    _exit(closed < 4 ? 6 : 0);
}

static int one(const char *prov)
{
    (void)prov;
    int failures = 0;

    /* 1. Unreachable: rank 1 is gone. */
    int a[2], b[2], done[2], err[2];
    if (pipe(a) || pipe(b) || pipe(done) || pipe(err)) return 2;
    fflush(stdout);
    pid_t gone = fork();
    if (gone == 0) {
        close(done[0]);
        rank_gone(a[0], b[1]); /* done[1] closes with the process: EOF for the sender */
    }
    close(done[1]);
    double t0 = lc_time_now();
    pid_t sender = fork();
    if (sender == 0) {
        dup2(err[1], 2);
        close(err[0]);
        rank_sender(b[0], a[1], done[0]);
    }
    close(err[1]);
    close(done[0]);
    char text[4096];
    size_t len = 0;
    ssize_t n;
    while (len + 1 < sizeof(text) && (n = read(err[0], text + len, sizeof(text) - 1 - len)) > 0) len += (size_t)n;
    text[len] = 0;
    int status = 0;
    waitpid(sender, &status, 0);
    double took = lc_time_now() - t0;
    failures += lc_t_wait_child(gone, "rank 1 (gone)");
    printf("sender's message (after %.2f s): %s", took, text);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 1) {
        fprintf(stderr, "FAILED: the sender ended with status 0x%x, expected exit 1\n", status);
        failures++;
    }
    if (!strstr(text, "rank 1") || !strstr(text, "localhost") || !strstr(text, "127.0.0.1")) {
        fprintf(stderr, "FAILED: the message does not name rank 1, its host and address\n");
        failures++;
    }
    if (took > 10) {
        fprintf(stderr, "FAILED: the error took %.1f s\n", took);
        failures++;
    }

    /* 2. Busy, not gone. */
    int c[2], d[2];
    if (pipe(c) || pipe(d)) return 2;
    fflush(stdout);
    pid_t busy = fork();
    if (busy == 0) rank_busy(c[0], d[1]);
    pid_t patient = fork();
    if (patient == 0) rank_patient(d[0], c[1]);
    failures += lc_t_wait_child(patient, "rank 0 (sender to a busy rank)");
    failures += lc_t_wait_child(busy, "rank 1 (busy)");

    return failures ? 1 : 0;
}

int main(void)
{
    setenv("LOCUS_OFI_CONNECT_TIMEOUT", "2", 1);
    lc_channel_recv_handler = on_any;
    alarm(100);
    int failed = lc_t_each_provider(one);
    if (!failed) printf("ofi unreachable: ok\n");
    return failed ? 1 : 0;
}
