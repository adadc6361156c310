/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpit_init.c — MPI_T_init_thread and MPI_T_finalize (counted, callable
 * before MPI_Init and after MPI_Finalize), the interface's lock, its
 * string convention and enumerations (MPI_T_enum_get_info/_item).
 */
#include "mpi/lc_mpit.h"

#include <pthread.h>
#include <string.h>

static pthread_mutex_t lc_mpit_lock = PTHREAD_MUTEX_INITIALIZER;
static int lc_mpit_users; /* MPI_T_init_thread calls not yet finalized */

int lc_mpit_enter(void)
{
    pthread_mutex_lock(&lc_mpit_lock);
    if (lc_mpit_users > 0) return MPI_SUCCESS;
    pthread_mutex_unlock(&lc_mpit_lock);
    return MPI_T_ERR_NOT_INITIALIZED;
}

int lc_mpit_leave(int rc)
{
    pthread_mutex_unlock(&lc_mpit_lock);
    return rc;
}

void lc_mpit_string(const char *s, size_t n, char *buf, int *len)
{
    if (!len) return;
    if (buf && *len > 0) {
        size_t m = n < (size_t)*len - 1 ? n : (size_t)*len - 1;
        memcpy(buf, s, m);
        buf[m] = 0;
        *len = (int)m + 1;
    } else {
        *len = (int)n + 1;
    }
}

LC_API int PMPI_T_init_thread(int required, int *provided)
{
    /* No check of MPI's state: MPI_T works before, during and after it. */
    if (!provided) return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&lc_mpit_lock);
    lc_mpit_users++;
    pthread_mutex_unlock(&lc_mpit_lock);
    /* Every level: each MPI_T call holds lc_mpit_lock. */
    *provided = lc_mpi_thread_level(required);
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(T_init_thread);

LC_API int PMPI_T_finalize(void)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    /* The last one invalidates every handle and session (§15.3.4). */
    if (--lc_mpit_users == 0) {
        lc_mpit_cvar_fini();
        lc_mpit_pvar_fini();
    }
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_finalize);

/* ---- Enumerations ------------------------------------------------------ */

/* The index of item `i` in e->items: its start and length. */
static const char *lc_mpit_enum_word(MPI_T_enum e, int i, size_t *n)
{
    const char *w = e->items;
    for (; i > 0; i--) w = strchr(w, '|') + 1;
    const char *bar = strchr(w, '|');
    *n = bar ? (size_t)(bar - w) : strlen(w);
    return w;
}

LC_API int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!lc_mpit_enum_valid(enumtype)) return lc_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (num) *num = enumtype->count;
    lc_mpit_string(enumtype->name, strlen(enumtype->name), name, name_len);
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_enum_get_info);

LC_API int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!lc_mpit_enum_valid(enumtype)) return lc_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (indx < 0 || indx >= enumtype->count) return lc_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    size_t n;
    const char *w = lc_mpit_enum_word(enumtype, indx, &n);
    if (value) *value = indx;
    lc_mpit_string(w, n, name, name_len);
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_enum_get_item);
