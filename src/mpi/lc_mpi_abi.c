/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_abi.c — MPI 5.0's ABI queries: MPI_Abi_get_version,
 * MPI_Abi_get_info, MPI_Abi_get_fortran_info (docs/abi.md).
 *
 * Locus implements MPICH's ABI (libmpi.so.12), not the MPI 5.0 standard
 * ABI (libmpi_abi.so), so MPI_Abi_get_version answers -1.-1, which MPI 5.0
 * prescribes for a library that does not support the standard ABI (MPICH
 * and Open MPI answer the same from their native libraries; mpi4py reads
 * a positive major as "standard ABI" and would then pick the wrong
 * handle layout).  The two info queries describe the types of the ABI
 * Locus has: the sizes of MPI_Aint, MPI_Count, MPI_Offset, and of the
 * Fortran types with which of the optional ones exist.  All three work at
 * any time, before MPI_Init and after MPI_Finalize (no object of the
 * runtime is needed).
 */
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_info.h"

#include <stdio.h>
#include <string.h>

LC_API int PMPI_Abi_get_version(int *abi_major, int *abi_minor)
{
    int rc;
    LC_TRY(lc_check_ptr(abi_major, "abi_major"));
    LC_TRY(lc_check_ptr(abi_minor, "abi_minor"));
    *abi_major = -1;
    *abi_minor = -1;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Abi_get_version", rc);
}
LC_MPI_ALIAS(Abi_get_version);

typedef struct lc_abi_key {
    const char *key;
    int value; /* a size in bytes, or (for *_supported) 0/1 */
} lc_abi_key_t;

/* A new info holding the keys; the size keys as decimal numbers, the
 * *_supported ones as "true"/"false".  MPI error code. */
static int lc_abi_info(const lc_abi_key_t *keys, int n, MPI_Info *info_p)
{
    lc_info_t *info = NULL;
    char text[16];
    int rc = lc_info_new(&info);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        bool flag = strstr(keys[i].key, "_supported") != NULL;
        snprintf(text, sizeof(text), "%d", keys[i].value);
        rc = lc_info_set(info, keys[i].key, flag ? (keys[i].value ? "true" : "false") : text);
    }
    if (rc == MPI_SUCCESS) return lc_info_publish(info, info_p); /* frees it on failure */
    if (info) lc_info_free(info);
    return rc;
}

LC_API int PMPI_Abi_get_info(MPI_Info *info)
{
    static const lc_abi_key_t keys[] = {
        { "mpi_aint_size", (int)sizeof(MPI_Aint) },
        { "mpi_count_size", (int)sizeof(MPI_Count) },
        { "mpi_offset_size", (int)sizeof(MPI_Offset) },
    };
    int rc;
    LC_TRY(lc_check_ptr(info, "info"));
    LC_TRY(lc_abi_info(keys, (int)(sizeof(keys) / sizeof(keys[0])), info));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Abi_get_info", rc);
}
LC_MPI_ALIAS(Abi_get_info);

/* The data size of a predefined type Locus has; 0 when it has none (a
 * type mpi.h does not name, or names as MPI_DATATYPE_NULL). */
static int lc_abi_type_size(MPI_Datatype dt)
{
    const lc_dtype_info_t *t = dt == MPI_DATATYPE_NULL ? NULL : lc_dtype_lookup(dt);
    return t ? (int)t->type_size : 0;
}

/* The optional Fortran types MPI 5.0 asks about, whichever of them mpi.h
 * names (a type added to mpi.h later is reported without a change here). */
#ifndef MPI_LOGICAL1
#define MPI_LOGICAL1 MPI_DATATYPE_NULL
#endif
#ifndef MPI_LOGICAL2
#define MPI_LOGICAL2 MPI_DATATYPE_NULL
#endif
#ifndef MPI_LOGICAL4
#define MPI_LOGICAL4 MPI_DATATYPE_NULL
#endif
#ifndef MPI_LOGICAL8
#define MPI_LOGICAL8 MPI_DATATYPE_NULL
#endif
#ifndef MPI_LOGICAL16
#define MPI_LOGICAL16 MPI_DATATYPE_NULL
#endif
#ifndef MPI_REAL2
#define MPI_REAL2 MPI_DATATYPE_NULL
#endif
#ifndef MPI_COMPLEX4
#define MPI_COMPLEX4 MPI_DATATYPE_NULL
#endif

LC_API int PMPI_Abi_get_fortran_info(MPI_Info *info)
{
    const lc_abi_key_t keys[] = {
        { "mpi_logical_size", lc_abi_type_size(MPI_LOGICAL) },
        { "mpi_integer_size", lc_abi_type_size(MPI_INTEGER) },
        { "mpi_real_size", lc_abi_type_size(MPI_REAL) },
        { "mpi_double_precision_size", lc_abi_type_size(MPI_DOUBLE_PRECISION) },
        { "mpi_logical1_supported", lc_abi_type_size(MPI_LOGICAL1) > 0 },
        { "mpi_logical2_supported", lc_abi_type_size(MPI_LOGICAL2) > 0 },
        { "mpi_logical4_supported", lc_abi_type_size(MPI_LOGICAL4) > 0 },
        { "mpi_logical8_supported", lc_abi_type_size(MPI_LOGICAL8) > 0 },
        { "mpi_logical16_supported", lc_abi_type_size(MPI_LOGICAL16) > 0 },
        { "mpi_integer1_supported", lc_abi_type_size(MPI_INTEGER1) > 0 },
        { "mpi_integer2_supported", lc_abi_type_size(MPI_INTEGER2) > 0 },
        { "mpi_integer4_supported", lc_abi_type_size(MPI_INTEGER4) > 0 },
        { "mpi_integer8_supported", lc_abi_type_size(MPI_INTEGER8) > 0 },
        { "mpi_integer16_supported", lc_abi_type_size(MPI_INTEGER16) > 0 },
        { "mpi_real2_supported", lc_abi_type_size(MPI_REAL2) > 0 },
        { "mpi_real4_supported", lc_abi_type_size(MPI_REAL4) > 0 },
        { "mpi_real8_supported", lc_abi_type_size(MPI_REAL8) > 0 },
        { "mpi_real16_supported", lc_abi_type_size(MPI_REAL16) > 0 },
        { "mpi_complex4_supported", lc_abi_type_size(MPI_COMPLEX4) > 0 },
        { "mpi_complex8_supported", lc_abi_type_size(MPI_COMPLEX8) > 0 },
        { "mpi_complex16_supported", lc_abi_type_size(MPI_COMPLEX16) > 0 },
        { "mpi_complex32_supported", lc_abi_type_size(MPI_COMPLEX32) > 0 },
        { "mpi_double_complex_supported", lc_abi_type_size(MPI_DOUBLE_COMPLEX) > 0 },
    };
    int rc;
    LC_TRY(lc_check_ptr(info, "info"));
    LC_TRY(lc_abi_info(keys, (int)(sizeof(keys) / sizeof(keys[0])), info));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Abi_get_fortran_info", rc);
}
LC_MPI_ALIAS(Abi_get_fortran_info);
