/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_abi_data.c — data objects MPICH's libmpich.so.12 exports, which
 * binaries built against MPICH's mpi.h may refer to (MPI_UNWEIGHTED is
 * what mpi4py's wheel needs to load), with MPICH's names and sizes.  The
 * Fortran ones are in lc_mpi_fortran.c.  test/abi/t_data_symbols.sh
 * checks that every data symbol MPICH exports is here.
 */
#include "mpi/lc_mpi.h"
#include "lc_config.h"

#include <stdint.h>

/* MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY only need to be distinct non-NULL
 * addresses (graph topologies compare against them); 8-byte objects as
 * in MPICH. */
LC_API int64_t MPIR_C_MPI_UNWEIGHTED;
LC_API int64_t MPIR_C_MPI_WEIGHTS_EMPTY;
LC_API int *const MPI_UNWEIGHTED = (int *)&MPIR_C_MPI_UNWEIGHTED;
LC_API int *const MPI_WEIGHTS_EMPTY = (int *)&MPIR_C_MPI_WEIGHTS_EMPTY;

/* A handle value no MPI_T session can return (MPI_T is not implemented). */
LC_API struct MPIR_T_pvar_handle_s *const MPI_T_PVAR_ALL_HANDLES = (struct MPIR_T_pvar_handle_s *)(intptr_t)-1;

/* MPICH's build description strings, read by tools such as mpichversion;
 * here they describe Locus. */
LC_API const char MPII_Version_string[] = LOCUS_VERSION;
LC_API const char MPII_Version_date[] = "";
LC_API const char MPII_Version_ABI[] = "12";
LC_API const char MPII_Version_configure[] = "Locus MPI (MPICH ABI)";
LC_API const char MPII_Version_device[] = "locus";
LC_API const char MPII_Version_CC[] = LOCUS_C_COMPILER;
LC_API const char MPII_Version_CXX[] = "";
LC_API const char MPII_Version_F77[] = "";
LC_API const char MPII_Version_FC[] = "";
LC_API const char MPII_Version_custom[] = "";
