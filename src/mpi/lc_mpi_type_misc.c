/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_type_misc.c — addresses (MPI_Get_address, MPI_Aint_add,
 * MPI_Aint_diff, the MPI-1 MPI_Address) and the predefined types found
 * by property: MPI_Type_create_f90_real/complex/integer,
 * MPI_Type_match_size, MPI_Type_get_value_index.
 */
#include "mpi/lc_mpi_dt.h"

/* Addresses are plain integers of the flat address space; the
 * arithmetic wraps as the machine's does (no undefined overflow). */
LC_API int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    int rc;
    LC_TRY(lc_check_ptr(address, "address"));
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Get_address", rc);
}
LC_MPI_ALIAS(Get_address);

/* MPI-1 name (deprecated; MPICH still exports it). */
LC_API int PMPI_Address(void *location, MPI_Aint *address)
{
    int rc;
    LC_TRY(lc_check_ptr(address, "address"));
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Address", rc);
}
LC_MPI_ALIAS(Address);

LC_API MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
LC_MPI_ALIAS(Aint_add);

LC_API MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
LC_MPI_ALIAS(Aint_diff);

/* ---- f90 types, size matching, value-index pairs ------------------------------------- */

static int lc_mpi_type_f90(int combiner, int p, int r, MPI_Datatype *newtype, const char *fn)
{
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(newtype, "newtype"));
    LC_TRY(lc_dt_f90(combiner, p, r, &t));
    *newtype = t->handle;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, fn, rc);
}

LC_API int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return lc_mpi_type_f90(MPI_COMBINER_F90_REAL, p, r, newtype, "MPI_Type_create_f90_real");
}
LC_MPI_ALIAS(Type_create_f90_real);

LC_API int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return lc_mpi_type_f90(MPI_COMBINER_F90_COMPLEX, p, r, newtype, "MPI_Type_create_f90_complex");
}
LC_MPI_ALIAS(Type_create_f90_complex);

LC_API int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    return lc_mpi_type_f90(MPI_COMBINER_F90_INTEGER, 0, r, newtype, "MPI_Type_create_f90_integer");
}
LC_MPI_ALIAS(Type_create_f90_integer);

LC_API int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(datatype, "datatype"));
    LC_TRY(lc_dt_match_size(typeclass, size, datatype));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Type_match_size", rc);
}
LC_MPI_ALIAS(Type_match_size);

/* MPI 4.1: the predefined pair type of (value, index) for MINLOC and
 * MAXLOC, or MPI_DATATYPE_NULL when there is none. */
LC_API int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype *pair_type)
{
    lc_dt_t *v, *i;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_dt_arg(value_type, &v));
    LC_TRY(lc_mpi_dt_arg(index_type, &i));
    LC_TRY(lc_check_ptr(pair_type, "pair_type"));
    *pair_type = lc_dt_value_index(value_type, index_type);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Type_get_value_index", rc);
}
LC_MPI_ALIAS(Type_get_value_index);
