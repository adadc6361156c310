/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_op.c — kernels of the predefined reduction operations and the table
 * that picks one for an (operation, datatype) pair.
 *
 * Two steps pick a kernel, both table lookups fixed at compile time:
 *   datatype handle -> operand kind (the C type the bytes hold, plus
 *                      whether it is an integer, a logical or a byte);
 *   (operation, operand kind) -> kernel, NULL where MPI does not define
 *                      the operation for that kind.
 * Several datatypes share a kind (MPI_INT, MPI_INT32_T, MPI_INTEGER are
 * all 32-bit signed integers) and several kinds share a kernel.
 *
 * Signed integers use the unsigned kernels for SUM, PROD and the bit and
 * logical operations: in two's complement the low bits of a sum or product
 * do not depend on signedness, and unsigned arithmetic wraps where signed
 * overflow would be undefined behaviour.  Only MAX and MIN need signed
 * comparisons.
 */
#include "coll/lc_op.h"
#include "util/lc_dtype.h"
#include "util/lc_error.h"
#include "util/lc_util.h"

#include <limits.h>
#include <stdint.h>

/* At -O2, GCC 12 only vectorises loops whose trip count it knows; these
 * loops are the whole point of the file, so let its cost model decide.
 * (Clang vectorises them at -O2 already.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

/* ---- kernels ------------------------------------------------------------- */

/* One element-wise loop.  `restrict` tells the compiler the buffers do
 * not overlap, which is what lets it vectorise. */
#define LC_OP_LOOP(name, T, EXPR)                                              \
    static void name(const void *restrict in_, void *restrict inout_, size_t n) \
    {                                                                          \
        const T *restrict a = in_;                                             \
        T *restrict b = inout_;                                                \
        for (size_t i = 0; i < n; i++) b[i] = (T)EXPR(a[i], b[i]);             \
    }

#define LC_MAX(x, y) ((x) > (y) ? (x) : (y))
#define LC_MIN(x, y) ((x) < (y) ? (x) : (y))
#define LC_SUM(x, y) ((x) + (y))
/* `* 1u` lifts 8- and 16-bit operands to unsigned int: promoted to int,
 * 0xffff * 0xffff would overflow. */
#define LC_PROD(x, y) ((x) * 1u * (y))
#define LC_FPROD(x, y) ((x) * (y))
#define LC_LAND(x, y) ((x) && (y))
#define LC_LOR(x, y) ((x) || (y))
#define LC_LXOR(x, y) (!(x) != !(y))
#define LC_BAND(x, y) ((x) & (y))
#define LC_BOR(x, y) ((x) | (y))
#define LC_BXOR(x, y) ((x) ^ (y))

/* Unsigned integers of each width: every integer operation. */
#define LC_OP_UNSIGNED(bits)                                    \
    LC_OP_LOOP(lc_max_u##bits, uint##bits##_t, LC_MAX)          \
    LC_OP_LOOP(lc_min_u##bits, uint##bits##_t, LC_MIN)          \
    LC_OP_LOOP(lc_sum_u##bits, uint##bits##_t, LC_SUM)          \
    LC_OP_LOOP(lc_prod_u##bits, uint##bits##_t, LC_PROD)        \
    LC_OP_LOOP(lc_land_u##bits, uint##bits##_t, LC_LAND)        \
    LC_OP_LOOP(lc_lor_u##bits, uint##bits##_t, LC_LOR)          \
    LC_OP_LOOP(lc_lxor_u##bits, uint##bits##_t, LC_LXOR)        \
    LC_OP_LOOP(lc_band_u##bits, uint##bits##_t, LC_BAND)        \
    LC_OP_LOOP(lc_bor_u##bits, uint##bits##_t, LC_BOR)          \
    LC_OP_LOOP(lc_bxor_u##bits, uint##bits##_t, LC_BXOR)
LC_OP_UNSIGNED(8)
LC_OP_UNSIGNED(16)
LC_OP_UNSIGNED(32)
LC_OP_UNSIGNED(64)

/* Signed integers: only the comparisons differ from unsigned. */
#define LC_OP_SIGNED(bits)                              \
    LC_OP_LOOP(lc_max_i##bits, int##bits##_t, LC_MAX)   \
    LC_OP_LOOP(lc_min_i##bits, int##bits##_t, LC_MIN)
LC_OP_SIGNED(8)
LC_OP_SIGNED(16)
LC_OP_SIGNED(32)
LC_OP_SIGNED(64)

/* Reals. */
#define LC_OP_REAL(sfx, T)                          \
    LC_OP_LOOP(lc_max_##sfx, T, LC_MAX)             \
    LC_OP_LOOP(lc_min_##sfx, T, LC_MIN)             \
    LC_OP_LOOP(lc_sum_##sfx, T, LC_SUM)             \
    LC_OP_LOOP(lc_prod_##sfx, T, LC_FPROD)
LC_OP_REAL(f32, float)
LC_OP_REAL(f64, double)
LC_OP_REAL(fld, long double)
#ifdef __SIZEOF_FLOAT128__
/* Fortran REAL*16 is IEEE quad precision, not x87 long double. */
LC_OP_REAL(f128, __float128)
#define LC_HAVE_FLOAT128 1
#else
#define LC_HAVE_FLOAT128 0
#endif
#ifdef __FLT16_MAX__
/* MPIX_C_FLOAT16: the compiler's IEEE half precision (gcc >= 12, clang >= 15 on x86-64). */
LC_OP_REAL(f16, _Float16)
#define LC_REAL_H(op) , [LC_K_F16] = lc_##op##_f16
#else
#define LC_REAL_H(op)
#endif

/* Complex numbers as {re, im} pairs of a real type: the memory layout of
 * C _Complex and Fortran COMPLEX.  The product is the textbook formula,
 * not C's Annex G multiplication (which calls a library function per
 * element to recover infinities); MPI does not ask for the latter. */
#define LC_OP_COMPLEX(sfx, T)                                                          \
    typedef struct { T re, im; } lc_cplx_##sfx##_t;                                    \
    static void lc_sum_##sfx(const void *restrict in_, void *restrict inout_, size_t n) \
    {                                                                                  \
        const lc_cplx_##sfx##_t *restrict a = in_;                                     \
        lc_cplx_##sfx##_t *restrict b = inout_;                                        \
        for (size_t i = 0; i < n; i++) {                                               \
            b[i].re = a[i].re + b[i].re;                                               \
            b[i].im = a[i].im + b[i].im;                                               \
        }                                                                              \
    }                                                                                  \
    static void lc_prod_##sfx(const void *restrict in_, void *restrict inout_, size_t n) \
    {                                                                                  \
        const lc_cplx_##sfx##_t *restrict a = in_;                                     \
        lc_cplx_##sfx##_t *restrict b = inout_;                                        \
        for (size_t i = 0; i < n; i++) {                                               \
            T re = a[i].re * b[i].re - a[i].im * b[i].im;                              \
            T im = a[i].re * b[i].im + a[i].im * b[i].re;                              \
            b[i].re = re;                                                              \
            b[i].im = im;                                                              \
        }                                                                              \
    }
LC_OP_COMPLEX(c32, float)
LC_OP_COMPLEX(c64, double)
LC_OP_COMPLEX(cld, long double)
#if LC_HAVE_FLOAT128
LC_OP_COMPLEX(c128, __float128)
#endif

/* Value-index pairs.  MAXLOC keeps the larger value; on equal values it
 * keeps the smaller index (MPI 4.1 §6.9.4), which makes the operation
 * commutative and associative.  Copying the whole pair on a tie is right
 * because the values are equal. */
#define LC_OP_PAIR(sfx, V, I)                                                             \
    typedef struct { V v; I i; } lc_pair_##sfx##_t;                                       \
    static void lc_maxloc_##sfx(const void *restrict in_, void *restrict inout_, size_t n) \
    {                                                                                     \
        const lc_pair_##sfx##_t *restrict a = in_;                                        \
        lc_pair_##sfx##_t *restrict b = inout_;                                           \
        for (size_t i = 0; i < n; i++)                                                    \
            if (a[i].v > b[i].v || (a[i].v == b[i].v && a[i].i < b[i].i)) b[i] = a[i];    \
    }                                                                                     \
    static void lc_minloc_##sfx(const void *restrict in_, void *restrict inout_, size_t n) \
    {                                                                                     \
        const lc_pair_##sfx##_t *restrict a = in_;                                        \
        lc_pair_##sfx##_t *restrict b = inout_;                                           \
        for (size_t i = 0; i < n; i++)                                                    \
            if (a[i].v < b[i].v || (a[i].v == b[i].v && a[i].i < b[i].i)) b[i] = a[i];    \
    }
LC_OP_PAIR(float_int, float, int)
LC_OP_PAIR(double_int, double, int)
LC_OP_PAIR(long_int, long, int)
LC_OP_PAIR(short_int, short, int)
LC_OP_PAIR(int_int, int, int)
LC_OP_PAIR(ldouble_int, long double, int)
LC_OP_PAIR(float_float, float, float)     /* MPI_2REAL: the index is a REAL */
LC_OP_PAIR(double_double, double, double) /* MPI_2DOUBLE_PRECISION */

/* ---- datatype -> operand kind ------------------------------------------ */

/* What the bytes of a datatype are, as far as the operations care. */
enum lc_op_kind {
    LC_K_NONE = 0, /* no operation defined (MPI_PACKED, MPI_CHARACTER, ...) */
    LC_K_I8, LC_K_I16, LC_K_I32, LC_K_I64,
    LC_K_U8, LC_K_U16, LC_K_U32, LC_K_U64,
    LC_K_F16, LC_K_F32, LC_K_F64, LC_K_FLD, LC_K_F128,
    LC_K_C32, LC_K_C64, LC_K_CLD, LC_K_C128,
    LC_K_L8, LC_K_L32,  /* C/C++ bool, Fortran LOGICAL */
    LC_K_BYTE,
    LC_K_P_FLOAT_INT, LC_K_P_DOUBLE_INT, LC_K_P_LONG_INT, LC_K_P_SHORT_INT,
    LC_K_P_INT_INT, LC_K_P_LDOUBLE_INT, LC_K_P_FLOAT_FLOAT, LC_K_P_DOUBLE_DOUBLE,
    LC_K_COUNT
};

#define LC_K_SINT(sz) ((sz) == 1 ? LC_K_I8 : (sz) == 2 ? LC_K_I16 : (sz) == 4 ? LC_K_I32 : LC_K_I64)
#define LC_K_UINT(sz) ((sz) == 1 ? LC_K_U8 : (sz) == 2 ? LC_K_U16 : (sz) == 4 ? LC_K_U32 : LC_K_U64)

/* Builtin handles 0x4c00ssii are told apart by their low byte ii (the
 * handle itself is validated by lc_dtype_lookup before this table is
 * read).  -Woverride-init (in -Wextra) would flag two handles sharing a
 * low byte. */
#define LC_LOW(h) ((unsigned)(h) & 0xffu)
static const uint8_t lc_op_kind_builtin[256] = {
    [LC_LOW(MPI_CHAR)] = CHAR_MIN < 0 ? LC_K_I8 : LC_K_U8,
    [LC_LOW(MPI_SIGNED_CHAR)] = LC_K_I8,
    [LC_LOW(MPI_UNSIGNED_CHAR)] = LC_K_U8,
    [LC_LOW(MPI_WCHAR)] = LC_K_UINT(4),
    [LC_LOW(MPI_SHORT)] = LC_K_SINT(sizeof(short)),
    [LC_LOW(MPI_UNSIGNED_SHORT)] = LC_K_UINT(sizeof(short)),
    [LC_LOW(MPI_INT)] = LC_K_SINT(sizeof(int)),
    [LC_LOW(MPI_UNSIGNED)] = LC_K_UINT(sizeof(int)),
    [LC_LOW(MPI_LONG)] = LC_K_SINT(sizeof(long)),
    [LC_LOW(MPI_UNSIGNED_LONG)] = LC_K_UINT(sizeof(long)),
    [LC_LOW(MPI_LONG_LONG_INT)] = LC_K_SINT(sizeof(long long)),
    [LC_LOW(MPI_UNSIGNED_LONG_LONG)] = LC_K_UINT(sizeof(long long)),
    [LC_LOW(MPI_INT8_T)] = LC_K_I8,
    [LC_LOW(MPI_INT16_T)] = LC_K_I16,
    [LC_LOW(MPI_INT32_T)] = LC_K_I32,
    [LC_LOW(MPI_INT64_T)] = LC_K_I64,
    [LC_LOW(MPI_UINT8_T)] = LC_K_U8,
    [LC_LOW(MPI_UINT16_T)] = LC_K_U16,
    [LC_LOW(MPI_UINT32_T)] = LC_K_U32,
    [LC_LOW(MPI_UINT64_T)] = LC_K_U64,
    [LC_LOW(MPI_AINT)] = LC_K_SINT(sizeof(MPI_Aint)),
    [LC_LOW(MPI_OFFSET)] = LC_K_SINT(sizeof(MPI_Offset)),
    [LC_LOW(MPI_COUNT)] = LC_K_SINT(sizeof(MPI_Count)),
    [LC_LOW(MPI_INTEGER)] = LC_K_I32,
    [LC_LOW(MPI_INTEGER1)] = LC_K_I8,
    [LC_LOW(MPI_INTEGER2)] = LC_K_I16,
    [LC_LOW(MPI_INTEGER4)] = LC_K_I32,
    [LC_LOW(MPI_INTEGER8)] = LC_K_I64,

    [LC_LOW(MPI_FLOAT)] = LC_K_F32,
    [LC_LOW(MPI_DOUBLE)] = LC_K_F64,
    [LC_LOW(MPI_LONG_DOUBLE)] = LC_K_FLD,
    [LC_LOW(MPI_REAL)] = LC_K_F32,
    [LC_LOW(MPI_DOUBLE_PRECISION)] = LC_K_F64,
    [LC_LOW(MPI_REAL4)] = LC_K_F32,
    [LC_LOW(MPI_REAL8)] = LC_K_F64,
    [LC_LOW(MPI_REAL16)] = LC_HAVE_FLOAT128 ? LC_K_F128 : LC_K_NONE,

    [LC_LOW(MPI_C_FLOAT_COMPLEX)] = LC_K_C32,
    [LC_LOW(MPI_C_DOUBLE_COMPLEX)] = LC_K_C64,
    [LC_LOW(MPI_C_LONG_DOUBLE_COMPLEX)] = LC_K_CLD,
    [LC_LOW(MPI_CXX_FLOAT_COMPLEX)] = LC_K_C32,
    [LC_LOW(MPI_CXX_DOUBLE_COMPLEX)] = LC_K_C64,
    [LC_LOW(MPI_CXX_LONG_DOUBLE_COMPLEX)] = LC_K_CLD,
    [LC_LOW(MPI_COMPLEX)] = LC_K_C32,
    [LC_LOW(MPI_DOUBLE_COMPLEX)] = LC_K_C64,
    [LC_LOW(MPI_COMPLEX8)] = LC_K_C32,
    [LC_LOW(MPI_COMPLEX16)] = LC_K_C64,
    [LC_LOW(MPI_COMPLEX32)] = LC_HAVE_FLOAT128 ? LC_K_C128 : LC_K_NONE,
    [LC_LOW(MPIX_C_FLOAT16)] = LC_K_F16,

    [LC_LOW(MPI_C_BOOL)] = LC_K_L8,
    [LC_LOW(MPI_CXX_BOOL)] = LC_K_L8,
    [LC_LOW(MPI_LOGICAL)] = LC_K_L32,

    [LC_LOW(MPI_BYTE)] = LC_K_BYTE,

    [LC_LOW(MPI_2INT)] = LC_K_P_INT_INT,
    [LC_LOW(MPI_2INTEGER)] = LC_K_P_INT_INT,
    [LC_LOW(MPI_2REAL)] = LC_K_P_FLOAT_FLOAT,
    [LC_LOW(MPI_2DOUBLE_PRECISION)] = LC_K_P_DOUBLE_DOUBLE,
};

/* Direct handles 0x8c00000i of the C pair types. */
static const uint8_t lc_op_kind_direct[8] = {
    [MPI_FLOAT_INT & 7] = LC_K_P_FLOAT_INT,
    [MPI_DOUBLE_INT & 7] = LC_K_P_DOUBLE_INT,
    [MPI_LONG_INT & 7] = LC_K_P_LONG_INT,
    [MPI_SHORT_INT & 7] = LC_K_P_SHORT_INT,
    [MPI_LONG_DOUBLE_INT & 7] = LC_K_P_LDOUBLE_INT,
};

_Static_assert(sizeof(int) == 4 && sizeof(_Bool) == 1, "Fortran INTEGER/LOGICAL and C bool widths");
_Static_assert(sizeof(lc_pair_double_int_t) == 16 && sizeof(lc_pair_ldouble_int_t) == 2 * sizeof(long double),
               "pair layouts match the MPI pair types");

/* Kind of a datatype that lc_dtype_lookup accepted. */
static enum lc_op_kind lc_op_kind_of(MPI_Datatype dt)
{
    unsigned h = (unsigned)dt;
    if ((h & 0xffff0000u) == 0x4c000000u) return (enum lc_op_kind)lc_op_kind_builtin[h & 0xff];
    if ((h & 0xfffffff8u) == 0x8c000000u) return (enum lc_op_kind)lc_op_kind_direct[h & 7];
    return LC_K_NONE;
}

/* ---- (operation, kind) -> kernel ------------------------------------------ */

/* Index of a predefined operation: MPI_MAX (0x58000001) .. MPI_MAXLOC. */
#define LC_OP_FIRST MPI_MAX
#define LC_OP_LAST MPI_MAXLOC
#define LC_OPI(op) ((unsigned)(op) - (unsigned)LC_OP_FIRST)
#define LC_OP_COUNT (LC_OPI(LC_OP_LAST) + 1)

/* The integer kinds of one width, signed and unsigned, for an operation
 * whose kernel does not depend on signedness. */
#define LC_INT_ANY(op, bits) [LC_K_I##bits] = lc_##op##_u##bits, [LC_K_U##bits] = lc_##op##_u##bits
#define LC_INT_ALL(op) LC_INT_ANY(op, 8), LC_INT_ANY(op, 16), LC_INT_ANY(op, 32), LC_INT_ANY(op, 64)
/* MAX and MIN: signed and unsigned comparisons differ. */
#define LC_INT_CMP(op)                                                        \
    [LC_K_I8] = lc_##op##_i8, [LC_K_I16] = lc_##op##_i16, [LC_K_I32] = lc_##op##_i32, \
    [LC_K_I64] = lc_##op##_i64, [LC_K_U8] = lc_##op##_u8, [LC_K_U16] = lc_##op##_u16, \
    [LC_K_U32] = lc_##op##_u32, [LC_K_U64] = lc_##op##_u64
#if LC_HAVE_FLOAT128
#define LC_REAL_Q(op) , [LC_K_F128] = lc_##op##_f128
#define LC_CPLX_Q(op) , [LC_K_C128] = lc_##op##_c128
#else
#define LC_REAL_Q(op)
#define LC_CPLX_Q(op)
#endif
#define LC_REAL(op) \
    [LC_K_F32] = lc_##op##_f32, [LC_K_F64] = lc_##op##_f64, [LC_K_FLD] = lc_##op##_fld LC_REAL_Q(op) LC_REAL_H(op)
#define LC_CPLX(op) [LC_K_C32] = lc_##op##_c32, [LC_K_C64] = lc_##op##_c64, [LC_K_CLD] = lc_##op##_cld LC_CPLX_Q(op)
#define LC_LOGICAL(op) [LC_K_L8] = lc_##op##_u8, [LC_K_L32] = lc_##op##_u32
#define LC_PAIRS(op)                                                                        \
    [LC_K_P_FLOAT_INT] = lc_##op##_float_int, [LC_K_P_DOUBLE_INT] = lc_##op##_double_int,    \
    [LC_K_P_LONG_INT] = lc_##op##_long_int, [LC_K_P_SHORT_INT] = lc_##op##_short_int,        \
    [LC_K_P_INT_INT] = lc_##op##_int_int, [LC_K_P_LDOUBLE_INT] = lc_##op##_ldouble_int,      \
    [LC_K_P_FLOAT_FLOAT] = lc_##op##_float_float, [LC_K_P_DOUBLE_DOUBLE] = lc_##op##_double_double

/* Which operation applies to which kinds: MPI 4.1 §6.9.2.  Integers
 * include the Fortran INTEGERs and the C types MPI_CHAR/MPI_WCHAR (as
 * MPICH accepts them); MPI_BYTE takes only the bit operations. */
static lc_op_fn_t *const lc_op_table[LC_OP_COUNT][LC_K_COUNT] = {
    [LC_OPI(MPI_MAX)] = { LC_INT_CMP(max), LC_REAL(max) },
    [LC_OPI(MPI_MIN)] = { LC_INT_CMP(min), LC_REAL(min) },
    [LC_OPI(MPI_SUM)] = { LC_INT_ALL(sum), LC_REAL(sum), LC_CPLX(sum) },
    [LC_OPI(MPI_PROD)] = { LC_INT_ALL(prod), LC_REAL(prod), LC_CPLX(prod) },
    [LC_OPI(MPI_LAND)] = { LC_INT_ALL(land), LC_LOGICAL(land) },
    [LC_OPI(MPI_LOR)] = { LC_INT_ALL(lor), LC_LOGICAL(lor) },
    [LC_OPI(MPI_LXOR)] = { LC_INT_ALL(lxor), LC_LOGICAL(lxor) },
    [LC_OPI(MPI_BAND)] = { LC_INT_ALL(band), [LC_K_BYTE] = lc_band_u8 },
    [LC_OPI(MPI_BOR)] = { LC_INT_ALL(bor), [LC_K_BYTE] = lc_bor_u8 },
    [LC_OPI(MPI_BXOR)] = { LC_INT_ALL(bxor), [LC_K_BYTE] = lc_bxor_u8 },
    [LC_OPI(MPI_MAXLOC)] = { LC_PAIRS(maxloc) },
    [LC_OPI(MPI_MINLOC)] = { LC_PAIRS(minloc) },
};

static const char *const lc_op_names[LC_OP_COUNT] = {
    [LC_OPI(MPI_MAX)] = "MPI_MAX",     [LC_OPI(MPI_MIN)] = "MPI_MIN",
    [LC_OPI(MPI_SUM)] = "MPI_SUM",     [LC_OPI(MPI_PROD)] = "MPI_PROD",
    [LC_OPI(MPI_LAND)] = "MPI_LAND",   [LC_OPI(MPI_BAND)] = "MPI_BAND",
    [LC_OPI(MPI_LOR)] = "MPI_LOR",     [LC_OPI(MPI_BOR)] = "MPI_BOR",
    [LC_OPI(MPI_LXOR)] = "MPI_LXOR",   [LC_OPI(MPI_BXOR)] = "MPI_BXOR",
    [LC_OPI(MPI_MINLOC)] = "MPI_MINLOC", [LC_OPI(MPI_MAXLOC)] = "MPI_MAXLOC",
};

/* A predefined reduction of the table (not MPI_REPLACE / MPI_NO_OP). */
static bool lc_op_is_reduction(MPI_Op op)
{
    return LC_OPI(op) < LC_OP_COUNT;  /* unsigned: below MPI_MAX wraps to large */
}

bool lc_op_is_predefined(MPI_Op op)
{
    return lc_op_is_reduction(op) || op == MPI_REPLACE || op == MPI_NO_OP;
}

bool lc_op_commutative(MPI_Op op)
{
    if (lc_op_is_reduction(op)) return true;
    if (op == MPI_REPLACE || op == MPI_NO_OP) return false;
    return lc_op_user_commutative(op);
}

lc_op_fn_t *lc_op_kernel(MPI_Op op, MPI_Datatype dt)
{
    if (!lc_op_is_reduction(op) || !lc_dtype_lookup(dt)) return NULL;
    return lc_op_table[LC_OPI(op)][lc_op_kind_of(dt)];
}

int lc_op_check(MPI_Op op, MPI_Datatype dt)
{
    if (lc_likely(lc_op_kernel(op, dt) != NULL)) return MPI_SUCCESS;
    if (op == MPI_OP_NULL) return lc_error(MPI_ERR_OP, "the operation is MPI_OP_NULL");
    if (op == MPI_REPLACE || op == MPI_NO_OP)
        return lc_error(MPI_ERR_OP, "%s is only valid in one-sided accumulate operations, not in collective reductions",
                        op == MPI_REPLACE ? "MPI_REPLACE" : "MPI_NO_OP");
    /* A user operation takes any datatype: its function decides what the
     * bytes mean (the caller has validated the datatype itself). */
    if (!lc_op_is_reduction(op)) return lc_op_user_check(op);
    const lc_dtype_info_t *info = lc_dtype_lookup(dt);
    if (!info || info->cls == LC_DT_MARKER)
        return lc_error(MPI_ERR_TYPE, "%#x is not a valid predefined datatype", (unsigned)dt);
    if (op == MPI_MAXLOC || op == MPI_MINLOC)
        return lc_error(MPI_ERR_OP, "%s needs a value-index pair datatype (MPI_2INT, MPI_DOUBLE_INT, ...), not %s",
                        lc_op_names[LC_OPI(op)], info->name);
    return lc_error(MPI_ERR_OP, "%s is not defined for datatype %s", lc_op_names[LC_OPI(op)], info->name);
}

void lc_op_apply(MPI_Op op, MPI_Datatype dt, const void *in, void *inout, size_t count)
{
    if (lc_likely(lc_op_is_reduction(op))) lc_op_table[LC_OPI(op)][lc_op_kind_of(dt)](in, inout, count);
    else lc_op_user_apply(op, dt, in, inout, count);
}
