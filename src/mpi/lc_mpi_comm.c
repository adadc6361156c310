/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_comm.c — communicators: the builtin ones, duplication and
 * freeing (with their attributes and hints), names, hints and queries.
 * Splitting is in lc_mpi_comm_split.c, creation from groups in
 * lc_mpi_comm_create.c, attributes in lc_mpi_comm_attr.c.
 *
 * Context ids (see lc_comm.h): a new communicator takes the lowest slot
 * free on *every* member of the parent, agreed with an MPI_BAND allreduce
 * of the members' free masks (the approach MPICH takes), so no central
 * allocator is needed.
 */
#include "mpi/lc_mpi_comm.h"
#include "coll/lc_coll.h"
#include "coll/lc_op.h"
#include "coll/lc_sched.h"
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_attr.h"
#include "mpi/lc_mpi_errhandler.h"
#include "mpi/lc_mpi_group.h"
#include "mpi/lc_mpi_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lc_mpi_appnum = -1;

/* What the API layer hangs on a communicator goes with the object. */
static void lc_mpi_comm_on_destroy(lc_comm_t *c)
{
    lc_sched_memo_drop(c);
    lc_attr_discard(&c->attrs);
    lc_info_free(c->info);
    c->info = NULL;
    lc_errhandler_release(c->errhandler);
}

int lc_mpi_comm_init_builtin(int appnum)
{
    lc_mpi_appnum = appnum;
    lc_comm_destroy_hook = lc_mpi_comm_on_destroy;
    lc_comm_ctx_reset();
    int *ranks = malloc(sizeof(int) * (size_t)lc_world.size);
    if (!ranks) return -1;
    for (int i = 0; i < lc_world.size; i++) ranks[i] = i;
    lc_comm_t *world = lc_comm_create(0, lc_world.rank, lc_world.size, ranks, MPI_COMM_WORLD);
    lc_comm_t *self = lc_comm_create(1, 0, 1, &lc_world.rank, MPI_COMM_SELF);
    free(ranks);
    if (!world || !self) return -1;
    snprintf(world->name, sizeof(world->name), "MPI_COMM_WORLD");
    snprintf(self->name, sizeof(self->name), "MPI_COMM_SELF");
    return 0;
}

int lc_mpi_comm_finalize_begin(void)
{
    lc_comm_t *self = lc_comm_builtin[1];
    return lc_attr_delete_all(LC_ATTR_COMM, MPI_COMM_SELF, &self->attrs);
}

void lc_mpi_comm_fini(void)
{
    lc_comm_destroy_all();
    lc_group_fini();
    lc_keyval_fini();
    lc_errhandler_fini();
    lc_errclass_fini();
    lc_op_fini();
}

/* AND over every rank of the parent. */
static int lc_ctx_reduce_all(uint64_t *words, int n, void *arg)
{
    uint64_t in[LC_CTX_WORDS + 1];
    memcpy(in, words, sizeof(uint64_t) * (size_t)n);
    return lc_coll_allreduce(in, words, (size_t)n, MPI_UINT64_T, MPI_BAND, arg);
}

/* Agree on a free slot with the other members of `parent`. */
static int lc_ctx_agree(lc_comm_t *parent, int *slot_p)
{
    return lc_mpi_ctx_agree(parent, -1, parent->remote_world ? 0 : parent->size, lc_ctx_reduce_all, parent, slot_p);
}

int lc_mpi_comm_make(lc_comm_t *parent, int slot, int rank, int size, const int *world_ranks, lc_comm_t **out_p)
{
    lc_comm_t *c = lc_comm_create(slot, rank, size, world_ranks, MPI_COMM_NULL);
    if (!c) return lc_error(MPI_ERR_NO_MEM, "out of memory creating a communicator");
    lc_errhandler_retain(parent->errhandler);
    c->errhandler = parent->errhandler;
    c->session = parent->session; /* dup, split, create...: still the session's */
    *out_p = c;
    return MPI_SUCCESS;
}

int lc_mpi_comm_derive(lc_comm_t *parent, int rank, int size, const int *world_ranks, lc_comm_t **out_p)
{
    int slot;
    int rc = lc_ctx_agree(parent, &slot);
    if (rc) return rc;
    if (size == 0) { /* MPI_UNDEFINED color: took part in the agreement only */
        *out_p = NULL;
        return MPI_SUCCESS;
    }
    return lc_mpi_comm_make(parent, slot, rank, size, world_ranks, out_p);
}

LC_API int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(rank, "rank"));
    *rank = c->rank;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_rank", rc);
}
LC_MPI_ALIAS(Comm_rank);

LC_API int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(size, "size"));
    *size = c->size;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_size", rc);
}
LC_MPI_ALIAS(Comm_size);

LC_API int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(flag, "flag"));
    *flag = c->remote_world != NULL;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_test_inter", rc);
}
LC_MPI_ALIAS(Comm_test_inter);

/* The duplicate of `c` with the hints `info` (copied; NULL: none): same
 * group, its topology, its attributes as their copy callbacks decide. */
static int lc_comm_dup(lc_comm_t *c, const lc_info_t *info, lc_comm_t **n_p)
{
    lc_comm_t *n;
    int rc = c->remote_world ? lc_inter_dup(c, &n) : lc_mpi_comm_derive(c, c->rank, c->size, c->world_ranks, &n);
    if (rc != MPI_SUCCESS) return rc;
    /* The duplicate keeps the topology (MPI 4.1 §7.4.2). */
    if (c->cart && !(n->cart = lc_cart_new(c->cart->ndims, c->cart->dims, c->cart->periods)))
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory copying a topology");
    if (c->graph && !(n->graph = lc_graph_dup(c->graph)))
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory copying a graph topology");
    lc_info_t *hints = NULL;
    if (rc == MPI_SUCCESS && info) rc = lc_info_dup(info, &hints);
    n->info = hints;
    if (rc == MPI_SUCCESS) rc = lc_attr_copy_all(LC_ATTR_COMM, c->handle, &c->attrs, n->handle, &n->attrs);
    if (rc != MPI_SUCCESS) {
        lc_comm_free_handle(n);
        return rc;
    }
    *n_p = n;
    return MPI_SUCCESS;
}

LC_API int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    lc_comm_t *c = NULL, *n;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(newcomm, "newcomm"));
    LC_TRY(lc_comm_dup(c, c->info, &n)); /* MPI 4: the hints are duplicated too */
    *newcomm = n->handle;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_dup", rc);
}
LC_MPI_ALIAS(Comm_dup);

LC_API int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    lc_comm_t *c = NULL, *n;
    lc_info_t *i;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_info_or_null(info, &i));
    LC_TRY(lc_check_ptr(newcomm, "newcomm"));
    LC_TRY(lc_comm_dup(c, i, &n));
    *newcomm = n->handle;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_dup_with_info", rc);
}
LC_MPI_ALIAS(Comm_dup_with_info);

LC_API int PMPI_Comm_free(MPI_Comm *comm)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_ptr(comm, "comm"));
    LC_TRY(lc_check_comm(*comm, &c));
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        LC_TRY(lc_error(MPI_ERR_COMM, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed"));
    /* Delete callbacks run while the handle is still valid (they receive
     * it); one that fails leaves the communicator alive. */
    LC_TRY(lc_attr_delete_all(LC_ATTR_COMM, c->handle, &c->attrs));
    lc_comm_free_handle(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_free", rc);
}
LC_MPI_ALIAS(Comm_free);

/* MPI_CONGRUENT, MPI_SIMILAR or MPI_UNEQUAL for two lists of members. */
static int lc_members_compare(const int *a, int na, const int *b, int nb)
{
    if (na != nb) return MPI_UNEQUAL;
    if (!memcmp(a, b, sizeof(int) * (size_t)na)) return MPI_CONGRUENT;
    for (int i = 0; i < na; i++) { /* same members in another order? */
        int found = 0;
        for (int j = 0; j < nb && !found; j++) found = a[i] == b[j];
        if (!found) return MPI_UNEQUAL;
    }
    return MPI_SIMILAR;
}

/* Intercommunicators compare both groups (the weaker result wins); an
 * intercommunicator and an intracommunicator are MPI_UNEQUAL. */
LC_API int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    lc_comm_t *a = NULL, *b;
    int rc;
    LC_TRY(lc_check_comm(comm1, &a));
    LC_TRY(lc_check_comm(comm2, &b));
    LC_TRY(lc_check_ptr(result, "result"));
    if (a == b) {
        *result = MPI_IDENT;
    } else if (!a->remote_world != !b->remote_world) {
        *result = MPI_UNEQUAL;
    } else {
        *result = lc_members_compare(a->world_ranks, a->size, b->world_ranks, b->size);
        if (a->remote_world) {
            int r = lc_members_compare(a->remote_world, a->peer_count, b->remote_world, b->peer_count);
            if (r > *result) *result = r; /* MPI_CONGRUENT < MPI_SIMILAR < MPI_UNEQUAL */
        }
    }
    return MPI_SUCCESS;
err:
    return lc_mpi_error(a, "MPI_Comm_compare", rc);
}
LC_MPI_ALIAS(Comm_compare);

/* Longer names are cut to MPI_MAX_OBJECT_NAME - 1 characters. */
LC_API int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(comm_name, "comm_name"));
    snprintf(c->name, sizeof(c->name), "%.*s", (int)sizeof(c->name) - 1, comm_name);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_set_name", rc);
}
LC_MPI_ALIAS(Comm_set_name);

LC_API int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    lc_comm_t *c = NULL;
    int rc;
    /* MPI 4.1 names the null handle too (mpi4py relies on it). */
    if (comm == MPI_COMM_NULL) {
        LC_TRY(lc_check_initialized());
        LC_TRY(lc_check_ptr(comm_name, "comm_name"));
        LC_TRY(lc_check_ptr(resultlen, "resultlen"));
        memcpy(comm_name, "MPI_COMM_NULL", sizeof("MPI_COMM_NULL"));
        *resultlen = (int)sizeof("MPI_COMM_NULL") - 1;
        return MPI_SUCCESS;
    }
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(comm_name, "comm_name"));
    LC_TRY(lc_check_ptr(resultlen, "resultlen"));
    size_t len = strlen(c->name);
    memcpy(comm_name, c->name, len + 1);
    *resultlen = (int)len;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_get_name", rc);
}
LC_MPI_ALIAS(Comm_get_name);

/* Locus acts on no communicator hint yet; it keeps every hint the user
 * gives and returns them (MPI 4.1 §7.4.4 allows returning hints that
 * were not ignored, and keeping them is the least surprising choice). */
LC_API int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    lc_comm_t *c = NULL;
    lc_info_t *i, *copy;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_info(info, &i));
    LC_TRY(lc_info_dup(i, &copy));
    lc_info_free(c->info);
    c->info = copy;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_set_info", rc);
}
LC_MPI_ALIAS(Comm_set_info);

LC_API int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    lc_comm_t *c = NULL;
    lc_info_t *copy;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(info_used, "info_used"));
    LC_TRY(lc_info_dup(c->info, &copy));
    LC_TRY(lc_info_publish(copy, info_used));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_get_info", rc);
}
LC_MPI_ALIAS(Comm_get_info);
