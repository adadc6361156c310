/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_copy_nt_bench.c — the pipeline's two copies between two threads on
 * two cores, without MPI (issue 13): a producer copies a message into a
 * ring of big cells (64 KiB, 16 of them, as a 2-rank job's big cells),
 * the consumer copies each cell out into its buffer; the producer's copy
 * is memcpy or lc_copy_nt (non-temporal stores).  Also a cache-line
 * round trip between the two cores, which tells where the two vCPUs sit
 * (docs/performance.md, "Non-temporal big cells").
 *
 * Each figure is the best and the median of many short batches, the two
 * copies alternated batch by batch, so that a loaded machine (a batch
 * during which a thread was descheduled) costs batches, not the result.
 *
 *   lc_copy_nt_bench [-m MSG] [-b BATCHES] [-c CPU0,CPU1]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "util/lc_copy_nt.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CELL 65536
#define NCELLS 16
#define HDR 64

typedef struct {
    _Alignas(64) _Atomic unsigned long seq; /* producer: n + 1 when cell has fragment n; consumer: 0 */
    char pad[HDR - sizeof(unsigned long)];
} cellhdr_t;

static char *cells;     /* NCELLS x CELL */
static char *src, *dst; /* the message, its receive buffer */
static size_t msg = 1 << 20;
static int cpu[2] = { 0, 1 };
static _Atomic int go; /* batch number the consumer should run; -1 = quit */
static _Atomic int done;
static _Alignas(64) _Atomic long flag;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void pin(int c)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(c, &s);
    pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

#define REPS 8 /* messages per batch */
#define PAYLOAD (CELL - HDR)

static size_t frags(void)
{
    return (msg + PAYLOAD - 1) / PAYLOAD;
}

static void *consumer(void *arg)
{
    (void)arg;
    pin(cpu[1]);
    int seen = 0;
    unsigned long k = 0; /* fragments consumed, over all batches */
    for (;;) {
        int g;
        while ((g = atomic_load_explicit(&go, memory_order_acquire)) == seen) sched_yield();
        if (g < 0) return NULL;
        seen = g;
        for (int r = 0; r < REPS; r++)
            for (size_t f = 0; f < frags(); f++, k++) {
                cellhdr_t *h = (cellhdr_t *)(cells + (k % NCELLS) * CELL);
                while (atomic_load_explicit(&h->seq, memory_order_acquire) != k + 1)
                    ;
                size_t off = f * PAYLOAD, n = msg - off < PAYLOAD ? msg - off : PAYLOAD;
                memcpy(dst + off, (char *)h + HDR, n);
                atomic_store_explicit(&h->seq, 0, memory_order_release);
            }
        atomic_store_explicit(&done, seen, memory_order_release);
    }
}

static unsigned long pk; /* fragments produced */

/* One batch: REPS messages through the cells; returns GB/s. */
static double batch(int b, int nt)
{
    atomic_store_explicit(&go, b, memory_order_release);
    double t0 = now();
    for (int r = 0; r < REPS; r++)
        for (size_t f = 0; f < frags(); f++, pk++) {
            cellhdr_t *h = (cellhdr_t *)(cells + (pk % NCELLS) * CELL);
            while (atomic_load_explicit(&h->seq, memory_order_acquire) != 0)
                ;
            size_t off = f * PAYLOAD, n = msg - off < PAYLOAD ? msg - off : PAYLOAD;
            if (nt)
                lc_copy_nt((char *)h + HDR, src + off, n);
            else
                memcpy((char *)h + HDR, src + off, n);
            atomic_store_explicit(&h->seq, pk + 1, memory_order_release);
        }
    while (atomic_load_explicit(&done, memory_order_acquire) != b)
        ;
    return (double)msg * REPS / (now() - t0);
}

static double rtt_ns(void);

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int nb = 60, c;
    while ((c = getopt(argc, argv, "m:b:c:")) != -1) {
        if (c == 'm')
            msg = strtoul(optarg, NULL, 0);
        else if (c == 'b')
            nb = atoi(optarg);
        else if (c == 'c')
            sscanf(optarg, "%d,%d", &cpu[0], &cpu[1]);
        else {
            fprintf(stderr, "usage: %s [-m MSG] [-b BATCHES] [-c CPU0,CPU1]\n", argv[0]);
            return 2;
        }
    }
    cells = aligned_alloc(4096, (size_t)NCELLS * CELL);
    size_t bytes = (msg + 4095) / 4096 * 4096; /* aligned_alloc: a multiple of the alignment */
    src = aligned_alloc(4096, bytes);
    dst = aligned_alloc(4096, bytes);
    if (!cells || !src || !dst || nb < 1) return 1;
    memset(cells, 0, (size_t)NCELLS * CELL);
    memset(src, 1, msg);
    memset(dst, 0, msg);
    double rtt = rtt_ns();
    pthread_t t;
    pin(cpu[0]);
    pthread_create(&t, NULL, consumer, NULL);
    double *g[2] = { calloc(nb, sizeof(double)), calloc(nb, sizeof(double)) };
    int b = 0;
    for (int i = 0; i < nb; i++)
        for (int k = 0; k < 2; k++) {
            int nt = (i & 1) ? 1 - k : k; /* order alternated */
            g[nt][i] = batch(++b, nt);
        }
    atomic_store_explicit(&go, -1, memory_order_release);
    pthread_join(t, NULL);
    if (memcmp(src, dst, msg) != 0) {
        fprintf(stderr, "the consumer's copy differs from the message\n");
        return 1;
    }
    qsort(g[0], nb, sizeof(double), cmp);
    qsort(g[1], nb, sizeof(double), cmp);
    printf("msg %zu B, cpus %d,%d: line round trip %.0f ns; GB/s best/median: memcpy %.1f/%.1f, nt %.1f/%.1f\n", msg,
           cpu[0], cpu[1], rtt, g[0][nb - 1], g[0][nb / 2], g[1][nb - 1], g[1][nb / 2]);
    free(g[0]);
    free(g[1]);
    free(cells);
    free(src);
    free(dst);
    return 0;
}

/* Cache-line round trip between the two cores: the best of 200 batches
 * of 500 (a batch with a thread descheduled only costs itself). */
static void *bouncer(void *arg)
{
    long n = *(long *)arg;
    pin(cpu[1]);
    for (long i = 0; i < n; i++) {
        while (atomic_load_explicit(&flag, memory_order_acquire) != 2 * i + 1)
            ;
        atomic_store_explicit(&flag, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

static double rtt_ns(void)
{
    long batches = 200, per = 500, n = batches * per;
    pthread_t t;
    pin(cpu[0]);
    atomic_store(&flag, 0);
    pthread_create(&t, NULL, bouncer, &n);
    double best = 1e18;
    for (long b = 0; b < batches; b++) {
        double t0 = now();
        for (long j = 0; j < per; j++) {
            long i = b * per + j;
            atomic_store_explicit(&flag, 2 * i + 1, memory_order_release);
            while (atomic_load_explicit(&flag, memory_order_acquire) != 2 * i + 2)
                ;
        }
        double d = (now() - t0) / per;
        if (d < best) best = d;
    }
    pthread_join(t, NULL);
    return best;
}
