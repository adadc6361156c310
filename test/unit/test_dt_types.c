/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dt_types.c — datatype objects without MPI:
 *   - predefined types (sizes, extents, pair layouts) and the bounds of
 *     every layout kind: struct padding, sticky lb/ub markers, negative
 *     strides, subarray, darray, f90;
 *   - element counts of partial messages (MPI_Get_elements: whole
 *     basic elements only);
 *   - external32: the bytes of every predefined type, sign extension,
 *     range errors, the x87 <-> binary128 conversion, round trips;
 *   - error classes of bad arguments and bad handles;
 *   - handles and references: freeing a type its parent or a pending
 *     operation still uses, handing handles out again, generations.
 * Exit status 0 when every check passed.
 */
#include "datatype/lc_dt.h"
#include "util/lc_error.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "lc_unit_check.h"

static lc_dt_t *T(MPI_Datatype h)
{
    return lc_dt_get(h);
}

static lc_dt_t *must(int rc, lc_dt_t **tp)
{
    if (rc) {
        fprintf(stderr, "FATAL: constructor failed with class %d\n", lc_error_class_of(rc));
        exit(1);
    }
    return *tp;
}

static lc_dt_t *strct(MPI_Count n, const MPI_Count *bl, const MPI_Aint *d, lc_dt_t *const *ts)
{
    lc_dt_t *t;
    return must(lc_dt_create_blocks(n, bl, 0, d, ts, NULL, true, &t), &t);
}

static void check_bounds(const char *name, const lc_dt_t *t, MPI_Count size, MPI_Aint lb, MPI_Aint extent,
                         MPI_Aint tlb, MPI_Aint textent)
{
    CHECKF(t->size == size && t->lb == lb && lc_dt_extent(t) == extent && t->true_lb == tlb &&
              t->true_ub - t->true_lb == textent,
          "%s: size %lld lb %ld extent %ld true %ld+%ld, expected %lld %ld %ld %ld+%ld", name, (long long)t->size,
          (long)t->lb, (long)lc_dt_extent(t), (long)t->true_lb, (long)(t->true_ub - t->true_lb), (long long)size,
          (long)lb, (long)extent, (long)tlb, (long)textent);
}

/* ---- bounds ------------------------------------------------------------------------- */

static void test_bounds(void)
{
    for (size_t i = 0; i < lc_dtype_count(); i++) {
        const lc_dtype_info_t *info = lc_dtype_at(i);
        lc_dt_t *t = T(info->handle);
        CHECKF(t && t->handle == info->handle && lc_dt_is_predefined(t) && lc_dt_is_committed(t),
              "%s: a committed predefined object", info->name);
        if (t && info->cls != LC_DT_PAIR)
            CHECKF(t->size == info->type_size && lc_dt_extent(t) == (MPI_Aint)info->size &&
                      strcmp(lc_dt_name(t), info->name) == 0,
                  "%s: size/extent/name", info->name);
    }
    check_bounds("MPI_DOUBLE_INT", T(MPI_DOUBLE_INT), 12, 0, 16, 0, 12);
    check_bounds("MPI_SHORT_INT", T(MPI_SHORT_INT), 6, 0, 8, 0, 8);
    check_bounds("MPI_LONG_DOUBLE_INT", T(MPI_LONG_DOUBLE_INT), 20, 0, 32, 0, 20);
    CHECKF(T(MPI_DOUBLE_INT)->n_elements == 2 && T(MPI_DOUBLE_INT)->basic == MPI_DOUBLE_INT,
          "a pair type has two elements and reduces as itself");
    CHECKF(T(MPI_DOUBLE_INT)->ext32_size == 12 && T(MPI_LONG_INT)->ext32_size == 8, "external32 sizes of pairs");

    /* struct padding: the extent rounds up to the largest alignment (MPI 4.1 §5.1.6);
     * the same extents as MPICH 4.0.2 and a C compiler */
    struct {
        MPI_Datatype a, b;
        MPI_Aint db, extent;
    } pad[] = { { MPI_CHAR, MPI_DOUBLE, 8, 16 },         { MPI_CHAR, MPI_DOUBLE, 1, 16 },
                { MPI_LONG_DOUBLE, MPI_CHAR, 16, 32 },   { MPI_C_FLOAT_COMPLEX, MPI_CHAR, 8, 12 },
                { MPI_DOUBLE_INT, MPI_CHAR, 16, 24 },    { MPI_INT, MPI_CHAR, 4, 8 } };
    for (size_t i = 0; i < sizeof(pad) / sizeof(pad[0]); i++) {
        lc_dt_t *ts[] = { T(pad[i].a), T(pad[i].b) };
        MPI_Count bl[] = { 1, 1 };
        MPI_Aint d[] = { 0, pad[i].db };
        lc_dt_t *s = strct(2, bl, d, ts);
        CHECKF(lc_dt_extent(s) == pad[i].extent, "struct padding case %zu: extent %ld, expected %ld", i,
              (long)lc_dt_extent(s), (long)pad[i].extent);
        lc_dt_release(s);
    }

    /* sticky markers: MPI_LB / MPI_UB entries, and a resized member */
    lc_dt_t *mts[] = { T(MPI_LB), T(MPI_INT), T(MPI_UB) };
    MPI_Count mbl[] = { 1, 1, 1 };
    MPI_Aint md[] = { -8, 0, 40 };
    lc_dt_t *m = strct(3, mbl, md, mts);
    check_bounds("struct{LB@-8, int@0, UB@40}", m, 4, -8, 48, 0, 4);
    lc_dt_t *r, *v;
    must(lc_dt_create_resized(T(MPI_INT), 0, 6, &r), &r);
    lc_dt_t *rts[] = { r, T(MPI_CHAR) };
    MPI_Count rbl[] = { 1, 1 };
    MPI_Aint rd[] = { 0, 6 };
    lc_dt_t *rs = strct(2, rbl, rd, rts);
    /* the resized member's ub marker wins: no padding (the standard; MPICH 4.0.2 pads to 8) */
    check_bounds("struct{resized(int,0,6), char@6}", rs, 5, 0, 6, 0, 7);
    /* vectors of a type with markers keep them sticky */
    must(lc_dt_create_vector(3, 1, 12, m, &v), &v);
    check_bounds("vector(3) of the marker struct", v, 12, -8, 72, 0, 28);
    lc_dt_release(v);
    must(lc_dt_create_vector(3, 1, -8, T(MPI_INT), &v), &v);
    check_bounds("hvector(3,1,-8,int)", v, 12, -16, 20, -16, 20);
    lc_dt_release(v);
    lc_dt_release(rs);
    lc_dt_release(r);
    lc_dt_release(m);

    /* subarray and darray: the whole array is the extent */
    lc_dt_t *sa, *da;
    MPI_Count sz[] = { 10, 12 }, sub[] = { 3, 4 }, st[] = { 1, 2 };
    must(lc_dt_create_subarray(2, sz, sub, st, MPI_ORDER_C, T(MPI_INT), &sa), &sa);
    check_bounds("subarray 3x4 at (1,2) of 10x12 int", sa, 48, 0, 480, (12 + 2) * 4, (2 * 12 + 3) * 4 + 4);
    lc_dt_release(sa);
    must(lc_dt_create_subarray(2, sz, sub, st, MPI_ORDER_FORTRAN, T(MPI_INT), &sa), &sa);
    check_bounds("Fortran-order subarray", sa, 48, 0, 480, (2 * 10 + 1) * 4, (3 * 10 + 2) * 4 + 4);
    lc_dt_release(sa);
    /* the case validated against MPICH 4.0.2: block x cyclic(2) on a 2x2 grid, rank 1 */
    int dist[] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC }, darg[] = { MPI_DISTRIBUTE_DFLT_DARG, 2 },
        ps[] = { 2, 2 };
    must(lc_dt_create_darray(4, 1, 2, sz, dist, darg, ps, MPI_ORDER_C, T(MPI_INT), &da), &da);
    check_bounds("darray", da, 120, 0, 480, 8, 232);
    lc_dt_release(da);
}

/* ---- element counts ---------------------------------------------------------------------- */

static void test_elements(void)
{
    lc_dt_t *ts[] = { T(MPI_INT), T(MPI_DOUBLE) };
    MPI_Count bl[] = { 1, 1 };
    MPI_Aint d[] = { 0, 8 };
    lc_dt_t *s = strct(2, bl, d, ts);
    struct {
        MPI_Count bytes, elements;
    } cases[] = { { 0, 0 }, { 4, 1 }, { 6, 1 }, { 12, 2 }, { 16, 3 }, { 24, 4 }, { 20, 3 }, { 23, 3 }, { 120, 20 } };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        CHECKF(lc_dt_elements(s, cases[i].bytes) == cases[i].elements,
              "elements of struct{int,double} in %lld bytes: %lld, expected %lld", (long long)cases[i].bytes,
              (long long)lc_dt_elements(s, cases[i].bytes), (long long)cases[i].elements);
    lc_dt_t *v;
    must(lc_dt_create_vector(3, 2, 64, T(MPI_SHORT_INT), &v), &v);
    CHECKF(lc_dt_elements(v, 6 * 6) == 12 && lc_dt_elements(v, 6 + 2) == 3 && lc_dt_elements(v, 6 + 3) == 3 &&
              lc_dt_elements(v, 6 + 6 + 1) == 4,
          "elements of a vector of pair types");
    lc_dt_release(v);
    lc_dt_release(s);
}

/* ---- external32 --------------------------------------------------------------------------- */

static void test_external32(void)
{
    unsigned char mem[64], out[64], back[64];
    for (size_t i = 0; i < lc_dtype_count(); i++) {
        const lc_dtype_info_t *info = lc_dtype_at(i);
        lc_dt_t *t = T(info->handle);
        if (info->cls == LC_DT_MARKER || info->cls == LC_DT_PAIR) continue;
        CHECKF(t->ext32_size == info->ext32, "%s: external32 size", info->name);
        if (info->cls == LC_DT_FLOAT || info->cls == LC_DT_COMPLEX) continue; /* below */
        /* integers: a value that fits every external size; expected bytes big-endian */
        memset(mem, 0, sizeof(mem));
        uint64_t val = info->ext32 == 1 ? 0x5a : info->ext32 == 2 ? 0x1234 : info->ext32 == 4 ? 0x12345678
                                                                                               : 0x0102030405060708ull;
        memcpy(mem, &val, info->type_size);
        CHECKF(lc_dt_pack_external32(t, 1, mem, out) == 0, "%s: pack", info->name);
        for (unsigned k = 0; k < info->ext32; k++)
            CHECKF(out[k] == (unsigned char)(val >> (8 * (info->ext32 - 1 - k))), "%s: external32 byte %u is %02x",
                  info->name, k, out[k]);
        memset(back, 0xff, sizeof(back));
        CHECKF(lc_dt_unpack_external32(t, 1, back, out) == 0 && memcmp(back, mem, info->type_size) == 0,
              "%s: round trip", info->name);
    }
    /* reals and complex: the bytes reversed; long double as binary128 */
    double dv[2] = { 1.5, -0.0 };
    CHECKF(lc_dt_pack_external32(T(MPI_C_DOUBLE_COMPLEX), 1, dv, out) == 0 && out[0] == 0x3f && out[1] == 0xf8 &&
              out[8] == 0x80 && out[9] == 0,
          "double complex 1.5 - 0i: 3f f8 .. 80 00 ..");
    float fv = -2.0f;
    lc_dt_pack_external32(T(MPI_FLOAT), 1, &fv, out);
    CHECKF(out[0] == 0xc0 && out[1] == 0 && out[2] == 0 && out[3] == 0, "float -2: c0 00 00 00");
    long double lds[] = { 1.5L, -3.0e-4000L, 1.0e4000L, 0.0L, 6.0e-4940L /* denormal */, 1.0L / 3.0L };
    static const unsigned char q15[16] = { 0x3f, 0xff, 0x80 };
    memset(mem, 0, sizeof(mem));
    memcpy(mem, &lds[0], sizeof(long double));
    lc_dt_pack_external32(T(MPI_LONG_DOUBLE), 1, mem, out);
    CHECKF(memcmp(out, q15, 16) == 0, "long double 1.5 is binary128 3f ff 80 00 ...");
    for (size_t i = 0; i < sizeof(lds) / sizeof(lds[0]); i++) {
        long double x = lds[i], y = 0;
        lc_dt_pack_external32(T(MPI_LONG_DOUBLE), 1, &x, out);
        lc_dt_unpack_external32(T(MPI_LONG_DOUBLE), 1, &y, out);
        CHECKF(x == y, "long double %Lg survives external32 (got %Lg)", x, y);
    }
    /* rounding binary128 -> x87: 1 + 2^-64 is halfway: ties to even (1.0) */
    static const unsigned char half[16] = { 0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x01 /* 2^-64 at bit 48 */ };
    long double h = 0;
    lc_dt_unpack_external32(T(MPI_LONG_DOUBLE), 1, &h, half);
    CHECKF(h == 1.0L, "1 + 2^-64 rounds to even (1.0), got %La", h);
    /* narrower external sizes: range check and sign extension */
    long big = 0x123456789L, neg = -2, lv = 0;
    int rc = lc_dt_pack_external32(T(MPI_LONG), 1, &big, out);
    CHECKF(lc_error_class_of(rc) == MPI_ERR_CONVERSION, "a long beyond 32 bits: MPI_ERR_CONVERSION");
    CHECKF(lc_dt_pack_external32(T(MPI_LONG), 1, &neg, out) == 0 && out[0] == 0xff && out[3] == 0xfe &&
              lc_dt_unpack_external32(T(MPI_LONG), 1, &lv, out) == 0 && lv == -2,
          "MPI_LONG -2 is ff ff ff fe and comes back sign-extended");
    wchar_t wc = 0x10000;
    CHECKF(lc_error_class_of(lc_dt_pack_external32(T(MPI_WCHAR), 1, &wc, out)) == MPI_ERR_CONVERSION,
          "a wchar beyond 16 bits: MPI_ERR_CONVERSION");
    /* pair and derived types: members in typemap order, no padding */
    struct {
        double v;
        int i;
    } di[2] = { { 1.5, 7 }, { -1.0, -1 } };
    CHECKF(lc_dt_pack_external32(T(MPI_DOUBLE_INT), 2, di, out) == 0 && out[0] == 0x3f && out[11] == 7 &&
              out[12] == 0xbf && out[23] == 0xff,
          "MPI_DOUBLE_INT x2: 12 bytes each");
}

/* ---- errors ---------------------------------------------------------------------------------- */

static void test_errors(void)
{
    lc_dt_t *t = NULL;
    MPI_Count sz[] = { 4, 4 }, sub[] = { 5, 1 }, st[] = { 0, 0 }, gs[] = { 4, 4 };
    int dist[] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK }, darg[] = { MPI_DISTRIBUTE_DFLT_DARG, 1 },
        ps[] = { 2, 3 };
    struct {
        const char *what;
        int rc, cls;
    } c[] = {
        { "resized overflow", lc_dt_create_resized(T(MPI_INT), LONG_MAX, 10, &t), MPI_ERR_ARG },
        { "vector bounds overflow", lc_dt_create_vector(4, 1, LONG_MAX / 2, T(MPI_INT), &t), MPI_ERR_ARG },
        { "subarray subsize > size", lc_dt_create_subarray(2, sz, sub, st, MPI_ORDER_C, T(MPI_INT), &t),
          MPI_ERR_ARG },
        { "subarray order", lc_dt_create_subarray(2, sz, sz, st, 77, T(MPI_INT), &t), MPI_ERR_ARG },
        { "darray grid", lc_dt_create_darray(4, 0, 2, gs, dist, darg, ps, MPI_ORDER_C, T(MPI_INT), &t),
          MPI_ERR_ARG },
        { "darray block too small", lc_dt_create_darray(6, 0, 2, gs, dist, darg, ps, MPI_ORDER_C, T(MPI_INT), &t),
          MPI_ERR_ARG },
        { "f90 integer range 19", lc_dt_f90(MPI_COMBINER_F90_INTEGER, 0, 19, &t), MPI_ERR_ARG },
        { "f90 real precision 34", lc_dt_f90(MPI_COMBINER_F90_REAL, 34, 0, &t), MPI_ERR_ARG },
        { "match_size real 2", lc_dt_match_size(MPI_TYPECLASS_REAL, 2, &(MPI_Datatype){ 0 }), MPI_ERR_ARG },
        { "null handle", lc_dt_check(MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE },
        { "not a handle", lc_dt_check((MPI_Datatype)0x12345678, &t), MPI_ERR_TYPE },
        { "unused derived slot", lc_dt_check((MPI_Datatype)0x8c03ffff, &t), MPI_ERR_TYPE },
        { "MPI_LB in communication", lc_dt_check_comm(MPI_LB, &t), MPI_ERR_TYPE },
        { "free a predefined type", lc_dt_handle_free(&(MPI_Datatype){ MPI_INT }), MPI_ERR_TYPE },
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
        CHECKF(lc_error_class_of(c[i].rc) == c[i].cls, "%s: class %d, expected %d", c[i].what,
              lc_error_class_of(c[i].rc), c[i].cls);
    /* darg 1 with psize 3 over gsize 4 does not cover it: that case is the "block too small" one */
}

/* ---- handles and references ------------------------------------------------------------------ */

static char last_message[512];
static int class_and_text(int rc)
{
    lc_error_string(rc, last_message, sizeof(last_message));
    return lc_error_class_of(rc);
}

static void test_lifetime(void)
{
    lc_dt_t *child, *parent, *t;
    MPI_Datatype hc, hp;
    must(lc_dt_create_vector(4, 1, 8, T(MPI_INT), &child), &child);
    CHECKF(lc_dt_publish(child, lc_dt_contents_new(MPI_COMBINER_VECTOR, 0, 0, 0, 0), &hc) == 0, "publish child");
    must(lc_dt_create_vector(1, 3, 0, child, &parent), &parent);
    lc_dt_contents_t *pc = lc_dt_contents_new(MPI_COMBINER_CONTIGUOUS, 1, 0, 0, 1);
    pc->ints[0] = 3;
    pc->types[0] = child;
    CHECKF(lc_dt_publish(parent, pc, &hp) == 0, "publish parent");
    CHECKF((hc & 0xfc000000) == 0x8c000000 && (hc & 0x3ffff) >= 0x100 && hc != hp, "derived handles %#x %#x", hc,
          hp);
    CHECKF(class_and_text(lc_dt_check_comm(hp, &t)) == MPI_ERR_TYPE && strstr(last_message, "not committed"),
          "an uncommitted type is refused for communication: %s", last_message);
    CHECKF(lc_dt_commit(parent) == 0 && lc_dt_is_committed(parent) && !lc_dt_is_committed(child),
          "commit the parent only");

    /* the user frees the child: its handle dies, the parent still works */
    MPI_Datatype h = hc;
    CHECKF(lc_dt_handle_free(&h) == 0 && h == MPI_DATATYPE_NULL, "free the child handle");
    CHECKF(lc_dt_get(hc) == NULL, "a freed handle no longer resolves");
    CHECKF(class_and_text(lc_dt_check(hc, &t)) == MPI_ERR_TYPE && strstr(last_message, "freed"),
          "a freed handle is reported as freed: %s", last_message);
    int in[24], out[12];
    for (int k = 0; k < 24; k++) in[k] = k;
    /* contiguous(3) of vector(4,1,2 ints): ints 0 2 4 6, then 7 9 11 13 (extent 28 B), then 14 .. 20 */
    CHECKF(lc_dt_pack(parent, 1, in, 0, out, 48) == 0 && out[0] == 0 && out[1] == 2 && out[4] == 7 && out[11] == 20,
          "the parent packs through its freed child");

    /* get_contents hands the child out again: a new handle */
    MPI_Datatype again;
    CHECKF(lc_dt_handle_out(child, &again) == 0 && lc_dt_get(again) == child && again != hc,
          "a freed child comes back under a new handle (%#x, was %#x)", again, hc);
    MPI_Datatype twice;
    CHECKF(lc_dt_handle_out(child, &twice) == 0 && twice == again, "a live handle is handed out as itself");
    h = again;
    CHECKF(lc_dt_handle_free(&h) == 0 && lc_dt_get(again) == child, "one of two user references freed: still live");
    h = again;
    CHECKF(lc_dt_handle_free(&h) == 0 && lc_dt_get(again) == NULL, "both freed: gone");

    /* a pending operation keeps the parent alive after MPI_Type_free */
    lc_dt_retain(parent);
    h = hp;
    CHECKF(lc_dt_handle_free(&h) == 0 && lc_dt_get(hp) == NULL, "free the parent handle while in use");
    memset(out, 0, sizeof(out));
    CHECKF(lc_dt_pack(parent, 1, in, 0, out, 48) == 0 && out[11] == 20, "the pending operation still packs");
    lc_dt_release(parent); /* the operation ends: parent and child go (ASan checks) */

    /* generations: many types made and freed; no stale handle resolves */
    enum { N = 700 };
    static MPI_Datatype old[N];
    for (int k = 0; k < N; k++) {
        must(lc_dt_create_vector(1, k + 1, 0, T(MPI_CHAR), &t), &t);
        CHECKF(lc_dt_publish(t, lc_dt_contents_new(MPI_COMBINER_CONTIGUOUS, 0, 0, 0, 0), &old[k]) == 0, "publish");
        h = old[k];
        lc_dt_handle_free(&h);
    }
    MPI_Datatype live[N];
    for (int k = 0; k < N; k++) {
        must(lc_dt_create_vector(1, k + 1, 0, T(MPI_CHAR), &t), &t);
        CHECKF(lc_dt_publish(t, lc_dt_contents_new(MPI_COMBINER_CONTIGUOUS, 0, 0, 0, 0), &live[k]) == 0, "publish");
    }
    int stale = 0;
    for (int k = 0; k < N; k++) stale += lc_dt_get(old[k]) != NULL;
    CHECKF(stale == 0, "%d of %d freed handles resolve to a newer type", stale, N);
    for (int k = 0; k < N; k++) lc_dt_handle_free(&live[k]);

    /* f90 types: one per (p, r), predefined, never freed */
    lc_dt_t *f1, *f2;
    CHECKF(lc_dt_f90(MPI_COMBINER_F90_REAL, 6, MPI_UNDEFINED, &f1) == 0 &&
              lc_dt_f90(MPI_COMBINER_F90_REAL, 6, MPI_UNDEFINED, &f2) == 0 && f1 == f2 && f1->size == 4 &&
              f1->contents->ni == 2 && f1->contents->ints[1] == MPI_UNDEFINED,
          "f90 real(6, undefined): one 4-byte type with its arguments");
    h = f1->handle;
    CHECKF(lc_error_class_of(lc_dt_handle_free(&h)) == MPI_ERR_TYPE && lc_dt_get(f1->handle) == f1,
          "an f90 type cannot be freed");
    CHECKF(lc_dt_f90(MPI_COMBINER_F90_COMPLEX, 15, 300, &f1) == 0 && f1->size == 16 &&
              lc_dt_f90(MPI_COMBINER_F90_INTEGER, 0, 9, &f2) == 0 && f2->size == 4,
          "f90 complex(15,300) is 16 bytes, integer(9) 4");
}

int main(void)
{
    test_bounds();
    test_elements();
    test_external32();
    test_errors();
    test_lifetime();
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("test_dt_types: all checks passed\n");
    return 0;
}
