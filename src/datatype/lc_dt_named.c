/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_named.c — predefined types found by their properties: the f90
 * parameterized types (MPI_Type_create_f90_real/complex/integer), size
 * matching (MPI_Type_match_size) and value-index pairs
 * (MPI_Type_get_value_index).
 *
 * The f90 types follow gfortran on x86-64: SELECTED_REAL_KIND gives
 * kind 4 up to 6 digits / range 37, 8 up to 15 / 307, 10 (the x87
 * format, laid out as C's long double) up to 18 / 4931 and 16 (binary128)
 * up to 33 / 4931; SELECTED_INT_KIND gives 1, 2, 4, 8 up to ranges 2, 4,
 * 9, 18.  Each (combiner, p, r) gets one type, made on first request and
 * kept for the job: the standard makes them predefined (never freed).
 */
#include "datatype/lc_dt_impl.h"

#include <stdlib.h>

typedef struct lc_dt_f90_entry {
    struct lc_dt_f90_entry *next;
    int combiner, p, r;
    lc_dt_t *type;
} lc_dt_f90_entry_t;

static lc_dt_f90_entry_t *lc_dt_f90_cache; /* lc_dt_mutex */

/* MPI_UNDEFINED means "any": the smallest kind. */
static int lc_dt_f90_base(int combiner, int p, int r, MPI_Datatype *base_p)
{
    if (p == MPI_UNDEFINED) p = 0;
    if (r == MPI_UNDEFINED) r = 0;
    if (p < 0 || r < 0) return lc_error(MPI_ERR_ARG, "precision %d and range %d must not be negative", p, r);
    static const struct {
        int p, r;
        MPI_Datatype real, complex;
    } reals[] = {
        { 6, 37, MPI_REAL4, MPI_COMPLEX8 },
        { 15, 307, MPI_REAL8, MPI_COMPLEX16 },
        { 18, 4931, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX },
        { 33, 4931, MPI_REAL16, MPI_COMPLEX32 },
    };
    static const struct {
        int r;
        MPI_Datatype type;
    } ints[] = { { 2, MPI_INTEGER1 }, { 4, MPI_INTEGER2 }, { 9, MPI_INTEGER4 }, { 18, MPI_INTEGER8 } };
    if (combiner == MPI_COMBINER_F90_INTEGER) {
        for (size_t i = 0; i < LC_ARRAY_SIZE(ints); i++) {
            if (r <= ints[i].r) {
                *base_p = ints[i].type;
                return MPI_SUCCESS;
            }
        }
        return lc_error(MPI_ERR_ARG, "no Fortran integer kind has a decimal range of %d digits (at most 18)", r);
    }
    for (size_t i = 0; i < LC_ARRAY_SIZE(reals); i++) {
        if (p <= reals[i].p && r <= reals[i].r) {
            *base_p = combiner == MPI_COMBINER_F90_REAL ? reals[i].real : reals[i].complex;
            return MPI_SUCCESS;
        }
    }
    return lc_error(MPI_ERR_ARG,
                    "no Fortran real kind has precision %d and range %d (at most 33 digits, range 4931)", p, r);
}

static int lc_dt_f90_make(int combiner, int p, int r, MPI_Datatype base, lc_dt_t **t_p)
{
    lc_dt_t *t;
    int rc = lc_dt_create_alias(lc_dt_builtin_get(base), &t);
    if (rc) return rc;
    int ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    lc_dt_contents_t *c = lc_dt_contents_new(combiner, ni, 0, 0, 0);
    if (!c) {
        lc_dt_release(t);
        return lc_error(MPI_ERR_NO_MEM, "out of memory creating an f90 datatype");
    }
    if (ni == 1) {
        c->ints[0] = r;
    } else {
        c->ints[0] = p;
        c->ints[1] = r;
    }
    t->flags |= LC_DT_F_COMMITTED;
    MPI_Datatype h;
    if ((rc = lc_dt_publish(t, c, &h))) return rc;
    t->flags |= LC_DT_F_PREDEFINED; /* after publishing: from now on never freed */
    *t_p = t;
    return MPI_SUCCESS;
}

int lc_dt_f90(int combiner, int p, int r, lc_dt_t **t_p)
{
    MPI_Datatype base = MPI_DATATYPE_NULL;
    int rc = lc_dt_f90_base(combiner, p, r, &base);
    if (rc) return rc;
    if (combiner == MPI_COMBINER_F90_INTEGER) p = 0;
    lc_dt_lock();
    for (lc_dt_f90_entry_t *e = lc_dt_f90_cache; e; e = e->next) {
        if (e->combiner == combiner && e->p == p && e->r == r) {
            *t_p = e->type;
            lc_dt_unlock();
            return MPI_SUCCESS;
        }
    }
    lc_dt_unlock();
    lc_dt_f90_entry_t *e = calloc(1, sizeof(*e));
    if (!e) return lc_error(MPI_ERR_NO_MEM, "out of memory creating an f90 datatype");
    if ((rc = lc_dt_f90_make(combiner, p, r, base, &e->type))) {
        free(e);
        return rc;
    }
    e->combiner = combiner;
    e->p = p;
    e->r = r;
    lc_dt_lock();
    /* two threads may both have made one: lookups find the newer, the
     * other stays valid (predefined types are never freed) */
    e->next = lc_dt_f90_cache;
    lc_dt_f90_cache = e;
    lc_dt_unlock();
    *t_p = e->type;
    return MPI_SUCCESS;
}

int lc_dt_match_size(int typeclass, int size, MPI_Datatype *type_p)
{
    static const struct {
        int typeclass, size;
        MPI_Datatype type;
    } table[] = {
        { MPI_TYPECLASS_REAL, 4, MPI_REAL4 },         { MPI_TYPECLASS_REAL, 8, MPI_REAL8 },
        { MPI_TYPECLASS_REAL, 16, MPI_REAL16 },       { MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1 },
        { MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2 },   { MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4 },
        { MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8 },   { MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8 },
        { MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16 }, { MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32 },
    };
    if (typeclass != MPI_TYPECLASS_REAL && typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_COMPLEX)
        return lc_error(MPI_ERR_ARG, "typeclass %d is not MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX", typeclass);
    for (size_t i = 0; i < LC_ARRAY_SIZE(table); i++) {
        if (table[i].typeclass == typeclass && table[i].size == size) {
            *type_p = table[i].type;
            return MPI_SUCCESS;
        }
    }
    return lc_error(MPI_ERR_ARG, "no predefined %s type has %d bytes",
                    typeclass == MPI_TYPECLASS_REAL ? "real" : typeclass == MPI_TYPECLASS_INTEGER ? "integer" : "complex",
                    size);
}

MPI_Datatype lc_dt_value_index(MPI_Datatype value, MPI_Datatype index)
{
    static const struct {
        MPI_Datatype value, index, pair;
    } table[] = {
        { MPI_FLOAT, MPI_INT, MPI_FLOAT_INT },
        { MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT },
        { MPI_LONG, MPI_INT, MPI_LONG_INT },
        { MPI_SHORT, MPI_INT, MPI_SHORT_INT },
        { MPI_INT, MPI_INT, MPI_2INT },
        { MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT },
        { MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER },
        { MPI_REAL, MPI_REAL, MPI_2REAL },
        { MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION },
    };
    for (size_t i = 0; i < LC_ARRAY_SIZE(table); i++)
        if (table[i].value == value && table[i].index == index) return table[i].pair;
    return MPI_DATATYPE_NULL;
}
