/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_ctx.c — agreeing on the context slot of a new communicator when
 * several agreements of one process are in progress at once: blocking
 * ones of different threads, MPI_Comm_idup schedules on any parents in
 * any order, and blocking ones run while idups are outstanding.
 *
 * An agreement is a sequence of rounds; each round every member offers a
 * set of slots and the members AND their offers (plus a last word, the
 * AND of "I offered every slot free here"); every member sees the same
 * result and so decides alike: the lowest slot of the result, else
 * "again", else — when every member offered all it had — "no slot".
 *
 * Safety: a slot offered in a round is held (marked taken in the free
 * mask) from the offer until the round's result is used, so two
 * agreements in progress on one process never offer the same slot, and
 * the caller takes the chosen one before it waits on anything.
 *
 * Progress.  Holding alone fails: two idups started in opposite orders on
 * two ranks hold disjoint windows on each and their offers never meet,
 * however the windows grow.  Deferring to a per-process "owner" of the
 * whole mask (the lowest agreement in progress) fails another way: an
 * agreement may be started on one member and not yet on another, which
 * may be blocked waiting for a third communication (MPI 4.1 §6.12: a
 * nonblocking collective started by every member must complete whatever
 * the members do next), so an agreement must never wait for one that
 * not every member has started.  Hence:
 *
 *  - first round (not yet "established"): offer a window of the lowest
 *    LC_CTX_WINDOW free slots, not the owner's.  With nothing else going
 *    on this decides at once: the common case costs one allreduce.
 *  - later rounds: the first round's result came back, so every member
 *    has started the agreement and all of its rounds will complete.
 *    Among such established agreements of this process the lowest key
 *    (parent context, tag, sequence on the parent — the same on every
 *    member) owns the free mask: it offers every free slot (but the
 *    reserve) and says so in the last word; the others offer nothing.
 *    Ownership passes only at round boundaries and only to the lowest
 *    established agreement.
 *  - an agreement of one member takes the lowest free slot at once and
 *    defers to nobody (see lc_ctx_agreement_offer); the windows and the
 *    owner leave it the LC_CTX_RESERVE highest free slots.
 *
 * Why it ends: take the lowest key X among established agreements in
 * progress anywhere.  An established owner's round completes (its
 * members are all in it), so on each member of X the owner changes
 * within a round, to X (the lowest there) at X's next round, and stays
 * X.  Once X owns on every member its round offers every free slot of
 * every member: a slot, or "no slot" — falsely only when the common
 * free slots are all in the reserve or in other agreements' first-round
 * windows, i.e. when few slots are left.  Agreements whose
 * first round waits for a member never block anyone: they hold a window
 * and defer to nobody.  Keys: agreements sharing a member either have
 * different parents (different context ids on that member) or share one
 * (its members start them in the same order: the sequence number), or
 * are Comm_create_group's on one parent (different tags, or erroneous).
 * Intercommunicator creations agree over both groups with keys of their
 * own (lc_mpi_bridge.c says why those are unique too).
 *
 * All state is guarded by the MPI critical section, as all of the API
 * layer; a blocking agreement's reduction leaves it (under
 * MPI_THREAD_MULTIPLE) or runs the progress engine, which runs idup
 * rounds: every call below is one critical section.
 */
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_comm.h"

#include <stdbool.h>
#include <string.h>

#define LC_CTX_WINDOW 64
#define LC_CTX_RESERVE 32

static lc_ctx_agreement_t *lc_ctx_agreements; /* in progress on this process */
static bool lc_ctx_owned;                     /* some agreement holds the whole mask */

static bool lc_ctx_below(const lc_ctx_agreement_t *a, const lc_ctx_agreement_t *b)
{
    for (int i = 0; i < 4; i++)
        if (a->key.w[i] != b->key.w[i]) return a->key.w[i] < b->key.w[i];
    return false;
}

/* No established agreement of this process is below `me`. */
static bool lc_ctx_lowest(const lc_ctx_agreement_t *me)
{
    for (const lc_ctx_agreement_t *a = lc_ctx_agreements; a; a = a->next)
        if (a != me && a->established && lc_ctx_below(a, me)) return false;
    return true;
}

void lc_ctx_agreement_begin_key(lc_ctx_agreement_t *a, const lc_ctx_key_t *key, int members)
{
    memset(a, 0, sizeof(*a));
    a->alone = members == 1;
    a->key = *key;
    a->next = lc_ctx_agreements;
    lc_ctx_agreements = a;
    a->linked = true;
}

void lc_ctx_agreement_begin(lc_ctx_agreement_t *a, lc_comm_t *parent, int tag, int members)
{
    /* (context id, tag, sequence): tag -1 -> 1, a tag t >= 0 -> t + 2;
     * 0 is the intercommunicator bridges' (lc_mpi_bridge.c).  Every
     * member of the parent starts its whole-parent agreements in the
     * same order; Comm_create_group's involve some members only. */
    lc_ctx_key_t key = { { (uint64_t)parent->ctx << 32 | ((uint32_t)tag + 2u), tag < 0 ? parent->ctx_seq++ : 0, 0,
                           0 } };
    lc_ctx_agreement_begin_key(a, &key, members);
}

void lc_ctx_agreement_offer(lc_ctx_agreement_t *a, uint64_t *words)
{
    const uint64_t *free_mask = lc_comm_ctx_free_mask();
    memset(words, 0, sizeof(uint64_t) * (LC_CTX_WORDS + 1));
    if (a->alone) {
        /* Nobody to agree with: the lowest free slot, decided at once
         * (only it held).  Its round completes without a message, often
         * inside the call that started it, so it must not defer to
         * anyone (it would spin with no progress made): the reserve
         * below keeps slots for it. */
        int slot = lc_ctx_agreement_lowest(free_mask);
        if (slot >= 0) words[slot / 64] = 1ull << (slot % 64);
        words[LC_CTX_WORDS] = 1;
        memcpy(a->held, words, sizeof(a->held));
        lc_comm_ctx_hold_words(a->held, 1);
        return;
    }
    /* The others leave the LC_CTX_RESERVE highest free slots to
     * single-member agreements (an owner holds all it offers). */
    uint64_t usable[LC_CTX_WORDS];
    memcpy(usable, free_mask, sizeof(usable));
    int left = LC_CTX_RESERVE;
    for (int w = LC_CTX_WORDS - 1; w >= 0 && left; w--)
        while (usable[w] && left) {
            usable[w] &= ~(1ull << (63 - __builtin_clzll(usable[w])));
            left--;
        }
    if (!a->established) {
        left = LC_CTX_WINDOW;
        for (int w = 0; w < LC_CTX_WORDS && left; w++)
            for (uint64_t m = usable[w]; m && left; m &= m - 1, left--) words[w] |= m & -m;
    } else if (!lc_ctx_owned && lc_ctx_lowest(a)) {
        memcpy(words, usable, sizeof(usable));
        words[LC_CTX_WORDS] = 1;
        a->owner = true;
        lc_ctx_owned = true;
    }
    memcpy(a->held, words, sizeof(a->held));
    lc_comm_ctx_hold_words(a->held, 1);
}

void lc_ctx_agreement_round_end(lc_ctx_agreement_t *a)
{
    lc_comm_ctx_hold_words(a->held, 0);
    memset(a->held, 0, sizeof(a->held));
    if (a->owner) lc_ctx_owned = false;
    a->owner = false;
    a->established = true;
}

void lc_ctx_agreement_end(lc_ctx_agreement_t *a)
{
    if (!a->linked) return;
    lc_ctx_agreement_round_end(a);
    for (lc_ctx_agreement_t **p = &lc_ctx_agreements; *p; p = &(*p)->next)
        if (*p == a) {
            *p = a->next;
            break;
        }
    a->linked = false;
}

int lc_ctx_agreement_lowest(const uint64_t *mask)
{
    for (int w = 0; w < LC_CTX_WORDS; w++)
        if (mask[w]) return w * 64 + __builtin_ctzll(mask[w]);
    return -1;
}

int lc_mpi_ctx_agree(lc_comm_t *parent, int tag, int members, lc_ctx_reduce_fn_t *reduce, void *arg, int *slot_p)
{
    lc_ctx_agreement_t a;
    lc_ctx_agreement_begin(&a, parent, tag, members);
    int rc;
    for (;;) {
        uint64_t mask[LC_CTX_WORDS + 1];
        lc_ctx_agreement_offer(&a, mask);
        rc = reduce(mask, LC_CTX_WORDS + 1, arg);
        /* The chosen slot is free again too: the caller creates the
         * communicator (which takes it) before it waits on anything. */
        lc_ctx_agreement_round_end(&a);
        if (rc != MPI_SUCCESS) break;
        int slot = lc_ctx_agreement_lowest(mask);
        if (slot >= 0) {
            *slot_p = slot;
            break;
        }
        if (mask[LC_CTX_WORDS]) {
            rc = lc_error(MPI_ERR_INTERN, "out of communicator context ids (2048 communicators exist, or the "
                                          "members have no free one in common); free communicators you no "
                                          "longer need");
            break;
        }
        /* Some member offered a window that missed the others', or did
         * not own its mask: again (established now). */
    }
    lc_ctx_agreement_end(&a);
    return rc;
}
