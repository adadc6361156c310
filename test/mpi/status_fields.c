/* SPDX-License-Identifier: BSD-3-Clause */
/* status_fields: MPI 4.1's MPI_Status_get/set_source, _tag, _error, on a
 * status filled by a receive and on one the program fills; errors for
 * MPI_STATUS_IGNORE.  (MPICH 4.0.2 predates these functions: Locus only.) */
#include "lc_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rank, v = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Status st;
    LC_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, rank, 17, &v, 1, MPI_INT, rank, 17, MPI_COMM_WORLD, &st));
    int src = -1, tag = -1, err = -1;
    LC_MPI(MPI_Status_get_source(&st, &src));
    LC_MPI(MPI_Status_get_tag(&st, &tag));
    LC_CHECK(src == rank && tag == 17, "received status: source %d tag %d", src, tag);
    LC_MPI(MPI_Status_set_source(&st, 3));
    LC_MPI(MPI_Status_set_tag(&st, 44));
    LC_MPI(MPI_Status_set_error(&st, MPI_ERR_TRUNCATE));
    LC_CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 44 && st.MPI_ERROR == MPI_ERR_TRUNCATE, "set: %d %d %d",
             st.MPI_SOURCE, st.MPI_TAG, st.MPI_ERROR);
    LC_MPI(MPI_Status_get_error(&st, &err));
    LC_CHECK(err == MPI_ERR_TRUNCATE, "get_error %d", err);
    int count = -1;
    LC_MPI(MPI_Get_count(&st, MPI_INT, &count));
    LC_CHECK(count == 1, "the count survived the setters: %d", count);
    LC_CHECK(MPI_Status_get_tag(MPI_STATUS_IGNORE, &tag) != MPI_SUCCESS, "get_tag of MPI_STATUS_IGNORE succeeded");
    LC_CHECK(MPI_Status_set_tag(MPI_STATUS_IGNORE, 1) != MPI_SUCCESS, "set_tag of MPI_STATUS_IGNORE succeeded");
    return lc_finish();
}
