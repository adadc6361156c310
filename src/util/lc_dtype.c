/* lc_dtype.c — the table of predefined datatypes. */
#include "util/lc_dtype.h"
#include "util/lc_util.h"

#include <stdint.h>

#define LC_DT(h, cls, size) { h, #h, cls, size, size }
/* Pair types: extent of the struct, type size of its two members. */
#define LC_DT_PAIR_OF(h, vtype) { h, #h, LC_DT_PAIR, sizeof(struct { vtype v; int i; }), sizeof(vtype) + sizeof(int) }
static const lc_dtype_info_t lc_dtype_table[] = {
    LC_DT(MPI_CHAR, LC_DT_SIGNED, sizeof(char)),
    LC_DT(MPI_SIGNED_CHAR, LC_DT_SIGNED, 1),
    LC_DT(MPI_UNSIGNED_CHAR, LC_DT_UNSIGNED, 1),
    LC_DT(MPI_BYTE, LC_DT_BYTE, 1),
    LC_DT(MPI_WCHAR, LC_DT_UNSIGNED, 4),
    LC_DT(MPI_SHORT, LC_DT_SIGNED, sizeof(short)),
    LC_DT(MPI_UNSIGNED_SHORT, LC_DT_UNSIGNED, sizeof(short)),
    LC_DT(MPI_INT, LC_DT_SIGNED, sizeof(int)),
    LC_DT(MPI_UNSIGNED, LC_DT_UNSIGNED, sizeof(int)),
    LC_DT(MPI_LONG, LC_DT_SIGNED, sizeof(long)),
    LC_DT(MPI_UNSIGNED_LONG, LC_DT_UNSIGNED, sizeof(long)),
    LC_DT(MPI_FLOAT, LC_DT_FLOAT, sizeof(float)),
    LC_DT(MPI_DOUBLE, LC_DT_FLOAT, sizeof(double)),
    LC_DT(MPI_LONG_DOUBLE, LC_DT_FLOAT, sizeof(long double)),
    LC_DT(MPI_LONG_LONG_INT, LC_DT_SIGNED, sizeof(long long)),
    LC_DT(MPI_UNSIGNED_LONG_LONG, LC_DT_UNSIGNED, sizeof(long long)),
    LC_DT(MPI_PACKED, LC_DT_BYTE, 1),
    LC_DT(MPI_LB, LC_DT_MARKER, 0),
    LC_DT(MPI_UB, LC_DT_MARKER, 0),
    LC_DT_PAIR_OF(MPI_FLOAT_INT, float),
    LC_DT_PAIR_OF(MPI_DOUBLE_INT, double),
    LC_DT_PAIR_OF(MPI_LONG_INT, long),
    LC_DT_PAIR_OF(MPI_SHORT_INT, short),
    LC_DT(MPI_2INT, LC_DT_PAIR, 2 * sizeof(int)),
    LC_DT_PAIR_OF(MPI_LONG_DOUBLE_INT, long double),
    LC_DT(MPI_COMPLEX, LC_DT_COMPLEX, 8),
    LC_DT(MPI_DOUBLE_COMPLEX, LC_DT_COMPLEX, 16),
    LC_DT(MPI_LOGICAL, LC_DT_LOGICAL, 4),
    LC_DT(MPI_REAL, LC_DT_FLOAT, 4),
    LC_DT(MPI_DOUBLE_PRECISION, LC_DT_FLOAT, 8),
    LC_DT(MPI_INTEGER, LC_DT_SIGNED, 4),
    LC_DT(MPI_2INTEGER, LC_DT_PAIR, 8),
    LC_DT(MPI_2REAL, LC_DT_PAIR, 8),
    LC_DT(MPI_2DOUBLE_PRECISION, LC_DT_PAIR, 16),
    LC_DT(MPI_CHARACTER, LC_DT_BYTE, 1),
    LC_DT(MPI_REAL4, LC_DT_FLOAT, 4),
    LC_DT(MPI_REAL8, LC_DT_FLOAT, 8),
    LC_DT(MPI_REAL16, LC_DT_FLOAT, 16),
    LC_DT(MPI_COMPLEX8, LC_DT_COMPLEX, 8),
    LC_DT(MPI_COMPLEX16, LC_DT_COMPLEX, 16),
    LC_DT(MPI_COMPLEX32, LC_DT_COMPLEX, 32),
    LC_DT(MPI_INTEGER1, LC_DT_SIGNED, 1),
    LC_DT(MPI_INTEGER2, LC_DT_SIGNED, 2),
    LC_DT(MPI_INTEGER4, LC_DT_SIGNED, 4),
    LC_DT(MPI_INTEGER8, LC_DT_SIGNED, 8),
    LC_DT(MPI_INT8_T, LC_DT_SIGNED, 1),
    LC_DT(MPI_INT16_T, LC_DT_SIGNED, 2),
    LC_DT(MPI_INT32_T, LC_DT_SIGNED, 4),
    LC_DT(MPI_INT64_T, LC_DT_SIGNED, 8),
    LC_DT(MPI_UINT8_T, LC_DT_UNSIGNED, 1),
    LC_DT(MPI_UINT16_T, LC_DT_UNSIGNED, 2),
    LC_DT(MPI_UINT32_T, LC_DT_UNSIGNED, 4),
    LC_DT(MPI_UINT64_T, LC_DT_UNSIGNED, 8),
    LC_DT(MPI_C_BOOL, LC_DT_LOGICAL, sizeof(_Bool)),
    LC_DT(MPI_C_FLOAT_COMPLEX, LC_DT_COMPLEX, 8),
    LC_DT(MPI_C_DOUBLE_COMPLEX, LC_DT_COMPLEX, 16),
    LC_DT(MPI_C_LONG_DOUBLE_COMPLEX, LC_DT_COMPLEX, 32),
    LC_DT(MPI_AINT, LC_DT_SIGNED, sizeof(MPI_Aint)),
    LC_DT(MPI_OFFSET, LC_DT_SIGNED, sizeof(MPI_Offset)),
    LC_DT(MPI_COUNT, LC_DT_SIGNED, sizeof(MPI_Count)),
    LC_DT(MPI_CXX_BOOL, LC_DT_LOGICAL, 1),
    LC_DT(MPI_CXX_FLOAT_COMPLEX, LC_DT_COMPLEX, 8),
    LC_DT(MPI_CXX_DOUBLE_COMPLEX, LC_DT_COMPLEX, 16),
    LC_DT(MPI_CXX_LONG_DOUBLE_COMPLEX, LC_DT_COMPLEX, 32),
};

/* Builtin handles 0x4c00ssii have a unique low byte ii and pair handles
 * 0x8c00000i a unique i: index both so that argument checking on the
 * message path is two loads, not a table scan. */
static const lc_dtype_info_t *lc_dtype_by_low_byte[256];
static const lc_dtype_info_t *lc_dtype_pairs[8];
static int lc_dtype_indexed;

static void lc_dtype_build_index(void)
{
    for (size_t i = 0; i < LC_ARRAY_SIZE(lc_dtype_table); i++) {
        unsigned h = (unsigned)lc_dtype_table[i].handle;
        if ((h & 0xffff0000u) == 0x4c000000u) lc_dtype_by_low_byte[h & 0xff] = &lc_dtype_table[i];
        else if ((h & 0xfffffff8u) == 0x8c000000u) lc_dtype_pairs[h & 7] = &lc_dtype_table[i];
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
