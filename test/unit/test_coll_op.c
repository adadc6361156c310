/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_coll_op.c — the predefined reduction operations without MPI:
 *   - lc_op_check accepts exactly the (operation, datatype) pairs of
 *     MPI 4.1 §6.9.2, with the right error class otherwise;
 *   - lc_op_apply computes inout = in op inout for every accepted pair,
 *     checked element by element against an independent formula, on a
 *     length that exercises both the vectorised body and the tail.
 * Exit status 0 when every check passed.
 */
#include "coll/lc_op.h"
#include "util/lc_dtype.h"
#include "util/lc_error.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_unit_check.h"

/* ---- lc_op_check against the standard's table ------------------------ */

enum group { G_NONE, G_INT, G_REAL, G_COMPLEX, G_LOGICAL, G_BYTE, G_PAIR, G_INVALID };

static const struct {
    MPI_Datatype dt;
    const char *name;
    enum group g;
} types[] = {
#define T(dt, g) { dt, #dt, g }
    T(MPI_CHAR, G_INT), T(MPI_SIGNED_CHAR, G_INT), T(MPI_UNSIGNED_CHAR, G_INT), T(MPI_WCHAR, G_INT),
    T(MPI_SHORT, G_INT), T(MPI_UNSIGNED_SHORT, G_INT), T(MPI_INT, G_INT), T(MPI_UNSIGNED, G_INT),
    T(MPI_LONG, G_INT), T(MPI_UNSIGNED_LONG, G_INT), T(MPI_LONG_LONG_INT, G_INT),
    T(MPI_UNSIGNED_LONG_LONG, G_INT), T(MPI_INT8_T, G_INT), T(MPI_INT16_T, G_INT), T(MPI_INT32_T, G_INT),
    T(MPI_INT64_T, G_INT), T(MPI_UINT8_T, G_INT), T(MPI_UINT16_T, G_INT), T(MPI_UINT32_T, G_INT),
    T(MPI_UINT64_T, G_INT), T(MPI_AINT, G_INT), T(MPI_OFFSET, G_INT), T(MPI_COUNT, G_INT),
    T(MPI_INTEGER, G_INT), T(MPI_INTEGER1, G_INT), T(MPI_INTEGER2, G_INT), T(MPI_INTEGER4, G_INT),
    T(MPI_INTEGER8, G_INT),
    T(MPI_FLOAT, G_REAL), T(MPI_DOUBLE, G_REAL), T(MPI_LONG_DOUBLE, G_REAL), T(MPI_REAL, G_REAL),
    T(MPI_DOUBLE_PRECISION, G_REAL), T(MPI_REAL4, G_REAL), T(MPI_REAL8, G_REAL), T(MPI_REAL16, G_REAL),
    T(MPI_C_FLOAT_COMPLEX, G_COMPLEX), T(MPI_C_DOUBLE_COMPLEX, G_COMPLEX),
    T(MPI_C_LONG_DOUBLE_COMPLEX, G_COMPLEX), T(MPI_CXX_FLOAT_COMPLEX, G_COMPLEX),
    T(MPI_CXX_DOUBLE_COMPLEX, G_COMPLEX), T(MPI_CXX_LONG_DOUBLE_COMPLEX, G_COMPLEX),
    T(MPI_COMPLEX, G_COMPLEX), T(MPI_DOUBLE_COMPLEX, G_COMPLEX), T(MPI_COMPLEX8, G_COMPLEX),
    T(MPI_COMPLEX16, G_COMPLEX), T(MPI_COMPLEX32, G_COMPLEX),
    T(MPI_C_BOOL, G_LOGICAL), T(MPI_CXX_BOOL, G_LOGICAL), T(MPI_LOGICAL, G_LOGICAL),
    T(MPI_BYTE, G_BYTE),
    T(MPI_FLOAT_INT, G_PAIR), T(MPI_DOUBLE_INT, G_PAIR), T(MPI_LONG_INT, G_PAIR), T(MPI_SHORT_INT, G_PAIR),
    T(MPI_2INT, G_PAIR), T(MPI_LONG_DOUBLE_INT, G_PAIR), T(MPI_2INTEGER, G_PAIR), T(MPI_2REAL, G_PAIR),
    T(MPI_2DOUBLE_PRECISION, G_PAIR),
    T(MPI_PACKED, G_NONE), T(MPI_CHARACTER, G_NONE),
    T(MPI_LB, G_INVALID), T(MPI_UB, G_INVALID), T(MPI_DATATYPE_NULL, G_INVALID),
    T((MPI_Datatype)0x4c0004ff, G_INVALID),
#undef T
};

static const struct {
    MPI_Op op;
    const char *name;
    unsigned groups; /* bit per enum group where the op is defined */
} ops[] = {
#define B(g) (1u << (g))
    { MPI_MAX, "MPI_MAX", B(G_INT) | B(G_REAL) },
    { MPI_MIN, "MPI_MIN", B(G_INT) | B(G_REAL) },
    { MPI_SUM, "MPI_SUM", B(G_INT) | B(G_REAL) | B(G_COMPLEX) },
    { MPI_PROD, "MPI_PROD", B(G_INT) | B(G_REAL) | B(G_COMPLEX) },
    { MPI_LAND, "MPI_LAND", B(G_INT) | B(G_LOGICAL) },
    { MPI_LOR, "MPI_LOR", B(G_INT) | B(G_LOGICAL) },
    { MPI_LXOR, "MPI_LXOR", B(G_INT) | B(G_LOGICAL) },
    { MPI_BAND, "MPI_BAND", B(G_INT) | B(G_BYTE) },
    { MPI_BOR, "MPI_BOR", B(G_INT) | B(G_BYTE) },
    { MPI_BXOR, "MPI_BXOR", B(G_INT) | B(G_BYTE) },
    { MPI_MAXLOC, "MPI_MAXLOC", B(G_PAIR) },
    { MPI_MINLOC, "MPI_MINLOC", B(G_PAIR) },
    { MPI_REPLACE, "MPI_REPLACE", 0 },
    { MPI_NO_OP, "MPI_NO_OP", 0 },
    { MPI_OP_NULL, "MPI_OP_NULL", 0 },
    { (MPI_Op)0x58000000, "bogus 0x58000000", 0 },
    { (MPI_Op)0x5800000f, "bogus 0x5800000f", 0 },
    { (MPI_Op)0x12345678, "bogus 0x12345678", 0 },
#undef B
};

static void test_check_matrix(void)
{
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
            bool op_valid = ops[o].groups != 0;
            bool ok = (ops[o].groups >> types[t].g) & 1u;
            int rc = lc_op_check(ops[o].op, types[t].dt);
            if (ok) {
                CHECKF(rc == MPI_SUCCESS, "%s on %s rejected (class %d)", ops[o].name, types[t].name,
                      lc_error_class_of(rc));
                CHECKF(lc_op_kernel(ops[o].op, types[t].dt) != NULL, "no kernel for %s on %s", ops[o].name,
                      types[t].name);
                continue;
            }
            CHECKF(lc_op_kernel(ops[o].op, types[t].dt) == NULL, "kernel for invalid %s on %s", ops[o].name,
                  types[t].name);
            /* An invalid operation is MPI_ERR_OP whatever the type; a valid
             * operation on an invalid type is MPI_ERR_TYPE. */
            int want = (!op_valid || types[t].g != G_INVALID) ? MPI_ERR_OP : MPI_ERR_TYPE;
            CHECKF(rc != MPI_SUCCESS && lc_error_class_of(rc) == want, "%s on %s: got class %d, want %d",
                  ops[o].name, types[t].name, lc_error_class_of(rc), want);
            char msg[MPI_MAX_ERROR_STRING];
            lc_error_string(rc, msg, sizeof(msg));
            if (op_valid && types[t].g != G_INVALID)
                CHECKF(strstr(msg, ops[o].name) && strstr(msg, types[t].name), "message \"%s\" does not name %s and %s",
                      msg, ops[o].name, types[t].name);
        }
    }
}

/* ---- lc_op_apply ----------------------------------------------------- */

#define N 67 /* several vector widths plus a tail */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Integers: the first elements are the edge cases (zero, one, minus one,
 * extremes, equal operands), the rest random bits.  Sums and products
 * wrap, computed here in uintmax_t and truncated. */
#define TEST_INT(dt, T)                                                                       \
    do {                                                                                      \
        T a[N], b[N], r[N];                                                                   \
        const T edge[] = { 0, 1, (T)-1, (T)((uintmax_t)1 << (sizeof(T) * 8 - 1)),              \
                           (T)~((uintmax_t)1 << (sizeof(T) * 8 - 1)), 7, 3, 0 };              \
        for (int i = 0; i < N; i++) {                                                         \
            a[i] = (T)rng();                                                                  \
            b[i] = (T)rng();                                                                  \
            if (i % 5 == 0) b[i] = a[i];                                                      \
        }                                                                                     \
        for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)                           \
            for (size_t j = 0; j < sizeof(edge) / sizeof(edge[0]) && i * 8 + j < N; j++) {    \
                a[i * 8 + j] = edge[i];                                                       \
                b[i * 8 + j] = edge[j];                                                       \
            }                                                                                 \
        for (int op = 0; op < 10; op++) {                                                     \
            static const MPI_Op iops[10] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,   \
                                             MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR }; \
            memcpy(r, b, sizeof(r));                                                          \
            lc_op_apply(iops[op], dt, a, r, N);                                               \
            for (int i = 0; i < N; i++) {                                                     \
                T x = a[i], y = b[i], want;                                                   \
                switch (op) {                                                                 \
                case 0: want = x < y ? y : x; break;                                          \
                case 1: want = y < x ? y : x; break;                                          \
                case 2: want = (T)((uintmax_t)x + (uintmax_t)y); break;                       \
                case 3: want = (T)((uintmax_t)x * (uintmax_t)y); break;                       \
                case 4: want = (x != 0) & (y != 0); break;                                    \
                case 5: want = (x != 0) | (y != 0); break;                                    \
                case 6: want = (x != 0) ^ (y != 0); break;                                    \
                case 7: want = (T)(x & y); break;                                             \
                case 8: want = (T)(x | y); break;                                             \
                default: want = (T)(x ^ y); break;                                            \
                }                                                                             \
                CHECKF(r[i] == want, "%s op#%d [%d]: %jd op %jd = %jd, want %jd", #dt, op, i,  \
                      (intmax_t)x, (intmax_t)y, (intmax_t)r[i], (intmax_t)want);              \
            }                                                                                 \
        }                                                                                     \
    } while (0)

/* Reals: values that are exact in every precision, so that the sums and
 * products are deterministic; includes signed zeros and ties. */
#define TEST_REAL(dt, T)                                                                  \
    do {                                                                                  \
        T a[N], b[N], r[N];                                                               \
        for (int i = 0; i < N; i++) {                                                     \
            a[i] = (T)((int)(rng() % 2001) - 1000) / 8;                                   \
            b[i] = (i % 7 == 0) ? a[i] : (T)((int)(rng() % 2001) - 1000) / 4;             \
        }                                                                                 \
        static const MPI_Op fops[4] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD };            \
        for (int op = 0; op < 4; op++) {                                                  \
            memcpy(r, b, sizeof(r));                                                      \
            lc_op_apply(fops[op], dt, a, r, N);                                           \
            for (int i = 0; i < N; i++) {                                                 \
                T x = a[i], y = b[i];                                                     \
                T want = op == 0 ? (x < y ? y : x) : op == 1 ? (y < x ? y : x)            \
                       : op == 2 ? x + y : x * y;                                         \
                CHECKF(r[i] == want, "%s op#%d [%d]: %g op %g = %g, want %g", #dt, op, i,  \
                      (double)x, (double)y, (double)r[i], (double)want);                  \
            }                                                                             \
        }                                                                                 \
    } while (0)

/* Complex: small integer components, so the products are exact. */
#define TEST_COMPLEX(dt, T)                                                               \
    do {                                                                                  \
        struct { T re, im; } a[N], b[N], r[N];                                            \
        _Static_assert(sizeof(a[0]) == 2 * sizeof(T), "complex layout");                  \
        for (int i = 0; i < N; i++) {                                                     \
            a[i].re = (T)((int)(rng() % 201) - 100);                                      \
            a[i].im = (T)((int)(rng() % 201) - 100);                                      \
            b[i].re = (T)((int)(rng() % 201) - 100);                                      \
            b[i].im = (T)((int)(rng() % 201) - 100);                                      \
        }                                                                                 \
        memcpy(r, b, sizeof(r));                                                          \
        lc_op_apply(MPI_SUM, dt, a, r, N);                                                \
        for (int i = 0; i < N; i++)                                                       \
            CHECKF(r[i].re == a[i].re + b[i].re && r[i].im == a[i].im + b[i].im,           \
                  "%s SUM [%d]", #dt, i);                                                 \
        memcpy(r, b, sizeof(r));                                                          \
        lc_op_apply(MPI_PROD, dt, a, r, N);                                               \
        for (int i = 0; i < N; i++) {                                                     \
            /* (p + qi)(s + ti) = (ps - qt) + (pt + qs)i */                               \
            T wre = a[i].re * b[i].re - a[i].im * b[i].im;                                \
            T wim = a[i].re * b[i].im + a[i].im * b[i].re;                                \
            CHECKF(r[i].re == wre && r[i].im == wim, "%s PROD [%d]: (%g,%g)*(%g,%g) = (%g,%g)", \
                  #dt, i, (double)a[i].re, (double)a[i].im, (double)b[i].re,              \
                  (double)b[i].im, (double)r[i].re, (double)r[i].im);                     \
        }                                                                                 \
    } while (0)

/* Pairs: few distinct values so that ties are frequent; a tie keeps the
 * lower index whichever operand holds it. */
#define TEST_PAIR(dt, V, I)                                                                      \
    do {                                                                                         \
        struct { V v; I i; } a[N], b[N], r[N];                                                   \
        memset(a, 0, sizeof(a));                                                                 \
        memset(b, 0, sizeof(b));                                                                 \
        CHECKF(sizeof(a[0]) == lc_dtype_size(dt), "%s: test layout %zu != type size %zu", #dt,     \
              sizeof(a[0]), lc_dtype_size(dt));                                                  \
        for (int k = 0; k < N; k++) {                                                            \
            a[k].v = (V)(rng() % 4);                                                             \
            b[k].v = (V)(rng() % 4);                                                             \
            a[k].i = (I)(rng() % 100);                                                           \
            b[k].i = (I)(rng() % 100);                                                           \
        }                                                                                        \
        for (int op = 0; op < 2; op++) {                                                         \
            memcpy(r, b, sizeof(r));                                                             \
            lc_op_apply(op ? MPI_MINLOC : MPI_MAXLOC, dt, a, r, N);                              \
            for (int k = 0; k < N; k++) {                                                        \
                V wv;                                                                            \
                I wi;                                                                            \
                if (a[k].v == b[k].v) {                                                          \
                    wv = a[k].v;                                                                 \
                    wi = a[k].i < b[k].i ? a[k].i : b[k].i;                                      \
                } else {                                                                         \
                    bool a_wins = op ? a[k].v < b[k].v : a[k].v > b[k].v;                        \
                    wv = a_wins ? a[k].v : b[k].v;                                               \
                    wi = a_wins ? a[k].i : b[k].i;                                               \
                }                                                                                \
                CHECKF(r[k].v == wv && r[k].i == wi, "%s %s [%d]: (%g,%g) vs (%g,%g) -> (%g,%g)", \
                      #dt, op ? "MINLOC" : "MAXLOC", k, (double)a[k].v, (double)a[k].i,          \
                      (double)b[k].v, (double)b[k].i, (double)r[k].v, (double)r[k].i);           \
            }                                                                                    \
        }                                                                                        \
    } while (0)

/* Logicals: any non-zero value is true; results are 0 or 1. */
#define TEST_LOGICAL(dt, T)                                                           \
    do {                                                                              \
        T a[N], b[N], r[N];                                                           \
        for (int i = 0; i < N; i++) {                                                 \
            /* true is sometimes 5, not 1 (a _Bool stores it as 1) */             \
            a[i] = (T)((i & 1) ? (i % 3 == 0 ? 5 : 1) : 0);                           \
            b[i] = (T)((i >> 1) & 1);                                                 \
        }                                                                             \
        static const MPI_Op lops[3] = { MPI_LAND, MPI_LOR, MPI_LXOR };                \
        for (int op = 0; op < 3; op++) {                                              \
            memcpy(r, b, sizeof(r));                                                  \
            lc_op_apply(lops[op], dt, a, r, N);                                       \
            for (int i = 0; i < N; i++) {                                             \
                int x = a[i] != 0, y = b[i] != 0;                                     \
                int want = op == 0 ? x && y : op == 1 ? x || y : x != y;              \
                CHECKF((int)r[i] == want, "%s op#%d [%d]: %d, %d -> %d", #dt, op, i,   \
                      (int)a[i], (int)b[i], (int)r[i]);                               \
            }                                                                         \
        }                                                                             \
    } while (0)

static void test_byte(void)
{
    unsigned char a[N], b[N], r[N];
    for (int i = 0; i < N; i++) {
        a[i] = (unsigned char)rng();
        b[i] = (unsigned char)rng();
    }
    static const MPI_Op bops[3] = { MPI_BAND, MPI_BOR, MPI_BXOR };
    for (int op = 0; op < 3; op++) {
        memcpy(r, b, sizeof(r));
        lc_op_apply(bops[op], MPI_BYTE, a, r, N);
        for (int i = 0; i < N; i++) {
            unsigned char want = (unsigned char)(op == 0 ? a[i] & b[i] : op == 1 ? a[i] | b[i] : a[i] ^ b[i]);
            CHECKF(r[i] == want, "MPI_BYTE op#%d [%d]", op, i);
        }
    }
}

/* count 0 must not touch memory; count 1 must touch exactly one element. */
static void test_counts(void)
{
    int a[3] = { 5, 6, 7 }, r[3] = { 1, 2, 3 };
    lc_op_apply(MPI_SUM, MPI_INT, a, r, 0);
    CHECKF(r[0] == 1 && r[1] == 2 && r[2] == 3, "count 0 changed the output");
    lc_op_apply(MPI_SUM, MPI_INT, a, r, 1);
    CHECKF(r[0] == 6 && r[1] == 2 && r[2] == 3, "count 1 wrote %d %d %d", r[0], r[1], r[2]);
    /* A long vector, as the collectives use it. */
    enum { BIG = 100003 };
    double *x = malloc(BIG * sizeof(double)), *y = malloc(BIG * sizeof(double));
    if (!x || !y) {
        CHECKF(0, "out of memory");
        free(x);
        free(y);
        return;
    }
    for (int i = 0; i < BIG; i++) {
        x[i] = i;
        y[i] = 2.0 * i;
    }
    lc_op_apply(MPI_SUM, MPI_DOUBLE, x, y, BIG);
    int bad = 0;
    for (int i = 0; i < BIG; i++) bad += y[i] != 3.0 * i;
    CHECKF(bad == 0, "%d of %d long-vector sums wrong", bad, BIG);
    free(x);
    free(y);
}

int main(void)
{
    test_check_matrix();

    TEST_INT(MPI_CHAR, char);
    TEST_INT(MPI_SIGNED_CHAR, signed char);
    TEST_INT(MPI_UNSIGNED_CHAR, unsigned char);
    TEST_INT(MPI_WCHAR, uint32_t);
    TEST_INT(MPI_SHORT, short);
    TEST_INT(MPI_UNSIGNED_SHORT, unsigned short);
    TEST_INT(MPI_INT, int);
    TEST_INT(MPI_UNSIGNED, unsigned);
    TEST_INT(MPI_LONG, long);
    TEST_INT(MPI_UNSIGNED_LONG, unsigned long);
    TEST_INT(MPI_LONG_LONG_INT, long long);
    TEST_INT(MPI_UNSIGNED_LONG_LONG, unsigned long long);
    TEST_INT(MPI_INT8_T, int8_t);
    TEST_INT(MPI_INT16_T, int16_t);
    TEST_INT(MPI_INT32_T, int32_t);
    TEST_INT(MPI_INT64_T, int64_t);
    TEST_INT(MPI_UINT8_T, uint8_t);
    TEST_INT(MPI_UINT16_T, uint16_t);
    TEST_INT(MPI_UINT32_T, uint32_t);
    TEST_INT(MPI_UINT64_T, uint64_t);
    TEST_INT(MPI_AINT, MPI_Aint);
    TEST_INT(MPI_OFFSET, MPI_Offset);
    TEST_INT(MPI_COUNT, MPI_Count);
    TEST_INT(MPI_INTEGER, int32_t);
    TEST_INT(MPI_INTEGER1, int8_t);
    TEST_INT(MPI_INTEGER2, int16_t);
    TEST_INT(MPI_INTEGER4, int32_t);
    TEST_INT(MPI_INTEGER8, int64_t);

    TEST_REAL(MPI_FLOAT, float);
    TEST_REAL(MPI_DOUBLE, double);
    TEST_REAL(MPI_LONG_DOUBLE, long double);
    TEST_REAL(MPI_REAL, float);
    TEST_REAL(MPI_DOUBLE_PRECISION, double);
    TEST_REAL(MPI_REAL4, float);
    TEST_REAL(MPI_REAL8, double);
#ifdef __SIZEOF_FLOAT128__
    TEST_REAL(MPI_REAL16, __float128);
#endif

    TEST_COMPLEX(MPI_C_FLOAT_COMPLEX, float);
    TEST_COMPLEX(MPI_C_DOUBLE_COMPLEX, double);
    TEST_COMPLEX(MPI_C_LONG_DOUBLE_COMPLEX, long double);
    TEST_COMPLEX(MPI_CXX_FLOAT_COMPLEX, float);
    TEST_COMPLEX(MPI_CXX_DOUBLE_COMPLEX, double);
    TEST_COMPLEX(MPI_CXX_LONG_DOUBLE_COMPLEX, long double);
    TEST_COMPLEX(MPI_COMPLEX, float);
    TEST_COMPLEX(MPI_DOUBLE_COMPLEX, double);
    TEST_COMPLEX(MPI_COMPLEX8, float);
    TEST_COMPLEX(MPI_COMPLEX16, double);
#ifdef __SIZEOF_FLOAT128__
    TEST_COMPLEX(MPI_COMPLEX32, __float128);
#endif

    TEST_PAIR(MPI_FLOAT_INT, float, int);
    TEST_PAIR(MPI_DOUBLE_INT, double, int);
    TEST_PAIR(MPI_LONG_INT, long, int);
    TEST_PAIR(MPI_SHORT_INT, short, int);
    TEST_PAIR(MPI_2INT, int, int);
    TEST_PAIR(MPI_LONG_DOUBLE_INT, long double, int);
    TEST_PAIR(MPI_2INTEGER, int, int);
    TEST_PAIR(MPI_2REAL, float, float);
    TEST_PAIR(MPI_2DOUBLE_PRECISION, double, double);

    TEST_LOGICAL(MPI_C_BOOL, _Bool);
    TEST_LOGICAL(MPI_CXX_BOOL, _Bool);
    TEST_LOGICAL(MPI_LOGICAL, int32_t);

    test_byte();
    test_counts();

    if (failures) {
        fprintf(stderr, "test_coll_op: %d checks failed\n", failures);
        return 1;
    }
    printf("test_coll_op: all checks passed\n");
    return 0;
}
