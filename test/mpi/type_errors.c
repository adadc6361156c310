/* SPDX-License-Identifier: BSD-3-Clause */
/* type_errors: with MPI_ERRORS_RETURN, bad datatype arguments come back
 * as error codes of the right class and the program goes on:
 *   uncommitted types in communication and packing -> MPI_ERR_TYPE,
 *   MPI_DATATYPE_NULL / predefined types where a derived one is needed ->
 *   MPI_ERR_TYPE, negative counts and block lengths -> MPI_ERR_COUNT,
 *   bad orders, distributions, type classes -> MPI_ERR_ARG, a pack
 *   buffer too small -> MPI_ERR_TRUNCATE.
 * Where MPICH 4.0.2 accepts the input or crashes on it (a freed handle,
 * an out-of-range subarray, a bad darray grid, an overflowing pack), the
 * check runs on Locus only; each place says so.  At the end a type still
 * builds, packs and a message still moves. */
#include "lc_test.h"

static void expect(int rc, int cls1, int cls2, const char *call)
{
    int cls = lc_class_of(rc);
    if (cls != cls1 && cls != cls2) {
        LC_CHECK(0, "%s returned class %d (%s), expected %s%s%s", call, cls, lc_class_name(cls),
                 lc_class_name(cls1), cls2 != cls1 ? " or " : "", cls2 != cls1 ? lc_class_name(cls2) : "");
        return;
    }
    char msg[MPI_MAX_ERROR_STRING];
    int len = -1;
    LC_CHECK(MPI_Error_string(rc, msg, &len) == MPI_SUCCESS && len > 0, "%s: no error string", call);
}
#define EXPECT(call, cls) expect((call), cls, cls, #call)
#define EXPECT2(call, c1, c2) expect((call), c1, c2, #call)

static int buf[64];
static char out[64];

static void check_uncommitted(MPI_Datatype v)
{
    int pos = 0, size;
    MPI_Status st;
    EXPECT(MPI_Send(buf, 1, v, 0, 0, MPI_COMM_SELF), MPI_ERR_TYPE);
    EXPECT(MPI_Recv(buf, 1, v, 0, 0, MPI_COMM_SELF, &st), MPI_ERR_TYPE);
    EXPECT(MPI_Bcast(buf, 1, v, 0, MPI_COMM_SELF), MPI_ERR_TYPE);
    EXPECT(MPI_Pack(buf, 1, v, out, sizeof(out), &pos, MPI_COMM_SELF), MPI_ERR_TYPE);
    EXPECT(MPI_Unpack(out, sizeof(out), &pos, buf, 1, v, MPI_COMM_SELF), MPI_ERR_TYPE);
    EXPECT(MPI_Pack_size(1, v, MPI_COMM_SELF, &size), MPI_ERR_TYPE);
    LC_MPI(MPI_Type_size(v, &size)); /* queries do not need a commit */
    LC_CHECK(size == 8, "size of the uncommitted vector: %d", size);
}

static void check_handles(int locus)
{
    MPI_Datatype t, bad = MPI_DATATYPE_NULL, tmp = MPI_INT;
    int size, ints[8];
    MPI_Aint aints[8];
    MPI_Datatype types[8];
    EXPECT(MPI_Type_size(MPI_DATATYPE_NULL, &size), MPI_ERR_TYPE);
    EXPECT(MPI_Type_commit(&bad), MPI_ERR_TYPE);
    EXPECT(MPI_Type_free(&bad), MPI_ERR_TYPE);
    EXPECT(MPI_Type_free(&tmp), MPI_ERR_TYPE);
    EXPECT(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    EXPECT(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &t), MPI_ERR_TYPE);
    EXPECT(MPI_Type_set_name(MPI_DATATYPE_NULL, "x"), MPI_ERR_TYPE);
    EXPECT(MPI_Type_get_contents(MPI_INT, 8, 8, 8, ints, aints, types), MPI_ERR_TYPE);
    if (locus) { /* MPICH 4.0.2 goes on using a freed handle */
        LC_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
        tmp = t;
        LC_MPI(MPI_Type_free(&tmp));
        EXPECT(MPI_Type_size(t, &size), MPI_ERR_TYPE);
        EXPECT(MPI_Type_commit(&t), MPI_ERR_TYPE);
        EXPECT(MPI_Send(buf, 1, t, 0, 0, MPI_COMM_SELF), MPI_ERR_TYPE);
    }
}

static void check_arguments(void)
{
    MPI_Datatype t, small, large;
    int bl[] = { 1, -1 }, di[] = { 0, 4 }, pos = 0, ints[8], ni, na, nd, comb;
    MPI_Aint aints[8];
    MPI_Datatype types[8];
    EXPECT(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_vector(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_indexed(2, bl, di, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Pack(buf, -1, MPI_INT, out, sizeof(out), &pos, MPI_COMM_SELF), MPI_ERR_COUNT);
    int sz[] = { 4, 4 }, sub[] = { 2, 2 }, start[] = { 0, 0 };
    EXPECT(MPI_Type_create_subarray(2, sz, sub, start, 77, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_match_size(99, 4, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t), MPI_ERR_ARG);
    /* MPICH 4.0.2 reports these as MPI_ERR_OTHER */
    EXPECT2(MPI_Type_create_f90_integer(19, &t), MPI_ERR_ARG, MPI_ERR_OTHER);
    LC_MPI(MPI_Type_contiguous(2, MPI_INT, &small));
    EXPECT2(MPI_Type_get_contents(small, 0, 0, 1, ints, aints, types), MPI_ERR_ARG, MPI_ERR_OTHER);
    LC_MPI(MPI_Type_contiguous_c(2, MPI_INT, &large));
    EXPECT2(MPI_Type_get_envelope(large, &ni, &na, &nd, &comb), MPI_ERR_TYPE, MPI_ERR_OTHER);
    LC_MPI(MPI_Type_free(&large));
    LC_MPI(MPI_Type_free(&small));
}

/* MPICH 4.0.2 accepts these, or crashes on them (darray grid, pack overflow) */
static void check_locus_only(void)
{
    MPI_Datatype t;
    int sz[] = { 4, 4 }, sub[] = { 5, 2 }, start[] = { 0, 0 }, pos = 0;
    EXPECT(MPI_Type_create_subarray(2, sz, sub, start, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    int dist[] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK },
        darg[] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG }, ps[] = { 2, 3 };
    EXPECT(MPI_Type_create_darray(4, 0, 2, sz, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT(MPI_Pack(buf, 20, MPI_INT, out, sizeof(out), &pos, MPI_COMM_SELF), MPI_ERR_TRUNCATE);
    pos = 60;
    EXPECT(MPI_Pack(buf, 2, MPI_INT, out, sizeof(out), &pos, MPI_COMM_SELF), MPI_ERR_TRUNCATE);
    pos = 0;
    EXPECT(MPI_Unpack(out, 8, &pos, buf, 3, MPI_INT, MPI_COMM_SELF), MPI_ERR_TRUNCATE);
    MPI_Aint apos = 0;
    EXPECT(MPI_Pack_external("native", buf, 1, MPI_INT, out, sizeof(out), &apos), MPI_ERR_ARG);
    long huge = 1L << 40;
    apos = 0;
    EXPECT(MPI_Pack_external("external32", &huge, 1, MPI_LONG, out, sizeof(out), &apos), MPI_ERR_CONVERSION);
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int locus = !lc_library_is_mpich();
    MPI_Datatype v;
    LC_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
    check_uncommitted(v);
    check_handles(locus);
    check_arguments();
    if (locus) check_locus_only();

    /* the program goes on */
    LC_MPI(MPI_Type_commit(&v));
    int in[4] = { 1, 2, 3, 4 }, got[2] = { 0, 0 }, pos = 0;
    MPI_Status st;
    LC_MPI(MPI_Pack(in, 1, v, out, sizeof(out), &pos, MPI_COMM_SELF));
    pos = 0;
    LC_MPI(MPI_Unpack(out, 8, &pos, got, 2, MPI_INT, MPI_COMM_SELF));
    LC_CHECK(got[0] == 1 && got[1] == 3, "after the errors: the vector packs (%d %d)", got[0], got[1]);
    LC_MPI(MPI_Sendrecv(in, 4, MPI_INT, 0, 1, buf, 4, MPI_INT, 0, 1, MPI_COMM_SELF, &st));
    LC_CHECK(buf[3] == 4, "after the errors: a message still moves");
    LC_MPI(MPI_Type_free(&v));
    return lc_finish();
}
