/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dtype.h — the table of predefined datatypes.
 *
 * MPICH encodes the size of a builtin datatype in bits 8..15 of the
 * handle; the pair types used by MINLOC/MAXLOC are "direct" handles whose
 * sizes come from a small table.  The coll layer moves predefined types
 * as count x extent bytes (lc_dtype_size); point-to-point and the
 * data-moving collectives move the padded pair types packed, through the
 * datatype layer (src/mpi/lc_mpi.h, lc_mpi_p2p_type, lc_mpi_coll_type);
 * reductions keep their memory form (the kernels read the C struct).
 * Derived datatypes, built on this table, live in the datatype layer
 * (src/datatype, docs/architecture.md "Datatypes").
 */
#ifndef LC_DTYPE_H
#define LC_DTYPE_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/lc_util.h"

typedef enum lc_dtype_class {
    LC_DT_INVALID = 0,
    LC_DT_SIGNED,    /* C signed integers */
    LC_DT_UNSIGNED,  /* C unsigned integers, wchar, char */
    LC_DT_FLOAT,     /* float, double, long double and Fortran reals */
    LC_DT_COMPLEX,
    LC_DT_LOGICAL,   /* C bool, Fortran logical */
    LC_DT_BYTE,      /* byte, packed: no arithmetic */
    LC_DT_PAIR,      /* value+index pairs for MINLOC/MAXLOC */
    LC_DT_MARKER,    /* MPI_LB/MPI_UB: not usable for communication */
} lc_dtype_class_t;

typedef struct lc_dtype_info {
    MPI_Datatype handle;
    const char *name;
    lc_dtype_class_t cls;
    unsigned size;       /* extent: bytes one item spans in memory (what is copied) */
    unsigned type_size;  /* MPI_Type_size: data bytes without padding */
    unsigned align;      /* alignment inside a C struct (padding of MPI_Type_create_struct) */
    unsigned ext32;      /* bytes in "external32" (MPI 4.1 Table 13.2); 0 for pairs and markers */
} lc_dtype_info_t;

/* Table lookup; NULL if `dt` is not a predefined datatype Locus knows. */
const lc_dtype_info_t *lc_dtype_lookup(MPI_Datatype dt);

/* The table itself, for walking every predefined type: entries 0..n-1. */
size_t lc_dtype_count(void);
const lc_dtype_info_t *lc_dtype_at(size_t i);

/* Extent in bytes (one item in memory, padding included): messages are
 * copied as count x extent contiguous bytes.  0 for an invalid type.
 * Fast path for builtin handles, whose extent is in the handle. */
static inline size_t lc_dtype_size(MPI_Datatype dt)
{
    unsigned h = (unsigned)dt;
    if ((h & 0xfc000000u) == 0x4c000000u) return (h >> 8) & 0xff;
    const lc_dtype_info_t *info = lc_dtype_lookup(dt);
    return info ? info->size : 0;
}

/* MPI_Type_size: data bytes of one item without padding (a pair type's
 * packed size, MPI_DOUBLE_INT 12 of its 16).  Builtin handles have no
 * padding: the fast path is lc_dtype_size's. */
static inline size_t lc_dtype_type_size(MPI_Datatype dt)
{
    unsigned h = (unsigned)dt;
    if ((h & 0xfc000000u) == 0x4c000000u) return (h >> 8) & 0xff;
    const lc_dtype_info_t *info = lc_dtype_lookup(dt);
    return info ? info->type_size : 0;
}

/* A predefined type whose item has padding (a value+index pair such as
 * MPI_DOUBLE_INT, not MPI_2INT): its packed form is not its memory form. */
static inline bool lc_dtype_padded(MPI_Datatype dt)
{
    return lc_dtype_type_size(dt) != lc_dtype_size(dt);
}

/* The argument checks' fast path (lc_mpi.h): builtin handles 0x4c00ssii
 * that may be used to communicate and have a size (ss > 0), each at its
 * low byte ii; 0 elsewhere, and everywhere until the index is built (the
 * first lc_dtype_lookup): a handle is one of them when it equals its
 * entry.  One load where lc_dtype_valid is a call and two. */
extern LC_HIDDEN uint32_t lc_dtype_sendable[256];

static inline bool lc_dtype_sendable_builtin(MPI_Datatype dt)
{
    unsigned h = (unsigned)dt;
    return (h & 0xffff0000u) == 0x4c000000u && lc_dtype_sendable[h & 0xff] == h;
}

/* A datatype that may be used to communicate. */
static inline bool lc_dtype_valid(MPI_Datatype dt)
{
    const lc_dtype_info_t *info = lc_dtype_lookup(dt);
    return info && info->cls != LC_DT_MARKER;
}

#endif
