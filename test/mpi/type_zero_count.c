/* SPDX-License-Identifier: BSD-3-Clause */
/* type_zero_count: constructors with count 0 and NULL arrays (the arrays
 * have no element to point at; MPICH's datatype/struct_zero_count).
 * MPI_Type_create_struct (and _c), MPI_Type_indexed, _hindexed,
 * _create_indexed_block: the type exists, has size 0 and extent 0, its
 * contents say the combiner with count 0 and no datatypes, and a message
 * of it carries nothing.  Locus took a struct's NULL array of types for
 * "not a struct" and failed with MPI_ERR_TYPE. */
#include "lc_test.h"

static void check_empty(MPI_Datatype t, int combiner, int nints, const char *what)
{
    int size = -1, ni = -1, na = -1, nd = -1, comb = -1;
    MPI_Aint lb = -1, extent = -1;
    LC_MPI(MPI_Type_commit(&t));
    LC_MPI(MPI_Type_size(t, &size));
    LC_MPI(MPI_Type_get_extent(t, &lb, &extent));
    LC_CHECK(size == 0 && lb == 0 && extent == 0, "%s: size %d, lb %ld, extent %ld, not 0", what, size, (long)lb,
             (long)extent);
    LC_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    LC_CHECK(comb == combiner && ni == nints && na == 0 && nd == 0,
             "%s: envelope combiner %d ints %d addresses %d types %d", what, comb, ni, na, nd);
    int in[1] = { -1 };
    MPI_Aint ad[1];
    MPI_Datatype ty[1];
    if (ni == 1 && na == 0 && nd == 0) {
        LC_MPI(MPI_Type_get_contents(t, 1, 0, 0, in, ad, ty));
        LC_CHECK(in[0] == 0, "%s: contents count %d", what, in[0]);
    }
    int buf = 7, got = -1;
    MPI_Status st;
    LC_MPI(MPI_Sendrecv(&buf, 1, t, 0, 3, &got, 1, t, 0, 3, MPI_COMM_SELF, &st));
    LC_MPI(MPI_Get_count(&st, t, &got));
    LC_CHECK(got == 0, "%s: MPI_Get_count says %d", what, got);
    LC_MPI(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Datatype t;
    LC_MPI(MPI_Type_create_struct(0, NULL, NULL, NULL, &t));
    check_empty(t, MPI_COMBINER_STRUCT, 1, "struct");
    LC_MPI(MPI_Type_create_struct_c(0, NULL, NULL, NULL, &t));
    int ni, na, nd, comb;
    MPI_Count cni, cna, cnc, cnd;
    LC_MPI(MPI_Type_get_envelope_c(t, &cni, &cna, &cnc, &cnd, &comb));
    LC_CHECK(comb == MPI_COMBINER_STRUCT && cnc == 1 && cnd == 0,
             "struct_c: envelope combiner %d counts %lld types %lld", comb, (long long)cnc, (long long)cnd);
    LC_MPI(MPI_Type_free(&t));
    LC_MPI(MPI_Type_indexed(0, NULL, NULL, MPI_INT, &t));
    LC_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    LC_CHECK(comb == MPI_COMBINER_INDEXED && ni == 1 && nd == 1, "indexed: envelope combiner %d ints %d types %d", comb,
             ni, nd);
    LC_MPI(MPI_Type_free(&t));
    LC_MPI(MPI_Type_create_hindexed(0, NULL, NULL, MPI_DOUBLE, &t));
    LC_MPI(MPI_Type_commit(&t));
    int size = -1;
    LC_MPI(MPI_Type_size(t, &size));
    LC_CHECK(size == 0, "hindexed: size %d", size);
    LC_MPI(MPI_Type_free(&t));
    LC_MPI(MPI_Type_create_indexed_block(0, 4, NULL, MPI_INT, &t));
    LC_MPI(MPI_Type_size(t, &size));
    LC_CHECK(size == 0, "indexed_block: size %d", size);
    LC_MPI(MPI_Type_free(&t));
    return lc_finish();
}
