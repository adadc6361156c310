/* SPDX-License-Identifier: BSD-3-Clause */
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
    /* Atomic: at MPI_THREAD_MULTIPLE errors are raised outside the section
     * too (a truncated receive, delivered by whichever thread drains the
     * ring), and two must not fill one slot.  Relaxed: the slot is the
     * raiser's until the ring of slots comes round again. */
    unsigned next = __atomic_fetch_add(&lc_error_next, 1u, __ATOMIC_RELAXED);
    unsigned slot = 1 + (next % (LC_ERROR_SLOTS - 1)); /* slot 0 = plain class */
    int code = cls | (int)(slot << 8);
    lc_error_slots[slot].code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lc_error_slots[slot].text, sizeof(lc_error_slots[slot].text), fmt, ap);
    va_end(ap);
    return code;
}

/* Text of every error class, indexed by class (MPI 4.1 §9.4). */
static const char *const lc_error_class_text[] = {
    [0] = "No MPI error (MPI_SUCCESS)",
    [1] = "Invalid buffer pointer (MPI_ERR_BUFFER)",
    [2] = "Invalid count argument (MPI_ERR_COUNT)",
    [3] = "Invalid datatype argument (MPI_ERR_TYPE)",
    [4] = "Invalid tag argument (MPI_ERR_TAG)",
    [5] = "Invalid communicator (MPI_ERR_COMM)",
    [6] = "Invalid rank (MPI_ERR_RANK)",
    [7] = "Invalid root (MPI_ERR_ROOT)",
    [8] = "Invalid group (MPI_ERR_GROUP)",
    [9] = "Invalid reduction operation (MPI_ERR_OP)",
    [10] = "Invalid topology (MPI_ERR_TOPOLOGY)",
    [11] = "Invalid dimension argument (MPI_ERR_DIMS)",
    [12] = "Invalid argument (MPI_ERR_ARG)",
    [13] = "Unknown error (MPI_ERR_UNKNOWN)",
    [14] = "Message truncated: the receive buffer is smaller than the message (MPI_ERR_TRUNCATE)",
    [15] = "Other MPI error (MPI_ERR_OTHER)",
    [16] = "Internal MPI error (MPI_ERR_INTERN)",
    [17] = "Error code is in the status (MPI_ERR_IN_STATUS)",
    [18] = "Pending request (MPI_ERR_PENDING)",
    [19] = "Invalid request (MPI_ERR_REQUEST)",
    [20] = "Permission denied (MPI_ERR_ACCESS)",
    [21] = "Invalid file access mode (MPI_ERR_AMODE)",
    [22] = "Invalid file name (MPI_ERR_BAD_FILE)",
    [23] = "Data conversion failed (MPI_ERR_CONVERSION)",
    [24] = "Data representation already defined (MPI_ERR_DUP_DATAREP)",
    [25] = "File exists (MPI_ERR_FILE_EXISTS)",
    [26] = "File is in use (MPI_ERR_FILE_IN_USE)",
    [27] = "Invalid file handle (MPI_ERR_FILE)",
    [28] = "Invalid info object (MPI_ERR_INFO)",
    [29] = "Info key too long (MPI_ERR_INFO_KEY)",
    [30] = "Info value too long (MPI_ERR_INFO_VALUE)",
    [31] = "Info key not defined (MPI_ERR_INFO_NOKEY)",
    [32] = "I/O error (MPI_ERR_IO)",
    [33] = "Service name not published (MPI_ERR_NAME)",
    [34] = "Out of memory (MPI_ERR_NO_MEM)",
    [35] = "Collective arguments differ between processes (MPI_ERR_NOT_SAME)",
    [36] = "Not enough space (MPI_ERR_NO_SPACE)",
    [37] = "No such file (MPI_ERR_NO_SUCH_FILE)",
    [38] = "Invalid port name (MPI_ERR_PORT)",
    [39] = "Quota exceeded (MPI_ERR_QUOTA)",
    [40] = "Read-only file or file system (MPI_ERR_READ_ONLY)",
    [41] = "Service name not found (MPI_ERR_SERVICE)",
    [42] = "Could not spawn processes (MPI_ERR_SPAWN)",
    [43] = "Unsupported data representation (MPI_ERR_UNSUPPORTED_DATAREP)",
    [44] = "Operation not supported (MPI_ERR_UNSUPPORTED_OPERATION)",
    [45] = "Invalid window (MPI_ERR_WIN)",
    [46] = "Invalid base address (MPI_ERR_BASE)",
    [47] = "Invalid lock type (MPI_ERR_LOCKTYPE)",
    [48] = "Invalid attribute key (MPI_ERR_KEYVAL)",
    [49] = "Conflicting RMA accesses (MPI_ERR_RMA_CONFLICT)",
    [50] = "Wrong RMA synchronization (MPI_ERR_RMA_SYNC)",
    [51] = "Invalid size (MPI_ERR_SIZE)",
    [52] = "Invalid displacement (MPI_ERR_DISP)",
    [53] = "Invalid assert argument (MPI_ERR_ASSERT)",
    [55] = "RMA target outside the window (MPI_ERR_RMA_RANGE)",
    [56] = "Memory cannot be attached to the window (MPI_ERR_RMA_ATTACH)",
    [57] = "Memory cannot be shared (MPI_ERR_RMA_SHARED)",
    [58] = "Wrong window flavor (MPI_ERR_RMA_FLAVOR)",
    [59] = "MPI_T: out of memory (MPI_T_ERR_MEMORY)",
    [60] = "MPI_T: interface not initialized (MPI_T_ERR_NOT_INITIALIZED)",
    [61] = "MPI_T: interface cannot be initialized (MPI_T_ERR_CANNOT_INIT)",
    [62] = "MPI_T: invalid index (MPI_T_ERR_INVALID_INDEX)",
    [63] = "MPI_T: invalid item (MPI_T_ERR_INVALID_ITEM)",
    [64] = "MPI_T: invalid handle (MPI_T_ERR_INVALID_HANDLE)",
    [65] = "MPI_T: out of handles (MPI_T_ERR_OUT_OF_HANDLES)",
    [66] = "MPI_T: out of sessions (MPI_T_ERR_OUT_OF_SESSIONS)",
    [67] = "MPI_T: invalid session (MPI_T_ERR_INVALID_SESSION)",
    [68] = "MPI_T: control variable cannot be set now (MPI_T_ERR_CVAR_SET_NOT_NOW)",
    [69] = "MPI_T: control variable cannot be set (MPI_T_ERR_CVAR_SET_NEVER)",
    [70] = "MPI_T: performance variable cannot be started or stopped (MPI_T_ERR_PVAR_NO_STARTSTOP)",
    [71] = "MPI_T: performance variable cannot be written (MPI_T_ERR_PVAR_NO_WRITE)",
    [72] = "MPI_T: performance variable cannot be read and written atomically (MPI_T_ERR_PVAR_NO_ATOMIC)",
    [73] = "MPI_T: invalid name (MPI_T_ERR_INVALID_NAME)",
    [74] = "MPI_T: invalid use of the interface (MPI_T_ERR_INVALID)",
    [75] = "Invalid session (MPI_ERR_SESSION)",
    [76] = "Peer process aborted (MPI_ERR_PROC_ABORTED)",
    [77] = "Value too large to store (MPI_ERR_VALUE_TOO_LARGE)",
    [78] = "MPI_T: not supported (MPI_T_ERR_NOT_SUPPORTED)",
    /* 79 is not assigned in MPICH's ABI. */
    [80] = "Invalid error handler (MPI_ERR_ERRHANDLER)",
};

bool lc_error_class_predefined(int cls)
{
    return cls >= 0 && (size_t)cls < LC_ARRAY_SIZE(lc_error_class_text) && lc_error_class_text[cls];
}

const char *lc_error_class_string(int cls)
{
    if (cls >= 0 && (size_t)cls < LC_ARRAY_SIZE(lc_error_class_text) && lc_error_class_text[cls])
        return lc_error_class_text[cls];
    return "Unknown error class";
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
