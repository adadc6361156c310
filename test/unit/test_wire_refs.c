/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of request names (issue 12, points 4 and 5): MPI handles and
 * wire references carry the slot's generation, so a name of a released
 * request never names the slot's next life; a control packet's reference
 * is accepted only for a live request of the right kind, issued to the
 * peer that sent the packet, in the state that packet answers; and a
 * crafted packet that breaks these rules ends the process with a message
 * naming the peer (exit 1), never a crash or a completed stranger.
 */
#include "coord/lc_world.h"
#include "pt2pt/lc_pt2pt_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lc_unit_check.h"

static lc_peer_t peers[2]; /* 0: self, 1: a peer that never gets a packet out */

static void setup(void)
{
    for (int i = 0; i < 2; i++) {
        peers[i].kind = LC_CHANNEL_SELF;
        peers[i].ops = &lc_channel_self_ops;
        peers[i].world_rank = i;
        lc_list_init(&peers[i].pending);
    }
    lc_world.rank = 0;
    lc_world.size = 2;
    lc_world.universe_size = 2;
    lc_world.peers = peers;
    lc_pt2pt_init();
}

static lc_request_t *make(lc_req_kind_t kind, lc_peer_t *peer, lc_req_state_t st)
{
    lc_request_t *r = lc_request_alloc(kind);
    r->peer = peer;
    r->state = (uint8_t)st;
    return r;
}

/* Run fn in a child: it must exit 1 with `want` on stderr (no signal). */
static void expect_misbehaved(void (*fn)(void), const char *want)
{
    int fds[2];
    if (pipe(fds) != 0) abort();
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        fn();
        _exit(0); /* accepted: wrong */
    }
    close(fds[1]);
    char buf[2048] = { 0 };
    size_t n = 0;
    ssize_t k;
    while (n < sizeof(buf) - 1 && (k = read(fds[0], buf + n, sizeof(buf) - 1 - n)) > 0) n += (size_t)k;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    CHECK(strstr(buf, "received a malformed packet from rank 1") != NULL);
    CHECK(strstr(buf, want) != NULL);
    if (!strstr(buf, want)) fprintf(stderr, "child said: %s\n", buf);
}

static uint32_t g_ref;
static void send_fin_from_peer1(void)
{
    lc_pkt_hdr_t hdr = { .kind = LC_PKT_FIN };
    lc_pkt_ctl_t ctl = { .sreq = g_ref, .rreq = 0 };
    lc_channel_recv_handler(&peers[1], &hdr, &ctl);
}
static void send_data_from_peer1(void)
{
    struct {
        lc_pkt_data_t d;
        char bytes[8];
    } pkt = { .d = { .rreq = g_ref, .offset = 0 } };
    lc_pkt_hdr_t hdr = { .kind = LC_PKT_DATA, .len = sizeof(pkt) };
    lc_channel_recv_handler(&peers[1], &hdr, &pkt);
}

int main(void)
{
    setup();
    const char *why = NULL;

    /* Handles: a released request's handle names nothing, even once the
     * slot lives again; the new handle differs. */
    lc_request_t *a = lc_request_alloc(LC_REQ_RECV);
    MPI_Request ha = lc_request_handle(a);
    uint32_t ra = lc_request_ref(a);
    CHECK(ha != MPI_REQUEST_NULL && (unsigned)ha >> 26 == 0xac000000u >> 26);
    CHECK(lc_request_lookup(ha) == a && lc_request_by_ref(ra) == a);
    lc_request_release(a);
    CHECK(lc_request_lookup(ha) == NULL && lc_request_by_ref(ra) == NULL);
    lc_request_t *b = lc_request_alloc(LC_REQ_RECV);
    CHECK(b == a); /* the free list is a stack: the same slot */
    CHECK(lc_request_handle(b) != ha && lc_request_ref(b) != ra);
    CHECK(lc_request_lookup(ha) == NULL && lc_request_by_ref(ra) == NULL);
    CHECK(lc_request_lookup(lc_request_handle(b)) == b);
    CHECK(lc_request_lookup(MPI_REQUEST_NULL) == NULL);
    CHECK(lc_request_lookup((MPI_Request)0x2c000001) == NULL); /* another kind's bits */
    CHECK(lc_request_by_ref(0xfffff) == NULL);                 /* an index never allocated */
    lc_request_release(b);
    /* A slot lives many times: every life has a new handle (up to 64 in a row). */
    MPI_Request seen[64];
    for (int i = 0; i < 64; i++) {
        lc_request_t *r = lc_request_alloc(LC_REQ_DONE);
        seen[i] = lc_request_handle(r);
        for (int j = 0; j < i; j++) CHECK(seen[j] != seen[i]);
        lc_request_release(r);
    }

    /* Wire references: kind, peer, state. */
    lc_request_t *s = make(LC_REQ_SEND, &peers[1], LC_ST_WAIT_RNDV);
    uint32_t rs = lc_request_ref(s);
    unsigned rndv = LC_REQ_STATE_BIT(LC_ST_WAIT_RNDV);
    CHECK(lc_pt2pt_wire_check(&peers[1], rs, LC_REQ_SEND, rndv, &why) == s);
    CHECK(lc_pt2pt_wire_check(&peers[0], rs, LC_REQ_SEND, rndv, &why) == NULL && strstr(why, "another rank"));
    CHECK(lc_pt2pt_wire_check(&peers[1], rs, LC_REQ_RECV, LC_REQ_STATE_BIT(LC_ST_RECV_DATA), &why) == NULL &&
          strstr(why, "another kind"));
    CHECK(lc_pt2pt_wire_check(&peers[1], rs, LC_REQ_SEND, LC_REQ_STATE_BIT(LC_ST_WAIT_ACK), &why) == NULL &&
          strstr(why, "not waiting"));
    s->state = LC_ST_RTS_QUEUED; /* its RTS has not left yet: no answer can be due */
    CHECK(lc_pt2pt_wire_check(&peers[1], rs, LC_REQ_SEND, rndv, &why) == NULL);
    s->state = LC_ST_WAIT_RNDV;
    lc_request_release(s);
    CHECK(lc_pt2pt_wire_check(&peers[1], rs, LC_REQ_SEND, rndv, &why) == NULL && strstr(why, "in flight"));
    lc_request_t *s2 = make(LC_REQ_SEND, &peers[1], LC_ST_WAIT_RNDV); /* the same slot, next life */
    CHECK(lc_pt2pt_wire_check(&peers[1], rs, LC_REQ_SEND, rndv, &why) == NULL);
    CHECK(lc_pt2pt_wire_check(&peers[1], lc_request_ref(s2), LC_REQ_SEND, rndv, &why) == s2);
    CHECK(lc_pt2pt_wire_check(&peers[1], lc_request_ref(s2) ^ 0x80000000u, LC_REQ_SEND, rndv, &why) == NULL);

    /* Crafted packets through the real handler: the process ends with a
     * message naming the peer; the request is untouched. */
    g_ref = rs; /* stale */
    expect_misbehaved(send_fin_from_peer1, "its FIN names send request");
    lc_request_t *r = make(LC_REQ_RECV, &peers[0], LC_ST_RECV_DATA);
    g_ref = lc_request_ref(r); /* issued to rank 0, DATA from rank 1 */
    expect_misbehaved(send_data_from_peer1, "issued to another rank");
    g_ref = lc_request_ref(s2); /* a send request named by DATA */
    expect_misbehaved(send_data_from_peer1, "another kind");
    r->peer = &peers[1];
    r->state = LC_ST_POSTED; /* not matched yet: no DATA can be due */
    g_ref = lc_request_ref(r);
    expect_misbehaved(send_data_from_peer1, "not waiting");
    CHECK(!s2->complete && !r->complete);
    /* The valid packet is accepted (FIN completes the send). */
    g_ref = lc_request_ref(s2);
    send_fin_from_peer1();
    CHECK(s2->complete);
    lc_request_release(s2);
    lc_request_release(r);

    if (failures) fprintf(stderr, "%d failures\n", failures);
    else printf("ok\n");
    return failures ? 1 : 0;
}
