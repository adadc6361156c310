/* SPDX-License-Identifier: BSD-3-Clause */
/* errhandler: error handler management and error classes/strings.
 *  - MPI_COMM_WORLD and MPI_COMM_SELF start with MPI_ERRORS_ARE_FATAL;
 *    MPI_Comm_get_errhandler returns it and MPI_Errhandler_free sets the
 *    handle to MPI_ERRHANDLER_NULL;
 *  - a handler set on one communicator does not change another; a
 *    communicator made by MPI_Comm_dup / MPI_Comm_split inherits its
 *    parent's handler; with MPI_ERRORS_RETURN an error returns a code;
 *  - every predefined error class is its own class under
 *    MPI_Error_class and has a non-empty MPI_Error_string shorter than
 *    MPI_MAX_ERROR_STRING; distinct classes have distinct strings;
 *  - MPI_ERRHANDLER_NULL where a handler is needed is MPI_ERR_ERRHANDLER
 *    (MPI 4.1; value 80 in MPICH's ABI). */
#include "lc_test.h"

static void expect_handler(MPI_Comm c, MPI_Errhandler want, const char *what)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    LC_MPI(MPI_Comm_get_errhandler(c, &eh));
    LC_CHECK(eh == want, "%s: handler %#x, expected %#x", what, (unsigned)eh, (unsigned)want);
    LC_MPI(MPI_Errhandler_free(&eh));
    LC_CHECK(eh == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free left %#x", (unsigned)eh);
}

static const struct {
    int cls;
    const char *name;
} classes[] = {
#define C(x) {x, #x}
    C(MPI_SUCCESS),        C(MPI_ERR_BUFFER),    C(MPI_ERR_COUNT),      C(MPI_ERR_TYPE),
    C(MPI_ERR_TAG),        C(MPI_ERR_COMM),      C(MPI_ERR_RANK),       C(MPI_ERR_REQUEST),
    C(MPI_ERR_ROOT),       C(MPI_ERR_GROUP),     C(MPI_ERR_OP),         C(MPI_ERR_TOPOLOGY),
    C(MPI_ERR_DIMS),       C(MPI_ERR_ARG),       C(MPI_ERR_UNKNOWN),    C(MPI_ERR_TRUNCATE),
    C(MPI_ERR_OTHER),      C(MPI_ERR_INTERN),    C(MPI_ERR_IN_STATUS),  C(MPI_ERR_PENDING),
    C(MPI_ERR_KEYVAL),     C(MPI_ERR_NO_MEM),    C(MPI_ERR_BASE),       C(MPI_ERR_INFO_KEY),
    C(MPI_ERR_INFO_VALUE), C(MPI_ERR_INFO_NOKEY), C(MPI_ERR_SPAWN),     C(MPI_ERR_PORT),
    C(MPI_ERR_SERVICE),    C(MPI_ERR_NAME),      C(MPI_ERR_WIN),        C(MPI_ERR_SIZE),
    C(MPI_ERR_DISP),       C(MPI_ERR_INFO),      C(MPI_ERR_LOCKTYPE),   C(MPI_ERR_ASSERT),
    C(MPI_ERR_RMA_CONFLICT), C(MPI_ERR_RMA_SYNC), C(MPI_ERR_FILE),      C(MPI_ERR_NOT_SAME),
    C(MPI_ERR_AMODE),      C(MPI_ERR_UNSUPPORTED_DATAREP), C(MPI_ERR_UNSUPPORTED_OPERATION),
    C(MPI_ERR_NO_SUCH_FILE), C(MPI_ERR_FILE_EXISTS), C(MPI_ERR_BAD_FILE), C(MPI_ERR_ACCESS),
    C(MPI_ERR_NO_SPACE),   C(MPI_ERR_QUOTA),     C(MPI_ERR_READ_ONLY),  C(MPI_ERR_FILE_IN_USE),
    C(MPI_ERR_DUP_DATAREP), C(MPI_ERR_CONVERSION), C(MPI_ERR_IO),       C(MPI_ERR_RMA_RANGE),
    C(MPI_ERR_RMA_ATTACH), C(MPI_ERR_RMA_SHARED), C(MPI_ERR_RMA_FLAVOR),
#ifdef MPI_ERR_ERRHANDLER /* MPI 4.1's classes; MPICH 4.0.2 lacks them */
    C(MPI_ERR_SESSION),    C(MPI_ERR_PROC_ABORTED), C(MPI_ERR_VALUE_TOO_LARGE), C(MPI_ERR_ERRHANDLER),
#endif
#undef C
};
#define NCLASSES ((int)(sizeof classes / sizeof classes[0]))

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();

    expect_handler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD at start");
    expect_handler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL, "MPI_COMM_SELF at start");

    MPI_Comm a, b, c;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    expect_handler(a, MPI_ERRORS_ARE_FATAL, "dup of MPI_COMM_WORLD");
    LC_MPI(MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN));
    expect_handler(a, MPI_ERRORS_RETURN, "after MPI_Comm_set_errhandler(MPI_ERRORS_RETURN)");
    expect_handler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD after setting a dup's");

    /* inheritance */
    LC_MPI(MPI_Comm_dup(a, &b));
    expect_handler(b, MPI_ERRORS_RETURN, "MPI_Comm_dup of a MPI_ERRORS_RETURN communicator");
    LC_MPI(MPI_Comm_split(a, rank % 2, rank, &c));
    expect_handler(c, MPI_ERRORS_RETURN, "MPI_Comm_split of a MPI_ERRORS_RETURN communicator");

    /* errors return on b and c */
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, size + 1, 0, b);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_RANK, "Send to a bad rank on inherited "
             "MPI_ERRORS_RETURN: class %s", lc_class_name(lc_class_of(rc)));
    rc = MPI_Send(&x, 1, MPI_INT, 0, -2, c);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_TAG, "Send with a bad tag on split communicator: class "
             "%s", lc_class_name(lc_class_of(rc)));

#ifdef MPI_ERR_ERRHANDLER
    rc = MPI_Comm_set_errhandler(b, MPI_ERRHANDLER_NULL);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_ERRHANDLER, "MPI_Comm_set_errhandler(MPI_ERRHANDLER_NULL): class %s",
             lc_class_name(lc_class_of(rc)));
#endif

    /* set back to fatal; obtained handles are independent of the comm */
    MPI_Errhandler keep;
    LC_MPI(MPI_Comm_get_errhandler(b, &keep));
    LC_MPI(MPI_Comm_set_errhandler(b, MPI_ERRORS_ARE_FATAL));
    expect_handler(b, MPI_ERRORS_ARE_FATAL, "after setting MPI_ERRORS_ARE_FATAL back");
    LC_MPI(MPI_Comm_set_errhandler(b, keep)); /* the handle got earlier is still valid */
    LC_MPI(MPI_Errhandler_free(&keep));
    expect_handler(b, MPI_ERRORS_RETURN, "after setting the saved handler");

    LC_MPI(MPI_Comm_free(&c));
    LC_MPI(MPI_Comm_free(&b));
    LC_MPI(MPI_Comm_free(&a));

    /* classes and strings */
    static char strs[NCLASSES][MPI_MAX_ERROR_STRING];
    for (int i = 0; i < NCLASSES; i++) {
        int cls = -1, len = -1;
        LC_MPI(MPI_Error_class(classes[i].cls, &cls));
        LC_CHECK(cls == classes[i].cls, "MPI_Error_class(%s = %d) gave %d", classes[i].name,
                 classes[i].cls, cls);
        memset(strs[i], 0, MPI_MAX_ERROR_STRING);
        LC_MPI(MPI_Error_string(classes[i].cls, strs[i], &len));
        LC_CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(strs[i]) == len,
                 "MPI_Error_string(%s): length %d, strlen %zu", classes[i].name, len,
                 strlen(strs[i]));
        for (int j = 0; j < i; j++)
            LC_CHECK(strcmp(strs[i], strs[j]) != 0, "%s and %s have the same error string \"%s\"",
                     classes[i].name, classes[j].name, strs[i]);
    }
    return lc_finish();
}
