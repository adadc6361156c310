/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_peer_error.h — what a rank does when a peer's packet breaks the
 * protocol (names a request that is not in flight for it, in a state the
 * packet does not fit): the packet is never acted on; the rank reports
 * which peer sent what, and ends the job cleanly (through the PMI server,
 * so the launcher ends every rank and says why) instead of crashing or
 * corrupting a request that belongs to someone else.
 */
#ifndef LC_PEER_ERROR_H
#define LC_PEER_ERROR_H

#include "channel/lc_channel.h"
#include "util/lc_util.h"

/* Report "rank <me>: rank <peer> sent a malformed packet: <fmt...>" and
 * end the job (exit code 1).  Never returns. */
void lc_peer_misbehaved(const lc_peer_t *peer, const char *fmt, ...) LC_PRINTF(2, 3) __attribute__((noreturn));

#endif
