/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_channel_fault.c — a malformed packet from a peer ends the job,
 * cleanly (issue 12, point 4).
 *
 * A peer that sends what no Locus sender produces is broken or hostile;
 * its packets cannot be trusted from then on, and MPI offers no way to
 * go on without it.  So the receiver says once what was wrong, from whom
 * and on which channel, and ends the job the way MPI_Abort does: an abort
 * through the launcher (which ends the other ranks and removes the job's
 * files), then _exit — never an access out of bounds, an assertion or a
 * signal.
 */
#include "channel/lc_channel.h"
#include "pmi/lc_pmi.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

void lc_peer_fault(const lc_peer_t *from, const char *fmt, ...)
{
    static atomic_int reported;
    /* Once: a second thread that finds another bad packet waits for the
     * first one's _exit. */
    if (atomic_exchange(&reported, 1)) {
        for (;;) pause();
    }
    char why[512], msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof(msg), "rank %d received a malformed packet from rank %d (world) on %s: %s", lc_log_rank,
             from->world_rank, from->ops && from->ops->name ? from->ops->name : "?", why);
    lc_log_error("%s; ending the job", msg);
    /* The launcher adds its own "; ending the job". */
    lc_pmi_abort(LC_PEER_FAULT_EXIT, msg);
    _exit(LC_PEER_FAULT_EXIT);
}
