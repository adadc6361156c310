/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_types.h: the predefined C datatypes under test, how to write and
 * read a value in a buffer of each, which reduction ops apply to each,
 * and the expected result of a reduction.
 *
 * Values are small integers (|v| < 2^10) so every type, float or
 * integer, holds them exactly and sums/products never overflow: the
 * expected result can be computed in long long and compared exactly.
 * Results are compared by value, never by memcmp: long double and the
 * pair types have padding bytes that MPI does not transfer. */
#ifndef LC_TYPES_H
#define LC_TYPES_H

#include "lc_test.h"
#include <complex.h>
#include <stdbool.h>
#include <wchar.h>

typedef enum {
    LC_K_SINT,    /* C signed integer (and MPI_AINT/OFFSET/COUNT) */
    LC_K_UINT,    /* C unsigned integer */
    LC_K_FLOAT,   /* floating point */
    LC_K_COMPLEX, /* C complex */
    LC_K_BOOL,    /* logical: MPI_C_BOOL */
    LC_K_BYTE,    /* MPI_BYTE */
    LC_K_CHAR,    /* MPI_CHAR, MPI_WCHAR: no reduction applies */
    LC_K_PAIR     /* value-index pairs for MAXLOC/MINLOC */
} lc_kind;

/* A value: re is the number (real part, or pair value); im is the
 * imaginary part for complex and the index for pair types. */
typedef struct {
    long long re, im;
} lc_val;

typedef struct {
    MPI_Datatype dt;
    const char *name;
    size_t extent; /* C sizeof of one element: buffer stride */
    lc_kind kind;
    void (*put)(void *buf, long j, lc_val v);
    lc_val (*get)(const void *buf, long j);
} lc_type;

#define LC_DEF_SCALAR(fn, T)                                                  \
    static void lc_put_##fn(void *b, long j, lc_val v) { ((T *)b)[j] = (T)v.re; } \
    static lc_val lc_get_##fn(const void *b, long j)                          \
    {                                                                         \
        lc_val v = {(long long)((const T *)b)[j], 0};                         \
        return v;                                                             \
    }
#define LC_DEF_COMPLEX(fn, T, R)                                              \
    static void lc_put_##fn(void *b, long j, lc_val v)                        \
    {                                                                         \
        ((T *)b)[j] = (T)((R)v.re + (R)v.im * (T)I);                          \
    }                                                                         \
    static lc_val lc_get_##fn(const void *b, long j)                          \
    {                                                                         \
        T z = ((const T *)b)[j];                                              \
        lc_val v = {(long long)creall((long double complex)z),                \
                    (long long)cimagl((long double complex)z)};               \
        return v;                                                             \
    }
#define LC_DEF_PAIR(fn, T)                                                    \
    typedef struct { T v; int i; } lc_pair_##fn;                              \
    static void lc_put_##fn(void *b, long j, lc_val v)                        \
    {                                                                         \
        ((lc_pair_##fn *)b)[j].v = (T)v.re;                                   \
        ((lc_pair_##fn *)b)[j].i = (int)v.im;                                 \
    }                                                                         \
    static lc_val lc_get_##fn(const void *b, long j)                          \
    {                                                                         \
        lc_val v = {(long long)((const lc_pair_##fn *)b)[j].v,                \
                    ((const lc_pair_##fn *)b)[j].i};                          \
        return v;                                                             \
    }

LC_DEF_SCALAR(char, char)
LC_DEF_SCALAR(wchar, wchar_t)
LC_DEF_SCALAR(schar, signed char)
LC_DEF_SCALAR(uchar, unsigned char)
LC_DEF_SCALAR(short, short)
LC_DEF_SCALAR(ushort, unsigned short)
LC_DEF_SCALAR(int, int)
LC_DEF_SCALAR(uint, unsigned)
LC_DEF_SCALAR(long, long)
LC_DEF_SCALAR(ulong, unsigned long)
LC_DEF_SCALAR(llong, long long)
LC_DEF_SCALAR(ullong, unsigned long long)
LC_DEF_SCALAR(i8, int8_t)
LC_DEF_SCALAR(i16, int16_t)
LC_DEF_SCALAR(i32, int32_t)
LC_DEF_SCALAR(i64, int64_t)
LC_DEF_SCALAR(u8, uint8_t)
LC_DEF_SCALAR(u16, uint16_t)
LC_DEF_SCALAR(u32, uint32_t)
LC_DEF_SCALAR(u64, uint64_t)
LC_DEF_SCALAR(aint, MPI_Aint)
LC_DEF_SCALAR(offset, MPI_Offset)
LC_DEF_SCALAR(count, MPI_Count)
LC_DEF_SCALAR(float, float)
LC_DEF_SCALAR(double, double)
LC_DEF_SCALAR(ldouble, long double)
LC_DEF_SCALAR(bool, bool)
LC_DEF_SCALAR(byte, unsigned char)
LC_DEF_COMPLEX(fcomplex, float complex, float)
LC_DEF_COMPLEX(dcomplex, double complex, double)
LC_DEF_COMPLEX(ldcomplex, long double complex, long double)
LC_DEF_PAIR(float_int, float)
LC_DEF_PAIR(double_int, double)
LC_DEF_PAIR(long_int, long)
LC_DEF_PAIR(2int, int)
LC_DEF_PAIR(short_int, short)
LC_DEF_PAIR(ldouble_int, long double)

#define LC_T(dt, fn, T, kind) {dt, #dt, sizeof(T), kind, lc_put_##fn, lc_get_##fn}

/* Every predefined C datatype in scope.  Fortran and C++ types are left
 * out: Locus has no Fortran/C++ bindings. */
static const lc_type lc_types[] __attribute__((unused)) = {
    LC_T(MPI_CHAR, char, char, LC_K_CHAR),
    LC_T(MPI_WCHAR, wchar, wchar_t, LC_K_CHAR),
    LC_T(MPI_SIGNED_CHAR, schar, signed char, LC_K_SINT),
    LC_T(MPI_UNSIGNED_CHAR, uchar, unsigned char, LC_K_UINT),
    LC_T(MPI_SHORT, short, short, LC_K_SINT),
    LC_T(MPI_UNSIGNED_SHORT, ushort, unsigned short, LC_K_UINT),
    LC_T(MPI_INT, int, int, LC_K_SINT),
    LC_T(MPI_UNSIGNED, uint, unsigned, LC_K_UINT),
    LC_T(MPI_LONG, long, long, LC_K_SINT),
    LC_T(MPI_UNSIGNED_LONG, ulong, unsigned long, LC_K_UINT),
    LC_T(MPI_LONG_LONG_INT, llong, long long, LC_K_SINT),
    LC_T(MPI_LONG_LONG, llong, long long, LC_K_SINT),
    LC_T(MPI_UNSIGNED_LONG_LONG, ullong, unsigned long long, LC_K_UINT),
    LC_T(MPI_INT8_T, i8, int8_t, LC_K_SINT),
    LC_T(MPI_INT16_T, i16, int16_t, LC_K_SINT),
    LC_T(MPI_INT32_T, i32, int32_t, LC_K_SINT),
    LC_T(MPI_INT64_T, i64, int64_t, LC_K_SINT),
    LC_T(MPI_UINT8_T, u8, uint8_t, LC_K_UINT),
    LC_T(MPI_UINT16_T, u16, uint16_t, LC_K_UINT),
    LC_T(MPI_UINT32_T, u32, uint32_t, LC_K_UINT),
    LC_T(MPI_UINT64_T, u64, uint64_t, LC_K_UINT),
    LC_T(MPI_AINT, aint, MPI_Aint, LC_K_SINT),
    LC_T(MPI_OFFSET, offset, MPI_Offset, LC_K_SINT),
    LC_T(MPI_COUNT, count, MPI_Count, LC_K_SINT),
    LC_T(MPI_FLOAT, float, float, LC_K_FLOAT),
    LC_T(MPI_DOUBLE, double, double, LC_K_FLOAT),
    LC_T(MPI_LONG_DOUBLE, ldouble, long double, LC_K_FLOAT),
    LC_T(MPI_C_BOOL, bool, bool, LC_K_BOOL),
    LC_T(MPI_BYTE, byte, unsigned char, LC_K_BYTE),
    LC_T(MPI_C_COMPLEX, fcomplex, float complex, LC_K_COMPLEX),
    LC_T(MPI_C_FLOAT_COMPLEX, fcomplex, float complex, LC_K_COMPLEX),
    LC_T(MPI_C_DOUBLE_COMPLEX, dcomplex, double complex, LC_K_COMPLEX),
    LC_T(MPI_C_LONG_DOUBLE_COMPLEX, ldcomplex, long double complex, LC_K_COMPLEX),
    LC_T(MPI_FLOAT_INT, float_int, lc_pair_float_int, LC_K_PAIR),
    LC_T(MPI_DOUBLE_INT, double_int, lc_pair_double_int, LC_K_PAIR),
    LC_T(MPI_LONG_INT, long_int, lc_pair_long_int, LC_K_PAIR),
    LC_T(MPI_2INT, 2int, lc_pair_2int, LC_K_PAIR),
    LC_T(MPI_SHORT_INT, short_int, lc_pair_short_int, LC_K_PAIR),
    LC_T(MPI_LONG_DOUBLE_INT, ldouble_int, lc_pair_ldouble_int, LC_K_PAIR),
};
#define LC_NTYPES ((int)(sizeof lc_types / sizeof lc_types[0]))

/* The table entry of a predefined datatype (NULL if not in the table). */
static inline const lc_type *lc_find_type(MPI_Datatype dt)
{
    for (int i = 0; i < LC_NTYPES; i++)
        if (lc_types[i].dt == dt)
            return &lc_types[i];
    return NULL;
}

/* ---- data movement: a value per (owner, position) that fits every type */

/* Value that rank `owner` contributes at position j (for bcast, gather,
 * alltoall...).  Fits in signed char, bool keeps 0/1, chars stay ASCII. */
static inline lc_val lc_move_val(const lc_type *t, int owner, long j)
{
    lc_val v;
    long long x = (owner * 13 + j * 7 + 3) % 100; /* 0..99 */
    if (t->kind == LC_K_BOOL)
        x = x & 1;
    else if (t->kind == LC_K_CHAR)
        x = 'A' + x % 26;
    v.re = x;
    v.im = (t->kind == LC_K_COMPLEX || t->kind == LC_K_PAIR) ? (owner * 5 + j) % 50 : 0;
    return v;
}

static inline int lc_val_eq(lc_val a, lc_val b)
{
    return a.re == b.re && a.im == b.im;
}

/* Fill n elements of buf with rank `owner`'s data starting at position
 * first (so a block of a larger logical array can be described). */
static inline void lc_fill(const lc_type *t, void *buf, long n, int owner, long first)
{
    for (long j = 0; j < n; j++)
        t->put(buf, j, lc_move_val(t, owner, first + j));
}

/* Check n elements of buf hold `owner`'s data from position first.
 * Returns the number of mismatches (the first is reported). */
static inline int lc_check_block(const lc_type *t, const void *buf, long n, int owner,
                                 long first, const char *file, int line, const char *what)
{
    int bad = 0;
    for (long j = 0; j < n; j++) {
        lc_val want = lc_move_val(t, owner, first + j);
        lc_val got = t->get(buf, j);
        if (!lc_val_eq(want, got)) {
            if (!bad)
                lc_fail_at(file, line,
                           "%s %s: element %ld (of %ld from rank %d) is (%lld,%lld), expected (%lld,%lld)",
                           what, t->name, j, n, owner, got.re, got.im, want.re, want.im);
            bad++;
        }
    }
    return bad;
}
#define LC_CHECK_BLOCK(t, buf, n, owner, first, what) \
    lc_check_block(t, buf, n, owner, first, __FILE__, __LINE__, what)

/* For the v-collectives: every element of a receive buffer that lies in
 * none of the blocks (counts[i] elements at displs[i]) must still hold
 * the 0xEE bytes it was filled with. */
static inline void lc_check_gaps(const unsigned char *buf, const int *counts, const int *displs,
                                 int n, size_t ext, size_t total_elems, const char *what)
{
    for (size_t e = 0; e < total_elems; e++) {
        int inside = 0;
        for (int i = 0; i < n && !inside; i++)
            inside = (long)e >= displs[i] && (long)e < (long)displs[i] + counts[i];
        if (inside)
            continue;
        for (size_t b = 0; b < ext; b++)
            if (buf[e * ext + b] != 0xEE) {
                LC_CHECK(0, "%s wrote element %zu outside every block", what, e);
                return;
            }
    }
}

/* ---- reductions */

typedef struct {
    MPI_Op op;
    const char *name;
} lc_op;

static const lc_op lc_ops[] __attribute__((unused)) = {
    {MPI_MAX, "MPI_MAX"},   {MPI_MIN, "MPI_MIN"},       {MPI_SUM, "MPI_SUM"},
    {MPI_PROD, "MPI_PROD"}, {MPI_LAND, "MPI_LAND"},     {MPI_LOR, "MPI_LOR"},
    {MPI_LXOR, "MPI_LXOR"}, {MPI_BAND, "MPI_BAND"},     {MPI_BOR, "MPI_BOR"},
    {MPI_BXOR, "MPI_BXOR"}, {MPI_MAXLOC, "MPI_MAXLOC"}, {MPI_MINLOC, "MPI_MINLOC"},
};
#define LC_NOPS ((int)(sizeof lc_ops / sizeof lc_ops[0]))
enum { LC_OP_MAX, LC_OP_MIN, LC_OP_SUM, LC_OP_PROD, LC_OP_LAND, LC_OP_LOR, LC_OP_LXOR,
       LC_OP_BAND, LC_OP_BOR, LC_OP_BXOR, LC_OP_MAXLOC, LC_OP_MINLOC };

/* Which (op, type kind) pairs MPI defines (MPI-4.0 section 6.9.2). */
static inline int lc_op_applies(int op, lc_kind k)
{
    switch (op) {
    case LC_OP_MAX: case LC_OP_MIN:
        return k == LC_K_SINT || k == LC_K_UINT || k == LC_K_FLOAT;
    case LC_OP_SUM: case LC_OP_PROD:
        return k == LC_K_SINT || k == LC_K_UINT || k == LC_K_FLOAT || k == LC_K_COMPLEX;
    case LC_OP_LAND: case LC_OP_LOR: case LC_OP_LXOR:
        return k == LC_K_SINT || k == LC_K_UINT || k == LC_K_BOOL;
    case LC_OP_BAND: case LC_OP_BOR: case LC_OP_BXOR:
        return k == LC_K_SINT || k == LC_K_UINT || k == LC_K_BYTE;
    case LC_OP_MAXLOC: case LC_OP_MINLOC:
        return k == LC_K_PAIR;
    }
    return 0;
}

/* Input of rank r at position j for reduction op: chosen so that every
 * op's result is exact in every type it applies to, on communicators of
 * any size, and depends on all contributors. */
static inline lc_val lc_red_val(const lc_type *t, int op, int r, long j)
{
    int is_signed = t->kind == LC_K_SINT || t->kind == LC_K_FLOAT || t->kind == LC_K_COMPLEX;
    lc_val v = {0, 0};
    switch (op) {
    case LC_OP_MAX: case LC_OP_MIN: case LC_OP_SUM:
        v.re = (r * 7 + j * 3) % 11 - (is_signed ? 5 : 0);
        v.im = (r + 2 * j) % 5 - 2;
        break;
    case LC_OP_PROD: {
        /* Non-unit factors only on ranks 0-15 and on one more block of 16
         * ranks that moves with j (ranks 16-1023 over j = 0..62): a factor
         * per rank makes the product overflow at large counts (2^64 at 256
         * ranks, which float holds but the test's integer accumulator does
         * not).  At most 2 + 2 factors of 2 (|product| <= 16, exact in
         * int8) or 3 + 3 factors 1+i (|z| <= 8); every rank contributes a
         * sign on signed types. */
        int carries = r < 16 || r / 16 == 1 + (int)(j % 63);
        v.re = (carries && (j + r) % 8 == 0) ? 2 : 1;
        if (is_signed && (j + 2 * r) % 5 == 1)
            v.re = -v.re;
        v.im = (carries && (j + r) % 6 == 0) ? 1 : 0;
        if (t->kind == LC_K_COMPLEX && (v.re == 2 || v.re == -2))
            v.re /= 2; /* keep |z| small: (1+i)^k stays exact */
        break;
    }
    case LC_OP_LAND: case LC_OP_LOR: case LC_OP_LXOR:
        if (j % 4 == 0)
            v.re = r % 3 + 1; /* all true: nonzero values other than 1 */
        else if (j % 4 == 1)
            v.re = 0;         /* all false */
        else
            v.re = ((j * 5 + r * 3) % 7 < 3) ? 2 : 0;
        break;
    case LC_OP_BAND: case LC_OP_BOR: case LC_OP_BXOR:
        v.re = (j % 5 == 0) ? 0x55 : (0x40 | (1 << ((r + j) % 6)));
        break;
    case LC_OP_MAXLOC: case LC_OP_MINLOC:
        v.re = ((r / 2) * 3 + j) % 4 - 2; /* ranks 2k, 2k+1 tie on purpose */
        v.im = (r * 5 + j) % 16 + 1000;
        break;
    }
    if (t->kind != LC_K_COMPLEX && t->kind != LC_K_PAIR)
        v.im = 0;
    return v;
}

/* Fold b into accumulator a (a holds the lower ranks: MPI reductions of
 * predefined ops are commutative, so order only matters for ties). */
static inline lc_val lc_red_fold(const lc_type *t, int op, lc_val a, lc_val b)
{
    lc_val r = a;
    switch (op) {
    case LC_OP_MAX: r.re = a.re > b.re ? a.re : b.re; break;
    case LC_OP_MIN: r.re = a.re < b.re ? a.re : b.re; break;
    case LC_OP_SUM: r.re = a.re + b.re; r.im = a.im + b.im; break;
    case LC_OP_PROD:
        if (t->kind == LC_K_COMPLEX) {
            r.re = a.re * b.re - a.im * b.im;
            r.im = a.re * b.im + a.im * b.re;
        } else {
            r.re = a.re * b.re;
        }
        break;
    case LC_OP_LAND: r.re = (a.re != 0) && (b.re != 0); break;
    case LC_OP_LOR: r.re = (a.re != 0) || (b.re != 0); break;
    case LC_OP_LXOR: r.re = (a.re != 0) != (b.re != 0); break;
    case LC_OP_BAND: r.re = a.re & b.re; break;
    case LC_OP_BOR: r.re = a.re | b.re; break;
    case LC_OP_BXOR: r.re = a.re ^ b.re; break;
    case LC_OP_MAXLOC:
    case LC_OP_MINLOC: {
        int better = op == LC_OP_MAXLOC ? b.re > a.re : b.re < a.re;
        if (better)
            r = b;
        else if (b.re == a.re && b.im < a.im)
            r.im = b.im; /* ties keep the smallest index */
        break;
    }
    }
    return r;
}

/* Expected reduction over ranks lo..hi-1 (comm ranks) at position j,
 * normalised through the type (e.g. bool turns 2 into 1). */
static inline lc_val lc_red_expect(const lc_type *t, int op, int lo, int hi, long j)
{
    lc_val acc = lc_red_val(t, op, lo, j);
    for (int r = lo + 1; r < hi; r++)
        acc = lc_red_fold(t, op, acc, lc_red_val(t, op, r, j));
    /* logical ops yield 0/1 in the operand's type */
    unsigned char tmp[64];
    t->put(tmp, 0, acc);
    return t->get(tmp, 0);
}

static inline void lc_red_fill(const lc_type *t, int op, void *buf, long n, int r, long first)
{
    for (long j = 0; j < n; j++)
        t->put(buf, j, lc_red_val(t, op, r, first + j));
}

/* Check n results at buf against the reduction over ranks lo..hi-1 at
 * positions first..first+n-1; returns mismatches (first one reported). */
static inline int lc_red_check(const lc_type *t, int op, const void *buf, long n, int lo, int hi,
                               long first, const char *file, int line, const char *what)
{
    int bad = 0;
    for (long j = 0; j < n; j++) {
        lc_val want = lc_red_expect(t, op, lo, hi, first + j);
        lc_val got = t->get(buf, j);
        if (!lc_val_eq(want, got)) {
            if (!bad)
                lc_fail_at(file, line,
                           "%s %s %s over ranks [%d,%d): element %ld is (%lld,%lld), expected (%lld,%lld)",
                           what, lc_ops[op].name, t->name, lo, hi, first + j, got.re, got.im,
                           want.re, want.im);
            bad++;
        }
    }
    return bad;
}
#define LC_RED_CHECK(t, op, buf, n, lo, hi, first, what) \
    lc_red_check(t, op, buf, n, lo, hi, first, __FILE__, __LINE__, what)

/* ---- communicators to run collectives on */

/* The test communicators: world, world with reversed rank order (split
 * with key size-rank), and uneven splits (colors rank%2 and rank%3)
 * giving odd sizes.  With `quick` (8-rank runs on an oversubscribed
 * machine) only world and the most uneven split.  Returns how many were
 * stored in comms[] (max 4); free with lc_free_comms. */
static inline int lc_test_comms(MPI_Comm comms[4], const char *names[4], int quick)
{
    int rank, size, n = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    comms[n] = MPI_COMM_WORLD;
    names[n++] = "MPI_COMM_WORLD";
    if (!quick) {
        LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comms[n]));
        names[n++] = "reversed world";
    }
    if (size >= 3 && (!quick || size < 5)) {
        LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &comms[n]));
        names[n++] = "split rank%2";
    }
    if (size >= 5) {
        LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 3, -rank, &comms[n]));
        names[n++] = "split rank%3 reversed";
    }
    return n;
}

/* "quick" among the program arguments */
static inline int lc_quick_arg(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "quick") == 0)
            return 1;
    return 0;
}

static inline void lc_free_comms(MPI_Comm comms[4], int n)
{
    for (int i = 1; i < n; i++)
        LC_MPI(MPI_Comm_free(&comms[i]));
}

#endif /* LC_TYPES_H */
