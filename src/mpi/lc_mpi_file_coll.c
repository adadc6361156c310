/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_file_coll.c — two-phase collective buffering for the collective
 * data accesses (_all, _at_all, their split and nonblocking forms; all
 * come through lc_file_rw).  docs/io.md, "Two-phase collective I/O".
 *
 * 1. Every rank flattens its access into file segments (lc_io_view_segments)
 *    and the ranks allgather (ok, first byte, end, #segments, overlap, leader).
 * 2. Automatic mode (romio_cb_write / romio_cb_read = "automatic"): when
 *    every rank's access is one contiguous run and no two runs overlap,
 *    or the segments are 64 KiB or more on average, the ranks go
 *    independent (nothing to gain); otherwise two-phase.
 * 3. Aggregators: `cb_nodes` of them (default: one per set of co-resident
 *    ranks, lc_file_cb_leader), picked round-robin over those sets, in
 *    rank order.  The file range [lo, hi) touched by the access is cut
 *    into one contiguous file domain per aggregator, the cuts aligned to
 *    the striping unit (hint "striping_unit", default 1 MiB) when the
 *    domains are at least that large.
 * 4. Each domain is processed in windows of cb_buffer_size bytes, one
 *    window per aggregator per round.  A rank cuts its segments at the
 *    domain and window boundaries into pieces; it sends every aggregator
 *    the (offset, length) list of its pieces once (alltoallw), so both
 *    sides know which bytes move in every round without more metadata.
 *    Because a rank's segments come in file order and do not overlap (a
 *    view whose segments overlap goes independent), the data of one
 *    (aggregator, window) pair is one contiguous run of the rank's data
 *    stream: the data exchange of a round is one alltoallw straight from
 *    (writes) or into (reads) the stream buffer.
 * 5. Writes: the aggregator copies the pieces into its window buffer;
 *    when they do not cover [first, end) of the window, it locks that
 *    range (fcntl, exclusive), reads it first and writes it back whole
 *    (read-modify-write: the holes keep what the file had; a write-only
 *    file: one pwrite per run of adjacent pieces instead), else it
 *    writes it with one pwrite.  Reads: one pread of [first, end), the
 *    pieces copied out to their ranks.
 * An I/O error on an aggregator does not stop the rounds (the others
 * would wait): it skips its I/O and the caller's agreement reports it.
 * Atomic mode goes independent (its whole-file lock already serialises).
 */
#include "coll/lc_coll.h"
#include "mpi/lc_mpi_file.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LC_CB_ALIGN ((MPI_Offset)1 << 20)
#define LC_CB_BUFFER ((MPI_Offset)16 << 20)
/* Automatic mode: segments at least this long on average are accessed
 * independently even when the ranks interleave (one pwrite/pread per
 * 64 KiB or more runs near the file system's bandwidth; two-phase would
 * add two copies and a serial aggregator). */
#define LC_CB_SMALL ((MPI_Offset)64 << 10)

int lc_file_cb_leader(const lc_comm_t *c)
{
    for (int r = 0; r < c->rank; r++) {
        lc_channel_kind_t kind = c->peers[r]->kind;
        if (kind == LC_CHANNEL_SELF || kind == LC_CHANNEL_SHM) return r;
    }
    return c->rank;
}

/* What each rank tells the others before a collective access. */
typedef struct {
    int64_t ok;      /* arguments fine and the segments computed */
    int64_t lo, hi;  /* file range touched (lo == hi: nothing) */
    int64_t nseg;    /* file segments after merging */
    int64_t overlap; /* two segments of this rank overlap (a read view may) */
    int64_t leader;  /* lc_file_cb_leader */
    int64_t bytes;   /* file bytes accessed */
} lc_cb_info_t;

/* One piece of a rank's access: within one window of one domain. */
typedef struct {
    MPI_Offset off, len;
} lc_cb_piece_t;

typedef struct {
    lc_file_t *f;
    lc_comm_t *c;
    bool write;
    int P, naggs, myagg;
    int *aggr;             /* [naggs]: comm rank of aggregator a */
    MPI_Offset *D;         /* [naggs + 1]: domain a is [D[a], D[a + 1]) */
    MPI_Offset cb;         /* window size */
    /* This rank's pieces in stream (= file) order, grouped by aggregator. */
    lc_cb_piece_t *pc;
    MPI_Offset *spos;      /* [npc]: stream position of each piece */
    size_t npc, maxpc;
    size_t *pfirst, *pidx; /* [naggs + 1], [naggs] */
    /* Aggregator: the pieces of every source, and cursors. */
    lc_cb_piece_t *apc;
    size_t *afirst, *aidx; /* [P + 1], [P] */
    char *wbuf, *xbuf;
    size_t xlen;
    size_t *sbytes, *rbytes;
    ptrdiff_t *soff, *roff;
} lc_cb_t;

static MPI_Offset lc_cb_window(const lc_cb_t *p, int a, MPI_Offset off)
{
    return (off - p->D[a]) / p->cb;
}

static int lc_cb_push(lc_cb_t *p, MPI_Offset off, MPI_Offset len, MPI_Offset spos)
{
    if (p->npc == p->maxpc) {
        size_t max = p->maxpc ? 2 * p->maxpc : 256;
        lc_cb_piece_t *pc = realloc(p->pc, max * sizeof *pc);
        if (pc) p->pc = pc;
        MPI_Offset *sp = pc ? realloc(p->spos, max * sizeof *sp) : NULL;
        if (sp) p->spos = sp;
        if (!pc || !sp) return lc_error(MPI_ERR_NO_MEM, "out of memory for %zu pieces of a collective access", max);
        p->maxpc = max;
    }
    p->pc[p->npc] = (lc_cb_piece_t){ off, len };
    p->spos[p->npc++] = spos;
    return MPI_SUCCESS;
}

/* Cut the segments at domain and window boundaries (segments are in
 * file order and do not overlap, so the aggregator index never goes
 * back). */
static int lc_cb_cut(lc_cb_t *p, const lc_io_seg_t *seg, size_t nseg)
{
    int a = 0, rc = MPI_SUCCESS;
    MPI_Offset sp = 0;
    for (size_t i = 0; i < nseg && !rc; i++) {
        MPI_Offset off = seg[i].off, len = seg[i].len;
        while (len > 0 && !rc) {
            while (off >= p->D[a + 1]) a++;
            MPI_Offset end = p->D[a] + (lc_cb_window(p, a, off) + 1) * p->cb;
            if (end > p->D[a + 1]) end = p->D[a + 1];
            MPI_Offset l = end - off < len ? end - off : len;
            rc = lc_cb_push(p, off, l, sp);
            p->pfirst[a + 1]++;
            off += l;
            len -= l;
            sp += l;
        }
    }
    for (int a2 = 0; a2 < p->naggs; a2++) p->pfirst[a2 + 1] += p->pfirst[a2];
    return rc;
}

/* The aggregators: k of them, round-robin over the sets of co-resident
 * ranks (set = same leader), then sorted by rank. */
static void lc_cb_pick(lc_cb_t *p, const lc_cb_info_t *info, int k, int *aggr)
{
    int P = p->P, n = 0;
    for (int pass = 0; n < k; pass++) {
        for (int lead = 0; lead < P && n < k; lead++) {
            if (info[lead].leader != lead) continue;
            int seen = 0; /* the pass-th member of lead's set */
            for (int r = lead; r < P; r++)
                if (info[r].leader == lead && seen++ == pass) {
                    aggr[n++] = r;
                    break;
                }
        }
    }
    /* insertion sort: k <= P is small */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && aggr[j - 1] > aggr[j]; j--) {
            int t = aggr[j];
            aggr[j] = aggr[j - 1];
            aggr[j - 1] = t;
        }
}

static int lc_cb_piece_cmp(const void *x, const void *y)
{
    const lc_cb_piece_t *a = x, *b = y;
    return a->off < b->off ? -1 : a->off > b->off;
}

/* The aggregator's part of round r: which pieces of each source fall in
 * window r of its domain (counts into the exchange arrays; `xoff` is
 * where each source's bytes go in xbuf), and the range they touch. */
static int lc_cb_agg_plan(lc_cb_t *p, MPI_Offset r, size_t *xtotal_p, MPI_Offset *lo_p, MPI_Offset *hi_p)
{
    size_t *bytes = p->write ? p->rbytes : p->sbytes;
    ptrdiff_t *offs = p->write ? p->roff : p->soff;
    size_t x = 0;
    MPI_Offset lo = INT64_MAX, hi = 0;
    for (int s = 0; s < p->P; s++) {
        size_t k = p->aidx[s], b = 0;
        for (; k < p->afirst[s + 1] && lc_cb_window(p, p->myagg, p->apc[k].off) == r; k++) {
            b += (size_t)p->apc[k].len;
            if (p->apc[k].off < lo) lo = p->apc[k].off;
            if (p->apc[k].off + p->apc[k].len > hi) hi = p->apc[k].off + p->apc[k].len;
        }
        bytes[s] = b;
        offs[s] = (ptrdiff_t)x;
        x += b;
    }
    if (x > p->xlen) {
        char *nb = realloc(p->xbuf, x);
        if (!nb) return lc_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte collective buffer", x);
        p->xbuf = nb;
        p->xlen = x;
    }
    *xtotal_p = x;
    *lo_p = lo;
    *hi_p = hi;
    return MPI_SUCCESS;
}

/* Copy between xbuf (each source's pieces in a row) and the window
 * buffer holding [lo, ...); advances the cursors past round r. */
static void lc_cb_agg_copy(lc_cb_t *p, MPI_Offset r, MPI_Offset lo, bool into_window, bool skip)
{
    for (int s = 0; s < p->P; s++) {
        char *x = p->xbuf + (p->write ? p->roff[s] : p->soff[s]);
        size_t k = p->aidx[s];
        for (; k < p->afirst[s + 1] && lc_cb_window(p, p->myagg, p->apc[k].off) == r; k++) {
            char *w = p->wbuf + (p->apc[k].off - lo);
            if (skip) continue;
            if (into_window)
                memcpy(w, x, (size_t)p->apc[k].len);
            else
                memcpy(x, w, (size_t)p->apc[k].len);
            x += p->apc[k].len;
        }
        p->aidx[s] = k;
    }
}

/* The pieces of round r from every source, sorted by offset (*v_p
 * malloc'd). */
static int lc_cb_sorted(lc_cb_t *p, MPI_Offset r, lc_cb_piece_t **v_p, size_t *n_p)
{
    size_t n = 0;
    for (int s = 0; s < p->P; s++)
        for (size_t k = p->aidx[s]; k < p->afirst[s + 1] && lc_cb_window(p, p->myagg, p->apc[k].off) == r; k++) n++;
    lc_cb_piece_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return lc_error(MPI_ERR_NO_MEM, "out of memory sorting %zu pieces of a collective write", n);
    n = 0;
    for (int s = 0; s < p->P; s++)
        for (size_t k = p->aidx[s]; k < p->afirst[s + 1] && lc_cb_window(p, p->myagg, p->apc[k].off) == r; k++)
            v[n++] = p->apc[k];
    qsort(v, n, sizeof *v, lc_cb_piece_cmp);
    *v_p = v;
    *n_p = n;
    return MPI_SUCCESS;
}

/* Window I/O of the aggregator for round r (rc: an earlier error: skip
 * the file, keep the cursors moving). */
static int lc_cb_agg_write(lc_cb_t *p, MPI_Offset r, MPI_Offset lo, MPI_Offset hi, int rc)
{
    if (hi <= lo) return rc;
    size_t len = (size_t)(hi - lo), n = 0;
    lc_cb_piece_t *v = NULL;
    bool covered = true, locked = false;
    if (!rc) rc = lc_cb_sorted(p, r, &v, &n);
    MPI_Offset cur = lo;
    for (size_t i = 0; !rc && i < n; i++) {
        if (v[i].off > cur) covered = false;
        if (v[i].off + v[i].len > cur) cur = v[i].off + v[i].len;
    }
    bool readable = !(p->f->amode & MPI_MODE_WRONLY);
    if (!rc && !covered && readable) {
        /* Read-modify-write: the holes keep the file's bytes; the lock
         * keeps another writer's bytes in them from being overwritten
         * with what we read (the rule of write sieving). */
        size_t got = 0;
        rc = lc_io_lock(p->f->fd, lo, hi - lo, true);
        locked = !rc;
        if (!rc) rc = lc_io_pread(p->f->fd, p->wbuf, len, lo, &got);
        if (!rc && got < len) memset(p->wbuf + got, 0, len - got);
    }
    lc_cb_agg_copy(p, r, lo, true, rc != MPI_SUCCESS);
    if (!rc && (covered || readable)) {
        rc = lc_io_pwrite(p->f->fd, p->wbuf, len, lo);
    } else if (!rc) {
        /* A write-only file cannot be read: one pwrite per run of
         * adjacent pieces, the holes untouched. */
        for (size_t i = 0; !rc && i < n;) {
            MPI_Offset b = v[i].off, e = v[i].off + v[i].len;
            for (i++; i < n && v[i].off <= e; i++)
                if (v[i].off + v[i].len > e) e = v[i].off + v[i].len;
            rc = lc_io_pwrite(p->f->fd, p->wbuf + (b - lo), (size_t)(e - b), b);
        }
    }
    if (locked) lc_io_unlock(p->f->fd, lo, hi - lo);
    free(v);
    return rc;
}

static int lc_cb_agg_read(lc_cb_t *p, MPI_Offset r, MPI_Offset lo, MPI_Offset hi, int rc)
{
    if (hi <= lo) return rc;
    size_t len = (size_t)(hi - lo), got = 0;
    if (!rc) rc = lc_io_pread(p->f->fd, p->wbuf, len, lo, &got);
    if (!rc && got < len) memset(p->wbuf + got, 0, len - got); /* beyond the end: the ranks count only what is below */
    lc_cb_agg_copy(p, r, lo, false, rc != MPI_SUCCESS);
    return rc;
}

/* This rank as a source in round r: the run of its stream that goes to
 * (comes from) each aggregator. */
static void lc_cb_src_plan(lc_cb_t *p, MPI_Offset r)
{
    size_t *bytes = p->write ? p->sbytes : p->rbytes;
    ptrdiff_t *offs = p->write ? p->soff : p->roff;
    for (int a = 0; a < p->naggs; a++) {
        size_t k = p->pidx[a], b = 0;
        if (k < p->pfirst[a + 1]) offs[p->aggr[a]] = (ptrdiff_t)p->spos[k];
        for (; k < p->pfirst[a + 1] && lc_cb_window(p, a, p->pc[k].off) == r; k++) b += (size_t)p->pc[k].len;
        bytes[p->aggr[a]] = b;
        p->pidx[a] = k;
    }
}

/* The rounds.  `data`: this rank's stream (file bytes of its access, in
 * order). */
static int lc_cb_rounds(lc_cb_t *p, char *data)
{
    int P = p->P, rc = MPI_SUCCESS;
    MPI_Offset nround = 0;
    for (int a = 0; a < p->naggs; a++) {
        MPI_Offset n = (p->D[a + 1] - p->D[a] + p->cb - 1) / p->cb;
        if (n > nround) nround = n;
    }
    static char dummy;
    if (!data) data = &dummy;
    for (MPI_Offset r = 0; r < nround; r++) {
        for (int i = 0; i < P; i++) p->sbytes[i] = p->rbytes[i] = 0, p->soff[i] = p->roff[i] = 0;
        lc_cb_src_plan(p, r);
        size_t xtotal = 0;
        MPI_Offset lo = 0, hi = 0;
        if (p->myagg >= 0) {
            int prc = lc_cb_agg_plan(p, r, &xtotal, &lo, &hi);
            if (prc) { /* cannot take part in the exchange safely: receive nothing, report */
                for (int i = 0; i < P; i++) p->rbytes[i] = p->sbytes[i] = 0;
                if (!rc) rc = prc;
            }
        }
        char *xb = p->xbuf ? p->xbuf : &dummy;
        int crc;
        if (p->write) {
            crc = lc_coll_alltoallw(data, p->sbytes, p->soff, xb, p->rbytes, p->roff, p->c);
            if (crc) return crc;
            if (p->myagg >= 0) rc = lc_cb_agg_write(p, r, lo, hi, rc);
        } else {
            if (p->myagg >= 0) rc = lc_cb_agg_read(p, r, lo, hi, rc);
            crc = lc_coll_alltoallw(xb, p->sbytes, p->soff, data, p->rbytes, p->roff, p->c);
            if (crc) return crc;
        }
    }
    return rc;
}

/* Send every aggregator the list of this rank's pieces in its domain. */
static int lc_cb_exchange_lists(lc_cb_t *p)
{
    int P = p->P;
    int64_t *scnt = calloc((size_t)P * 2, sizeof *scnt);
    if (!scnt) return lc_error(MPI_ERR_NO_MEM, "out of memory for a collective access");
    int64_t *rcnt = scnt + P;
    for (int a = 0; a < p->naggs; a++) scnt[p->aggr[a]] = (int64_t)(p->pfirst[a + 1] - p->pfirst[a]);
    int rc = lc_coll_alltoall(scnt, 1, MPI_INT64_T, rcnt, 1, MPI_INT64_T, p->c);
    if (rc) goto out;
    for (int i = 0; i < P; i++) p->sbytes[i] = p->rbytes[i] = 0, p->soff[i] = p->roff[i] = 0;
    for (int a = 0; a < p->naggs; a++) {
        p->sbytes[p->aggr[a]] = (size_t)scnt[p->aggr[a]] * sizeof(lc_cb_piece_t);
        p->soff[p->aggr[a]] = (ptrdiff_t)(p->pfirst[a] * sizeof(lc_cb_piece_t));
    }
    size_t total = 0;
    p->afirst[0] = 0;
    for (int s = 0; s < P; s++) {
        p->rbytes[s] = (size_t)rcnt[s] * sizeof(lc_cb_piece_t);
        p->roff[s] = (ptrdiff_t)(total * sizeof(lc_cb_piece_t));
        total += (size_t)rcnt[s];
        p->afirst[s + 1] = total;
        p->aidx[s] = p->afirst[s];
    }
    /* An aggregator out of memory here would leave the others waiting:
     * the list is small (16 bytes a piece); fail the job's way instead. */
    p->apc = malloc((total ? total : 1) * sizeof *p->apc);
    static lc_cb_piece_t none;
    if (!p->apc) {
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory for %zu pieces of a collective access", total);
        for (int s = 0; s < P; s++) p->rbytes[s] = 0;
    }
    int crc = lc_coll_alltoallw(p->pc ? (void *)p->pc : &none, p->sbytes, p->soff, p->apc ? (void *)p->apc : &none,
                                p->rbytes, p->roff, p->c);
    if (!rc) rc = crc;
out:
    free(scnt);
    return rc;
}

static void lc_cb_free(lc_cb_t *p)
{
    free(p->aggr);
    free(p->D);
    free(p->pc);
    free(p->spos);
    free(p->pfirst);
    free(p->pidx);
    free(p->apc);
    free(p->afirst);
    free(p->aidx);
    free(p->wbuf);
    free(p->xbuf);
    free(p->sbytes);
    free(p->rbytes);
    free(p->soff);
    free(p->roff);
}

/* Domains: [lo, hi) in naggs contiguous parts, the cuts on multiples of
 * `unit` when a part is at least that large. */
static void lc_cb_domains(lc_cb_t *p, MPI_Offset lo, MPI_Offset hi, MPI_Offset unit)
{
    int n = p->naggs;
    MPI_Offset per = (hi - lo + n - 1) / n;
    p->D[0] = lo;
    for (int a = 1; a < n; a++) {
        MPI_Offset d = lo + a * per;
        if (per >= unit) d = (d + unit / 2) / unit * unit;
        if (d < p->D[a - 1]) d = p->D[a - 1];
        if (d > hi) d = hi;
        p->D[a] = d;
    }
    p->D[n] = hi;
}

int lc_file_coll_access(lc_file_t *f, int rc, MPI_Offset pos, const void *buf, MPI_Count count, MPI_Datatype dt,
                        bool write, size_t *bytes_p, MPI_Offset *etypes_p, bool *done_p)
{
    *done_p = false;
    /* Same hints and atomicity on every rank (MPI 4.1 §14.2.8, §14.6.1):
     * these tests need no communication. */
    const char *mode = lc_info_get(f->hints, write ? "romio_cb_write" : "romio_cb_read");
    if (f->atomic || (mode && !strcmp(mode, "disable"))) return rc;
    bool force = mode && !strcmp(mode, "enable");

    lc_comm_t *c = f->comm;
    int P = c->size;
    lc_cb_t p = { .f = f, .c = c, .write = write, .P = P, .myagg = -1 };
    lc_dt_t *t = NULL;
    MPI_Count item = 0;
    lc_io_seg_t *seg = NULL;
    size_t nseg = 0;
    MPI_Offset nbytes = 0, q = pos * f->view.esize;
    lc_cb_info_t me = { .ok = 0, .leader = lc_file_cb_leader(c) };
    if (!rc) rc = lc_file_access_check(f, buf, count, dt, &t, &item);
    if (!rc) {
        nbytes = (MPI_Offset)count * item;
        rc = lc_io_view_segments(&f->view, q, nbytes, &seg, &nseg);
    }
    if (!rc) {
        me.ok = 1;
        me.nseg = (int64_t)nseg;
        me.bytes = nbytes;
        if (nseg) {
            me.lo = seg[0].off;
            me.hi = seg[nseg - 1].off + seg[nseg - 1].len;
        }
        for (size_t i = 1; i < nseg; i++)
            if (seg[i].off < seg[i - 1].off + seg[i - 1].len) me.overlap = 1;
    }
    lc_cb_info_t *info = malloc((size_t)P * sizeof *info);
    int crc = info ? MPI_SUCCESS : lc_error(MPI_ERR_NO_MEM, "out of memory for a collective access");
    /* Everyone must take part in the allgather; a rank without the memory
     * for it cannot, which is the one hang left (malloc of P * 48 bytes). */
    if (!crc) crc = lc_coll_allgather(&me, sizeof me, MPI_BYTE, info, sizeof me, MPI_BYTE, c);
    if (crc) {
        free(seg);
        free(info);
        return rc ? rc : crc;
    }
    bool all_ok = true, two_phase = false, any = false;
    MPI_Offset glo = INT64_MAX, ghi = 0, tbytes = 0, tseg = 0;
    for (int i = 0; i < P; i++) {
        if (!info[i].ok || info[i].overlap) all_ok = false;
        if (info[i].nseg > 1) two_phase = true;
        tbytes += info[i].bytes;
        tseg += info[i].nseg;
        if (info[i].nseg == 0) continue;
        any = true;
        if (info[i].lo < glo) glo = info[i].lo;
        if (info[i].hi > ghi) ghi = info[i].hi;
        /* interleaved: another rank's run overlaps this one */
        for (int j = 0; j < i && !two_phase; j++)
            if (info[j].nseg && info[j].lo < info[i].hi && info[i].lo < info[j].hi) two_phase = true;
    }
    if (two_phase && tseg > 0 && tbytes / tseg >= LC_CB_SMALL) two_phase = false;
    if (force) two_phase = true;
    if (!all_ok || !two_phase) {
        free(seg);
        free(info);
        return rc;
    }
    *done_p = true;
    char *stage = NULL, *data = NULL;
    MPI_Offset fsize = 0;
    if (!any) goto done;

    /* Aggregators and domains. */
    long long nodes = lc_file_hint_num(f, "cb_nodes");
    int k = 0;
    for (int i = 0; i < P; i++) k += info[i].leader == i; /* default: one per set of co-resident ranks */
    if (nodes > 0) k = nodes < P ? (int)nodes : P;
    p.naggs = k;
    p.cb = lc_file_hint_num(f, "cb_buffer_size");
    if (p.cb <= 0) p.cb = LC_CB_BUFFER;
    MPI_Offset unit = lc_file_hint_num(f, "striping_unit");
    if (unit <= 0) unit = LC_CB_ALIGN;
    p.aggr = malloc((size_t)k * sizeof *p.aggr);
    p.D = malloc((size_t)(k + 1) * sizeof *p.D);
    p.pfirst = calloc((size_t)k + 1, sizeof *p.pfirst);
    p.pidx = malloc((size_t)k * sizeof *p.pidx);
    p.afirst = malloc((size_t)(P + 1) * sizeof *p.afirst);
    p.aidx = malloc((size_t)P * sizeof *p.aidx);
    p.sbytes = malloc((size_t)P * sizeof *p.sbytes);
    p.rbytes = malloc((size_t)P * sizeof *p.rbytes);
    p.soff = malloc((size_t)P * sizeof *p.soff);
    p.roff = malloc((size_t)P * sizeof *p.roff);
    if (!p.aggr || !p.D || !p.pfirst || !p.pidx || !p.afirst || !p.aidx || !p.sbytes || !p.rbytes || !p.soff ||
        !p.roff) {
        /* Small arrays (P entries); failing here would hang the others. */
        lc_cb_free(&p);
        free(seg);
        free(info);
        return lc_error(MPI_ERR_NO_MEM, "out of memory for a collective access");
    }
    lc_cb_pick(&p, info, k, p.aggr);
    for (int a = 0; a < k; a++)
        if (p.aggr[a] == c->rank) p.myagg = a;
    lc_cb_domains(&p, glo, ghi, unit);
    rc = lc_cb_cut(&p, seg, nseg);
    for (int a = 0; a < k; a++) p.pidx[a] = p.pfirst[a];
    if (p.myagg >= 0 && !rc) {
        MPI_Offset dl = p.D[p.myagg + 1] - p.D[p.myagg];
        size_t wl = (size_t)(dl < p.cb ? dl : p.cb);
        if (wl && !(p.wbuf = malloc(wl)))
            rc = lc_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte collective buffer (cb_buffer_size)", wl);
    }

    /* The stream: the file bytes of this rank's access. */
    lc_file_conv_t fc = { .rep = f->rep, .t = t, .handle = dt };
    /* A contiguous buffer takes the data in place, except for a read that
     * reaches past the end of the file: the aggregators send the part
     * beyond it as zeros, and the user's bytes there must stay as they
     * were (MPICH test io/rd_end); the staging buffer takes those. */
    if (!write && !rc) rc = lc_io_get_size(f->fd, &fsize);
    bool past_end = false;
    for (size_t i = 0; !write && i < nseg && !past_end; i++) past_end = seg[i].off + seg[i].len > fsize;
    bool direct = !f->rep && lc_dt_is_contig(t, count) && !past_end;
    if (nbytes > 0 && !rc) {
        if (direct) {
            data = (char *)buf + t->true_lb;
        } else if (!(stage = malloc((size_t)nbytes))) {
            rc = lc_error(MPI_ERR_NO_MEM, "out of memory for a %lld-byte collective staging buffer",
                          (long long)nbytes);
        } else {
            data = stage;
        }
    }
    if (write && data && !direct) {
        if (f->rep)
            rc = lc_file_rep_convert(&fc, (void *)buf, 0, count, stage, true);
        else
            rc = lc_dt_pack(t, count, buf, 0, stage, (size_t)nbytes);
    }
    if (rc) { /* this rank sends and receives nothing, but takes part */
        data = NULL;
        p.npc = 0;
        for (int a = 0; a <= k; a++) p.pfirst[a] = 0;
        for (int a = 0; a < k; a++) p.pidx[a] = 0;
    }
    crc = lc_cb_exchange_lists(&p);
    if (crc && !rc) rc = crc;
    if (p.myagg >= 0 && !p.apc) { /* nothing to aggregate (out of memory: reported) */
        p.afirst[P] = 0;
        for (int s = 0; s < P; s++) p.afirst[s] = p.aidx[s] = 0;
    }
    crc = lc_cb_rounds(&p, data);
    if (crc && !rc) rc = crc;
    if (rc) goto done;

    size_t fdone = (size_t)nbytes;
    if (!write) { /* what per-piece reads would give: up to the first piece cut by the end of file */
        fdone = 0;
        for (size_t i = 0; i < nseg; i++) {
            MPI_Offset l = seg[i].off >= fsize ? 0 : fsize - seg[i].off;
            if (l > seg[i].len) l = seg[i].len;
            fdone += (size_t)l;
            if (l < seg[i].len) break;
        }
    }
    if (f->rep) {
        MPI_Count items = item ? (MPI_Count)fdone / item : 0;
        if (!write && items) rc = lc_file_rep_convert(&fc, (void *)buf, 0, items, stage, false);
        fdone = (size_t)(items * item);
        *bytes_p = (size_t)items * (size_t)t->size;
    } else {
        if (!write && !direct && fdone) rc = lc_dt_unpack(t, count, (void *)buf, 0, stage, fdone);
        *bytes_p = fdone;
    }
    *etypes_p = (MPI_Offset)fdone / f->view.esize;
    goto out;
done:
    if (!rc) {
        *bytes_p = 0;
        *etypes_p = 0;
    }
out:
    lc_cb_free(&p);
    free(stage);
    free(seg);
    free(info);
    return rc;
}
