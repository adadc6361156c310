/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit test of the PMI client (src/pmi/lc_pmi.c) without a launcher:
 *  - singleton mode (no PMI_FD / PMI_PORT): rank 0 of 1, local key table;
 *  - a scripted server on a socketpair that answers wrongly or hangs up:
 *    lc_pmi_init must fail with -1, not hang or crash.
 * The full conversation with real servers (mpiexec, hydra) is tested in
 * test/launcher. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmi/lc_pmi.h"

#include "lc_unit_check.h"

static void test_singleton(void)
{
    lc_pmi_info_t info;
    char value[LC_PMI_VALUE_MAX], want[64];

    unsetenv("PMI_FD");
    unsetenv("PMI_PORT");
    CHECK(lc_pmi_get(0, "k", value, sizeof(value)) != 0); /* before init */
    CHECK(lc_pmi_init(&info) == 0);
    CHECK(info.rank == 0 && info.size == 1 && info.singleton == 1);
    snprintf(want, sizeof(want), "single%ld", (long)getpid());
    CHECK(strcmp(info.kvsname, want) == 0);
    CHECK(lc_pmi_init(&info) != 0); /* twice */

    CHECK(lc_pmi_put("k1", "v1") == 0);
    CHECK(lc_pmi_put("k2", "v2") == 0);
    CHECK(lc_pmi_put("k1", "v1b") == 0); /* replace */
    for (int i = 0; i < 20; i++) {       /* grow the table */
        char k[16];
        snprintf(k, sizeof(k), "grow%d", i);
        CHECK(lc_pmi_put(k, k) == 0);
    }
    CHECK(lc_pmi_fence() == 0);
    CHECK(lc_pmi_get(0, "k1", value, sizeof(value)) == 0 && strcmp(value, "v1b") == 0);
    CHECK(lc_pmi_get(0, "k2", value, sizeof(value)) == 0 && strcmp(value, "v2") == 0);
    CHECK(lc_pmi_get(0, "grow19", value, sizeof(value)) == 0 && strcmp(value, "grow19") == 0);
    CHECK(lc_pmi_get(0, "missing", value, sizeof(value)) != 0);
    CHECK(lc_pmi_get(0, "k1", value, 3) != 0); /* "v1b" needs 4 bytes */
    CHECK(lc_pmi_put("bad key", "v") != 0);
    CHECK(lc_pmi_put("k", "bad value") != 0);
    CHECK(lc_pmi_abort(3, "singleton abort is a no-op") == 0);
    CHECK(lc_pmi_finalize() == 0);
}

/* Run lc_pmi_init against a server that reads one line and answers
 * `reply` (NULL: hang up).  Returns lc_pmi_init's result. */
static int init_against(const char *reply)
{
    int sv[2], rc;
    pid_t pid;
    lc_pmi_info_t info;
    char fdnum[16];

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return 99;
    pid = fork();
    if (pid == 0) {
        char buf[512];
        close(sv[0]);
        alarm(10);
        if (read(sv[1], buf, sizeof(buf)) > 0 && reply != NULL)
            (void)!write(sv[1], reply, strlen(reply));
        _exit(0);
    }
    close(sv[1]);
    snprintf(fdnum, sizeof(fdnum), "%d", sv[0]);
    setenv("PMI_FD", fdnum, 1);
    setenv("PMI_RANK", "0", 1);
    setenv("PMI_SIZE", "1", 1);
    alarm(10); /* a hang is a failure, not a stuck test */
    rc = lc_pmi_init(&info);
    alarm(0);
    waitpid(pid, NULL, 0);
    if (rc == 0)
        lc_pmi_finalize();
    return rc;
}

static void test_bad_servers(void)
{
    CHECK(init_against(NULL) == -1);                                   /* hangs up */
    CHECK(init_against("cmd=something_else rc=0\n") == -1);            /* wrong reply */
    CHECK(init_against("cmd=response_to_init pmi_version=1 rc=-1\n") == -1); /* refused */
    CHECK(init_against("not a pmi line\n") == -1);                     /* malformed */

    /* Inconsistent environment (the descriptor is a spare socket: a
     * failed init closes it). */
    {
        lc_pmi_info_t info;
        int sv[2];
        char fdnum[16];

        CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
        snprintf(fdnum, sizeof(fdnum), "%d", sv[0]);
        setenv("PMI_FD", fdnum, 1);
        setenv("PMI_RANK", "5", 1);
        setenv("PMI_SIZE", "2", 1);
        CHECK(lc_pmi_init(&info) == -1);
        setenv("PMI_FD", "notanumber", 1);
        CHECK(lc_pmi_init(&info) == -1);
        setenv("PMI_FD", "1000", 1); /* not open */
        setenv("PMI_RANK", "0", 1);
        CHECK(lc_pmi_init(&info) == -1);
        close(sv[1]);
    }
    unsetenv("PMI_FD");
    unsetenv("PMI_RANK");
    unsetenv("PMI_SIZE");
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    test_singleton();
    test_bad_servers();
    if (failures != 0) {
        fprintf(stderr, "test_pmi_client: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_pmi_client: all checks passed\n");
    return 0;
}
