/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_file_errhandler.c — error handlers of files (MPI 4.1 §9.3.4):
 * File_create/set/get/call_errhandler and lc_mpi_file_error, which every
 * MPI_File_* call ends its error path with.  A file's handler is
 * MPI_ERRORS_RETURN unless set; the one set on MPI_FILE_NULL serves the
 * calls that have no file (open, delete) and is what files opened later
 * start with.
 */
#include "mpi/lc_mpi_errhandler.h"
#include "mpi/lc_mpi_file.h"

static MPI_Errhandler lc_file_default_eh = MPI_ERRORS_RETURN;

MPI_Errhandler lc_file_default_errhandler(void)
{
    return lc_file_default_eh;
}

int lc_mpi_file_error(lc_file_t *f, const char *func, int code)
{
    MPI_Errhandler eh = f ? f->errhandler : lc_file_default_eh;
    MPI_File_errhandler_function *fn = (MPI_File_errhandler_function *)lc_errhandler_fn(eh);
    if (fn && lc_errhandler_is_fortran(eh)) {
        /* SUBROUTINE HANDLER(FILE, ERROR_CODE): INTEGERs by reference */
        MPI_Fint h = f ? PMPI_File_c2f(f) : 0, arg = code;
        ((void (*)(MPI_Fint *, MPI_Fint *))(void (*)(void))fn)(&h, &arg);
        return code;
    }
    if (fn) {
        /* copies, as for communicators: the handler may close the file */
        MPI_File h = f ? f : MPI_FILE_NULL;
        int arg = code;
        fn(&h, &arg, func);
        return code;
    }
    return lc_mpi_error_handler(eh, 0, "file", func, code);
}

LC_API int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler)
{
    int rc;
    LC_TRY(lc_errhandler_create((MPI_Comm_errhandler_function *)file_errhandler_fn, errhandler));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_File_create_errhandler", rc);
}
LC_MPI_ALIAS(File_create_errhandler);

/* On MPI_FILE_NULL: the handler of files opened later and of errors
 * that belong to no file (open, delete), MPI 4.1 §9.3.4. */
LC_API int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    lc_file_t *f = NULL;
    int rc;
    LC_TRY(lc_check_initialized());
    if (file != MPI_FILE_NULL) LC_TRY(lc_check_file(file, &f));
    LC_TRY(lc_check_comm_errhandler(errhandler));
    MPI_Errhandler *slot = f ? &f->errhandler : &lc_file_default_eh;
    lc_errhandler_retain(errhandler);
    lc_errhandler_release(*slot);
    *slot = errhandler;
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_set_errhandler", rc);
}
LC_MPI_ALIAS(File_set_errhandler);

LC_API int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    lc_file_t *f = NULL;
    int rc;
    LC_TRY(lc_check_initialized());
    if (file != MPI_FILE_NULL) LC_TRY(lc_check_file(file, &f));
    LC_TRY(lc_check_ptr(errhandler, "errhandler"));
    MPI_Errhandler eh = f ? f->errhandler : lc_file_default_eh;
    lc_errhandler_retain(eh);
    *errhandler = eh;
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_get_errhandler", rc);
}
LC_MPI_ALIAS(File_get_errhandler);

LC_API int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    lc_file_t *f = NULL;
    int rc;
    LC_TRY(lc_check_initialized());
    if (fh != MPI_FILE_NULL) LC_TRY(lc_check_file(fh, &f));
    lc_mpi_file_error(f, "MPI_File_call_errhandler", errorcode);
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_call_errhandler", rc);
}
LC_MPI_ALIAS(File_call_errhandler);
