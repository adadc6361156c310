/* SPDX-License-Identifier: BSD-3-Clause */
/* isendrecv: MPI_Isendrecv and MPI_Isendrecv_replace (and their _c
 * forms) around a ring, eager (16 ints) and rendezvous (1 MiB) sized,
 * completed by Wait, by a Test loop and by Waitall of two; data and
 * status (source, tag, count); MPI_PROC_NULL on both sides; the replace
 * form sends what the buffer held at the call; MPI_Request_free of one
 * still running. */
#include "lc_test.h"

#include <stdlib.h>

static void ring(int rank, int size, int n, int mode)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *s = lc_malloc(sizeof(int) * (size_t)n), *r = lc_malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        s[i] = lc_pattern(rank, mode, i);
        r[i] = -1;
    }
    MPI_Request req[2];
    MPI_Status st;
    switch (mode) {
    case 0: /* Isendrecv + Wait */
        LC_MPI(MPI_Isendrecv(s, n, MPI_INT, right, 5, r, n, MPI_INT, left, 5, MPI_COMM_WORLD, &req[0]));
        LC_MPI(MPI_Wait(&req[0], &st));
        break;
    case 1: { /* Isendrecv_c + Test loop */
        int flag = 0;
        LC_MPI(MPI_Isendrecv_c(s, n, MPI_INT, right, 5, r, n, MPI_INT, left, 5, MPI_COMM_WORLD, &req[0]));
        while (!flag) LC_MPI(MPI_Test(&req[0], &flag, &st));
        LC_CHECK(req[0] == MPI_REQUEST_NULL, "Test left the request handle set");
        break;
    }
    case 2: /* Isendrecv_replace + Waitall with a second one the other way */
        memcpy(r, s, sizeof(int) * (size_t)n);
        LC_MPI(MPI_Isendrecv_replace(r, n, MPI_INT, right, 5, left, 5, MPI_COMM_WORLD, &req[0]));
        /* the buffer may change now, the message sent may not */
        LC_MPI(MPI_Isendrecv_replace(s, n, MPI_INT, left, 6, right, 6, MPI_COMM_WORLD, &req[1]));
        {
            MPI_Status sts[2];
            LC_MPI(MPI_Waitall(2, req, sts));
            st = sts[0];
            for (int i = 0; i < n; i++) {
                int want = lc_pattern(right, mode, i);
                if (s[i] != want) {
                    LC_CHECK(0, "Isendrecv_replace (back): [%d] = %d, expected %d", i, s[i], want);
                    break;
                }
            }
        }
        break;
    default: /* Isendrecv_replace_c + Wait */
        memcpy(r, s, sizeof(int) * (size_t)n);
        LC_MPI(MPI_Isendrecv_replace_c(r, n, MPI_INT, right, 5, left, 5, MPI_COMM_WORLD, &req[0]));
        LC_MPI(MPI_Wait(&req[0], &st));
        break;
    }
    for (int i = 0; i < n; i++) {
        int want = lc_pattern(left, mode, i);
        if (r[i] != want) {
            LC_CHECK(0, "mode %d, %d ints: [%d] = %d, expected %d", mode, n, i, r[i], want);
            break;
        }
    }
    int count;
    LC_MPI(MPI_Get_count(&st, MPI_INT, &count));
    if (!lc_library_is_mpich()) /* MPICH 4.0.2 returns an empty status from Isendrecv */
        LC_CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5 && count == n, "mode %d: status %d/%d/%d, expected %d/5/%d",
                 mode, st.MPI_SOURCE, st.MPI_TAG, count, left, n);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank, size;
    LC_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    LC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    for (int mode = 0; mode < 4; mode++) {
        ring(rank, size, 16, mode);
        ring(rank, size, 1 << 18, mode);
    }

    /* MPI_Request_free of a running Isendrecv_replace: the exchange still
     * happens (the next message on the same pair arrives after it) */
    {
        int right = (rank + 1) % size, left = (rank + size - 1) % size, v = rank, w = -1;
        MPI_Request fr;
        LC_MPI(MPI_Isendrecv_replace(&v, 1, MPI_INT, right, 9, left, 9, MPI_COMM_WORLD, &fr));
        if (lc_library_is_mpich()) /* MPICH 4.0.2 refuses to free an Isendrecv request */
            LC_MPI(MPI_Wait(&fr, MPI_STATUS_IGNORE));
        else
            LC_MPI(MPI_Request_free(&fr));
        LC_CHECK(fr == MPI_REQUEST_NULL, "Request_free left the handle set");
        LC_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 9, &w, 1, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        LC_CHECK(w == left, "message after a freed Isendrecv_replace: %d, expected %d", w, left);
        LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }

    /* MPI_PROC_NULL both ways: completes, buffer untouched (MPICH 4.0.2
     * crashes in MPI_Isendrecv to MPI_PROC_NULL) */
    if (lc_library_is_mpich()) return lc_finish();
    int x = 7, y = 9;
    MPI_Request req;
    MPI_Status st;
    LC_MPI(MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
    LC_MPI(MPI_Wait(&req, &st));
    LC_CHECK(y == 9, "receive from MPI_PROC_NULL wrote the buffer");
    LC_CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "PROC_NULL status %d/%d", st.MPI_SOURCE,
             st.MPI_TAG);
    LC_MPI(MPI_Isendrecv_replace(&y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
    LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    LC_CHECK(y == 9, "replace with MPI_PROC_NULL changed the buffer");
    return lc_finish();
}
