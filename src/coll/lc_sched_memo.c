/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_sched_memo.c — schedules memoized on their communicator (lc_sched.h,
 * "The memo").
 *
 * Why: an 8-byte MPI_Iallreduce + MPI_Wait cost ~1.5x the blocking
 * MPI_Allreduce, and a quarter of the difference was building the same
 * schedule again on every call (selection, the builder's steps, scratch).
 * A loop that repeats a call with the same arguments (a solver's dot
 * product, a benchmark) now builds once and restarts the schedule, as a
 * persistent collective does (lc_sched_start resets the running state;
 * each start takes a new tag).
 *
 * Ownership: the memo holds one reference (refs) on each kept schedule;
 * a running instance's request holds another.  A schedule is reused only
 * when the memo's is the only reference (refs == 1: idle — its previous
 * request was completed and freed), so two outstanding calls with one
 * key (two Ibarriers) never share running state: the second builds its
 * own.  The key names the selection table's rule, so a changed
 * choice (a forced algorithm) misses.  Everything the builders of
 * barrier, bcast, reduce and allreduce read is in the key: the buffers'
 * addresses, count, datatype, operation, root, and the communicator's
 * size and rank (fixed for its life).  Their contents are read when the
 * steps run, never when they are built.
 *
 * The quick restart (lc_mpi_icoll.c): each slot also records the
 * application's arguments of the MPI_I<coll> call that last built or hit
 * it (lc_sched_args_t), so that a repeated call finds its schedule before
 * any check or capture.  Only calls whose datatype and operation handles
 * can never name another object are recorded (builtin or none,
 * predefined or none); a staged (derived) datatype's call is not, even
 * when its bytes made a memo-able schedule (a contiguous derived type in
 * a bcast).
 */
#include "coll/lc_op.h"
#include "coll/lc_sched.h"

#include <stdlib.h>
#include <string.h>

#define LC_SCHED_MEMO_SLOTS 4

typedef struct lc_sched_memo {
    lc_sched_t *s[LC_SCHED_MEMO_SLOTS];
    lc_sched_key_t key[LC_SCHED_MEMO_SLOTS];
    lc_sched_args_t args[LC_SCHED_MEMO_SLOTS]; /* call == 0: no record */
    unsigned next; /* round-robin victim */
} lc_sched_memo_t;

/* A builtin datatype names its size in the handle (lc_dtype.h) and can
 * never stand for another type later. */
static bool lc_sched_memo_builtin_dt(MPI_Datatype dt)
{
    return ((unsigned)dt & 0xfc000000u) == 0x4c000000u;
}

static bool lc_sched_key_eq(const lc_sched_key_t *a, const lc_sched_key_t *b)
{
    return a->rule == b->rule && a->rbuf == b->rbuf && a->sbuf == b->sbuf && a->count == b->count &&
           a->dt == b->dt && a->op == b->op && a->root == b->root && a->coll == b->coll;
}

/* A call whose arguments may be recorded (see the top of this file). */
static bool lc_sched_args_ok(const lc_sched_args_t *a)
{
    return a && (a->dt == MPI_DATATYPE_NULL || lc_sched_memo_builtin_dt(a->dt)) &&
           (a->op == MPI_OP_NULL || lc_op_is_predefined(a->op));
}

static bool lc_sched_args_eq(const lc_sched_args_t *a, const lc_sched_args_t *b)
{
    return a->rbuf == b->rbuf && a->sbuf == b->sbuf && a->count == b->count && a->dt == b->dt && a->op == b->op &&
           a->root == b->root && a->call == b->call;
}

lc_sched_t *lc_sched_memo_quick(lc_comm_t *comm, const lc_sched_args_t *args)
{
    lc_sched_memo_t *m = comm->sched_memo;
    if (!m) return NULL;
    for (int i = 0; i < LC_SCHED_MEMO_SLOTS; i++)
        if (m->args[i].call && m->s[i]->refs == 1 && lc_sched_args_eq(&m->args[i], args)) return m->s[i];
    return NULL;
}

bool lc_sched_memo_find(lc_sched_t *s, const lc_sched_key_t *key, bool *hit)
{
    *hit = false;
    /* Only an MPI_I<coll> capture whose schedule is still empty (nothing
     * staged), for an intracommunicator's own steps. */
    if (!s->memo_ok || s->nops || s->nbufs || s->hooks || s->peer_comm || s->comm->remote_world) return false;
    if (key->dt != MPI_DATATYPE_NULL && !lc_sched_memo_builtin_dt(key->dt)) return false;
    if (key->op != MPI_OP_NULL && !lc_op_is_predefined(key->op)) return false;
    lc_sched_memo_t *m = s->comm->sched_memo;
    if (m) {
        for (int i = 0; i < LC_SCHED_MEMO_SLOTS; i++) {
            lc_sched_t *c = m->s[i];
            if (c && c->refs == 1 && lc_sched_key_eq(&m->key[i], key)) {
                s->use = c;
                *hit = true;
                /* This call passed its checks and chose c: the next
                 * one like it restarts c quickly.  A call that is not
                 * recorded leaves the slot's record (still true). */
                if (lc_sched_args_ok(s->args)) m->args[i] = *s->args;
                break;
            }
        }
    }
    return true;
}

/* Scratch a memoized schedule may hold (until its communicator goes):
 * building is only worth saving for short operations; a long one's
 * scratch goes back to the allocator with its request, as before. */
#define LC_SCHED_MEMO_SCRATCH_MAX (64 * 1024)

void lc_sched_memo_keep(lc_sched_t *s, const lc_sched_key_t *key)
{
    size_t scratch = 0;
    for (int i = 0; i < s->nbufs; i++) scratch += s->buf_bytes[i];
    if (scratch > LC_SCHED_MEMO_SCRATCH_MAX) return;
    lc_comm_t *comm = s->comm;
    lc_sched_memo_t *m = comm->sched_memo;
    if (!m) {
        if (!(m = calloc(1, sizeof(*m)))) return; /* no memo: only slower */
        comm->sched_memo = m;
    }
    /* An empty slot, else an idle one (round robin); all running: keep
     * nothing (the schedule is freed with its request as before). */
    int slot = -1;
    for (int i = 0; i < LC_SCHED_MEMO_SLOTS && slot < 0; i++)
        if (!m->s[i]) slot = i;
    for (int k = 0; k < LC_SCHED_MEMO_SLOTS && slot < 0; k++) {
        int i = (int)((m->next + (unsigned)k) % LC_SCHED_MEMO_SLOTS);
        if (m->s[i]->refs == 1) slot = i;
    }
    if (slot < 0) return;
    m->next = (unsigned)slot + 1;
    if (m->s[slot] && --m->s[slot]->refs <= 0) lc_sched_free(m->s[slot]);
    m->s[slot] = s;
    m->key[slot] = *key;
    m->args[slot] = lc_sched_args_ok(s->args) ? *s->args : (lc_sched_args_t){ 0 };
    s->refs++; /* the memo's */
}

void lc_sched_memo_drop(lc_comm_t *comm)
{
    lc_sched_memo_t *m = comm->sched_memo;
    if (!m) return;
    comm->sched_memo = NULL;
    for (int i = 0; i < LC_SCHED_MEMO_SLOTS; i++)
        if (m->s[i] && --m->s[i]->refs <= 0) lc_sched_free(m->s[i]);
    free(m);
}
