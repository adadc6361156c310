/* SPDX-License-Identifier: BSD-3-Clause */
/* A PMI client program for the launcher tests: uses only src/pmi (not MPI),
 * so it tests mpiexec (and our client against other launchers) on its own.
 *
 *   pmi_probe kvs                   put/fence/get across all ranks, check values
 *   pmi_probe crash  RANK SIGNAL    RANK raises SIGNAL after a fence; others wait
 *   pmi_probe exit   RANK CODE      RANK exits with CODE after a fence; others wait
 *   pmi_probe abort  RANK CODE      RANK aborts through PMI; others wait
 *   pmi_probe nofinalize RANK       RANK exits 0 without PMI finalize; others wait
 *                                   (these four print "FAIL_AT <wall clock ms>" first)
 *   pmi_probe shm    [crash]        rank 0 creates /dev/shm/locus-<kvsname>-probe
 *                                   (in $LOCUS_SHM_DIR instead when set),
 *                                   prints "SHM <path>", then all wait (or rank 0
 *                                   crashes with SIGKILL)
 *   pmi_probe wait                  init, fence, print "READY", sleep until killed
 *   pmi_probe hold MS               init, fence, print "READY", sleep MS ms, fence, end
 *   pmi_probe stuck                 a job that hangs three ways (t_sigterm.sh reads
 *                                   mpiexec's report of it): rank 0 finalizes PMI
 *                                   and then sleeps (a hang after MPI_Finalize),
 *                                   rank 1 spins, the others wait in a fence that
 *                                   never completes; each prints "READY" first
 *   pmi_probe owner                 keys are their writer's: rank 0 may not put
 *                                   Locus's key of rank 1 (lc-ofi-1) nor replace a
 *                                   key rank 1 put first; each rank may replace its
 *                                   own; prints "OWNER ok" (needs 2 ranks or more)
 *   pmi_probe stdin                 rank 0 reports bytes and checksum of its
 *                                   stdin; others check theirs is empty
 *   pmi_probe lines N               every rank prints N long numbered lines
 *   pmi_probe where                 every rank prints "WHERE rank=R host=H
 *                                   local=L/S mapping=M": its host name, its
 *                                   LOCUS_LOCAL_RANK/SIZE, PMI_process_mapping;
 *                                   and checks it can read every rank's host
 *   pmi_probe ranks                 lc_pmi_get_ranks (docs/launcher.md "Bulk get"):
 *                                   every rank's 1000-character value (over 32 KiB
 *                                   from 33 ranks: several replies), a subset, keys
 *                                   nobody put; prints "RANKS ok bulk=B" (B: the
 *                                   launcher's reply limit, 0 = key by key); the kvs
 *                                   mode checks lc_pmi_get_ranks on its keys too
 *   pmi_probe shmall [crash R]      every rank creates /dev/shm/locus-<kvsname>-
 *                                   probe<rank> on its host, prints "SHM <path>
 *                                   <host>"; all wait in a fence (or rank R
 *                                   crashes with SIGKILL after it)
 *
 * "Others wait" means they enter a second fence the failed rank never
 * reaches: only the launcher can end such a job.  Exit 0 = checks passed. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pmi/lc_pmi.h"

static lc_pmi_info_t info;

#define CHECK(cond, ...)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "pmi_probe rank %d: check failed: %s: ", info.rank, #cond);        \
            fprintf(stderr, __VA_ARGS__);                                                       \
            fputc('\n', stderr);                                                                \
            exit(2);                                                                            \
        }                                                                                       \
    } while (0)

static void probe_value(int rank, const char *kvsname, char *buf, size_t len)
{
    /* Rank 0's value is the longest PMI allows (1023 characters), to test
     * the limit end to end; the others are short.  '=' inside a value is
     * legal on the wire and must survive. */
    int n = snprintf(buf, len, "v%d=%s", rank, kvsname);

    if (rank == 0) {
        for (size_t i = (size_t)n; i < LC_PMI_VALUE_MAX - 1; i++)
            buf[i] = (char)('a' + i % 26);
        buf[LC_PMI_VALUE_MAX - 1] = '\0';
    }
}

typedef struct probe_seen {
    int next;    /* index into want of the next rank expected */
    const int *want;
    int len;     /* expected value length (0: probe_value's) */
    int absent;  /* 1: no rank put these keys */
} probe_seen_t;

static void probe_big_value(int rank, char *buf, size_t len)
{
    int n = snprintf(buf, len, "big%d:", rank);
    for (int i = n; i < 1000 && (size_t)i + 1 < len; i++) buf[i] = (char)('A' + (rank + i) % 26);
    buf[1000 < len ? 1000 : len - 1] = '\0';
}

static int probe_rank_value(int rank, const char *value, void *arg)
{
    probe_seen_t *s = arg;
    char want[LC_PMI_VALUE_MAX];

    CHECK(rank == s->want[s->next], "got rank %d, expected %d", rank, s->want[s->next]);
    s->next++;
    if (s->absent) {
        CHECK(value == NULL, "rank %d: a value for a key nobody put", rank);
        return 0;
    }
    CHECK(value != NULL, "rank %d: no value", rank);
    if (s->len) probe_big_value(rank, want, sizeof(want));
    else probe_value(rank, info.kvsname, want, sizeof(want));
    CHECK(strcmp(value, want) == 0, "rank %d: value '%.40s...'", rank, value);
    return 0;
}

/* lc_pmi_get_ranks on keys <prefix><rank>: all ranks, every third one
 * from 1, and a prefix nobody used. */
static void probe_get_ranks(const char *prefix, int big)
{
    int *all = malloc(sizeof(int) * (size_t)info.size), nsub = 0;
    probe_seen_t s = {.want = all, .len = big};

    CHECK(all != NULL, "malloc");
    for (int r = 0; r < info.size; r++) all[r] = r;
    CHECK(lc_pmi_get_ranks(prefix, all, info.size, probe_rank_value, &s) == 0 && s.next == info.size,
          "get_ranks %s: %d of %d", prefix, s.next, info.size);
    for (int r = 1; r < info.size; r += 3) all[nsub++] = r;
    s.next = 0;
    CHECK(lc_pmi_get_ranks(prefix, all, nsub, probe_rank_value, &s) == 0 && s.next == nsub,
          "get_ranks subset %s: %d of %d", prefix, s.next, nsub);
    for (int r = 0; r < info.size; r++) all[r] = r;
    s.next = 0;
    s.absent = 1;
    CHECK(lc_pmi_get_ranks("probe-nobody-", all, info.size, probe_rank_value, &s) == 0 && s.next == info.size,
          "get_ranks of absent keys: %d of %d", s.next, info.size);
    free(all);
}

static int probe_ranks(void)
{
    char key[LC_PMI_KEY_MAX], value[LC_PMI_VALUE_MAX];

    snprintf(key, sizeof(key), "probe-big-%d", info.rank);
    probe_big_value(info.rank, value, sizeof(value));
    CHECK(lc_pmi_put(key, value) == 0, "put %s", key);
    CHECK(lc_pmi_fence() == 0, "fence");
    probe_get_ranks("probe-big-", 1);
    CHECK(lc_pmi_fence() == 0, "second fence");
    printf("RANKS ok bulk=%zu rank %d\n", lc_pmi_bulk_max(), info.rank);
    return 0;
}

static int probe_kvs(void)
{
    char key[LC_PMI_KEY_MAX], value[LC_PMI_VALUE_MAX], want[LC_PMI_VALUE_MAX];

    snprintf(key, sizeof(key), "probe-key-%d", info.rank);
    probe_value(info.rank, info.kvsname, value, sizeof(value));
    CHECK(lc_pmi_put(key, value) == 0, "put %s", key);
    /* Replacing a value before the fence: the last put wins. */
    snprintf(key, sizeof(key), "probe-dup-%d", info.rank);
    CHECK(lc_pmi_put(key, "old") == 0, "put %s", key);
    CHECK(lc_pmi_put(key, "new") == 0, "put %s again", key);
    CHECK(lc_pmi_fence() == 0, "fence");
    snprintf(key, sizeof(key), "probe-dup-%d", (info.rank + 1) % info.size);
    CHECK(lc_pmi_get(0, key, value, sizeof(value)) == 0 && strcmp(value, "new") == 0, "%s", key);
    for (int r = 0; r < info.size; r++) {
        snprintf(key, sizeof(key), "probe-key-%d", r);
        CHECK(lc_pmi_get(r, key, value, sizeof(value)) == 0, "get %s", key);
        probe_value(r, info.kvsname, want, sizeof(want));
        CHECK(strcmp(value, want) == 0, "value of %s is '%.40s...'", key, value);
    }
    /* A missing key is reported as such, not as garbage. */
    CHECK(lc_pmi_get(0, "probe-no-such-key", value, sizeof(value)) != 0, "missing key found");
    probe_get_ranks("probe-key-", 0);
    if (info.rank == 0) { /* error cases print a line each: once is enough */
        /* A value too long for the caller's buffer is refused. */
        CHECK(lc_pmi_get(0, "probe-key-0", value, 16) != 0, "short buffer accepted");
        /* Values PMI-1 cannot carry are refused before they reach the wire. */
        CHECK(lc_pmi_put("probe-space", "a b") != 0, "value with space accepted");
        CHECK(lc_pmi_put("bad key", "x") != 0, "key with space accepted");
    }
    CHECK(lc_pmi_fence() == 0, "second fence");
    printf("rank %d/%d kvs ok kvsname=%s appnum=%d\n", info.rank, info.size, info.kvsname, info.appnum);
    return 0;
}

/* Sleep until killed, but never outlive the launcher: if it is gone (we
 * were re-parented), a failed test must not leave us behind. */
static void sleep_while_launcher_lives(void)
{
    pid_t parent = getppid();

    while (getppid() == parent)
        usleep(100 * 1000);
    exit(6);
}

/* The key space protects each rank's keys from the others (mpiexec's
 * PMI server): a put that would take over another rank's key fails. */
static int probe_owner(void)
{
    char value[LC_PMI_VALUE_MAX];

    CHECK(info.size >= 2, "needs 2 ranks, has %d", info.size);
    if (info.rank == 1) {
        CHECK(lc_pmi_put("lc-ofi-1", "rank1-address") == 0, "put lc-ofi-1");
        CHECK(lc_pmi_put("probe-shared", "rank1") == 0, "put probe-shared");
        CHECK(lc_pmi_put("probe-shared", "rank1-again") == 0, "replace own probe-shared");
    }
    CHECK(lc_pmi_fence() == 0, "fence");
    if (info.rank == 0) {
        CHECK(lc_pmi_put("lc-ofi-1", "forged") != 0, "rank 0 replaced rank 1's lc-ofi-1");
        CHECK(lc_pmi_put("lc-id-1", "forged") != 0, "rank 0 put rank 1's lc-id-1 first");
        CHECK(lc_pmi_put("probe-shared", "forged") != 0, "rank 0 replaced rank 1's probe-shared");
        CHECK(lc_pmi_put("lc-ofi-0", "rank0-address") == 0, "put lc-ofi-0");
    }
    CHECK(lc_pmi_fence() == 0, "second fence");
    CHECK(lc_pmi_get(1, "lc-ofi-1", value, sizeof(value)) == 0 && strcmp(value, "rank1-address") == 0,
          "lc-ofi-1 is '%s'", value);
    CHECK(lc_pmi_get(1, "probe-shared", value, sizeof(value)) == 0 && strcmp(value, "rank1-again") == 0,
          "probe-shared is '%s'", value);
    CHECK(lc_pmi_get(1, "lc-id-1", value, sizeof(value)) != 0, "lc-id-1 exists: '%s'", value);
    printf("OWNER ok rank %d\n", info.rank);
    return 0;
}

static void wait_forever(void)
{
    /* The second fence never completes when a rank failed; it returns
     * (with an error) only if the launcher closes the connection. */
    lc_pmi_fence();
    sleep_while_launcher_lives();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "kvs";
    int arg1 = argc > 2 ? atoi(argv[2]) : 0, arg2 = argc > 3 ? atoi(argv[3]) : 0;
    int rc = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (lc_pmi_init(&info) != 0)
        return 3;

    if (strcmp(mode, "kvs") == 0) {
        rc = probe_kvs();
    } else if (strcmp(mode, "ranks") == 0) {
        rc = probe_ranks();
    } else if (strcmp(mode, "crash") == 0 || strcmp(mode, "exit") == 0 || strcmp(mode, "abort") == 0 ||
               strcmp(mode, "nofinalize") == 0) {
        CHECK(lc_pmi_fence() == 0, "fence");
        if (info.rank == arg1) {
            struct timespec ts;

            /* When the failure happens (wall clock, ms), so the test can
             * time how long the launcher takes to end the job. */
            clock_gettime(CLOCK_REALTIME, &ts);
            printf("FAIL_AT %lld\n", (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
            fflush(stdout);
            if (mode[0] == 'c')
                raise(arg2);
            if (mode[0] == 'e')
                exit(arg2);
            if (mode[0] == 'a') {
                lc_pmi_abort(arg2, "probe abort: rank gives up");
                _exit(arg2);
            }
            exit(0); /* nofinalize */
        }
        wait_forever();
    } else if (strcmp(mode, "shm") == 0) {
        if (info.rank == 0) {
            char path[512];
            int fd;

            const char *dir = getenv("LOCUS_SHM_DIR");

            snprintf(path, sizeof(path), "%s/locus-%s-probe", dir != NULL && dir[0] ? dir : "/dev/shm",
                     info.kvsname);
            fd = open(path, O_CREAT | O_RDWR, 0600);
            CHECK(fd >= 0, "create %s: %s", path, strerror(errno));
            close(fd);
            printf("SHM %s\n", path);
        }
        CHECK(lc_pmi_fence() == 0, "fence");
        if (argc > 2 && strcmp(argv[2], "crash") == 0 && info.rank == 0) {
            struct timespec ts;

            clock_gettime(CLOCK_REALTIME, &ts);
            printf("FAIL_AT %lld\n", (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
            fflush(stdout);
            raise(SIGKILL);
        }
        if (argc > 2 && strcmp(argv[2], "crash") == 0)
            wait_forever();
        /* else: a normal end that leaves the object behind */
    } else if (strcmp(mode, "where") == 0) {
        char host[256], key[LC_PMI_KEY_MAX], value[LC_PMI_VALUE_MAX], map[LC_PMI_VALUE_MAX];
        const char *lr = getenv("LOCUS_LOCAL_RANK"), *ls = getenv("LOCUS_LOCAL_SIZE");

        CHECK(gethostname(host, sizeof(host)) == 0, "gethostname");
        snprintf(key, sizeof(key), "probe-host-%d", info.rank);
        CHECK(lc_pmi_put(key, host) == 0, "put %s", key);
        CHECK(lc_pmi_fence() == 0, "fence");
        for (int r = 0; r < info.size; r++) {
            snprintf(key, sizeof(key), "probe-host-%d", r);
            CHECK(lc_pmi_get(r, key, value, sizeof(value)) == 0, "get %s", key);
        }
        CHECK(lc_pmi_get(0, "PMI_process_mapping", map, sizeof(map)) == 0, "get PMI_process_mapping");
        printf("WHERE rank=%d host=%s local=%s/%s mapping=%s\n", info.rank, host, lr ? lr : "-",
               ls ? ls : "-", map);
        CHECK(lc_pmi_fence() == 0, "second fence");
    } else if (strcmp(mode, "shmall") == 0) {
        char path[512], host[256];
        int fd;

        CHECK(gethostname(host, sizeof(host)) == 0, "gethostname");
        snprintf(path, sizeof(path), "/dev/shm/locus-%s-probe%d", info.kvsname, info.rank);
        fd = open(path, O_CREAT | O_RDWR, 0600);
        CHECK(fd >= 0, "create %s: %s", path, strerror(errno));
        close(fd);
        printf("SHM %s %s\n", path, host);
        CHECK(lc_pmi_fence() == 0, "fence");
        if (argc > 3 && strcmp(argv[2], "crash") == 0) {
            if (info.rank == atoi(argv[3])) {
                struct timespec ts;

                clock_gettime(CLOCK_REALTIME, &ts);
                printf("FAIL_AT %lld\n", (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
                fflush(stdout);
                raise(SIGKILL);
            }
            wait_forever();
        }
    } else if (strcmp(mode, "wait") == 0) {
        CHECK(lc_pmi_fence() == 0, "fence");
        printf("READY %d\n", info.rank);
        sleep_while_launcher_lives();
    } else if (strcmp(mode, "stuck") == 0) {
        CHECK(lc_pmi_fence() == 0, "fence");
        if (info.rank == 0) {
            CHECK(lc_pmi_finalize() == 0, "finalize");
            printf("READY %d\n", info.rank);
            fflush(stdout);
            sleep_while_launcher_lives();
        }
        printf("READY %d\n", info.rank);
        fflush(stdout);
        if (info.rank == 1) {
            pid_t parent = getppid();
            while (getppid() == parent) /* spin, but never outlive the launcher */
                ;
            exit(6);
        }
        wait_forever();
    } else if (strcmp(mode, "hold") == 0) {
        struct timespec ts = {arg1 / 1000, (arg1 % 1000) * 1000000L};

        CHECK(lc_pmi_fence() == 0, "fence");
        printf("READY %d\n", info.rank);
        nanosleep(&ts, NULL);
        CHECK(lc_pmi_fence() == 0, "second fence");
    } else if (strcmp(mode, "owner") == 0) {
        rc = probe_owner();
    } else if (strcmp(mode, "stdin") == 0) {
        unsigned long bytes = 0, sum = 0;
        unsigned char buf[4096];
        ssize_t n;

        while ((n = read(0, buf, sizeof(buf))) > 0) {
            bytes += (unsigned long)n;
            for (ssize_t i = 0; i < n; i++)
                sum = (sum * 31 + buf[i]) % 1000000007ul;
        }
        CHECK(n == 0, "read stdin: %s", strerror(errno));
        if (info.rank == 0)
            printf("STDIN rank 0 bytes %lu sum %lu\n", bytes, sum);
        else
            CHECK(bytes == 0, "rank %d read %lu bytes of stdin", info.rank, bytes);
        CHECK(lc_pmi_fence() == 0, "fence");
    } else if (strcmp(mode, "lines") == 0) {
        char line[3000];

        for (int i = 0; i < arg1; i++) {
            int n = snprintf(line, sizeof(line), "LINE rank=%d i=%d ", info.rank, i);
            /* Long lines, written in several pieces, still arrive whole. */
            for (int k = n; k < 2000; k++)
                line[k] = (char)('A' + (info.rank + k) % 26);
            line[2000] = '\0';
            fwrite(line, 1, 1000, stdout);
            fflush(stdout);
            fputs(line + 1000, stdout);
            fputs(" END\n", stdout);
            fflush(stdout);
        }
        CHECK(lc_pmi_fence() == 0, "fence");
    } else {
        fprintf(stderr, "pmi_probe: unknown mode '%s'\n", mode);
        rc = 2;
    }
    if (lc_pmi_finalize() != 0)
        return 4;
    return rc;
}
