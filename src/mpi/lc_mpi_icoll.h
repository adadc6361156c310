/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_icoll.h — starting nonblocking and persistent collectives
 * (lc_mpi_icoll.c, lc_mpi_coll_init.c).
 *
 * An MPI_I<coll> or MPI_<Coll>_init call runs the blocking call's own
 * checks (lc_mpi_coll.h) while a new schedule captures the collective
 * (lc_coll_capture): the entry point of src/coll picks the algorithm from
 * the one selection table and builds its schedule instead of running it.
 * lc_icoll_end then returns the request: an MPI_I<coll> schedule starts
 * at once; a persistent one waits for MPI_Start.
 */
#ifndef LC_MPI_ICOLL_H
#define LC_MPI_ICOLL_H

#include "coll/lc_sched.h"
#include "mpi/lc_mpi_coll.h"
#include "mpi/lc_mpi_request.h"

typedef struct lc_icoll_start {
    lc_sched_t *s;
    lc_comm_t *c;
    MPI_Request *request;
    bool persistent;
    const char *func;
} lc_icoll_start_t;

/* Check the communicator, the request pointer and (persistent) the info
 * object, make the schedule and start capturing.  An error has been
 * through the error handler. */
int lc_icoll_begin(lc_icoll_start_t *st, MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent,
                   const char *func);
/* Stop capturing; `rc` is the checked call's result.  On success the
 * schedule goes to a new request. */
int lc_icoll_end(lc_icoll_start_t *st, int rc);

#endif
