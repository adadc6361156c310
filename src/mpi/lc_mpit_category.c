/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpit_category.c — MPI_T categories: "locus" holds one category per
 * layer, and each control variable is in the layer that reads it, chosen
 * by the prefix of its parameter's name (a parameter no prefix names
 * lands in locus_misc, so a new row is never left out); every performance
 * variable is in locus_pt2pt.  The set never changes while the program
 * runs, so MPI_T_category_changed always answers 0.
 */
#include "mpi/lc_mpit.h"
#include "util/lc_params.h"

#include <string.h>

typedef struct lc_mpit_cat {
    const char *name;
    const char *desc;
    const char *prefixes; /* '|'-separated prefixes (or whole names) of its parameters; NULL: none */
} lc_mpit_cat_t;

enum { LC_CAT_ROOT, LC_CAT_PT2PT, LC_CAT_MISC };
static const lc_mpit_cat_t lc_mpit_cats[] = {
    [LC_CAT_ROOT] = { "locus", "Every variable of Locus, by layer (the categories below).", NULL },
    [LC_CAT_PT2PT] = { "locus_pt2pt",
                       "Point-to-point protocols: eager limit, rendezvous pipeline, waiting; the "
                       "receive side's counters.",
                       "EAGER_LIMIT|PIPELINE_CHUNK|POLL|ASYNC_PROGRESS" },
    [LC_CAT_MISC] = { "locus_misc", "Diagnostics and anything not in another category.", NULL },
    { "locus_shm", "The shared-memory channel: rings, send pool, segment directory.", "SHM_" },
    { "locus_cma", "Single-copy rendezvous (CMA) and its thresholds; NUMA awareness.", "CMA|NUMA" },
    { "locus_ofi", "The network channel (libfabric) and the network peers.", "OFI_|NET_" },
    { "locus_ivshmem", "Shared memory between virtual machines (ivshmem).", "IVSHMEM|BOOT_ID" },
    { "locus_launcher", "mpiexec and its proxies.", "LAUNCH_" },
};
#define LC_MPIT_NCATS ((int)LC_ARRAY_SIZE(lc_mpit_cats))

static bool lc_mpit_prefix_of(const char *prefixes, const char *name)
{
    for (const char *p = prefixes; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (!strncmp(name, p, n)) return true;
        p = bar ? bar + 1 : NULL;
    }
    return false;
}

int lc_mpit_cvar_category(int cvar)
{
    for (int c = 0; c < LC_MPIT_NCATS; c++)
        if (lc_mpit_prefix_of(lc_mpit_cats[c].prefixes, lc_param_table[cvar].name)) return c;
    return LC_CAT_MISC;
}

/* Up to `len` members of category `cat` into `indices` (NULL: count only);
 * `what`: 'c' control variables, 'p' performance variables, 'k' categories. */
static int lc_mpit_members(int cat, char what, int len, int *indices)
{
    int n = 0;
    if (what == 'c') {
        for (size_t i = 0; i < lc_param_count; i++)
            if (lc_mpit_cvar_category((int)i) == cat) {
                if (indices && n < len) indices[n] = (int)i;
                n++;
            }
    } else if (what == 'p' && cat == LC_CAT_PT2PT) {
        for (int i = 0; i < lc_mpit_pvar_count(); i++, n++)
            if (indices && n < len) indices[n] = i;
    } else if (what == 'k' && cat == LC_CAT_ROOT) {
        for (int i = 1; i < LC_MPIT_NCATS; i++, n++)
            if (indices && n < len) indices[n] = i;
    }
    return n;
}

LC_API int PMPI_T_category_get_num(int *num_cat)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!num_cat) return lc_mpit_leave(MPI_T_ERR_INVALID);
    *num_cat = LC_MPIT_NCATS;
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_category_get_num);

LC_API int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars,
                                    int *num_pvars, int *num_categories)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (cat_index < 0 || cat_index >= LC_MPIT_NCATS) return lc_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    const lc_mpit_cat_t *c = &lc_mpit_cats[cat_index];
    lc_mpit_string(c->name, strlen(c->name), name, name_len);
    lc_mpit_string(c->desc, strlen(c->desc), desc, desc_len);
    if (num_cvars) *num_cvars = lc_mpit_members(cat_index, 'c', 0, NULL);
    if (num_pvars) *num_pvars = lc_mpit_members(cat_index, 'p', 0, NULL);
    if (num_categories) *num_categories = lc_mpit_members(cat_index, 'k', 0, NULL);
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_category_get_info);

LC_API int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!name || !cat_index) return lc_mpit_leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < LC_MPIT_NCATS; i++) {
        if (!strcmp(lc_mpit_cats[i].name, name)) {
            *cat_index = i;
            return lc_mpit_leave(MPI_SUCCESS);
        }
    }
    return lc_mpit_leave(MPI_T_ERR_INVALID_NAME);
}
LC_MPI_ALIAS(T_category_get_index);

static int lc_mpit_category_list(int cat_index, int len, int indices[], char what)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (cat_index < 0 || cat_index >= LC_MPIT_NCATS) return lc_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (len < 0 || (len > 0 && !indices)) return lc_mpit_leave(MPI_T_ERR_INVALID);
    (void)lc_mpit_members(cat_index, what, len, indices);
    return lc_mpit_leave(MPI_SUCCESS);
}

LC_API int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return lc_mpit_category_list(cat_index, len, indices, 'c');
}
LC_MPI_ALIAS(T_category_get_cvars);

LC_API int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return lc_mpit_category_list(cat_index, len, indices, 'p');
}
LC_MPI_ALIAS(T_category_get_pvars);

LC_API int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    return lc_mpit_category_list(cat_index, len, indices, 'k');
}
LC_MPI_ALIAS(T_category_get_categories);

/* No event types (lc_mpit_event.c): a valid category has none. */
LC_API int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    return lc_mpit_category_list(cat_index, len, indices, 'e');
}
LC_MPI_ALIAS(T_category_get_events);

LC_API int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (cat_index < 0 || cat_index >= LC_MPIT_NCATS) return lc_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (!num_events) return lc_mpit_leave(MPI_T_ERR_INVALID);
    *num_events = 0;
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_category_get_num_events);

LC_API int PMPI_T_category_changed(int *update_number)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!update_number) return lc_mpit_leave(MPI_T_ERR_INVALID);
    *update_number = 0;
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_category_changed);
