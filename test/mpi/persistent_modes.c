/* SPDX-License-Identifier: BSD-3-Clause */
/* persistent_modes.c: MPI_Ssend_init, MPI_Rsend_init and MPI_Bsend_init
 * restarted several times, and MPI_Pack_size sizing the Bsend buffer.
 * Rank pairs (0,1), (2,3), ...; an odd last rank sends to itself. */
#include "lc_test.h"

#define N 1000
#define ROUNDS 5

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    int peer = rank ^ 1;
    if (peer >= size) peer = rank;

    int packed = -1;
    LC_MPI(MPI_Pack_size(N, MPI_INT, MPI_COMM_WORLD, &packed));
    LC_CHECK(packed >= N * (int)sizeof(int), "MPI_Pack_size(%d ints) = %d", N, packed);
    int bufsize = packed + MPI_BSEND_OVERHEAD;
    void *attached = malloc((size_t)bufsize);
    LC_MPI(MPI_Buffer_attach(attached, bufsize));

    int out[3][N], in[3][N];
    MPI_Request req[6];
    LC_MPI(MPI_Ssend_init(out[0], N, MPI_INT, peer, 10, MPI_COMM_WORLD, &req[0]));
    LC_MPI(MPI_Rsend_init(out[1], N, MPI_INT, peer, 11, MPI_COMM_WORLD, &req[1]));
    LC_MPI(MPI_Bsend_init(out[2], N, MPI_INT, peer, 12, MPI_COMM_WORLD, &req[2]));
    for (int k = 0; k < 3; k++)
        LC_MPI(MPI_Recv_init(in[k], N, MPI_INT, peer, 10 + k, MPI_COMM_WORLD, &req[3 + k]));

    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < N; i++) {
                out[k][i] = rank * 1000000 + round * 10000 + k * 1000 + i;
                in[k][i] = -1;
            }
        /* Receives first, and a barrier, so that the ready send is legal. */
        LC_MPI(MPI_Startall(3, &req[3]));
        LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
        LC_MPI(MPI_Startall(3, req));
        LC_MPI(MPI_Waitall(6, req, MPI_STATUSES_IGNORE));
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < N; i++) {
                int want = peer * 1000000 + round * 10000 + k * 1000 + i;
                if (in[k][i] != want) {
                    LC_CHECK(0, "round %d mode %d item %d: got %d, want %d", round, k, i, in[k][i], want);
                    break;
                }
            }
        /* The buffered message left the buffer: the next Start fits again. */
        LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    for (int k = 0; k < 6; k++) LC_MPI(MPI_Request_free(&req[k]));
    void *detached;
    int detached_size;
    LC_MPI(MPI_Buffer_detach(&detached, &detached_size));
    LC_CHECK(detached == attached && detached_size == bufsize, "Buffer_detach gave %p/%d", detached,
             detached_size);
    free(attached);
    return lc_finish();
}
