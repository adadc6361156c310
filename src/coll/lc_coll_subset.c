/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_subset.c — an allreduce among some ranks of a communicator,
 * for MPI_Comm_create_group, which only the members of a group call.
 *
 * The members talk in the parent's collective context under their parent
 * ranks, with a tag of their own (LC_COLL_TAG_SUBSET | the user's tag),
 * so the messages can meet neither the parent's collectives nor another
 * group's creation.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

/* Dissemination: at step k member i sends to member i + 2^k and receives
 * from member i - 2^k (mod n).  After ceil(log2 n) steps every member has
 * combined every other member's words, some of them more than once; AND
 * is idempotent, so the repeats change nothing. */
int lc_coll_subset_band(uint64_t *words, size_t nwords, const int *members, int n, int me, int tag,
                        lc_comm_t *comm)
{
    int rc = MPI_SUCCESS;
    size_t bytes = nwords * sizeof(uint64_t);
    uint64_t *in = lc_coll_alloc(bytes, &rc);
    if (!in) return rc;
    for (int dist = 1; dist < n && rc == MPI_SUCCESS; dist <<= 1) {
        int to = members[(me + dist) % n], from = members[(me - dist % n + n) % n];
        rc = lc_coll_sendrecv(words, bytes, to, in, bytes, from, tag, comm);
        for (size_t w = 0; rc == MPI_SUCCESS && w < nwords; w++) words[w] &= in[w];
    }
    free(in);
    return rc;
}
