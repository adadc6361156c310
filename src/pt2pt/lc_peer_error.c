/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_peer_error.c — a peer broke the protocol: report it, end the job. */
#include "pt2pt/lc_peer_error.h"
#include "coord/lc_world.h"
#include "pmi/lc_pmi.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

void lc_peer_misbehaved(const lc_peer_t *peer, const char *fmt, ...)
{
    char what[512], msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof(msg), "rank %d: rank %d sent a malformed packet: %s; ending the job", lc_world.rank,
             peer ? peer->world_rank : -1, what);
    lc_log_error("%s", msg);
    /* Through the PMI server when there is one (every rank is ended and the
     * launcher reports why); a singleton just exits. */
    lc_pmi_abort(1, msg);
    _exit(1);
}
