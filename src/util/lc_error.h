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
const char *lc_error_class_string(int cls);

/* Message for an error code: the recorded text if the code is still in
 * the table, else the class text.  Writes at most len-1 chars + NUL. */
void lc_error_string(int code, char *buf, size_t len);

#endif
