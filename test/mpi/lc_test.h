/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_test.h: the small harness every test/mpi program shares.
 *
 * Contract of a test program (checked by test/run_mpi_test.sh):
 *   - success: rank 0 prints exactly "No Errors" and every rank exits 0;
 *   - failure: each failed check prints "[rank R] FAIL file:line: what
 *     differed" on stderr, and lc_finish() makes the exit code non-zero
 *     (or the test calls MPI_Abort when it cannot go on).
 *
 * The header is self-contained (static functions only) so a test is one
 * .c file and can be built by any MPI compiler wrapper: Locus's for the
 * real runs, Debian's mpicc.mpich to validate the test itself. */
#ifndef LC_TEST_H
#define LC_TEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Failed checks on this rank; summed over MPI_COMM_WORLD by lc_finish. */
static int lc_errs __attribute__((unused));
/* Printing stops after this many failures so a broken loop cannot flood
 * the log; the count still goes on. */
#define LC_MAX_PRINTED_ERRS 25

static inline int lc_world_rank(void)
{
    int init = 0, fin = 0, rank = -1;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

static inline int lc_world_size(void)
{
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

__attribute__((format(printf, 3, 4)))
static inline void lc_fail_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    lc_errs++;
    if (lc_errs > LC_MAX_PRINTED_ERRS)
        return;
    char msg[1024];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[rank %d] FAIL %s:%d: %s\n", lc_world_rank(), file, line, msg);
    fflush(stderr);
}

/* Record a failure when cond is false; the message says what differed. */
#define LC_CHECK(cond, ...)                                   \
    do {                                                      \
        if (!(cond))                                          \
            lc_fail_at(__FILE__, __LINE__, __VA_ARGS__);      \
    } while (0)

/* Print and abort the whole job: for states a test cannot continue from
 * (an MPI call that must succeed failed, out of memory, ...). */
__attribute__((format(printf, 3, 4), noreturn))
static inline void lc_fatal_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    char msg[1024];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[rank %d] FATAL %s:%d: %s\n", lc_world_rank(), file, line, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    abort(); /* MPI_Abort must not return; make sure of it */
}
#define LC_FATAL(...) lc_fatal_at(__FILE__, __LINE__, __VA_ARGS__)

static inline const char *lc_err_str(int code)
{
    static char buf[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    if (MPI_Error_string(code, buf, &len) != MPI_SUCCESS)
        snprintf(buf, sizeof buf, "(MPI_Error_string failed for %d)", code);
    return buf;
}

/* An MPI call that must succeed.  With the default MPI_ERRORS_ARE_FATAL
 * a failure aborts inside MPI already; under MPI_ERRORS_RETURN this
 * turns an unexpected error code into an abort that names the call. */
#define LC_MPI(call)                                                         \
    do {                                                                     \
        int lc_rc_ = (call);                                                 \
        if (lc_rc_ != MPI_SUCCESS)                                           \
            lc_fatal_at(__FILE__, __LINE__, "%s returned %d (%s)", #call,    \
                        lc_rc_, lc_err_str(lc_rc_));                         \
    } while (0)

static inline void *lc_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        LC_FATAL("out of memory allocating %zu bytes", n);
    return p;
}

/* n zeroed elements of size bytes each; aborts the job when there is no memory. */
static inline void *lc_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) LC_FATAL("out of memory allocating %zu x %zu bytes", n, size);
    return p;
}

/* Sum the failures of all ranks, report from rank 0, finalize.
 * Returns the process exit code (0 only when no rank failed). */
static inline int lc_finish(void)
{
    int total = 0;
    LC_MPI(MPI_Allreduce(&lc_errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    int rank = lc_world_rank();
    if (rank == 0) {
        if (total == 0)
            printf("No Errors\n");
        else
            printf("Found %d errors\n", total);
        fflush(stdout);
    }
    LC_MPI(MPI_Finalize());
    return total == 0 ? 0 : 1;
}

/* Value a test writes at position i of a message: depends on sender,
 * message number and position so a misplaced or stale byte is caught. */
static inline int32_t lc_pattern(int src, int msg, long i)
{
    return (int32_t)((uint32_t)src * 1000003u + (uint32_t)msg * 7919u + (uint32_t)i * 31u);
}

/* Fletcher-like checksum over bytes, for large messages. */
static inline uint64_t lc_checksum(const void *buf, size_t n)
{
    const unsigned char *p = buf;
    uint64_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + p[i]) % 4294967291u;
        b = (b + a) % 4294967291u;
    }
    return (b << 32) | a;
}

/* True when running on MPICH itself (validating the tests, not Locus).
 * Used only to skip a check that MPICH 4.0.2 is known to get wrong; each
 * use says which bug. */
static inline int lc_library_is_mpich(void)
{
    static char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (MPI_Get_library_version(lib, &len) != MPI_SUCCESS)
        return 0;
    return strstr(lib, "MPICH") != NULL && strstr(lib, "Locus") == NULL;
}

/* Name of an error class, for messages. */
static inline const char *lc_class_name(int cls)
{
    switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_TAG: return "MPI_ERR_TAG";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_OP: return "MPI_ERR_OP";
    case MPI_ERR_REQUEST: return "MPI_ERR_REQUEST";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    case MPI_ERR_UNKNOWN: return "MPI_ERR_UNKNOWN";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN";
    case MPI_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS";
    case MPI_ERR_PENDING: return "MPI_ERR_PENDING";
    default: return "(other class)";
    }
}

/* Error class of an error code, or -1 if MPI_Error_class itself fails. */
static inline int lc_class_of(int code)
{
    int cls = -1;
    if (MPI_Error_class(code, &cls) != MPI_SUCCESS)
        return -1;
    return cls;
}

#endif /* LC_TEST_H */
