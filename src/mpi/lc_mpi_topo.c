/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_topo.c — Cartesian process topologies (MPI 4.1 §8.5):
 * MPI_Dims_create, MPI_Cart_create and its queries, MPI_Cart_shift,
 * MPI_Cart_sub, MPI_Topo_test.
 *
 * Ranks are laid out in row-major order (the last dimension varies
 * fastest) and are not reordered: `reorder` is allowed to be ignored, and
 * Locus' channels are chosen per pair already.  Graph and distributed
 * graph topologies: lc_mpi_topo_graph.c, lc_mpi_topo_dist.c.
 */
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_comm.h"

#include <stdlib.h>
#include <string.h>

lc_cart_t *lc_cart_new(int ndims, const int *dims, const int *periods)
{
    lc_cart_t *t = malloc(sizeof(*t) + 2 * sizeof(int) * (size_t)ndims);
    if (!t) return NULL;
    t->ndims = ndims;
    t->dims = (int *)(t + 1);
    t->periods = t->dims + ndims;
    for (int i = 0; i < ndims; i++) {
        t->dims[i] = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    return t;
}

/* The communicator's Cartesian topology: MPI_SUCCESS, or a code (a bad
 * communicator, or MPI_ERR_TOPOLOGY).  *c_p is set as soon as the
 * communicator is known, so the caller's handler is the right one. */
static int lc_cart_of(MPI_Comm comm, lc_comm_t **c_p, const lc_cart_t **t_p)
{
    int rc = lc_check_comm(comm, c_p);
    if (rc != MPI_SUCCESS) return rc;
    *t_p = (*c_p)->cart;
    if (!*t_p)
        return lc_error(MPI_ERR_TOPOLOGY, "the communicator has no Cartesian topology (make one with MPI_Cart_create)");
    return MPI_SUCCESS;
}

static void lc_cart_coords(const lc_cart_t *t, int rank, int *coords, int maxdims)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        if (i < maxdims) coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* ---- MPI_Dims_create ---------------------------------------------------- */

/* Check dims[] against nnodes: the fixed entries must divide it.  *left_p:
 * nnodes over their product, *free_p: the number of zero entries. */
static int lc_dims_check(int nnodes, int ndims, const int dims[], int *left_p, int *free_p)
{
    int left = nnodes, free_dims = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0) return lc_error(MPI_ERR_DIMS, "dims[%d] = %d is negative", i, dims[i]);
        if (dims[i] == 0) {
            free_dims++;
        } else if (left % dims[i] != 0) {
            return lc_error(MPI_ERR_DIMS, "the fixed dims do not divide nnodes %d (dims[%d] = %d)", nnodes, i,
                            dims[i]);
        } else {
            left /= dims[i];
        }
    }
    *left_p = left;
    *free_p = free_dims;
    return MPI_SUCCESS;
}

/* Prime factors of what is left, largest first, each given to the free
 * dimension with the smallest product so far: as balanced as the factors
 * allow.  Then the free dimensions in non-increasing order. */
static int lc_dims_fill(int left, int free_dims, int ndims, int dims[])
{
    int *f = malloc(sizeof(int) * (size_t)free_dims);
    if (!f) return lc_error(MPI_ERR_NO_MEM, "out of memory");
    int prime[32], nprime = 0; /* an int has at most 31 prime factors */
    for (int p = 2, n = left; n > 1;) {
        if ((long)p * p > n) p = n; /* n is prime */
        if (n % p == 0) {
            prime[nprime++] = p;
            n /= p;
        } else {
            p++;
        }
    }
    for (int i = 0; i < free_dims; i++) f[i] = 1;
    for (int k = nprime - 1; k >= 0; k--) {
        int low = 0;
        for (int i = 1; i < free_dims; i++)
            if (f[i] < f[low]) low = i;
        f[low] *= prime[k];
    }
    for (int i = 1; i < free_dims; i++) /* insertion sort, descending */
        for (int j = i; j > 0 && f[j] > f[j - 1]; j--) {
            int x = f[j];
            f[j] = f[j - 1];
            f[j - 1] = x;
        }
    for (int i = 0, k = 0; i < ndims; i++)
        if (dims[i] == 0) dims[i] = f[k++];
    free(f);
    return MPI_SUCCESS;
}

LC_API int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    int left = 0, free_dims = 0, rc;
    if (nnodes <= 0) LC_TRY(lc_error(MPI_ERR_ARG, "nnodes %d is not positive", nnodes));
    if (ndims < 0) LC_TRY(lc_error(MPI_ERR_DIMS, "ndims %d is negative", ndims));
    if (ndims > 0) LC_TRY(lc_check_ptr(dims, "dims"));
    LC_TRY(lc_dims_check(nnodes, ndims, dims, &left, &free_dims));
    /* Nothing to choose.  (A product below nnodes is not an error: the
     * standard only asks that the fixed entries divide nnodes.) */
    if (free_dims > 0) LC_TRY(lc_dims_fill(left, free_dims, ndims, dims));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Dims_create", rc);
}
LC_MPI_ALIAS(Dims_create);

/* ---- MPI_Cart_create ---------------------------------------------------- */

/* The number of grid cells; MPI_ERR_DIMS / MPI_ERR_ARG when a dimension is
 * not positive or the grid is larger than the communicator. */
static int lc_cart_cells(const lc_comm_t *c, int ndims, const int dims[], long *cells_p)
{
    long cells = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0) return lc_error(MPI_ERR_DIMS, "dims[%d] = %d is not positive", i, dims[i]);
        cells *= dims[i];
        if (cells > c->size)
            return lc_error(MPI_ERR_ARG, "the grid has more cells than the communicator has ranks (%d): use "
                                         "MPI_Dims_create", c->size);
    }
    *cells_p = cells;
    return MPI_SUCCESS;
}

LC_API int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                            MPI_Comm *comm_cart)
{
    (void)reorder; /* allowed to be ignored: ranks keep their order */
    lc_comm_t *c = NULL, *n = NULL;
    long cells = 0;
    int rc;
    LC_TRY(lc_check_comm(comm_old, &c));
    LC_TRY(lc_check_intra(c, "MPI_Cart_create (a Cartesian topology)"));
    LC_TRY(lc_check_ptr(comm_cart, "comm_cart"));
    if (ndims < 0) LC_TRY(lc_error(MPI_ERR_DIMS, "ndims %d is negative", ndims));
    if (ndims > 0) LC_TRY(lc_check_ptr(dims, "dims"));
    if (ndims > 0) LC_TRY(lc_check_ptr(periods, "periods"));
    LC_TRY(lc_cart_cells(c, ndims, dims, &cells));
    /* Ranks 0 .. cells-1 of comm_old, in order; the others get
     * MPI_COMM_NULL but take part in the context-id agreement. */
    int member = c->rank < cells;
    LC_TRY(lc_mpi_comm_derive(c, member ? c->rank : 0, member ? (int)cells : 0, c->world_ranks, &n));
    if (n && !(n->cart = lc_cart_new(ndims, dims, periods))) {
        lc_comm_free_handle(n);
        LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory for a %d-dimensional topology", ndims));
    }
    *comm_cart = n ? n->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Cart_create", rc);
}
LC_MPI_ALIAS(Cart_create);

/* ---- queries ------------------------------------------------------------ */

LC_API int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(status, "status"));
    *status = c->cart ? MPI_CART : c->graph ? c->graph->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Topo_test", rc);
}
LC_MPI_ALIAS(Topo_test);

LC_API int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    lc_comm_t *c = NULL;
    const lc_cart_t *t;
    int rc;
    LC_TRY(lc_cart_of(comm, &c, &t));
    LC_TRY(lc_check_ptr(ndims, "ndims"));
    *ndims = t->ndims;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Cartdim_get", rc);
}
LC_MPI_ALIAS(Cartdim_get);

LC_API int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    lc_comm_t *c = NULL;
    const lc_cart_t *t;
    int rc;
    LC_TRY(lc_cart_of(comm, &c, &t));
    if (maxdims < 0) LC_TRY(lc_error(MPI_ERR_ARG, "maxdims %d is negative", maxdims));
    int n = maxdims < t->ndims ? maxdims : t->ndims;
    if (n > 0) {
        LC_TRY(lc_check_ptr(dims, "dims"));
        LC_TRY(lc_check_ptr(periods, "periods"));
        LC_TRY(lc_check_ptr(coords, "coords"));
    }
    for (int i = 0; i < n; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
    }
    if (n > 0) lc_cart_coords(t, c->rank, coords, n);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Cart_get", rc);
}
LC_MPI_ALIAS(Cart_get);

/* The rank at coords[]: periodic dimensions wrap, others must contain it. */
static int lc_cart_rank_of(const lc_cart_t *t, const int coords[], int *rank_p)
{
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int x = coords[i], d = t->dims[i];
        if (t->periods[i]) {
            x %= d;
            if (x < 0) x += d;
        } else if (x < 0 || x >= d) {
            return lc_error(MPI_ERR_ARG, "coords[%d] = %d is outside 0..%d of a non-periodic dimension", i,
                            coords[i], d - 1);
        }
        r = r * d + x;
    }
    *rank_p = r;
    return MPI_SUCCESS;
}

LC_API int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    lc_comm_t *c = NULL;
    const lc_cart_t *t;
    int rc;
    LC_TRY(lc_cart_of(comm, &c, &t));
    LC_TRY(lc_check_ptr(rank, "rank"));
    if (t->ndims > 0) LC_TRY(lc_check_ptr(coords, "coords"));
    LC_TRY(lc_cart_rank_of(t, coords, rank));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Cart_rank", rc);
}
LC_MPI_ALIAS(Cart_rank);

LC_API int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    lc_comm_t *c = NULL;
    const lc_cart_t *t;
    int rc;
    LC_TRY(lc_cart_of(comm, &c, &t));
    if (rank < 0 || rank >= c->size)
        LC_TRY(lc_error(MPI_ERR_RANK, "rank %d is outside 0..%d", rank, c->size - 1));
    if (maxdims < t->ndims)
        LC_TRY(lc_error(MPI_ERR_ARG, "maxdims %d is below the topology's %d dimensions", maxdims, t->ndims));
    if (t->ndims > 0) LC_TRY(lc_check_ptr(coords, "coords"));
    lc_cart_coords(t, rank, coords, t->ndims);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Cart_coords", rc);
}
LC_MPI_ALIAS(Cart_coords);

LC_API int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    lc_comm_t *c = NULL;
    const lc_cart_t *t;
    int rc;
    LC_TRY(lc_cart_of(comm, &c, &t));
    if (direction < 0 || direction >= t->ndims)
        LC_TRY(lc_error(MPI_ERR_ARG, "direction %d is outside 0..%d", direction, t->ndims - 1));
    LC_TRY(lc_check_ptr(rank_source, "rank_source"));
    LC_TRY(lc_check_ptr(rank_dest, "rank_dest"));
    /* Row-major: a step along `direction` moves the rank by the product
     * of the dimensions after it. */
    int stride = 1;
    for (int i = direction + 1; i < t->ndims; i++) stride *= t->dims[i];
    int d = t->dims[direction], x = (c->rank / stride) % d;
    int ends[2] = { x - disp, x + disp }, *out[2] = { rank_source, rank_dest };
    for (int k = 0; k < 2; k++) {
        int y = ends[k];
        if (t->periods[direction]) {
            y %= d;
            if (y < 0) y += d;
        } else if (y < 0 || y >= d) {
            *out[k] = MPI_PROC_NULL;
            continue;
        }
        *out[k] = c->rank + (y - x) * stride;
    }
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Cart_shift", rc);
}
LC_MPI_ALIAS(Cart_shift);

/* ---- MPI_Cart_sub ------------------------------------------------------- */

/* Ranks that agree on the dropped coordinates form one subgrid (color);
 * within it, row-major order of the kept ones (key).  The kept dimensions
 * go to sub (nsub of them); coords is scratch of ndims entries. */
static void lc_cart_sub_split(const lc_cart_t *t, int rank, const int remain_dims[], int *coords, int *color_p,
                              int *key_p, int *dims, int *periods, int *nsub_p)
{
    int color = 0, key = 0, nsub = 0;
    lc_cart_coords(t, rank, coords, t->ndims);
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            key = key * t->dims[i] + coords[i];
            dims[nsub] = t->dims[i];
            periods[nsub++] = t->periods[i];
        } else {
            color = color * t->dims[i] + coords[i];
        }
    }
    *color_p = color;
    *key_p = key;
    *nsub_p = nsub;
}

LC_API int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    lc_comm_t *c = NULL, *n;
    const lc_cart_t *t;
    MPI_Comm out;
    int *scratch = NULL, rc, color, key, nsub;
    LC_TRY(lc_cart_of(comm, &c, &t));
    LC_TRY(lc_check_ptr(newcomm, "newcomm"));
    if (t->ndims > 0) LC_TRY(lc_check_ptr(remain_dims, "remain_dims"));
    scratch = malloc(sizeof(int) * 3 * (size_t)(t->ndims + 1));
    if (!scratch) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory"));
    int *coords = scratch, *dims = coords + t->ndims + 1, *periods = dims + t->ndims + 1;
    lc_cart_sub_split(t, c->rank, remain_dims, coords, &color, &key, dims, periods, &nsub);
    rc = PMPI_Comm_split(comm, color, key, &out);
    if (rc != MPI_SUCCESS) { /* reported by MPI_Comm_split */
        free(scratch);
        return rc;
    }
    n = lc_comm_lookup(out);
    n->cart = lc_cart_new(nsub, dims, periods);
    free(scratch);
    scratch = NULL;
    if (!n->cart) {
        lc_comm_free_handle(n);
        LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory for a topology"));
    }
    *newcomm = out;
    return MPI_SUCCESS;
err:
    free(scratch);
    return lc_mpi_error(c, "MPI_Cart_sub", rc);
}
LC_MPI_ALIAS(Cart_sub);
