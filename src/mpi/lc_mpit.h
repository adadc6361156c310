/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpit.h — what the files of the MPI tool information interface share
 * (MPI 4.1 §15.3; docs/mpit.md): the interface's lock and use count, the
 * string convention, enumerations, and the category of a variable.
 *
 * MPI_T has its own state, apart from MPI_Init's: it may be used before
 * MPI_Init and after MPI_Finalize, from any thread, so every MPI_T call
 * holds lc_mpit_lock (taken after the MPI_THREAD_MULTIPLE critical section
 * when the wrapper holds that one, never before it).  MPI_T functions
 * return their error class as it is (a tool compares the result with
 * MPI_T_ERR_INVALID_INDEX) and never call an error handler.
 */
#ifndef LC_MPIT_H
#define LC_MPIT_H

#include "mpi/lc_mpi.h"

/* Take the lock and check that MPI_T_init_thread was called:
 * MPI_SUCCESS (locked) or MPI_T_ERR_NOT_INITIALIZED (not locked). */
int lc_mpit_enter(void);
/* Release the lock; returns rc, for `return lc_mpit_leave(rc);`. */
int lc_mpit_leave(int rc);

/* MPI_T's string arguments (§15.3.3): with buf non-NULL and *len > 0,
 * copy at most *len - 1 characters and a NUL and set *len to what was
 * stored (NUL included); else set *len to the length needed.  len NULL:
 * nothing is returned. */
void lc_mpit_string(const char *s, size_t n, char *buf, int *len);

/* An enumeration (MPI_T_enum): `count` items named by the '|'-separated
 * words of `items`, of values 0..count-1. */
struct MPIR_T_enum_s {
    const char *name;
    const char *items;
    int count;
};
/* The enumeration of a control variable of type BOOL or ENUM, else
 * MPI_T_ENUM_NULL. */
MPI_T_enum lc_mpit_cvar_enum(int cvar);
/* Whether `e` is one of ours (a bad handle is never dereferenced). */
bool lc_mpit_enum_valid(MPI_T_enum e);
/* Called by the last MPI_T_finalize: free the handles and sessions. */
void lc_mpit_cvar_fini(void);
void lc_mpit_pvar_fini(void);

/* The category of control variable `cvar`, an index of lc_param_table
 * (lc_mpit_category.c). */
int lc_mpit_cvar_category(int cvar);
/* Number of performance variables (lc_mpit_pvar.c). */
int lc_mpit_pvar_count(void);

#endif
