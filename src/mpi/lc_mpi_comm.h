/* lc_mpi_comm.h — communicator management inside the API layer. */
#ifndef LC_MPI_COMM_H
#define LC_MPI_COMM_H

#include "pt2pt/lc_comm.h"

/* Create MPI_COMM_WORLD and MPI_COMM_SELF (after wire-up). 0 or -1. */
int lc_mpi_comm_init_builtin(void);
/* Free every communicator (MPI_Finalize). */
void lc_mpi_comm_fini(void);

/* A communicator of `size` members (world_ranks) derived from `parent`,
 * with a context id agreed by all of parent's ranks (collective over
 * parent); size 0 for ranks that take part but are not members (*out
 * NULL).  MPI error code. */
int lc_mpi_comm_derive(lc_comm_t *parent, int rank, int size, const int *world_ranks, lc_comm_t **out);

/* A Cartesian topology record (lc_mpi_topo.c); NULL when out of memory. */
lc_cart_t *lc_cart_new(int ndims, const int *dims, const int *periods);

#endif
