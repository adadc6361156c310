/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_bench_util.c - helpers shared by the Locus micro-benchmarks.
 * See lc_bench_util.h.  Standard MPI API only.
 */
#include "lc_bench_util.h"

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lc_bench_parse_bytes(const char *s, size_t *out)
{
    char *end = NULL;
    unsigned long long v;
    unsigned long long mult = 1;

    if (s == NULL || *s == '\0' || *s == '-')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || end == s)
        return -1;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': mult = 1ULL << 10; end++; break;
    case 'm': case 'M': mult = 1ULL << 20; end++; break;
    case 'g': case 'G': mult = 1ULL << 30; end++; break;
    default: return -1;
    }
    if (*end != '\0')
        return -1;
    if (v > (unsigned long long)SIZE_MAX / mult)
        return -1;
    *out = (size_t)(v * mult);
    return 0;
}

int lc_bench_parse_long(const char *s, long *out, int allow_zero)
{
    char *end = NULL;
    long v;

    if (s == NULL || *s == '\0')
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        return -1;
    if (v < 0 || (v == 0 && !allow_zero))
        return -1;
    *out = v;
    return 0;
}

static int sizes_push(lc_bench_sizes *s, size_t v, int *cap)
{
    if (s->n == *cap) {
        int ncap = *cap ? *cap * 2 : 16;
        size_t *nv = realloc(s->v, (size_t)ncap * sizeof(*nv));
        if (nv == NULL)
            return -1;
        s->v = nv;
        *cap = ncap;
    }
    s->v[s->n++] = v;
    return 0;
}

int lc_bench_sizes_pow2(size_t min, size_t max, lc_bench_sizes *out)
{
    int cap = 0;
    size_t v;

    out->v = NULL;
    out->n = 0;
    if (min > max)
        return -1;
    if (min == 0) {
        if (sizes_push(out, 0, &cap) != 0)
            goto err;
        min = 1;
    }
    /* OSU steps by doubling from MIN; stop before overflow. */
    for (v = min; v <= max && v != 0; v = (v > SIZE_MAX / 2) ? 0 : v * 2) {
        if (sizes_push(out, v, &cap) != 0)
            goto err;
    }
    return 0;
err:
    lc_bench_sizes_free(out);
    return -1;
}

int lc_bench_sizes_from_range(const char *spec, size_t def_min,
                              lc_bench_sizes *out)
{
    const char *colon = strchr(spec, ':');
    size_t min = def_min, max;

    if (colon != NULL) {
        char buf[64];
        size_t len = (size_t)(colon - spec);
        if (len == 0 || len >= sizeof(buf))
            return -1;
        memcpy(buf, spec, len);
        buf[len] = '\0';
        if (lc_bench_parse_bytes(buf, &min) != 0)
            return -1;
        spec = colon + 1;
    }
    if (lc_bench_parse_bytes(spec, &max) != 0)
        return -1;
    return lc_bench_sizes_pow2(min, max, out);
}

int lc_bench_sizes_from_list(const char *spec, lc_bench_sizes *out)
{
    int cap = 0;
    char *copy = strdup(spec);
    char *save = NULL, *tok;

    out->v = NULL;
    out->n = 0;
    if (copy == NULL)
        return -1;
    for (tok = strtok_r(copy, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        size_t v;
        if (lc_bench_parse_bytes(tok, &v) != 0 || sizes_push(out, v, &cap) != 0)
            goto err;
    }
    free(copy);
    return out->n > 0 ? 0 : -1;
err:
    free(copy);
    lc_bench_sizes_free(out);
    return -1;
}

void lc_bench_sizes_free(lc_bench_sizes *s)
{
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

size_t lc_bench_sizes_max(const lc_bench_sizes *s)
{
    size_t m = 0;
    for (int i = 0; i < s->n; i++)
        if (s->v[i] > m)
            m = s->v[i];
    return m;
}

long lc_bench_iters_for(const lc_bench_iters *it, size_t size)
{
    return size > LC_BENCH_LARGE_THRESHOLD ? it->iters_large : it->iters;
}

long lc_bench_warmup_for(const lc_bench_iters *it, size_t size)
{
    return size > LC_BENCH_LARGE_THRESHOLD ? it->warmup_large : it->warmup;
}

void *lc_bench_buf_alloc(size_t bytes)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t pg = page > 0 ? (size_t)page : 4096;
    size_t len = bytes < pg ? pg : bytes;
    void *p = NULL;

    /* Round up to whole pages so the tail page is ours alone too. */
    len = (len + pg - 1) / pg * pg;
    if (posix_memalign(&p, pg, len) != 0)
        return NULL;
    /* Touch every page now: first-touch faults must not be timed. */
    memset(p, 0xa5, len);
    return p;
}

uint8_t lc_bench_pattern(uint64_t seed, size_t i)
{
    /* A cheap mix (splitmix-like) so neighbouring seeds and positions
     * give unrelated bytes; 0 is not special. */
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i * 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 31;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 29;
    return (uint8_t)x;
}

void lc_bench_pattern_fill(void *buf, size_t n, uint64_t seed, int invert)
{
    uint8_t *b = buf;
    uint8_t mask = invert ? 0xff : 0x00;
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(lc_bench_pattern(seed, i) ^ mask);
}

size_t lc_bench_pattern_check(const void *buf, size_t n, uint64_t seed)
{
    const uint8_t *b = buf;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (b[i] != lc_bench_pattern(seed, i))
            bad++;
    return bad;
}

void lc_bench_print_library(const char *title)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0, ver = 0, sub = 0;
    char *nl;

    lib[0] = '\0';
    MPI_Get_library_version(lib, &len);
    if (len < 0 || len >= (int)sizeof(lib))
        len = (int)sizeof(lib) - 1;
    lib[len] = '\0';
    /* MPICH prints several lines; the first names the library. */
    nl = strpbrk(lib, "\r\n");
    if (nl != NULL)
        *nl = '\0';
    MPI_Get_version(&ver, &sub);
    printf("# %s\n", title);
    printf("# MPI library: %s (MPI %d.%d)\n", lib, ver, sub);
}

void lc_bench_common_init(lc_bench_common_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->it = (lc_bench_iters){-1, -1, -1, -1};
    o->fmt = LC_BENCH_FMT_TABLE;
}

int lc_bench_common_opt(lc_bench_common_opts *o, int c, const char *arg)
{
    switch (c) {
    case 'm': o->range = arg; return 1;
    case 'S': o->list = arg; return 1;
    case 'i': return lc_bench_parse_long(arg, &o->it.iters, 0) ? -1 : 1;
    case 'I': return lc_bench_parse_long(arg, &o->it.iters_large, 0) ? -1 : 1;
    case 'x': return lc_bench_parse_long(arg, &o->it.warmup, 1) ? -1 : 1;
    case 'X': return lc_bench_parse_long(arg, &o->it.warmup_large, 1) ? -1 : 1;
    case 'c': o->validate = 1; return 1;
    case 'f':
        if (strcmp(arg, "csv") == 0)
            o->fmt = LC_BENCH_FMT_CSV;
        else if (strcmp(arg, "table") == 0)
            o->fmt = LC_BENCH_FMT_TABLE;
        else
            return -1;
        return 1;
    default:
        return 0;
    }
}

int lc_bench_common_check(const lc_bench_common_opts *o)
{
    return o->range != NULL && o->list != NULL ? -1 : 0;
}

lc_bench_iters lc_bench_iters_or(const lc_bench_common_opts *o, lc_bench_iters def)
{
    if (o->it.iters > 0) def.iters = o->it.iters;
    if (o->it.iters_large > 0) def.iters_large = o->it.iters_large;
    if (o->it.warmup >= 0) def.warmup = o->it.warmup;
    if (o->it.warmup_large >= 0) def.warmup_large = o->it.warmup_large;
    return def;
}

int lc_bench_sizes_for(const lc_bench_common_opts *o, size_t def_min, size_t def_max,
                       lc_bench_sizes *out)
{
    if (o->list != NULL)
        return lc_bench_sizes_from_list(o->list, out);
    if (o->range != NULL)
        return lc_bench_sizes_from_range(o->range, def_min, out);
    return lc_bench_sizes_pow2(def_min, def_max, out);
}

int lc_bench_parse_names(const char *spec, const char *const *names, int nnames, int *idx,
                         int max)
{
    char *copy = strdup(spec), *save = NULL, *tok;
    int n = 0;

    if (copy == NULL)
        return -1;
    for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        int found = -1;
        for (int k = 0; k < nnames; k++)
            if (strcmp(tok, names[k]) == 0)
                found = k;
        if (found < 0 || n == max) {
            n = -1;
            break;
        }
        idx[n++] = found;
    }
    free(copy);
    return n > 0 ? n : -1;
}

static void layout_run(void (*fn)(const lc_bench_layout *, void *), void *arg, const char *key,
                       const char *name, MPI_Datatype t, void *buf, size_t span)
{
    lc_bench_layout l = { key, name, t, buf, span, 0 };
    MPI_Type_commit(&l.type);
    MPI_Type_size(l.type, &l.bytes);
    fn(&l, arg);
    MPI_Type_free(&l.type);
}

/* "256B", "4KiB", "2MiB": a power-of-two-ish size for a layout's name. */
static void bench_size_str(char *out, size_t len, int bytes)
{
    if (bytes >= (1 << 20) && bytes % (1 << 20) == 0)
        snprintf(out, len, "%dMiB", bytes >> 20);
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(out, len, "%dKiB", bytes >> 10);
    else
        snprintf(out, len, "%dB", bytes);
}

/* Bytes of memory the kernel says are available for new allocations
 * (MemAvailable), or 0 when it cannot tell. */
static double bench_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    double kib = 0;
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %lf kB", &kib) == 1)
            break;
    fclose(f);
    return kib * 1024;
}

int lc_bench_dt_layouts(void (*fn)(const lc_bench_layout *l, void *arg), void *arg)
{
    static const int sizes[] = { 4 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20 };
    /* the largest vector spans twice its data (128-byte stride) */
    size_t vec_bytes = (size_t)2 * (16 << 20);
    char *vec = malloc(vec_bytes);
    if (vec == NULL)
        return -1;
    memset(vec, 3, vec_bytes);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        MPI_Datatype t;
        char name[64];
        MPI_Type_vector(sizes[i] / 64, 8, 16, MPI_DOUBLE, &t);
        snprintf(name, sizeof name, "vector 64B/128B %dK", sizes[i] >> 10);
        layout_run(fn, arg, "vector", name, t, vec, vec_bytes);
    }
    free(vec);

    /* Faces of N^3 arrays of doubles, N = 32 .. 512: 8 KiB .. 2 MiB per
     * face.  One allocation of the largest array (1 GiB: each rank stays
     * below 2 GiB), whose first N^3 elements serve the smaller ones.  On
     * a host short of memory the largest arrays are left out (the same on
     * every rank, so they stay in step) rather than have a rank killed. */
    static const int edges[] = { 32, 64, 128, 256, 512 };
    int nedges = (int)(sizeof(edges) / sizeof(edges[0]));
    size_t nmax = (size_t)edges[nedges - 1];
    int fits = nedges, ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    double avail = bench_mem_available(), least = 0;
    MPI_Allreduce(&avail, &least, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    /* every rank may be on this host: its arrays plus 256 MiB to spare */
    while (fits > 1 && least > 0 &&
           (double)ranks * edges[fits - 1] * edges[fits - 1] * edges[fits - 1] * 8.0 + (256 << 20) > least)
        fits--;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (fits < nedges && rank == 0)
        printf("# faces of %d^3 and larger left out: %.0f MiB of memory available\n", edges[fits],
               least / (1 << 20));
    nedges = fits;
    nmax = (size_t)edges[nedges - 1];
    size_t cube_bytes = nmax * nmax * nmax * sizeof(double);
    double *cube = malloc(cube_bytes);
    if (cube == NULL)
        return -1;
    memset(cube, 4, cube_bytes);
    static const char *const keys[3] = { "face_x", "face_y", "face_z" };
    for (int e = 0; e < nedges; e++) {
        int n = edges[e], sz[3] = { n, n, n }, st[3] = { 0, 0, 0 };
        char row[24], plane[24];
        bench_size_str(row, sizeof row, n * 8);
        bench_size_str(plane, sizeof plane, n * n * 8);
        for (int f = 0; f < 3; f++) {
            MPI_Datatype t;
            int sub[3] = { n, n, n };
            char name[96];
            sub[2 - f] = 1; /* x: the last (fastest) dimension fixed; z: the first */
            if (f == 0)
                snprintf(name, sizeof name, "%d^3 face x (8B/%s)", n, row);
            else if (f == 1)
                snprintf(name, sizeof name, "%d^3 face y (%s/%s)", n, row, plane);
            else
                snprintf(name, sizeof name, "%d^3 face z (contiguous)", n);
            MPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_C, MPI_DOUBLE, &t);
            layout_run(fn, arg, keys[f], name, t, cube, (size_t)n * n * n * sizeof(double));
        }
    }
    free(cube);
    return 0;
}
