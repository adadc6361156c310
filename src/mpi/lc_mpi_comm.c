/*
 * lc_mpi_comm.c — communicator creation and queries.
 *
 * Context ids (see lc_comm.h): a new communicator takes the lowest slot
 * free on *every* member of the parent, agreed with an MPI_BAND allreduce
 * of the members' free masks (the approach MPICH takes), so no central
 * allocator is needed.
 */
#include "mpi/lc_mpi.h"
#include "coll/lc_coll.h"
#include "mpi/lc_mpi_comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lc_mpi_comm_init_builtin(void)
{
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

void lc_mpi_comm_fini(void)
{
    lc_comm_destroy_all();
}

/* Agree on a free slot with the other members of `parent`. */
static int lc_ctx_agree(lc_comm_t *parent, int *slot_p)
{
    uint64_t mask[LC_CTX_WORDS];
    int rc = lc_coll_allreduce(lc_comm_ctx_free_mask(), mask, LC_CTX_WORDS, MPI_UINT64_T, MPI_BAND, parent);
    if (rc != MPI_SUCCESS) return rc;
    for (int w = 0; w < LC_CTX_WORDS; w++) {
        if (mask[w]) {
            *slot_p = w * 64 + __builtin_ctzll(mask[w]);
            return MPI_SUCCESS;
        }
    }
    return lc_error(MPI_ERR_INTERN, "out of communicator context ids (2048 communicators exist); free "
                                    "communicators you no longer need");
}

LC_API int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    lc_comm_t *c;
    int rc = lc_check_comm(comm, &c);
    if (rc) return lc_mpi_error(NULL, "MPI_Comm_rank", rc);
    if (!rank) return lc_mpi_error(c, "MPI_Comm_rank", lc_error(MPI_ERR_ARG, "rank is NULL"));
    *rank = c->rank;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Comm_rank);

LC_API int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    lc_comm_t *c;
    int rc = lc_check_comm(comm, &c);
    if (rc) return lc_mpi_error(NULL, "MPI_Comm_size", rc);
    if (!size) return lc_mpi_error(c, "MPI_Comm_size", lc_error(MPI_ERR_ARG, "size is NULL"));
    *size = c->size;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Comm_size);

int lc_mpi_comm_derive(lc_comm_t *parent, int rank, int size, const int *world_ranks, lc_comm_t **out_p)
{
    int slot;
    int rc = lc_ctx_agree(parent, &slot);
    if (rc) return rc;
    if (size == 0) { /* MPI_UNDEFINED color: took part in the agreement only */
        *out_p = NULL;
        return MPI_SUCCESS;
    }
    lc_comm_t *c = lc_comm_create(slot, rank, size, world_ranks, MPI_COMM_NULL);
    if (!c) return lc_error(MPI_ERR_NO_MEM, "out of memory creating a communicator");
    c->errhandler = parent->errhandler;
    *out_p = c;
    return MPI_SUCCESS;
}

LC_API int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    lc_comm_t *c, *n;
    int rc = lc_check_comm(comm, &c);
    if (rc) return lc_mpi_error(NULL, "MPI_Comm_dup", rc);
    if (!newcomm) return lc_mpi_error(c, "MPI_Comm_dup", lc_error(MPI_ERR_ARG, "newcomm is NULL"));
    rc = lc_mpi_comm_derive(c, c->rank, c->size, c->world_ranks, &n);
    if (rc) return lc_mpi_error(c, "MPI_Comm_dup", rc);
    /* The duplicate keeps the topology (MPI 4.1 §7.4.2). */
    if (c->cart && !(n->cart = lc_cart_new(c->cart->ndims, c->cart->dims, c->cart->periods))) {
        lc_comm_free_handle(n);
        return lc_mpi_error(c, "MPI_Comm_dup", lc_error(MPI_ERR_NO_MEM, "out of memory copying a topology"));
    }
    *newcomm = n->handle;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Comm_dup);

LC_API int PMPI_Comm_free(MPI_Comm *comm)
{
    lc_comm_t *c;
    if (!comm) return lc_mpi_error(NULL, "MPI_Comm_free", lc_error(MPI_ERR_ARG, "comm is NULL"));
    int rc = lc_check_comm(*comm, &c);
    if (rc) return lc_mpi_error(NULL, "MPI_Comm_free", rc);
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return lc_mpi_error(c, "MPI_Comm_free",
                            lc_error(MPI_ERR_COMM, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed"));
    lc_comm_free_handle(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Comm_free);

typedef struct lc_split_entry {
    int color, key, rank;
} lc_split_entry_t;

static int lc_split_cmp(const void *a, const void *b)
{
    const lc_split_entry_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

LC_API int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    lc_comm_t *c, *n = NULL;
    int rc = lc_check_comm(comm, &c);
    if (rc) return lc_mpi_error(NULL, "MPI_Comm_split", rc);
    if (!newcomm) return lc_mpi_error(c, "MPI_Comm_split", lc_error(MPI_ERR_ARG, "newcomm is NULL"));
    if (color < 0 && color != MPI_UNDEFINED)
        return lc_mpi_error(c, "MPI_Comm_split",
                            lc_error(MPI_ERR_ARG, "color %d is negative (use MPI_UNDEFINED to opt out)", color));
    int mine[2] = { color, key };
    int *all = malloc(sizeof(int) * 2 * (size_t)c->size);
    lc_split_entry_t *members = malloc(sizeof(*members) * (size_t)c->size);
    int *world_ranks = malloc(sizeof(int) * (size_t)c->size);
    if (!all || !members || !world_ranks) {
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory splitting a communicator of size %d", c->size);
        goto out;
    }
    rc = lc_coll_allgather(mine, 2, MPI_INT, all, 2, MPI_INT, c);
    if (rc) goto out;
    int n_members = 0;
    for (int r = 0; r < c->size; r++) {
        if (color == MPI_UNDEFINED || all[2 * r] != color) continue;
        members[n_members++] = (lc_split_entry_t){ all[2 * r], all[2 * r + 1], r };
    }
    qsort(members, (size_t)n_members, sizeof(*members), lc_split_cmp);
    int my_rank = 0;
    for (int i = 0; i < n_members; i++) {
        world_ranks[i] = c->world_ranks[members[i].rank];
        if (members[i].rank == c->rank) my_rank = i;
    }
    rc = lc_mpi_comm_derive(c, my_rank, n_members, world_ranks, &n);
out:
    free(all);
    free(members);
    free(world_ranks);
    if (rc) return lc_mpi_error(c, "MPI_Comm_split", rc);
    *newcomm = n ? n->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Comm_split);

LC_API int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    lc_comm_t *a, *b;
    int rc = lc_check_comm(comm1, &a);
    if (!rc) rc = lc_check_comm(comm2, &b);
    if (rc) return lc_mpi_error(NULL, "MPI_Comm_compare", rc);
    if (!result) return lc_mpi_error(a, "MPI_Comm_compare", lc_error(MPI_ERR_ARG, "result is NULL"));
    if (a == b) {
        *result = MPI_IDENT;
    } else if (a->size != b->size) {
        *result = MPI_UNEQUAL;
    } else if (!memcmp(a->world_ranks, b->world_ranks, sizeof(int) * (size_t)a->size)) {
        *result = MPI_CONGRUENT;
    } else {
        /* Same members in another order? */
        *result = MPI_SIMILAR;
        for (int i = 0; i < a->size && *result == MPI_SIMILAR; i++) {
            int found = 0;
            for (int j = 0; j < b->size && !found; j++) found = a->world_ranks[i] == b->world_ranks[j];
            if (!found) *result = MPI_UNEQUAL;
        }
    }
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Comm_compare);

LC_API int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    lc_comm_t *c;
    int rc = lc_check_comm(comm, &c);
    if (rc) return lc_mpi_error(NULL, "MPI_Comm_set_errhandler", rc);
    if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN && errhandler != MPI_ERRORS_ABORT)
        return lc_mpi_error(c, "MPI_Comm_set_errhandler",
                            lc_error(MPI_ERR_ARG, "%#x is not an error handler (only the predefined ones exist)",
                                     (unsigned)errhandler));
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Comm_set_errhandler);

LC_API int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    lc_comm_t *c;
    int rc = lc_check_comm(comm, &c);
    if (rc) return lc_mpi_error(NULL, "MPI_Comm_get_errhandler", rc);
    if (!errhandler) return lc_mpi_error(c, "MPI_Comm_get_errhandler", lc_error(MPI_ERR_ARG, "errhandler is NULL"));
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Comm_get_errhandler);

LC_API int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    int rc = lc_check_initialized();
    if (rc) return lc_mpi_error(NULL, "MPI_Errhandler_free", rc);
    if (!errhandler) return lc_mpi_error(NULL, "MPI_Errhandler_free", lc_error(MPI_ERR_ARG, "errhandler is NULL"));
    if (*errhandler != MPI_ERRORS_ARE_FATAL && *errhandler != MPI_ERRORS_RETURN && *errhandler != MPI_ERRORS_ABORT)
        return lc_mpi_error(NULL, "MPI_Errhandler_free",
                            lc_error(MPI_ERR_ARG, "%#x is not an error handler", (unsigned)*errhandler));
    /* Predefined handlers are not destroyed; the handle is nulled (MPI 4.1 §9.3.4). */
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Errhandler_free);

LC_API int PMPI_Error_class(int errorcode, int *errorclass)
{
    if (!errorclass) return lc_mpi_error(NULL, "MPI_Error_class", lc_error(MPI_ERR_ARG, "errorclass is NULL"));
    int cls = lc_error_class_of(errorcode);
    if (errorcode < 0 || cls > MPI_ERR_VALUE_TOO_LARGE)
        return lc_mpi_error(NULL, "MPI_Error_class", lc_error(MPI_ERR_ARG, "%d is not an MPI error code", errorcode));
    *errorclass = cls;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Error_class);

LC_API int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (!string || !resultlen)
        return lc_mpi_error(NULL, "MPI_Error_string", lc_error(MPI_ERR_ARG, "string or resultlen is NULL"));
    if (errorcode < 0 || lc_error_class_of(errorcode) > MPI_ERR_VALUE_TOO_LARGE)
        return lc_mpi_error(NULL, "MPI_Error_string", lc_error(MPI_ERR_ARG, "%d is not an MPI error code", errorcode));
    lc_error_string(errorcode, string, MPI_MAX_ERROR_STRING);
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Error_string);
