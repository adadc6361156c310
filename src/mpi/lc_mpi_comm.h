/* lc_mpi_comm.h — communicator management inside the API layer. */
#ifndef LC_MPI_COMM_H
#define LC_MPI_COMM_H

/* Create MPI_COMM_WORLD and MPI_COMM_SELF (after wire-up). 0 or -1. */
int lc_mpi_comm_init_builtin(void);
/* Free every communicator (MPI_Finalize). */
void lc_mpi_comm_fini(void);

#endif
