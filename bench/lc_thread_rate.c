/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_thread_rate.c - multi-threaded message rate (threads x pairs), the
 * same source built with each MPI's mpicc.  Two ranks, MPI_THREAD_MULTIPLE;
 * T threads per rank, thread t of rank 0 and thread t of rank 1 a pair on
 * its own communicator (a duplicate of MPI_COMM_WORLD; -m tag: all pairs
 * on one communicator, told apart by the tag).  Each iteration the rank-0
 * thread posts a window of 8 B MPI_Isend, its partner a window of
 * MPI_Irecv; both MPI_Waitall, then the receiver answers with one 0 B
 * message (osu_mbw_mr's windowed pattern).  The -i iterations are shared
 * out among the T threads (each runs iters/T), so every T moves the same
 * number of messages and a slow MPI's run stays short.  messages/s = all threads'
 * window messages / the wall time from a common start (a thread barrier,
 * then MPI_Barrier) to the last thread's end (max over the ranks).
 *
 * Usage: lc_thread_rate [-T 1,2,4] [-w window] [-i iters] [-x warmup]
 *                       [-s bytes] [-m comm|tag] [-f table|csv] [-c]
 * Output: comments (library, thread level provided), then per T a row
 * test=mr_t<T>, size=<bytes>: threads, messages_per_s, and a comment with
 * what the timed part cost each rank: its threads' CPU time and voluntary
 * (sleeps: a blocked lock, a futex) and involuntary (preemptions and
 * sched_yield) context switches, from getrusage(RUSAGE_THREAD).  With
 * more threads than cores the rate depends on which threads the kernel
 * runs; these say how each MPI's threads waited.  -c checks every
 * received payload (each message carries (thread, iteration, slot)).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lc_bench_util.h"

#define MAXT 64
#define MAXW 1024

static int rank, nthreads, window = 64, bytes = 8, by_tag, check;
static long iters = 20000, warmup = 1000, per_thread;
static MPI_Comm comms[MAXT];
static pthread_barrier_t tbar;
static double t_start;
static unsigned long long bad;
static pthread_mutex_t bad_lock = PTHREAD_MUTEX_INITIALIZER;
/* This rank's threads' cost of the timed part: CPU µs, voluntary and
 * involuntary switches (under bad_lock). */
static double cost[3];

/* The calling thread's CPU µs and switches so far. */
static void thread_usage(double u[3])
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    u[0] = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    u[1] = (double)ru.ru_nvcsw;
    u[2] = (double)ru.ru_nivcsw;
}

static uint64_t stamp(int t, long it, int k) { return ((uint64_t)t << 48) ^ ((uint64_t)it << 16) ^ (uint64_t)k; }

static void pair_loop(int t, long n, long it0, char *buf)
{
    MPI_Comm c = by_tag ? comms[0] : comms[t];
    int tag = by_tag ? t : 0;
    MPI_Request rq[MAXW];
    MPI_Status sts[MAXW]; /* not MPI_STATUSES_IGNORE: MPICH's header makes gcc warn */
    unsigned long long mybad = 0;
    for (long it = 0; it < n; it++) {
        if (rank == 0) {
            for (int k = 0; k < window; k++) {
                char *b = buf + (size_t)k * bytes;
                if (check && bytes >= 8) {
                    uint64_t v = stamp(t, it0 + it, k);
                    memcpy(b, &v, 8);
                }
                MPI_Isend(b, bytes, MPI_CHAR, 1, tag, c, &rq[k]);
            }
            MPI_Waitall(window, rq, sts);
            MPI_Recv(NULL, 0, MPI_CHAR, 1, tag, c, MPI_STATUS_IGNORE);
        } else {
            for (int k = 0; k < window; k++)
                MPI_Irecv(buf + (size_t)k * bytes, bytes, MPI_CHAR, 0, tag, c, &rq[k]);
            MPI_Waitall(window, rq, sts);
            if (check && bytes >= 8)
                for (int k = 0; k < window; k++) {
                    uint64_t v;
                    memcpy(&v, buf + (size_t)k * bytes, 8);
                    if (v != stamp(t, it0 + it, k)) mybad++;
                }
            MPI_Send(NULL, 0, MPI_CHAR, 0, tag, c);
        }
    }
    if (mybad) {
        pthread_mutex_lock(&bad_lock);
        bad += mybad;
        pthread_mutex_unlock(&bad_lock);
    }
}

static void *body(void *p)
{
    int t = (int)(intptr_t)p;
    char *buf = lc_bench_buf_alloc((size_t)window * bytes + 8);
    pair_loop(t, warmup, 0, buf);
    pthread_barrier_wait(&tbar);
    if (t == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        t_start = MPI_Wtime();
    }
    pthread_barrier_wait(&tbar);
    double u0[3], u1[3];
    thread_usage(u0);
    pair_loop(t, per_thread, warmup, buf);
    thread_usage(u1);
    pthread_mutex_lock(&bad_lock);
    for (int i = 0; i < 3; i++) cost[i] += u1[i] - u0[i];
    pthread_mutex_unlock(&bad_lock);
    free(buf);
    return NULL;
}

static double run(int nt, double wall_cost[4])
{
    pthread_t th[MAXT];
    memset(cost, 0, sizeof cost);
    nthreads = nt;
    per_thread = (iters + nt - 1) / nt;
    pthread_barrier_init(&tbar, NULL, (unsigned)nt);
    for (int t = 0; t < nt; t++) pthread_create(&th[t], NULL, body, (void *)(intptr_t)t);
    for (int t = 0; t < nt; t++) pthread_join(th[t], NULL);
    double el = MPI_Wtime() - t_start, mx = 0;
    pthread_barrier_destroy(&tbar);
    MPI_Allreduce(&el, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    wall_cost[0] = mx;
    MPI_Reduce(cost, wall_cost + 1, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    return (double)nt * (double)per_thread * window / mx;
}

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: lc_thread_rate [-T 1,2,4] [-w window] [-i iters] [-x warmup] [-s bytes] "
                        "[-m comm|tag] [-f table|csv] [-c]\n");
}

int main(int argc, char **argv)
{
    int provided = -1, csv = 0, ts[MAXT], nts = 0;
    const char *tlist = "1,2,4";
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int size, c;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((c = getopt(argc, argv, "T:w:i:x:s:m:f:c")) != -1) {
        switch (c) {
        case 'T': tlist = optarg; break;
        case 'w': window = atoi(optarg); break;
        case 'i': iters = atol(optarg); break;
        case 'x': warmup = atol(optarg); break;
        case 's': bytes = atoi(optarg); break;
        case 'm': by_tag = strcmp(optarg, "tag") == 0; break;
        case 'f': csv = strcmp(optarg, "csv") == 0; break;
        case 'c': check = 1; break;
        default: usage(); MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    for (const char *p = tlist; *p && nts < MAXT;) {
        ts[nts] = atoi(p);
        if (ts[nts] < 1 || ts[nts] > MAXT) break;
        nts++;
        p = strchr(p, ',');
        if (!p) break;
        p++;
    }
    if (size != 2 || nts == 0 || window < 1 || window > MAXW || bytes < 0 || iters < 1 || warmup < 0) {
        usage();
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0) {
        lc_bench_print_library("lc_thread_rate: multi-threaded message rate, 2 ranks, thread pairs");
        const char *lv = provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE"
                         : provided == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                         : provided == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
                                                             : "MPI_THREAD_SINGLE";
        printf("# thread level provided: %s\n", lv);
        printf("# %d B messages, window %d, %ld iterations over all threads (+%ld warm-up per thread), pairs by %s\n", bytes,
               window, iters, warmup, by_tag ? "tag on one communicator" : "communicator");
    }
    if (provided != MPI_THREAD_MULTIPLE) {
        if (rank == 0) fprintf(stderr, "lc_thread_rate: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    int maxt = 0;
    for (int i = 0; i < nts; i++) maxt = ts[i] > maxt ? ts[i] : maxt;
    for (int t = 0; t < maxt; t++) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    if (rank == 0) printf(csv ? "test,size,threads,messages_per_s\n" : "%-8s %6s %8s %16s\n", "test", "size",
                          "threads", "messages/s");
    for (int i = 0; i < nts; i++) {
        double wc[4];
        double r = run(ts[i], wc);
        if (rank == 0) {
            char name[32];
            snprintf(name, sizeof name, "mr_t%d", ts[i]);
            printf(csv ? "%s,%d,%d,%.0f\n" : "%-8s %6d %8d %16.0f\n", name, bytes, ts[i], r);
            printf("# %s: %.1f ms wall, both ranks' threads %.1f ms CPU, %.0f voluntary / %.0f involuntary switches\n",
                   name, wc[0] * 1e3, wc[1] / 1e3, wc[2], wc[3]);
            fflush(stdout);
        }
    }
    for (int t = 0; t < maxt; t++) MPI_Comm_free(&comms[t]);
    unsigned long long total = 0;
    MPI_Reduce(&bad, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int rc = 0;
    if (check && rank == 0) {
        if (total) {
            fprintf(stderr, "VALIDATION FAILED: %llu bad messages\n", total);
            rc = 2;
        } else
            printf("# validation passed\n");
    }
    MPI_Finalize();
    return rc;
}
