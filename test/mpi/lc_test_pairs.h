/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_test_pairs.h — the pair types' tests (pt2pt_pairs, coll_pairs): a
 * pair type described by its value type and the C struct {V v; int i;}
 * it lies in, so each rank can declare the same items its own way.
 */
#ifndef LC_TEST_PAIRS_H
#define LC_TEST_PAIRS_H

#include <stddef.h>

typedef struct pair_desc {
    MPI_Datatype pair, value;
    const char *name;
    size_t vsize, ioff, extent; /* the C struct {V v; int i;} */
} pair_desc_t;

#define PAIR(P, V, CT)                                                                                                 \
    {                                                                                                                  \
        P, V, #P, sizeof(CT),                                                                                          \
            offsetof(                                                                                                  \
                struct {                                                                                               \
                    CT v;                                                                                              \
                    int i;                                                                                             \
                },                                                                                                     \
                i),                                                                                                    \
            sizeof(struct {                                                                                            \
                CT v;                                                                                                  \
                int i;                                                                                                 \
            })                                                                                                         \
    }

#endif
