/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_bench_util.h - helpers shared by the Locus micro-benchmarks
 * (lc_osu_pt2pt.c, lc_osu_coll.c).
 *
 * The benchmarks must compile against any MPI (Locus, MPICH, Open MPI),
 * so this file uses the standard MPI API only and nothing from Locus'
 * own headers.  It holds what both programs need: the message-size
 * list, the iteration choice for small/large messages, page-aligned
 * buffers, the data pattern used by the optional validation (-c), and
 * the header/CSV printing conventions.
 */
#ifndef LC_BENCH_UTIL_H
#define LC_BENCH_UTIL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Messages larger than this use the "large" iteration/warm-up counts,
 * as the OSU benchmarks do (their LARGE_MESSAGE_SIZE is the same). */
#define LC_BENCH_LARGE_THRESHOLD ((size_t)8192)

/* Output format selected with -f. */
typedef enum { LC_BENCH_FMT_TABLE, LC_BENCH_FMT_CSV } lc_bench_fmt;

/* Ordered list of message sizes in bytes. */
typedef struct {
    size_t *v;
    int n;
} lc_bench_sizes;

/* Iteration counts: "small" applies up to LC_BENCH_LARGE_THRESHOLD. */
typedef struct {
    long iters;
    long iters_large;
    long warmup;
    long warmup_large;
} lc_bench_iters;

/* Parses a byte count with an optional k/K (KiB) or m/M (MiB) suffix.
 * Returns 0 on success, -1 on a malformed value. */
int lc_bench_parse_bytes(const char *s, size_t *out);

/* Parses a positive (or, with allow_zero, non-negative) long.
 * Returns 0 on success, -1 otherwise. */
int lc_bench_parse_long(const char *s, long *out, int allow_zero);

/* Builds the OSU-style power-of-two list from "MAX" or "MIN:MAX".
 * A MIN of 0 yields 0 then 1, 2, 4, ...  Returns 0 or -1. */
int lc_bench_sizes_from_range(const char *spec, size_t def_min,
                              lc_bench_sizes *out);

/* Builds the default power-of-two list [min, max]. Returns 0 or -1. */
int lc_bench_sizes_pow2(size_t min, size_t max, lc_bench_sizes *out);

/* Builds an explicit list from "a,b,c" (suffixes allowed). Returns 0/-1. */
int lc_bench_sizes_from_list(const char *spec, lc_bench_sizes *out);

void lc_bench_sizes_free(lc_bench_sizes *s);

/* Largest size in the list (0 for an empty list). */
size_t lc_bench_sizes_max(const lc_bench_sizes *s);

/* Timed iterations and warm-up iterations for one message size. */
long lc_bench_iters_for(const lc_bench_iters *it, size_t size);
long lc_bench_warmup_for(const lc_bench_iters *it, size_t size);

/* Page-aligned allocation of at least `bytes` (at least one page), every
 * page written so that first-touch page faults happen before timing.
 * Returns NULL on failure.  Release with free(). */
void *lc_bench_buf_alloc(size_t bytes);

/* Validation pattern: a byte that depends on a seed and the position, so
 * that a block delivered to the wrong place or left stale is noticed. */
uint8_t lc_bench_pattern(uint64_t seed, size_t i);

/* Fills buf[0..n) with the pattern for `seed`; with invert, with its
 * bitwise complement (used to poison a receive buffer before a check). */
void lc_bench_pattern_fill(void *buf, size_t n, uint64_t seed, int invert);

/* Returns the number of bytes of buf[0..n) that differ from the pattern. */
size_t lc_bench_pattern_check(const void *buf, size_t n, uint64_t seed);

/* Prints the "# MPI library: ..." comment line (first line of
 * MPI_Get_library_version) so a run records which MPI it really used.
 * Call on one rank only. */
void lc_bench_print_library(const char *title);

/* The options both programs take, with the same meaning:
 * -m [MIN:]MAX, -S LIST, -i/-I/-x/-X N, -c, -f table|csv. */
#define LC_BENCH_COMMON_OPTSTRING "m:S:i:I:x:X:cf:"
typedef struct {
    const char *range;  /* -m, or NULL */
    const char *list;   /* -S, or NULL */
    lc_bench_iters it;  /* -i -I -x -X; -1: the program's default */
    int validate;       /* -c */
    lc_bench_fmt fmt;   /* -f */
} lc_bench_common_opts;

void lc_bench_common_init(lc_bench_common_opts *o);

/* Applies getopt's option c with argument arg if it is a common option.
 * Returns 1 if applied, 0 if c is not a common option, -1 if its value
 * is malformed. */
int lc_bench_common_opt(lc_bench_common_opts *o, int c, const char *arg);

/* After getopt: -1 if -m and -S were both given, else 0. */
int lc_bench_common_check(const lc_bench_common_opts *o);

/* The iteration counts: the common options' where given, else `def`'s. */
lc_bench_iters lc_bench_iters_or(const lc_bench_common_opts *o, lc_bench_iters def);

/* The sizes -S or -m choose, else powers of two def_min..def_max. */
int lc_bench_sizes_for(const lc_bench_common_opts *o, size_t def_min, size_t def_max,
                       lc_bench_sizes *out);

/* Parses a comma list of names (-t) into indices of names[0..nnames),
 * at most max of them.  Returns how many, -1 for an unknown name, an
 * empty list or more than max. */
int lc_bench_parse_names(const char *spec, const char *const *names, int nnames, int *idx,
                         int max);

/* The derived-datatype layouts the datatype benchmarks (lc_dt_pack.c,
 * lc_dt_pingpong.c) measure, so that both measure the same things:
 *   - "vector": 64-byte blocks at a 128-byte stride (8 doubles of 16),
 *     4 KiB to 16 MiB of data (4, 64, 256 KiB, 1, 4, 16 MiB);
 *   - "face_x", "face_y", "face_z": the faces of N^3 arrays of doubles,
 *     N = 32, 64, 128, 256, 512 (8 KiB .. 2 MiB each; 8 N^2 bytes):
 *     x (8-byte elements 8N bytes apart), y (8N-byte rows 8N^2 bytes
 *     apart), z (one contiguous run).  The largest array takes 1 GiB. */
typedef struct {
    const char *key;    /* short name, the "test" column of CSV output */
    const char *name;   /* what a table row says */
    MPI_Datatype type;  /* committed; one element of it at buf */
    void *buf;          /* memory the type describes (contents arbitrary) */
    size_t span;        /* bytes at buf the caller may overwrite */
    int bytes;          /* packed size of one element */
} lc_bench_layout;

/* Calls fn(layout, arg) for each layout above in turn, the type committed
 * and its memory allocated for the call only.  Returns 0, or -1 when
 * memory runs out. */
int lc_bench_dt_layouts(void (*fn)(const lc_bench_layout *l, void *arg), void *arg);

#endif /* LC_BENCH_UTIL_H */
