/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the progress thread's doorbell (src/channel/lc_shm_bell.h):
 * a send rings only when the owner asked (wanted), once per request, and
 * the ring wakes a sleeper in another process through shared memory; a
 * wait on a value that already moved returns at once, one that nobody
 * rings times out.
 */
#include "channel/lc_shm_bell.h"
#include "lc_unit_check.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static struct timespec after(double sec)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    long ns = t.tv_nsec + (long)(sec * 1e9);
    t.tv_sec += ns / 1000000000L;
    t.tv_nsec = ns % 1000000000L;
    return t;
}

int main(void)
{
    /* Shared like a segment: the child sleeps, the parent sends. */
    lc_shm_bell_t *b = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (b == MAP_FAILED) return 77;
    memset(b, 0, sizeof(*b));
    lc_peer_t peer;
    memset(&peer, 0, sizeof(peer));
    peer.shm.tx_bell = 1;
    peer.shm.tx_bell_word = b;

    /* Not wanted: a send leaves the bell alone. */
    lc_shm_bell_after_send(&peer);
    CHECK(atomic_load(&b->bell) == 0);

    /* A value that moved: no sleep.  Nobody rings: the deadline. */
    double t0 = now();
    CHECK(lc_shm_bell_wait(b, 12345, NULL) == 0);
    struct timespec d = after(0.02);
    CHECK(lc_shm_bell_wait(b, 0, &d) == -1);
    CHECKF(now() - t0 >= 0.019, "timed out after %.3f s, asked 0.02", now() - t0);

    /* The child asks and sleeps; the parent's send wakes it. */
    pid_t pid = fork();
    if (pid == 0) {
        atomic_store(&b->wanted, 1);
        uint32_t v = atomic_load(&b->bell);
        struct timespec dl = after(20.0);
        int rc = 0;
        while (atomic_load(&b->bell) == v && rc == 0) rc = lc_shm_bell_wait(b, v, &dl);
        _exit(rc == 0 && atomic_load(&b->bell) != v ? 0 : 1);
    }
    CHECK(pid > 0);
    while (!atomic_load(&b->wanted)) usleep(1000);
    usleep(50000); /* let it sleep */
    t0 = now();
    lc_shm_bell_after_send(&peer);
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the sleeper was not woken by the send (status %#x)", st);
    CHECKF(now() - t0 < 10.0, "the sleeper woke only after %.1f s", now() - t0);
    /* The ring took the request: the next send does not ring again. */
    CHECK(atomic_load(&b->wanted) == 0);
    uint32_t v = atomic_load(&b->bell);
    CHECK(v == 1);
    lc_shm_bell_after_send(&peer);
    CHECK(atomic_load(&b->bell) == v);
    return failures != 0;
}
