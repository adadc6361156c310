/* SPDX-License-Identifier: BSD-3-Clause */
/* topo_cart: Cartesian topologies.  MPI_Dims_create (the most balanced factors in
 * non-increasing order, fixed entries kept, bad input rejected with the
 * right class); MPI_Cart_create on a 2-D grid of every rank (periodic in
 * dimension 0 only) and on a grid smaller than the communicator; the
 * queries (Topo_test, Cartdim_get, Cart_get, Cart_rank, Cart_coords)
 * against row-major order; MPI_Cart_shift against neighbours computed by
 * hand, and a halo exchange over the shifts; MPI_Cart_sub rows and
 * columns; MPI_Comm_dup keeps the topology; zero dimensions; errors on a
 * communicator without topology. */
#include "lc_test.h"

static void dims_case(int nnodes, int ndims, const int *in, const int *want)
{
    int d[16];
    memcpy(d, in, sizeof(int) * (size_t)ndims);
    LC_MPI(MPI_Dims_create(nnodes, ndims, d));
    for (int i = 0; i < ndims; i++)
        LC_CHECK(d[i] == want[i], "MPI_Dims_create(%d, %d): dims[%d] = %d, expected %d", nnodes, ndims, i, d[i],
                 want[i]);
}

static int err_class(int code)
{
    int cls;
    MPI_Error_class(code, &cls);
    return cls;
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank, size;
    LC_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    LC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* MPI_Dims_create */
    dims_case(6, 2, (int[]){0, 0}, (int[]){3, 2});
    dims_case(12, 2, (int[]){0, 0}, (int[]){4, 3});
    dims_case(16, 3, (int[]){0, 0, 0}, (int[]){4, 2, 2});
    dims_case(7, 2, (int[]){0, 0}, (int[]){7, 1});
    dims_case(24, 3, (int[]){0, 3, 0}, (int[]){4, 3, 2});
    dims_case(36, 2, (int[]){0, 0}, (int[]){6, 6});
    dims_case(1, 3, (int[]){0, 0, 0}, (int[]){1, 1, 1});
    dims_case(8, 2, (int[]){2, 4}, (int[]){2, 4});
    dims_case(8, 2, (int[]){2, 2}, (int[]){2, 2}); /* fixed entries dividing nnodes: kept */
    /* As balanced as possible (smallest spread), not the greedy split of
     * the prime factors (72: 12 x 6); ties go to the more balanced rest,
     * as MPICH's table topo/baddims.h has them. */
    dims_case(72, 2, (int[]){0, 0}, (int[]){9, 8});
    dims_case(540, 2, (int[]){0, 0}, (int[]){27, 20});
    dims_case(671550, 3, (int[]){0, 0, 0}, (int[]){121, 75, 74});
    dims_case(427392, 3, (int[]){0, 0, 0}, (int[]){106, 64, 63});
    dims_case(246672, 4, (int[]){0, 0, 0, 0}, (int[]){571, 9, 8, 6});
    dims_case(1440, 3, (int[]){0, 5, 0}, (int[]){18, 5, 16});
    /* Large inputs answer quickly (the search prunes). */
    dims_case(735134400, 6, (int[]){0, 0, 0, 0, 0, 0}, (int[]){34, 33, 30, 30, 28, 26});
    dims_case(1 << 30, 10, (int[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, (int[]){8, 8, 8, 8, 8, 8, 8, 8, 8, 8});
    int bad[2] = {2, 0};
    LC_CHECK(err_class(MPI_Dims_create(5, 2, bad)) == MPI_ERR_DIMS, "Dims_create(5, {2,0}) not MPI_ERR_DIMS");
    LC_CHECK(err_class(MPI_Dims_create(-1, 2, bad)) == MPI_ERR_ARG, "Dims_create(-1, ...) not MPI_ERR_ARG");
    LC_MPI(MPI_Dims_create(4, 0, bad)); /* nothing to choose: fine (as MPICH) */

    /* No topology on world */
    int status = -1, nd;
    LC_MPI(MPI_Topo_test(MPI_COMM_WORLD, &status));
    LC_CHECK(status == MPI_UNDEFINED, "Topo_test(world) = %d, expected MPI_UNDEFINED", status);
    LC_CHECK(err_class(MPI_Cartdim_get(MPI_COMM_WORLD, &nd)) == MPI_ERR_TOPOLOGY,
             "Cartdim_get(world) not MPI_ERR_TOPOLOGY");

    /* A 2-D grid of every rank, periodic in dimension 0 */
    int dims[2] = {0, 0}, periods[2] = {1, 0};
    LC_MPI(MPI_Dims_create(size, 2, dims));
    MPI_Comm cart;
    LC_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
    LC_CHECK(cart != MPI_COMM_NULL, "rank %d got MPI_COMM_NULL from a grid of all ranks", rank);
    int crank, d2[2], p2[2], c2[2], back;
    LC_MPI(MPI_Comm_rank(cart, &crank));
    LC_MPI(MPI_Topo_test(cart, &status));
    LC_CHECK(status == MPI_CART, "Topo_test(cart) = %d", status);
    LC_MPI(MPI_Cartdim_get(cart, &nd));
    LC_CHECK(nd == 2, "Cartdim_get = %d", nd);
    LC_MPI(MPI_Cart_get(cart, 2, d2, p2, c2));
    LC_CHECK(d2[0] == dims[0] && d2[1] == dims[1] && p2[0] == 1 && p2[1] == 0, "Cart_get dims/periods");
    LC_CHECK(c2[0] == crank / dims[1] && c2[1] == crank % dims[1], "rank %d: coords (%d,%d) not row-major", crank,
             c2[0], c2[1]);
    for (int r = 0; r < size; r++) {
        int c[2];
        LC_MPI(MPI_Cart_coords(cart, r, 2, c));
        LC_MPI(MPI_Cart_rank(cart, c, &back));
        LC_CHECK(back == r && c[0] == r / dims[1] && c[1] == r % dims[1], "coords/rank of %d", r);
    }
    int wrap[2] = {c2[0] + dims[0], c2[1]}; /* periodic: wraps */
    LC_MPI(MPI_Cart_rank(cart, wrap, &back));
    LC_CHECK(back == crank, "Cart_rank of a wrapped coordinate = %d, expected %d", back, crank);
    int outside[2] = {0, dims[1]}; /* non-periodic: out of range */
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    LC_CHECK(MPI_Cart_rank(cart, outside, &back) != MPI_SUCCESS, "Cart_rank outside a non-periodic dim succeeded");
    LC_CHECK(err_class(MPI_Cart_coords(cart, size, 2, c2)) == MPI_ERR_RANK, "Cart_coords(size) not MPI_ERR_RANK");

    /* Shifts, against neighbours computed by hand */
    int src, dst;
    LC_MPI(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    int up = ((c2[0] - 1 + dims[0]) % dims[0]) * dims[1] + c2[1];
    int down = ((c2[0] + 1) % dims[0]) * dims[1] + c2[1];
    LC_CHECK(src == up && dst == down, "shift dim 0: (%d,%d), expected (%d,%d)", src, dst, up, down);
    LC_MPI(MPI_Cart_shift(cart, 1, 1, &src, &dst));
    int left = c2[1] > 0 ? crank - 1 : MPI_PROC_NULL, right = c2[1] < dims[1] - 1 ? crank + 1 : MPI_PROC_NULL;
    LC_CHECK(src == left && dst == right, "shift dim 1: (%d,%d), expected (%d,%d)", src, dst, left, right);
    LC_MPI(MPI_Cart_shift(cart, 1, -2, &src, &dst));
    int l2 = c2[1] + 2 < dims[1] ? crank + 2 : MPI_PROC_NULL, r2 = c2[1] - 2 >= 0 ? crank - 2 : MPI_PROC_NULL;
    LC_CHECK(src == l2 && dst == r2, "shift dim 1 by -2: (%d,%d), expected (%d,%d)", src, dst, l2, r2);
    LC_CHECK(MPI_Cart_shift(cart, 2, 1, &src, &dst) != MPI_SUCCESS, "Cart_shift direction 2 of 2 succeeded");

    /* Halo exchange along both dimensions */
    for (int dim = 0; dim < 2; dim++) {
        int from, to, got = -7;
        LC_MPI(MPI_Cart_shift(cart, dim, 1, &from, &to));
        LC_MPI(MPI_Sendrecv(&crank, 1, MPI_INT, to, dim, &got, 1, MPI_INT, from, dim, cart, MPI_STATUS_IGNORE));
        LC_CHECK(got == (from == MPI_PROC_NULL ? -7 : from), "halo dim %d: got %d from %d", dim, got, from);
    }

    /* Rows and columns */
    for (int keep = 0; keep < 2; keep++) {
        int remain[2] = {keep == 0, keep == 1};
        MPI_Comm sub;
        int sr, ss, sd, sp, sc;
        LC_MPI(MPI_Cart_sub(cart, remain, &sub));
        LC_MPI(MPI_Comm_rank(sub, &sr));
        LC_MPI(MPI_Comm_size(sub, &ss));
        LC_CHECK(ss == dims[keep] && sr == c2[keep], "Cart_sub keep %d: rank %d of %d, expected %d of %d", keep, sr,
                 ss, c2[keep], dims[keep]);
        LC_MPI(MPI_Cartdim_get(sub, &nd));
        LC_MPI(MPI_Cart_get(sub, 1, &sd, &sp, &sc));
        LC_CHECK(nd == 1 && sd == dims[keep] && sp == periods[keep] && sc == sr, "Cart_sub keep %d: topology", keep);
        int sum = 0;
        LC_MPI(MPI_Allreduce(&crank, &sum, 1, MPI_INT, MPI_SUM, sub));
        int want = 0;
        for (int i = 0; i < dims[keep]; i++)
            want += keep == 0 ? i * dims[1] + c2[1] : c2[0] * dims[1] + i;
        LC_CHECK(sum == want, "Cart_sub keep %d: members sum to %d, expected %d", keep, sum, want);
        LC_MPI(MPI_Comm_free(&sub));
    }

    /* A duplicate keeps the topology */
    MPI_Comm dup;
    LC_MPI(MPI_Comm_dup(cart, &dup));
    LC_MPI(MPI_Topo_test(dup, &status));
    LC_MPI(MPI_Cart_get(dup, 2, d2, p2, c2));
    LC_CHECK(status == MPI_CART && d2[0] == dims[0] && d2[1] == dims[1], "dup lost the topology");
    LC_MPI(MPI_Comm_free(&dup));
    LC_MPI(MPI_Comm_free(&cart));

    /* A grid smaller than the communicator: the others get MPI_COMM_NULL */
    int line = size > 1 ? size - 1 : 1, per = 0;
    LC_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &line, &per, 0, &cart));
    LC_CHECK((rank < line) == (cart != MPI_COMM_NULL), "rank %d of a %d-rank line: membership wrong", rank, line);
    if (cart != MPI_COMM_NULL) LC_MPI(MPI_Comm_free(&cart));

    /* Zero dimensions: rank 0 alone */
    LC_MPI(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart));
    LC_CHECK((rank == 0) == (cart != MPI_COMM_NULL), "rank %d: zero-dimensional grid membership wrong", rank);
    if (cart != MPI_COMM_NULL) {
        int n0;
        LC_MPI(MPI_Comm_size(cart, &n0));
        LC_MPI(MPI_Cartdim_get(cart, &nd));
        LC_CHECK(n0 == 1 && nd == 0, "zero-dimensional grid: size %d, ndims %d", n0, nd);
        LC_MPI(MPI_Comm_free(&cart));
    }

    /* A grid larger than the communicator is refused */
    int too_big = size + 1;
    LC_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &too_big, &per, 0, &cart) != MPI_SUCCESS,
             "Cart_create of %d cells on %d ranks succeeded", too_big, size);

    return lc_finish();
}
