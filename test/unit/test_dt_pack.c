/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dt_pack.c — the datatype layer's pack engine without MPI:
 *   - hand-computed byte layouts of small types;
 *   - the loop programs commit builds (contiguity detection, merged
 *     vectors and runs);
 *   - the cursor against an independent reference (the typed walk over
 *     the layout, which does not use the loop program): whole messages,
 *     every split point of small messages, random split points and
 *     ranges of large ones, unpack with random chunking, iovecs.
 * Exit status 0 when every check passed.
 */
#include "datatype/lc_dt.h"
#include "util/lc_error.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_unit_check.h"

static lc_dt_t *T(MPI_Datatype h)
{
    return lc_dt_get(h);
}

/* Types the test made; released at the end (ASan checks the frees). */
static lc_dt_t *made[128];
static int nmade;

/* (takes &t: the constructor, an argument, runs before keep reads t) */
static lc_dt_t *keep(int rc, lc_dt_t **tp)
{
    lc_dt_t *t = *tp;
    if (rc) {
        fprintf(stderr, "FATAL: constructor failed: class %d\n", lc_error_class_of(rc));
        exit(1);
    }
    if (lc_dt_commit(t)) {
        fprintf(stderr, "FATAL: commit failed\n");
        exit(1);
    }
    made[nmade++] = t;
    return t;
}

static lc_dt_t *vec(MPI_Count n, MPI_Count bl, MPI_Aint stride_bytes, lc_dt_t *c)
{
    lc_dt_t *t;
    return keep(lc_dt_create_vector(n, bl, stride_bytes, c, &t), &t);
}

static lc_dt_t *contig(MPI_Count n, lc_dt_t *c)
{
    lc_dt_t *t;
    return keep(lc_dt_create_vector(1, n, 0, c, &t), &t);
}

static lc_dt_t *hidx(MPI_Count n, const MPI_Count *bl, const MPI_Aint *d, lc_dt_t *c)
{
    lc_dt_t *t;
    return keep(lc_dt_create_blocks(n, bl, 0, d, NULL, c, false, &t), &t);
}

static lc_dt_t *strct(MPI_Count n, const MPI_Count *bl, const MPI_Aint *d, lc_dt_t *const *ts)
{
    lc_dt_t *t;
    return keep(lc_dt_create_blocks(n, bl, 0, d, ts, NULL, true, &t), &t);
}

static lc_dt_t *resized(lc_dt_t *c, MPI_Aint lb, MPI_Aint ext)
{
    lc_dt_t *t;
    return keep(lc_dt_create_resized(c, lb, ext, &t), &t);
}

static lc_dt_t *subarray3(const MPI_Count *sz, const MPI_Count *sub, const MPI_Count *st, int order, lc_dt_t *c)
{
    lc_dt_t *t;
    return keep(lc_dt_create_subarray(3, sz, sub, st, order, c, &t), &t);
}

/* ---- reference: the typed walk ---------------------------------------------------- */

typedef struct ref {
    unsigned char *stream;
    size_t n;
    bool unpack;
    MPI_Aint *offs; /* byte offsets visited (when non-NULL) */
    uintptr_t base;
} ref_t;

static int ref_visit(void *ctx, const lc_dtype_info_t *b, uintptr_t addr, MPI_Count n)
{
    ref_t *r = ctx;
    size_t bytes = (size_t)n * b->type_size;
    if (r->offs)
        for (size_t k = 0; k < bytes; k++) r->offs[r->n + k] = (MPI_Aint)(addr + k - r->base);
    if (r->stream && r->unpack) memcpy((void *)addr, r->stream + r->n, bytes);
    else if (r->stream) memcpy(r->stream + r->n, (void *)addr, bytes);
    r->n += bytes;
    return 0;
}

static size_t ref_move(const lc_dt_t *t, MPI_Count count, void *buf, unsigned char *stream, bool unpack)
{
    ref_t r = { .stream = stream, .unpack = unpack };
    lc_dt_walk(t, (uintptr_t)buf, count, ref_visit, &r);
    return r.n;
}

/* A buffer covering every byte count items of t may touch, filled with
 * a pattern; *buf_p is the item origin inside it. */
typedef struct span {
    unsigned char *mem;
    size_t len;
    MPI_Aint lo;
} span_t;

static void span_make(span_t *s, const lc_dt_t *t, MPI_Count count, unsigned char *(*buf_p))
{
    MPI_Aint ext = lc_dt_extent(t), rep = (MPI_Aint)(count > 0 ? count - 1 : 0) * ext;
    MPI_Aint lo = t->true_lb + (rep < 0 ? rep : 0), hi = t->true_ub + (rep > 0 ? rep : 0);
    if (hi < lo) hi = lo;
    s->lo = lo;
    s->len = (size_t)(hi - lo) + 1;
    s->mem = malloc(s->len);
    for (size_t k = 0; k < s->len; k++) s->mem[k] = (unsigned char)(k * 131 + 7);
    *buf_p = s->mem - lo;
}

/* ---- checks on one (type, count) -------------------------------------------------- */

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(uint64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? rng % n : 0;
}

static void check_splits(const char *name, const lc_dt_t *t, MPI_Count count, unsigned char *buf,
                         const unsigned char *ref, size_t total)
{
    unsigned char *out = malloc(total + 1);
    lc_dt_cursor_t cur;
    size_t nsplit = total <= 2048 ? total + 1 : 300;
    for (size_t k = 0; k < nsplit; k++) {
        size_t s = total <= 2048 ? k : (size_t)rnd(total + 1);
        memset(out, 0xee, total + 1);
        CHECKF(lc_dt_cursor_init(&cur, t, count, buf) == 0, "%s: cursor_init", name);
        size_t a = lc_dt_cursor_pack(&cur, out, s);
        size_t b = lc_dt_cursor_pack(&cur, out + a, total + 1 - a); /* asks for one byte too many */
        CHECKF(a == s && a + b == total && cur.pos == (MPI_Count)total, "%s x%lld: split %zu gave %zu + %zu of %zu",
              name, (long long)count, s, a, b, total);
        CHECKF(memcmp(out, ref, total) == 0 && out[total] == 0xee, "%s x%lld: split at %zu packs wrong bytes", name,
              (long long)count, s);
        /* a fresh cursor seeking into the middle */
        size_t len = (size_t)rnd(total - s + 1);
        lc_dt_cursor_seek(&cur, (MPI_Count)s);
        memset(out, 0xee, total + 1);
        CHECKF(lc_dt_cursor_pack(&cur, out, len) == len && memcmp(out, ref + s, len) == 0,
              "%s x%lld: range [%zu, %zu) after seek", name, (long long)count, s, s + len);
        lc_dt_cursor_fini(&cur);
    }
    free(out);
}

static void check_unpack(const char *name, const lc_dt_t *t, MPI_Count count, const span_t *sp,
                         const unsigned char *ref, size_t total)
{
    unsigned char *want = malloc(sp->len), *got = malloc(sp->len);
    memset(want, 0x5a, sp->len);
    memset(got, 0x5a, sp->len);
    ref_move(t, count, want - sp->lo, (unsigned char *)ref, true);
    lc_dt_cursor_t cur;
    CHECKF(lc_dt_cursor_init(&cur, t, count, got - sp->lo) == 0, "%s: cursor_init", name);
    size_t done = 0;
    while (done < total) {
        size_t chunk = 1 + (size_t)rnd(total < 64 ? 4 : total / 7);
        size_t n = lc_dt_cursor_unpack(&cur, ref + done, chunk);
        CHECKF(n == (chunk < total - done ? chunk : total - done), "%s: unpack chunk of %zu at %zu gave %zu", name,
              chunk, done, n);
        if (n == 0) break;
        done += n;
    }
    CHECKF(memcmp(got, want, sp->len) == 0, "%s x%lld: unpack wrote different memory than the typemap", name,
          (long long)count);
    lc_dt_cursor_fini(&cur);
    free(want);
    free(got);
}

static void check_iov(const char *name, const lc_dt_t *t, MPI_Count count, unsigned char *buf,
                      const unsigned char *ref, size_t total)
{
    lc_dt_cursor_t cur;
    struct iovec iov[4];
    unsigned char *out = malloc(total + 1);
    size_t done = 0;
    CHECKF(lc_dt_cursor_init(&cur, t, count, buf) == 0, "%s: cursor_init", name);
    while (done < total) {
        int max_iov = 1 + (int)rnd(4), n = -1;
        size_t max_bytes = 1 + (size_t)rnd(total / 3 + 8);
        size_t got = lc_dt_cursor_iov(&cur, iov, max_iov, max_bytes, &n);
        size_t sum = 0;
        CHECKF(n >= 1 && n <= max_iov && got <= max_bytes && got > 0, "%s: iov gave %d segments, %zu bytes", name, n,
              got);
        if (got == 0) break;
        for (int k = 0; k < n; k++) {
            if (k > 0)
                CHECKF((char *)iov[k - 1].iov_base + iov[k - 1].iov_len != (char *)iov[k].iov_base,
                      "%s: adjacent segments %d and %d not merged", name, k - 1, k);
            memcpy(out + done + sum, iov[k].iov_base, iov[k].iov_len);
            sum += iov[k].iov_len;
        }
        CHECKF(sum == got, "%s: segments hold %zu bytes, reported %zu", name, sum, got);
        done += got;
    }
    CHECKF(done == total && memcmp(out, ref, total) == 0, "%s x%lld: iovecs describe other bytes", name,
          (long long)count);
    lc_dt_cursor_fini(&cur);
    free(out);
}

static void check_type(const char *name, const lc_dt_t *t, MPI_Count count)
{
    span_t sp;
    unsigned char *buf;
    span_make(&sp, t, count, &buf);
    size_t total = (size_t)(count * t->size);
    unsigned char *ref = malloc(total + 1), *out = malloc(total + 1);
    CHECKF(ref_move(t, count, buf, ref, false) == total, "%s: reference walk covers %zu bytes", name, total);
    CHECKF(lc_dt_pack(t, count, buf, 0, out, total) == 0 && memcmp(out, ref, total) == 0, "%s x%lld: lc_dt_pack",
          name, (long long)count);
    check_splits(name, t, count, buf, ref, total);
    check_unpack(name, t, count, &sp, ref, total);
    check_iov(name, t, count, buf, ref, total);
    free(ref);
    free(out);
    free(sp.mem);
}

/* ---- hand-computed layouts ------------------------------------------------------------ */

static void check_layout(const char *name, const lc_dt_t *t, const MPI_Aint *runs, int nruns)
{
    size_t want = 0;
    for (int k = 0; k < nruns; k++) want += (size_t)runs[2 * k + 1];
    MPI_Aint *offs = calloc(want + 64, sizeof(MPI_Aint));
    ref_t r = { .offs = offs };
    char dummy[8];
    r.base = (uintptr_t)dummy;
    lc_dt_walk(t, (uintptr_t)dummy, 1, ref_visit, &r);
    CHECKF(r.n == want && (MPI_Count)want == t->size, "%s: %zu bytes, expected %zu", name, r.n, want);
    size_t i = 0;
    for (int k = 0; k < nruns && i < r.n; k++)
        for (MPI_Aint b = 0; b < runs[2 * k + 1] && i < r.n; b++, i++)
            CHECKF(offs[i] == runs[2 * k] + b, "%s: packed byte %zu comes from offset %ld, expected %ld", name, i,
                  (long)offs[i], (long)(runs[2 * k] + b));
    /* and the cursor agrees byte for byte with these offsets */
    unsigned char mem[256], out[256];
    for (int k = 0; k < 256; k++) mem[k] = (unsigned char)k;
    lc_dt_pack(t, 1, mem + 64, 0, out, want);
    for (size_t k = 0; k < want; k++)
        CHECKF(out[k] == (unsigned char)(64 + offs[k]), "%s: cursor byte %zu", name, k);
    free(offs);
}

static void test_layouts(void)
{
    lc_dt_t *I = T(MPI_INT), *S = T(MPI_SHORT);
    static const MPI_Aint v[] = { 0, 8, 16, 8, 32, 8 };
    check_layout("vector(3,2,4,int)", vec(3, 2, 16, I), v, 3);
    MPI_Count bl[] = { 1, 3, 2 };
    MPI_Aint d[] = { 40, 0, 20 };
    static const MPI_Aint h[] = { 40, 2, 0, 6, 20, 4 };
    check_layout("hindexed{1@40,3@0,2@20}(short)", hidx(3, bl, d, S), h, 3);
    static const MPI_Aint si[] = { 0, 2, 4, 4 };
    check_layout("MPI_SHORT_INT", T(MPI_SHORT_INT), si, 2);
    lc_dt_t *ts[] = { T(MPI_CHAR), T(MPI_DOUBLE), T(MPI_SHORT_INT) };
    MPI_Count sbl[] = { 1, 1, 2 };
    MPI_Aint sd[] = { 0, 8, 16 };
    static const MPI_Aint st[] = { 0, 1, 8, 8, 16, 2, 20, 4, 24, 2, 28, 4 };
    check_layout("struct{char,double,2 short_int}", strct(3, sbl, sd, ts), st, 6);
    static const MPI_Aint neg[] = { 0, 4, -8, 4, -16, 4 };
    check_layout("hvector(3,1,-8,int)", vec(3, 1, -8, I), neg, 3);
}

/* ---- the programs commit builds ------------------------------------------------------- */

static void check_leaf(const char *name, const lc_dt_t *t, MPI_Count count, MPI_Aint blen, MPI_Aint stride)
{
    const lc_dt_loop_t *l = t->loop;
    CHECKF(l && l->kind == LC_DT_LOOP_LEAF_VEC && l->count == count && l->blen == blen &&
              (count == 1 || l->stride == stride),
          "%s: expected a leaf vector of %lld x %ld B stride %ld, got kind %d count %lld blen %ld stride %ld", name,
          (long long)count, (long)blen, (long)stride, l ? l->kind : -1, l ? (long long)l->count : -1,
          l ? (long)l->blen : -1, l ? (long)l->stride : -1);
}

static void test_programs(void)
{
    lc_dt_t *I = T(MPI_INT), *D = T(MPI_DOUBLE);
    lc_dt_t *cc = contig(5, contig(3, I));
    check_leaf("contiguous(5, contiguous(3, int))", cc, 1, 60, 0);
    CHECKF(lc_dt_is_contig(cc, 7), "contiguous of contiguous is contiguous");
    lc_dt_t *vd = vec(4, 2, 8, I);
    check_leaf("vector(4,2,2,int)", vd, 1, 32, 0);
    CHECKF(lc_dt_is_contig(vd, 3), "a vector whose stride is its block is contiguous");
    MPI_Count bl[] = { 2, 3 };
    MPI_Aint d[] = { 0, 8 };
    check_leaf("indexed{2@0,3@2}(int)", hidx(2, bl, d, I), 1, 20, 0);
    lc_dt_t *rz = resized(I, 0, 8);
    CHECKF(lc_dt_is_contig(rz, 1) && !lc_dt_is_contig(rz, 2), "resized(int, 0, 8): one item contiguous, two not");
    check_leaf("vector(4,1,2,int)", vec(4, 1, 8, I), 4, 4, 8);
    lc_dt_t *v64 = vec(1000, 8, 128, D);
    check_leaf("vector(1000, 8 doubles, stride 16 doubles)", v64, 1000, 64, 128);
    CHECKF(!lc_dt_is_contig(v64, 1), "a strided vector is not contiguous");
    /* faces of a 16^3 array of doubles */
    MPI_Count sz[] = { 16, 16, 16 }, st[] = { 0, 0, 0 };
    MPI_Count fx[] = { 16, 16, 1 }, fy[] = { 16, 1, 16 }, fz[] = { 1, 16, 16 };
    check_leaf("subarray x face", subarray3(sz, fx, st, MPI_ORDER_C, D), 256, 8, 128);
    check_leaf("subarray y face", subarray3(sz, fy, st, MPI_ORDER_C, D), 16, 128, 2048);
    lc_dt_t *z = subarray3(sz, fz, st, MPI_ORDER_C, D);
    check_leaf("subarray z face", z, 1, 2048, 0);
    CHECKF(z->flags & LC_DT_F_DENSE, "the z face of a C-order array is one run");
    /* evenly spaced copies of a strided child: a nest vector, no list */
    lc_dt_t *h = vec(3, 1, 100, vec(2, 1, 8, I));
    CHECKF(h->loop->kind == LC_DT_LOOP_NEST_VEC && h->loop->count == 3 && h->loop->child->kind == LC_DT_LOOP_LEAF_VEC,
          "vector of a strided vector: nest vector over a leaf");
    /* vector(n,1,S) of a leaf vector whose span is S merges into one vector */
    check_leaf("vector(3,1,16 B) of resized vector(2,1,2,int)", vec(3, 1, 16, resized(vec(2, 1, 8, I), 0, 16)), 6, 4,
               8);
}

/* ---- the types the cursor is run on --------------------------------------------------- */

static void test_cursor(void)
{
    lc_dt_t *I = T(MPI_INT), *D = T(MPI_DOUBLE), *C = T(MPI_CHAR), *S = T(MPI_SHORT);
    struct {
        const char *name;
        lc_dt_t *t;
    } small[20];
    int n = 0;
    small[n++] = (typeof(small[0])){ "int", I };
    small[n++] = (typeof(small[0])){ "MPI_DOUBLE_INT", T(MPI_DOUBLE_INT) };
    small[n++] = (typeof(small[0])){ "MPI_SHORT_INT", T(MPI_SHORT_INT) };
    small[n++] = (typeof(small[0])){ "vector(3,2,4,int)", vec(3, 2, 16, I) };
    small[n++] = (typeof(small[0])){ "vector(2,1,3) of vector", vec(2, 1, 3 * 40, vec(3, 2, 16, I)) };
    MPI_Count bl[] = { 1, 3, 2 }, zbl[] = { 0, 2, 0, 1 };
    MPI_Aint d[] = { 40, 0, 20 }, zd[] = { 4, 10, 30, -6 };
    small[n++] = (typeof(small[0])){ "hindexed(short)", hidx(3, bl, d, S) };
    small[n++] = (typeof(small[0])){ "hindexed with empty blocks", hidx(4, zbl, zd, S) };
    lc_dt_t *ts[] = { C, D, T(MPI_SHORT_INT) };
    MPI_Count sbl[] = { 1, 1, 2 };
    MPI_Aint sd[] = { 0, 8, 16 };
    lc_dt_t *st = strct(3, sbl, sd, ts);
    small[n++] = (typeof(small[0])){ "struct{char,double,short_int}", st };
    small[n++] = (typeof(small[0])){ "resized(vector, -4, 20)", resized(vec(2, 1, 8, I), -4, 20) };
    lc_dt_t *nts[] = { vec(2, 1, 3, C), I, resized(st, 0, 48), contig(0, D) };
    MPI_Count nbl[] = { 2, 1, 2, 5 };
    MPI_Aint nd[] = { 0, 32, 40, 7 };
    small[n++] = (typeof(small[0])){ "struct of non-dense children", strct(4, nbl, nd, nts) };
    small[n++] = (typeof(small[0])){ "hvector(3,1,-8,int)", vec(3, 1, -8, I) };
    MPI_Count sz[] = { 4, 5, 6 }, sub[] = { 2, 3, 4 }, sst[] = { 1, 1, 2 };
    small[n++] = (typeof(small[0])){ "subarray C", subarray3(sz, sub, sst, MPI_ORDER_C, D) };
    small[n++] = (typeof(small[0])){ "subarray Fortran", subarray3(sz, sub, sst, MPI_ORDER_FORTRAN, S) };
    lc_dt_t *da;
    MPI_Count gs[] = { 10, 12 };
    int dist[] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC }, darg[] = { MPI_DISTRIBUTE_DFLT_DARG, 2 },
        ps[] = { 2, 2 };
    small[n++] = (typeof(small[0])){ "darray", keep(lc_dt_create_darray(4, 1, 2, gs, dist, darg, ps, MPI_ORDER_C,
                                                                        I, &da),
                                                    &da) };
    for (int k = 0; k < n; k++)
        for (MPI_Count count = 1; count <= 3; count++) check_type(small[k].name, small[k].t, count);
    check_type("empty count", I, 0);

    /* large ones: random split points */
    check_type("vector(1000,7,13,double)", vec(1000, 7, 13 * 8, D), 3);
    MPI_Count bsz[] = { 40, 30, 20 }, bsub[] = { 40, 1, 20 }, bst[] = { 0, 29, 0 };
    check_type("subarray face", subarray3(bsz, bsub, bst, MPI_ORDER_C, D), 2);
    lc_dt_t *big[] = { vec(50, 3, 40, I), D, T(MPI_LONG_DOUBLE_INT) };
    MPI_Count bbl[] = { 2, 17, 3 };
    MPI_Aint bd[] = { 0, 8 * 1000, 4000 };
    check_type("struct of vectors", strct(3, bbl, bd, big), 40);
}

int main(void)
{
    test_layouts();
    test_programs();
    test_cursor();
    for (int k = nmade - 1; k >= 0; k--) lc_dt_release(made[k]);
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("test_dt_pack: all checks passed\n");
    return 0;
}
