/* SPDX-License-Identifier: BSD-3-Clause */
/* io_view_order: MPI_File_set_view refuses an etype or filetype whose
 * displacements are negative or decrease, and one with overlapping
 * elements when the file is open for writing (MPI 4.1 §14.3); read-only,
 * overlaps are allowed.  Error class MPI_ERR_IO, as ROMIO (MPICH's
 * io/tst_fileview).  Locus accepted decreasing and overlapping types and
 * answered MPI_ERR_TYPE for negative ones. */
#include "lc_test.h"

#include <stdio.h>
#include <unistd.h>

/* An indexed type of two MPI_INT blocks. */
static MPI_Datatype two_blocks(int d0, int l0, int d1, int l1)
{
    int disp[2] = { d0, d1 }, blen[2] = { l0, l1 };
    MPI_Datatype t;
    LC_MPI(MPI_Type_indexed(2, blen, disp, MPI_INT, &t));
    LC_MPI(MPI_Type_commit(&t));
    return t;
}

static void expect_view(MPI_File fh, MPI_Datatype t, int as_etype, int want_ok, const char *what)
{
    int err = MPI_File_set_view(fh, 0, as_etype ? t : MPI_INT, t, "native", MPI_INFO_NULL);
    int cls = MPI_SUCCESS;
    if (err != MPI_SUCCESS) MPI_Error_class(err, &cls);
    if (want_ok)
        LC_CHECK(err == MPI_SUCCESS, "%s: MPI_File_set_view failed (%s)", what, lc_err_str(err));
    else
        LC_CHECK(cls == MPI_ERR_IO, "%s: MPI_File_set_view gave class %d (%s), expected MPI_ERR_IO", what, cls,
                 lc_err_str(err));
}

static void check_all(MPI_File fh, int writable)
{
    struct {
        int d0, l0, d1, l1, ok_ro, ok_rw;
        const char *what;
    } cases[] = {
        { -2, 1, 2, 1, 0, 0, "negative displacement" },
        { 3, 1, 0, 1, 0, 0, "decreasing displacements" },
        { 0, 3, 1, 1, 1, 0, "overlapping blocks" },
        { 0, 2, 3, 1, 1, 1, "increasing blocks" },
    };
    /* etypes first, then filetypes, as io/tst_fileview (MPICH 4.0.2's
     * ROMIO aborted in MPI_Type_get_envelope with the cases interleaved) */
    for (int as_etype = 1; as_etype >= 0; as_etype--) {
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            MPI_Datatype t = two_blocks(cases[i].d0, cases[i].l0, cases[i].d1, cases[i].l1);
            char what[128];
            int ok = writable ? cases[i].ok_rw : cases[i].ok_ro;
            snprintf(what, sizeof what, "%s %s, file %s", cases[i].what, as_etype ? "etype" : "filetype",
                     writable ? "read-write" : "read-only");
            expect_view(fh, t, as_etype, ok, what);
            LC_MPI(MPI_Type_free(&t));
        }
    }
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    char name[256];
    int rank = lc_world_rank();
    /* one name for the job: rank 0's pid */
    int pid = (int)getpid();
    LC_MPI(MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD));
    snprintf(name, sizeof name, "/tmp/lc_io_view_order.%d", pid);
    MPI_File fh;
    LC_MPI(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    LC_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    check_all(fh, 1);
    LC_MPI(MPI_File_close(&fh));
    LC_MPI(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    LC_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    check_all(fh, 0);
    LC_MPI(MPI_File_close(&fh));
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) unlink(name);
    return lc_finish();
}
