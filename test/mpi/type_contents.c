/* SPDX-License-Identifier: BSD-3-Clause */
/* type_contents: the datatype constructors and queries, in one process
 * (every rank runs it on its own):
 *   - MPI_Type_get_envelope / get_contents (and _c) return exactly the
 *     arguments of every constructor, int and large-count forms and the
 *     MPI-1 names, and the datatypes they return are usable and freeable;
 *   - a type rebuilt from its contents has the same typemap (same size,
 *     bounds and packed bytes);
 *   - extents, true extents and sizes in every form (_c, _x, MPI-1);
 *   - names: the standard names of predefined types, set/get, dup;
 *   - f90 types, MPI_Type_match_size, MPI_Type_get_value_index (MPI 4.1). */
#include "lc_test.h"

#define MAXN 64

typedef struct expect {
    int combiner;
    MPI_Count ni, na, nc, nd;
    int ints[MAXN];
    MPI_Aint aints[MAXN];
    MPI_Count counts[MAXN];
    MPI_Datatype types[8];
} expect_t;

/* Packed bytes of 2 items of t from a patterned buffer (origin in the middle). */
static int pack2(MPI_Datatype t, unsigned char *out, int cap)
{
    static unsigned char mem[1 << 16];
    for (size_t k = 0; k < sizeof(mem); k++) mem[k] = (unsigned char)(k * 7 + k / 251);
    int pos = 0;
    LC_MPI(MPI_Pack(mem + sizeof(mem) / 2, 2, t, out, cap, &pos, MPI_COMM_SELF));
    return pos;
}

static void same_typemap(const char *what, MPI_Datatype a, MPI_Datatype b)
{
    MPI_Count sa, sb, la, lb, ea, eb, ta, tb, xa, xb;
    LC_MPI(MPI_Type_size_c(a, &sa));
    LC_MPI(MPI_Type_size_c(b, &sb));
    LC_MPI(MPI_Type_get_extent_c(a, &la, &ea));
    LC_MPI(MPI_Type_get_extent_c(b, &lb, &eb));
    LC_MPI(MPI_Type_get_true_extent_c(a, &ta, &xa));
    LC_MPI(MPI_Type_get_true_extent_c(b, &tb, &xb));
    LC_CHECK(sa == sb && la == lb && ea == eb && ta == tb && xa == xb,
             "%s: rebuilt type differs: size %ld/%ld lb %ld/%ld extent %ld/%ld true %ld+%ld / %ld+%ld", what, sa,
             sb, la, lb, ea, eb, ta, xa, tb, xb);
    MPI_Datatype ca = a, cb = b;
    LC_MPI(MPI_Type_commit(&ca));
    LC_MPI(MPI_Type_commit(&cb));
    static unsigned char pa[1 << 15], pb[1 << 15];
    int na = pack2(ca, pa, sizeof(pa)), nb = pack2(cb, pb, sizeof(pb));
    LC_CHECK(na == nb && memcmp(pa, pb, (size_t)na) == 0, "%s: rebuilt type packs other bytes", what);
}

static int is_named(MPI_Datatype t)
{
    int ni, na, nd, comb;
    LC_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    return comb == MPI_COMBINER_NAMED;
}

/* Rebuild a type from its contents with the constructor they describe. */
static MPI_Datatype rebuild(MPI_Datatype t)
{
    MPI_Count ni, na, nc, nd;
    int comb, i[MAXN];
    MPI_Aint a[MAXN];
    MPI_Count c[MAXN];
    MPI_Datatype d[8], r = MPI_DATATYPE_NULL;
    LC_MPI(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
    LC_MPI(MPI_Type_get_contents_c(t, MAXN, MAXN, MAXN, 8, i, a, c, d));
    int large = nc > 0;
    switch (comb) {
    case MPI_COMBINER_DUP: LC_MPI(MPI_Type_dup(d[0], &r)); break;
    case MPI_COMBINER_CONTIGUOUS:
        if (large) LC_MPI(MPI_Type_contiguous_c(c[0], d[0], &r));
        else LC_MPI(MPI_Type_contiguous(i[0], d[0], &r));
        break;
    case MPI_COMBINER_VECTOR:
        if (large) LC_MPI(MPI_Type_vector_c(c[0], c[1], c[2], d[0], &r));
        else LC_MPI(MPI_Type_vector(i[0], i[1], i[2], d[0], &r));
        break;
    case MPI_COMBINER_HVECTOR:
        if (large) LC_MPI(MPI_Type_create_hvector_c(c[0], c[1], c[2], d[0], &r));
        else LC_MPI(MPI_Type_create_hvector(i[0], i[1], a[0], d[0], &r));
        break;
    case MPI_COMBINER_INDEXED:
        if (large) LC_MPI(MPI_Type_indexed_c(c[0], c + 1, c + 1 + c[0], d[0], &r));
        else LC_MPI(MPI_Type_indexed(i[0], i + 1, i + 1 + i[0], d[0], &r));
        break;
    case MPI_COMBINER_HINDEXED:
        if (large) LC_MPI(MPI_Type_create_hindexed_c(c[0], c + 1, c + 1 + c[0], d[0], &r));
        else LC_MPI(MPI_Type_create_hindexed(i[0], i + 1, a, d[0], &r));
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        if (large) LC_MPI(MPI_Type_create_indexed_block_c(c[0], c[1], c + 2, d[0], &r));
        else LC_MPI(MPI_Type_create_indexed_block(i[0], i[1], i + 2, d[0], &r));
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        if (large) LC_MPI(MPI_Type_create_hindexed_block_c(c[0], c[1], c + 2, d[0], &r));
        else LC_MPI(MPI_Type_create_hindexed_block(i[0], i[1], a, d[0], &r));
        break;
    case MPI_COMBINER_STRUCT:
        if (large) LC_MPI(MPI_Type_create_struct_c(c[0], c + 1, c + 1 + c[0], d, &r));
        else LC_MPI(MPI_Type_create_struct(i[0], i + 1, a, d, &r));
        break;
    case MPI_COMBINER_SUBARRAY:
        if (large) LC_MPI(MPI_Type_create_subarray_c(i[0], c, c + i[0], c + 2 * i[0], i[1], d[0], &r));
        else LC_MPI(MPI_Type_create_subarray(i[0], i + 1, i + 1 + i[0], i + 1 + 2 * i[0], i[1 + 3 * i[0]], d[0], &r));
        break;
    case MPI_COMBINER_DARRAY: {
        int n = i[2];
        if (large)
            LC_MPI(MPI_Type_create_darray_c(i[0], i[1], n, c, i + 3, i + 3 + n, i + 3 + 2 * n, i[3 + 3 * n], d[0],
                                            &r));
        else
            LC_MPI(MPI_Type_create_darray(i[0], i[1], n, i + 3, i + 3 + n, i + 3 + 2 * n, i + 3 + 3 * n,
                                          i[3 + 4 * n], d[0], &r));
        break;
    }
    case MPI_COMBINER_RESIZED:
        if (large) LC_MPI(MPI_Type_create_resized_c(d[0], c[0], c[1], &r));
        else LC_MPI(MPI_Type_create_resized(d[0], a[0], a[1], &r));
        break;
    default: LC_CHECK(0, "unexpected combiner %d", comb);
    }
    for (MPI_Count k = 0; k < nd; k++)
        if (!is_named(d[k])) LC_MPI(MPI_Type_free(&d[k]));
    return r;
}

/* The envelope and contents of t are exactly e; then the rebuilt type
 * has the same typemap.  t is freed. */
static void check_type(const char *what, MPI_Datatype t, const expect_t *e)
{
    MPI_Count ni, na, nc, nd;
    int comb;
    LC_MPI(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
    LC_CHECK(comb == e->combiner && ni == e->ni && na == e->na && nc == e->nc && nd == e->nd,
             "%s: envelope (%ld %ld %ld %ld comb %d), expected (%ld %ld %ld %ld comb %d)", what, ni, na, nc, nd,
             comb, e->ni, e->na, e->nc, e->nd, e->combiner);
    if (nc == 0) { /* the int form describes it too */
        int ini, ina, ind, icomb;
        LC_MPI(MPI_Type_get_envelope(t, &ini, &ina, &ind, &icomb));
        LC_CHECK(ini == ni && ina == na && ind == nd && icomb == comb, "%s: int envelope differs", what);
    }
    int i[MAXN];
    MPI_Aint a[MAXN];
    MPI_Count c[MAXN];
    MPI_Datatype d[8];
    LC_MPI(MPI_Type_get_contents_c(t, MAXN, MAXN, MAXN, 8, i, a, c, d));
    for (MPI_Count k = 0; k < ni && k < e->ni; k++)
        LC_CHECK(i[k] == e->ints[k], "%s: integer %ld is %d, expected %d", what, k, i[k], e->ints[k]);
    for (MPI_Count k = 0; k < na && k < e->na; k++)
        LC_CHECK(a[k] == e->aints[k], "%s: address %ld is %ld, expected %ld", what, k, a[k], e->aints[k]);
    for (MPI_Count k = 0; k < nc && k < e->nc; k++)
        LC_CHECK(c[k] == e->counts[k], "%s: large count %ld is %ld, expected %ld", what, k, c[k], e->counts[k]);
    for (MPI_Count k = 0; k < nd && k < e->nd; k++) {
        if (is_named(e->types[k])) LC_CHECK(d[k] == e->types[k], "%s: datatype %ld differs", what, k);
        else same_typemap(what, d[k], e->types[k]);
        if (!is_named(d[k])) LC_MPI(MPI_Type_free(&d[k]));
    }
    MPI_Datatype r = rebuild(t);
    same_typemap(what, t, r);
    LC_MPI(MPI_Type_free(&r));
    LC_MPI(MPI_Type_free(&t));
    LC_CHECK(t == MPI_DATATYPE_NULL, "%s: MPI_Type_free sets the handle to MPI_DATATYPE_NULL", what);
}

static void test_vectors(void)
{
    MPI_Datatype t, v;
    LC_MPI(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &v)); /* kept as a member of others */

    LC_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
    check_type("contiguous", t, &(expect_t){ MPI_COMBINER_CONTIGUOUS, 1, 0, 0, 1, { 3 }, { 0 }, { 0 }, { MPI_INT } });
    LC_MPI(MPI_Type_contiguous_c(3, v, &t));
    check_type("contiguous_c", t, &(expect_t){ MPI_COMBINER_CONTIGUOUS, 0, 0, 1, 1, { 0 }, { 0 }, { 3 }, { v } });
    LC_MPI(MPI_Type_vector(3, 2, -4, MPI_DOUBLE, &t));
    check_type("vector", t, &(expect_t){ MPI_COMBINER_VECTOR, 3, 0, 0, 1, { 3, 2, -4 }, { 0 }, { 0 }, { MPI_DOUBLE } });
    LC_MPI(MPI_Type_vector_c(3, 2, 4, MPI_DOUBLE, &t));
    check_type("vector_c", t, &(expect_t){ MPI_COMBINER_VECTOR, 0, 0, 3, 1, { 0 }, { 0 }, { 3, 2, 4 }, { MPI_DOUBLE } });
    LC_MPI(MPI_Type_create_hvector(2, 3, 40, MPI_SHORT, &t));
    check_type("hvector", t, &(expect_t){ MPI_COMBINER_HVECTOR, 2, 1, 0, 1, { 2, 3 }, { 40 }, { 0 }, { MPI_SHORT } });
    LC_MPI(MPI_Type_hvector(2, 3, 40, MPI_SHORT, &t));
    check_type("Type_hvector (MPI-1)", t,
               &(expect_t){ MPI_COMBINER_HVECTOR, 2, 1, 0, 1, { 2, 3 }, { 40 }, { 0 }, { MPI_SHORT } });
    LC_MPI(MPI_Type_create_hvector_c(2, 3, 40, v, &t));
    check_type("hvector_c", t, &(expect_t){ MPI_COMBINER_HVECTOR, 0, 0, 3, 1, { 0 }, { 0 }, { 2, 3, 40 }, { v } });

    LC_MPI(MPI_Type_free(&v));
}

static void test_blocks(void)
{
    MPI_Datatype t, v;
    LC_MPI(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &v));
    int bl[] = { 1, 2, 0 }, di[] = { 4, 0, 9 };
    MPI_Count cbl[] = { 1, 2, 0 }, cdi[] = { 4, 0, 9 };
    LC_MPI(MPI_Type_indexed(3, bl, di, MPI_INT, &t));
    check_type("indexed", t,
               &(expect_t){ MPI_COMBINER_INDEXED, 7, 0, 0, 1, { 3, 1, 2, 0, 4, 0, 9 }, { 0 }, { 0 }, { MPI_INT } });
    LC_MPI(MPI_Type_indexed_c(3, cbl, cdi, MPI_INT, &t));
    check_type("indexed_c", t,
               &(expect_t){ MPI_COMBINER_INDEXED, 0, 0, 7, 1, { 0 }, { 0 }, { 3, 1, 2, 0, 4, 0, 9 }, { MPI_INT } });
    MPI_Aint hd[] = { 0, 24, -16 };
    MPI_Count chd[] = { 0, 24, -16 };
    LC_MPI(MPI_Type_create_hindexed(3, bl, hd, MPI_DOUBLE, &t));
    check_type("hindexed", t,
               &(expect_t){ MPI_COMBINER_HINDEXED, 4, 3, 0, 1, { 3, 1, 2, 0 }, { 0, 24, -16 }, { 0 }, { MPI_DOUBLE } });
    LC_MPI(MPI_Type_hindexed(3, bl, hd, MPI_DOUBLE, &t));
    check_type("Type_hindexed (MPI-1)", t,
               &(expect_t){ MPI_COMBINER_HINDEXED, 4, 3, 0, 1, { 3, 1, 2, 0 }, { 0, 24, -16 }, { 0 }, { MPI_DOUBLE } });
    LC_MPI(MPI_Type_create_hindexed_c(3, cbl, chd, v, &t));
    check_type("hindexed_c", t,
               &(expect_t){ MPI_COMBINER_HINDEXED, 0, 0, 7, 1, { 0 }, { 0 }, { 3, 1, 2, 0, 0, 24, -16 }, { v } });
    LC_MPI(MPI_Type_create_indexed_block(3, 2, di, MPI_CHAR, &t));
    check_type("indexed_block", t,
               &(expect_t){ MPI_COMBINER_INDEXED_BLOCK, 5, 0, 0, 1, { 3, 2, 4, 0, 9 }, { 0 }, { 0 }, { MPI_CHAR } });
    LC_MPI(MPI_Type_create_indexed_block_c(3, 2, cdi, MPI_CHAR, &t));
    check_type("indexed_block_c", t,
               &(expect_t){ MPI_COMBINER_INDEXED_BLOCK, 0, 0, 5, 1, { 0 }, { 0 }, { 3, 2, 4, 0, 9 }, { MPI_CHAR } });
    LC_MPI(MPI_Type_create_hindexed_block(3, 1, hd, MPI_INT, &t));
    check_type("hindexed_block", t,
               &(expect_t){ MPI_COMBINER_HINDEXED_BLOCK, 2, 3, 0, 1, { 3, 1 }, { 0, 24, -16 }, { 0 }, { MPI_INT } });
    LC_MPI(MPI_Type_create_hindexed_block_c(3, 1, chd, MPI_INT, &t));
    check_type("hindexed_block_c", t,
               &(expect_t){ MPI_COMBINER_HINDEXED_BLOCK, 0, 0, 5, 1, { 0 }, { 0 }, { 3, 1, 0, 24, -16 }, { MPI_INT } });

    int sbl[] = { 1, 2, 1 };
    MPI_Aint sd[] = { 0, 8, 32 };
    MPI_Count csbl[] = { 1, 2, 1 }, csd[] = { 0, 8, 32 };
    MPI_Datatype st[] = { MPI_CHAR, MPI_DOUBLE, v };
    LC_MPI(MPI_Type_create_struct(3, sbl, sd, st, &t));
    check_type("struct", t,
               &(expect_t){ MPI_COMBINER_STRUCT, 4, 3, 0, 3, { 3, 1, 2, 1 }, { 0, 8, 32 }, { 0 }, { MPI_CHAR, MPI_DOUBLE, v } });
    LC_MPI(MPI_Type_struct(3, sbl, sd, st, &t));
    check_type("Type_struct (MPI-1)", t,
               &(expect_t){ MPI_COMBINER_STRUCT, 4, 3, 0, 3, { 3, 1, 2, 1 }, { 0, 8, 32 }, { 0 }, { MPI_CHAR, MPI_DOUBLE, v } });
    LC_MPI(MPI_Type_create_struct_c(3, csbl, csd, st, &t));
    check_type("struct_c", t,
               &(expect_t){ MPI_COMBINER_STRUCT, 0, 0, 7, 3, { 0 }, { 0 }, { 3, 1, 2, 1, 0, 8, 32 }, { MPI_CHAR, MPI_DOUBLE, v } });

    LC_MPI(MPI_Type_free(&v));
}

static void test_arrays_resized(void)
{
    MPI_Datatype t, v;
    LC_MPI(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &v));
    int sz[] = { 6, 8 }, sub[] = { 2, 3 }, sst[] = { 1, 4 };
    MPI_Count csz[] = { 6, 8 }, csub[] = { 2, 3 }, csst[] = { 1, 4 };
    LC_MPI(MPI_Type_create_subarray(2, sz, sub, sst, MPI_ORDER_C, MPI_INT, &t));
    check_type("subarray", t,
               &(expect_t){ MPI_COMBINER_SUBARRAY, 8, 0, 0, 1, { 2, 6, 8, 2, 3, 1, 4, MPI_ORDER_C }, { 0 }, { 0 }, { MPI_INT } });
    LC_MPI(MPI_Type_create_subarray(2, sz, sub, sst, MPI_ORDER_FORTRAN, v, &t));
    check_type("subarray Fortran", t,
               &(expect_t){ MPI_COMBINER_SUBARRAY, 8, 0, 0, 1, { 2, 6, 8, 2, 3, 1, 4, MPI_ORDER_FORTRAN }, { 0 }, { 0 }, { v } });
    LC_MPI(MPI_Type_create_subarray_c(2, csz, csub, csst, MPI_ORDER_C, MPI_INT, &t));
    check_type("subarray_c", t,
               &(expect_t){ MPI_COMBINER_SUBARRAY, 2, 0, 6, 1, { 2, MPI_ORDER_C }, { 0 }, { 6, 8, 2, 3, 1, 4 }, { MPI_INT } });

    int gs[] = { 8, 6 }, dist[] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC },
        darg[] = { MPI_DISTRIBUTE_DFLT_DARG, 2 }, ps[] = { 2, 2 };
    MPI_Count cgs[] = { 8, 6 };
    LC_MPI(MPI_Type_create_darray(4, 2, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_DOUBLE, &t));
    check_type("darray", t,
               &(expect_t){ MPI_COMBINER_DARRAY, 12, 0, 0, 1,
                            { 4, 2, 2, 8, 6, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG, 2, 2, 2, MPI_ORDER_C },
                            { 0 }, { 0 }, { MPI_DOUBLE } });
    LC_MPI(MPI_Type_create_darray_c(4, 3, 2, cgs, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t));
    check_type("darray_c", t,
               &(expect_t){ MPI_COMBINER_DARRAY, 10, 0, 2, 1,
                            { 4, 3, 2, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG, 2, 2, 2, MPI_ORDER_FORTRAN },
                            { 0 }, { 8, 6 }, { MPI_DOUBLE } });

    LC_MPI(MPI_Type_create_resized(MPI_INT, -4, 16, &t));
    check_type("resized", t, &(expect_t){ MPI_COMBINER_RESIZED, 0, 2, 0, 1, { 0 }, { -4, 16 }, { 0 }, { MPI_INT } });
    LC_MPI(MPI_Type_create_resized_c(v, 8, 200, &t));
    check_type("resized_c", t, &(expect_t){ MPI_COMBINER_RESIZED, 0, 0, 2, 1, { 0 }, { 0 }, { 8, 200 }, { v } });
    LC_MPI(MPI_Type_dup(v, &t));
    check_type("dup", t, &(expect_t){ MPI_COMBINER_DUP, 0, 0, 0, 1, { 0 }, { 0 }, { 0 }, { v } });
    LC_MPI(MPI_Type_dup(MPI_INT, &t));
    check_type("dup of MPI_INT", t, &(expect_t){ MPI_COMBINER_DUP, 0, 0, 0, 1, { 0 }, { 0 }, { 0 }, { MPI_INT } });

    /* the member type outlives its handle: free it first, then use a type built on it */
    LC_MPI(MPI_Type_contiguous(2, v, &t));
    LC_MPI(MPI_Type_free(&v));
    LC_MPI(MPI_Type_commit(&t));
    MPI_Count size;
    LC_MPI(MPI_Type_size_c(t, &size));
    LC_CHECK(size == 96, "contiguous(2) of a freed vector of 6 doubles: size %ld", size);
    MPI_Datatype v2;
    LC_MPI(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &v2));
    check_type("contiguous of a freed type", t,
               &(expect_t){ MPI_COMBINER_CONTIGUOUS, 1, 0, 0, 1, { 2 }, { 0 }, { 0 }, { v2 } });
    LC_MPI(MPI_Type_free(&v2));
}

static void check_extent(const char *what, MPI_Datatype t, MPI_Count size, MPI_Aint lb, MPI_Aint extent,
                         MPI_Aint tlb, MPI_Aint textent)
{
    int isize;
    MPI_Count csize, xsize, clb, cext, xlb, xext, ctlb, ctext, xtlb, xtext;
    MPI_Aint alb, aext, atlb, atext, e1, l1, u1;
    LC_MPI(MPI_Type_size(t, &isize));
    LC_MPI(MPI_Type_size_c(t, &csize));
    LC_MPI(MPI_Type_size_x(t, &xsize));
    LC_MPI(MPI_Type_get_extent(t, &alb, &aext));
    LC_MPI(MPI_Type_get_extent_c(t, &clb, &cext));
    LC_MPI(MPI_Type_get_extent_x(t, &xlb, &xext));
    LC_MPI(MPI_Type_get_true_extent(t, &atlb, &atext));
    LC_MPI(MPI_Type_get_true_extent_c(t, &ctlb, &ctext));
    LC_MPI(MPI_Type_get_true_extent_x(t, &xtlb, &xtext));
    LC_MPI(MPI_Type_extent(t, &e1));
    LC_MPI(MPI_Type_lb(t, &l1));
    LC_MPI(MPI_Type_ub(t, &u1));
    LC_CHECK(isize == size && csize == size && xsize == size, "%s: size %d/%ld/%ld, expected %ld", what, isize, csize,
             xsize, size);
    LC_CHECK(alb == lb && clb == lb && xlb == lb && l1 == lb, "%s: lb %ld/%ld/%ld/%ld, expected %ld", what, alb, clb,
             xlb, l1, lb);
    LC_CHECK(aext == extent && cext == extent && xext == extent && e1 == extent && u1 == lb + extent,
             "%s: extent %ld/%ld/%ld/%ld ub %ld, expected %ld", what, aext, cext, xext, e1, u1, extent);
    LC_CHECK(atlb == tlb && ctlb == tlb && xtlb == tlb && atext == textent && ctext == textent && xtext == textent,
             "%s: true extent %ld+%ld, expected %ld+%ld", what, atlb, atext, tlb, textent);
}

static void test_extents(void)
{
    MPI_Datatype t, s;
    check_extent("MPI_INT", MPI_INT, 4, 0, 4, 0, 4);
    check_extent("MPI_DOUBLE_INT", MPI_DOUBLE_INT, 12, 0, 16, 0, 12);
    check_extent("MPI_SHORT_INT", MPI_SHORT_INT, 6, 0, 8, 0, 8);
    LC_MPI(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t));
    check_extent("vector(3,2,4,double)", t, 48, 0, 80, 0, 80);
    LC_MPI(MPI_Type_create_resized(t, -8, 100, &s));
    check_extent("resized(vector, -8, 100)", s, 48, -8, 100, 0, 80);
    LC_MPI(MPI_Type_free(&s));
    LC_MPI(MPI_Type_vector(3, 1, -2, MPI_INT, &s));
    check_extent("vector(3,1,-2,int)", s, 12, -16, 20, -16, 20);
    LC_MPI(MPI_Type_free(&s));
    int bl[] = { 1, 1 };
    MPI_Aint d[] = { 0, 8 };
    MPI_Datatype ty[] = { MPI_CHAR, MPI_DOUBLE };
    LC_MPI(MPI_Type_create_struct(2, bl, d, ty, &s));
    check_extent("struct{char, double@8}", s, 9, 0, 16, 0, 16);
    LC_MPI(MPI_Type_free(&s));
    d[1] = 1;
    LC_MPI(MPI_Type_create_struct(2, bl, d, ty, &s));
    check_extent("struct{char, double@1}: padded to 16", s, 9, 0, 16, 0, 9);
    LC_MPI(MPI_Type_free(&s));
    int sz[] = { 10, 12 }, sub[] = { 3, 4 }, st[] = { 1, 2 };
    LC_MPI(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &s));
    check_extent("subarray", s, 48, 0, 480, 56, 112);
    LC_MPI(MPI_Type_free(&s));
    int dist[] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC }, darg[] = { MPI_DISTRIBUTE_DFLT_DARG, 2 },
        ps[] = { 2, 2 };
    LC_MPI(MPI_Type_create_darray(4, 1, 2, sz, dist, darg, ps, MPI_ORDER_C, MPI_INT, &s));
    check_extent("darray", s, 120, 0, 480, 8, 232);
    LC_MPI(MPI_Type_free(&s));
    LC_MPI(MPI_Type_contiguous(0, MPI_INT, &s));
    check_extent("contiguous(0)", s, 0, 0, 0, 0, 0);
    LC_MPI(MPI_Type_free(&s));
    LC_MPI(MPI_Type_free(&t));
}

static void check_name(MPI_Datatype t, const char *want)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    LC_MPI(MPI_Type_get_name(t, name, &len));
    LC_CHECK(strcmp(name, want) == 0 && len == (int)strlen(want), "name \"%s\" (%d), expected \"%s\"", name, len,
             want);
}

static void test_names(void)
{
    check_name(MPI_INT, "MPI_INT");
    check_name(MPI_DOUBLE, "MPI_DOUBLE");
    check_name(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT");
    check_name(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG");
    check_name(MPI_BYTE, "MPI_BYTE");
    check_name(MPI_PACKED, "MPI_PACKED");
    check_name(MPI_2INT, "MPI_2INT");
    check_name(MPI_DOUBLE_INT, "MPI_DOUBLE_INT");
    check_name(MPI_FLOAT_INT, "MPI_FLOAT_INT");
    check_name(MPI_UINT64_T, "MPI_UINT64_T");
    check_name(MPI_C_BOOL, "MPI_C_BOOL");
    check_name(MPI_AINT, "MPI_AINT");
    check_name(MPI_REAL8, "MPI_REAL8");
    MPI_Datatype t, d;
    LC_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    check_name(t, "");
    LC_MPI(MPI_Type_set_name(t, "halo"));
    check_name(t, "halo");
    LC_MPI(MPI_Type_set_name(t, "halo, renamed"));
    check_name(t, "halo, renamed");
    LC_MPI(MPI_Type_dup(t, &d));
    check_name(d, "");
    LC_MPI(MPI_Type_free(&d));
    LC_MPI(MPI_Type_free(&t));
}

static void test_f90(void)
{
    MPI_Datatype t, t2;
    int ni, na, nd, comb, ints[2] = { 0, 0 }, size;
    LC_MPI(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t));
    LC_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    LC_MPI(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
    LC_MPI(MPI_Type_size(t, &size));
    LC_CHECK(comb == MPI_COMBINER_F90_REAL && ni == 2 && na == 0 && nd == 0 && ints[0] == 6 &&
                 ints[1] == MPI_UNDEFINED && size == 4,
             "f90 real(6, undefined): combiner %d (%d %d %d) ints %d %d size %d", comb, ni, na, nd, ints[0], ints[1],
             size);
    LC_MPI(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t2));
    LC_CHECK(t2 == t, "the same f90 type twice: the same handle");
    LC_MPI(MPI_Type_create_f90_real(15, 300, &t));
    LC_MPI(MPI_Type_size(t, &size));
    LC_CHECK(size == 8, "f90 real(15, 300): %d bytes", size);
    LC_MPI(MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &t));
    LC_MPI(MPI_Type_size(t, &size));
    LC_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    LC_CHECK(size == 16 && comb == MPI_COMBINER_F90_COMPLEX, "f90 complex(15): %d bytes, combiner %d", size, comb);
    LC_MPI(MPI_Type_create_f90_integer(9, &t));
    LC_MPI(MPI_Type_size(t, &size));
    LC_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    LC_MPI(MPI_Type_get_contents(t, 1, 0, 0, ints, NULL, NULL));
    LC_CHECK(size == 4 && comb == MPI_COMBINER_F90_INTEGER && ni == 1 && ints[0] == 9,
             "f90 integer(9): %d bytes, combiner %d, %d ints (%d)", size, comb, ni, ints[0]);
    LC_MPI(MPI_Type_create_f90_integer(18, &t));
    LC_MPI(MPI_Type_size(t, &size));
    LC_CHECK(size == 8, "f90 integer(18): %d bytes", size);
    /* f90 types pack like their predefined twins */
    int pos = 0;
    double x[2] = { 1.25, -3.5 }, y[2] = { 0, 0 };
    char buf[16];
    LC_MPI(MPI_Type_create_f90_real(15, MPI_UNDEFINED, &t));
    LC_MPI(MPI_Pack(x, 2, t, buf, sizeof(buf), &pos, MPI_COMM_SELF));
    pos = 0;
    LC_MPI(MPI_Unpack(buf, sizeof(buf), &pos, y, 2, MPI_DOUBLE, MPI_COMM_SELF));
    LC_CHECK(pos == 16 && y[0] == 1.25 && y[1] == -3.5, "pack as f90 real(15), unpack as MPI_DOUBLE");

    struct {
        int cls, size;
        MPI_Datatype want;
    } m[] = { { MPI_TYPECLASS_REAL, 4, MPI_REAL4 },         { MPI_TYPECLASS_REAL, 8, MPI_REAL8 },
              { MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1 },   { MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8 },
              { MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16 }, { MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8 } };
    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
        LC_MPI(MPI_Type_match_size(m[i].cls, m[i].size, &t));
        LC_CHECK(t == m[i].want, "match_size(%d, %d) = %#x, expected %#x", m[i].cls, m[i].size, (unsigned)t,
                 (unsigned)m[i].want);
    }
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    LC_MPI(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t));
    LC_CHECK(t == MPI_DOUBLE_INT, "value_index(double, int) is MPI_DOUBLE_INT");
    LC_MPI(MPI_Type_get_value_index(MPI_SHORT, MPI_INT, &t));
    LC_CHECK(t == MPI_SHORT_INT, "value_index(short, int) is MPI_SHORT_INT");
    LC_MPI(MPI_Type_get_value_index(MPI_FLOAT, MPI_LONG, &t));
    LC_CHECK(t == MPI_DATATYPE_NULL, "value_index(float, long): no such pair");
#endif
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    test_vectors();
    test_blocks();
    test_arrays_resized();
    test_extents();
    test_names();
    test_f90();
    return lc_finish();
}
