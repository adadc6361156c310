/* SPDX-License-Identifier: BSD-3-Clause */
/* Compiled by params_row_type.sh, never run: a table row whose field has
 * the wrong C type must not compile (src/util/lc_params.h, row macros). */
#include "util/lc_params.h"

const lc_param_desc_t lc_rows_for_type_check[] = {
    LC_PARAM_ROW_SIZE("A", eager_limit, "1", LC_PARAM_RANKS, "size_t field"),
    LC_PARAM_ROW_INT("B", shm_ring_cells, "1", LC_PARAM_RANKS, "long field"),
    LC_PARAM_ROW_BOOL("C", cma, "1", LC_PARAM_RANKS, "int field"),
    LC_PARAM_ROW_ENUM("D", poll_mode, "auto", "auto|spin|yield", LC_PARAM_RANKS, "int field"),
    LC_PARAM_ROW_STRING("E", shm_dir, "", LC_PARAM_RANKS, "char[LC_PARAM_STRING_MAX] field"),
#if defined(LC_BAD_ROW_SIZE_AS_INT)
    LC_PARAM_ROW_INT("X", eager_limit, "1", LC_PARAM_RANKS, "long row on a size_t field"),
#elif defined(LC_BAD_ROW_INT_AS_BOOL)
    LC_PARAM_ROW_BOOL("X", shm_ring_cells, "1", LC_PARAM_RANKS, "int row on a long field"),
#elif defined(LC_BAD_ROW_BOOL_AS_SIZE)
    LC_PARAM_ROW_SIZE("X", cma, "1", LC_PARAM_RANKS, "size_t row on an int field"),
#elif defined(LC_BAD_ROW_STRING_AS_INT)
    LC_PARAM_ROW_STRING("X", net_force, "", LC_PARAM_RANKS, "string row on an int field"),
#endif
};
