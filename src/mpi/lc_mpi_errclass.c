/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_errclass.c — error classes and codes: MPI_Error_class,
 * MPI_Error_string, MPI_Add_error_class/_code/_string and the MPI 4.1
 * MPI_Remove_error_class/_code/_string.
 *
 * Added classes and codes live in one table indexed by (class k, code j),
 * j = 0 being the class itself (encoding in lc_mpi_errhandler.h).  A
 * removed class's slot k is reused once the 255 slots have all been used
 * (programs that add and remove classes in a loop, as MPI 4.1 allows),
 * so MPI_LASTUSEDCODE only grows: a reused value is below it.
 */
#include "mpi/lc_mpi_errhandler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LC_ERR_DYN 0x40000000
#define LC_ERR_PRE 0x20000000  /* with LC_ERR_DYN: a code of a predefined class */
#define LC_ERR_DYN_CLASSES 256 /* k = 1..255 */
#define LC_ERR_DYN_CODES 0x1fffff /* j = 1.. (bits 8..28) */

typedef struct lc_errcode {
    int code;
    char *text; /* MPI_Add_error_string; NULL: none */
} lc_errcode_t;

typedef struct lc_errclass {
    bool used;
    char *text;
    int next_code;        /* j of the next code of this class */
    int ncodes;           /* live codes of this class */
    lc_errcode_t *codes;  /* [ncodes] */
} lc_errclass_t;

/* [0]: classes users added (index k); [1]: the codes users added to the
 * predefined classes (index = the class; only `codes` is used). */
static lc_errclass_t lc_errclasses[2][LC_ERR_DYN_CLASSES];
static int lc_errclass_next = 1;
static int lc_lastusedcode = MPI_ERR_LASTCODE;

int *lc_mpi_lastusedcode(void) { return &lc_lastusedcode; }

static bool lc_err_is_dyn(int code) { return (code & ~0x3fffffff) == LC_ERR_DYN; }
/* A user class itself (not a code): no code bits, not of a predefined class. */
static bool lc_err_is_class(int code) { return (code & (LC_ERR_PRE | 0x1fffff00)) == 0; }

/* The class entry of a user code or class, or NULL. */
static lc_errclass_t *lc_err_class(int code)
{
    if (!lc_err_is_dyn(code)) return NULL;
    int c = code & 0xff;
    if (code & LC_ERR_PRE) return lc_error_class_predefined(c) ? &lc_errclasses[1][c] : NULL;
    return c && lc_errclasses[0][c].used ? &lc_errclasses[0][c] : NULL;
}

/* The code entry of a user code (j > 0), or NULL. */
static lc_errcode_t *lc_err_code(int code)
{
    lc_errclass_t *k = lc_err_class(code);
    for (int i = 0; k && i < k->ncodes; i++)
        if (k->codes[i].code == code) return &k->codes[i];
    return NULL;
}

bool lc_mpi_error_code_valid(int code)
{
    if (lc_err_is_dyn(code)) return lc_err_is_class(code) ? lc_err_class(code) != NULL : lc_err_code(code) != NULL;
    return code >= 0 && lc_error_class_predefined(lc_error_class_of(code));
}

void lc_mpi_error_text(int code, char *buf, size_t len)
{
    if (!lc_err_is_dyn(code)) {
        lc_error_string(code, buf, len);
        return;
    }
    const char *text = NULL;
    if (lc_err_is_class(code)) {
        const lc_errclass_t *k = lc_err_class(code);
        text = k ? k->text : NULL;
    } else {
        const lc_errcode_t *c = lc_err_code(code);
        text = c ? c->text : NULL;
    }
    snprintf(buf, len, "%s", text ? text : "");
}

void lc_errclass_fini(void)
{
    for (int t = 0; t < 2; t++) {
        for (int k = 0; k < LC_ERR_DYN_CLASSES; k++) {
            lc_errclass_t *e = &lc_errclasses[t][k];
            for (int i = 0; i < e->ncodes; i++) free(e->codes[i].text);
            free(e->codes);
            free(e->text);
        }
    }
    memset(lc_errclasses, 0, sizeof(lc_errclasses));
    lc_errclass_next = 1;
    lc_lastusedcode = MPI_ERR_LASTCODE;
}

LC_API int PMPI_Error_class(int errorcode, int *errorclass)
{
    int rc;
    LC_TRY(lc_check_ptr(errorclass, "errorclass"));
    if (!lc_mpi_error_code_valid(errorcode))
        LC_TRY(lc_error(MPI_ERR_ARG, "%d is not an MPI error code", errorcode));
    *errorclass = lc_error_class_of(errorcode);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Error_class", rc);
}
LC_MPI_ALIAS(Error_class);

LC_API int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    int rc;
    LC_TRY(lc_check_ptr(string, "string"));
    LC_TRY(lc_check_ptr(resultlen, "resultlen"));
    if (!lc_mpi_error_code_valid(errorcode))
        LC_TRY(lc_error(MPI_ERR_ARG, "%d is not an MPI error code", errorcode));
    lc_mpi_error_text(errorcode, string, MPI_MAX_ERROR_STRING);
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Error_string", rc);
}
LC_MPI_ALIAS(Error_string);

static void lc_err_used(int code)
{
    if (code > lc_lastusedcode) lc_lastusedcode = code;
}

/* A slot of a removed class (its codes were removed with it), or -1. */
static int lc_errclass_free_slot(void)
{
    for (int k = 1; k < LC_ERR_DYN_CLASSES; k++)
        if (!lc_errclasses[0][k].used) return k;
    return -1;
}

LC_API int PMPI_Add_error_class(int *errorclass)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(errorclass, "errorclass"));
    int k = lc_errclass_next < LC_ERR_DYN_CLASSES ? lc_errclass_next++ : lc_errclass_free_slot();
    if (k < 0)
        LC_TRY(lc_error(MPI_ERR_OTHER,
                        "all %d error classes a program may add are in use; remove some "
                        "(MPI_Remove_error_class)",
                        LC_ERR_DYN_CLASSES - 1));
    lc_errclasses[0][k] = (lc_errclass_t){ .used = true, .next_code = 1 };
    *errorclass = LC_ERR_DYN | k;
    lc_err_used(*errorclass);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Add_error_class", rc);
}
LC_MPI_ALIAS(Add_error_class);

/* A code of a predefined class is LC_ERR_DYN | LC_ERR_PRE | class | j << 8,
 * one of a user class LC_ERR_DYN | k | j << 8. */
static int lc_err_add_code(int errorclass, int *errorcode)
{
    lc_errclass_t *k = NULL;
    int base = 0;
    if (lc_error_class_predefined(errorclass) && lc_mpi_error_code_valid(errorclass)) {
        k = &lc_errclasses[1][errorclass];
        base = LC_ERR_DYN | LC_ERR_PRE | errorclass;
    } else if (lc_err_is_dyn(errorclass) && lc_err_is_class(errorclass) && lc_err_class(errorclass)) {
        k = lc_err_class(errorclass);
        base = errorclass;
    } else {
        return lc_error(MPI_ERR_ARG, "%d is not an error class (predefined or made by MPI_Add_error_class)",
                        errorclass);
    }
    if (k->next_code == 0) k->next_code = 1;
    if (k->next_code > LC_ERR_DYN_CODES) return lc_error(MPI_ERR_OTHER, "too many codes in error class %#x", errorclass);
    lc_errcode_t *codes = realloc(k->codes, sizeof(*codes) * (size_t)(k->ncodes + 1));
    if (!codes) return lc_error(MPI_ERR_NO_MEM, "out of memory adding an error code");
    k->codes = codes;
    int code = base | (k->next_code++ << 8);
    codes[k->ncodes++] = (lc_errcode_t){ .code = code, .text = NULL };
    lc_err_used(code);
    *errorcode = code;
    return MPI_SUCCESS;
}

LC_API int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(errorcode, "errorcode"));
    LC_TRY(lc_err_add_code(errorclass, errorcode));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Add_error_code", rc);
}
LC_MPI_ALIAS(Add_error_code);

/* Where the string of a user class or code is kept, or NULL with *rc set. */
static char **lc_err_text_slot(int code, int *rc)
{
    if (lc_err_is_dyn(code) && lc_err_is_class(code) && lc_err_class(code)) return &lc_err_class(code)->text;
    if (lc_err_is_dyn(code) && lc_err_code(code)) return &lc_err_code(code)->text;
    *rc = lc_error(MPI_ERR_ARG, "%d is not an error class or code made by MPI_Add_error_class/_code%s", code,
                   code >= 0 && code <= MPI_ERR_LASTCODE ? " (predefined codes keep their strings)" : "");
    return NULL;
}

LC_API int PMPI_Add_error_string(int errorcode, const char *string)
{
    int rc = MPI_SUCCESS;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(string, "string"));
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        LC_TRY(lc_error(MPI_ERR_ARG, "the string is %zu characters long; at most MPI_MAX_ERROR_STRING - 1 (%d) "
                                     "are allowed", strlen(string), MPI_MAX_ERROR_STRING - 1));
    char **slot = lc_err_text_slot(errorcode, &rc);
    if (!slot) goto err;
    char *copy = strdup(string);
    if (!copy) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory storing an error string"));
    free(*slot);
    *slot = copy;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Add_error_string", rc);
}
LC_MPI_ALIAS(Add_error_string);

LC_API int PMPI_Remove_error_string(int errorcode)
{
    int rc = MPI_SUCCESS;
    LC_TRY(lc_check_initialized());
    char **slot = lc_err_text_slot(errorcode, &rc);
    if (!slot) goto err;
    if (!*slot) LC_TRY(lc_error(MPI_ERR_ARG, "error code %#x has no string to remove", (unsigned)errorcode));
    free(*slot);
    *slot = NULL;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Remove_error_string", rc);
}
LC_MPI_ALIAS(Remove_error_string);

LC_API int PMPI_Remove_error_code(int errorcode)
{
    int rc;
    LC_TRY(lc_check_initialized());
    lc_errcode_t *c = lc_err_is_class(errorcode) ? NULL : lc_err_code(errorcode);
    if (!c) LC_TRY(lc_error(MPI_ERR_ARG, "%d is not an error code made by MPI_Add_error_code", errorcode));
    if (c->text)
        LC_TRY(lc_error(MPI_ERR_ARG, "error code %#x still has a string: remove it first (MPI_Remove_error_string)",
                        (unsigned)errorcode));
    lc_errclass_t *k = lc_err_class(errorcode);
    *c = k->codes[--k->ncodes];
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Remove_error_code", rc);
}
LC_MPI_ALIAS(Remove_error_code);

LC_API int PMPI_Remove_error_class(int errorclass)
{
    int rc;
    LC_TRY(lc_check_initialized());
    lc_errclass_t *k = lc_err_is_class(errorclass) ? lc_err_class(errorclass) : NULL;
    if (!k) LC_TRY(lc_error(MPI_ERR_ARG, "%d is not an error class made by MPI_Add_error_class", errorclass));
    if (k->ncodes)
        LC_TRY(lc_error(MPI_ERR_ARG, "error class %#x still has %d codes: remove them first (MPI_Remove_error_code)",
                        (unsigned)errorclass, k->ncodes));
    if (k->text)
        LC_TRY(lc_error(MPI_ERR_ARG, "error class %#x still has a string: remove it first (MPI_Remove_error_string)",
                        (unsigned)errorclass));
    free(k->codes);
    *k = (lc_errclass_t){ .used = false };
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Remove_error_class", rc);
}
LC_MPI_ALIAS(Remove_error_class);
