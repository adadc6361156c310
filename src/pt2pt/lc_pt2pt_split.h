/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_split.h — the split copy (lc_pt2pt_split.c): a large CMA
 * message moved by the receiver's pulls and the sender's pushes at once.
 */
#ifndef LC_PT2PT_SPLIT_H
#define LC_PT2PT_SPLIT_H

#include "pt2pt/lc_request.h"
#include "util/lc_params.h"

/* Whether a pull of n bytes from `from` (contiguous both sides, already
 * chosen as a pull) can be split: a shm peer with claim slots, more than
 * one chunk. */
bool lc_pt2pt_split_eligible(const lc_peer_t *from, size_t n);
/* LOCUS_CMA_SPLIT is a size and n is at least that: split whatever the
 * pick says (forced; auto leaves it to lc_pt2pt_pick_split.c). */
static inline bool lc_pt2pt_split_forced(size_t n)
{
    return lc_params.cma_split != LC_PARAM_SIZE_AUTO && lc_params.cma_split && n >= lc_params.cma_split;
}
/* Receiver: run the split for the matched receive req (n bytes to place
 * at req->buf from the sender's addr).  True when it took the message
 * (the request completes here or by the sender's FIN | SPLIT; *ok_p:
 * its own pulls succeeded); false when no claim slot is free (the caller
 * pulls as usual). */
bool lc_pt2pt_split_recv(lc_request_t *req, lc_peer_t *from, int src, uint32_t sreq, uint64_t addr, size_t n,
                         bool *ok_p);
/* Sender: a CTS | SPLIT for send request req (checked by the caller).
 * True when it placed the message's last bytes and sent FIN | SPLIT: the
 * caller completes the send (else the receiver's FIN does). */
bool lc_pt2pt_split_send(lc_peer_t *from, lc_request_t *req, const lc_pkt_hdr_t *hdr, uint32_t rreq);
/* Receiver: the sender's FIN | SPLIT (it placed the last bytes). */
void lc_pt2pt_split_fin(lc_peer_t *from, const lc_pkt_ctl_t *ctl);

#endif
