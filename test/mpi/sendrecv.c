/* SPDX-License-Identifier: BSD-3-Clause */
/* sendrecv: MPI_Sendrecv and MPI_Sendrecv_replace.  Rings at every
 * shift (each rank sends to rank+k and receives from rank-k, k = 0 is
 * to itself), sizes from 0 to rendezvous, receive buffer larger than the
 * message, ANY_SOURCE or ANY_TAG on the receive side, float bit
 * patterns (-0.0, denormal-range values) preserved, and the in-place
 * replace variant. */
#include "lc_test.h"

static const int sizes[] = {0, 1, 333, 40000};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    int32_t *sbuf = lc_malloc(sizeof(int32_t) * 40010), *rbuf = lc_malloc(sizeof(int32_t) * 40010);

    for (int shift = 0; shift < size; shift++) {
        int dest = (rank + shift) % size, src = (rank + size - shift) % size;
        for (int k = 0; k < NSIZES; k++) {
            int n = sizes[k];
            MPI_Status st;
            int c = -1;
            for (int i = 0; i < n; i++)
                sbuf[i] = lc_pattern(rank, k, i);
            for (int i = 0; i < n + 10; i++)
                rbuf[i] = -7;
            /* wildcards only where the match is still unique: the tag
             * names the round, and one source sends per round */
            int mode = (k + shift) % 3, tag = shift * 16 + k;
            LC_MPI(MPI_Sendrecv(sbuf, n, MPI_INT, dest, tag, rbuf, n + 10, MPI_INT,
                                mode == 1 ? MPI_ANY_SOURCE : src, mode == 2 ? MPI_ANY_TAG : tag,
                                MPI_COMM_WORLD, &st));
            LC_MPI(MPI_Get_count(&st, MPI_INT, &c));
            LC_CHECK(c == n && st.MPI_SOURCE == src && st.MPI_TAG == tag,
                     "Sendrecv shift %d size %d: count %d source %d tag %d", shift, n, c,
                     st.MPI_SOURCE, st.MPI_TAG);
            for (int i = 0; i < n + 10; i++) {
                int32_t want = i < n ? lc_pattern(src, k, i) : -7;
                if (rbuf[i] != want) {
                    LC_CHECK(0, "Sendrecv shift %d size %d: int %d is %d, expected %d", shift, n,
                             i, rbuf[i], want);
                    break;
                }
            }

            /* replace: the buffer goes out and comes back refilled */
            for (int i = 0; i < n; i++)
                rbuf[i] = lc_pattern(rank, 100 + k, i);
            LC_MPI(MPI_Sendrecv_replace(rbuf, n, MPI_INT, dest, 50 + k, src, 50 + k,
                                        MPI_COMM_WORLD, &st));
            LC_MPI(MPI_Get_count(&st, MPI_INT, &c));
            LC_CHECK(c == n && st.MPI_SOURCE == src, "Sendrecv_replace shift %d size %d: count %d "
                     "source %d", shift, n, c, st.MPI_SOURCE);
            for (int i = 0; i < n; i++)
                if (rbuf[i] != lc_pattern(src, 100 + k, i)) {
                    LC_CHECK(0, "Sendrecv_replace shift %d size %d: int %d is %d, expected %d",
                             shift, n, i, rbuf[i], lc_pattern(src, 100 + k, i));
                    break;
                }
        }
    }

    /* floats travel bit-exact */
    float f[3] = {1.5f, -0.0f, 3.25e-20f}, g[3] = {0, 0, 0};
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    LC_MPI(MPI_Sendrecv(f, 3, MPI_FLOAT, next, 9, g, 3, MPI_FLOAT, prev, 9, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    LC_CHECK(memcmp(f, g, sizeof f) == 0, "floats changed in transit");
    free(sbuf);
    free(rbuf);
    return lc_finish();
}
