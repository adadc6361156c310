/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the watch of a chosen pipeline (src/pt2pt/lc_pt2pt_pick_watch.c):
 * one stall does not demote, two slow periods in a row do, and a period
 * judges only the class it saw alone; and the engine's side (lc_deliver
 * through the self channel): receives a datatype packs or unpacks stay
 * outside the watch, and both sides agree on the variant.
 */
#include "datatype/lc_dt.h"
#include "lc_pick_model.h"

/* Session 14: one stall of a rank (a time slice lost to another process)
 * in a fast-mode run, 1 MiB windows at 25 GB/s: the 16-message watch
 * period around it read 3.6 GB/s, under half CMA's 12.7, and demoted the
 * class to CMA for its next 4,096 messages (2 runs of 11).  One slow
 * period no longer demotes; two in a row still do (a starved pipeline is
 * slow period after period). */
static void one_stall(void)
{
    static lc_peer_t r;
    fresh_peer(&r);
    lc_pick_class_t *c = &r.pick.cls[2];
    for (int w = 0; w < 4; w++) pipe_window(&r, MiB, 64, 25e9, 20e9, 12.7e9);
    CHECK(c->choice == 2 && !c->demoted);
    stall_at = 30, stall_s = 4e-3;
    pipe_window(&r, MiB, 64, 25e9, 20e9, 12.7e9);
    stall_at = -1;
    int piped = 0;
    for (int w = 0; w < 4; w++) piped += pipe_window(&r, MiB, 64, 25e9, 20e9, 12.7e9);
    CHECK(c->choice == 2 && !c->demoted && piped >= 4 * 63);
    stall_at = 10, stall_n = 3; /* stalls in every period: the pipeline crawls */
    pipe_window(&r, MiB, 64, 25e9, 20e9, 12.7e9);
    stall_at = -1, stall_n = 1;
    CHECK(c->choice == 1 && c->demoted);
}

/* One watch period (16 messages) of messages of sizes a and b pending
 * two at a time, each taking 1 ms: a crawl. */
static void crawl_period(lc_peer_t *p, size_t a_size, size_t b_size)
{
    for (int i = 0; i < 8; i++) {
        lc_request_t a = { .msg_size = a_size }, b = { .msg_size = b_size };
        lc_pick_pipe_start(p, &a, LC_PICK_PIPE, 0, false);
        lc_pick_pipe_start(p, &b, LC_PICK_PIPE, 0, false);
        p->pick.watch_since = lc_time_now() - 1e-3;
        lc_pick_pipe_done(p, &a);
        p->pick.watch_since = lc_time_now() - 1e-3;
        lc_pick_pipe_done(p, &b);
    }
    CHECK(p->pick.watch_msgs == 0); /* the period ended */
}

/* Session 15, fast mode, SHOW_CHANNELS: once the bw benchmark's 4 MiB
 * windows ended, "the pipeline moved 1.85 GB/s of late" was printed for
 * all three classes of the peer at once, and each went to CMA: the watch
 * judged every class that chose a pipeline by a period that saw one
 * class.  Now a period judges the class it saw alone; a period of several
 * classes judges none and leaves their counts of slow periods as they
 * were. */
static void one_class_per_period(void)
{
    static lc_peer_t r;
    fresh_peer(&r);
    lc_pick_class_t *c0 = &r.pick.cls[0], *c2 = &r.pick.cls[2], *c3 = &r.pick.cls[3];
    for (int w = 0; w < 4; w++) pipe_window(&r, 64 * KiB, 64, 20e9, 14e9, 10e9);
    for (int w = 0; w < 4; w++) pipe_window(&r, MiB, 64, 25e9, 20e9, 12.7e9);
    for (int w = 0; w < 4; w++) pipe_window(&r, 4 * MiB, 64, 25e9, 20e9, 12.7e9);
    CHECK(c0->choice == 2 && c2->choice == 2 && c3->choice == 2); /* the pipeline always, each */
    /* The 4 MiB windows crawl, every period (~3 GB/s, under half of every
     * class's CMA figure): that class goes to CMA, the others stay. */
    stall_at = 10, stall_n = 3, stall_s = 20e-3;
    for (int w = 0; w < 3 && !c3->demoted; w++) pipe_window(&r, 4 * MiB, 64, 25e9, 20e9, 12.7e9);
    stall_at = -1, stall_n = 1;
    CHECK(c3->choice == 1 && c3->demoted);
    CHECK(c0->choice == 2 && !c0->demoted && c2->choice == 2 && !c2->demoted);
    /* 64 KiB and 1 MiB messages pending together, crawling (0.53 GB/s):
     * periods of both classes judge neither... */
    r.pick.watch_msgs = 0; /* as just after a judgement */
    r.pick.watch_bytes = r.pick.watch_time = 0;
    r.pick.watch_cls = 0;
    for (int i = 0; i < 4; i++) crawl_period(&r, 64 * KiB, MiB);
    CHECK(c0->choice == 2 && !c0->demoted && c2->choice == 2 && !c2->demoted);
    /* ...nor break a class's slow periods in a row: a 1 MiB period
     * crawling, a mixed one, another 1 MiB one crawling: CMA. */
    crawl_period(&r, MiB, MiB);
    CHECK(c2->choice == 2 && c2->slow_watch == 1);
    crawl_period(&r, 64 * KiB, MiB);
    CHECK(c2->choice == 2 && c2->slow_watch == 1);
    crawl_period(&r, MiB, MiB);
    CHECK(c2->choice == 1 && c2->demoted && c0->choice == 2 && !c0->demoted);
}

/* The channel's handler, with every RTS marked as a derived-datatype
 * send that packs from its cursor (LC_PKT_FLAG_NOPULL): the self channel
 * stages such sends, so the test marks a contiguous one. */
static lc_channel_recv_func_t engine_handler;
static void as_packed_send(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload)
{
    lc_pkt_hdr_t h = *hdr;
    if (h.kind == LC_PKT_RTS) h.flags |= LC_PKT_FLAG_NOPULL;
    engine_handler(from, &h, payload);
}

/* The engine's side: lc_deliver tells lc_pick_pipe_start which receives a
 * datatype unpacks.  Through the self channel (no launch), made to
 * calibrate: its send and receive share one peer, so its `sending` count
 * is reset after each send (a real pair has one peer each side). */
static void through_the_engine(void)
{
    static lc_peer_t self;
    self.kind = LC_CHANNEL_SELF;
    self.ops = &lc_channel_self_ops;
    self.can_pull = true;
    self.eager_limit = 64;
    self.chunk = 64 * KiB;
    lc_list_init(&self.pending);
    lc_world.rank = 0;
    lc_world.size = 1;
    lc_world.universe_size = 1;
    lc_world.peers = &self;
    lc_world.local_size = 2;
    lc_world.usable_cores = 2;
    lc_pt2pt_init();
    lc_peer_pick_reset(&self, true);
    int zero = 0;
    lc_comm_t *comm = lc_comm_create(0, 0, 1, &zero, MPI_COMM_WORLD);
    const size_t n = 256 * KiB, count = n / sizeof(double);
    double *src = malloc(n), *dst = calloc(2, n);
    CHECK(comm && src && dst);
    for (size_t i = 0; i < count; i++) src[i] = (double)i;
    lc_dt_t *every_other; /* 8-byte elements at a 16-byte stride: the x face's kind of layout */
    CHECK(lc_dt_create_vector((MPI_Count)count, 1, 16, lc_dt_get(MPI_DOUBLE), &every_other) == MPI_SUCCESS);
    CHECK(lc_dt_commit(every_other) == MPI_SUCCESS);

    /* A receive through the type: pipelined (an untimed message of an
     * undecided class, alone), and outside the watch. */
    lc_request_t *r, *s;
    unsigned long piped = lc_pt2pt_stats.rndv_pipe;
    CHECK(lc_pt2pt_irecv_dt(dst, 1, every_other, 0, 1, comm, LC_CTX_PT2PT, &r) == MPI_SUCCESS);
    CHECK(lc_pt2pt_isend(src, n, 0, 1, comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &s) == MPI_SUCCESS);
    CHECK(r->complete && s->complete && lc_pt2pt_stats.rndv_pipe == piped + 1);
    CHECK(self.pick.pipelining == 0 && self.pick.watching == 0 && self.pick.layout_bound == 0);
    CHECK(self.pick.watch_msgs == 0 && self.pick.watch_bytes == 0);
    CHECK(dst[0] == 0 && dst[2 * 1000] == 1000 && dst[2 * (count - 1)] == (double)(count - 1) && dst[1] == 0);
    lc_pt2pt_wait_release(r, MPI_STATUS_IGNORE);
    lc_pt2pt_wait_release(s, MPI_STATUS_IGNORE);
    self.pick.sending = 0;

    /* The same bytes into a contiguous buffer: a timed pipeline sample,
     * and watched. */
    CHECK(lc_pt2pt_irecv(dst, n, 0, 2, comm, LC_CTX_PT2PT, &r) == MPI_SUCCESS);
    CHECK(lc_pt2pt_isend(src, n, 0, 2, comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &s) == MPI_SUCCESS);
    CHECK(r->complete && lc_pt2pt_stats.rndv_pipe == piped + 2);
    CHECK(self.pick.pipelining == 0 && self.pick.watching == 0 && self.pick.layout_bound == 0);
    CHECK(self.pick.watch_msgs == 1 && self.pick.watch_bytes == (double)n && self.pick.cls[1].n_pipe == 1);
    CHECK(memcmp(dst, src, n) == 0);
    lc_pt2pt_wait_release(r, MPI_STATUS_IGNORE);
    lc_pt2pt_wait_release(s, MPI_STATUS_IGNORE);
    self.pick.sending = 0;

    /* A contiguous receive of a message the sender packs from its cursor
     * (the RTS says NOPULL): pipelined, and outside the watch too. */
    engine_handler = lc_channel_recv_handler;
    lc_channel_recv_handler = as_packed_send;
    memset(dst, 0, n);
    CHECK(lc_pt2pt_irecv(dst, n, 0, 3, comm, LC_CTX_PT2PT, &r) == MPI_SUCCESS);
    CHECK(lc_pt2pt_isend(src, n, 0, 3, comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &s) == MPI_SUCCESS);
    CHECK(r->complete && lc_pt2pt_stats.rndv_pipe == piped + 3);
    CHECK(self.pick.pipelining == 0 && self.pick.watching == 0 && self.pick.layout_bound == 0);
    CHECK(self.pick.watch_msgs == 1 && self.pick.watch_bytes == (double)n);
    CHECK(memcmp(dst, src, n) == 0);
    lc_pt2pt_wait_release(r, MPI_STATUS_IGNORE);
    lc_pt2pt_wait_release(s, MPI_STATUS_IGNORE);
    self.pick.sending = 0;
    lc_channel_recv_handler = engine_handler;

    /* Both sides agree on the variant: the receiver's pick asks for it in
     * the CTS, the sender's request takes it, and the peer's switch
     * (lc_shm_set_big_nt) is set while that message streams.  The class
     * decided "the pipeline always, non-temporal"; then normal stores;
     * then LOCUS_SHM_BIG_NT=1, the forced variant, which the CTS need not
     * carry. */
    lc_pick_class_t *c1 = &self.pick.cls[1];
    for (int v = 0; v < 3; v++) {
        memset(c1, 0, sizeof(*c1));
        c1->choice = 2;
        c1->n_pull = c1->n_pipe = c1->var_n[0] = c1->var_n[1] = 3;
        c1->pull_bw = 12e9;
        c1->pipe_bw = 20e9;
        c1->nt = v == 0;
        c1->var_bw[c1->nt] = 20e9;
        c1->var_bw[!c1->nt] = 5e9;
        lc_params.shm_big_nt = v == 2;
        self.shm.tx_big_nt = v != 0; /* the other way from what this message wants */
        memset(dst, 0, n);
        CHECK(lc_pt2pt_irecv(dst, n, 0, 4, comm, LC_CTX_PT2PT, &r) == MPI_SUCCESS);
        CHECK(lc_pt2pt_isend(src, n, 0, 4, comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &s) == MPI_SUCCESS);
        CHECK(r->complete && s->complete && memcmp(dst, src, n) == 0);
        CHECK(r->pick_nt == (v == 0) && s->pick_nt == r->pick_nt);
        CHECK(self.shm.tx_big_nt == (v != 1));
        lc_pt2pt_wait_release(r, MPI_STATUS_IGNORE);
        lc_pt2pt_wait_release(s, MPI_STATUS_IGNORE);
        self.pick.sending = 0;
    }
    lc_params.shm_big_nt = 0;

    lc_dt_release(every_other);
    free(src);
    free(dst);
    CHECK(lc_pt2pt_fini() == 0);
    lc_comm_destroy(comm);
}

int main(void)
{
    CHECK(lc_params_load() == 0);
    one_stall();
    one_class_per_period();
    through_the_engine();

    if (failures) return 1;
    printf("test_pt2pt_pick_watch: ok\n");
    return 0;
}
