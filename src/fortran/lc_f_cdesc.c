/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_f_cdesc.c — choice buffers of MPICH's mpi_f08 entry points
 * (mpi_xxx_f08ts_, generated into mpich_f08.f90 by scripts/gen_fortran.py).
 *
 * Those buffers are TYPE(*), DIMENSION(..): the generated Fortran passes
 * the actual argument on to lc_f08ts_buf, a BIND(C) procedure, so it
 * arrives here as a TS 29113 C descriptor (CFI_cdesc_t).  The buffer MPI
 * sees is the sequence of the array's elements in array element order
 * (MPI 4.1 §19.1.12), which for an array section is not contiguous:
 *
 *   - contiguous (or a scalar, or a sentinel such as MPI_BOTTOM): the
 *     address itself, count and datatype unchanged;
 *   - a section with a (count, datatype) to go with it, when the
 *     datatype's extent is the element size (the usual case: MPI_INTEGER
 *     on an INTEGER array):
 *       - one strided dimension with a positive stride (a(1:n:2),
 *         b(3,:)): `datatype` resized to the stride, and the same count:
 *         element k of the section is at k * stride, so this holds
 *         however the call indexes the buffer (a gather's rank i at
 *         i * count elements);
 *       - otherwise (2-D sections, negative strides): an hindexed_block
 *         datatype of `count` blocks of one `datatype`, at the byte
 *         offsets of the first `count` elements of the section in element
 *         order; the call gets count 1 of it.  Right where the call reads
 *         `count` items from the start of the buffer, not where the count
 *         is per rank (`per_rank`: gathers, scatters, all-to-alls), which
 *         get MPI_ERR_BUFFER.
 *     A datatype is used rather than a copy so a nonblocking call needs
 *     nothing at its completion;
 *   - anything else (a section with a datatype of another extent, or a
 *     buffer whose count is not one scalar, as in MPI_Gatherv or the
 *     reductions, whose send and receive buffers share one datatype):
 *     MPI_ERR_BUFFER with a message, instead of sending the wrong bytes.
 *     Pass a contiguous array there.
 *
 * The datatype is freed (lc_f08ts_done) right after the call has started:
 * MPI keeps a datatype alive while an operation uses it.
 */
#include "lc_f_glue.h"

#include <ISO_Fortran_binding.h>
#include <stdint.h>
#include <stdio.h>

int lc_f08ts_buf(CFI_cdesc_t *d, int count, int datatype, int per_rank, void **addr, int *newcount,
                 int *newtype);
void lc_f08ts_done(int newtype, int datatype);

static int lc_f08ts_error(const char *msg)
{
    int code = MPI_ERR_BUFFER;
    /* MPI_Add_error_string would add a code per call; say it on stderr
     * and return the class (the call has not started). */
    fprintf(stderr, "Locus MPI (mpi_f08, MPICH ABI): %s\n", msg);
    return code;
}

static int lc_cdesc_contiguous(const CFI_cdesc_t *d)
{
    CFI_index_t want = (CFI_index_t)d->elem_len;
    for (int i = 0; i < d->rank; i++) {
        if (d->dim[i].extent <= 1)
            continue;  /* a dimension of one element has no stride to keep */
        if (d->dim[i].sm != want)
            return 0;
        want *= d->dim[i].extent;
    }
    return 1;
}

LC_F_API int lc_f08ts_buf(CFI_cdesc_t *d, int count, int datatype, int per_rank, void **addr, int *newcount,
                          int *newtype)
{
    *addr = d->base_addr;
    *newcount = count;
    *newtype = datatype;
    if (count == -2 || d->rank == 0 || d->base_addr == NULL || lc_cdesc_contiguous(d))
        return MPI_SUCCESS;
    CFI_index_t nelem = 1;
    for (int i = 0; i < d->rank; i++)
        nelem *= d->dim[i].extent;
    if (count < 0)
        return lc_f08ts_error("a non-contiguous array section where a contiguous buffer is needed "
                              "(v-collectives, reductions): pass a contiguous array");
    MPI_Aint lb = 0, extent = 0;
    int rc = PMPI_Type_get_extent((MPI_Datatype)datatype, &lb, &extent);
    if (rc != MPI_SUCCESS)
        return rc;
    if (extent != (MPI_Aint)d->elem_len)
        return lc_f08ts_error("a non-contiguous array section with a datatype whose extent is not the "
                              "array element size: pass a contiguous array");
    /* The descriptor says how many elements there are: a call that reads
     * `count` of them from the start (not per rank) must not go past them,
     * whichever datatype stands for the section below. */
    if (!per_rank && (CFI_index_t)count > nelem)
        return lc_f08ts_error("count is larger than the number of elements of the array section");
    /* the one dimension of more than one element, if only one has */
    int strided = -1, nstrided = 0;
    for (int i = 0; i < d->rank; i++) {
        if (d->dim[i].extent > 1) {
            strided = i;
            nstrided++;
        }
    }
    if (nstrided == 1 && d->dim[strided].sm > 0) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        rc = PMPI_Type_create_resized((MPI_Datatype)datatype, 0, (MPI_Aint)d->dim[strided].sm, &t);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Type_commit(&t);
        if (rc != MPI_SUCCESS)
            return rc;
        *newtype = (int)t;
        return MPI_SUCCESS;
    }
    if (per_rank)
        return lc_f08ts_error("a 2-D or negatively strided array section in a gather, scatter or all-to-all "
                              "(its count is per rank): pass a contiguous array or a 1-D section");
    MPI_Aint *disp = malloc(sizeof *disp * (size_t)(count > 0 ? count : 1));
    if (!disp)
        return lc_f_nomem("MPI (mpi_f08 array section)");
    /* element order: dimension 0 fastest; idx is the running subscript */
    CFI_index_t idx[CFI_MAX_RANK] = {0};
    for (int k = 0; k < count; k++) {
        MPI_Aint off = 0;
        for (int i = 0; i < d->rank; i++)
            off += (MPI_Aint)(idx[i] * d->dim[i].sm);
        disp[k] = off;
        for (int i = 0; i < d->rank; i++) {
            if (++idx[i] < d->dim[i].extent)
                break;
            idx[i] = 0;
        }
    }
    MPI_Datatype t = MPI_DATATYPE_NULL;
    rc = PMPI_Type_create_hindexed_block(count, 1, disp, (MPI_Datatype)datatype, &t);
    free(disp);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(&t);
    if (rc != MPI_SUCCESS)
        return rc;
    *newcount = 1;
    *newtype = (int)t;
    return MPI_SUCCESS;
}

LC_F_API void lc_f08ts_done(int newtype, int datatype)
{
    if (newtype != datatype) {
        MPI_Datatype t = (MPI_Datatype)newtype;
        PMPI_Type_free(&t);
    }
}
