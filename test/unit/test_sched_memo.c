/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the schedule memo's references (src/coll/lc_sched_memo.c)
 * when a collective cannot get its request: lc_sched_launch must free a
 * schedule nobody holds and leave a memoized one alone — the schedule a
 * memo hit restarts, and one just built and kept.  A memoized schedule
 * freed there went back to the schedule cache while the memo still named
 * it: the next collective built into it, and a later repeat restarted
 * that one as its own.  Also the quick restart's records: a repeat finds
 * its schedule by the call's arguments, only while it is idle.
 *
 * Request allocation fails on demand: the test puts its own function in
 * the pool's allocation pointer (lc_request_alloc_p, lc_request.h).  One rank
 * through the self channel: an allreduce schedule is one copy step.
 */
#include "coll/lc_coll.h"
#include "coll/lc_sched.h"
#include "coord/lc_world.h"
#include "pt2pt/lc_pt2pt.h"
#include "util/lc_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_unit_check.h"

static int fail_alloc;

static lc_request_t *(*real_alloc)(lc_req_kind_t kind);
static lc_request_t *failing_alloc(lc_req_kind_t kind)
{
    return fail_alloc ? NULL : real_alloc(kind);
}

static lc_comm_t *setup(void)
{
    static lc_peer_t self;
    self.kind = LC_CHANNEL_SELF;
    self.ops = &lc_channel_self_ops;
    self.eager_limit = 64;
    self.chunk = 100;
    lc_list_init(&self.pending);
    lc_world.rank = 0;
    lc_world.size = 1;
    lc_world.universe_size = 1;
    lc_world.peers = &self;
    lc_pt2pt_init();
    lc_coll_init();
    real_alloc = lc_request_alloc_p;
    lc_request_alloc_p = failing_alloc;
    int zero = 0;
    return lc_comm_create(0, 0, 1, &zero, MPI_COMM_WORLD);
}

/* What an MPI_Iallreduce capture does (src/mpi/lc_mpi_icoll.c): the
 * schedule to run, the memoized one on a hit. */
static lc_sched_t *capture(lc_comm_t *comm, const float *sb, float *rb, bool memo_ok, const lc_sched_args_t *a)
{
    lc_sched_t *s = lc_sched_new(comm);
    s->memo_ok = memo_ok;
    s->args = a;
    lc_coll_capture = s;
    int rc = lc_coll_allreduce(sb, rb, 2, MPI_FLOAT, MPI_SUM, comm);
    lc_coll_capture = NULL;
    s->args = NULL;
    CHECK(rc == MPI_SUCCESS);
    if (s->use) {
        lc_sched_t *m = s->use;
        lc_sched_free(s);
        s = m;
    }
    return s;
}

/* A launch without a request: the memo's schedule `s` must survive it
 * (the cache must not hand it out again) and stay findable. */
static void launch_fails_keeping(lc_comm_t *comm, lc_sched_t *s, const lc_sched_args_t *a)
{
    uint32_t seq = comm->sched_seq;
    lc_request_t *req = NULL;
    fail_alloc = 1;
    CHECK(lc_error_class_of(lc_sched_launch(s, LC_REQ_COLL, &req)) == MPI_ERR_NO_MEM);
    fail_alloc = 0;
    CHECK(req == NULL);
    CHECK(comm->sched_seq == seq); /* no tag taken */
    CHECKF(s->refs == 1, "refs %d after a failed launch, want 1 (the memo's)", s->refs);
    lc_sched_t *fresh = lc_sched_new(comm);
    CHECKF(fresh != s, "the memoized schedule was freed (the cache handed it out again)");
    lc_sched_free(fresh);
    CHECK(lc_sched_memo_quick(comm, a) == s);
}

/* Launch, run and complete s; rb must then hold sb. */
static void run(lc_sched_t *s, const float *sb, float *rb)
{
    lc_request_t *req = NULL;
    rb[0] = rb[1] = -1;
    CHECK(lc_sched_launch(s, LC_REQ_COLL, &req) == MPI_SUCCESS && req);
    if (!req) return;
    CHECK(s->refs == 2);
    lc_sched_start(s, req);
    lc_pt2pt_wait(req);
    CHECK(rb[0] == sb[0] && rb[1] == sb[1]);
    lc_request_release(req);
    CHECK(s->refs == 1);
}

int main(void)
{
    lc_comm_t *comm = setup();
    float sb[2] = { 1.5f, 2.5f }, rb[2], rb2[2];
    const lc_sched_args_t a = { .sbuf = sb, .rbuf = rb, .count = 2, .dt = MPI_FLOAT, .op = MPI_SUM, .call = 4 };
    const lc_sched_args_t a2 = { .sbuf = sb, .rbuf = rb2, .count = 2, .dt = MPI_FLOAT, .op = MPI_SUM, .call = 4 };

    /* Built and kept, then the request fails: the memo keeps it. */
    lc_sched_t *s = capture(comm, sb, rb, true, &a);
    CHECK(s->refs == 1);
    CHECK(lc_sched_memo_quick(comm, &a) == s);
    launch_fails_keeping(comm, s, &a);
    run(s, sb, rb);

    /* A memo hit (the checked path), then the request fails. */
    CHECK(capture(comm, sb, rb, true, &a) == s);
    launch_fails_keeping(comm, s, &a);
    run(s, sb, rb);

    /* The quick restart's lookup: only an idle schedule, only its own
     * arguments. */
    lc_request_t *req = NULL;
    CHECK(lc_sched_memo_quick(comm, &a2) == NULL);
    CHECK(lc_sched_launch(s, LC_REQ_COLL, &req) == MPI_SUCCESS);
    CHECK(lc_sched_memo_quick(comm, &a) == NULL); /* running: a repeat builds its own */
    lc_sched_start(s, req);
    lc_pt2pt_wait(req);
    lc_request_release(req);
    CHECK(lc_sched_memo_quick(comm, &a) == s);

    /* Another buffer: a second slot, its own record. */
    lc_sched_t *s2 = capture(comm, sb, rb2, true, &a2);
    CHECK(s2 != s && lc_sched_memo_quick(comm, &a2) == s2 && lc_sched_memo_quick(comm, &a) == s);
    launch_fails_keeping(comm, s2, &a2);
    run(s2, sb, rb2);

    /* A schedule nobody else holds (not memo-able: a persistent
     * collective's) is freed when its request fails: back to the cache. */
    lc_sched_t *p = capture(comm, sb, rb, false, NULL);
    CHECK(p != s && p != s2 && p->refs == 0);
    fail_alloc = 1;
    CHECK(lc_error_class_of(lc_sched_launch(p, LC_REQ_PCOLL, &req)) == MPI_ERR_NO_MEM);
    fail_alloc = 0;
    lc_sched_t *fresh = lc_sched_new(comm);
    CHECK(fresh == p);
    lc_sched_free(fresh);

    /* A call with a derived (non-builtin) datatype handle is not recorded. */
    const lc_sched_args_t d = {
        .sbuf = sb, .rbuf = rb, .count = 2, .dt = (MPI_Datatype)0x8c000001, .op = MPI_SUM, .call = 4
    };
    lc_sched_t *h = capture(comm, sb, rb, true, &d); /* a memo hit by the schedule's key */
    CHECK(h == s && lc_sched_memo_quick(comm, &d) == NULL && lc_sched_memo_quick(comm, &a) == s);

    lc_sched_memo_drop(comm); /* the MPI layer's destroy hook does it in a job */
    CHECK(lc_pt2pt_fini() == 0);
    lc_comm_destroy(comm);
    if (failures) return 1;
    printf("sched_memo: ok\n");
    return 0;
}
