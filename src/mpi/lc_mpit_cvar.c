/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpit_cvar.c — MPI_T control variables: one per row of the parameter
 * table (src/util/lc_params.c), named as its environment variable
 * (LOCUS_EAGER_LIMIT), described by its help text.
 *
 * Every parameter is read once, at MPI_Init (or by mpiexec), so every
 * variable has scope MPI_T_SCOPE_READONLY and MPI_T_cvar_write answers
 * MPI_T_ERR_CVAR_SET_NEVER.  A read gives the value in use once MPI is
 * initialized (also after MPI_Finalize); before, and for the rows only
 * mpiexec reads, what the environment says (or the default), parsed as
 * MPI_Init would.  Types: SIZE MPI_UNSIGNED_LONG ("auto" reads as
 * ULONG_MAX), INT MPI_INT, BOOL and ENUM MPI_INT with an enumeration,
 * STRING MPI_CHAR (LC_PARAM_STRING_MAX characters, NUL included).
 */
#include "mpi/lc_mpit.h"
#include "util/lc_params.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Handles: a list, so that a bad handle is found by looking, not by
 * dereferencing it. */
struct MPIR_T_cvar_handle_s {
    struct MPIR_T_cvar_handle_s *next;
    int cvar;
};
static struct MPIR_T_cvar_handle_s *lc_mpit_cvar_handles;

/* Enumerations: 0 is the booleans', then one per ENUM row (built at the
 * first use: the table's rows are known at run time only). */
#define LC_MPIT_ENUM_MAX 16
static struct MPIR_T_enum_s lc_mpit_enums[LC_MPIT_ENUM_MAX];
static int lc_mpit_enum_rows[LC_MPIT_ENUM_MAX]; /* the row of enum i (i > 0) */
static int lc_mpit_enum_count;

static void lc_mpit_enums_build(void)
{
    if (lc_mpit_enum_count) return;
    lc_mpit_enums[0] = (struct MPIR_T_enum_s){ .name = "locus_bool", .items = "false|true", .count = 2 };
    int n = 1;
    for (size_t i = 0; i < lc_param_count; i++) {
        const lc_param_desc_t *d = &lc_param_table[i];
        if (d->type != LC_PARAM_ENUM) continue;
        if (n == LC_MPIT_ENUM_MAX) lc_fatal("internal: more than %d enum parameters; raise LC_MPIT_ENUM_MAX", n);
        int count = 1;
        for (const char *c = d->choices; *c; c++) count += *c == '|';
        /* Named as the category names are: locus_poll. */
        static char names[LC_MPIT_ENUM_MAX][48];
        int k = snprintf(names[n], sizeof(names[n]), "locus_%s", d->name);
        for (int j = 6; j < k && j < (int)sizeof(names[n]); j++)
            names[n][j] = (char)tolower((unsigned char)names[n][j]);
        lc_mpit_enums[n] = (struct MPIR_T_enum_s){ .name = names[n], .items = d->choices, .count = count };
        lc_mpit_enum_rows[n++] = (int)i;
    }
    lc_mpit_enum_count = n;
}

MPI_T_enum lc_mpit_cvar_enum(int cvar)
{
    lc_mpit_enums_build();
    if (lc_param_table[cvar].type == LC_PARAM_BOOL) return &lc_mpit_enums[0];
    for (int i = 1; i < lc_mpit_enum_count; i++)
        if (lc_mpit_enum_rows[i] == cvar) return &lc_mpit_enums[i];
    return MPI_T_ENUM_NULL;
}

bool lc_mpit_enum_valid(MPI_T_enum e)
{
    lc_mpit_enums_build();
    for (int i = 0; i < lc_mpit_enum_count; i++)
        if (e == &lc_mpit_enums[i]) return true;
    return false;
}

static bool lc_mpit_cvar_index_ok(int cvar)
{
    return cvar >= 0 && (size_t)cvar < lc_param_count;
}

static MPI_Datatype lc_mpit_cvar_type(const lc_param_desc_t *d, int *count)
{
    *count = 1;
    switch (d->type) {
    case LC_PARAM_SIZE:
        return MPI_UNSIGNED_LONG;
    case LC_PARAM_STRING:
        *count = LC_PARAM_STRING_MAX;
        return MPI_CHAR;
    default:
        return MPI_INT;
    }
}

LC_API int PMPI_T_cvar_get_num(int *num_cvar)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!num_cvar) return lc_mpit_leave(MPI_T_ERR_INVALID);
    *num_cvar = (int)lc_param_count;
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_cvar_get_num);

LC_API int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                                MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!lc_mpit_cvar_index_ok(cvar_index)) return lc_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    const lc_param_desc_t *d = &lc_param_table[cvar_index];
    char full[96];
    int n = snprintf(full, sizeof(full), "LOCUS_%s", d->name);
    lc_mpit_string(full, (size_t)n, name, name_len);
    /* The rows for testing say so first: they are for Locus's developers. */
    if (verbosity)
        *verbosity = !strncmp(d->help, "Testing", 7) ? MPI_T_VERBOSITY_MPIDEV_BASIC : MPI_T_VERBOSITY_TUNER_BASIC;
    int count;
    if (datatype) *datatype = lc_mpit_cvar_type(d, &count);
    if (enumtype) *enumtype = lc_mpit_cvar_enum(cvar_index);
    if (desc_len) {
        char allowed[96];
        lc_param_allowed(d, allowed, sizeof(allowed));
        char *text = NULL;
        int m = asprintf(&text, "%s (%s; default %s%s%s)", d->help, lc_param_type_name(d->type),
                         d->default_value[0] ? d->default_value : "empty", allowed[0] ? "; " : "", allowed);
        if (m < 0) return lc_mpit_leave(MPI_T_ERR_MEMORY);
        lc_mpit_string(text, (size_t)m, desc, desc_len);
        free(text);
    }
    if (bind) *bind = MPI_T_BIND_NO_OBJECT;
    if (scope) *scope = MPI_T_SCOPE_READONLY;
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_cvar_get_info);

LC_API int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!name || !cvar_index) return lc_mpit_leave(MPI_T_ERR_INVALID);
    if (strncmp(name, "LOCUS_", 6)) return lc_mpit_leave(MPI_T_ERR_INVALID_NAME);
    for (size_t i = 0; i < lc_param_count; i++) {
        if (!strcmp(lc_param_table[i].name, name + 6)) {
            *cvar_index = (int)i;
            return lc_mpit_leave(MPI_SUCCESS);
        }
    }
    return lc_mpit_leave(MPI_T_ERR_INVALID_NAME);
}
LC_MPI_ALIAS(T_cvar_get_index);

LC_API int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count)
{
    (void)obj_handle; /* every variable is bound to no object */
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!lc_mpit_cvar_index_ok(cvar_index)) return lc_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count) return lc_mpit_leave(MPI_T_ERR_INVALID);
    struct MPIR_T_cvar_handle_s *h = malloc(sizeof(*h));
    if (!h) return lc_mpit_leave(MPI_T_ERR_MEMORY);
    h->cvar = cvar_index;
    h->next = lc_mpit_cvar_handles;
    lc_mpit_cvar_handles = h;
    (void)lc_mpit_cvar_type(&lc_param_table[cvar_index], count);
    *handle = h;
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_cvar_handle_alloc);

/* The link that points at h, or NULL when h is not a live handle. */
static struct MPIR_T_cvar_handle_s **lc_mpit_cvar_find(MPI_T_cvar_handle h)
{
    for (struct MPIR_T_cvar_handle_s **p = &lc_mpit_cvar_handles; *p; p = &(*p)->next)
        if (*p == h) return p;
    return NULL;
}

LC_API int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    struct MPIR_T_cvar_handle_s **p = handle ? lc_mpit_cvar_find(*handle) : NULL;
    if (!p) return lc_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    *p = (*handle)->next;
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_cvar_handle_free);

void lc_mpit_cvar_fini(void)
{
    while (lc_mpit_cvar_handles) {
        struct MPIR_T_cvar_handle_s *h = lc_mpit_cvar_handles;
        lc_mpit_cvar_handles = h->next;
        free(h);
    }
}

LC_API int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!lc_mpit_cvar_find(handle)) return lc_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (!buf) return lc_mpit_leave(MPI_T_ERR_INVALID);
    const lc_param_desc_t *d = &lc_param_table[handle->cvar];
    /* The values in use, or what MPI_Init (mpiexec) would read now. */
    static lc_params_t env; /* under lc_mpit_lock; large for a stack */
    const lc_params_t *p = &lc_params;
    if (lc_mpi_state == LC_MPI_STATE_NONE || !(d->readers & LC_PARAM_RANKS)) {
        lc_params_read_env(&env, d->readers);
        p = &env;
    }
    const char *field = (const char *)p + d->offset;
    switch (d->type) {
    case LC_PARAM_SIZE:
        *(unsigned long *)buf = *(const size_t *)field;
        break;
    case LC_PARAM_INT: /* every INT row's range fits an int */
        *(int *)buf = (int)*(const long *)field;
        break;
    case LC_PARAM_BOOL:
    case LC_PARAM_ENUM:
        *(int *)buf = *(const int *)field;
        break;
    case LC_PARAM_STRING:
        memcpy(buf, field, LC_PARAM_STRING_MAX);
        break;
    }
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_cvar_read);

LC_API int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    (void)buf;
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!lc_mpit_cvar_find(handle)) return lc_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    /* Read once at start-up: a change would not be seen (see the head). */
    return lc_mpit_leave(MPI_T_ERR_CVAR_SET_NEVER);
}
LC_MPI_ALIAS(T_cvar_write);
