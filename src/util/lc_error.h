/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_error.h — MPI error codes that carry their own message.
 *
 * An error code is its class (low 8 bits) plus a slot number (bits 8..13)
 * naming one of the last 63 messages recorded, so that MPI_Error_string
 * on a code returned to the user says exactly what was wrong
 * ("MPI_Send: rank 7 is out of range for a communicator of size 4").
 */
#ifndef LC_ERROR_H
#define LC_ERROR_H

#include "util/lc_util.h"

#include <stdbool.h>

/*
 * Status vocabulary below the MPI layer (src/util ... src/coll):
 *
 *   LC_OK (0)      done.
 *   LC_AGAIN (1)   nothing done now, call again (after progress): only
 *                  where a function can be busy (a full ring, no credits).
 *   negative       failed.  LC_ERROR (-1) unless a header names others
 *                  (lc_pmi_get's LC_PMI_NO_KEY).
 *   an MPI code    where the failure reaches the user (pt2pt, coll): made
 *                  by lc_error(MPI_ERR_xxx, "what was wrong; what to do"),
 *                  which records the message MPI_Error_string returns.
 *
 * The function that decides something failed says so once — lc_error,
 * or lc_log_error for what the user must see on stderr (wire-up); its
 * callers pass the status up without a second message.  Where failing is
 * an answer rather than an error (a segment another container cannot
 * see, a CMA probe), the function fills a caller's `why` buffer instead
 * and logs nothing: the caller decides whether it matters.  Predicates
 * (can this be done?) return bool.
 */
enum {
    LC_OK = 0,
    LC_AGAIN = 1,
    LC_ERROR = -1,
};

/* Record a message for error class `cls`; returns the error code. */
int lc_error(int cls, const char *fmt, ...) LC_PRINTF(2, 3);

/* Codes users add (MPI_Add_error_class/_code, src/mpi/lc_mpi_errclass.c)
 * carry bit 30: 0x40000000 | k | j << 8 is code j of user class
 * 0x40000000 | k; with bit 29 also set, code j of predefined class k. */
static inline int lc_error_class_of(int code)
{
    if (code & 0x40000000) return code & (code & 0x20000000 ? 0xff : 0x400000ff);
    return code & 0xff;
}

/* The standard text of an error class. */
/* A class MPI (MPICH's ABI) predefines: 0..MPI_ERR_ERRHANDLER with gaps. */
bool lc_error_class_predefined(int cls);
const char *lc_error_class_string(int cls);

/* Message for an error code: the recorded text if the code is still in
 * the table, else the class text.  Writes at most len-1 chars + NUL. */
void lc_error_string(int code, char *buf, size_t len);

#endif
