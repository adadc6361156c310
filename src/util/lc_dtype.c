/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_dtype.c — the table of predefined datatypes. */
#include "util/lc_dtype.h"
#include "util/lc_util.h"

#include <stdint.h>
#include <wchar.h>

/* handle, class, size (= extent), alignment in a C struct, size in external32 (MPI 4.1 Table 13.2). */
#define LC_DT(h, cls, size, align, ext32) { h, #h, cls, size, size, align, ext32 }
/* Pair types: extent of the struct, type size of its two members; their
 * external32 size is their members' (the datatype layer computes it). */
#define LC_DT_PAIR_OF(h, vtype) \
    { h, #h, LC_DT_PAIR, sizeof(struct { vtype v; int i; }), sizeof(vtype) + sizeof(int), _Alignof(struct { vtype v; int i; }), 0 }
static const lc_dtype_info_t lc_dtype_table[] = {
    LC_DT(MPI_CHAR, LC_DT_SIGNED, sizeof(char), _Alignof(char), 1),
    LC_DT(MPI_SIGNED_CHAR, LC_DT_SIGNED, 1, 1, 1),
    LC_DT(MPI_UNSIGNED_CHAR, LC_DT_UNSIGNED, 1, 1, 1),
    LC_DT(MPI_BYTE, LC_DT_BYTE, 1, 1, 1),
    LC_DT(MPI_WCHAR, LC_DT_UNSIGNED, 4, _Alignof(wchar_t), 2),
    LC_DT(MPI_SHORT, LC_DT_SIGNED, sizeof(short), _Alignof(short), 2),
    LC_DT(MPI_UNSIGNED_SHORT, LC_DT_UNSIGNED, sizeof(short), _Alignof(short), 2),
    LC_DT(MPI_INT, LC_DT_SIGNED, sizeof(int), _Alignof(int), 4),
    LC_DT(MPI_UNSIGNED, LC_DT_UNSIGNED, sizeof(int), _Alignof(int), 4),
    LC_DT(MPI_LONG, LC_DT_SIGNED, sizeof(long), _Alignof(long), 4),
    LC_DT(MPI_UNSIGNED_LONG, LC_DT_UNSIGNED, sizeof(long), _Alignof(long), 4),
    LC_DT(MPI_FLOAT, LC_DT_FLOAT, sizeof(float), _Alignof(float), 4),
    LC_DT(MPI_DOUBLE, LC_DT_FLOAT, sizeof(double), _Alignof(double), 8),
    LC_DT(MPI_LONG_DOUBLE, LC_DT_FLOAT, sizeof(long double), _Alignof(long double), 16),
    LC_DT(MPI_LONG_LONG_INT, LC_DT_SIGNED, sizeof(long long), _Alignof(long long), 8),
    LC_DT(MPI_UNSIGNED_LONG_LONG, LC_DT_UNSIGNED, sizeof(long long), _Alignof(long long), 8),
    LC_DT(MPI_PACKED, LC_DT_BYTE, 1, 1, 1),
    LC_DT(MPI_LB, LC_DT_MARKER, 0, 1, 0),
    LC_DT(MPI_UB, LC_DT_MARKER, 0, 1, 0),
    LC_DT_PAIR_OF(MPI_FLOAT_INT, float),
    LC_DT_PAIR_OF(MPI_DOUBLE_INT, double),
    LC_DT_PAIR_OF(MPI_LONG_INT, long),
    LC_DT_PAIR_OF(MPI_SHORT_INT, short),
    LC_DT(MPI_2INT, LC_DT_PAIR, 2 * sizeof(int), _Alignof(int), 0),
    LC_DT_PAIR_OF(MPI_LONG_DOUBLE_INT, long double),
    LC_DT(MPI_COMPLEX, LC_DT_COMPLEX, 8, 4, 8),
    LC_DT(MPI_DOUBLE_COMPLEX, LC_DT_COMPLEX, 16, 8, 16),
    LC_DT(MPI_LOGICAL, LC_DT_LOGICAL, 4, 4, 4),
    LC_DT(MPI_REAL, LC_DT_FLOAT, 4, 4, 4),
    LC_DT(MPI_DOUBLE_PRECISION, LC_DT_FLOAT, 8, 8, 8),
    LC_DT(MPI_INTEGER, LC_DT_SIGNED, 4, 4, 4),
    LC_DT(MPI_2INTEGER, LC_DT_PAIR, 8, 4, 0),
    LC_DT(MPI_2REAL, LC_DT_PAIR, 8, 4, 0),
    LC_DT(MPI_2DOUBLE_PRECISION, LC_DT_PAIR, 16, 8, 0),
    LC_DT(MPI_CHARACTER, LC_DT_BYTE, 1, 1, 1),
    LC_DT(MPI_REAL4, LC_DT_FLOAT, 4, 4, 4),
    LC_DT(MPI_REAL8, LC_DT_FLOAT, 8, 8, 8),
    LC_DT(MPI_REAL16, LC_DT_FLOAT, 16, 16, 16),
    LC_DT(MPI_COMPLEX8, LC_DT_COMPLEX, 8, 4, 8),
    LC_DT(MPI_COMPLEX16, LC_DT_COMPLEX, 16, 8, 16),
    LC_DT(MPI_COMPLEX32, LC_DT_COMPLEX, 32, 16, 32),
    LC_DT(MPI_INTEGER1, LC_DT_SIGNED, 1, 1, 1),
    LC_DT(MPI_INTEGER2, LC_DT_SIGNED, 2, 2, 2),
    LC_DT(MPI_INTEGER4, LC_DT_SIGNED, 4, 4, 4),
    LC_DT(MPI_INTEGER8, LC_DT_SIGNED, 8, 8, 8),
    LC_DT(MPI_INT8_T, LC_DT_SIGNED, 1, 1, 1),
    LC_DT(MPI_INT16_T, LC_DT_SIGNED, 2, 2, 2),
    LC_DT(MPI_INT32_T, LC_DT_SIGNED, 4, 4, 4),
    LC_DT(MPI_INT64_T, LC_DT_SIGNED, 8, 8, 8),
    LC_DT(MPI_UINT8_T, LC_DT_UNSIGNED, 1, 1, 1),
    LC_DT(MPI_UINT16_T, LC_DT_UNSIGNED, 2, 2, 2),
    LC_DT(MPI_UINT32_T, LC_DT_UNSIGNED, 4, 4, 4),
    LC_DT(MPI_UINT64_T, LC_DT_UNSIGNED, 8, 8, 8),
    LC_DT(MPI_C_BOOL, LC_DT_LOGICAL, sizeof(_Bool), _Alignof(_Bool), 1),
    LC_DT(MPI_C_FLOAT_COMPLEX, LC_DT_COMPLEX, 8, _Alignof(float), 8),
    LC_DT(MPI_C_DOUBLE_COMPLEX, LC_DT_COMPLEX, 16, _Alignof(double), 16),
    LC_DT(MPI_C_LONG_DOUBLE_COMPLEX, LC_DT_COMPLEX, 32, _Alignof(long double), 32),
    LC_DT(MPI_AINT, LC_DT_SIGNED, sizeof(MPI_Aint), _Alignof(MPI_Aint), 8),
    LC_DT(MPI_OFFSET, LC_DT_SIGNED, sizeof(MPI_Offset), _Alignof(MPI_Offset), 8),
    LC_DT(MPI_COUNT, LC_DT_SIGNED, sizeof(MPI_Count), _Alignof(MPI_Count), 8),
    LC_DT(MPI_CXX_BOOL, LC_DT_LOGICAL, 1, 1, 1),
    LC_DT(MPI_CXX_FLOAT_COMPLEX, LC_DT_COMPLEX, 8, _Alignof(float), 8),
    LC_DT(MPI_CXX_DOUBLE_COMPLEX, LC_DT_COMPLEX, 16, _Alignof(double), 16),
    LC_DT(MPI_CXX_LONG_DOUBLE_COMPLEX, LC_DT_COMPLEX, 32, _Alignof(long double), 32),
    LC_DT(MPIX_C_FLOAT16, LC_DT_FLOAT, 2, 2, 2),
};

/* Builtin handles 0x4c00ssii have a unique low byte ii and pair handles
 * 0x8c00000i a unique i: index both so that argument checking on the
 * message path is two loads, not a table scan. */
static const lc_dtype_info_t *lc_dtype_by_low_byte[256];
static const lc_dtype_info_t *lc_dtype_pairs[8];
static int lc_dtype_indexed;
uint32_t lc_dtype_sendable[256];

static void lc_dtype_build_index(void)
{
    for (size_t i = 0; i < LC_ARRAY_SIZE(lc_dtype_table); i++) {
        unsigned h = (unsigned)lc_dtype_table[i].handle;
        if ((h & 0xffff0000u) == 0x4c000000u) {
            lc_dtype_by_low_byte[h & 0xff] = &lc_dtype_table[i];
            if (lc_dtype_table[i].cls != LC_DT_MARKER && ((h >> 8) & 0xff) != 0) lc_dtype_sendable[h & 0xff] = h;
        } else if ((h & 0xfffffff8u) == 0x8c000000u)
            lc_dtype_pairs[h & 7] = &lc_dtype_table[i];
    }
    lc_dtype_indexed = 1;
}

const lc_dtype_info_t *lc_dtype_lookup(MPI_Datatype dt)
{
    if (lc_unlikely(!lc_dtype_indexed)) lc_dtype_build_index();
    unsigned h = (unsigned)dt;
    const lc_dtype_info_t *info = NULL;
    if ((h & 0xffff0000u) == 0x4c000000u) info = lc_dtype_by_low_byte[h & 0xff];
    else if ((h & 0xfffffff8u) == 0x8c000000u) info = lc_dtype_pairs[h & 7];
    return info && info->handle == dt ? info : NULL;
}

size_t lc_dtype_count(void)
{
    return LC_ARRAY_SIZE(lc_dtype_table);
}

const lc_dtype_info_t *lc_dtype_at(size_t i)
{
    return i < LC_ARRAY_SIZE(lc_dtype_table) ? &lc_dtype_table[i] : NULL;
}
