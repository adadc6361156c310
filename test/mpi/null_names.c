/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * null_names: MPI 4.1 gives the null handles names — MPI_Comm_get_name
 * (MPI_COMM_NULL) is "MPI_COMM_NULL", MPI_Type_get_name(MPI_DATATYPE_NULL)
 * "MPI_DATATYPE_NULL", MPI_Win_get_name(MPI_WIN_NULL) "MPI_WIN_NULL"
 * (mpi4py expects these from a 4.1 library).  An
 * MPI 4.0 library (MPICH 4.0.2) may still reject them with the handle's
 * error class; the check follows MPI_Get_version.  Setting a name on a
 * null handle stays an error everywhere.
 */
#include "lc_test.h"

#include <mpi.h>
#include <string.h>

static void check_name(int rc, const char *got, int len, const char *want, int errclass, int is41)
{
    if (is41) {
        LC_CHECK(rc == MPI_SUCCESS, "get_name on %s failed: %s", want, lc_err_str(rc));
        if (rc == MPI_SUCCESS) {
            LC_CHECK(strcmp(got, want) == 0, "name is '%s', expected '%s'", got, want);
            LC_CHECK(len == (int)strlen(want), "resultlen %d, expected %d", len, (int)strlen(want));
        }
    } else if (rc != MPI_SUCCESS) {
        LC_CHECK(lc_class_of(rc) == errclass, "get_name on %s: class %s, expected %s", want,
                 lc_class_name(lc_class_of(rc)), lc_class_name(errclass));
    } else {
        LC_CHECK(strcmp(got, want) == 0, "name is '%s', expected '%s'", got, want);
    }
}

int main(int argc, char **argv)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len, rc, version, subversion;
    LC_MPI(MPI_Init(&argc, &argv));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Get_version(&version, &subversion));
    int is41 = version > 4 || (version == 4 && subversion >= 1);

    memset(name, 'x', sizeof(name));
    len = -1;
    rc = MPI_Comm_get_name(MPI_COMM_NULL, name, &len);
    check_name(rc, name, len, "MPI_COMM_NULL", MPI_ERR_COMM, is41);

    memset(name, 'x', sizeof(name));
    len = -1;
    rc = MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len);
    check_name(rc, name, len, "MPI_DATATYPE_NULL", MPI_ERR_TYPE, is41);

    memset(name, 'x', sizeof(name));
    len = -1;
    rc = MPI_Win_get_name(MPI_WIN_NULL, name, &len);
    check_name(rc, name, len, "MPI_WIN_NULL", MPI_ERR_WIN, is41);

    /* Real handles keep their names. */
    LC_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    LC_CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "MPI_COMM_WORLD is named '%s'", name);
    LC_MPI(MPI_Type_get_name(MPI_INT, name, &len));
    LC_CHECK(strcmp(name, "MPI_INT") == 0, "MPI_INT is named '%s'", name);

    rc = MPI_Comm_set_name(MPI_COMM_NULL, "x");
    LC_CHECK(lc_class_of(rc) == MPI_ERR_COMM, "Comm_set_name(MPI_COMM_NULL): class %s",
             lc_class_name(lc_class_of(rc)));
    rc = MPI_Type_set_name(MPI_DATATYPE_NULL, "x");
    LC_CHECK(lc_class_of(rc) == MPI_ERR_TYPE, "Type_set_name(MPI_DATATYPE_NULL): class %s",
             lc_class_name(lc_class_of(rc)));

    return lc_finish();
}
