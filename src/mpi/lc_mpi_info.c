/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_info.c — the info object and every MPI_Info_* function.
 *
 * MPI_INFO_ENV holds the keys MPI 4.1 §11.2.3 names, filled on first use
 * from /proc/self/cmdline (so MPI_Init's argc/argv are not needed, and
 * MPI_Info_create_env works before MPI_Init).
 */
#include "mpi/lc_mpi_info.h"
#include "pmi/lc_pmi.h"
#include "util/lc_handle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static lc_handle_table_t lc_infos = LC_HANDLE_TABLE_INIT(0x9c000000u, 0x03ffffffu);
static lc_info_t *lc_info_env; /* MPI_INFO_ENV, made on first use */

int lc_info_new(lc_info_t **info_p)
{
    lc_info_t *info = calloc(1, sizeof(*info));
    if (!info) return lc_error(MPI_ERR_NO_MEM, "out of memory creating an info object");
    *info_p = info;
    return MPI_SUCCESS;
}

void lc_info_free(lc_info_t *info)
{
    if (!info) return;
    for (int i = 0; i < info->n; i++) {
        free(info->entries[i].key);
        free(info->entries[i].value);
    }
    free(info->entries);
    free(info);
}

static int lc_info_find(const lc_info_t *info, const char *key)
{
    for (int i = 0; info && i < info->n; i++)
        if (strcmp(info->entries[i].key, key) == 0) return i;
    return -1;
}

const char *lc_info_get(const lc_info_t *info, const char *key)
{
    int i = lc_info_find(info, key);
    return i < 0 ? NULL : info->entries[i].value;
}

static int lc_info_check_key(const char *key)
{
    if (!key) return lc_error(MPI_ERR_INFO_KEY, "the key is NULL");
    size_t len = strlen(key);
    if (len == 0) return lc_error(MPI_ERR_INFO_KEY, "the key is empty");
    if (len > MPI_MAX_INFO_KEY)
        return lc_error(MPI_ERR_INFO_KEY, "the key is %zu characters long; at most MPI_MAX_INFO_KEY (%d) are allowed",
                        len, MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

int lc_info_set(lc_info_t *info, const char *key, const char *value)
{
    int rc = lc_info_check_key(key);
    if (rc != MPI_SUCCESS) return rc;
    if (!value) return lc_error(MPI_ERR_INFO_VALUE, "the value of key \"%s\" is NULL", key);
    size_t vlen = strlen(value);
    if (vlen > MPI_MAX_INFO_VAL)
        return lc_error(MPI_ERR_INFO_VALUE, "the value of key \"%s\" is %zu characters long; at most "
                                            "MPI_MAX_INFO_VAL (%d) are allowed", key, vlen, MPI_MAX_INFO_VAL);
    char *v = strdup(value);
    if (!v) return lc_error(MPI_ERR_NO_MEM, "out of memory storing an info value");
    int i = lc_info_find(info, key);
    if (i >= 0) {
        free(info->entries[i].value);
        info->entries[i].value = v;
        return MPI_SUCCESS;
    }
    if (info->n == info->cap) {
        int cap = info->cap ? 2 * info->cap : 8;
        lc_info_entry_t *e = realloc(info->entries, sizeof(*e) * (size_t)cap);
        if (!e) {
            free(v);
            return lc_error(MPI_ERR_NO_MEM, "out of memory growing an info object");
        }
        info->entries = e;
        info->cap = cap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return lc_error(MPI_ERR_NO_MEM, "out of memory storing an info key");
    }
    info->entries[info->n++] = (lc_info_entry_t){ k, v };
    return MPI_SUCCESS;
}

int lc_info_dup(const lc_info_t *src, lc_info_t **info_p)
{
    lc_info_t *info = NULL;
    int rc = lc_info_new(&info);
    for (int i = 0; rc == MPI_SUCCESS && src && i < src->n; i++)
        rc = lc_info_set(info, src->entries[i].key, src->entries[i].value);
    if (rc != MPI_SUCCESS) {
        lc_info_free(info);
        return rc;
    }
    *info_p = info;
    return MPI_SUCCESS;
}

int lc_info_publish(lc_info_t *info, MPI_Info *handle_p)
{
    int rc = lc_handle_add(&lc_infos, info, handle_p);
    if (rc != MPI_SUCCESS) lc_info_free(info);
    return rc;
}

/* The environment keys of MPI 4.1 §11.2.3 that Locus knows. */
static int lc_info_fill_env(lc_info_t *info)
{
    char buf[MPI_MAX_INFO_VAL + 1] = "", cmd[MPI_MAX_INFO_VAL + 1] = "", args[MPI_MAX_INFO_VAL + 1] = "";
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = 0;
    /* NUL-separated: argv[0], then the arguments, joined by spaces. */
    snprintf(cmd, sizeof(cmd), "%s", buf);
    for (size_t at = strlen(buf) + 1, len = 0; at < n; at += strlen(buf + at) + 1) {
        int w = snprintf(args + len, sizeof(args) - len, "%s%s", len ? " " : "", buf + at);
        if (w < 0 || (size_t)w >= sizeof(args) - len) break;
        len += (size_t)w;
    }
    int rc = lc_info_set(info, "command", cmd);
    if (rc == MPI_SUCCESS) rc = lc_info_set(info, "argv", args);
    /* The keys do not depend on whether MPI is initialized (MPICH's
     * info/infocreateenv compares objects made before MPI_Init, after it
     * and after MPI_Finalize): maxprocs is the size the launcher started
     * the job with, and thread_level is left out, as it names a level
     * asked for at launch (§11.2.3), which Locus's mpiexec has no way to
     * ask for -- not the level MPI_Init_thread was given. */
    int maxprocs = lc_pmi_env_size();
    if (rc == MPI_SUCCESS && maxprocs > 0) {
        snprintf(buf, sizeof(buf), "%d", maxprocs);
        rc = lc_info_set(info, "maxprocs", buf);
    }
    struct utsname u;
    if (rc == MPI_SUCCESS && uname(&u) == 0) rc = lc_info_set(info, "arch", u.machine);
    if (rc == MPI_SUCCESS && gethostname(buf, sizeof(buf) - 1) == 0) {
        buf[sizeof(buf) - 1] = 0;
        rc = lc_info_set(info, "host", buf);
    }
    if (rc == MPI_SUCCESS && getcwd(buf, sizeof(buf))) rc = lc_info_set(info, "wdir", buf);
    return rc;
}

static int lc_info_env_get(lc_info_t **info_p)
{
    if (!lc_info_env) {
        lc_info_t *info = NULL;
        int rc = lc_info_new(&info);
        if (rc == MPI_SUCCESS) rc = lc_info_fill_env(info);
        if (rc != MPI_SUCCESS) {
            lc_info_free(info);
            return rc;
        }
        lc_info_env = info;
    }
    *info_p = lc_info_env;
    return MPI_SUCCESS;
}

int lc_check_info(MPI_Info handle, lc_info_t **info_p)
{
    if (handle == MPI_INFO_ENV) return lc_info_env_get(info_p);
    lc_info_t *info = lc_handle_get(&lc_infos, handle);
    if (lc_likely(info != NULL)) {
        *info_p = info;
        return MPI_SUCCESS;
    }
    if (handle == MPI_INFO_NULL) return lc_error(MPI_ERR_INFO, "the info object is MPI_INFO_NULL");
    return lc_error(MPI_ERR_INFO, "%#x is not a valid info object (freed, or not an info object)", (unsigned)handle);
}

int lc_check_info_or_null(MPI_Info handle, lc_info_t **info_p)
{
    if (handle == MPI_INFO_NULL) {
        *info_p = NULL;
        return MPI_SUCCESS;
    }
    return lc_check_info(handle, info_p);
}

/* ---- the API --------------------------------------------------------------- */

LC_API int PMPI_Info_create(MPI_Info *info)
{
    lc_info_t *i = NULL;
    int rc;
    LC_TRY(lc_check_ptr(info, "info"));
    LC_TRY(lc_info_new(&i));
    LC_TRY(lc_info_publish(i, info));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Info_create", rc);
}
LC_MPI_ALIAS(Info_create);

LC_API int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    (void)argc; /* the keys come from /proc/self/cmdline, as for MPI_INFO_ENV */
    (void)argv;
    lc_info_t *env = NULL;
    int rc;
    LC_TRY(lc_check_ptr(info, "info"));
    LC_TRY(lc_info_new(&env));
    if ((rc = lc_info_fill_env(env)) != MPI_SUCCESS) {
        lc_info_free(env);
        goto err;
    }
    LC_TRY(lc_info_publish(env, info));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Info_create_env", rc);
}
LC_MPI_ALIAS(Info_create_env);

LC_API int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    lc_info_t *i = NULL;
    int rc;
    LC_TRY(lc_check_info(info, &i));
    LC_TRY(lc_info_set(i, key, value));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Info_set", rc);
}
LC_MPI_ALIAS(Info_set);

LC_API int PMPI_Info_delete(MPI_Info info, const char *key)
{
    lc_info_t *i = NULL;
    int rc;
    LC_TRY(lc_check_info(info, &i));
    LC_TRY(lc_info_check_key(key));
    int at = lc_info_find(i, key);
    if (at < 0) LC_TRY(lc_error(MPI_ERR_INFO_NOKEY, "the info object has no key \"%s\"", key));
    free(i->entries[at].key);
    free(i->entries[at].value);
    memmove(&i->entries[at], &i->entries[at + 1], sizeof(*i->entries) * (size_t)(i->n - at - 1));
    i->n--;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Info_delete", rc);
}
LC_MPI_ALIAS(Info_delete);

/* Copy at most `room` characters of `value` and a NUL into `out`. */
static void lc_info_copy_out(char *out, const char *value, size_t room)
{
    size_t len = strlen(value);
    if (len > room) len = room;
    memcpy(out, value, len);
    out[len] = 0;
}

LC_API int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    lc_info_t *i = NULL;
    int rc;
    LC_TRY(lc_check_info(info, &i));
    LC_TRY(lc_info_check_key(key));
    if (valuelen < 0) LC_TRY(lc_error(MPI_ERR_ARG, "valuelen %d is negative", valuelen));
    LC_TRY(lc_check_ptr(value, "value"));
    LC_TRY(lc_check_ptr(flag, "flag"));
    const char *v = lc_info_get(i, key);
    *flag = v != NULL;
    if (v) lc_info_copy_out(value, v, (size_t)valuelen);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Info_get", rc);
}
LC_MPI_ALIAS(Info_get);

LC_API int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    lc_info_t *i = NULL;
    int rc;
    LC_TRY(lc_check_info(info, &i));
    LC_TRY(lc_info_check_key(key));
    LC_TRY(lc_check_ptr(valuelen, "valuelen"));
    LC_TRY(lc_check_ptr(flag, "flag"));
    const char *v = lc_info_get(i, key);
    *flag = v != NULL;
    if (v) *valuelen = (int)strlen(v);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Info_get_valuelen", rc);
}
LC_MPI_ALIAS(Info_get_valuelen);

/* MPI 4: *buflen in: room for the value and its NUL (0: only ask the
 * length); out: the value's length + 1.  The value is cut to fit. */
LC_API int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    lc_info_t *i = NULL;
    int rc;
    LC_TRY(lc_check_info(info, &i));
    LC_TRY(lc_info_check_key(key));
    LC_TRY(lc_check_ptr(buflen, "buflen"));
    LC_TRY(lc_check_ptr(flag, "flag"));
    if (*buflen < 0) LC_TRY(lc_error(MPI_ERR_ARG, "*buflen %d is negative", *buflen));
    if (*buflen > 0) LC_TRY(lc_check_ptr(value, "value"));
    const char *v = lc_info_get(i, key);
    *flag = v != NULL;
    if (!v) return MPI_SUCCESS;
    if (*buflen > 0) lc_info_copy_out(value, v, (size_t)*buflen - 1);
    *buflen = (int)strlen(v) + 1;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Info_get_string", rc);
}
LC_MPI_ALIAS(Info_get_string);

LC_API int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    lc_info_t *i = NULL;
    int rc;
    LC_TRY(lc_check_info(info, &i));
    LC_TRY(lc_check_ptr(nkeys, "nkeys"));
    *nkeys = i->n;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Info_get_nkeys", rc);
}
LC_MPI_ALIAS(Info_get_nkeys);

LC_API int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    lc_info_t *i = NULL;
    int rc;
    LC_TRY(lc_check_info(info, &i));
    LC_TRY(lc_check_ptr(key, "key"));
    if (n < 0 || n >= i->n)
        LC_TRY(lc_error(MPI_ERR_ARG, "n = %d is outside 0..%d (the info object has %d keys)", n, i->n - 1, i->n));
    strcpy(key, i->entries[n].key); /* at most MPI_MAX_INFO_KEY characters: checked by lc_info_set */
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Info_get_nthkey", rc);
}
LC_MPI_ALIAS(Info_get_nthkey);

LC_API int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    lc_info_t *i = NULL, *n = NULL;
    int rc;
    LC_TRY(lc_check_info(info, &i));
    LC_TRY(lc_check_ptr(newinfo, "newinfo"));
    LC_TRY(lc_info_dup(i, &n));
    LC_TRY(lc_info_publish(n, newinfo));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Info_dup", rc);
}
LC_MPI_ALIAS(Info_dup);

LC_API int PMPI_Info_free(MPI_Info *info)
{
    lc_info_t *i = NULL;
    int rc;
    LC_TRY(lc_check_ptr(info, "info"));
    if (*info == MPI_INFO_ENV) LC_TRY(lc_error(MPI_ERR_INFO, "MPI_INFO_ENV is predefined and cannot be freed"));
    LC_TRY(lc_check_info(*info, &i));
    lc_handle_remove(&lc_infos, *info);
    lc_info_free(i);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Info_free", rc);
}
LC_MPI_ALIAS(Info_free);
