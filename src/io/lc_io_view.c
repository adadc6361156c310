/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_io_view.c — file views: which bytes of the file the data seen
 * through (disp, etype, filetype) occupies, and typed reads and writes
 * through a view.
 *
 * The filetype is tiled from `disp`: tile i starts at disp + i * extent,
 * and its data bytes are where the filetype's typemap puts them.  View
 * data byte q is therefore byte q % size of tile q / size.  The datatype
 * layer's pack cursor, run over tiles "at address 0", hands out those
 * places as (offset, length) segments in typemap order: they are file
 * offsets relative to the first tile walked.  The standard requires the
 * filetype's displacements to be non-negative and monotonically
 * non-decreasing, so the segments come in file order.
 *
 * Accesses may be sieved: pieces close together are read as one span
 * into a buffer and copied out, or written as one span (read first and
 * patched, under a lock of the span, when there are holes)
 * (lc_io_ds_add/lc_io_ds_flush; docs/io.md, "Data sieving", gives the
 * rules).
 *
 * The memory side: a contiguous buffer is read or written in place; any
 * other buffer type is packed into (or unpacked from) a bounce buffer
 * of at most LC_IO_CHUNK bytes at a time.  With a data representation
 * other than native, whole items are converted to or from the file's
 * representation in a staging buffer (lc_io_access_conv).
 */
#include "io/lc_io.h"
#include "util/lc_error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define LC_IO_CHUNK ((size_t)4 << 20)
#define LC_IO_IOV 64

void lc_io_view_init(lc_io_view_t *v)
{
    v->esize = v->etype->size;
    v->fsize = v->ftype->size;
    v->fext = lc_dt_extent(v->ftype);
    v->contig = lc_dt_is_contig(v->ftype, 2);
}

typedef int lc_io_seg_fn_t(void *ctx, MPI_Offset off, size_t len);

/* Call fn for each file segment of view bytes [q, q + n), in order; a
 * non-zero return from fn stops the walk (and is returned if negative
 * or an MPI error: 1 means "stop, no error"). */
static int lc_io_view_walk(const lc_io_view_t *v, MPI_Offset q, MPI_Offset n, lc_io_seg_fn_t *fn, void *ctx)
{
    if (n <= 0) return MPI_SUCCESS;
    if (v->contig) {
        int r = fn(ctx, v->disp + v->ftype->true_lb + q, (size_t)n);
        return r == 1 ? MPI_SUCCESS : r;
    }
    MPI_Offset tile = q / v->fsize, skip = q % v->fsize;
    MPI_Offset last = (q + n - 1) / v->fsize;
    lc_dt_cursor_t cur;
    int rc = lc_dt_cursor_init(&cur, v->ftype, (MPI_Count)(last - tile + 1), NULL);
    if (rc) return rc;
    lc_dt_cursor_seek(&cur, skip);
    MPI_Offset base = v->disp + tile * v->fext;
    while (n > 0 && rc == MPI_SUCCESS) {
        struct iovec iov[LC_IO_IOV];
        int k = 0;
        size_t got = lc_dt_cursor_iov(&cur, iov, LC_IO_IOV, (size_t)n, &k);
        if (got == 0) break;
        for (int i = 0; i < k && rc == MPI_SUCCESS; i++)
            rc = fn(ctx, base + (MPI_Offset)(uintptr_t)iov[i].iov_base, iov[i].iov_len);
        n -= (MPI_Offset)got;
    }
    lc_dt_cursor_fini(&cur);
    return rc == 1 ? MPI_SUCCESS : rc;
}

static int lc_io_first_seg(void *ctx, MPI_Offset off, size_t len)
{
    (void)len;
    *(MPI_Offset *)ctx = off;
    return 1;
}

int lc_io_view_offset(const lc_io_view_t *v, MPI_Offset q, MPI_Offset *off_p)
{
    MPI_Offset off = v->disp;
    int rc = lc_io_view_walk(v, q, 1, lc_io_first_seg, &off);
    if (!rc) *off_p = off;
    return rc;
}

typedef struct {
    MPI_Offset limit, below;
} lc_io_below_t;

static int lc_io_count_below(void *ctx, MPI_Offset off, size_t len)
{
    lc_io_below_t *b = ctx;
    if (off >= b->limit) return 1;
    MPI_Offset end = off + (MPI_Offset)len;
    b->below += (end <= b->limit ? end : b->limit) - off;
    return 0;
}

int lc_io_view_data_below(const lc_io_view_t *v, MPI_Offset fsize, MPI_Offset *q_p)
{
    if (v->contig) {
        MPI_Offset q = fsize - v->disp - v->ftype->true_lb;
        *q_p = q > 0 ? q : 0;
        return MPI_SUCCESS;
    }
    if (fsize <= v->disp) {
        *q_p = 0;
        return MPI_SUCCESS;
    }
    /* Whole tiles, then the part of the last tile's data below fsize. */
    MPI_Offset full = (fsize - v->disp) / v->fext;
    lc_io_below_t b = { .limit = fsize, .below = 0 };
    int rc = lc_io_view_walk(v, full * v->fsize, v->fsize, lc_io_count_below, &b);
    if (!rc) *q_p = full * v->fsize + b.below;
    return rc;
}

typedef struct {
    lc_io_seg_t *s;
    size_t n, max;
} lc_io_seglist_t;

static int lc_io_add_seg(void *ctx, MPI_Offset off, size_t len)
{
    lc_io_seglist_t *l = ctx;
    if (l->n > 0 && l->s[l->n - 1].off + l->s[l->n - 1].len == off) {
        l->s[l->n - 1].len += (MPI_Offset)len;
        return MPI_SUCCESS;
    }
    if (l->n == l->max) {
        size_t max = l->max ? 2 * l->max : 64;
        lc_io_seg_t *s = realloc(l->s, max * sizeof *s);
        if (!s) return lc_error(MPI_ERR_NO_MEM, "out of memory for %zu file segments of a view", max);
        l->s = s;
        l->max = max;
    }
    l->s[l->n++] = (lc_io_seg_t){ .off = off, .len = (MPI_Offset)len };
    return MPI_SUCCESS;
}

int lc_io_view_segments(const lc_io_view_t *v, MPI_Offset q, MPI_Offset n, lc_io_seg_t **segs_p, size_t *nseg_p)
{
    lc_io_seglist_t l = { 0 };
    int rc = lc_io_view_walk(v, q, n, lc_io_add_seg, &l);
    if (rc) {
        free(l.s);
        return rc;
    }
    *segs_p = l.s;
    *nseg_p = l.n;
    return MPI_SUCCESS;
}

/* A piece of a read waiting for its span (data sieving). */
typedef struct {
    MPI_Offset off;
    size_t len;
    char *dst;
} lc_io_piece_t;

typedef struct {
    int fd;
    bool write, eof;
    bool atomic; /* the caller holds a whole-file lock (write sieving must not lock again) */
    char *p;     /* next memory byte */
    size_t done; /* bytes moved */
    /* Data sieving (reads; ds NULL: off).  Invariant: the pending pieces
     * lie in [pbeg, pend), pend - pbeg <= ds->cap, and their memory
     * places follow each other from the first one's dst (m->p is
     * already past them). */
    const lc_io_sieve_t *ds;
    lc_io_piece_t *pc;
    int np, npmax;
    MPI_Offset pbeg, pend;
    size_t want; /* bytes the pending pieces ask for */
    bool holes;  /* a pending piece starts beyond the end of the ones before it */
    char *sbuf;  /* the span buffer */
    size_t slen;
} lc_io_move_t;

/* Automatic mode: a piece more than this far beyond the pending ones
 * starts a new span (reading the hole would cost more than a call). */
#define LC_IO_DS_GAP ((MPI_Offset)64 << 10)
/* At most this many pieces per span (their list costs 24 bytes each). */
#define LC_IO_DS_PIECES 65536

static int lc_io_read_piece(lc_io_move_t *m, char *dst, size_t len, MPI_Offset off)
{
    size_t got = 0;
    int rc = lc_io_pread(m->fd, dst, len, off, &got);
    if (rc) return rc;
    m->done += got;
    if (got < len) {
        m->eof = true;
        return 1;
    }
    return MPI_SUCCESS;
}

/* One piece read or written on its own. */
static int lc_io_one_piece(lc_io_move_t *m, char *p, size_t len, MPI_Offset off)
{
    if (!m->write) return lc_io_read_piece(m, p, len, off);
    int rc = lc_io_pwrite(m->fd, p, len, off);
    if (!rc) m->done += len;
    return rc;
}

/* Grow the span buffer to `span` bytes; false when memory is short (the
 * caller then moves the pieces one by one). */
static bool lc_io_span_buf(lc_io_move_t *m, size_t span)
{
    if (m->slen >= span) return true;
    char *b = realloc(m->sbuf, span);
    if (!b) return false;
    m->sbuf = b;
    m->slen = span;
    return true;
}

/* Write sieving: the pending pieces as one span.  Without holes always
 * (no read is needed, only wanted bytes are written).  With holes only
 * when the user asked (romio_ds_write=enable) and the file is readable:
 * the span is read, patched and written back under an exclusive fcntl
 * lock of the span, which protects a concurrent writer's bytes in the
 * holes only when that writer locks too (sieving writers and two-phase
 * aggregators do; a rank writing its pieces one by one does not).  So
 * automatic mode never reads back: ranks writing interleaved pieces
 * independently lost each other's bytes when it did (io_twophase). */
static int lc_io_ds_flush_write(lc_io_move_t *m, int n)
{
    int rc = MPI_SUCCESS;
    size_t span = (size_t)(m->pend - m->pbeg);
    bool sieve = n >= 2 && (!m->holes || (m->ds->readable && m->ds->mode == LC_IO_DS_ENABLE)) &&
                 lc_io_span_buf(m, span);
    if (!sieve) {
        for (int i = 0; i < n && rc == MPI_SUCCESS; i++) rc = lc_io_one_piece(m, m->pc[i].dst, m->pc[i].len, m->pc[i].off);
        return rc;
    }
    bool locked = false;
    if (m->holes) {
        size_t got = 0;
        if (!m->atomic) {
            if ((rc = lc_io_lock(m->fd, m->pbeg, (MPI_Offset)span, true))) return rc;
            locked = true;
        }
        rc = lc_io_pread(m->fd, m->sbuf, span, m->pbeg, &got);
        if (!rc && got < span) memset(m->sbuf + got, 0, span - got); /* beyond the end of the file */
    }
    if (!rc) {
        for (int i = 0; i < n; i++) memcpy(m->sbuf + (m->pc[i].off - m->pbeg), m->pc[i].dst, m->pc[i].len);
        rc = lc_io_pwrite(m->fd, m->sbuf, span, m->pbeg);
    }
    if (locked) lc_io_unlock(m->fd, m->pbeg, (MPI_Offset)span);
    if (!rc) m->done += m->want;
    return rc;
}

/* Read the pending pieces: as one span copied out when they are dense
 * enough (automatic: wanted bytes >= 1/4 of the span; enable: always),
 * else one pread each.  1 at the end of the file (m->done counts the
 * bytes read up to there, as per-piece reads would). */
static int lc_io_ds_flush(lc_io_move_t *m)
{
    int n = m->np, rc = MPI_SUCCESS;
    m->np = 0;
    if (n == 0) return MPI_SUCCESS;
    if (m->write) return lc_io_ds_flush_write(m, n);
    size_t span = (size_t)(m->pend - m->pbeg);
    bool sieve = n >= 2 && (m->ds->mode == LC_IO_DS_ENABLE || m->want >= span / 4) && lc_io_span_buf(m, span);
    if (!sieve) {
        for (int i = 0; i < n && rc == MPI_SUCCESS; i++) rc = lc_io_read_piece(m, m->pc[i].dst, m->pc[i].len, m->pc[i].off);
        return rc;
    }
    size_t got = 0;
    if ((rc = lc_io_pread(m->fd, m->sbuf, span, m->pbeg, &got))) return rc;
    for (int i = 0; i < n; i++) {
        size_t at = (size_t)(m->pc[i].off - m->pbeg);
        size_t c = got > at ? got - at : 0;
        if (c > m->pc[i].len) c = m->pc[i].len;
        memcpy(m->pc[i].dst, m->sbuf + at, c);
        m->done += c;
        if (c < m->pc[i].len) {
            m->eof = true;
            return 1;
        }
    }
    return MPI_SUCCESS;
}

/* A piece under data sieving: joins the pending ones, or makes
 * them be read first when it does not fit their span. */
static int lc_io_ds_add(lc_io_move_t *m, MPI_Offset off, size_t len)
{
    int rc;
    size_t cap = m->ds->cap;
    if (m->np > 0 && (m->np == LC_IO_DS_PIECES || off < m->pbeg || (size_t)(off - m->pbeg) + len > cap ||
                      (m->ds->mode == LC_IO_DS_AUTO && off > m->pend + LC_IO_DS_GAP))) {
        if ((rc = lc_io_ds_flush(m))) return rc;
    }
    if (len >= cap) { /* a piece as large as the buffer: read in place, after the pending ones */
        if (m->np > 0 && (rc = lc_io_ds_flush(m))) return rc;
        rc = lc_io_one_piece(m, m->p, len, off);
        m->p += len;
        return rc;
    }
    if (m->np == m->npmax) {
        int nmax = m->npmax ? 2 * m->npmax : 64;
        lc_io_piece_t *pc = realloc(m->pc, (size_t)nmax * sizeof *pc);
        if (!pc) return lc_error(MPI_ERR_NO_MEM, "out of memory for %d pieces of a sieved read", nmax);
        m->pc = pc;
        m->npmax = nmax;
    }
    if (m->np == 0) {
        m->pbeg = m->pend = off;
        m->want = 0;
        m->holes = false;
    }
    if (off > m->pend) m->holes = true;
    m->pc[m->np++] = (lc_io_piece_t){ .off = off, .len = len, .dst = m->p };
    if (off + (MPI_Offset)len > m->pend) m->pend = off + (MPI_Offset)len;
    m->want += len;
    m->p += len;
    return MPI_SUCCESS;
}

static int lc_io_move(void *ctx, MPI_Offset off, size_t len)
{
    lc_io_move_t *m = ctx;
    int rc;
    if (m->ds) return lc_io_ds_add(m, off, len);
    if (m->write) {
        if ((rc = lc_io_pwrite(m->fd, m->p, len, off))) return rc;
        m->done += len;
        m->p += len;
        return MPI_SUCCESS;
    }
    size_t got = 0;
    if ((rc = lc_io_pread(m->fd, m->p, len, off, &got))) return rc;
    m->done += got;
    m->p += got;
    if (got < len) {
        m->eof = true;
        return 1;
    }
    return MPI_SUCCESS;
}

/* Move view bytes [q, q + n): the walk, then the sieved pieces still
 * pending (so that m->done is final when it returns). */
static int lc_io_walk_move(lc_io_move_t *m, const lc_io_view_t *v, MPI_Offset q, MPI_Offset n)
{
    int rc = lc_io_view_walk(v, q, n, lc_io_move, m);
    if (rc == MPI_SUCCESS && m->np > 0) rc = lc_io_ds_flush(m);
    m->np = 0;
    return rc == 1 ? MPI_SUCCESS : rc;
}

/* Through a conversion: whole items at a time, at most LC_IO_CHUNK file
 * bytes per step (at least one item), converted in a staging buffer. */
static int lc_io_access_conv(lc_io_move_t *m, const lc_io_view_t *v, MPI_Offset q, void *buf, MPI_Count count,
                             const lc_io_conv_t *conv, size_t *items_p)
{
    MPI_Count per =
        conv->item > 0 && (size_t)conv->item < LC_IO_CHUNK ? (MPI_Count)(LC_IO_CHUNK / (size_t)conv->item) : 1;
    if (per > count) per = count;
    char *stage = malloc((size_t)(per * conv->item));
    if (!stage)
        return lc_error(MPI_ERR_NO_MEM, "out of memory for a %lld-byte conversion buffer",
                        (long long)(per * conv->item));
    int rc = MPI_SUCCESS;
    MPI_Count i = 0;
    while (i < count && !m->eof) {
        MPI_Count n = count - i < per ? count - i : per;
        size_t len = (size_t)(n * conv->item);
        m->p = stage;
        if (m->write && (rc = conv->fn(conv->ctx, buf, i, n, stage, true))) break;
        size_t before = m->done;
        if ((rc = lc_io_walk_move(m, v, q + (MPI_Offset)i * conv->item, (MPI_Offset)len))) break;
        if (!m->write) { /* only the whole items read are converted (and count) */
            n = (MPI_Count)((m->done - before) / (size_t)conv->item);
            if (n && (rc = conv->fn(conv->ctx, buf, i, n, stage, false))) break;
        }
        i += n;
    }
    free(stage);
    *items_p = (size_t)i;
    return rc;
}

int lc_io_access(int fd, const lc_io_view_t *v, MPI_Offset q, void *buf, MPI_Count count, const lc_dt_t *mtype,
                 const lc_io_conv_t *conv, bool write, bool atomic, const lc_io_sieve_t *ds, size_t *done_p,
                 size_t *fdone_p)
{
    static const lc_io_sieve_t ds_rd = { .mode = LC_IO_DS_AUTO, .cap = LC_IO_DS_CAP };
    static const lc_io_sieve_t ds_wr = { .mode = LC_IO_DS_AUTO, .cap = LC_IO_DS_WR_CAP };
    if (!ds) ds = write ? &ds_wr : &ds_rd;
    size_t total = (size_t)count * (size_t)mtype->size;
    bool direct = lc_dt_is_contig(mtype, count);
    char *stage = NULL;
    int rc = MPI_SUCCESS;
    /* A contiguous view has one piece per step: nothing to sieve. */
    lc_io_move_t m = { .fd = fd, .write = write, .atomic = atomic,
                       .ds = v->contig || ds->mode == LC_IO_DS_DISABLE ? NULL : ds };
    size_t items = 0;
    if (total == 0) goto out;
    if (conv) {
        if (atomic && (rc = lc_io_lock(fd, 0, 0, write))) goto out;
        rc = lc_io_access_conv(&m, v, q, buf, count, conv, &items);
        if (atomic) lc_io_unlock(fd, 0, 0);
        goto out;
    }
    if (!direct && !(stage = malloc(total < LC_IO_CHUNK ? total : LC_IO_CHUNK)))
        return lc_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte I/O bounce buffer", LC_IO_CHUNK);
    /* Atomic mode (MPI 4.1 §14.6.1): the access holds a lock on the whole
     * file, so concurrent conflicting accesses are serialised. */
    if (atomic && (rc = lc_io_lock(fd, 0, 0, write))) goto out;
    for (size_t k = 0; k < total && !m.eof;) {
        size_t n = direct ? total : (total - k < LC_IO_CHUNK ? total - k : LC_IO_CHUNK);
        if (direct) {
            m.p = (char *)buf + mtype->true_lb + k;
        } else {
            m.p = stage;
            if (write && (rc = lc_dt_pack(mtype, count, buf, (MPI_Count)k, stage, n))) break;
        }
        size_t before = m.done;
        if ((rc = lc_io_walk_move(&m, v, q + (MPI_Offset)k, (MPI_Offset)n))) break;
        size_t moved = m.done - before;
        if (!direct && !write && moved && (rc = lc_dt_unpack(mtype, count, buf, (MPI_Count)k, stage, moved))) break;
        k += n;
    }
    if (atomic) lc_io_unlock(fd, 0, 0);
out:
    free(stage);
    free(m.pc);
    free(m.sbuf);
    if (!rc) {
        *done_p = conv ? items * (size_t)mtype->size : m.done;
        if (fdone_p) *fdone_p = conv ? items * (size_t)conv->item : m.done;
    }
    return rc;
}
