/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_stage_coll.c — the data-moving collectives with derived
 * datatypes: each stages its send side (packed now) and receive side
 * (unpacked after), then runs the coll layer's algorithm on bytes.  With
 * predefined types only, each is a plain call of lc_coll_* — except for
 * the padded pair types (MPI_DOUBLE_INT...), staged as derived types are,
 * so that they travel as their type signature (lc_mpi_coll_type).
 *
 * Which sides are staged follows where they are significant (receive
 * buffers of gathers at the root, send buffers of scatters at the root).
 * MPI_IN_PLACE leaves the calling rank's data in the receive buffer: that
 * buffer is then packed first as well (LC_STAGE_INOUT).
 */
#include "mpi/lc_mpi_stage.h"

/* Free the send stage, finish (unpack) the receive stage if the operation
 * succeeded. */
static int lc_stage_end(int rc, lc_stage_t *in, lc_stage_t *out)
{
    lc_stage_free(in);
    if (rc) {
        lc_stage_free(out);
        return rc;
    }
    return lc_stage_finish(out);
}

static int lc_stage_rdir(const void *sbuf)
{
    return sbuf == MPI_IN_PLACE ? LC_STAGE_INOUT : LC_STAGE_OUT;
}

int lc_stage_bcast(void *buf, size_t count, MPI_Datatype dt, int root, lc_comm_t *comm)
{
    if (lc_mpi_coll_plain(dt)) return lc_coll_bcast(buf, count, dt, root, comm);
    lc_stage_t s, none = { .per = 1 };
    void *b;
    MPI_Datatype t;
    int rc = lc_stage_buf(&s, buf, (MPI_Count)count, dt, comm->rank == root ? LC_STAGE_IN : LC_STAGE_OUT, true, &b, &t);
    if (rc) return rc;
    rc = lc_coll_bcast(b, count * s.per, t, root, comm);
    return lc_stage_end(rc, &none, &s);
}

int lc_stage_gather(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                    int root, lc_comm_t *comm)
{
    if (!lc_stage_needed2(sdt, rdt)) return lc_coll_gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    lc_stage_t ss, rs;
    void *sb, *rb;
    MPI_Datatype st, rt;
    int rc = lc_stage_buf(&ss, sbuf, (MPI_Count)scount, sdt, LC_STAGE_IN, true, &sb, &st);
    if (rc) return rc;
    rc = lc_stage_buf(&rs, rbuf, (MPI_Count)(rcount * (size_t)comm->size), rdt, lc_stage_rdir(sbuf), comm->rank == root,
                      &rb, &rt);
    if (rc) return lc_stage_end(rc, &ss, &rs);
    rc = lc_coll_gather(sb, scount * ss.per, st, rb, rcount * rs.per, rt, root, comm);
    return lc_stage_end(rc, &ss, &rs);
}

int lc_stage_scatter(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                     int root, lc_comm_t *comm)
{
    if (!lc_stage_needed2(sdt, rdt)) return lc_coll_scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    lc_stage_t ss, rs;
    void *sb, *rb;
    MPI_Datatype st, rt;
    int rc = lc_stage_buf(&ss, sbuf, (MPI_Count)(scount * (size_t)comm->size), sdt, LC_STAGE_IN, comm->rank == root,
                          &sb, &st);
    if (rc) return rc;
    rc = lc_stage_buf(&rs, rbuf, (MPI_Count)rcount, rdt, LC_STAGE_OUT, true, &rb, &rt);
    if (rc) return lc_stage_end(rc, &ss, &rs);
    rc = lc_coll_scatter(sb, scount * ss.per, st, rb, rcount * rs.per, rt, root, comm);
    return lc_stage_end(rc, &ss, &rs);
}

int lc_stage_allgather(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                       lc_comm_t *comm)
{
    if (!lc_stage_needed2(sdt, rdt)) return lc_coll_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    lc_stage_t ss, rs;
    void *sb, *rb;
    MPI_Datatype st, rt;
    int rc = lc_stage_buf(&ss, sbuf, (MPI_Count)scount, sdt, LC_STAGE_IN, true, &sb, &st);
    if (rc) return rc;
    rc = lc_stage_buf(&rs, rbuf, (MPI_Count)(rcount * (size_t)comm->size), rdt, lc_stage_rdir(sbuf), true, &rb, &rt);
    if (rc) return lc_stage_end(rc, &ss, &rs);
    rc = lc_coll_allgather(sb, scount * ss.per, st, rb, rcount * rs.per, rt, comm);
    return lc_stage_end(rc, &ss, &rs);
}

int lc_stage_alltoall(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                      lc_comm_t *comm)
{
    if (!lc_stage_needed2(sdt, rdt)) return lc_coll_alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    lc_stage_t ss, rs;
    void *sb, *rb;
    MPI_Datatype st, rt;
    size_t n = (size_t)comm->size;
    int rc = lc_stage_buf(&ss, sbuf, (MPI_Count)(scount * n), sdt, LC_STAGE_IN, true, &sb, &st);
    if (rc) return rc;
    rc = lc_stage_buf(&rs, rbuf, (MPI_Count)(rcount * n), rdt, lc_stage_rdir(sbuf), true, &rb, &rt);
    if (rc) return lc_stage_end(rc, &ss, &rs);
    rc = lc_coll_alltoall(sb, scount * ss.per, st, rb, rcount * rs.per, rt, comm);
    return lc_stage_end(rc, &ss, &rs);
}

int lc_stage_gatherv(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, const lc_vec_t *rv,
                     MPI_Datatype rdt, int root, lc_comm_t *comm)
{
    if (!lc_stage_needed2(sdt, rdt)) return lc_coll_gatherv(sbuf, scount, sdt, rbuf, rv, rdt, root, comm);
    lc_stage_t ss, rs;
    void *sb, *rb;
    MPI_Datatype st, rt;
    lc_vec_t v;
    int rc = lc_stage_buf(&ss, sbuf, (MPI_Count)scount, sdt, LC_STAGE_IN, true, &sb, &st);
    if (rc) return rc;
    rc = lc_stage_vec(&rs, rbuf, rv, comm->size, rdt, lc_stage_rdir(sbuf), comm->rank == root, &rb, &v, &rt);
    if (rc) return lc_stage_end(rc, &ss, &rs);
    rc = lc_coll_gatherv(sb, scount * ss.per, st, rb, &v, rt, root, comm);
    return lc_stage_end(rc, &ss, &rs);
}

int lc_stage_scatterv(const void *sbuf, const lc_vec_t *sv, MPI_Datatype sdt, void *rbuf, size_t rcount,
                      MPI_Datatype rdt, int root, lc_comm_t *comm)
{
    if (!lc_stage_needed2(sdt, rdt)) return lc_coll_scatterv(sbuf, sv, sdt, rbuf, rcount, rdt, root, comm);
    lc_stage_t ss, rs;
    void *sb, *rb;
    MPI_Datatype st, rt;
    lc_vec_t v;
    int rc = lc_stage_vec(&ss, sbuf, sv, comm->size, sdt, LC_STAGE_IN, comm->rank == root, &sb, &v, &st);
    if (rc) return rc;
    rc = lc_stage_buf(&rs, rbuf, (MPI_Count)rcount, rdt, LC_STAGE_OUT, true, &rb, &rt);
    if (rc) return lc_stage_end(rc, &ss, &rs);
    rc = lc_coll_scatterv(sb, &v, st, rb, rcount * rs.per, rt, root, comm);
    return lc_stage_end(rc, &ss, &rs);
}

int lc_stage_allgatherv(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, const lc_vec_t *rv,
                        MPI_Datatype rdt, lc_comm_t *comm)
{
    if (!lc_stage_needed2(sdt, rdt)) return lc_coll_allgatherv(sbuf, scount, sdt, rbuf, rv, rdt, comm);
    lc_stage_t ss, rs;
    void *sb, *rb;
    MPI_Datatype st, rt;
    lc_vec_t v;
    int rc = lc_stage_buf(&ss, sbuf, (MPI_Count)scount, sdt, LC_STAGE_IN, true, &sb, &st);
    if (rc) return rc;
    rc = lc_stage_vec(&rs, rbuf, rv, comm->size, rdt, lc_stage_rdir(sbuf), true, &rb, &v, &rt);
    if (rc) return lc_stage_end(rc, &ss, &rs);
    rc = lc_coll_allgatherv(sb, scount * ss.per, st, rb, &v, rt, comm);
    return lc_stage_end(rc, &ss, &rs);
}

int lc_stage_alltoallv(const void *sbuf, const lc_vec_t *sv, MPI_Datatype sdt, void *rbuf, const lc_vec_t *rv,
                       MPI_Datatype rdt, lc_comm_t *comm)
{
    if (!lc_stage_needed2(sdt, rdt)) return lc_coll_alltoallv(sbuf, sv, sdt, rbuf, rv, rdt, comm);
    lc_stage_t ss, rs;
    void *sb, *rb;
    MPI_Datatype st, rt;
    lc_vec_t svv, rvv;
    int rc = lc_stage_vec(&ss, sbuf, sv, comm->size, sdt, LC_STAGE_IN, true, &sb, &svv, &st);
    if (rc) return rc;
    rc = lc_stage_vec(&rs, rbuf, rv, comm->size, rdt, lc_stage_rdir(sbuf), true, &rb, &rvv, &rt);
    if (rc) return lc_stage_end(rc, &ss, &rs);
    rc = lc_coll_alltoallv(sb, &svv, st, rb, &rvv, rt, comm);
    return lc_stage_end(rc, &ss, &rs);
}
