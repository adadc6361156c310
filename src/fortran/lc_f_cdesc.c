/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_f_cdesc.c — choice buffers of mpi_f08's specific procedures
 * (mpi_xxx_f08ts_, generated into mpich_f08.f90 by scripts/gen_fortran.py).
 *
 * Those buffers are TYPE(*), DIMENSION(..): the generated Fortran tests
 * the contiguous case itself (lc_f08ts_get) and passes anything else on
 * to lc_f08ts_buf, a BIND(C) procedure, so it arrives here as a TS 29113
 * C descriptor (CFI_cdesc_t).  The buffer MPI sees is the sequence of the
 * array's elements in array element order, as if contiguous, with COUNT x
 * DATATYPE laid over it (MPI 4.1 §19.1.12); displacements of the
 * v-collectives are in units of the datatype's extent over that sequence.
 *
 *   - contiguous (or a scalar, or a sentinel such as MPI_BOTTOM): the
 *     address itself, count and datatype unchanged (LC_F08TS_ASIS);
 *   - a section with a datatype of its own: a datatype (LC_F08TS_TYPE),
 *     no copy, so a nonblocking call needs nothing at its completion:
 *       - one strided dimension, positive stride, a datatype whose extent
 *         is the element size: `datatype` resized to the stride;
 *       - one strided dimension, positive stride, an extent of k whole
 *         elements (a derived type of 3 REALs over a REAL section): one
 *         item moved element by element, resized to k strides
 *         (lc_mpi_type_section in libmpi, "linear").  Both keep COUNT and
 *         hold however the call indexes the buffer (a gather's rank j at
 *         j * count items, a Gatherv's displs[j] items);
 *       - otherwise (2-D sections, negative strides, extents that are no
 *         multiple of the element), where the call reads COUNT items from
 *         the start: all COUNT items moved element by element, count 1;
 *   - the rest (a 2-D section where the count is per rank, a buffer that
 *     shares its datatype with another, as the reductions' two, or has
 *     none): a copy into a contiguous temporary (LC_F08TS_COPY), only in
 *     calls that are done with the buffer when they return (the flag
 *     LC_F08TS_COPY_OK: blocking point-to-point, collectives, file
 *     reads/writes), copied back into the section after the call when it
 *     is written (LC_F08TS_OUT); or in nonblocking and persistent
 *     point-to-point and collective calls, where the copy is tied to the
 *     request (lc_f08ts_tie, libmpi's lc_mpi_request_fin): copied back
 *     and freed when the request is released after its completion
 *     (Wait/Test and their array forms, or the completion of a request
 *     freed while active); a persistent request copies in at each
 *     MPI_Start, back at each completion, and the copy is freed once both
 *     the request and its last instance are gone (`refs`).  Elsewhere
 *     (one-sided, partitioned, nonblocking file I/O) MPI_ERR_BUFFER with
 *     a message: nothing ties a copy-back to their completion.
 *
 * The datatype is freed (lc_f08ts_done) right after the call has started:
 * MPI keeps a datatype alive while an operation uses it.
 */
#include "lc_f_glue.h"

#include <ISO_Fortran_binding.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* flags: what the generator knows of the call (gen_fortran_mpich_f08.py) */
enum {
    LC_F08TS_PER_RANK = 1, /* COUNT is per rank (gather's receive buffer...) */
    LC_F08TS_VCOUNTS = 2,  /* counts and displacements per rank (v-collectives): COUNT is not there */
    LC_F08TS_COPY_OK = 4,  /* the call is done with the buffer when it returns */
    LC_F08TS_OUT = 8,      /* the call may write the buffer */
    LC_F08TS_SHARED = 16,  /* count and datatype also describe another buffer (reductions): a copy, checked */
};
/* kinds: what lc_f08ts_buf made (lc_f08ts_done undoes it) */
enum { LC_F08TS_ASIS = 0, LC_F08TS_TYPE = 1, LC_F08TS_COPY = 2 };

int lc_f08ts_buf(CFI_cdesc_t *d, int count, int datatype, int flags, void **addr, int *newcount, int *newtype,
                 int *kind);
void lc_f08ts_done(int kind, int newtype, void *addr);
/* libmpi (src/mpi/lc_mpi_type_section.c) */
int lc_mpi_type_section(MPI_Datatype datatype, MPI_Count count, int rank, const MPI_Aint *extent, const MPI_Aint *sm,
                        MPI_Aint elem_len, int linear, MPI_Datatype *newtype_p);

/* libmpi's lc_req_fin_t (src/pt2pt/lc_request.h): the same layout, and
 * its events (LC_FIN_DONE, LC_FIN_START, LC_FIN_FREE). */
typedef struct lc_f08ts_fin {
    void (*fn)(struct lc_f08ts_fin *fin, int event);
} lc_f08ts_fin_t;
enum { LC_F08TS_FIN_DONE = 0, LC_F08TS_FIN_START = 1, LC_F08TS_FIN_FREE = 2 };
int lc_mpi_request_fin(MPI_Request handle, lc_f08ts_fin_t *fin);
int lc_f08ts_tie(int request, int k1, int t1, void *p1, int k2, int t2, void *p2);

/* The header before a copy's data: where the elements came from. */
typedef struct lc_f08ts_copy {
    lc_f08ts_fin_t hook;          /* first: libmpi holds &hook (tied copies only) */
    struct lc_f08ts_copy *next;   /* the call's other tied copy (its second buffer) */
    atomic_int refs;              /* the first copy's: the request, and a persistent one's instance */
    char *base;
    int rank;
    int out;
    MPI_Aint elem_len, nelem;
    MPI_Aint extent[CFI_MAX_RANK], sm[CFI_MAX_RANK];
} lc_f08ts_copy_t;
/* the data after it, aligned for any element (COMPLEX(16): 16 bytes) */
#define LC_F08TS_HDR ((sizeof(lc_f08ts_copy_t) + 63) & ~(size_t)63)

static int lc_f08ts_error(const char *msg)
{
    /* MPI_Add_error_string would add a code per call; say it on stderr
     * and return the class (the call has not started). */
    fprintf(stderr, "Locus MPI (mpi_f08, MPICH ABI): %s\n", msg);
    return MPI_ERR_BUFFER;
}

static int lc_cdesc_contiguous(const CFI_cdesc_t *d)
{
    CFI_index_t want = (CFI_index_t)d->elem_len;
    for (int i = 0; i < d->rank; i++) {
        if (d->dim[i].extent <= 1) continue; /* a dimension of one element has no stride to keep */
        if (d->dim[i].sm != want) return 0;
        want *= d->dim[i].extent;
    }
    return 1;
}

/* Copy the elements between the section and a contiguous run, in array
 * element order (dimension 0 fastest; idx is the running subscript). */
static void lc_f08ts_move(const lc_f08ts_copy_t *c, char *run, int to_run)
{
    MPI_Aint idx[CFI_MAX_RANK] = { 0 };
    for (MPI_Aint k = 0; k < c->nelem; k++) {
        MPI_Aint off = 0;
        for (int i = 0; i < c->rank; i++) off += idx[i] * c->sm[i];
        if (to_run)
            memcpy(run + k * c->elem_len, c->base + off, (size_t)c->elem_len);
        else
            memcpy(c->base + off, run + k * c->elem_len, (size_t)c->elem_len);
        for (int i = 0; i < c->rank; i++) {
            if (++idx[i] < c->extent[i]) break;
            idx[i] = 0;
        }
    }
}

static int lc_f08ts_copy_in(const CFI_cdesc_t *d, MPI_Aint nelem, int flags, void **addr, int *kind)
{
    if (!(flags & LC_F08TS_COPY_OK))
        return lc_f08ts_error("this non-contiguous array section can only be sent or received through a "
                              "contiguous copy, which a one-sided, partitioned or nonblocking file call "
                              "cannot copy back at its completion: pass a contiguous array (or a 1-D "
                              "section with a datatype of its own)");
    size_t bytes = (size_t)nelem * d->elem_len;
    char *mem = malloc(LC_F08TS_HDR + (bytes ? bytes : 1));
    if (!mem) return lc_f_nomem("MPI (mpi_f08 array section copy)");
    lc_f08ts_copy_t *c = (lc_f08ts_copy_t *)mem;
    c->hook.fn = NULL;
    c->next = NULL;
    atomic_init(&c->refs, 1);
    c->base = d->base_addr;
    c->rank = d->rank;
    c->out = (flags & LC_F08TS_OUT) != 0;
    c->elem_len = (MPI_Aint)d->elem_len;
    c->nelem = nelem;
    for (int i = 0; i < d->rank; i++) {
        c->extent[i] = (MPI_Aint)d->dim[i].extent;
        c->sm[i] = (MPI_Aint)d->dim[i].sm;
    }
    /* in even when the call only writes: a receive shorter than the
     * buffer, or a Gatherv's gaps, leave the rest as it was */
    lc_f08ts_move(c, mem + LC_F08TS_HDR, 1);
    *addr = mem + LC_F08TS_HDR;
    *kind = LC_F08TS_COPY;
    return MPI_SUCCESS;
}

/* A datatype of `count` items of `datatype` over the section (linear: one
 * item resized, see the top).  MPI_ERR_TYPE when an element of the
 * datatype straddles two of the section's: a copy may do instead. */
static int lc_f08ts_section_type(const CFI_cdesc_t *d, int count, int datatype, int linear, int strided, int *newtype)
{
    MPI_Aint ext[CFI_MAX_RANK], sm[CFI_MAX_RANK];
    int rank = linear ? 1 : d->rank;
    for (int i = 0; i < rank; i++) {
        int j = linear ? strided : i;
        ext[i] = (MPI_Aint)d->dim[j].extent;
        sm[i] = (MPI_Aint)d->dim[j].sm;
    }
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = lc_mpi_type_section((MPI_Datatype)datatype, count, rank, ext, sm, (MPI_Aint)d->elem_len, linear, &t);
    if (rc == MPI_SUCCESS) *newtype = (int)t;
    return rc;
}

LC_F_API int lc_f08ts_buf(CFI_cdesc_t *d, int count, int datatype, int flags, void **addr, int *newcount, int *newtype,
                          int *kind)
{
    *addr = d->base_addr;
    *newcount = count;
    *newtype = datatype;
    *kind = LC_F08TS_ASIS;
    if (count == -2 || d->rank == 0 || d->base_addr == NULL || lc_cdesc_contiguous(d)) return MPI_SUCCESS;
    MPI_Aint nelem = 1;
    for (int i = 0; i < d->rank; i++) nelem *= (MPI_Aint)d->dim[i].extent;
    if (count == -1) /* no datatype of its own */
        return lc_f08ts_copy_in(d, nelem, flags, addr, kind);
    if (count < 0) /* the call itself says MPI_ERR_COUNT, through its error handler */
        return MPI_SUCCESS;
    MPI_Aint lb = 0, extent = 0, elem = (MPI_Aint)d->elem_len;
    int rc = PMPI_Type_get_extent((MPI_Datatype)datatype, &lb, &extent);
    if (rc != MPI_SUCCESS) return rc;
    if (flags & LC_F08TS_SHARED) {
        /* the copy holds the section's bytes: COUNT items must fit */
        if ((MPI_Aint)count * extent > nelem * elem)
            return lc_f08ts_error("count is larger than the number of elements of the array section");
        return lc_f08ts_copy_in(d, nelem, flags, addr, kind);
    }
    int from_start = !(flags & (LC_F08TS_PER_RANK | LC_F08TS_VCOUNTS));
    /* the one dimension of more than one element, if only one has */
    int strided = -1, nstrided = 0;
    for (int i = 0; i < d->rank; i++) {
        if (d->dim[i].extent > 1) {
            strided = i;
            nstrided++;
        }
    }
    int linear = nstrided == 1 && d->dim[strided].sm > 0 && extent > 0 && extent % elem == 0;
    /* The descriptor says how many elements there are: a call that reads
     * `count` items from the start must not go past them (the enumerated
     * form checks each element itself). */
    if (linear && from_start && (MPI_Aint)count * (extent / elem) > nelem)
        return lc_f08ts_error("count is larger than the number of elements of the array section");
    if (linear && extent == elem) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        rc = PMPI_Type_create_resized((MPI_Datatype)datatype, 0, (MPI_Aint)d->dim[strided].sm, &t);
        if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(&t);
        if (rc != MPI_SUCCESS) return rc;
        *newtype = (int)t;
        *kind = LC_F08TS_TYPE;
        return MPI_SUCCESS;
    }
    if (linear || from_start) {
        rc = lc_f08ts_section_type(d, count, datatype, linear, strided, newtype);
        if (rc == MPI_SUCCESS) {
            if (!linear) *newcount = 1;
            *kind = LC_F08TS_TYPE;
            return MPI_SUCCESS;
        }
        int cls = rc;
        PMPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_TYPE || !(flags & LC_F08TS_COPY_OK)) return rc;
    }
    return lc_f08ts_copy_in(d, nelem, flags, addr, kind);
}

LC_F_API void lc_f08ts_done(int kind, int newtype, void *addr)
{
    if (kind == LC_F08TS_TYPE) {
        MPI_Datatype t = (MPI_Datatype)newtype;
        PMPI_Type_free(&t);
    } else if (kind == LC_F08TS_COPY) {
        char *mem = (char *)addr - LC_F08TS_HDR;
        lc_f08ts_copy_t *c = (lc_f08ts_copy_t *)mem;
        if (c->out) lc_f08ts_move(c, mem + LC_F08TS_HDR, 0);
        free(mem);
    }
}

/* The tied copies of a request (lc_f08ts_tie): called by libmpi.  START
 * (MPI_Start, before the operation reads the copy): the sections' data
 * in again, one more reference for the instance; DONE (the release of a
 * nonblocking request or instance, its operation over): the written
 * sections' copy back, one reference less; FREE (a persistent request's
 * release): one reference less.  The persistent request and its running
 * instance may be released in either order (Request_free while active),
 * hence the count; at MPI_THREAD_MULTIPLE two releases may race. */
static void lc_f08ts_fin_run(lc_f08ts_fin_t *fin, int event)
{
    lc_f08ts_copy_t *head = (lc_f08ts_copy_t *)(void *)fin;
    if (event == LC_F08TS_FIN_START) {
        for (lc_f08ts_copy_t *c = head; c; c = c->next) lc_f08ts_move(c, (char *)c + LC_F08TS_HDR, 1);
        atomic_fetch_add_explicit(&head->refs, 1, memory_order_relaxed);
        return;
    }
    if (event == LC_F08TS_FIN_DONE)
        for (lc_f08ts_copy_t *c = head; c; c = c->next)
            if (c->out) lc_f08ts_move(c, (char *)c + LC_F08TS_HDR, 0);
    /* acq_rel: the last one frees what the others wrote */
    if (atomic_fetch_sub_explicit(&head->refs, 1, memory_order_acq_rel) != 1) return;
    for (lc_f08ts_copy_t *c = head, *n; c; c = n) {
        n = c->next;
        free(c);
    }
}

/* After a nonblocking or persistent call that started (its request
 * valid): the datatypes freed, the copies (kind LC_F08TS_COPY, at most
 * one a buffer, two buffers a call) tied to the request, which copies
 * back and frees them (lc_f08ts_fin_run).  Without a copy: nothing more. */
LC_F_API int lc_f08ts_tie(int request, int k1, int t1, void *p1, int k2, int t2, void *p2)
{
    lc_f08ts_copy_t *c1 = NULL, *c2 = NULL;
    if (k1 == LC_F08TS_COPY)
        c1 = (lc_f08ts_copy_t *)(void *)((char *)p1 - LC_F08TS_HDR);
    else if (k1 != LC_F08TS_ASIS)
        lc_f08ts_done(k1, t1, p1);
    if (k2 == LC_F08TS_COPY)
        c2 = (lc_f08ts_copy_t *)(void *)((char *)p2 - LC_F08TS_HDR);
    else if (k2 != LC_F08TS_ASIS)
        lc_f08ts_done(k2, t2, p2);
    lc_f08ts_copy_t *head = c1 ? c1 : c2;
    if (!head) return MPI_SUCCESS;
    if (c1) c1->next = c2;
    head->hook.fn = lc_f08ts_fin_run;
    int rc = lc_mpi_request_fin((MPI_Request)request, &head->hook);
    if (rc != MPI_SUCCESS) lc_f08ts_fin_run(&head->hook, LC_F08TS_FIN_DONE); /* cannot happen: the call returned it */
    return rc;
}
