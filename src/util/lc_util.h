/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_util.h — small helpers shared by every layer: branch hints, cache-line
 * alignment, container_of, diagnostics.
 */
#ifndef LC_UTIL_H
#define LC_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define LC_CACHELINE 64
#define lc_likely(x)   __builtin_expect(!!(x), 1)
#define lc_unlikely(x) __builtin_expect(!!(x), 0)
#define LC_ALIGNED(n)  __attribute__((aligned(n)))
#define LC_INLINE      static inline __attribute__((always_inline))
#define LC_NOINLINE    __attribute__((noinline))
#define LC_EXPORT      __attribute__((visibility("default")))
/* On a declaration of a library-internal variable read on a hot path: the
 * compiler then addresses it directly (one instruction) instead of
 * through the GOT, which -fvisibility=hidden alone does not let it
 * assume for an extern declaration. */
#define LC_HIDDEN __attribute__((visibility("hidden")))
#define LC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define lc_container_of(ptr, type, member) \
    ((type *)((char *)(ptr) - offsetof(type, member)))
#define LC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Spin-wait hint to the CPU (lets the sibling hyperthread run). */
static inline void lc_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* memcpy for the message path's short payloads: 8 to 16 bytes as two
 * overlapping 8-byte moves inline (an 8 B message's copy was a libc call
 * of 12 instructions and the call's own cost, twice a round trip);
 * anything else goes to memcpy. */
static inline void lc_copy_short(void *dst, const void *src, size_t n)
{
    if (n >= 8 && n <= 16) {
        uint64_t a, b;
        __builtin_memcpy(&a, src, 8);
        __builtin_memcpy(&b, (const char *)src + n - 8, 8);
        __builtin_memcpy(dst, &a, 8);
        __builtin_memcpy((char *)dst + n - 8, &b, 8);
        return;
    }
    __builtin_memcpy(dst, src, n);
}

/* The world rank used in diagnostics; -1 before MPI_Init knows it. */
extern int lc_log_rank;

/* Print "locus[rank]: message" to stderr.  Used for errors the user must
 * see; the message should say what happened and what to do. */
void lc_log_error(const char *fmt, ...) LC_PRINTF(1, 2);
/* Print a warning (same format) unless LOCUS_QUIET is set (lc_params.quiet). */
void lc_log_warn(const char *fmt, ...) LC_PRINTF(1, 2);
/* A program that is not a rank (mpiexec) may take the messages itself:
 * when set, the sink gets each message without prefix and kind. */
extern void (*lc_log_sink)(const char *text);
/* Print the message and _exit(1) without MPI cleanup: for states the
 * library cannot recover from (corrupted shared memory, lost launcher). */
void lc_fatal(const char *fmt, ...) LC_PRINTF(1, 2) __attribute__((noreturn));
/* Called by lc_fatal with its message before the exit (NULL: none): set
 * while the job runs, so that a fatal error — a failed network operation
 * to a peer, say — ends the whole job through the launcher, not just
 * this rank (issue 12, point 6; lc_liveness.c). */
extern void (*lc_fatal_hook)(const char *text);

/* Monotonic clock in seconds. */
double lc_time_now(void);

#endif
