/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_type_contents.c — MPI_Type_get_envelope and
 * MPI_Type_get_contents (and their _c forms): how a datatype was made.
 *
 * Types made by a _c constructor keep their arguments as large counts;
 * the int forms cannot describe them and say so (MPI_ERR_TYPE).  The
 * datatypes handed back are handles the caller must free when they are
 * derived (MPI 4.1 §5.1.13): the same handle with one more user
 * reference, or a new one when the user had already freed it.
 */
#include "mpi/lc_mpi_dt.h"

#include <string.h>

/* Sizes of the contents of t: predefined named types have none. */
static void lc_mpi_envelope(const lc_dt_t *t, MPI_Count *ni, MPI_Count *na, MPI_Count *nc, MPI_Count *nd,
                            int *combiner)
{
    const lc_dt_contents_t *c = t->contents;
    *ni = c ? c->ni : 0;
    *na = c ? c->na : 0;
    *nc = c ? c->nc : 0;
    *nd = c ? c->nd : 0;
    *combiner = c ? c->combiner : MPI_COMBINER_NAMED;
}

static int lc_mpi_large_only(MPI_Datatype dt, const char *fn)
{
    return lc_error(MPI_ERR_TYPE, "datatype %#x was made by a large-count (_c) constructor: use %s_c", (unsigned)dt,
                    fn);
}

LC_API int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
                                  int *combiner)
{
    lc_dt_t *t;
    MPI_Count ni, na, nc, nd;
    int rc, comb;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_dt_arg(datatype, &t));
    LC_TRY(lc_check_ptr(num_integers, "num_integers"));
    LC_TRY(lc_check_ptr(num_addresses, "num_addresses"));
    LC_TRY(lc_check_ptr(num_datatypes, "num_datatypes"));
    LC_TRY(lc_check_ptr(combiner, "combiner"));
    lc_mpi_envelope(t, &ni, &na, &nc, &nd, &comb);
    if (nc > 0) LC_TRY(lc_mpi_large_only(datatype, "MPI_Type_get_envelope"));
    *num_integers = (int)ni;
    *num_addresses = (int)na;
    *num_datatypes = (int)nd;
    *combiner = comb;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Type_get_envelope", rc);
}
LC_MPI_ALIAS(Type_get_envelope);

LC_API int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses,
                                    MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner)
{
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_dt_arg(datatype, &t));
    LC_TRY(lc_check_ptr(num_integers, "num_integers"));
    LC_TRY(lc_check_ptr(num_addresses, "num_addresses"));
    LC_TRY(lc_check_ptr(num_large_counts, "num_large_counts"));
    LC_TRY(lc_check_ptr(num_datatypes, "num_datatypes"));
    LC_TRY(lc_check_ptr(combiner, "combiner"));
    lc_mpi_envelope(t, num_integers, num_addresses, num_large_counts, num_datatypes, combiner);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Type_get_envelope_c", rc);
}
LC_MPI_ALIAS(Type_get_envelope_c);

static int lc_mpi_room(MPI_Count have, MPI_Count need, const char *what)
{
    if (have >= need) return MPI_SUCCESS;
    return lc_error(MPI_ERR_ARG, "%s has room for %lld entries, the datatype has %lld: ask MPI_Type_get_envelope",
                    what, (long long)have, (long long)need);
}

/* Both forms (large: the _c form): the checks, the copy and the error
 * report under the caller's name fn. */
static int lc_mpi_contents(MPI_Datatype datatype, bool large, MPI_Count max_i, MPI_Count max_a, MPI_Count max_c,
                           MPI_Count max_d, int *ints, MPI_Aint *aints, MPI_Count *counts, MPI_Datatype *types,
                           const char *fn)
{
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_dt_arg(datatype, &t));
    const lc_dt_contents_t *c = t->contents;
    if (!c)
        LC_TRY(lc_error(MPI_ERR_TYPE, "%s is a predefined datatype (MPI_COMBINER_NAMED): it has no contents",
                        lc_dt_name(t)));
    if (!large && c->nc > 0) LC_TRY(lc_mpi_large_only(datatype, fn));
    LC_TRY(lc_mpi_room(max_i, c->ni, "array_of_integers"));
    LC_TRY(lc_mpi_room(max_a, c->na, "array_of_addresses"));
    LC_TRY(lc_mpi_room(max_c, c->nc, "array_of_large_counts"));
    LC_TRY(lc_mpi_room(max_d, c->nd, "array_of_datatypes"));
    LC_TRY(lc_mpi_dt_check_array(ints, c->ni, "array_of_integers"));
    LC_TRY(lc_mpi_dt_check_array(aints, c->na, "array_of_addresses"));
    LC_TRY(lc_mpi_dt_check_array(counts, c->nc, "array_of_large_counts"));
    LC_TRY(lc_mpi_dt_check_array(types, c->nd, "array_of_datatypes"));
    for (MPI_Count i = 0; i < c->nd; i++) LC_TRY(lc_dt_handle_out(c->types[i], &types[i]));
    if (c->ni) memcpy(ints, c->ints, (size_t)c->ni * sizeof(int));
    if (c->na) memcpy(aints, c->aints, (size_t)c->na * sizeof(MPI_Aint));
    if (c->nc) memcpy(counts, c->counts, (size_t)c->nc * sizeof(MPI_Count));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, fn, rc);
}

LC_API int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                                  int array_of_integers[], MPI_Aint array_of_addresses[],
                                  MPI_Datatype array_of_datatypes[])
{
    return lc_mpi_contents(datatype, false, max_integers, max_addresses, 0, max_datatypes, array_of_integers,
                           array_of_addresses, NULL, array_of_datatypes, "MPI_Type_get_contents");
}
LC_MPI_ALIAS(Type_get_contents);

LC_API int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                                    MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                                    MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                                    MPI_Datatype array_of_datatypes[])
{
    return lc_mpi_contents(datatype, true, max_integers, max_addresses, max_large_counts, max_datatypes,
                           array_of_integers, array_of_addresses, array_of_large_counts, array_of_datatypes,
                           "MPI_Type_get_contents_c");
}
LC_MPI_ALIAS(Type_get_contents_c);
