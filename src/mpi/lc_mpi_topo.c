/*
 * lc_mpi_topo.c — Cartesian process topologies (MPI 4.1 §8.5):
 * MPI_Dims_create, MPI_Cart_create and its queries, MPI_Cart_shift,
 * MPI_Cart_sub, MPI_Topo_test.
 *
 * Ranks are laid out in row-major order (the last dimension varies
 * fastest) and are not reordered: `reorder` is allowed to be ignored, and
 * Locus' channels are chosen per pair already.  Graph and distributed
 * graph topologies are not implemented (not exported).
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

/* The communicator's Cartesian topology, or an MPI_ERR_TOPOLOGY. */
static int lc_cart_of(MPI_Comm comm, const char *func, lc_comm_t **c_p, const lc_cart_t **t_p)
{
    int rc = lc_check_comm(comm, c_p);
    if (rc) return lc_mpi_error(NULL, func, rc);
    *t_p = (*c_p)->cart;
    if (!*t_p)
        return lc_mpi_error(*c_p, func, lc_error(MPI_ERR_TOPOLOGY, "the communicator has no Cartesian topology "
                                                                   "(make one with MPI_Cart_create)"));
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

LC_API int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    const char *fn = "MPI_Dims_create";
    if (nnodes <= 0) return lc_mpi_error(NULL, fn, lc_error(MPI_ERR_ARG, "nnodes %d is not positive", nnodes));
    if (ndims < 0) return lc_mpi_error(NULL, fn, lc_error(MPI_ERR_DIMS, "ndims %d is negative", ndims));
    if (ndims > 0 && !dims) return lc_mpi_error(NULL, fn, lc_error(MPI_ERR_ARG, "dims is NULL"));
    int left = nnodes, free_dims = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return lc_mpi_error(NULL, fn, lc_error(MPI_ERR_DIMS, "dims[%d] = %d is negative", i, dims[i]));
        if (dims[i] == 0) {
            free_dims++;
        } else if (left % dims[i] != 0) {
            return lc_mpi_error(NULL, fn, lc_error(MPI_ERR_DIMS, "the fixed dims do not divide nnodes %d (dims[%d] "
                                                                 "= %d)", nnodes, i, dims[i]));
        } else {
            left /= dims[i];
        }
    }
    /* Nothing to choose.  (A product below nnodes is not an error: the
     * standard only asks that the fixed entries divide nnodes.) */
    if (free_dims == 0) return MPI_SUCCESS;
    /* Prime factors of what is left, largest first, each given to the
     * free dimension with the smallest product so far: as balanced as the
     * factors allow.  Then the free dimensions in non-increasing order. */
    int *f = malloc(sizeof(int) * (size_t)free_dims);
    if (!f) return lc_mpi_error(NULL, fn, lc_error(MPI_ERR_NO_MEM, "out of memory"));
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
LC_MPI_ALIAS(Dims_create);

/* ---- MPI_Cart_create ---------------------------------------------------- */

LC_API int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                            MPI_Comm *comm_cart)
{
    const char *fn = "MPI_Cart_create";
    (void)reorder; /* allowed to be ignored: ranks keep their order */
    lc_comm_t *c, *n = NULL;
    int rc = lc_check_comm(comm_old, &c);
    if (rc) return lc_mpi_error(NULL, fn, rc);
    if (!comm_cart) return lc_mpi_error(c, fn, lc_error(MPI_ERR_ARG, "comm_cart is NULL"));
    if (ndims < 0) return lc_mpi_error(c, fn, lc_error(MPI_ERR_DIMS, "ndims %d is negative", ndims));
    if (ndims > 0 && (!dims || !periods))
        return lc_mpi_error(c, fn, lc_error(MPI_ERR_ARG, "dims or periods is NULL"));
    long cells = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return lc_mpi_error(c, fn, lc_error(MPI_ERR_DIMS, "dims[%d] = %d is not positive", i, dims[i]));
        cells *= dims[i];
        if (cells > c->size)
            return lc_mpi_error(c, fn, lc_error(MPI_ERR_ARG, "the grid has more cells than the communicator "
                                                             "has ranks (%d): use MPI_Dims_create", c->size));
    }
    /* Ranks 0 .. cells-1 of comm_old, in order; the others get
     * MPI_COMM_NULL but take part in the context-id agreement. */
    int member = c->rank < cells;
    rc = lc_mpi_comm_derive(c, member ? c->rank : 0, member ? (int)cells : 0, c->world_ranks, &n);
    if (rc) return lc_mpi_error(c, fn, rc);
    if (n && !(n->cart = lc_cart_new(ndims, dims, periods))) {
        lc_comm_free_handle(n);
        return lc_mpi_error(c, fn, lc_error(MPI_ERR_NO_MEM, "out of memory for a %d-dimensional topology", ndims));
    }
    *comm_cart = n ? n->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Cart_create);

/* ---- queries ------------------------------------------------------------ */

LC_API int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    lc_comm_t *c;
    int rc = lc_check_comm(comm, &c);
    if (rc) return lc_mpi_error(NULL, "MPI_Topo_test", rc);
    if (!status) return lc_mpi_error(c, "MPI_Topo_test", lc_error(MPI_ERR_ARG, "status is NULL"));
    *status = c->cart ? MPI_CART : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Topo_test);

LC_API int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    lc_comm_t *c;
    const lc_cart_t *t;
    int rc = lc_cart_of(comm, "MPI_Cartdim_get", &c, &t);
    if (rc) return rc;
    if (!ndims) return lc_mpi_error(c, "MPI_Cartdim_get", lc_error(MPI_ERR_ARG, "ndims is NULL"));
    *ndims = t->ndims;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Cartdim_get);

LC_API int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    lc_comm_t *c;
    const lc_cart_t *t;
    int rc = lc_cart_of(comm, "MPI_Cart_get", &c, &t);
    if (rc) return rc;
    if (maxdims < 0) return lc_mpi_error(c, "MPI_Cart_get", lc_error(MPI_ERR_ARG, "maxdims %d is negative", maxdims));
    int n = maxdims < t->ndims ? maxdims : t->ndims;
    if (n > 0 && (!dims || !periods || !coords))
        return lc_mpi_error(c, "MPI_Cart_get", lc_error(MPI_ERR_ARG, "dims, periods or coords is NULL"));
    for (int i = 0; i < n; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
    }
    if (n > 0) lc_cart_coords(t, c->rank, coords, n);
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Cart_get);

LC_API int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    const char *fn = "MPI_Cart_rank";
    lc_comm_t *c;
    const lc_cart_t *t;
    int rc = lc_cart_of(comm, fn, &c, &t);
    if (rc) return rc;
    if (!rank || (t->ndims > 0 && !coords)) return lc_mpi_error(c, fn, lc_error(MPI_ERR_ARG, "coords or rank is NULL"));
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int x = coords[i], d = t->dims[i];
        if (t->periods[i]) {
            x %= d;
            if (x < 0) x += d;
        } else if (x < 0 || x >= d) {
            return lc_mpi_error(c, fn, lc_error(MPI_ERR_ARG, "coords[%d] = %d is outside 0..%d of a non-periodic "
                                                             "dimension", i, coords[i], d - 1));
        }
        r = r * d + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Cart_rank);

LC_API int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    const char *fn = "MPI_Cart_coords";
    lc_comm_t *c;
    const lc_cart_t *t;
    int rc = lc_cart_of(comm, fn, &c, &t);
    if (rc) return rc;
    if (rank < 0 || rank >= c->size)
        return lc_mpi_error(c, fn, lc_error(MPI_ERR_RANK, "rank %d is outside 0..%d", rank, c->size - 1));
    if (maxdims < t->ndims)
        return lc_mpi_error(c, fn, lc_error(MPI_ERR_ARG, "maxdims %d is below the topology's %d dimensions",
                                            maxdims, t->ndims));
    if (t->ndims > 0 && !coords) return lc_mpi_error(c, fn, lc_error(MPI_ERR_ARG, "coords is NULL"));
    lc_cart_coords(t, rank, coords, t->ndims);
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Cart_coords);

LC_API int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    const char *fn = "MPI_Cart_shift";
    lc_comm_t *c;
    const lc_cart_t *t;
    int rc = lc_cart_of(comm, fn, &c, &t);
    if (rc) return rc;
    if (direction < 0 || direction >= t->ndims)
        return lc_mpi_error(c, fn, lc_error(MPI_ERR_ARG, "direction %d is outside 0..%d", direction, t->ndims - 1));
    if (!rank_source || !rank_dest)
        return lc_mpi_error(c, fn, lc_error(MPI_ERR_ARG, "rank_source or rank_dest is NULL"));
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
}
LC_MPI_ALIAS(Cart_shift);

/* ---- MPI_Cart_sub ------------------------------------------------------- */

LC_API int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    const char *fn = "MPI_Cart_sub";
    lc_comm_t *c;
    const lc_cart_t *t;
    int rc = lc_cart_of(comm, fn, &c, &t);
    if (rc) return rc;
    if (!newcomm || (t->ndims > 0 && !remain_dims))
        return lc_mpi_error(c, fn, lc_error(MPI_ERR_ARG, "remain_dims or newcomm is NULL"));
    /* Ranks that agree on the dropped coordinates form one subgrid
     * (color); within it, row-major order of the kept ones (key). */
    int *coords = malloc(sizeof(int) * 3 * (size_t)(t->ndims + 1));
    if (!coords) return lc_mpi_error(c, fn, lc_error(MPI_ERR_NO_MEM, "out of memory"));
    int *dims = coords + t->ndims + 1, *periods = dims + t->ndims + 1;
    lc_cart_coords(t, c->rank, coords, t->ndims);
    int color = 0, key = 0, nsub = 0;
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            key = key * t->dims[i] + coords[i];
            dims[nsub] = t->dims[i];
            periods[nsub++] = t->periods[i];
        } else {
            color = color * t->dims[i] + coords[i];
        }
    }
    MPI_Comm out;
    rc = PMPI_Comm_split(comm, color, key, &out);
    lc_comm_t *n = rc == MPI_SUCCESS ? lc_comm_lookup(out) : NULL;
    if (n) n->cart = lc_cart_new(nsub, dims, periods);
    free(coords);
    if (rc != MPI_SUCCESS) return rc; /* reported by MPI_Comm_split */
    if (!n->cart) {
        lc_comm_free_handle(n);
        return lc_mpi_error(c, fn, lc_error(MPI_ERR_NO_MEM, "out of memory for a topology"));
    }
    *newcomm = out;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Cart_sub);
