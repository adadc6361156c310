/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_filerep.c — a datatype as it lies in a file of another data
 * representation (MPI 4.1 §14.5.1): the same constructor tree, every
 * predefined type replaced by a run of bytes as long as its extent in
 * the file (external32's standard sizes, or a registered datarep's
 * dtype_file_extent_fn).
 *
 * The standard's rule for displacements falls out of replaying the
 * constructors: those given in units of the old type's extent
 * (contiguous, vector, indexed, indexed_block, subarray, darray) scale
 * with the file extent of the old type, because they are replayed with
 * the rebuilt child; those given in bytes (hvector, hindexed,
 * hindexed_block, struct, resized) are used as they are ("MPI will
 * interpret these byte displacements as is; no scaling will be done").
 * A struct of byte runs has alignment 1, so it gets no padding in the
 * file.
 *
 * The result is an internal committed type (no handle) whose typemap is
 * in file bytes: its extent is what MPI_File_get_type_extent reports,
 * its size the bytes one item occupies in the file, and the pack cursor
 * run over it gives file offsets (src/io/lc_io_view.c).
 */
#include "datatype/lc_dt.h"
#include "util/lc_error.h"

#include <stdlib.h>

/* Element displacement d bytes of a child of extent `old` becomes the same
 * number of elements of extent `new` (exact: d is a multiple of old). */
static MPI_Aint lc_dt_rescale(MPI_Aint d, MPI_Aint old, MPI_Aint new)
{
    return old ? d / old * new : d;
}

static int lc_dt_rep(lc_dt_t *t, lc_dt_fext_fn_t *fext, void *ctx, lc_dt_t **out);

static int lc_dt_rep_predefined(lc_dt_t *t, lc_dt_fext_fn_t *fext, void *ctx, lc_dt_t **out)
{
    MPI_Aint e = 0;
    int rc = fext(ctx, t, &e);
    if (rc) return rc;
    if (e < 0) return lc_error(MPI_ERR_CONVERSION, "the file extent of %s is negative (%ld)", lc_dt_name(t), (long)e);
    return lc_dt_create_vector(1, e, 0, lc_dt_get(MPI_BYTE), out);
}

static int lc_dt_rep_array(lc_dt_t *t, lc_dt_t *child, lc_dt_t **out)
{
    const lc_dt_contents_t *c = t->contents;
    bool large = c->nc > 0;
    bool sub = c->combiner == MPI_COMBINER_SUBARRAY;
    int ndims = c->ints[sub ? 0 : 2];
    MPI_Count *v = malloc(3 * (size_t)ndims * sizeof(MPI_Count));
    if (!v) return lc_error(MPI_ERR_NO_MEM, "out of memory rebuilding a filetype");
    int rc;
    if (sub) {
        for (int i = 0; i < 3 * ndims; i++) v[i] = large ? c->counts[i] : c->ints[1 + i];
        int order = c->ints[large ? 1 : 3 * ndims + 1];
        rc = lc_dt_create_subarray(ndims, v, v + ndims, v + 2 * ndims, order, child, out);
    } else { /* darray: size, rank, ndims, [gsizes], distribs, dargs, psizes, order */
        const int *p = c->ints + 3;
        for (int i = 0; i < ndims; i++) v[i] = large ? c->counts[i] : *p++;
        rc = lc_dt_create_darray(c->ints[0], c->ints[1], ndims, v, p, p + ndims, p + 2 * ndims, p[3 * ndims], child,
                                 out);
    }
    free(v);
    return rc;
}

static int lc_dt_rep_blocks(lc_dt_t *t, lc_dt_fext_fn_t *fext, void *ctx, lc_dt_t **out)
{
    size_t n = t->count > 0 ? (size_t)t->count : 1;
    MPI_Aint *displs = malloc(n * sizeof(MPI_Aint));
    lc_dt_t **types = calloc(n, sizeof(lc_dt_t *));
    lc_dt_t *child = NULL;
    int rc = displs && types ? MPI_SUCCESS : lc_error(MPI_ERR_NO_MEM, "out of memory rebuilding a filetype");
    bool scaled = t->contents->combiner == MPI_COMBINER_INDEXED || t->contents->combiner == MPI_COMBINER_INDEXED_BLOCK;
    if (!rc && !t->types) rc = lc_dt_rep(t->child, fext, ctx, &child);
    for (MPI_Count i = 0; !rc && i < t->count; i++) {
        if (t->types) rc = lc_dt_rep(t->types[i], fext, ctx, &types[i]);
        displs[i] = scaled ? lc_dt_rescale(t->displs[i], lc_dt_extent(t->child), lc_dt_extent(child)) : t->displs[i];
    }
    if (!rc)
        rc = lc_dt_create_blocks(t->count, t->blens, t->blocklen, displs, t->types ? types : NULL, child,
                                 t->flags & LC_DT_F_STRUCT_PAD, out);
    for (size_t i = 0; types && i < n; i++)
        if (types[i]) lc_dt_release(types[i]);
    if (child) lc_dt_release(child);
    free(types);
    free(displs);
    return rc;
}

static int lc_dt_rep(lc_dt_t *t, lc_dt_fext_fn_t *fext, void *ctx, lc_dt_t **out)
{
    if (lc_dt_is_predefined(t) || !t->contents) return lc_dt_rep_predefined(t, fext, ctx, out);
    if (t->layout == LC_DT_L_BLOCKS) return lc_dt_rep_blocks(t, fext, ctx, out);
    lc_dt_t *old = t->contents->nd > 0 ? t->contents->types[0] : t->child, *child = NULL;
    int rc = lc_dt_rep(old, fext, ctx, &child);
    if (rc) return rc;
    switch (t->contents->combiner) {
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_VECTOR:
        rc = lc_dt_create_vector(t->count, t->blocklen,
                                 lc_dt_rescale(t->stride, lc_dt_extent(old), lc_dt_extent(child)), child, out);
        break;
    case MPI_COMBINER_HVECTOR:
        rc = lc_dt_create_vector(t->count, t->blocklen, t->stride, child, out);
        break;
    case MPI_COMBINER_RESIZED:
        rc = lc_dt_create_resized(child, t->lb, lc_dt_extent(t), out);
        break;
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY:
        rc = lc_dt_rep_array(t, child, out);
        break;
    default: /* dup */
        rc = lc_dt_create_alias(child, out);
        break;
    }
    lc_dt_release(child);
    return rc;
}

int lc_dt_file_rep(lc_dt_t *t, lc_dt_fext_fn_t *fext, void *ctx, lc_dt_t **out)
{
    lc_dt_t *r = NULL;
    int rc = lc_dt_rep(t, fext, ctx, &r);
    if (!rc) rc = lc_dt_commit(r);
    if (rc) {
        if (r) lc_dt_release(r);
        return rc;
    }
    *out = r;
    return MPI_SUCCESS;
}
