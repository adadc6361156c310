/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_fortran.c — the C side of Fortran interoperability that C
 * programs see: the handle conversions MPI_<Handle>_c2f/f2c (and MPI
 * 5.0's MPI_<Handle>_toint/fromint, the same values), MPI_Status_c2f/f2c and the Fortran 2008 forms, and the objects MPICH
 * exports for them (MPI_F_STATUS(ES)_IGNORE, MPI_F08_STATUS(ES)_IGNORE and
 * the objects behind them).
 *
 * A Fortran handle is the C handle (MPICH ABI), so the handle conversions
 * are casts; mpi.h makes them macros, the functions here serve binaries
 * that call them (mpi4py's wheel, built against a newer MPICH, does).
 *
 * A Fortran status is MPI_F_STATUS_SIZE (5) integers in the order of
 * MPI_Status's fields (MPICH ABI), an F08 status the same as a struct,
 * so every conversion is a copy of five ints.  The IGNORE values are
 * distinct objects that the conversions refuse (MPI 4.1 §19.3.5: passing
 * them is erroneous; Locus says so instead).
 */
#include "mpi/lc_mpi.h"

#include <string.h>

/* The definitions below need the names, not mpi.h's macros. */
#undef MPI_Comm_c2f
#undef MPI_Comm_f2c
#undef MPI_Type_c2f
#undef MPI_Type_f2c
#undef MPI_Group_c2f
#undef MPI_Group_f2c
#undef MPI_Info_c2f
#undef MPI_Info_f2c
#undef MPI_Request_c2f
#undef MPI_Request_f2c
#undef MPI_Op_c2f
#undef MPI_Op_f2c
#undef MPI_Errhandler_c2f
#undef MPI_Errhandler_f2c
#undef MPI_Message_c2f
#undef MPI_Message_f2c
#undef PMPI_Comm_c2f
#undef PMPI_Comm_f2c
#undef PMPI_Type_c2f
#undef PMPI_Type_f2c
#undef PMPI_Group_c2f
#undef PMPI_Group_f2c
#undef PMPI_Info_c2f
#undef PMPI_Info_f2c
#undef PMPI_Request_c2f
#undef PMPI_Request_f2c
#undef PMPI_Op_c2f
#undef PMPI_Op_f2c
#undef PMPI_Errhandler_c2f
#undef PMPI_Errhandler_f2c
#undef PMPI_Message_c2f
#undef PMPI_Message_f2c
#undef MPI_Win_c2f
#undef MPI_Win_f2c
#undef MPI_Session_c2f
#undef MPI_Session_f2c
#undef PMPI_Win_c2f
#undef PMPI_Win_f2c
#undef PMPI_Session_c2f
#undef PMPI_Session_f2c

/* Both directions of one handle type: casts, valid for any value (MPI
 * says nothing is checked; MPI_*_NULL converts to its Fortran twin). */
#define LC_HANDLE_CONV(Name, type)                                     \
    LC_API MPI_Fint PMPI_##Name##_c2f(type h) { return (MPI_Fint)h; } \
    LC_MPI_ALIAS(Name##_c2f);                                          \
    LC_API type PMPI_##Name##_f2c(MPI_Fint h) { return (type)h; }      \
    LC_MPI_ALIAS(Name##_f2c);

LC_HANDLE_CONV(Comm, MPI_Comm)
LC_HANDLE_CONV(Type, MPI_Datatype)
LC_HANDLE_CONV(Group, MPI_Group)
LC_HANDLE_CONV(Info, MPI_Info)
LC_HANDLE_CONV(Request, MPI_Request)
LC_HANDLE_CONV(Op, MPI_Op)
LC_HANDLE_CONV(Errhandler, MPI_Errhandler)
LC_HANDLE_CONV(Message, MPI_Message)
LC_HANDLE_CONV(Win, MPI_Win)
LC_HANDLE_CONV(Session, MPI_Session)

/* MPI 5.0's handles as C integers: the same values as the Fortran ones
 * (an MPI_File's is its table index + 1, PMPI_File_c2f). */
#define LC_HANDLE_INT(Name, type)                                                   \
    LC_API int PMPI_##Name##_toint(type h) { return (int)PMPI_##Name##_c2f(h); }    \
    LC_MPI_ALIAS(Name##_toint);                                                     \
    LC_API type PMPI_##Name##_fromint(int i) { return PMPI_##Name##_f2c((MPI_Fint)i); } \
    LC_MPI_ALIAS(Name##_fromint);

LC_HANDLE_INT(Comm, MPI_Comm)
LC_HANDLE_INT(Errhandler, MPI_Errhandler)
LC_HANDLE_INT(File, MPI_File)
LC_HANDLE_INT(Group, MPI_Group)
LC_HANDLE_INT(Info, MPI_Info)
LC_HANDLE_INT(Message, MPI_Message)
LC_HANDLE_INT(Op, MPI_Op)
LC_HANDLE_INT(Request, MPI_Request)
LC_HANDLE_INT(Session, MPI_Session)
LC_HANDLE_INT(Type, MPI_Datatype)
LC_HANDLE_INT(Win, MPI_Win)

_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint), "a Fortran status is an MPI_Status");
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "an F08 status is an MPI_Status");

/* Objects with MPICH's names and sizes (the F08 ones are what MPICH's
 * Fortran 2008 module points its IGNORE values at). */
LC_API MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
LC_API MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
LC_API int MPIR_F08_MPI_IN_PLACE;
LC_API int MPIR_F08_MPI_BOTTOM;
LC_API MPI_F08_status *MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
LC_API MPI_F08_status *MPI_F08_STATUSES_IGNORE = MPIR_F08_MPI_STATUSES_IGNORE_OBJ;
static MPI_Fint lc_f_status_ignore[MPI_F_STATUS_SIZE], lc_f_statuses_ignore[MPI_F_STATUS_SIZE];
LC_API MPI_Fint *MPI_F_STATUS_IGNORE = lc_f_status_ignore;
LC_API MPI_Fint *MPI_F_STATUSES_IGNORE = lc_f_statuses_ignore;

/* Five ints from `from` to `to`, neither of which may be an IGNORE value. */
static int lc_status_copy(const void *from, void *to, const char *from_name, const char *to_name)
{
    if (!from || from == MPI_STATUS_IGNORE || from == (void *)MPI_F_STATUS_IGNORE ||
        from == (void *)MPI_F_STATUSES_IGNORE || from == (void *)MPI_F08_STATUS_IGNORE ||
        from == (void *)MPI_F08_STATUSES_IGNORE)
        return lc_error(MPI_ERR_ARG, "%s is NULL or an IGNORE value: there is no status to convert", from_name);
    if (!to || to == MPI_STATUS_IGNORE || to == (void *)MPI_F_STATUS_IGNORE || to == (void *)MPI_F08_STATUS_IGNORE)
        return lc_error(MPI_ERR_ARG, "%s is NULL or an IGNORE value: give a status to write to", to_name);
    memmove(to, from, sizeof(MPI_Status));
    return MPI_SUCCESS;
}

/* One API function per direction, all alike. */
#define LC_STATUS_CONV(name, from_t, from, to_t, to)                  \
    LC_API int PMPI_Status_##name(const from_t *from, to_t *to)        \
    {                                                                  \
        int rc;                                                        \
        LC_TRY(lc_status_copy(from, to, #from, #to));                  \
        return MPI_SUCCESS;                                            \
    err:                                                               \
        return lc_mpi_error(NULL, "MPI_Status_" #name, rc);            \
    }                                                                  \
    LC_MPI_ALIAS(Status_##name);

LC_STATUS_CONV(c2f, MPI_Status, c_status, MPI_Fint, f_status)
LC_STATUS_CONV(f2c, MPI_Fint, f_status, MPI_Status, c_status)
LC_STATUS_CONV(c2f08, MPI_Status, c_status, MPI_F08_status, f08_status)
LC_STATUS_CONV(f082c, MPI_F08_status, f08_status, MPI_Status, c_status)
LC_STATUS_CONV(f2f08, MPI_Fint, f_status, MPI_F08_status, f08_status)
LC_STATUS_CONV(f082f, MPI_F08_status, f08_status, MPI_Fint, f_status)
