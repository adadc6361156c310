/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_f_file_errhandler.c — MPI_FILE_CREATE_ERRHANDLER for Fortran
 * (hand-written: api/fortran_hints.txt marks it `handwritten`; the module
 * interfaces are still generated).
 *
 * Why by hand: a Fortran file error handler is SUBROUTINE H(FILE,
 * ERROR_CODE) with an INTEGER file handle, where C's gets an MPI_File *
 * (a pointer).  Unlike a communicator's, the two cannot share one call,
 * and a C error handler has no extra state, so the handler object itself
 * says which language it is: the new handler is marked with
 * MPII_Errhandler_set_fc (libmpi), and lc_mpi_file_error then passes
 * MPI_File_c2f of the file (0 for MPI_FILE_NULL) and the code, both by
 * reference.  mpi_f08's TYPE(MPI_File) is an INTEGER in memory: the same.
 */
#include "lc_f_glue.h"

static void lc_f_file_create_errhandler(int (*create)(MPI_File_errhandler_function *, MPI_Errhandler *),
                                        MPI_File_errhandler_function *fn, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int rc = create(fn, &eh);
    if (rc == MPI_SUCCESS) {
        MPII_Errhandler_set_fc(eh); /* before anyone can set it on a file */
        *errhandler = (MPI_Fint)eh;
    }
    *ierr = rc;
}

LC_F_API void mpi_file_create_errhandler_(MPI_File_errhandler_function *fn, MPI_Fint *errhandler, MPI_Fint *ierr);
LC_F_API void mpi_file_create_errhandler_(MPI_File_errhandler_function *fn, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    lc_f_file_create_errhandler(MPI_File_create_errhandler, fn, errhandler, ierr);
}

LC_F_API void pmpi_file_create_errhandler_(MPI_File_errhandler_function *fn, MPI_Fint *errhandler, MPI_Fint *ierr);
LC_F_API void pmpi_file_create_errhandler_(MPI_File_errhandler_function *fn, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    lc_f_file_create_errhandler(PMPI_File_create_errhandler, fn, errhandler, ierr);
}

LC_F_ALIAS(mpi_file_create_errhandler_, mpi_file_create_errhandler)
LC_F_ALIAS(mpi_file_create_errhandler_, mpi_file_create_errhandler__)
LC_F_ALIAS(mpi_file_create_errhandler_, MPI_FILE_CREATE_ERRHANDLER)
LC_F_ALIAS(mpi_file_create_errhandler_, lc_f08_file_create_errhandler_)
LC_F_ALIAS(pmpi_file_create_errhandler_, lc_f08p_file_create_errhandler_) /* mpi_f08's PMPI_File_create_errhandler */
LC_F_ALIAS(pmpi_file_create_errhandler_, pmpi_file_create_errhandler)
LC_F_ALIAS(pmpi_file_create_errhandler_, pmpi_file_create_errhandler__)
LC_F_ALIAS(pmpi_file_create_errhandler_, PMPI_FILE_CREATE_ERRHANDLER)
