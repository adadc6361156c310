/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coord_agree.c — wire-up's agree phase: an uncertain pair (same
 * kernel, other namespaces) keeps shared memory only if both ends mapped
 * each other's segment; otherwise both go to the network.
 *
 * Each rank publishes one record, `lc-agree-<rank>`: a bitmap over the
 * ranks on its kernel (ascending; the same list on every rank of that
 * kernel, as lc_identity_same_kernel is an equivalence), bit k set if it
 * mapped the segment of the k-th of them, written in hex, 4 ranks a
 * digit.  After fence 3 a rank reads the records of its uncertain peers
 * with lc_pmi_get_ranks: a few requests under Locus's mpiexec, where one
 * key per pair cost a put and a get per uncertain peer (2 x 56 per rank
 * for 64 ranks in 8 containers).  A kernel with more ranks than one PMI
 * value has bits for (LC_AGREE_BITMAP_MAX) falls back to one key per pair
 * (`lc-shm-<rank>-<peer>`), the same decision on every rank of it.
 */
#include "coord/lc_coord_impl.h"
#include "channel/lc_shm.h"
#include "pmi/lc_pmi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ranks on one kernel a record covers: one hex digit per 4, in a value of
 * at most LC_PMI_VALUE_MAX - 1 characters. */
#define LC_AGREE_BITMAP_MAX (4 * (LC_PMI_VALUE_MAX - 1))

static bool lc_agree_mapped(int r)
{
    return lc_world.peers[r].kind == LC_CHANNEL_SHM;
}

static int lc_agree_publish(const lc_agree_in_t *in)
{
    char key[64];
    /* No uncertain peer: nobody reads a record of ours (the relation is
     * symmetric), and most jobs save a put per rank. */
    if (in->nuncertain == 0) return 0;
    if (in->nkernel > LC_AGREE_BITMAP_MAX) {
        for (int r = 0; r < in->size; r++) {
            if (!in->uncertain[r]) continue;
            snprintf(key, sizeof(key), "lc-shm-%d-%d", in->rank, r);
            if (lc_pmi_put(key, lc_agree_mapped(r) ? "1" : "0") != 0) return LC_ERROR;
        }
        return 0;
    }
    char val[LC_PMI_VALUE_MAX];
    int ndigits = (in->nkernel + 3) / 4;
    for (int d = 0; d < ndigits; d++) {
        int bits = 0;
        for (int b = 0; b < 4 && 4 * d + b < in->nkernel; b++) {
            int r = in->kernel[4 * d + b];
            if (in->uncertain[r] && lc_agree_mapped(r)) bits |= 1 << b;
        }
        val[d] = "0123456789abcdef"[bits];
    }
    val[ndigits] = '\0';
    snprintf(key, sizeof(key), "lc-agree-%d", in->rank);
    return lc_pmi_put(key, val) == 0 ? 0 : LC_ERROR;
}

/* The pair with rank r keeps shared memory if both ends mapped
 * (theirs: r's answer), else goes to the network. */
static int lc_agree_decide(const lc_agree_in_t *in, int r, bool theirs)
{
    lc_peer_t *p = &lc_world.peers[r];
    if (p->kind == LC_CHANNEL_SHM && theirs) return 0;
    char cause[200], domains[96];
    lc_coord_reason_domains(&in->ids[r], &in->ids[in->rank], domains, sizeof(domains));
    if (p->kind == LC_CHANNEL_SHM)
        snprintf(cause, sizeof(cause), "same kernel, but it cannot see our segment (%.90s)", domains);
    else
        snprintf(cause, sizeof(cause), "%.190s", p->reason);
    lc_shm_disconnect(p);
    return lc_coord_connect_net(in->addrs, in->ids, r, cause);
}

static int lc_agree_silent(int r)
{
    lc_log_error("wire-up: rank %d did not say whether it could map our shared-memory segment; were the "
                 "ranks started with different LOCUS_NET_FORCE / LOCUS_NET_BLOCK settings?",
                 r);
    return LC_ERROR;
}

/* More ranks on this kernel than a record covers: one key per pair. */
static int lc_agree_each(const lc_agree_in_t *in)
{
    char key[64], theirs[16];
    for (int r = 0; r < in->size; r++) {
        if (!in->uncertain[r]) continue;
        snprintf(key, sizeof(key), "lc-shm-%d-%d", r, in->rank);
        int rc = lc_pmi_get(r, key, theirs, sizeof(theirs));
        if (rc == LC_ERROR) return LC_ERROR; /* lc_pmi_get said why */
        if (rc != 0) return lc_agree_silent(r);
        if (lc_agree_decide(in, r, theirs[0] == '1') != 0) return LC_ERROR;
    }
    return 0;
}

/* lc_pmi_get_ranks's callback: rank r's record, our bit in it. */
static int lc_agree_take(int r, const char *val, void *arg)
{
    const lc_agree_in_t *in = arg;
    int me = in->kernel_index, ndigits = (in->nkernel + 3) / 4;
    if (val == NULL) return lc_agree_silent(r);
    const char *hex = "0123456789abcdef", *d = strlen(val) == (size_t)ndigits ? strchr(hex, val[me / 4]) : NULL;
    if (d == NULL || *d == '\0') {
        lc_log_error("wire-up: rank %d published a malformed agreement record (%.40s; %d hex digits expected)", r, val,
                     ndigits);
        return LC_ERROR;
    }
    return lc_agree_decide(in, r, ((d - hex) >> (me % 4)) & 1);
}

int lc_coord_agree(const lc_agree_in_t *in)
{
    if (lc_agree_publish(in) != 0 || lc_pmi_fence() != 0) return LC_ERROR;
    /* Every peer has mapped our segment or given up. */
    lc_shm_unlink();
    if (in->nuncertain == 0) return 0;
    if (in->nkernel > LC_AGREE_BITMAP_MAX) return lc_agree_each(in);
    int *want = malloc(sizeof(int) * (size_t)in->size), n = 0;
    if (!want) {
        lc_log_error("wire-up: out of memory for %d peers", in->size);
        return LC_ERROR;
    }
    for (int r = 0; r < in->size; r++)
        if (in->uncertain[r]) want[n++] = r;
    int rc = lc_pmi_get_ranks("lc-agree-", want, n, lc_agree_take, (void *)in);
    free(want);
    return rc == 0 ? 0 : LC_ERROR; /* said why */
}
