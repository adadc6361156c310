/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_stage.h — derived datatypes in collectives: the coll layer moves
 * bytes of predefined types, so a buffer described by a derived type is
 * shown to it as contiguous packed bytes (MPI_BYTE), staged here.
 *
 * One lc_stage_t per user buffer of a call:
 *   lc_stage_buf / lc_stage_vec   before the operation: what to hand the
 *                                 coll layer (buffer, counts, datatype);
 *   lc_stage_finish               after it: unpack a receive side into the
 *                                 user's buffer, free the stage;
 *   lc_stage_free                 on an error path instead.
 * A buffer of a predefined type without padding (lc_mpi_coll_plain),
 * MPI_IN_PLACE, or a side the call does not look at passes through
 * unchanged (`per` 1); a padded pair type (MPI_DOUBLE_INT) is staged as
 * a derived type is, so its items travel as their 12 data bytes and meet
 * a struct of the same signature on another rank; a dense derived type is
 * shown in place at buf + true_lb (no copy); others are packed into a
 * buffer the stage owns.  Counts handed to the coll layer are the user's
 * counts times `per` (the type's packed size when staged).
 *
 * Nonblocking and persistent collectives (a schedule captures the call,
 * lc_coll_capture) stage the same way, but as steps of the schedule: the
 * packed buffer is the schedule's (lc_sched_alloc), the pack is a call
 * step put before the collective's own steps (so a persistent collective
 * packs the user's current data at every MPI_Start), and lc_stage_finish
 * appends a fence and an unpack step after them.  The step holds the
 * datatype (retained) until the schedule is freed (lc_sched_on_free), so
 * the user may free the type while the operation is pending.
 *
 * Blocking collectives of the MPI layer (lc_mpi_coll.c, lc_mpi_coll_vector.c)
 * use the front-ends below, which have lc_coll_*'s signatures.
 */
#ifndef LC_MPI_STAGE_H
#define LC_MPI_STAGE_H

#include "coll/lc_sched.h"
#include "mpi/lc_mpi_coll.h"

enum {
    LC_STAGE_IN = 1,   /* the operation reads the buffer: pack it now */
    LC_STAGE_OUT = 2,  /* the operation writes it: unpack at finish */
    LC_STAGE_INOUT = 3 /* both (MPI_IN_PLACE data in a receive buffer) */
};

/* A pack/unpack step of a schedule: n blocks of cnt[i] items of t at
 * user + uoff[i] (bytes), packed at packed + poff[i].  For the reductions
 * a pair type's packed records are also converted to and from the C
 * structs the kernels read (b, arr, nb: lc_mpi_stage_reduce.c); t is NULL
 * when only that conversion is needed (a dense type). */
typedef struct lc_stage_step {
    lc_dt_t *t;
    void *user;
    char *packed;
    int n;
    MPI_Count *cnt;
    MPI_Aint *uoff, *poff;
    lc_dt_t *b;
    void *arr;
    size_t nb;
} lc_stage_step_t;

typedef struct lc_stage {
    lc_sched_t *sched;     /* the capturing schedule, or NULL (blocking) */
    lc_stage_step_t *step; /* its pack/unpack step (owned by the schedule) */
    lc_dt_t *t;            /* the staged type (retained), or NULL: nothing to undo */
    void *user;            /* the user's buffer */
    void *packed;          /* owned packed bytes, or NULL */
    MPI_Count count;       /* items (lc_stage_buf) */
    int dir;
    size_t per;        /* multiply the user's counts by this for the coll layer */
    int nblocks;       /* lc_stage_vec: blocks, each count items at an item displacement */
    MPI_Count *vcount; /* owned: [nblocks] items, then [nblocks] bytes for the coll layer */
    MPI_Aint *vdispl;  /* owned: [nblocks] user item displacements, then [nblocks] packed byte offsets */
} lc_stage_t;

/* count items of dt at buf (dt validated where the side is significant;
 * pass `significant` false to pass the side through untouched). */
int lc_stage_buf(lc_stage_t *s, const void *buf, MPI_Count count, MPI_Datatype dt, int dir, bool significant,
                 void **buf_p, MPI_Datatype *dt_p);
/* n blocks of v (counts and displacements in items of dt).  *v_p is valid
 * until lc_stage_finish / lc_stage_free. */
int lc_stage_vec(lc_stage_t *s, const void *buf, const lc_vec_t *v, int n, MPI_Datatype dt, int dir, bool significant,
                 void **buf_p, lc_vec_t *v_p, MPI_Datatype *dt_p);
/* Blocking: unpack now.  Captured: add the unpack step (MPI_ERR_NO_MEM
 * is the only failure). */
int lc_stage_finish(lc_stage_t *s);
void lc_stage_free(lc_stage_t *s);
/* A step of schedule sc for n blocks of t (NULL: conversion only) at user,
 * with a packed buffer of packed_bytes (NULL: `packed` given). */
int lc_stage_step_new(lc_sched_t *sc, lc_dt_t *t, const void *user, int n, size_t packed_bytes, void *packed,
                      lc_stage_step_t **st_p);
/* Add st's pack step (before the collective's steps) / unpack step
 * (after them, behind a fence). */
int lc_stage_step_pack_at_start(lc_sched_t *sc, lc_stage_step_t *st);
int lc_stage_step_unpack_at_end(lc_sched_t *sc, lc_stage_step_t *st);

/* Whether either datatype needs staging: derived, or a padded pair type,
 * which moves as its signature (lc_mpi_coll_plain; the front-ends' fast
 * test, two compares for builtin types). */
static inline bool lc_stage_needed2(MPI_Datatype a, MPI_Datatype b)
{
    return lc_unlikely(!lc_mpi_coll_plain(a) || !lc_mpi_coll_plain(b));
}

/* ---- front-ends with lc_coll_*'s signatures (lc_mpi_stage_coll.c) ---------- */
int lc_stage_bcast(void *buf, size_t count, MPI_Datatype dt, int root, lc_comm_t *comm);
int lc_stage_gather(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                    int root, lc_comm_t *comm);
int lc_stage_scatter(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                     int root, lc_comm_t *comm);
int lc_stage_allgather(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                       lc_comm_t *comm);
int lc_stage_alltoall(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                      lc_comm_t *comm);
int lc_stage_gatherv(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, const lc_vec_t *rv,
                     MPI_Datatype rdt, int root, lc_comm_t *comm);
int lc_stage_scatterv(const void *sbuf, const lc_vec_t *sv, MPI_Datatype sdt, void *rbuf, size_t rcount,
                      MPI_Datatype rdt, int root, lc_comm_t *comm);
int lc_stage_allgatherv(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, const lc_vec_t *rv,
                        MPI_Datatype rdt, lc_comm_t *comm);
int lc_stage_alltoallv(const void *sbuf, const lc_vec_t *sv, MPI_Datatype sdt, void *rbuf, const lc_vec_t *rv,
                       MPI_Datatype rdt, lc_comm_t *comm);

/* ---- reductions (lc_mpi_stage_reduce.c) --------------------------------------
 * A predefined operation on a derived type made of one predefined type B
 * runs as the coll layer's reduction on the packed elements of B.  A user
 * operation on a derived type gets the user's datatype handle and buffers
 * laid out as the type says: the contributions are gathered packed and
 * combined in rank order, unpacked, by the user's function. */
int lc_stage_reduce(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, int root, lc_comm_t *comm);
/* MPI_Reduce_local with a predefined operation on a derived type (an f90
 * type, a vector of MPI_INT...): both buffers as arrays of its basic type. */
int lc_stage_reduce_local(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op);
int lc_stage_allreduce(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm);
int lc_stage_reduce_scatter(const void *sbuf, void *rbuf, const lc_vec_t *rv, MPI_Datatype dt, MPI_Op op,
                            lc_comm_t *comm);
int lc_stage_reduce_scatter_block(const void *sbuf, void *rbuf, size_t rcount, MPI_Datatype dt, MPI_Op op,
                                  lc_comm_t *comm);
int lc_stage_scan(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm);
int lc_stage_exscan(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm);

#endif
