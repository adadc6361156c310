/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce_local_types: MPI_Reduce_local with a predefined operation on
 * datatypes that are not predefined but made of one predefined type
 * (MPI 4.1 §6.9.1, §6.9.7): the handles of MPI_Type_create_f90_real /
 * _integer / _complex (MPICH's datatype/createf90types), a vector of
 * MPI_INT (the holes stay as they were) and a contiguous type of
 * MPI_DOUBLE_INT with MPI_MINLOC (these two not on MPICH 4.0.2, which
 * refuses them, as in dt_coll).  Locus refused every one with
 * MPI_ERR_TYPE ("not a valid predefined datatype"). */
#include "lc_test.h"

#include <string.h>

#define N 12

static void f90_types(void)
{
    MPI_Datatype r, i, c;
    LC_MPI(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &r));
    LC_MPI(MPI_Type_create_f90_integer(9, &i));
    LC_MPI(MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &c));
    float a[N], b[N];
    int ia[N], ib[N];
    double ca[2 * N], cb[2 * N];
    for (int k = 0; k < N; k++) {
        a[k] = (float)k + 0.5f;
        b[k] = (float)(2 * k);
        ia[k] = 1000 * k - 3;
        ib[k] = -k;
        ca[2 * k] = k;
        ca[2 * k + 1] = -k;
        cb[2 * k] = 0.25;
        cb[2 * k + 1] = 1.0;
    }
    int sz = 0;
    LC_MPI(MPI_Type_size(r, &sz));
    LC_CHECK(sz == (int)sizeof(float), "MPI_Type_create_f90_real(6) has size %d", sz);
    LC_MPI(MPI_Reduce_local(a, b, N, r, MPI_SUM));
    LC_MPI(MPI_Reduce_local(ia, ib, N, i, MPI_MAX));
    LC_MPI(MPI_Reduce_local(ca, cb, N, c, MPI_PROD));
    for (int k = 0; k < N; k++) {
        LC_CHECK(b[k] == (float)k + 0.5f + (float)(2 * k), "f90 real SUM [%d] = %g", k, (double)b[k]);
        LC_CHECK(ib[k] == (1000 * k - 3 > -k ? 1000 * k - 3 : -k), "f90 integer MAX [%d] = %d", k, ib[k]);
        /* (k - ki)(0.25 + i) = 0.25k + k + (k - 0.25k)i */
        LC_CHECK(cb[2 * k] == 1.25 * k && cb[2 * k + 1] == 0.75 * k, "f90 complex PROD [%d] = %g%+gi", k, cb[2 * k],
                 cb[2 * k + 1]);
    }
}

static void vector_of_int(void)
{
    MPI_Datatype v;
    LC_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &v)); /* x.x.x */
    LC_MPI(MPI_Type_commit(&v));
    int a[2 * 6], b[2 * 6];
    for (int k = 0; k < 12; k++) {
        a[k] = k * 10;
        b[k] = -1 - k;
    }
    /* two items: the second starts at the first's extent (5 ints) */
    LC_MPI(MPI_Reduce_local(a, b, 2, v, MPI_SUM));
    for (int k = 0; k < 12; k++) {
        int in_type = k < 10 && (k % 5) % 2 == 0;
        int want = in_type ? k * 10 - 1 - k : -1 - k;
        LC_CHECK(b[k] == want, "vector SUM: int %d is %d, expected %d", k, b[k], want);
    }
    LC_MPI(MPI_Type_free(&v));
}

static void contiguous_of_pairs(void)
{
    MPI_Datatype t;
    LC_MPI(MPI_Type_contiguous(3, MPI_DOUBLE_INT, &t));
    LC_MPI(MPI_Type_commit(&t));
    struct {
        double v;
        int i;
    } a[6], b[6];
    for (int k = 0; k < 6; k++) {
        a[k].v = k % 2 ? 1.0 : 5.0;
        a[k].i = 100 + k;
        b[k].v = 3.0;
        b[k].i = 200 + k;
    }
    LC_MPI(MPI_Reduce_local(a, b, 2, t, MPI_MINLOC));
    for (int k = 0; k < 6; k++) {
        double wv = k % 2 ? 1.0 : 3.0;
        int wi = k % 2 ? 100 + k : 200 + k;
        LC_CHECK(b[k].v == wv && b[k].i == wi, "contiguous of MPI_DOUBLE_INT MINLOC [%d] = (%g, %d), expected (%g, %d)",
                 k, b[k].v, b[k].i, wv, wi);
    }
    LC_MPI(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    f90_types();
    /* MPICH 4.0.2 refuses predefined operations on derived types (as in
     * dt_coll): Locus's own checks only */
    if (!lc_library_is_mpich()) {
        vector_of_int();
        contiguous_of_pairs();
    }
    return lc_finish();
}
