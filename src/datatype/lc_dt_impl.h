/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_impl.h — what the files of the datatype layer share.
 */
#ifndef LC_DT_IMPL_H
#define LC_DT_IMPL_H

#include "datatype/lc_dt.h"
#include "util/lc_error.h"
#include "util/lc_util.h"

#include <pthread.h>

/* Construction, commit, naming and freeing: one mutex for the layer
 * (none of it is on a message path). */
extern pthread_mutex_t lc_dt_mutex;
static inline void lc_dt_lock(void) { pthread_mutex_lock(&lc_dt_mutex); }
static inline void lc_dt_unlock(void) { pthread_mutex_unlock(&lc_dt_mutex); }

/* Derived handles: 0x8c000000 | gen << LC_DT_SLOT_BITS | slot. */
#define LC_DT_HANDLE_KIND 0x8c000000u
#define LC_DT_HANDLE_KIND_MASK 0xfc000000u
#define LC_DT_SLOT_BITS 18
#define LC_DT_SLOT_FIRST 0x100u /* below: MPICH's pair types */
#define LC_DT_GEN_MASK 0xffu

/* Predefined objects (lc_dt_builtin.c): by handle, NULL if not one. */
lc_dt_t *lc_dt_builtin_get(MPI_Datatype handle);
/* The predefined object of a table entry (always exists). */
lc_dt_t *lc_dt_builtin_of(const lc_dtype_info_t *info);

/* Handle slots (lc_dt_table.c), under lc_dt_mutex. */
int lc_dt_slot_assign(lc_dt_t *t);  /* gives t a fresh handle */
void lc_dt_slot_drop(lc_dt_t *t);   /* t->handle becomes invalid */
lc_dt_t *lc_dt_slot_get(MPI_Datatype handle);
/* Whether `handle` has the shape of a derived handle whose slot exists
 * but holds another generation or nothing: a freed handle. */
bool lc_dt_slot_was_freed(MPI_Datatype handle);

/* A new derived object: zeroed, refs = 1, no handle. */
lc_dt_t *lc_dt_alloc(int layout);
/* Free t and release what it holds (called when refs drops to 0). */
void lc_dt_destroy(lc_dt_t *t);

/* Compute size, bounds, markers, alignment, element counts, basic type
 * and density of a derived type from its layout (lc_dt_bounds.c).
 * MPI_ERR_ARG when a bound or size overflows. */
int lc_dt_summarize(lc_dt_t *t, bool is_struct);

/* The loop program of t, built on first use (lc_dt_commit.c), under
 * lc_dt_mutex.  NULL when t has no data, or out of memory (*rc_p set). */
const lc_dt_loop_t *lc_dt_loop_of(lc_dt_t *t, int *rc_p);
/* Fill `out` with the node for n instances of c at displ + k * stride,
 * merged into one vector where the layout allows; never allocates. */
void lc_dt_loop_repeat(lc_dt_loop_t *out, const lc_dt_loop_t *c, MPI_Count n, MPI_Aint stride, MPI_Aint displ);

/* Checked arithmetic for bounds and sizes. */
static inline bool lc_dt_mul_ok(MPI_Count a, MPI_Count b, MPI_Count *r)
{
    return !__builtin_mul_overflow(a, b, r);
}
static inline bool lc_dt_add_ok(MPI_Count a, MPI_Count b, MPI_Count *r)
{
    return !__builtin_add_overflow(a, b, r);
}

#endif
