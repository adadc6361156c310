/* SPDX-License-Identifier: BSD-3-Clause */
/* A PMI client for the spawn tests (t_spawn.sh): uses only src/pmi, so it
 * tests mpiexec's `spawn` and lc_pmi_spawn without the MPI library.
 *
 *   spawn_probe parent DIR      every world rank puts pkey=pval-<rank> and
 *                               fences; rank 0 spawns itself as 2 commands
 *                               (2 + 1 processes, arguments with spaces, '='
 *                               and a newline, wdir=DIR for command 1, preput
 *                               keys), prints "SPAWN ok kvs=K host=H"; then every
 *                               world rank fences again and ends
 *   spawn_probe child ...       (started by parent) checks its rank, size,
 *                               appnum, arguments, directory, preput keys,
 *                               lc-parent-kvs, reads the parent job's keys,
 *                               fences with its own job only; leaves a file
 *                               /dev/shm/locus-<its kvsname>-probe behind;
 *                               prints "CHILD ok R/3 appnum=A host=H"
 *   spawn_probe refuse DIR      spawns that must be refused with no child
 *                               started: a missing program (MPI_ERR_NO_SUCH_FILE),
 *                               a good command then a missing one, a file that
 *                               is not executable (MPI_ERR_ACCESS), too many
 *                               processes, info host=another host, a wdir that
 *                               does not exist; prints "REFUSED <case> <class>
 *                               <why>" for each, then "REFUSE ok"; a child that
 *                               did start would create DIR/started
 *   spawn_probe mark DIR        (a child that must never run) creates DIR/started
 *   spawn_probe failchild       rank 0 spawns a child that exits with code 1
 *                               after PMI init; then sleeps 15 s ("NOT ENDED")
 *   spawn_probe exit1           (the failing child) init, exit 1
 *   spawn_probe notlocus        (run without mpiexec) a spawn is refused, MPI_ERR_SPAWN
 *   spawn_probe bigargs         spawns one child with 2001 arguments (one of
 *                               50000 bytes, all bytes 1..255): it checks
 *                               them (bigcheck) and prints "BIGARGS ok"
 *   spawn_probe time N          times 3 spawns of N /bin/true: "SPAWNTIME n=N T ms"
 *   spawn_probe usize           prints "USIZE n"
 *   spawn_probe sleepchild      spawns one child that prints "CHILDPID p" and
 *                               sleeps 30 s; the parent prints "SPAWNED" and
 *                               sleeps 30 s (for kill -9 of mpiexec)
 *   spawn_probe sleeper         (that child)
 *
 * Exit 0 = checks passed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi.h"
#include "pmi/lc_pmi_spawn.h"

static lc_pmi_info_t info;
static char self[PATH_MAX];

#define CHECK(cond, ...)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "spawn_probe rank %d: check failed: %s: ", info.rank, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                       \
            fputc('\n', stderr);                                                                \
            exit(2);                                                                            \
        }                                                                                       \
    } while (0)

static const char *const child0_args[] = {"child", "0", "two words", "x=y;z", "line1\nline2", "", NULL};
static const char *const child1_args[] = {"child", "1", "%41 100%", NULL};

static void init(void)
{
    CHECK(lc_pmi_init(&info) == 0, "lc_pmi_init");
}

static void end(int code)
{
    fflush(stdout);
    CHECK(lc_pmi_finalize() == 0, "lc_pmi_finalize");
    exit(code);
}

static int do_parent(const char *dir)
{
    char key[32], val[64], kvs[LC_PMI_KVSNAME_MAX], why[512];
    int errcodes[3] = {-1, -1, -1};

    init();
    snprintf(val, sizeof(val), "pval-%d", info.rank);
    if (info.rank == 0)
        CHECK(lc_pmi_put("pkey", val) == 0, "put");
    CHECK(lc_pmi_fence() == 0, "fence 1");
    if (info.rank == 0) {
        const char *ikeys[] = {"wdir", "soft", "host"};
        const char *ivals[] = {dir, "1:3", "localhost"};
        const char *pkeys[] = {"parent-kvs", "lc-port", "k2", "wdir"};
        const char *pvals[] = {info.kvsname, "locus:x:0:1", "v=2", dir};
        lc_pmi_spawn_cmd_t cmds[2] = {
            {.command = self, .argv = (char *const *)child0_args, .maxprocs = 2},
            {.command = self, .argv = (char *const *)child1_args, .maxprocs = 1, .ninfo = 3,
             .info_keys = ikeys, .info_vals = ivals},
        };
        int rc = lc_pmi_spawn(2, cmds, 4, pkeys, pvals, kvs, sizeof(kvs), errcodes, why, sizeof(why));

        CHECK(rc == 0, "lc_pmi_spawn returned %d: %s", rc, why);
        CHECK(errcodes[0] == 0 && errcodes[1] == 0 && errcodes[2] == 0, "errcodes %d %d %d", errcodes[0],
              errcodes[1], errcodes[2]);
        CHECK(strcmp(kvs, info.kvsname) != 0, "child kvsname %s = ours", kvs);
        gethostname(key, sizeof(key));
        printf("SPAWN ok kvs=%s host=%s\n", kvs, key);
        fflush(stdout);
    }
    snprintf(key, sizeof(key), "after-%d", info.rank);
    CHECK(lc_pmi_put(key, "1") == 0, "put after");
    CHECK(lc_pmi_fence() == 0, "fence 2");
    end(0);
    return 0;
}

static int do_child(int argc, char **argv)
{
    char v[LC_PMI_VALUE_MAX], pk[LC_PMI_VALUE_MAX], key[32], cwd[PATH_MAX];
    const char *const *want;
    int appnum;

    init();
    CHECK(info.size == 3, "size %d", info.size);
    appnum = info.rank < 2 ? 0 : 1;
    CHECK(info.appnum == appnum, "appnum %d for rank %d", info.appnum, info.rank);
    want = appnum == 0 ? child0_args : child1_args;
    for (int i = 0; want[i] != NULL; i++)
        CHECK(i < argc && strcmp(argv[i], want[i]) == 0, "argument %d is '%s', not '%s'", i,
              i < argc ? argv[i] : "(none)", want[i]);
    /* Before any fence: the launcher put these before we started. */
    CHECK(lc_pmi_get(-1, "lc-parent-kvs", pk, sizeof(pk)) == 0, "no lc-parent-kvs");
    CHECK(lc_pmi_get(-1, "parent-kvs", v, sizeof(v)) == 0 && strcmp(v, pk) == 0, "parent-kvs '%s' vs '%s'", v, pk);
    CHECK(lc_pmi_get(-1, "lc-port", v, sizeof(v)) == 0 && strcmp(v, "locus:x:0:1") == 0, "lc-port '%s'", v);
    CHECK(lc_pmi_get(-1, "k2", v, sizeof(v)) == 0 && strcmp(v, "v=2") == 0, "k2 '%s'", v);
    CHECK(lc_pmi_get(-1, "nothere", v, sizeof(v)) == LC_PMI_NO_KEY, "missing key found");
    CHECK(lc_pmi_put("lc-parent-kvs", "forged") != 0, "a child replaced lc-parent-kvs");
    /* The parent job's keys, read across jobs. */
    CHECK(lc_pmi_get_from(pk, "pkey", v, sizeof(v)) == 0 && strcmp(v, "pval-0") == 0, "parent's pkey '%s'", v);
    /* Command 1 runs in the directory its wdir info key names. */
    CHECK(lc_pmi_get(-1, "wdir", v, sizeof(v)) == 0, "no wdir key");
    CHECK(getcwd(cwd, sizeof(cwd)) != NULL && (strcmp(cwd, v) == 0) == (appnum == 1), "cwd %s (wdir %s)", cwd, v);
    /* A fence of our job alone, while the parent's job waits in its own. */
    snprintf(key, sizeof(key), "c%d", info.rank);
    snprintf(v, sizeof(v), "child-%d", info.rank);
    CHECK(lc_pmi_put(key, v) == 0, "put");
    CHECK(lc_pmi_fence() == 0, "fence");
    for (int r = 0; r < info.size; r++) {
        char want_v[32];

        snprintf(key, sizeof(key), "c%d", r);
        snprintf(want_v, sizeof(want_v), "child-%d", r);
        CHECK(lc_pmi_get(r, key, v, sizeof(v)) == 0 && strcmp(v, want_v) == 0, "key %s", key);
    }
    CHECK(lc_pmi_get(-1, "pkey", v, sizeof(v)) == LC_PMI_NO_KEY, "the parent's key is in our job's space");
    if (info.rank == 0) {
        char path[PATH_MAX];
        int fd;

        snprintf(path, sizeof(path), "/dev/shm/locus-%s-probe", info.kvsname);
        fd = open(path, O_CREAT | O_WRONLY, 0600);
        CHECK(fd >= 0, "create %s: %s", path, strerror(errno));
        close(fd);
        printf("SHM %s\n", path);
    }
    gethostname(cwd, sizeof(cwd));
    printf("CHILD ok %d/%d appnum=%d host=%s\n", info.rank, info.size, info.appnum, cwd);
    end(0);
    return 0;
}

/* One refused spawn: no child may start, every errcode = want_class. */
static void refuse_case(const char *name, int ncmds, lc_pmi_spawn_cmd_t *cmds, int want_class)
{
    int errcodes[8], total = 0, rc;
    char why[512], kvs[LC_PMI_KVSNAME_MAX];

    for (int k = 0; k < ncmds; k++)
        total += cmds[k].maxprocs; /* more than 8: no errcodes asked */
    for (int i = 0; i < 8; i++)
        errcodes[i] = -1;
    why[0] = '\0';
    rc = lc_pmi_spawn(ncmds, cmds, 0, NULL, NULL, kvs, sizeof(kvs), total <= 8 ? errcodes : NULL, why, sizeof(why));
    CHECK(rc == LC_PMI_REFUSED, "%s: rc %d (%s)", name, rc, why);
    CHECK(why[0] != '\0' && strchr(why, '\n') == NULL, "%s: why '%s'", name, why);
    for (int i = 0; i < total && total <= 8; i++)
        CHECK(errcodes[i] == want_class, "%s: errcodes[%d] = %d, want %d", name, i, errcodes[i], want_class);
    printf("REFUSED %s %d %s\n", name, want_class, why);
}

static int do_refuse(const char *dir)
{
    char noexec[PATH_MAX], nodir[PATH_MAX];
    char *mark_args[] = {"mark", (char *)dir, NULL};
    const char *hk[] = {"host"}, *hv[] = {"no-such-host.invalid"};
    const char *wk[] = {"wdir"}, *wv[] = {nodir};
    int fd;

    init();
    snprintf(noexec, sizeof(noexec), "%s/noexec", dir);
    snprintf(nodir, sizeof(nodir), "%s/nodir", dir);
    fd = open(noexec, O_CREAT | O_WRONLY, 0644);
    CHECK(fd >= 0, "create %s", noexec);
    close(fd);
    {
        lc_pmi_spawn_cmd_t c[] = {{.command = "/nonexistent/locus-prog", .maxprocs = 2}};
        refuse_case("missing", 1, c, MPI_ERR_NO_SUCH_FILE);
    }
    {
        lc_pmi_spawn_cmd_t c[] = {{.command = "locus-no-such-program-in-path", .maxprocs = 1}};
        refuse_case("missing_in_path", 1, c, MPI_ERR_NO_SUCH_FILE);
    }
    {
        lc_pmi_spawn_cmd_t c[] = {{.command = self, .argv = mark_args, .maxprocs = 2},
                                  {.command = "/nonexistent/locus-prog", .maxprocs = 1}};
        refuse_case("second_missing", 2, c, MPI_ERR_NO_SUCH_FILE);
    }
    {
        lc_pmi_spawn_cmd_t c[] = {{.command = noexec, .maxprocs = 1}};
        refuse_case("noexec", 1, c, MPI_ERR_ACCESS);
    }
    {
        lc_pmi_spawn_cmd_t c[] = {{.command = self, .argv = mark_args, .maxprocs = 5000}};
        refuse_case("too_many", 1, c, MPI_ERR_SPAWN);
    }
    {
        lc_pmi_spawn_cmd_t c[] = {{.command = self, .argv = mark_args, .maxprocs = 1, .ninfo = 1,
                                   .info_keys = hk, .info_vals = hv}};
        refuse_case("host", 1, c, MPI_ERR_SPAWN);
    }
    {
        lc_pmi_spawn_cmd_t c[] = {{.command = self, .argv = mark_args, .maxprocs = 1, .ninfo = 1,
                                   .info_keys = wk, .info_vals = wv}};
        refuse_case("wdir", 1, c, MPI_ERR_NO_SUCH_FILE);
    }
    printf("REFUSE ok\n");
    end(0);
    return 0;
}

static int do_failchild(void)
{
    char *args[] = {"exit1", NULL};
    lc_pmi_spawn_cmd_t c = {.command = self, .argv = args, .maxprocs = 1};
    char kvs[LC_PMI_KVSNAME_MAX], why[512];
    int err;

    init();
    if (info.rank == 0) {
        CHECK(lc_pmi_spawn(1, &c, 0, NULL, NULL, kvs, sizeof(kvs), &err, why, sizeof(why)) == 0, "spawn: %s", why);
        printf("SPAWNED\n");
        fflush(stdout);
    }
    sleep(15);
    printf("NOT ENDED\n");
    end(0);
    return 0;
}

static int do_sleepchild(void)
{
    char *args[] = {"sleeper", NULL};
    lc_pmi_spawn_cmd_t c = {.command = self, .argv = args, .maxprocs = 1};
    char kvs[LC_PMI_KVSNAME_MAX], why[512];
    int err;

    init();
    CHECK(lc_pmi_spawn(1, &c, 0, NULL, NULL, kvs, sizeof(kvs), &err, why, sizeof(why)) == 0, "spawn: %s", why);
    printf("SPAWNED\n");
    fflush(stdout);
    sleep(30);
    end(0);
    return 0;
}

/* Argument i of the big spawn: i = NBIG is 50000 bytes, the others 100,
 * every byte from 1 to 255 represented. */
#define NBIG 2000
static void big_arg(int i, char *buf)
{
    int n = i == NBIG ? 50000 : 100;

    for (int k = 0; k < n; k++)
        buf[k] = (char)(1 + (i * 7 + k) % 255);
    buf[n] = '\0';
}

static int do_bigargs(void)
{
    char **args = calloc(NBIG + 3, sizeof(char *));
    char kvs[LC_PMI_KVSNAME_MAX], why[512];
    int err;

    init();
    args[0] = "bigcheck";
    for (int i = 0; i <= NBIG; i++) {
        args[i + 1] = malloc(50001);
        big_arg(i, args[i + 1]);
    }
    {
        lc_pmi_spawn_cmd_t c = {.command = self, .argv = args, .maxprocs = 1};
        CHECK(lc_pmi_spawn(1, &c, 0, NULL, NULL, kvs, sizeof(kvs), &err, why, sizeof(why)) == 0, "spawn: %s", why);
    }
    for (int i = 0; i <= NBIG; i++)
        free(args[i + 1]);
    free(args);
    end(0);
    return 0;
}

static int do_bigcheck(int argc, char **argv)
{
    static char want[50001];

    init();
    CHECK(argc == NBIG + 3, "%d arguments", argc);
    for (int i = 0; i <= NBIG; i++) {
        big_arg(i, want);
        CHECK(strcmp(argv[i + 2], want) == 0, "argument %d differs", i);
    }
    printf("BIGARGS ok\n");
    end(0);
    return 0;
}

/* Time of lc_pmi_spawn for n processes of /bin/true (no PMI). */
static int do_time(int n)
{
    lc_pmi_spawn_cmd_t c = {.command = "true", .maxprocs = n};
    char kvs[LC_PMI_KVSNAME_MAX], why[512];
    int *err = calloc((size_t)n, sizeof(int));
    struct timespec t0, t1;

    init();
    for (int round = 0; round < 3; round++) {
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK(lc_pmi_spawn(1, &c, 0, NULL, NULL, kvs, sizeof(kvs), err, why, sizeof(why)) == 0, "spawn: %s", why);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("SPAWNTIME n=%d %.2f ms\n", n, (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    }
    free(err);
    end(0);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

    if (n <= 0)
        return 2;
    self[n] = '\0';
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "parent") == 0 && argc > 2)
        return do_parent(argv[2]);
    if (strcmp(mode, "child") == 0)
        return do_child(argc - 1, argv + 1);
    if (strcmp(mode, "refuse") == 0 && argc > 2)
        return do_refuse(argv[2]);
    if (strcmp(mode, "mark") == 0 && argc > 2) {
        char path[PATH_MAX];

        snprintf(path, sizeof(path), "%s/started", argv[2]);
        close(open(path, O_CREAT | O_WRONLY, 0644));
        return 0;
    }
    if (strcmp(mode, "bigargs") == 0)
        return do_bigargs();
    if (strcmp(mode, "bigcheck") == 0)
        return do_bigcheck(argc, argv);
    if (strcmp(mode, "time") == 0 && argc > 2)
        return do_time(atoi(argv[2]));
    if (strcmp(mode, "failchild") == 0)
        return do_failchild();
    if (strcmp(mode, "exit1") == 0) {
        init();
        fflush(stdout);
        _exit(1);
    }
    if (strcmp(mode, "notlocus") == 0) {
        /* A singleton (or another launcher's process) is refused at once. */
        char *args[] = {"mark", "/nonexistent", NULL};
        lc_pmi_spawn_cmd_t c = {.command = self, .argv = args, .maxprocs = 1};

        init();
        refuse_case("notlocus", 1, &c, MPI_ERR_SPAWN);
        end(0);
    }
    if (strcmp(mode, "usize") == 0) {
        init();
        printf("USIZE %d\n", lc_pmi_universe_size());
        end(0);
    }
    if (strcmp(mode, "sleepchild") == 0)
        return do_sleepchild();
    if (strcmp(mode, "sleeper") == 0) {
        init();
        printf("CHILDPID %ld\n", (long)getpid());
        fflush(stdout);
        sleep(30);
        end(0);
    }
    fprintf(stderr, "usage: spawn_probe parent DIR | refuse DIR | failchild | usize | sleepchild\n");
    return 2;
}
