/* SPDX-License-Identifier: BSD-3-Clause */
/* handle_conv: conversion between C and Fortran.  Every handle type's
 * c2f/f2c round-trips (handles of predefined and created objects);
 * MPI_Status_c2f/f2c and the Fortran 2008 forms carry source, tag, error,
 * count and the cancelled flag through and back; (Locus) MPI 5.0's
 * <Handle>_toint/fromint give the Fortran values and round-trip; the objects an
 * MPICH-built binary takes the address of (MPI_F_STATUS(ES)_IGNORE,
 * MPI_F08_STATUS(ES)_IGNORE, MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY) exist,
 * are distinct and not NULL; converting an IGNORE status fails with
 * MPI_ERR_ARG (Locus only: MPICH 4.0.2 does not check). */
#include "lc_test.h"

#include <unistd.h>

#define ROUND_TRIP(type, h)                                                                                   \
    do {                                                                                                      \
        MPI_Fint f = MPI_##type##_c2f(h);                                                                     \
        LC_CHECK(MPI_##type##_f2c(f) == (h), #type " handle %#x does not survive c2f/f2c", (unsigned)(h));     \
    } while (0)

static void test_handles(void)
{
    MPI_Group g;
    MPI_Info info;
    MPI_Errhandler eh;
    MPI_Request req;
    MPI_Op op = MPI_SUM;
    int x = 0;
    LC_MPI(MPI_Comm_group(MPI_COMM_WORLD, &g));
    LC_MPI(MPI_Info_create(&info));
    LC_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    LC_MPI(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
    ROUND_TRIP(Comm, MPI_COMM_WORLD);
    ROUND_TRIP(Comm, MPI_COMM_SELF);
    ROUND_TRIP(Comm, MPI_COMM_NULL);
    ROUND_TRIP(Type, MPI_DOUBLE);
    ROUND_TRIP(Type, MPI_2INT);
    ROUND_TRIP(Group, g);
    ROUND_TRIP(Group, MPI_GROUP_EMPTY);
    ROUND_TRIP(Info, info);
    ROUND_TRIP(Info, MPI_INFO_NULL);
    ROUND_TRIP(Errhandler, eh);
    ROUND_TRIP(Request, req);
    ROUND_TRIP(Request, MPI_REQUEST_NULL);
    ROUND_TRIP(Op, op);
    ROUND_TRIP(Message, MPI_MESSAGE_NO_PROC);
#if !defined(MPICH_VERSION) /* Locus also exports the conversions as functions; (name) bypasses the macro */
    LC_CHECK((MPI_Comm_f2c)((MPI_Comm_c2f)(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "MPI_Comm_c2f/f2c functions");
    LC_CHECK((MPI_Group_f2c)((MPI_Group_c2f)(g)) == g, "MPI_Group_c2f/f2c functions");
    LC_CHECK((MPI_Info_f2c)((MPI_Info_c2f)(info)) == info, "MPI_Info_c2f/f2c functions");
    LC_CHECK((MPI_Type_f2c)((MPI_Type_c2f)(MPI_INT)) == MPI_INT, "MPI_Type_c2f/f2c functions");
    LC_CHECK((MPI_Request_f2c)((MPI_Request_c2f)(req)) == req, "MPI_Request_c2f/f2c functions");
    LC_CHECK((MPI_Op_f2c)((MPI_Op_c2f)(MPI_MAX)) == MPI_MAX, "MPI_Op_c2f/f2c functions");
    LC_CHECK((MPI_Errhandler_f2c)((MPI_Errhandler_c2f)(eh)) == eh, "MPI_Errhandler_c2f/f2c functions");
    LC_CHECK((MPI_Message_f2c)((MPI_Message_c2f)(MPI_MESSAGE_NULL)) == MPI_MESSAGE_NULL, "MPI_Message_c2f/f2c");
    LC_CHECK((MPI_Win_f2c)((MPI_Win_c2f)(MPI_WIN_NULL)) == MPI_WIN_NULL, "MPI_Win_c2f/f2c functions");
    LC_CHECK((MPI_Session_f2c)((MPI_Session_c2f)(MPI_SESSION_NULL)) == MPI_SESSION_NULL, "MPI_Session_c2f/f2c");
    /* MPI 5.0: handles as C integers, the Fortran values (MPICH 4.0.2 has none) */
    LC_CHECK(MPI_Comm_toint(MPI_COMM_WORLD) == MPI_Comm_c2f(MPI_COMM_WORLD), "MPI_Comm_toint");
    LC_CHECK(MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_SELF)) == MPI_COMM_SELF, "MPI_Comm_toint/fromint");
    LC_CHECK(MPI_Type_fromint(MPI_Type_toint(MPI_2INT)) == MPI_2INT, "MPI_Type_toint/fromint");
    LC_CHECK(MPI_Group_fromint(MPI_Group_toint(g)) == g, "MPI_Group_toint/fromint");
    LC_CHECK(MPI_Info_fromint(MPI_Info_toint(info)) == info, "MPI_Info_toint/fromint");
    LC_CHECK(MPI_Errhandler_fromint(MPI_Errhandler_toint(eh)) == eh, "MPI_Errhandler_toint/fromint");
    LC_CHECK(MPI_Request_fromint(MPI_Request_toint(req)) == req, "MPI_Request_toint/fromint");
    LC_CHECK(MPI_Op_fromint(MPI_Op_toint(MPI_PROD)) == MPI_PROD, "MPI_Op_toint/fromint");
    LC_CHECK(MPI_Message_fromint(MPI_Message_toint(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC,
             "MPI_Message_toint/fromint");
    LC_CHECK(MPI_Session_fromint(MPI_Session_toint(MPI_SESSION_NULL)) == MPI_SESSION_NULL, "MPI_Session_toint/fromint");
    LC_CHECK(MPI_Win_fromint(MPI_Win_toint(MPI_WIN_NULL)) == MPI_WIN_NULL, "MPI_Win_toint/fromint");
    LC_CHECK(MPI_File_toint(MPI_FILE_NULL) == 0 && MPI_File_fromint(0) == MPI_FILE_NULL, "MPI_File_toint/fromint of null");
    MPI_File fh;
    char path[64];
    snprintf(path, sizeof path, "/tmp/lc_handle_conv_%d_%d", (int)getpid(), lc_world_rank());
    LC_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
    LC_CHECK(MPI_File_toint(fh) == MPI_File_c2f(fh) && MPI_File_fromint(MPI_File_toint(fh)) == fh,
             "MPI_File_toint/fromint of an open file");
    LC_MPI(MPI_File_close(&fh));
#endif
    LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    LC_MPI(MPI_Errhandler_free(&eh));
    LC_MPI(MPI_Info_free(&info));
    LC_MPI(MPI_Group_free(&g));
}

static void test_status(void)
{
    int buf[5] = { 1, 2, 3, 4, 5 }, rbuf[5], n = -1, flag = 0;
    MPI_Status st, back;
    LC_MPI(MPI_Sendrecv(buf, 5, MPI_INT, 0, 42, rbuf, 5, MPI_INT, 0, 42, MPI_COMM_SELF, &st));
    MPI_Fint f[MPI_F_STATUS_SIZE];
    MPI_F08_status f08, f08b;
    LC_MPI(MPI_Status_c2f(&st, f));
    LC_CHECK(f[MPI_F_SOURCE] == 0 && f[MPI_F_TAG] == 42 && f[MPI_F_ERROR] == st.MPI_ERROR,
             "Fortran status: source %d tag %d error %d", f[MPI_F_SOURCE], f[MPI_F_TAG], f[MPI_F_ERROR]);
    memset(&back, 0xff, sizeof(back));
    LC_MPI(MPI_Status_f2c(f, &back));
    LC_MPI(MPI_Get_count(&back, MPI_INT, &n));
    LC_MPI(MPI_Test_cancelled(&back, &flag));
    LC_CHECK(back.MPI_SOURCE == 0 && back.MPI_TAG == 42 && n == 5 && !flag, "round trip: source %d tag %d count %d",
             back.MPI_SOURCE, back.MPI_TAG, n);
#if !defined(MPICH_VERSION) /* MPICH 4.0.2 declares the F08 conversions but exports them only with Fortran */
    LC_MPI(MPI_Status_c2f08(&st, &f08));
    LC_CHECK(f08.MPI_SOURCE == 0 && f08.MPI_TAG == 42, "F08 status: source %d tag %d", f08.MPI_SOURCE, f08.MPI_TAG);
    LC_MPI(MPI_Status_f2f08(f, &f08b));
    LC_CHECK(memcmp(&f08, &f08b, sizeof(f08)) == 0, "MPI_Status_f2f08 differs from MPI_Status_c2f08");
    MPI_Fint f2[MPI_F_STATUS_SIZE];
    LC_MPI(MPI_Status_f082f(&f08b, f2));
    LC_CHECK(memcmp(f, f2, sizeof(f)) == 0, "MPI_Status_f082f does not give back the Fortran status");
    memset(&back, 0, sizeof(back));
    LC_MPI(MPI_Status_f082c(&f08, &back));
    LC_MPI(MPI_Get_count(&back, MPI_INT, &n));
    LC_CHECK(back.MPI_TAG == 42 && n == 5, "MPI_Status_f082c: tag %d count %d", back.MPI_TAG, n);
#else
    (void)f08, (void)f08b;
#endif
}

static void test_objects(void)
{
    const void *p[] = { MPI_F_STATUS_IGNORE, MPI_F_STATUSES_IGNORE, MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY };
    const char *names[] = { "MPI_F_STATUS_IGNORE", "MPI_F_STATUSES_IGNORE", "MPI_UNWEIGHTED", "MPI_WEIGHTS_EMPTY" };
    /* MPICH sets the Fortran ones only when its Fortran library starts. */
    for (int i = lc_library_is_mpich() ? 2 : 0; i < 4; i++) {
        LC_CHECK(p[i] != NULL, "%s is NULL", names[i]);
        for (int j = 0; j < i; j++)
            LC_CHECK(p[i] != p[j], "%s and %s are the same address", names[i], names[j]);
    }
    LC_CHECK(MPI_F08_STATUS_IGNORE != NULL && MPI_F08_STATUSES_IGNORE != NULL &&
                 (void *)MPI_F08_STATUS_IGNORE != (void *)MPI_F08_STATUSES_IGNORE,
             "MPI_F08_STATUS(ES)_IGNORE: %p %p", (void *)MPI_F08_STATUS_IGNORE, (void *)MPI_F08_STATUSES_IGNORE);
    if (!lc_library_is_mpich()) {
        MPI_Fint f[MPI_F_STATUS_SIZE];
        MPI_Status st;
        LC_CHECK(lc_class_of(MPI_Status_c2f(MPI_STATUS_IGNORE, f)) == MPI_ERR_ARG, "c2f of MPI_STATUS_IGNORE");
        LC_CHECK(lc_class_of(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &st)) == MPI_ERR_ARG, "f2c of MPI_F_STATUS_IGNORE");
    }
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    test_handles();
    test_status();
    test_objects();
    return lc_finish();
}
