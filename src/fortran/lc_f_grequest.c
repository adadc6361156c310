/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_f_grequest.c — MPI_GREQUEST_START for Fortran (hand-written:
 * api/fortran_hints.txt marks it `handwritten`; the module interfaces are
 * still generated).
 *
 * Why by hand: Locus calls the query/free/cancel callbacks with C's
 * conventions (extra_state and `complete` by value, an int result);
 * Fortran's take every argument by reference and return through IERROR,
 * and EXTRA_STATE is an INTEGER(KIND=MPI_ADDRESS_KIND), not a pointer.
 * Each Fortran generalized request gets a record (the three procedures and
 * the Fortran EXTRA_STATE) passed as the C extra_state to C trampolines.
 * A Fortran status is laid out as MPI_Status (MPI_STATUS_SIZE INTEGERs),
 * and mpi_f08's TYPE(MPI_Status) too, so the query callback gets C's
 * status as it is.
 *
 * Lifetime: MPI calls free_fn exactly once, when the request is freed
 * (MPI 4.1 §13.2); the record goes with it.
 */
#include "lc_f_glue.h"

typedef void lc_f_query_fn(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierr);
typedef void lc_f_free_fn(MPI_Aint *extra, MPI_Fint *ierr);
typedef void lc_f_cancel_fn(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierr);

struct lc_f_greq {
    lc_f_query_fn *query;
    lc_f_free_fn *free;
    lc_f_cancel_fn *cancel;
    MPI_Aint extra;
};

static int lc_f_greq_query(void *extra_state, MPI_Status *status)
{
    struct lc_f_greq *g = extra_state;
    MPI_Fint ierr = MPI_SUCCESS;
    g->query(&g->extra, (MPI_Fint *)(void *)status, &ierr);
    return ierr;
}

static int lc_f_greq_free(void *extra_state)
{
    struct lc_f_greq *g = extra_state;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(&g->extra, &ierr);
    free(g);
    return ierr;
}

static int lc_f_greq_cancel(void *extra_state, int complete)
{
    struct lc_f_greq *g = extra_state;
    MPI_Fint ierr = MPI_SUCCESS, fcomplete = LC_F_LOGICAL(complete);
    g->cancel(&g->extra, &fcomplete, &ierr);
    return ierr;
}

typedef int lc_c_grequest_start_fn(MPI_Grequest_query_function *, MPI_Grequest_free_function *,
                                   MPI_Grequest_cancel_function *, void *, MPI_Request *);

static void lc_f_grequest_start(lc_c_grequest_start_fn *start, lc_f_query_fn *query, lc_f_free_fn *freefn,
                                lc_f_cancel_fn *cancel, MPI_Aint *extra, MPI_Fint *request, MPI_Fint *ierr)
{
    struct lc_f_greq *g = malloc(sizeof *g);
    if (!g) {
        *ierr = lc_f_nomem("MPI_Grequest_start");
        return;
    }
    *g = (struct lc_f_greq){query, freefn, cancel, *extra};
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = start(lc_f_greq_query, lc_f_greq_free, lc_f_greq_cancel, g, &req);
    if (rc != MPI_SUCCESS) {
        free(g); /* no request: free_fn will never be called */
        *ierr = rc;
        return;
    }
    *request = (MPI_Fint)req;
    *ierr = MPI_SUCCESS;
}

#define LC_F_GREQUEST_START(lname, cname)                                                                 \
    LC_F_API void lname##_(lc_f_query_fn *query, lc_f_free_fn *freefn, lc_f_cancel_fn *cancel,            \
                           MPI_Aint *extra, MPI_Fint *request, MPI_Fint *ierr);                           \
    LC_F_API void lname##_(lc_f_query_fn *query, lc_f_free_fn *freefn, lc_f_cancel_fn *cancel,            \
                           MPI_Aint *extra, MPI_Fint *request, MPI_Fint *ierr)                            \
    {                                                                                                     \
        lc_f_grequest_start(cname, query, freefn, cancel, extra, request, ierr);                          \
    }

LC_F_GREQUEST_START(mpi_grequest_start, MPI_Grequest_start)
LC_F_GREQUEST_START(pmpi_grequest_start, PMPI_Grequest_start)
LC_F_ALIAS(mpi_grequest_start_, mpi_grequest_start)
LC_F_ALIAS(mpi_grequest_start_, mpi_grequest_start__)
LC_F_ALIAS(mpi_grequest_start_, MPI_GREQUEST_START)
LC_F_ALIAS(mpi_grequest_start_, lc_f08_grequest_start_)
LC_F_ALIAS(pmpi_grequest_start_, lc_f08p_grequest_start_) /* mpi_f08's PMPI_Grequest_start */
LC_F_ALIAS(pmpi_grequest_start_, pmpi_grequest_start)
LC_F_ALIAS(pmpi_grequest_start_, pmpi_grequest_start__)
LC_F_ALIAS(pmpi_grequest_start_, PMPI_GREQUEST_START)
