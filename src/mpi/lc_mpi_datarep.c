/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_datarep.c — data representations of MPI-IO (MPI 4.1 §14.5):
 * "native", "internal" (the same as native here: docs/io.md), the
 * portable "external32", and those the user registers with
 * MPI_Register_datarep(_c).
 *
 * A representation gives two things (lc_mpi_file.h):
 *   - file extents of predefined types, from which the view's etype and
 *     filetype are rebuilt in file bytes (lc_dt_file_rep) and
 *     MPI_File_get_type_extent answers;
 *   - a conversion of whole items of the memory type to and from the
 *     file's bytes, which the io layer calls on its staging buffer
 *     (lc_io_access).  external32 is the datatype layer's packer (the
 *     one MPI_Pack_external uses); a registered one calls the user's
 *     functions with the user's buffer and datatype and `position` = the
 *     index of the first item, as §14.5.3 describes, several times when
 *     the data spans several staging buffers.  MPI_CONVERSION_FN_NULL
 *     means the data is the packed native bytes (then a memory item must
 *     have as many bytes in the file as in memory).
 *
 * The registry is a fixed table (names are never removed, §14.5.3), so
 * nothing is allocated; registration takes a mutex, lookups read
 * entries published with a release store of the count.
 */
#include "mpi/lc_mpi_dt.h"
#include "mpi/lc_mpi_file.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define LC_DATAREP_MAX 64

struct lc_datarep {
    char name[MPI_MAX_DATAREP_STRING + 1];
    bool external32;
    bool large; /* registered with the _c form */
    MPI_Datarep_conversion_function *read, *write;
    MPI_Datarep_conversion_function_c *read_c, *write_c;
    MPI_Datarep_extent_function *extent;
    void *extra_state;
};

static const lc_datarep_t lc_external32 = { .name = "external32", .external32 = true };
static lc_datarep_t lc_datareps[LC_DATAREP_MAX];
static _Atomic int lc_n_datareps;
static pthread_mutex_t lc_datarep_lock = PTHREAD_MUTEX_INITIALIZER;

static const lc_datarep_t *lc_datarep_registered(const char *name)
{
    int n = atomic_load_explicit(&lc_n_datareps, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (!strcmp(lc_datareps[i].name, name)) return &lc_datareps[i];
    return NULL;
}

int lc_file_datarep_find(const char *name, const lc_datarep_t **rep_p)
{
    int rc = lc_check_ptr(name, "datarep");
    if (rc) return rc;
    if (!strcmp(name, "native") || !strcmp(name, "internal")) {
        *rep_p = NULL;
        return MPI_SUCCESS;
    }
    if (!strcmp(name, "external32")) {
        *rep_p = &lc_external32;
        return MPI_SUCCESS;
    }
    if ((*rep_p = lc_datarep_registered(name))) return MPI_SUCCESS;
    return lc_error(MPI_ERR_UNSUPPORTED_DATAREP,
                    "unknown data representation \"%s\": \"native\", \"internal\", \"external32\" or one "
                    "registered with MPI_Register_datarep",
                    name);
}

/* ---- file extents --------------------------------------------------------- */

static int lc_datarep_fext(void *ctx, const lc_dt_t *t, MPI_Aint *extent_p)
{
    const lc_datarep_t *rep = ctx;
    if (rep->external32) {
        *extent_p = (MPI_Aint)t->ext32_size;
        return MPI_SUCCESS;
    }
    MPI_Aint e = 0;
    int r = rep->extent(t->handle, &e, rep->extra_state);
    if (r != MPI_SUCCESS)
        return lc_error(MPI_ERR_CONVERSION, "the dtype_file_extent_fn of data representation \"%s\" returned %d for %s",
                        rep->name, r, lc_dt_name(t));
    *extent_p = e;
    return MPI_SUCCESS;
}

int lc_file_rep_type(const lc_datarep_t *rep, lc_dt_t *t, lc_dt_t **out)
{
    if (!rep) {
        lc_dt_retain(t);
        *out = t;
        return MPI_SUCCESS;
    }
    return lc_dt_file_rep(t, lc_datarep_fext, (void *)rep, out);
}

int lc_file_rep_item(const lc_datarep_t *rep, lc_dt_t *t, MPI_Count *item_p)
{
    if (!rep) {
        *item_p = t->size;
        return MPI_SUCCESS;
    }
    if (rep->external32) {
        *item_p = t->ext32_size;
        return MPI_SUCCESS;
    }
    lc_dt_t *r;
    int rc = lc_dt_file_rep(t, lc_datarep_fext, (void *)rep, &r);
    if (rc) return rc;
    *item_p = r->size;
    lc_dt_release(r);
    bool null_fn = rep->large ? (!rep->read_c || !rep->write_c) : (!rep->read || !rep->write);
    if (null_fn && *item_p != t->size)
        return lc_error(MPI_ERR_CONVERSION,
                        "data representation \"%s\" has MPI_CONVERSION_FN_NULL (native bytes) but its file extents "
                        "give the datatype %lld bytes in the file, not its %lld in memory",
                        rep->name, (long long)*item_p, (long long)t->size);
    return MPI_SUCCESS;
}

/* ---- conversion of items -------------------------------------------------- */

int lc_file_rep_convert(void *ctx, void *buf, MPI_Count first, MPI_Count n, void *file, bool write)
{
    const lc_file_conv_t *c = ctx;
    const lc_datarep_t *rep = c->rep;
    if (rep->external32) {
        char *at = (char *)buf + first * (MPI_Count)lc_dt_extent(c->t);
        return write ? lc_dt_pack_external32(c->t, n, at, file) : lc_dt_unpack_external32(c->t, n, at, file);
    }
    int r;
    if (rep->large) {
        MPI_Datarep_conversion_function_c *fn = write ? rep->write_c : rep->read_c;
        if (!fn) goto native;
        r = fn(buf, c->handle, n, file, (MPI_Offset)first, rep->extra_state);
    } else {
        MPI_Datarep_conversion_function *fn = write ? rep->write : rep->read;
        if (!fn) goto native;
        r = fn(buf, c->handle, (int)n, file, (MPI_Offset)first, rep->extra_state);
    }
    if (r != MPI_SUCCESS)
        return lc_error(MPI_ERR_CONVERSION, "the %s conversion function of data representation \"%s\" returned %d",
                        write ? "write" : "read", rep->name, r);
    return MPI_SUCCESS;
native: /* MPI_CONVERSION_FN_NULL: the packed native bytes of items [first, first + n) */
    if (write) return lc_dt_pack(c->t, first + n, buf, first * c->t->size, file, (size_t)(n * c->t->size));
    return lc_dt_unpack(c->t, first + n, buf, first * c->t->size, file, (size_t)(n * c->t->size));
}

/* ---- MPI_Register_datarep ------------------------------------------------- */

static int lc_register_datarep(const char *datarep, MPI_Datarep_conversion_function *rd,
                               MPI_Datarep_conversion_function *wr, MPI_Datarep_conversion_function_c *rd_c,
                               MPI_Datarep_conversion_function_c *wr_c, bool large, MPI_Datarep_extent_function *extent,
                               void *extra_state, const char *func)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(datarep, "datarep"));
    if (!extent) LC_TRY(lc_error(MPI_ERR_ARG, "dtype_file_extent_fn is NULL: a data representation needs one"));
    size_t len = strlen(datarep);
    if (len == 0 || len > MPI_MAX_DATAREP_STRING)
        LC_TRY(lc_error(MPI_ERR_ARG, "the data representation's name has %zu characters (1 to %d allowed)", len,
                        MPI_MAX_DATAREP_STRING));
    pthread_mutex_lock(&lc_datarep_lock);
    int n = atomic_load_explicit(&lc_n_datareps, memory_order_relaxed);
    if (!strcmp(datarep, "native") || !strcmp(datarep, "internal") || !strcmp(datarep, "external32") ||
        lc_datarep_registered(datarep))
        rc = lc_error(MPI_ERR_DUP_DATAREP, "data representation \"%s\" is already defined", datarep);
    else if (n == LC_DATAREP_MAX)
        rc = lc_error(MPI_ERR_OTHER, "too many data representations registered (%d)", LC_DATAREP_MAX);
    if (!rc) {
        lc_datarep_t *d = &lc_datareps[n];
        memcpy(d->name, datarep, len + 1);
        d->large = large;
        d->read = rd;
        d->write = wr;
        d->read_c = rd_c;
        d->write_c = wr_c;
        d->extent = extent;
        d->extra_state = extra_state;
        atomic_store_explicit(&lc_n_datareps, n + 1, memory_order_release); /* publishes the entry */
    }
    pthread_mutex_unlock(&lc_datarep_lock);
    LC_TRY(rc);
    return MPI_SUCCESS;
err:
    /* Not about one file: the handler on MPI_FILE_NULL (MPI 4.1 §14.7). */
    return lc_mpi_file_error(NULL, func, rc);
}

LC_API int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                                 MPI_Datarep_conversion_function *write_conversion_fn,
                                 MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return lc_register_datarep(datarep, read_conversion_fn, write_conversion_fn, NULL, NULL, false,
                               dtype_file_extent_fn, extra_state, "MPI_Register_datarep");
}
LC_MPI_ALIAS(Register_datarep);

LC_API int PMPI_Register_datarep_c(const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn,
                                   MPI_Datarep_conversion_function_c *write_conversion_fn,
                                   MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return lc_register_datarep(datarep, NULL, NULL, read_conversion_fn, write_conversion_fn, true, dtype_file_extent_fn,
                               extra_state, "MPI_Register_datarep_c");
}
LC_MPI_ALIAS(Register_datarep_c);
