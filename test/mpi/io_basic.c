/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * io_basic.c — MPI-IO files as a whole: open modes and their errors
 * (MPI_ERR_AMODE, NO_SUCH_FILE, FILE_EXISTS, ACCESS, READ_ONLY), the
 * default error handler of files (MPI_ERRORS_RETURN) and user ones,
 * close with DELETE_ON_CLOSE, delete, sizes (set_size, preallocate,
 * get_size), get_amode, get_group, atomicity, hints (get_info), explicit
 * offset reads and writes seen by other ranks after sync, c2f/f2c.
 */
#include "lc_io_test.h"

#include <sys/stat.h>

static int lc_eh_calls, lc_eh_code;
static MPI_File lc_eh_file;

static void lc_file_eh(MPI_File *fh, int *code, ...)
{
    lc_eh_calls++;
    lc_eh_code = *code;
    lc_eh_file = *fh;
}

static void test_open_errors(int rank)
{
    char path[600], other[600];
    MPI_File fh = MPI_FILE_NULL;
    MPI_Errhandler eh;
    LC_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    LC_CHECK(eh == MPI_ERRORS_RETURN, "the default file error handler is not MPI_ERRORS_RETURN");
    LC_MPI(MPI_Errhandler_free(&eh));

    lc_io_path(path, sizeof path, "absent");
    LC_IO_EXPECT(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_NO_SUCH_FILE);
    LC_CHECK(fh == MPI_FILE_NULL, "a failed open changed the handle");
    lc_io_path(path, sizeof path, "f1");
    LC_IO_EXPECT(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
                 MPI_ERR_AMODE);
    LC_IO_EXPECT(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
                 MPI_ERR_AMODE);
    LC_IO_EXPECT(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    LC_IO_EXPECT(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh),
                 MPI_ERR_AMODE);

    /* Bad arguments on one rank: every rank returns an error, none waits
     * (Locus: the ranks agree; MPICH may crash on a NULL name). */
    if (!lc_library_is_mpich()) {
        int last = lc_world_size() - 1;
        int rc = MPI_File_open(MPI_COMM_WORLD, rank == last ? NULL : path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                               MPI_INFO_NULL, &fh);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_ARG, "a NULL file name on rank %d gave class %d here", last,
                 lc_class_of(rc));
    }

    /* EXCL: the first open creates, the second finds the file. */
    LC_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL, MPI_INFO_NULL, &fh));
    LC_MPI(MPI_File_close(&fh));
    LC_CHECK(fh == MPI_FILE_NULL, "close did not set the handle to MPI_FILE_NULL");
    LC_IO_EXPECT(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL,
                               MPI_INFO_NULL, &fh),
                 MPI_ERR_FILE_EXISTS);

    /* Permission (not for root, whom the kernel lets in). */
    if (geteuid() != 0) {
        lc_io_path(other, sizeof other, "noperm");
        LC_MPI(MPI_File_open(MPI_COMM_WORLD, other, MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
        LC_MPI(MPI_File_close(&fh));
        if (rank == 0) chmod(other, 0);
        LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
        LC_IO_EXPECT(MPI_File_open(MPI_COMM_WORLD, other, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_ACCESS);
        LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) chmod(other, 0600);
    }

    /* Delete, then it is gone. */
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) LC_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    LC_IO_EXPECT(MPI_File_delete(path, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);

    /* DELETE_ON_CLOSE. */
    lc_io_path(path, sizeof path, "doc");
    LC_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
    LC_MPI(MPI_File_close(&fh));
    LC_IO_EXPECT(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_NO_SUCH_FILE);
}

static void test_file_queries(int rank, int size)
{
    char path[600];
    MPI_File fh;
    MPI_Info info, used;
    LC_MPI(MPI_Info_create(&info));
    LC_MPI(MPI_Info_set(info, "cb_buffer_size", "1048576"));
    LC_MPI(MPI_Info_set(info, "striping_factor", "4"));
    LC_MPI(MPI_Info_set(info, "striping_unit", "65536"));
    lc_io_path(path, sizeof path, "q");
    LC_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
    LC_MPI(MPI_Info_free(&info));

    int amode;
    LC_MPI(MPI_File_get_amode(fh, &amode));
    LC_CHECK(amode == (MPI_MODE_RDWR | MPI_MODE_CREATE), "get_amode gave %#x", amode);
    MPI_Group g, wg;
    int cmp;
    LC_MPI(MPI_File_get_group(fh, &g));
    LC_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    LC_MPI(MPI_Group_compare(g, wg, &cmp));
    LC_CHECK(cmp == MPI_IDENT, "the file's group is not MPI_COMM_WORLD's (compare %d)", cmp);
    LC_MPI(MPI_Group_free(&g));
    LC_MPI(MPI_Group_free(&wg));

    char val[MPI_MAX_INFO_VAL + 1];
    int flag;
    LC_MPI(MPI_File_get_info(fh, &used));
    LC_MPI(MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, val, &flag));
    LC_CHECK(flag && !strcmp(val, "1048576"), "cb_buffer_size reported as %s", flag ? val : "(absent)");
    LC_MPI(MPI_Info_get(used, "cb_nodes", MPI_MAX_INFO_VAL, val, &flag));
    LC_CHECK(flag, "cb_nodes is not reported");
    if (!lc_library_is_mpich()) { /* ROMIO's UFS driver drops striping hints */
        LC_MPI(MPI_Info_get(used, "striping_factor", MPI_MAX_INFO_VAL, val, &flag));
        LC_CHECK(flag && !strcmp(val, "4"), "striping_factor reported as %s", flag ? val : "(absent)");
    }
    LC_MPI(MPI_Info_free(&used));

    int atom = -1;
    LC_MPI(MPI_File_get_atomicity(fh, &atom));
    LC_CHECK(atom == 0, "atomicity starts as %d", atom);
    LC_MPI(MPI_File_set_atomicity(fh, 1));
    LC_MPI(MPI_File_get_atomicity(fh, &atom));
    LC_CHECK(atom == 1, "atomicity is %d after set_atomicity(1)", atom);

    /* Each rank writes its block at an explicit offset; after
     * sync-barrier-sync every rank reads every block. */
    enum { B = 1000 };
    int *mine = lc_malloc(B * sizeof(int)), *back = lc_malloc(B * sizeof(int));
    for (int i = 0; i < B; i++) mine[i] = (int)lc_pattern(rank, 1, i);
    MPI_Status st;
    LC_MPI(MPI_File_write_at(fh, (MPI_Offset)rank * B * 4, mine, B, MPI_INT, &st));
    int count;
    LC_MPI(MPI_Get_count(&st, MPI_INT, &count));
    LC_CHECK(count == B, "write_at's status counts %d ints, not %d", count, B);
    LC_MPI(MPI_File_sync(fh));
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    LC_MPI(MPI_File_sync(fh));
    MPI_Offset fsize;
    LC_MPI(MPI_File_get_size(fh, &fsize));
    LC_CHECK(fsize == (MPI_Offset)size * B * 4, "size %lld, expected %lld", (long long)fsize,
             (long long)size * B * 4);
    for (int r = 0; r < size; r++) {
        LC_MPI(MPI_File_read_at(fh, (MPI_Offset)r * B * 4, back, B, MPI_INT, &st));
        int bad = 0;
        for (int i = 0; i < B; i++) bad += back[i] != (int)lc_pattern(r, 1, i);
        LC_CHECK(bad == 0, "%d ints of rank %d's block differ", bad, r);
    }
    /* A read past the end gets what is there. */
    LC_MPI(MPI_File_read_at(fh, fsize - 8, back, 10, MPI_INT, &st));
    LC_MPI(MPI_Get_count(&st, MPI_INT, &count));
    LC_CHECK(count == 2, "a read across the end of the file got %d ints, not 2", count);
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));

    if (!lc_library_is_mpich()) {
        int rc = MPI_File_set_size(fh, rank == size - 1 ? -1 : 100);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_ARG, "a negative size on one rank gave class %d here", lc_class_of(rc));
    }
    LC_MPI(MPI_File_set_size(fh, 100));
    LC_MPI(MPI_File_get_size(fh, &fsize));
    LC_CHECK(fsize == 100, "size %lld after set_size(100)", (long long)fsize);
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* get_size is local: everyone looks before the next change */
    LC_MPI(MPI_File_preallocate(fh, 5000));
    LC_MPI(MPI_File_get_size(fh, &fsize));
    LC_CHECK(fsize == 5000, "size %lld after preallocate(5000)", (long long)fsize);
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    LC_MPI(MPI_File_preallocate(fh, 10));
    LC_MPI(MPI_File_get_size(fh, &fsize));
    LC_CHECK(fsize == 5000, "preallocate(10) shrank the file to %lld", (long long)fsize);

    MPI_Aint ext;
    MPI_Datatype vec;
    LC_MPI(MPI_Type_vector(3, 1, 4, MPI_DOUBLE, &vec));
    LC_MPI(MPI_Type_commit(&vec));
    LC_MPI(MPI_File_get_type_extent(fh, vec, &ext));
    LC_CHECK(ext == 9 * 8, "file extent of a vector %ld, not 72", (long)ext);
    LC_MPI(MPI_Type_free(&vec));

    MPI_Fint fint = MPI_File_c2f(fh);
    LC_CHECK(MPI_File_f2c(fint) == fh, "MPI_File_f2c(MPI_File_c2f(fh)) is not fh");
    LC_CHECK(MPI_File_c2f(MPI_FILE_NULL) == 0, "MPI_File_c2f(MPI_FILE_NULL) is not 0");

    LC_MPI(MPI_File_close(&fh));
    free(mine);
    free(back);
}

static void test_errhandlers(void)
{
    char path[600];
    MPI_File fh;
    MPI_Errhandler eh;
    int buf[4] = { 0 };
    lc_io_path(path, sizeof path, "eh");
    LC_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    /* read on a write-only file: MPI_ERR_ACCESS, returned (the default). */
    LC_IO_EXPECT(MPI_File_read_at(fh, 0, buf, 4, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ACCESS);
    LC_IO_EXPECT(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);
    LC_MPI(MPI_File_create_errhandler(lc_file_eh, &eh));
    LC_MPI(MPI_File_set_errhandler(fh, eh));
    lc_eh_calls = 0;
    int rc = MPI_File_read_at(fh, 0, buf, 4, MPI_INT, MPI_STATUS_IGNORE);
    LC_CHECK(lc_eh_calls == 1 && lc_eh_file == fh && lc_eh_code == rc && lc_class_of(rc) == MPI_ERR_ACCESS,
             "the file's handler ran %d times (file ok %d, class %d)", lc_eh_calls, lc_eh_file == fh,
             lc_class_of(lc_eh_code));
    LC_MPI(MPI_File_call_errhandler(fh, MPI_ERR_IO));
    LC_CHECK(lc_eh_calls == 2 && lc_eh_code == MPI_ERR_IO, "MPI_File_call_errhandler did not run the handler");
    MPI_Errhandler got;
    LC_MPI(MPI_File_get_errhandler(fh, &got));
    LC_CHECK(got == eh, "get_errhandler gave another handler");
    LC_MPI(MPI_Errhandler_free(&got));
    LC_MPI(MPI_File_close(&fh));
    /* On MPI_FILE_NULL: used by open. */
    LC_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    lc_eh_calls = 0;
    lc_io_path(path, sizeof path, "absent2");
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    LC_CHECK(lc_eh_calls == 1 && lc_eh_file == MPI_FILE_NULL && lc_class_of(rc) == MPI_ERR_NO_SUCH_FILE,
             "MPI_FILE_NULL's handler ran %d times for a failed open", lc_eh_calls);
    LC_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Errhandler_free(&eh));
    /* Writes on a read-only file. */
    lc_io_path(path, sizeof path, "eh");
    LC_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    rc = MPI_File_write_at(fh, 0, buf, 4, MPI_INT, MPI_STATUS_IGNORE);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_READ_ONLY || lc_class_of(rc) == MPI_ERR_ACCESS,
             "a write on a read-only file returned class %d", lc_class_of(rc));
    LC_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    lc_io_tmpdir("io_basic");
    test_open_errors(rank);
    test_file_queries(rank, size);
    test_errhandlers();
    lc_io_cleanup();
    return lc_finish();
}
