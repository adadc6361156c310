/* SPDX-License-Identifier: BSD-3-Clause */
/* dt_pt2pt: derived datatypes through point-to-point.
 *
 * Types: a vector, an indexed type, a struct {int, double, char[3]}, a
 * resized int (holes between items), a 3-D subarray face, a dense
 * contiguous-of-vector (the byte path at true_lb), and rows of 1280 bytes.  Each moves at counts
 * from 0 to above 1 MiB of packed data (eager, rendezvous pipeline, CMA
 * or the network depending on the run's environment) through Send,
 * Ssend, Rsend, Bsend, Isend/Irecv, persistent requests, Sendrecv,
 * Sendrecv_replace and Mprobe/Mrecv, received with the same type and,
 * for types of one basic type, as plain basic elements (same type
 * signature, different typemap).  The receiver checks every byte of its
 * buffer: data where the typemap puts it (computed with MPI_Pack/Unpack
 * locally), holes untouched.  Then any-source receives with
 * Probe + Get_count/Get_elements, a partial last item and truncation.
 * Pairs of ranks (0,1), (2,3), ... run the matrix; an odd last rank only
 * takes part in the any-source part. */
#include "lc_test.h"

#include <stdint.h>
#include <string.h>

enum { T_VEC, T_IDX, T_STRUCT, T_RESIZED, T_SUBARRAY, T_DENSE, T_ROWS, T_COUNT };
static const char *tname[T_COUNT] = { "vector", "indexed", "struct", "resized", "subarray", "dense", "rows" };
static MPI_Datatype types[T_COUNT];
static MPI_Datatype basic[T_COUNT]; /* the one basic type, or MPI_DATATYPE_NULL */

static void make_types(void)
{
    LC_MPI(MPI_Type_vector(4, 2, 3, MPI_INT, &types[T_VEC]));
    basic[T_VEC] = MPI_INT;
    int bl[3] = { 1, 3, 2 }, di[3] = { 0, 4, 9 };
    LC_MPI(MPI_Type_indexed(3, bl, di, MPI_INT, &types[T_IDX]));
    basic[T_IDX] = MPI_INT;
    int sbl[3] = { 1, 1, 3 };
    MPI_Aint sdi[3] = { 0, 8, 16 };
    MPI_Datatype sty[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };
    LC_MPI(MPI_Type_create_struct(3, sbl, sdi, sty, &types[T_STRUCT]));
    basic[T_STRUCT] = MPI_DATATYPE_NULL;
    LC_MPI(MPI_Type_create_resized(MPI_INT, -4, 12, &types[T_RESIZED]));
    basic[T_RESIZED] = MPI_INT;
    int sz[3] = { 8, 8, 8 }, sub[3] = { 8, 8, 1 }, st[3] = { 0, 0, 3 };
    LC_MPI(MPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_C, MPI_DOUBLE, &types[T_SUBARRAY]));
    basic[T_SUBARRAY] = MPI_DOUBLE;
    MPI_Datatype v;
    LC_MPI(MPI_Type_vector(3, 2, 2, MPI_INT, &v)); /* stride == block: one run */
    LC_MPI(MPI_Type_contiguous(2, v, &types[T_DENSE]));
    LC_MPI(MPI_Type_free(&v));
    basic[T_DENSE] = MPI_INT;
    /* 1280-byte rows 1600 bytes apart: large blocks (CMA scatters into them) */
    LC_MPI(MPI_Type_vector(4, 160, 200, MPI_DOUBLE, &types[T_ROWS]));
    basic[T_ROWS] = MPI_DOUBLE;
    for (int i = 0; i < T_COUNT; i++) LC_MPI(MPI_Type_commit(&types[i]));
}

/* The memory count items of t span, and the offset of the buffer origin
 * in it (negative lower bounds). */
static void span_of(MPI_Datatype t, int count, size_t *span_p, size_t *origin_p)
{
    MPI_Aint lb, ext, tlb, text;
    LC_MPI(MPI_Type_get_extent(t, &lb, &ext));
    LC_MPI(MPI_Type_get_true_extent(t, &tlb, &text));
    MPI_Aint lo = tlb < 0 ? tlb : 0;
    MPI_Aint hi = count ? (MPI_Aint)(count - 1) * ext + tlb + text : 0;
    *origin_p = (size_t)-lo;
    *span_p = (size_t)(hi - lo) + 16;
}

static void fill(unsigned char *p, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 131u + (unsigned)seed * 17u + 1u);
}

/* What a receive of `count` items into a buffer of 0xee must leave:
 * sender's data at typemap positions, 0xee elsewhere. */
static void expected(MPI_Datatype t, int count, const unsigned char *sbuf, unsigned char *exp, size_t span,
                     size_t origin)
{
    int psize, pos = 0;
    LC_MPI(MPI_Pack_size(count, t, MPI_COMM_SELF, &psize));
    unsigned char *packed = lc_malloc((size_t)psize);
    LC_MPI(MPI_Pack(sbuf + origin, count, t, packed, psize, &pos, MPI_COMM_SELF));
    memset(exp, 0xee, span);
    int upos = 0;
    LC_MPI(MPI_Unpack(packed, pos, &upos, exp + origin, count, t, MPI_COMM_SELF));
    free(packed);
}

enum { M_SEND, M_SSEND, M_RSEND, M_BSEND, M_ISEND, M_PERSIST, M_SENDRECV, M_REPLACE, M_MPROBE, M_COUNT };
static const char *mname[M_COUNT] = { "Send",  "Ssend",   "Rsend",    "Bsend",
                                      "Isend", "persist", "Sendrecv", "Sendrecv_replace",
                                      "Mprobe" };

/* One message of count items of types[ti] from `me` (sender) to `peer`,
 * received as the same type or (as_basic) as basic elements. */
/* One message: its type and counts on both sides, and the buffers. */
typedef struct msg {
    int ti, count, mode, as_basic, peer, tag, rcount;
    MPI_Datatype t, rt;
    size_t span, origin, rspan, rorigin;
    unsigned char *sbuf, *rbuf, *exp, *pbuf; /* ours, received, expected, the peer's data */
} msg_t;

static void send_one(msg_t *m)
{
    void *b = m->sbuf + m->origin;
    int count = m->count, peer = m->peer, tag = m->tag;
    MPI_Datatype t = m->t;
    MPI_Request r;
    if (m->mode == M_RSEND) LC_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    switch (m->mode) {
    case M_SEND:
        LC_MPI(MPI_Send(b, count, t, peer, tag, MPI_COMM_WORLD));
        break;
    case M_SSEND:
        LC_MPI(MPI_Ssend(b, count, t, peer, tag, MPI_COMM_WORLD));
        break;
    case M_RSEND:
        LC_MPI(MPI_Rsend(b, count, t, peer, tag, MPI_COMM_WORLD));
        break;
    case M_BSEND: {
        int ps;
        LC_MPI(MPI_Pack_size(count, t, MPI_COMM_WORLD, &ps));
        int bsz = ps + MPI_BSEND_OVERHEAD;
        void *att = lc_malloc((size_t)bsz), *old;
        LC_MPI(MPI_Buffer_attach(att, bsz));
        LC_MPI(MPI_Bsend(b, count, t, peer, tag, MPI_COMM_WORLD));
        memset(m->sbuf, 0, m->span); /* Bsend copied: the buffer is ours again */
        LC_MPI(MPI_Buffer_detach(&old, &bsz));
        free(att);
        break;
    }
    case M_ISEND:
    case M_MPROBE:
        LC_MPI(MPI_Isend(b, count, t, peer, tag, MPI_COMM_WORLD, &r));
        LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        break;
    case M_PERSIST:
        LC_MPI(MPI_Send_init(b, count, t, peer, tag, MPI_COMM_WORLD, &r));
        for (int k = 0; k < 2; k++) {
            LC_MPI(MPI_Start(&r));
            LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        LC_MPI(MPI_Request_free(&r));
        break;
    }
}

/* What the receive must leave in rbuf (0xee where nothing arrives). */
static void expect_one(msg_t *m)
{
    m->rbuf = lc_malloc(m->rspan);
    m->exp = lc_malloc(m->rspan);
    memset(m->rbuf, 0xee, m->rspan);
    if (m->as_basic) {
        /* basic elements in typemap order: the sender's packed bytes */
        int ps, pos = 0;
        LC_MPI(MPI_Pack_size(m->count, m->t, MPI_COMM_SELF, &ps));
        memset(m->exp, 0xee, m->rspan);
        LC_MPI(MPI_Pack(m->pbuf + m->origin, m->count, m->t, m->exp + m->rorigin, ps, &pos, MPI_COMM_SELF));
    } else if (m->mode == M_REPLACE) {
        /* holes keep our own bytes; the typemap gets the peer's */
        memcpy(m->rbuf, m->sbuf, m->span);
        memcpy(m->exp, m->sbuf, m->span);
        int ps, pos = 0, upos = 0;
        LC_MPI(MPI_Pack_size(m->count, m->t, MPI_COMM_SELF, &ps));
        unsigned char *packed = lc_malloc((size_t)ps);
        LC_MPI(MPI_Pack(m->pbuf + m->origin, m->count, m->t, packed, ps, &pos, MPI_COMM_SELF));
        LC_MPI(MPI_Unpack(packed, pos, &upos, m->exp + m->origin, m->count, m->t, MPI_COMM_SELF));
        free(packed);
    } else {
        expected(m->t, m->count, m->pbuf, m->exp, m->span, m->origin);
    }
}

static void recv_one(msg_t *m, MPI_Status *st)
{
    void *rb = m->rbuf + m->rorigin;
    int rcount = m->rcount, peer = m->peer, tag = m->tag;
    MPI_Datatype rt = m->rt;
    MPI_Request r;
    MPI_Message msg;
    switch (m->mode) {
    case M_SEND:
    case M_SSEND:
    case M_BSEND:
        LC_MPI(MPI_Recv(rb, rcount, rt, peer, tag, MPI_COMM_WORLD, st));
        break;
    case M_RSEND:
        LC_MPI(MPI_Irecv(rb, rcount, rt, peer, tag, MPI_COMM_WORLD, &r));
        LC_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 99, MPI_COMM_WORLD));
        LC_MPI(MPI_Wait(&r, st));
        break;
    case M_ISEND:
        LC_MPI(MPI_Irecv(rb, rcount, rt, peer, tag, MPI_COMM_WORLD, &r));
        LC_MPI(MPI_Wait(&r, st));
        break;
    case M_PERSIST:
        LC_MPI(MPI_Recv_init(rb, rcount, rt, peer, tag, MPI_COMM_WORLD, &r));
        for (int k = 0; k < 2; k++) {
            if (k) memset(m->rbuf, 0xee, m->rspan);
            LC_MPI(MPI_Start(&r));
            LC_MPI(MPI_Wait(&r, st));
        }
        LC_MPI(MPI_Request_free(&r));
        break;
    case M_MPROBE:
        LC_MPI(MPI_Mprobe(peer, tag, MPI_COMM_WORLD, &msg, st));
        LC_MPI(MPI_Mrecv(rb, rcount, rt, &msg, st));
        break;
    case M_SENDRECV: /* both ranks send their own data and receive the peer's */
        LC_MPI(MPI_Sendrecv(m->sbuf + m->origin, m->count, m->t, peer, tag, rb, rcount, rt, peer, tag, MPI_COMM_WORLD,
                            st));
        break;
    case M_REPLACE:
        LC_MPI(MPI_Sendrecv_replace(rb, m->count, m->t, peer, tag, peer, tag, MPI_COMM_WORLD, st));
        break;
    }
}

static void check_one(const msg_t *m, const MPI_Status *st)
{
    int got;
    LC_MPI(MPI_Get_count(st, m->rt, &got));
    const char *how = m->as_basic ? " as basic" : "";
    LC_CHECK(got == m->rcount, "%s %s count %d%s: Get_count %d, expected %d", mname[m->mode], tname[m->ti], m->count,
             how, got, m->rcount);
    size_t bad = 0;
    while (bad < m->rspan && m->rbuf[bad] == m->exp[bad]) bad++;
    LC_CHECK(bad == m->rspan, "%s %s count %d%s: byte %zd of %zu is %#x, expected %#x", mname[m->mode], tname[m->ti],
             m->count, how, (ssize_t)bad - (ssize_t)m->rorigin, m->rspan, bad < m->rspan ? m->rbuf[bad] : 0,
             bad < m->rspan ? m->exp[bad] : 0);
}

/* One message of count items of types[ti] between rank and its peer,
 * received as the same type or (as_basic) as basic elements.  Even ranks
 * send; the exchanges (Sendrecv, Sendrecv_replace) go both ways. */
static void one(int ti, int count, int mode, int as_basic, int rank, int msgno)
{
    if (mode == M_REPLACE && as_basic) return; /* one buffer, one type */
    msg_t m = { .ti = ti, .count = count, .mode = mode, .as_basic = as_basic, .peer = rank ^ 1, .tag = 100 + mode };
    m.t = m.rt = types[ti];
    m.rcount = count;
    span_of(m.t, count, &m.span, &m.origin);
    m.rspan = m.span;
    m.rorigin = m.origin;
    if (as_basic) {
        int tsize, bsize;
        LC_MPI(MPI_Type_size(m.t, &tsize));
        LC_MPI(MPI_Type_size(basic[ti], &bsize));
        m.rt = basic[ti];
        m.rcount = (int)((long)count * tsize / bsize);
        span_of(m.rt, m.rcount, &m.rspan, &m.rorigin);
    }
    /* each side's data has its own seed */
    m.sbuf = lc_malloc(m.span);
    fill(m.sbuf, m.span, 2 * msgno + (rank & 1));
    int exchange = mode == M_SENDRECV || mode == M_REPLACE;
    if (!(rank & 1) && !exchange) {
        send_one(&m);
    } else {
        MPI_Status st;
        m.pbuf = lc_malloc(m.span);
        fill(m.pbuf, m.span, 2 * msgno + (m.peer & 1));
        expect_one(&m);
        recv_one(&m, &st);
        check_one(&m, &st);
    }
    free(m.sbuf);
    free(m.pbuf);
    free(m.rbuf);
    free(m.exp);
}

/* Counts: empty, one, a few, around the shm eager limit (8000 B), and
 * packed messages above 1 MiB. */
static int counts_for(int ti, int *c)
{
    int tsize;
    LC_MPI(MPI_Type_size(types[ti], &tsize));
    int n = 0;
    c[n++] = 0;
    c[n++] = 1;
    c[n++] = 3;
    c[n++] = 7900 / tsize;
    c[n++] = 8100 / tsize + 1;
    c[n++] = 70000 / tsize;
    c[n++] = (int)((1536L * 1024) / tsize);
    return n;
}

static void matrix(int rank, int size)
{
    if ((size & 1) && rank == size - 1) return;
    int msgno = 0;
    for (int ti = 0; ti < T_COUNT; ti++) {
        int c[8], nc = counts_for(ti, c);
        for (int k = 0; k < nc; k++)
            for (int mode = 0; mode < M_COUNT; mode++)
                for (int ab = 0; ab < 2; ab++) {
                    if (ab && basic[ti] == MPI_DATATYPE_NULL) continue;
                    /* the big messages once per mode, not twice */
                    if (ab && k == nc - 1 && mode != M_ISEND) continue;
                    /* MPICH 4.0.2 Bsends (and Sendrecv_replaces) a large struct message as
                     * its MPI_Pack_size bytes, an upper bound larger than the data: the
                     * receive of the same type is truncated */
                    if ((mode == M_BSEND || mode == M_REPLACE) && ti == T_STRUCT && lc_library_is_mpich()) continue;
                    one(ti, c[k], mode, ab, rank, ++msgno);
                }
    }
}

/* Every rank but 0 sends one vector message; rank 0 probes any source,
 * sizes the receive from Get_count and checks Get_elements. */
static void any_source(int rank, int size)
{
    MPI_Datatype t = types[T_VEC]; /* 8 ints an item, extent 44 B */
    if (rank) {
        int n = rank; /* rank items */
        size_t span, origin;
        span_of(t, n, &span, &origin);
        unsigned char *b = lc_malloc(span);
        fill(b, span, rank);
        LC_MPI(MPI_Send(b + origin, n, t, 0, 7, MPI_COMM_WORLD));
        free(b);
        return;
    }
    for (int k = 1; k < size; k++) {
        MPI_Status st;
        int n, el;
        LC_MPI(MPI_Probe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st));
        LC_MPI(MPI_Get_count(&st, t, &n));
        LC_MPI(MPI_Get_elements(&st, t, &el));
        LC_CHECK(n == st.MPI_SOURCE && el == 8 * n, "probe from %d: count %d elements %d", st.MPI_SOURCE, n, el);
        size_t span, origin;
        span_of(t, n, &span, &origin);
        unsigned char *b = lc_malloc(span), *e = lc_malloc(span), *s = lc_malloc(span);
        memset(b, 0xee, span);
        fill(s, span, st.MPI_SOURCE);
        expected(t, n, s, e, span, origin);
        LC_MPI(MPI_Recv(b + origin, n, t, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st));
        LC_CHECK(memcmp(b, e, span) == 0, "any-source vector message from %d differs", st.MPI_SOURCE);
        free(b);
        free(e);
        free(s);
    }
}

/* 5 ints into 2 items of 8 ints: Get_count undefined, Get_elements 5,
 * the 5 ints where the typemap puts them; 17 ints into 2 items: truncation. */
static void partial_and_truncate(int rank)
{
    if (rank > 1) return;
    MPI_Datatype t = types[T_VEC];
    int ints[17];
    for (int i = 0; i < 17; i++) ints[i] = 1000 + i;
    if (rank == 0) {
        LC_MPI(MPI_Send(ints, 5, MPI_INT, 1, 8, MPI_COMM_WORLD));
        LC_MPI(MPI_Send(ints, 17, MPI_INT, 1, 9, MPI_COMM_WORLD));
        return;
    }
    int buf[24], n, el; /* 2 items span 22 ints */
    MPI_Status st;
    for (int i = 0; i < 24; i++) buf[i] = -1;
    LC_MPI(MPI_Recv(buf, 2, t, 0, 8, MPI_COMM_WORLD, &st));
    LC_MPI(MPI_Get_count(&st, t, &n));
    LC_MPI(MPI_Get_elements(&st, t, &el));
    LC_CHECK(n == MPI_UNDEFINED && el == 5, "partial: count %d elements %d", n, el);
    /* vector(4,2,3): ints 0 1 3 4 6 7 9 10 of each 11-int extent */
    static const int want[12] = { 1000, 1001, -1, 1002, 1003, -1, 1004, -1, -1, -1, -1, -1 };
    LC_CHECK(memcmp(buf, want, sizeof(want)) == 0, "partial: layout %d %d %d %d %d %d %d", buf[0], buf[1], buf[2],
             buf[3], buf[4], buf[5], buf[6]);
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Recv(buf, 2, t, 0, 9, MPI_COMM_WORLD, &st);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_TRUNCATE, "17 ints into 2 vectors of 8: class %d, expected truncate",
             lc_class_of(rc));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    if (size < 2) LC_FATAL("dt_pt2pt needs at least 2 ranks");
    make_types();
    matrix(rank, size);
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    any_source(rank, size);
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    partial_and_truncate(rank);
    for (int i = 0; i < T_COUNT; i++) LC_MPI(MPI_Type_free(&types[i]));
    return lc_finish();
}
