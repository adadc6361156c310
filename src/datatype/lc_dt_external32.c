/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_external32.c — the "external32" data representation (MPI 4.1
 * §13.5.2): every basic element big-endian, at the standard size of its
 * type (Table 13.2: MPI_LONG is 4 bytes, MPI_WCHAR 2, MPI_LONG_DOUBLE 16
 * as IEEE binary128), in typemap order, without padding.
 *
 * Integers narrower in external32 than in memory are range-checked when
 * packed (MPI_ERR_CONVERSION rather than silently dropping the high
 * bits) and sign- or zero-extended when unpacked.  C's long double is
 * the x87 80-bit format here, converted exactly to binary128 and back
 * with rounding to nearest even; Fortran's REAL*16 / COMPLEX*32 already
 * are binary128.
 */
#include "datatype/lc_dt_impl.h"

#include <float.h>
#include <string.h>

#if !defined(__x86_64__) || LDBL_MANT_DIG != 64
#error "external32 conversion of long double assumes the x87 80-bit format (x86-64)"
#endif

typedef struct lc_dt_x32 {
    unsigned char *p; /* next external32 byte */
    bool unpack;
} lc_dt_x32_t;

static void lc_dt_store_be(unsigned char *out, uint64_t v, size_t e)
{
    for (size_t k = 0; k < e; k++) out[k] = (unsigned char)(v >> (8 * (e - 1 - k)));
}

static uint64_t lc_dt_load_be(const unsigned char *in, size_t e)
{
    uint64_t v = 0;
    for (size_t k = 0; k < e; k++) v = v << 8 | in[k];
    return v;
}

static void lc_dt_reverse(unsigned char *dst, const unsigned char *src, size_t n)
{
    /* the common sizes as one byte swap each (MPI-IO converts whole
     * files through here) */
    if (n == 8) {
        uint64_t v;
        memcpy(&v, src, 8);
        v = __builtin_bswap64(v);
        memcpy(dst, &v, 8);
    } else if (n == 4) {
        uint32_t v;
        memcpy(&v, src, 4);
        v = __builtin_bswap32(v);
        memcpy(dst, &v, 4);
    } else {
        for (size_t k = 0; k < n; k++) dst[k] = src[n - 1 - k];
    }
}

/* Integer of s bytes in memory <-> e bytes external, e <= s <= 8. */
static int lc_dt_x32_int(lc_dt_x32_t *x, unsigned char *mem, size_t s, size_t e, bool is_signed, const char *name)
{
    uint64_t v = 0;
    if (e == s && (e == 8 || e == 4)) { /* same width: a byte swap */
        if (x->unpack)
            lc_dt_reverse(mem, x->p, e);
        else
            lc_dt_reverse(x->p, mem, e);
        x->p += e;
        return MPI_SUCCESS;
    }
    if (!x->unpack) {
        memcpy(&v, mem, s); /* little-endian host */
        if (e < s) {
            int64_t sv = s == 8 ? (int64_t)v : (int64_t)(v << (64 - 8 * s)) >> (64 - 8 * s);
            bool fits = is_signed ? sv >= -((int64_t)1 << (8 * e - 1)) && sv < ((int64_t)1 << (8 * e - 1))
                                  : v < ((uint64_t)1 << (8 * e));
            if (!fits)
                return lc_error(MPI_ERR_CONVERSION,
                                "a %s value (%lld) does not fit the %zu bytes external32 gives the type",
                                name, is_signed ? (long long)sv : (long long)v, e);
        }
        lc_dt_store_be(x->p, v, e);
    } else {
        v = lc_dt_load_be(x->p, e);
        if (is_signed && e < 8 && (v >> (8 * e - 1)) & 1) v |= ~(uint64_t)0 << (8 * e); /* sign-extend */
        memcpy(mem, &v, s);
    }
    x->p += e;
    return MPI_SUCCESS;
}

/* x87 extended (64-bit mantissa with explicit integer bit) -> binary128. */
static void lc_dt_x87_to_quad(const unsigned char *mem, unsigned char *out)
{
    uint64_t m, hi, lo;
    uint16_t se;
    memcpy(&m, mem, 8);
    memcpy(&se, mem + 8, 2);
    unsigned exp = se & 0x7fff;
    if (exp == 0 && (m >> 63)) exp = 1; /* pseudo-denormal: same value, normal encoding */
    uint64_t frac = m & 0x7fffffffffffffffull; /* 63 fraction bits -> the top of 112 */
    hi = (uint64_t)(se & 0x8000) << 48 | (uint64_t)exp << 48 | frac >> 15;
    lo = frac << 49;
    lc_dt_store_be(out, hi, 8);
    lc_dt_store_be(out + 8, lo, 8);
}

static void lc_dt_quad_to_x87(const unsigned char *in, unsigned char *mem)
{
    uint64_t hi = lc_dt_load_be(in, 8), lo = lc_dt_load_be(in + 8, 8);
    unsigned sign = (unsigned)(hi >> 63), exp = (unsigned)(hi >> 48) & 0x7fff;
    uint64_t frac = (hi & 0xffffffffffffull) << 15 | lo >> 49; /* top 63 of 112 bits */
    uint64_t rest = lo & ((1ull << 49) - 1), half = 1ull << 48;
    uint64_t m = (exp ? 1ull << 63 : 0) | frac;
    if (exp != 0x7fff && (rest > half || (rest == half && (m & 1)))) { /* round to nearest even */
        if (++m == 0) { /* the mantissa overflowed: 1.0 x 2^(exp+1) */
            m = 1ull << 63;
            exp++;
        } else if (exp == 0 && (m >> 63)) {
            exp = 1; /* a denormal rounded up to the smallest normal */
        }
    }
    if (exp == 0x7fff) m |= 1ull << 63;                                  /* inf/nan keep the integer bit */
    if (exp == 0x7fff && (frac || rest) && !(m & 0x7fffffffffffffffull)) m |= 1ull << 62; /* nan stays nan */
    uint16_t se = (uint16_t)(sign << 15 | exp);
    memset(mem, 0, 16);
    memcpy(mem, &m, 8);
    memcpy(mem + 8, &se, 2);
}

/* A floating-point value of s bytes (== its external size). */
static void lc_dt_x32_float(lc_dt_x32_t *x, unsigned char *mem, size_t s, bool x87)
{
    if (x87) {
        if (x->unpack) lc_dt_quad_to_x87(x->p, mem);
        else lc_dt_x87_to_quad(mem, x->p);
    } else if (x->unpack) {
        lc_dt_reverse(mem, x->p, s);
    } else {
        lc_dt_reverse(x->p, mem, s);
    }
    x->p += s;
}

static bool lc_dt_is_x87(MPI_Datatype h)
{
    return h == MPI_LONG_DOUBLE || h == MPI_C_LONG_DOUBLE_COMPLEX || h == MPI_CXX_LONG_DOUBLE_COMPLEX;
}

static int lc_dt_x32_visit(void *ctx, const lc_dtype_info_t *b, uintptr_t addr, MPI_Count n)
{
    lc_dt_x32_t *x = ctx;
    unsigned char *mem = (unsigned char *)addr;
    size_t s = b->type_size;
    bool x87 = lc_dt_is_x87(b->handle);
    for (MPI_Count k = 0; k < n; k++, mem += s) {
        switch (b->cls) {
        case LC_DT_FLOAT:
            lc_dt_x32_float(x, mem, s, x87);
            break;
        case LC_DT_COMPLEX: /* two reals */
            lc_dt_x32_float(x, mem, s / 2, x87);
            lc_dt_x32_float(x, mem + s / 2, s / 2, x87);
            break;
        default: { /* integers, logicals, characters, bytes */
            int rc = lc_dt_x32_int(x, mem, s, b->ext32, b->cls == LC_DT_SIGNED, b->name);
            if (rc) return rc;
            break;
        }
        }
    }
    return MPI_SUCCESS;
}

int lc_dt_pack_external32(const lc_dt_t *t, MPI_Count count, const void *buf, void *out)
{
    lc_dt_x32_t x = { .p = out, .unpack = false };
    return lc_dt_walk(t, (uintptr_t)buf, count, lc_dt_x32_visit, &x);
}

int lc_dt_unpack_external32(const lc_dt_t *t, MPI_Count count, void *buf, const void *in)
{
    lc_dt_x32_t x = { .p = (unsigned char *)in, .unpack = true };
    return lc_dt_walk(t, (uintptr_t)buf, count, lc_dt_x32_visit, &x);
}
