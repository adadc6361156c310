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

/* The search of lc_dims_fill: the divisors of what is left (ascending),
 * the candidate being built and the best one so far.  A candidate is
 * non-increasing; it is better than another when the spread (first -
 * last) of the whole is smaller, then that of the candidate without its
 * first entry, and so on: the balance MPI 4.1 §8.5.2 asks for ("as close
 * to each other as possible"), with the ties broken as MPICH's
 * decompositions break them (its test table, topo/baddims.h, agrees). */
typedef struct lc_dims_search {
    const int *div;
    int ndiv, n;
    int *cur, *best;
    bool found;
} lc_dims_search_t;

/* Whether cur[] beats best[] (both non-increasing, n entries). */
static bool lc_dims_better(const int *cur, const int *best, int n)
{
    for (int i = 0; i < n - 1; i++) {
        int a = cur[i] - cur[n - 1], b = best[i] - best[n - 1];
        if (a != b) return a < b;
    }
    return false;
}

/* Whether x^k <= n. */
static bool lc_dims_pow_le(long long x, int k, int n)
{
    long long p = 1;
    for (int i = 0; i < k; i++)
        if ((p *= x) > n) return false;
    return true;
}

/* The largest x with x^k <= n (n >= 1). */
static int lc_dims_root(int n, int k)
{
    int lo = 1, hi = n; /* lo^k <= n always */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (lc_dims_pow_le(mid, k, n))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Fill cur[at..] with a non-increasing factorisation of `left` whose
 * entries are at most `maxf`. */
static void lc_dims_search(lc_dims_search_t *s, int at, int left, int maxf)
{
    int k = s->n - at; /* entries still to choose */
    if (k == 1) {
        if (left > maxf) return;
        s->cur[at] = left;
        if (!s->found || lc_dims_better(s->cur, s->best, s->n)) memcpy(s->best, s->cur, sizeof(int) * (size_t)s->n);
        s->found = true;
        return;
    }
    /* The last entry is at most root_k(left): a candidate whose first entry
     * is already further than the best spread from it cannot win. */
    int last_max = lc_dims_root(left, k);
    for (int i = s->ndiv - 1; i >= 0; i--) {
        int f = s->div[i];
        if (f > maxf || left % f) continue;
        if (f < left && lc_dims_pow_le(f, k, left - 1)) break; /* f^k < left: f cannot be the largest of k */
        int first = at == 0 ? f : s->cur[0];
        if (s->found && first - last_max > s->best[0] - s->best[s->n - 1]) {
            if (at == 0) continue; /* a smaller first entry may still win */
            break;
        }
        s->cur[at] = f;
        lc_dims_search(s, at + 1, left / f, f);
    }
}

/* The free dimensions get the best non-increasing factorisation of what
 * is left (lc_dims_search_t), in order. */
static int lc_dims_fill(int left, int free_dims, int ndims, int dims[])
{
    int ndiv = 0;
    for (long d = 1; d * d <= left; d++)
        if (left % d == 0) ndiv += d * d == left ? 1 : 2;
    int *buf = malloc(sizeof(int) * ((size_t)ndiv + 2 * (size_t)free_dims));
    if (!buf) return lc_error(MPI_ERR_NO_MEM, "out of memory");
    int *div = buf, lo = 0, hi = ndiv;
    for (long d = 1; d * d <= left; d++) /* ascending: small ones up, their cofactors down */
        if (left % d == 0) {
            div[lo++] = (int)d;
            if (d * d != left) div[--hi] = (int)(left / d);
        }
    lc_dims_search_t s = { .div = div, .ndiv = ndiv, .n = free_dims, .cur = buf + ndiv,
                           .best = buf + ndiv + free_dims };
    lc_dims_search(&s, 0, left, left);
    for (int i = 0, k = 0; i < ndims; i++)
        if (dims[i] == 0) dims[i] = s.best[k++];
    free(buf);
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
