/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of matching, through the self channel (no launch needed):
 * non-overtaking order, wildcards, unexpected vs posted, context
 * separation, truncation, rendezvous (pull) and synchronous sends.
 */
#include "coord/lc_world.h"
#include "pt2pt/lc_pt2pt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_unit_check.h"

static lc_comm_t *setup(void)
{
    static lc_peer_t self;
    self.kind = LC_CHANNEL_SELF;
    self.ops = &lc_channel_self_ops;
    self.can_pull = true;
    self.eager_limit = 64;
    self.chunk = 100;
    lc_list_init(&self.pending);
    lc_world.rank = 0;
    lc_world.size = 1;
    lc_world.universe_size = 1; /* the table lc_universe_create would make */
    lc_world.peers = &self;
    lc_pt2pt_init();
    int zero = 0;
    return lc_comm_create(0, 0, 1, &zero, MPI_COMM_WORLD);
}

int main(void)
{
    lc_comm_t *comm = setup();
    int a = 1, b = 2, c = 3, x = 0, y = 0, z = 0;
    MPI_Status st;

    /* Unexpected messages are received in send order for the same tag. */
    lc_request_t *s1, *s2, *s3;
    CHECK(lc_pt2pt_isend(&a, sizeof(int), 0, 5, comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &s1) == MPI_SUCCESS);
    CHECK(lc_pt2pt_isend(&b, sizeof(int), 0, 5, comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &s2) == MPI_SUCCESS);
    CHECK(lc_pt2pt_isend(&c, sizeof(int), 0, 7, comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &s3) == MPI_SUCCESS);
    CHECK(s1->complete && s2->complete && s3->complete); /* eager: complete at once */
    lc_pt2pt_waitall_release(3, (lc_request_t *[]){ s1, s2, s3 });
    CHECK(lc_pt2pt_recv(&z, sizeof(int), 0, 7, comm, LC_CTX_PT2PT, &st) == MPI_SUCCESS && z == 3);
    CHECK(lc_pt2pt_recv(&x, sizeof(int), MPI_ANY_SOURCE, MPI_ANY_TAG, comm, LC_CTX_PT2PT, &st) == MPI_SUCCESS);
    CHECK(x == 1 && st.MPI_TAG == 5 && st.MPI_SOURCE == 0 && st.count_lo == sizeof(int));
    CHECK(lc_pt2pt_recv(&y, sizeof(int), 0, 5, comm, LC_CTX_PT2PT, &st) == MPI_SUCCESS && y == 2);

    /* Posted receives match in posting order; contexts stay apart. */
    lc_request_t *r1, *r2, *r3;
    x = y = z = 0;
    lc_pt2pt_irecv(&x, sizeof(int), 0, MPI_ANY_TAG, comm, LC_CTX_PT2PT, &r1);
    lc_pt2pt_irecv(&y, sizeof(int), 0, 9, comm, LC_CTX_PT2PT, &r2);
    lc_pt2pt_irecv(&z, sizeof(int), 0, 9, comm, LC_CTX_COLL, &r3);
    CHECK(!r1->complete && !r2->complete && !r3->complete);
    lc_pt2pt_send(&c, sizeof(int), 0, 9, comm, LC_CTX_COLL, LC_MODE_STANDARD);
    CHECK(r3->complete && z == 3 && !r1->complete);
    lc_pt2pt_send(&a, sizeof(int), 0, 9, comm, LC_CTX_PT2PT, LC_MODE_STANDARD);
    lc_pt2pt_send(&b, sizeof(int), 0, 9, comm, LC_CTX_PT2PT, LC_MODE_STANDARD);
    CHECK(r1->complete && x == 1 && r2->complete && y == 2);
    lc_pt2pt_waitall_release(3, (lc_request_t *[]){ r1, r2, r3 });

    /* Truncation is reported and the buffer not overrun. */
    int big[4] = { 1, 2, 3, 4 }, small[3] = { 0, 0, 0 };
    int guard[1] = { 77 };
    (void)guard;
    lc_pt2pt_isend(big, sizeof(big), 0, 1, comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &s1);
    lc_pt2pt_wait_release(s1, MPI_STATUS_IGNORE);
    int err = lc_pt2pt_recv(small, 2 * sizeof(int), 0, 1, comm, LC_CTX_PT2PT, &st);
    CHECK((err & 0xff) == MPI_ERR_TRUNCATE && small[0] == 1 && small[1] == 2 && small[2] == 0);

    /* Rendezvous (above the eager limit): the send completes only when
     * the receive pulls the data. */
    size_t n = 5000;
    char *src = malloc(n), *dst = calloc(1, n);
    for (size_t i = 0; i < n; i++) src[i] = (char)(i * 13);
    lc_pt2pt_isend(src, n, 0, 2, comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &s1);
    CHECK(!s1->complete);
    lc_pt2pt_irecv(dst, n, 0, 2, comm, LC_CTX_PT2PT, &r1);
    CHECK(r1->complete && s1->complete && !memcmp(src, dst, n));
    lc_pt2pt_wait_release(s1, MPI_STATUS_IGNORE);
    lc_pt2pt_wait_release(r1, &st);
    CHECK(st.count_lo == (int)n);

    /* Synchronous eager: completes on the receiver's ACK. */
    lc_pt2pt_isend(&a, sizeof(int), 0, 3, comm, LC_CTX_PT2PT, LC_MODE_SYNC, &s1);
    CHECK(!s1->complete);
    lc_pt2pt_recv(&x, sizeof(int), 0, 3, comm, LC_CTX_PT2PT, &st);
    CHECK(s1->complete);
    lc_pt2pt_wait_release(s1, MPI_STATUS_IGNORE);

    /* Cancel of an unmatched receive. */
    lc_pt2pt_irecv(&x, sizeof(int), 0, 99, comm, LC_CTX_PT2PT, &r1);
    lc_pt2pt_cancel(r1);
    CHECK(r1->complete && r1->cancelled);
    lc_pt2pt_wait_release(r1, &st);
    CHECK(st.count_hi_and_cancelled & 1);

    free(src);
    free(dst);
    CHECK(lc_pt2pt_fini() == 0);
    lc_comm_destroy(comm);
    if (!failures) printf("matching: ok\n");
    return failures ? 1 : 0;
}
