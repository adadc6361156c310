/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_dt.h — shared by the datatype API files (lc_mpi_type_*.c,
 * lc_mpi_pack.c, lc_mpi_status_count.c): argument checks and the
 * int / MPI_Aint / MPI_Count array arguments of the constructors and
 * their large-count (_c) twins.
 */
#ifndef LC_MPI_DT_H
#define LC_MPI_DT_H

#include "datatype/lc_dt.h"
#include "mpi/lc_mpi.h"

#include <limits.h>

/* An array argument: ints (MPI-1/3 forms), MPI_Aints or MPI_Counts (_c). */
typedef struct lc_mpi_arr {
    const void *p;
    int kind;
} lc_mpi_arr_t;
enum { LC_ARR_INT, LC_ARR_AINT, LC_ARR_COUNT };

static inline lc_mpi_arr_t lc_arr_int(const int *p) { return (lc_mpi_arr_t){ p, LC_ARR_INT }; }
static inline lc_mpi_arr_t lc_arr_aint(const MPI_Aint *p) { return (lc_mpi_arr_t){ p, LC_ARR_AINT }; }
static inline lc_mpi_arr_t lc_arr_count(const MPI_Count *p) { return (lc_mpi_arr_t){ p, LC_ARR_COUNT }; }

static inline MPI_Count lc_arr_get(lc_mpi_arr_t a, MPI_Count i)
{
    switch (a.kind) {
    case LC_ARR_INT: return ((const int *)a.p)[i];
    case LC_ARR_AINT: return ((const MPI_Aint *)a.p)[i];
    default: return ((const MPI_Count *)a.p)[i];
    }
}

/* A datatype argument that must name a type (any state): MPI_ERR_TYPE. */
static inline int lc_mpi_dt_arg(MPI_Datatype dt, lc_dt_t **t_p)
{
    return lc_dt_check(dt, t_p);
}

/* A datatype used to move data (MPI_Pack, ...): also committed. */
int lc_mpi_dt_committed(MPI_Datatype dt, lc_dt_t **t_p);
/* The oldtype of a constructor; MPI_ERR_TYPE for MPI_DATATYPE_NULL etc. */
int lc_mpi_dt_old(MPI_Datatype dt, lc_dt_t **t_p);
/* A block length: MPI_ERR_COUNT when negative. */
int lc_mpi_dt_check_blocklen(MPI_Count len, const char *what);
/* An array argument that must not be NULL when count > 0. */
int lc_mpi_dt_check_array(const void *p, MPI_Count count, const char *name);
/* Give t (one reference, consumed) its contents and a handle in *newtype;
 * NULL contents means they could not be allocated. */
int lc_mpi_dt_publish(lc_dt_t *t, lc_dt_contents_t *c, MPI_Datatype *newtype);

/* Attributes of datatypes (lc_mpi_type_attr.c): copy callbacks of oldtype's
 * attributes onto newtype (MPI_Type_dup), delete callbacks of every
 * attribute (MPI_Type_free).  MPI error codes. */
int lc_mpi_type_attr_dup(MPI_Datatype oldtype, MPI_Datatype newtype);
int lc_mpi_type_attr_free(MPI_Datatype datatype);

/* Bytes in a status (63 bits, MPICH layout). */
static inline MPI_Count lc_mpi_status_bytes(const MPI_Status *s)
{
    return (MPI_Count)((uint64_t)(uint32_t)s->count_lo | (uint64_t)((uint32_t)s->count_hi_and_cancelled >> 1) << 32);
}

/* An MPI_Count result for an int output (MPI_Get_count, MPI_Type_size,
 * ...): MPI_UNDEFINED when it does not fit, as the standard asks. */
static inline int lc_mpi_int_or_undefined(MPI_Count v)
{
    return v >= 0 && v <= INT_MAX ? (int)v : MPI_UNDEFINED;
}

#endif
