/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_errhandler.h — error handler objects (MPI 4.1 §9.3) and the
 * error classes and codes users add (§9.5).
 *
 * A user error handler (MPI_Comm_create_errhandler) is counted: one
 * reference for its handle until MPI_Errhandler_free, one per
 * communicator it is set on and one per handle MPI_Comm_get_errhandler
 * returned, so a communicator keeps its handler after the user freed the
 * handle.  The predefined handlers are not counted.  Handles: 0x94000000 |
 * index (MPICH's direct error handlers).
 *
 * Codes users add carry bit 30 (0x40000000), as MPICH's do: a class is
 * 0x40000000 | k (k = 1..255) and a code of that class 0x40000000 | k |
 * (j << 8), so lc_error_class_of() finds the class of either in the bits.
 */
#ifndef LC_MPI_ERRHANDLER_H
#define LC_MPI_ERRHANDLER_H

#include "mpi/lc_mpi.h"

/* MPI_SUCCESS if `eh` may be set on a communicator: a predefined handler
 * or one made by MPI_Comm_create_errhandler. */
int lc_check_comm_errhandler(MPI_Errhandler eh);
/* References held by communicators (no-ops for the predefined handlers). */
void lc_errhandler_retain(MPI_Errhandler eh);
void lc_errhandler_release(MPI_Errhandler eh);
/* The user function behind `eh`, or NULL for a predefined handler. */
MPI_Comm_errhandler_function *lc_errhandler_fn(MPI_Errhandler eh);
/* Whether `eh` was made by Fortran's MPI_FILE_CREATE_ERRHANDLER (libmpifort
 * marks it with MPII_Errhandler_set_fc): its function takes the file's
 * INTEGER handle (MPI_File_c2f) where C's takes an MPI_File *. */
bool lc_errhandler_is_fortran(MPI_Errhandler eh);
/* A new user error handler calling `fn` (communicators and windows alike:
 * their handles are ints, lc_mpi_error_handler).  MPI error code. */
int lc_errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *eh_p);
/* The same without the "MPI is initialized" check: MPI 4.1 §11.4.1 lets
 * MPI_Session_create_errhandler run at any time (its handler is made
 * before the MPI_Session_init it is given to). */
int lc_errhandler_new(MPI_Comm_errhandler_function *fn, MPI_Errhandler *eh_p);
void lc_errhandler_fini(void);

/* Text of an error code for messages: the recorded message of a Locus
 * code, the string of a user code (MPI_Add_error_string). */
void lc_mpi_error_text(int code, char *buf, size_t len);
/* Whether `code` is a valid error code or class (predefined or added). */
bool lc_mpi_error_code_valid(int code);
/* The MPI_LASTUSEDCODE attribute's value (a pointer to it: the attribute
 * is read through a pointer). */
int *lc_mpi_lastusedcode(void);
void lc_errclass_fini(void);

#endif
