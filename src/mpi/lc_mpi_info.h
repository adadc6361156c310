/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_info.h — info objects (MPI 4.1 §10): ordered (key, value)
 * strings, used as hints on communicators and passed to creation calls.
 *
 * Info objects are local and may be used before MPI_Init and after
 * MPI_Finalize (MPI 4.1 §11.2.1), so MPI_Finalize leaves them alone.  Handles: 0x9c000000 | index (MPICH's
 * direct info handles); MPI_INFO_ENV (0x5c000001) is a builtin object
 * describing how the process was started.
 */
#ifndef LC_MPI_INFO_H
#define LC_MPI_INFO_H

#include "mpi/lc_mpi.h"

typedef struct lc_info_entry {
    char *key, *value;
} lc_info_entry_t;

typedef struct lc_info {
    int n, cap;
    lc_info_entry_t *entries; /* [n], in the order keys were first set */
} lc_info_t;

/* An empty info object.  MPI error code. */
int lc_info_new(lc_info_t **info_p);
/* A copy of `src` (NULL: an empty one). */
int lc_info_dup(const lc_info_t *src, lc_info_t **info_p);
void lc_info_free(lc_info_t *info);
/* key <= MPI_MAX_INFO_KEY characters (MPI_ERR_INFO_KEY), value <=
 * MPI_MAX_INFO_VAL (MPI_ERR_INFO_VALUE); replaces an existing value. */
int lc_info_set(lc_info_t *info, const char *key, const char *value);
/* The value of `key`, or NULL. */
const char *lc_info_get(const lc_info_t *info, const char *key);
/* Give the object a handle; the object is freed on failure. */
int lc_info_publish(lc_info_t *info, MPI_Info *handle_p);
/* The object of a handle (MPI_INFO_ENV included): MPI_ERR_INFO for
 * MPI_INFO_NULL or a handle that names no info object. */
int lc_check_info(MPI_Info handle, lc_info_t **info_p);
/* As lc_check_info, but MPI_INFO_NULL gives *info_p = NULL. */
int lc_check_info_or_null(MPI_Info handle, lc_info_t **info_p);

#endif
