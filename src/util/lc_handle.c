/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_handle.c — handle tables of MPI objects (see lc_handle.h). */
#include "util/lc_handle.h"
#include "util/lc_error.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int lc_handle_add(lc_handle_table_t *t, void *obj, int *handle_p)
{
    int idx = 0;
    if (t->used < t->len)
        while (t->slots[idx]) idx++;
    else
        idx = t->len;
    if (idx == t->len) {
        long n = t->len ? 2L * t->len : 16;
        if ((unsigned long)n - 1 > t->mask) n = (long)t->mask + 1;
        if (n <= t->len)
            return lc_error(MPI_ERR_INTERN, "too many objects of this kind exist at once (%d): free some", t->len);
        void **s = realloc(t->slots, sizeof(*s) * (size_t)n);
        if (!s) return lc_error(MPI_ERR_NO_MEM, "out of memory growing a handle table to %ld entries", n);
        memset(s + t->len, 0, sizeof(*s) * (size_t)(n - t->len));
        t->slots = s;
        t->len = (int)n;
    }
    t->slots[idx] = obj;
    t->used++;
    *handle_p = (int)(t->base | (unsigned)idx);
    return MPI_SUCCESS;
}

void *lc_handle_get(const lc_handle_table_t *t, int handle)
{
    unsigned h = (unsigned)handle;
    if ((h & ~t->mask) != t->base) return NULL;
    unsigned idx = h & t->mask;
    return idx < (unsigned)t->len ? t->slots[idx] : NULL;
}

void lc_handle_remove(lc_handle_table_t *t, int handle)
{
    unsigned h = (unsigned)handle, idx = h & t->mask;
    if ((h & ~t->mask) != t->base || idx >= (unsigned)t->len || !t->slots[idx]) return;
    t->slots[idx] = NULL;
    t->used--;
}

void lc_handle_table_reset(lc_handle_table_t *t)
{
    free(t->slots);
    t->slots = NULL;
    t->len = t->used = 0;
}
