/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_errhandler.c — error handler objects: MPI_Comm_create_errhandler,
 * MPI_Comm_set/get_errhandler, MPI_Comm_call_errhandler,
 * MPI_Errhandler_free, and the deprecated MPI_Errhandler_create/get/set.
 * The handler runs in lc_mpi_error (lc_mpi_check.c).
 */
#include "mpi/lc_mpi_errhandler.h"
#include "util/lc_handle.h"

#include <stdlib.h>

typedef struct lc_errhandler {
    MPI_Comm_errhandler_function *fn;
    int refs;     /* see lc_mpi_errhandler.h */
    bool fortran; /* a Fortran file handler: takes the INTEGER file handle */
} lc_errhandler_t;

static lc_handle_table_t lc_errhandlers = LC_HANDLE_TABLE_INIT(0x94000000u, 0x03ffffffu);

static bool lc_errhandler_predefined(MPI_Errhandler eh)
{
    return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ABORT;
}

int lc_check_comm_errhandler(MPI_Errhandler eh)
{
    if (lc_errhandler_predefined(eh) || lc_handle_get(&lc_errhandlers, eh)) return MPI_SUCCESS;
    if (eh == MPI_ERRHANDLER_NULL) return lc_error(MPI_ERR_ERRHANDLER, "the error handler is MPI_ERRHANDLER_NULL");
    return lc_error(MPI_ERR_ERRHANDLER, "%#x is not a valid error handler (freed, or not an error handler)",
                    (unsigned)eh);
}

void lc_errhandler_retain(MPI_Errhandler eh)
{
    lc_errhandler_t *e = lc_handle_get(&lc_errhandlers, eh);
    if (e) e->refs++;
}

void lc_errhandler_release(MPI_Errhandler eh)
{
    lc_errhandler_t *e = lc_handle_get(&lc_errhandlers, eh);
    if (e && --e->refs == 0) {
        lc_handle_remove(&lc_errhandlers, eh);
        free(e);
    }
}

MPI_Comm_errhandler_function *lc_errhandler_fn(MPI_Errhandler eh)
{
    const lc_errhandler_t *e = lc_handle_get(&lc_errhandlers, eh);
    return e ? e->fn : NULL;
}

bool lc_errhandler_is_fortran(MPI_Errhandler eh)
{
    const lc_errhandler_t *e = lc_handle_get(&lc_errhandlers, eh);
    return e && e->fortran;
}

/* Called by libmpifort's MPI_FILE_CREATE_ERRHANDLER on the handler it just
 * made (MPICH exports MPII_Errhandler_set_cxx for its C++ handlers the
 * same way): Fortran file handlers get MPI_File_c2f of the file. */
LC_API void MPII_Errhandler_set_fc(MPI_Errhandler eh);
LC_API void MPII_Errhandler_set_fc(MPI_Errhandler eh)
{
    lc_errhandler_t *e = lc_handle_get(&lc_errhandlers, eh);
    if (e) e->fortran = true;
}

void lc_errhandler_fini(void)
{
    for (int i = 0; i < lc_errhandlers.len; i++) free(lc_handle_slot(&lc_errhandlers, i));
    lc_handle_table_reset(&lc_errhandlers);
}

int lc_errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *eh_p)
{
    int rc = lc_check_initialized();
    return rc == MPI_SUCCESS ? lc_errhandler_new(fn, eh_p) : rc;
}

int lc_errhandler_new(MPI_Comm_errhandler_function *fn, MPI_Errhandler *eh_p)
{
    int rc = lc_check_ptr((void *)fn, "comm_errhandler_fn");
    if (rc == MPI_SUCCESS) rc = lc_check_ptr(eh_p, "errhandler");
    if (rc != MPI_SUCCESS) return rc;
    lc_errhandler_t *e = malloc(sizeof(*e));
    if (!e) return lc_error(MPI_ERR_NO_MEM, "out of memory creating an error handler");
    *e = (lc_errhandler_t){ .fn = fn, .refs = 1 };
    rc = lc_handle_add(&lc_errhandlers, e, eh_p);
    if (rc != MPI_SUCCESS) free(e);
    return rc;
}

LC_API int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler)
{
    int rc;
    LC_TRY(lc_errhandler_create(comm_errhandler_fn, errhandler));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Comm_create_errhandler", rc);
}
LC_MPI_ALIAS(Comm_create_errhandler);

LC_API int PMPI_Errhandler_create(MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler)
{
    int rc;
    LC_TRY(lc_errhandler_create(comm_errhandler_fn, errhandler));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Errhandler_create", rc);
}
LC_MPI_ALIAS(Errhandler_create);

static int lc_errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_comm_errhandler(errhandler));
    lc_errhandler_retain(errhandler);
    lc_errhandler_release(c->errhandler);
    c->errhandler = errhandler;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return lc_errhandler_set(comm, errhandler, "MPI_Comm_set_errhandler");
}
LC_MPI_ALIAS(Comm_set_errhandler);

LC_API int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return lc_errhandler_set(comm, errhandler, "MPI_Errhandler_set");
}
LC_MPI_ALIAS(Errhandler_set);

/* The returned handle is a new reference: the user frees it. */
static int lc_errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(errhandler, "errhandler"));
    lc_errhandler_retain(c->errhandler);
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return lc_errhandler_get(comm, errhandler, "MPI_Comm_get_errhandler");
}
LC_MPI_ALIAS(Comm_get_errhandler);

LC_API int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return lc_errhandler_get(comm, errhandler, "MPI_Errhandler_get");
}
LC_MPI_ALIAS(Errhandler_get);

LC_API int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    int rc;
    LC_TRY(lc_check_ptr(errhandler, "errhandler"));
    LC_TRY(lc_check_comm_errhandler(*errhandler));
    /* Predefined handlers are not destroyed; the handle is nulled (MPI 4.1 §9.3.4). */
    lc_errhandler_release(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Errhandler_free", rc);
}
LC_MPI_ALIAS(Errhandler_free);

/* Runs the communicator's handler as an error in the communicator would
 * (fatal handlers end the job); MPI_SUCCESS when the handler returns. */
LC_API int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    lc_mpi_error(c, "MPI_Comm_call_errhandler", errorcode);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_call_errhandler", rc);
}
LC_MPI_ALIAS(Comm_call_errhandler);
