/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_blocks.h — one side (send or receive) of a collective whose
 * blocks may each have their own count, displacement and datatype
 * (MPI_Alltoallw, the neighbourhood collectives), as the user gave it,
 * and its translation into block sizes and byte offsets for src/coll.
 */
#ifndef LC_MPI_BLOCKS_H
#define LC_MPI_BLOCKS_H

#include "mpi/lc_mpi.h"

#include <stdbool.h>
#include <stddef.h>

/* What the user passed: one count and type for all blocks (packed, or
 * all the same block), counts and element displacements with one type
 * (the v forms), or counts, byte displacements and types (the w forms). */
typedef enum { LC_BLOCKS_UNIFORM, LC_BLOCKS_V, LC_BLOCKS_W } lc_blocks_kind_t;

typedef struct lc_blocks {
    lc_blocks_kind_t kind;
    const void *buf;
    /* counts: int[] or MPI_Count[]; both NULL: `count` for every block */
    const int *icounts;
    const MPI_Count *wcounts;
    MPI_Count count;
    /* displacements: int[] or MPI_Aint[]; both NULL: blocks packed in
     * order (block i at i * count elements), or all at buf (`same`) */
    const int *idispls;
    const MPI_Aint *wdispls;
    bool same;                 /* every block is the one at buf (allgather's send side) */
    const MPI_Datatype *types; /* one per block (the w forms); NULL: `type` */
    MPI_Datatype type;
    const char *side; /* "send" or "recv", for messages */
} lc_blocks_t;

/* Check n blocks of b (arrays present, counts, types, buffer) and give each one's size
 * in bytes and its offset from b->buf. */
int lc_blocks_resolve(const lc_blocks_t *b, int n, size_t *bytes, ptrdiff_t *off);

/* Derived datatypes (lc_mpi_blocks_stage.c).  After lc_blocks_resolve, a
 * side's blocks of a derived type are shown to src/coll as bytes: a dense
 * one in place (at its true lower bound), others through one packed
 * buffer — packed now (LC_STAGE_IN) or unpacked by lc_blocks_stage_finish
 * (LC_STAGE_OUT), or, while a schedule captures the call, by pack and
 * unpack steps of the schedule, which owns the buffer (lc_mpi_stage.h).
 * When anything is staged every offset becomes an address (base
 * MPI_BOTTOM).  peers (NULL: none) marks blocks to leave alone
 * (MPI_PROC_NULL); `all` stages every block whatever its type (the send
 * side of an in-place alltoallw made from the receive side). */
typedef struct lc_blocks_stage {
    int n, dir;
    char *packed;                 /* blocking: owned */
    struct lc_bstage_blk *blk;    /* blocking: the staged blocks */
    struct lc_stage_step **steps; /* captured: one step per staged block */
    struct lc_sched *sched;
} lc_blocks_stage_t;

/* Whether any of n blocks of b with elements has a derived type (or a
 * padded pair type, which moves as its signature: lc_mpi_coll_type). */
bool lc_blocks_derived(const lc_blocks_t *b, int n);
int lc_blocks_stage(lc_blocks_stage_t *st, const lc_blocks_t *b, int n, const int *peers, int dir, bool all,
                    size_t *bytes, ptrdiff_t *off, const void **base_p);
int lc_blocks_stage_finish(lc_blocks_stage_t *st);
void lc_blocks_stage_free(lc_blocks_stage_t *st);

#endif
