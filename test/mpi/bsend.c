/* SPDX-License-Identifier: BSD-3-Clause */
/* bsend: buffered mode.
 *  - With a buffer attached (sized with MPI_BSEND_OVERHEAD per message),
 *    MPI_Bsend and MPI_Ibsend complete locally before the receiver has
 *    posted anything (it posts only after a barrier that the sender
 *    reaches after its sends completed), eager and large sizes.
 *  - MPI_Buffer_detach returns the attached address and size, after the
 *    buffered messages were delivered; the buffer can be reattached.
 *  - Exhaustion under MPI_ERRORS_RETURN: a message larger than the
 *    attached buffer, and any Bsend with no buffer attached, fail with
 *    class MPI_ERR_BUFFER; the program then goes on normally. */
#include "lc_test.h"

static const int sizes[] = {0, 10, 3000, 50000}; /* ints */
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    int total = 0;
    for (int k = 0; k < NSIZES; k++)
        total += 2 * (sizes[k] * (int)sizeof(int32_t) + MPI_BSEND_OVERHEAD);
    char *bbuf = lc_malloc((size_t)total);
    LC_MPI(MPI_Buffer_attach(bbuf, total));

    int32_t *sbuf[NSIZES], *rbuf[2 * NSIZES];
    MPI_Request ireq[NSIZES];
    for (int k = 0; k < NSIZES; k++) {
        sbuf[k] = lc_malloc(sizeof(int32_t) * (size_t)sizes[k]);
        for (int i = 0; i < sizes[k]; i++)
            sbuf[k][i] = lc_pattern(rank, k, i);
        LC_MPI(MPI_Bsend(sbuf[k], sizes[k], MPI_INT, next, k, MPI_COMM_WORLD));
        LC_MPI(MPI_Ibsend(sbuf[k], sizes[k], MPI_INT, next, 100 + k, MPI_COMM_WORLD, &ireq[k]));
    }
    /* Ibsend completes without the receiver */
    LC_MPI(MPI_Waitall(NSIZES, ireq, MPI_STATUSES_IGNORE));
    /* the user buffer may be reused at once: the data was copied */
    for (int k = 0; k < NSIZES; k++)
        for (int i = 0; i < sizes[k]; i++)
            sbuf[k][i] = -1;
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));

    for (int k = 0; k < NSIZES; k++)
        for (int m = 0; m < 2; m++) {
            int n = sizes[k];
            int32_t *r = rbuf[2 * k + m] = lc_malloc(sizeof(int32_t) * (size_t)n);
            MPI_Status st;
            LC_MPI(MPI_Recv(r, n, MPI_INT, prev, m ? 100 + k : k, MPI_COMM_WORLD, &st));
            int c = -1;
            LC_MPI(MPI_Get_count(&st, MPI_INT, &c));
            LC_CHECK(c == n, "%s of %d ints arrived with %d", m ? "Ibsend" : "Bsend", n, c);
            for (int i = 0; i < n; i++)
                if (r[i] != lc_pattern(prev, k, i)) {
                    LC_CHECK(0, "%s of %d ints: int %d is %d, expected %d",
                             m ? "Ibsend" : "Bsend", n, i, r[i], lc_pattern(prev, k, i));
                    break;
                }
        }

    void *addr = NULL;
    int dsize = -1;
    LC_MPI(MPI_Buffer_detach(&addr, &dsize));
    LC_CHECK(addr == bbuf && dsize == total, "MPI_Buffer_detach gave %p size %d, attached %p %d",
             addr, dsize, (void *)bbuf, total);

    /* exhaustion: errors are returned, not fatal */
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int32_t one = 7;
    int rc = MPI_Bsend(&one, 1, MPI_INT, next, 200, MPI_COMM_WORLD);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_BUFFER,
             "MPI_Bsend with no buffer attached returned class %d (%s), expected MPI_ERR_BUFFER",
             lc_class_of(rc), lc_class_name(lc_class_of(rc)));
    if (rc == MPI_SUCCESS) /* it was sent after all: keep the matching straight */
        LC_MPI(MPI_Recv(&one, 1, MPI_INT, prev, 200, MPI_COMM_WORLD, MPI_STATUS_IGNORE));

    int small = 64 + MPI_BSEND_OVERHEAD;
    char *sb = lc_malloc((size_t)small);
    LC_MPI(MPI_Buffer_attach(sb, small));
    rc = MPI_Bsend(sbuf[3], sizes[3], MPI_INT, next, 201, MPI_COMM_WORLD);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_BUFFER,
             "MPI_Bsend of %d bytes into a %d-byte buffer returned class %d (%s), expected "
             "MPI_ERR_BUFFER", sizes[3] * 4, small, lc_class_of(rc), lc_class_name(lc_class_of(rc)));
    MPI_Request r2 = MPI_REQUEST_NULL;
    rc = MPI_Ibsend(sbuf[3], sizes[3], MPI_INT, next, 202, MPI_COMM_WORLD, &r2);
    if (rc == MPI_SUCCESS) /* the error may also be reported at completion */
        rc = MPI_Wait(&r2, MPI_STATUS_IGNORE);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_BUFFER,
             "MPI_Ibsend of %d bytes into a %d-byte buffer gave class %d (%s), expected "
             "MPI_ERR_BUFFER", sizes[3] * 4, small, lc_class_of(rc), lc_class_name(lc_class_of(rc)));

    /* a message that fits still goes through the small buffer */
    one = lc_pattern(rank, 9, 0);
    LC_MPI(MPI_Bsend(&one, 1, MPI_INT, next, 203, MPI_COMM_WORLD));
    int got = -1;
    LC_MPI(MPI_Recv(&got, 1, MPI_INT, prev, 203, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    LC_CHECK(got == lc_pattern(prev, 9, 0), "Bsend after an MPI_ERR_BUFFER: got %d, expected %d",
             got, lc_pattern(prev, 9, 0));
    LC_MPI(MPI_Buffer_detach(&addr, &dsize));
    LC_CHECK(addr == sb && dsize == small, "second MPI_Buffer_detach gave %p size %d", addr, dsize);

    /* reattach the first buffer: it works again */
    LC_MPI(MPI_Buffer_attach(bbuf, total));
    LC_MPI(MPI_Bsend(&one, 1, MPI_INT, next, 204, MPI_COMM_WORLD));
    LC_MPI(MPI_Recv(&got, 1, MPI_INT, prev, 204, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    LC_CHECK(got == lc_pattern(prev, 9, 0), "Bsend after reattach: got %d", got);
    LC_MPI(MPI_Buffer_detach(&addr, &dsize));

    for (int k = 0; k < NSIZES; k++) {
        free(sbuf[k]);
        free(rbuf[2 * k]);
        free(rbuf[2 * k + 1]);
    }
    free(sb);
    free(bbuf);
    (void)size;
    return lc_finish();
}
