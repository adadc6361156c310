/* SPDX-License-Identifier: BSD-3-Clause */
/* float16: MPICH's MPIX_C_FLOAT16 (IEEE half precision) as a predefined
 * datatype: size, name, envelope, reductions (SUM, PROD, MAX, MIN) and
 * external32 packing (big-endian 2-byte values).  Binaries built against
 * MPICH (mpi4py's wheel) use the handle, so Locus must know it. */
#include "lc_test.h"

#ifdef __FLT16_MAX__
static void check_type(void)
{
    int size = 0, len = 0, ni, na, nd, comb;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Type_size(MPIX_C_FLOAT16, &size);
    LC_CHECK(size == 2, "MPIX_C_FLOAT16 has size %d", size);
    MPI_Type_get_name(MPIX_C_FLOAT16, name, &len);
    if (!lc_library_is_mpich()) /* MPICH 4.0.2 gives it no name */
        LC_CHECK(!strcmp(name, "MPIX_C_FLOAT16"), "its name is \"%s\"", name);
    MPI_Type_get_envelope(MPIX_C_FLOAT16, &ni, &na, &nd, &comb);
    LC_CHECK(comb == MPI_COMBINER_NAMED, "its combiner is %d", comb);
}

static void check_reductions(int rank, int size)
{
    enum { N = 5 };
    _Float16 in[N], out[N];
    for (int i = 0; i < N; i++) in[i] = (_Float16)(rank + i);
    MPI_Allreduce(in, out, N, MPIX_C_FLOAT16, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
        float want = (float)(size * (size - 1) / 2 + size * i);
        LC_CHECK((float)out[i] == want, "SUM[%d] = %g, want %g", i, (double)out[i], (double)want);
    }
    MPI_Allreduce(in, out, N, MPIX_C_FLOAT16, MPI_MAX, MPI_COMM_WORLD);
    LC_CHECK((float)out[0] == (float)(size - 1), "MAX = %g", (double)out[0]);
    MPI_Allreduce(in, out, N, MPIX_C_FLOAT16, MPI_MIN, MPI_COMM_WORLD);
    LC_CHECK((float)out[1] == 1.0f, "MIN = %g", (double)out[1]);
    _Float16 two = (_Float16)2.0f, prod;
    MPI_Allreduce(&two, &prod, 1, MPIX_C_FLOAT16, MPI_PROD, MPI_COMM_WORLD);
    LC_CHECK((float)prod == (float)(1 << size), "PROD = %g", (double)prod);
}

static void check_external32(void)
{
    _Float16 v[2] = { (_Float16)1.0f, (_Float16)-2.5f }, back[2];
    unsigned char buf[8];
    MPI_Aint pos = 0, sz = 0;
    MPI_Pack_external_size("external32", 2, MPIX_C_FLOAT16, &sz);
    LC_CHECK(sz == 4, "external32 size of 2 halves is %ld", (long)sz);
    MPI_Pack_external("external32", v, 2, MPIX_C_FLOAT16, buf, sizeof buf, &pos);
    /* 1.0 = 0x3c00, -2.5 = 0xc100, big-endian */
    LC_CHECK(buf[0] == 0x3c && buf[1] == 0x00 && buf[2] == 0xc1 && buf[3] == 0x00,
             "external32 bytes %02x %02x %02x %02x", buf[0], buf[1], buf[2], buf[3]);
    pos = 0;
    MPI_Unpack_external("external32", buf, 4, &pos, back, 2, MPIX_C_FLOAT16);
    LC_CHECK((float)back[0] == 1.0f && (float)back[1] == -2.5f, "unpacked %g %g", (double)back[0],
             (double)back[1]);
}
#endif

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#ifdef __FLT16_MAX__
    check_type();
    if (!lc_library_is_mpich() || size == 1) /* MPICH 4.0.2 asserts packing it between ranks */
        check_reductions(rank, size);
    if (!lc_library_is_mpich()) /* MPICH 4.0.2 asserts: no external32 for it */
        check_external32();
#endif
    return lc_finish();
}
