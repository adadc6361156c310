/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_liveness.c — watching co-resident peers and the launcher from the
 * slow path of waits (lc_liveness.h says what and why).
 */
#include "coord/lc_liveness.h"
#include "channel/lc_ofi.h"
#include "channel/lc_shm.h"
#include "pmi/lc_pmi.h"
#include "util/lc_params.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same number on every architecture */
#endif

unsigned lc_liveness_idle;

typedef struct lc_watched {
    int rank;
    int by_lock;          /* 1: through the lock on its segment (lc_shm_peer_alive), not a pidfd */
    int our_ns;           /* its pid is one of our PID namespace */
    pid_t pid;
    char host[64];
} lc_watched_t;

static struct {
    int active;
    int n;                /* watched peers */
    struct pollfd *pfds;  /* [n]: their pidfds (-1: already gone at start) */
    lc_watched_t *who;    /* [n] */
    double next;          /* when the next look is due (lc_time_now) */
} lc_live;

static void lc_liveness_end(const char *fmt, ...) LC_PRINTF(1, 2) __attribute__((noreturn));
static void lc_liveness_end(const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    lc_log_error("%s", msg);
    /* A launcher may end the job on the abort before it relays what is
     * still in our stderr pipe (hydra does): give it a moment first. */
    usleep(200 * 1000);
    /* The launcher ends the other ranks (ours has none left to tell when
     * the connection itself is what died: lc_pmi_abort then fails). */
    lc_pmi_abort(1, msg);
    _exit(1);
}

static void lc_liveness_fatal(const char *text)
{
    lc_pmi_abort(1, text);
}

static void lc_watched_died(const lc_watched_t *w)
{
    lc_liveness_end("rank %d (pid %d%s on host %s) died; ending the job", w->rank, (int)w->pid,
                    w->our_ns ? "" : " in another PID namespace", w->host);
}

void lc_liveness_start(const lc_identity_t *ids, int size, int rank)
{
    lc_liveness_stop();
    lc_live.pfds = calloc((size_t)size, sizeof(*lc_live.pfds));
    lc_live.who = calloc((size_t)size, sizeof(*lc_live.who));
    if (!lc_live.pfds || !lc_live.who) { /* no watching; nothing else changes */
        lc_liveness_stop();
        return;
    }
    const lc_identity_t *me = &ids[rank];
    for (int r = 0; r < size; r++) {
        const lc_identity_t *id = &ids[r];
        if (r == rank || strcmp(id->boot_id, me->boot_id) != 0) continue; /* another kernel */
        /* The pid it published means this process here only in our PID
         * namespace (a container with its own may publish any pid). */
        int our_ns = me->ns_pid && id->ns_pid == me->ns_pid && id->pid > 0;
        /* A shm peer: the lock its creator holds on its segment, which
         * works in any PID namespace (containers sharing /dev/shm or
         * LOCUS_SHM_DIR) and costs no descriptor more.  Else a pidfd, if
         * its pid means the same process here. */
        int fd = -1, by_lock = lc_shm_peer_alive(r) >= 0;
        if (!by_lock) {
            if (!our_ns) continue; /* not watched */
            fd = (int)syscall(SYS_pidfd_open, id->pid, 0);
            if (fd < 0 && errno != ESRCH) continue; /* no pidfd here (old kernel, seccomp): not watched */
        }
        lc_watched_t *w = &lc_live.who[lc_live.n];
        w->by_lock = by_lock;
        w->rank = r;
        w->pid = id->pid;
        w->our_ns = our_ns;
        snprintf(w->host, sizeof(w->host), "%s", id->host);
        /* -1 (ESRCH): gone already, reported at the first look; by_lock:
         * -1 too, poll skips it. */
        lc_live.pfds[lc_live.n].fd = fd;
        lc_live.pfds[lc_live.n].events = POLLIN;
        lc_live.n++;
    }
    lc_live.next = lc_time_now() + LC_LIVENESS_PERIOD;
    lc_liveness_idle = 0;
    lc_live.active = 1;
    lc_fatal_hook = lc_liveness_fatal;
}

void lc_liveness_stop(void)
{
    lc_live.active = 0;
    lc_fatal_hook = NULL;
    for (int i = 0; i < lc_live.n; i++)
        if (lc_live.pfds[i].fd >= 0) close(lc_live.pfds[i].fd);
    free(lc_live.pfds);
    free(lc_live.who);
    memset(&lc_live, 0, sizeof(lc_live));
}

void lc_liveness_look(void)
{
    lc_liveness_idle = 0;
    if (!lc_live.active) return;
    double now = lc_time_now();
    if (now < lc_live.next) return;
    lc_live.next = now + LC_LIVENESS_PERIOD;
    /* A pidfd is readable once its process has exited. */
    for (int i = 0; i < lc_live.n; i++) {
        if (!lc_live.who[i].by_lock && lc_live.pfds[i].fd < 0) lc_watched_died(&lc_live.who[i]);
        if (lc_live.who[i].by_lock && lc_shm_peer_alive(lc_live.who[i].rank) == 0) lc_watched_died(&lc_live.who[i]);
    }
    if (lc_live.n > 0 && poll(lc_live.pfds, (nfds_t)lc_live.n, 0) > 0)
        for (int i = 0; i < lc_live.n; i++)
            if (lc_live.pfds[i].revents & (POLLIN | POLLHUP | POLLERR)) lc_watched_died(&lc_live.who[i]);
    char msg[400];
    if (lc_ofi_keepalive_check(now, msg, sizeof(msg))) lc_liveness_end("%s", msg);
    if (lc_pmi_connection_lost())
        lc_liveness_end("the launcher closed this rank's PMI connection (the launcher or its proxy died); "
                        "ending rank %d", lc_log_rank);
}
