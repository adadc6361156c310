/* lc_error.c — error code registry. */
#include "util/lc_error.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define LC_ERROR_SLOTS 64
static struct {
    int code;
    char text[MPI_MAX_ERROR_STRING];
} lc_error_slots[LC_ERROR_SLOTS];
static unsigned lc_error_next;

int lc_error(int cls, const char *fmt, ...)
{
    unsigned slot = 1 + (lc_error_next++ % (LC_ERROR_SLOTS - 1)); /* slot 0 = plain class */
    int code = cls | (int)(slot << 8);
    lc_error_slots[slot].code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lc_error_slots[slot].text, sizeof(lc_error_slots[slot].text), fmt, ap);
    va_end(ap);
    return code;
}

const char *lc_error_class_string(int cls)
{
    switch (cls) {
    case MPI_SUCCESS: return "No MPI error";
    case MPI_ERR_BUFFER: return "Invalid buffer pointer";
    case MPI_ERR_COUNT: return "Invalid count argument";
    case MPI_ERR_TYPE: return "Invalid datatype argument";
    case MPI_ERR_TAG: return "Invalid tag argument";
    case MPI_ERR_COMM: return "Invalid communicator";
    case MPI_ERR_RANK: return "Invalid rank";
    case MPI_ERR_ROOT: return "Invalid root";
    case MPI_ERR_GROUP: return "Invalid group";
    case MPI_ERR_OP: return "Invalid reduction operation";
    case MPI_ERR_TOPOLOGY: return "Invalid topology";
    case MPI_ERR_DIMS: return "Invalid dimension argument";
    case MPI_ERR_ARG: return "Invalid argument";
    case MPI_ERR_UNKNOWN: return "Unknown error";
    case MPI_ERR_TRUNCATE: return "Message truncated: the receive buffer is smaller than the message";
    case MPI_ERR_OTHER: return "Other MPI error";
    case MPI_ERR_INTERN: return "Internal MPI error";
    case MPI_ERR_IN_STATUS: return "Error code is in the status";
    case MPI_ERR_PENDING: return "Pending request";
    case MPI_ERR_REQUEST: return "Invalid request";
    case MPI_ERR_NO_MEM: return "Out of memory";
    case MPI_ERR_KEYVAL: return "Invalid attribute key";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "Operation not supported";
    case MPI_ERR_PROC_ABORTED: return "Peer process aborted";
    case MPI_ERR_VALUE_TOO_LARGE: return "Value too large to store";
    case MPI_ERR_INFO: return "Invalid info object";
    case MPI_ERR_NOT_SAME: return "Collective arguments differ between processes";
    case MPI_ERR_SIZE: return "Invalid size";
    default: return "MPI error";
    }
}

void lc_error_string(int code, char *buf, size_t len)
{
    unsigned slot = ((unsigned)code >> 8) & (LC_ERROR_SLOTS - 1);
    int cls = lc_error_class_of(code);
    if (slot && lc_error_slots[slot].code == code)
        snprintf(buf, len, "%s: %s", lc_error_class_string(cls), lc_error_slots[slot].text);
    else
        snprintf(buf, len, "%s", lc_error_class_string(cls));
}
