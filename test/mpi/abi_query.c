/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * abi_query: MPI 5.0's ABI queries.  Locus has MPICH's ABI, not the
 * standard one, so MPI_Abi_get_version answers -1.-1 (before MPI_Init
 * and after MPI_Finalize too); MPI_Abi_get_info gives the sizes of
 * MPI_Aint, MPI_Count and MPI_Offset; MPI_Abi_get_fortran_info the sizes
 * of LOGICAL, INTEGER, REAL, DOUBLE PRECISION (as MPI_Type_size says) and
 * "true"/"false" for each optional Fortran type, true exactly when mpi.h
 * names it and MPI_Type_size accepts it.  Errors: NULL arguments.
 * MPICH 4.0.2 has none of these functions: Locus only (MPICH 4.2+ built
 * without the standard ABI gives the same answers).
 */
#include "lc_test.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* Built against an older mpi.h (MPICH 4.0.2 in validate_with_mpich.sh):
 * it has no MPI 5.0 ABI queries, so the program only says so. */
#if !(defined(LOCUS_MPI) || MPI_VERSION >= 5)
int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    if (lc_world_rank() == 0) fprintf(stderr, "this mpi.h has no MPI 5.0 ABI queries: nothing tested\n");
    return lc_finish();
}
#else

static void check_key(MPI_Info info, const char *key, const char *want)
{
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    LC_MPI(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag));
    LC_CHECK(flag, "key %s is missing", key);
    if (flag) LC_CHECK(strcmp(value, want) == 0, "key %s is \"%s\", expected \"%s\"", key, value, want);
}

static void check_size(MPI_Info info, const char *key, int size)
{
    char want[16];
    snprintf(want, sizeof(want), "%d", size);
    check_key(info, key, want);
}

static int type_size(MPI_Datatype t)
{
    int size = 0;
    if (t == MPI_DATATYPE_NULL || MPI_Type_size(t, &size) != MPI_SUCCESS) return 0;
    return size;
}

int main(int argc, char **argv)
{
    int major = 0, minor = 0;
    LC_MPI(MPI_Abi_get_version(&major, &minor));
    int early_ok = major == -1 && minor == -1;
    LC_MPI(MPI_Init(&argc, &argv));
    LC_CHECK(early_ok, "before MPI_Init: MPI_Abi_get_version gave %d.%d, expected -1.-1", major, minor);
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    major = minor = 0;
    LC_MPI(MPI_Abi_get_version(&major, &minor));
    LC_CHECK(major == -1 && minor == -1, "MPI_Abi_get_version gave %d.%d, expected -1.-1", major, minor);

    MPI_Info info;
    LC_MPI(MPI_Abi_get_info(&info));
    check_size(info, "mpi_aint_size", (int)sizeof(MPI_Aint));
    check_size(info, "mpi_count_size", (int)sizeof(MPI_Count));
    check_size(info, "mpi_offset_size", (int)sizeof(MPI_Offset));
    LC_MPI(MPI_Info_free(&info));

    LC_MPI(MPI_Abi_get_fortran_info(&info));
    LC_CHECK(info != MPI_INFO_NULL, "MPI_Abi_get_fortran_info gave MPI_INFO_NULL, but Locus has the Fortran types");
    if (info != MPI_INFO_NULL) {
        check_size(info, "mpi_logical_size", type_size(MPI_LOGICAL));
        check_size(info, "mpi_integer_size", type_size(MPI_INTEGER));
        check_size(info, "mpi_real_size", type_size(MPI_REAL));
        check_size(info, "mpi_double_precision_size", type_size(MPI_DOUBLE_PRECISION));
        struct {
            const char *key;
            MPI_Datatype t;
        } opt[] = {
            { "mpi_integer1_supported", MPI_INTEGER1 },   { "mpi_integer2_supported", MPI_INTEGER2 },
            { "mpi_integer4_supported", MPI_INTEGER4 },   { "mpi_integer8_supported", MPI_INTEGER8 },
            { "mpi_integer16_supported", MPI_INTEGER16 }, { "mpi_real4_supported", MPI_REAL4 },
            { "mpi_real8_supported", MPI_REAL8 },         { "mpi_real16_supported", MPI_REAL16 },
            { "mpi_complex8_supported", MPI_COMPLEX8 },   { "mpi_complex16_supported", MPI_COMPLEX16 },
            { "mpi_complex32_supported", MPI_COMPLEX32 }, { "mpi_double_complex_supported", MPI_DOUBLE_COMPLEX },
#ifdef MPI_LOGICAL1
            { "mpi_logical1_supported", MPI_LOGICAL1 },
#else
            { "mpi_logical1_supported", MPI_DATATYPE_NULL },
#endif
#ifdef MPI_REAL2
            { "mpi_real2_supported", MPI_REAL2 },
#else
            { "mpi_real2_supported", MPI_DATATYPE_NULL },
#endif
        };
        for (size_t i = 0; i < sizeof(opt) / sizeof(opt[0]); i++)
            check_key(info, opt[i].key, type_size(opt[i].t) > 0 ? "true" : "false");
        const char *more[] = { "mpi_logical2_supported", "mpi_logical4_supported", "mpi_logical8_supported",
                               "mpi_logical16_supported", "mpi_complex4_supported" };
        for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
            char value[16];
            int flag = 0;
            LC_MPI(MPI_Info_get(info, more[i], 15, value, &flag));
            LC_CHECK(flag && (!strcmp(value, "true") || !strcmp(value, "false")), "key %s: %s", more[i],
                     flag ? value : "missing");
        }
        LC_MPI(MPI_Info_free(&info));
    }

    int rc = MPI_Abi_get_version(NULL, &minor);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_ARG, "Abi_get_version(NULL): class %s", lc_class_name(lc_class_of(rc)));
    rc = MPI_Abi_get_info(NULL);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_ARG, "Abi_get_info(NULL): class %s", lc_class_name(lc_class_of(rc)));
    rc = MPI_Abi_get_fortran_info(NULL);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_ARG, "Abi_get_fortran_info(NULL): class %s", lc_class_name(lc_class_of(rc)));
    int errs = lc_finish();
    major = minor = 0;
    if (MPI_Abi_get_version(&major, &minor) != MPI_SUCCESS || major != -1 || minor != -1) {
        fprintf(stderr, "FAIL %s:%d: after MPI_Finalize: MPI_Abi_get_version gave %d.%d\n", __FILE__, __LINE__, major,
                minor);
        return 1;
    }
    return errs;
}
#endif
