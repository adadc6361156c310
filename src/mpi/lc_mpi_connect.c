/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_connect.c — MPI_Comm_accept, MPI_Comm_connect, MPI_Comm_join and
 * MPI_Comm_disconnect (MPI 4.1 §11.4, §11.5.4, §11.10.4).  Between groups
 * of one job as below; between jobs: lc_mpi_xconnect.c (the accepting root
 * takes whichever comes first).
 *
 * Accept and connect: the connecting root sends a request to the port's
 * owner (the accepting root, named in the port) on MPI_COMM_WORLD's
 * collective context, tag LC_TAG_PORT_REQUEST | id; the owner receives
 * from any source on that tag, so requests queue until an accept takes
 * them, one per accept, in arrival order.  Then both roots know each
 * other's world rank and run the intercommunicator bridge of
 * lc_mpi_intercomm.c (tag LC_TAG_PORT_BRIDGE | id), which agrees a
 * context id free on both groups.  Join does the same with the peer's
 * world rank read from the socket.
 */
#include "coll/lc_coll.h"
#include "coord/lc_world.h"
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_comm.h"
#include "mpi/lc_mpi_inter.h"
#include "mpi/lc_mpi_port.h"
#include "mpi/lc_mpi_xconnect.h"
#include "pt2pt/lc_pt2pt.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The accepting root waits for a connection request of its job (a
 * message on MPI_COMM_WORLD) or a hello of another job (lc_x_take_arrival),
 * whichever comes first.  *xid_p = the other job's root's id, or -1 and
 * *rworld_p = the requester's world rank. */
static int lc_accept_wait(const lc_port_t *p, int *rworld_p, int *xid_p)
{
    lc_comm_t *world = lc_comm_builtin[0];
    uint32_t req = 0;
    lc_request_t *r = NULL;
    MPI_Status st;
    int rc = lc_pt2pt_irecv(&req, sizeof(req), MPI_ANY_SOURCE, (int)(LC_TAG_PORT_REQUEST | p->id), world,
                            LC_CTX_COLL, &r);
    if (rc != MPI_SUCCESS) return rc;
    *xid_p = -1;
    for (;;) {
        if (r->complete) break;
        int xid = lc_x_take_arrival(p->id);
        if (xid >= 0) {
            lc_pt2pt_cancel(r);
            lc_pt2pt_wait_release(r, &st);
            if (st.count_hi_and_cancelled & 1) {
                *xid_p = xid;
                return MPI_SUCCESS;
            }
            /* A request of our job matched meanwhile: it goes first, the
             * hello waits for the next accept. */
            lc_x_requeue(p->id, xid);
            *rworld_p = st.MPI_SOURCE;
            return MPI_SUCCESS;
        }
        if (!lc_progress()) lc_progress_idle();
    }
    rc = lc_pt2pt_wait_release(r, &st);
    *rworld_p = st.MPI_SOURCE;
    return rc;
}

/* The root's part before the bridge: the remote root's world rank (same
 * job), or *xid_p >= 0 / *cross_p (another job). */
static int lc_connect_root(const char *port_name, bool accept, lc_port_t *p, int *rworld_p, int *xid_p,
                           int *cross_p)
{
    int rc = lc_port_parse(port_name, p);
    if (rc != MPI_SUCCESS) return rc;
    *xid_p = -1;
    *cross_p = 0;
    if (accept) {
        if (!p->same_job || p->rank != lc_world.rank || !lc_port_is_open(p->id))
            return lc_error(MPI_ERR_PORT,
                            "port '%s' is not open at this process (world rank %d): accept on a port "
                            "this process opened with MPI_Open_port",
                            port_name, lc_world.rank);
        rc = lc_accept_wait(p, rworld_p, xid_p);
        *cross_p = *xid_p >= 0;
        return rc;
    }
    if (!p->same_job) {
        *cross_p = 1;
        return MPI_SUCCESS;
    }
    lc_comm_t *world = lc_comm_builtin[0];
    uint32_t req = p->id;
    lc_request_t *s = NULL;
    rc = lc_port_check_open(port_name, p);
    if (rc != MPI_SUCCESS) return rc;
    rc = lc_pt2pt_isend(&req, sizeof(req), p->rank, (int)(LC_TAG_PORT_REQUEST | p->id), world, LC_CTX_COLL,
                        LC_MODE_STANDARD, &s);
    if (rc == MPI_SUCCESS) rc = lc_pt2pt_wait_release(s, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    *rworld_p = p->rank;
    return MPI_SUCCESS;
}

int lc_connect_comm(lc_comm_t *c, const char *port_name, int root, bool accept, lc_comm_t **out_p)
{
    /* port_name is significant at the root only; the root tells the
     * others which way it goes (and its failure, through the bridge). */
    lc_port_t p;
    memset(&p, 0, sizeof(p));
    int lrc = MPI_SUCCESS, rworld = -1, xid = -1, cross = 0;
    if (c->rank == root) lrc = lc_connect_root(port_name, accept, &p, &rworld, &xid, &cross);
    int hdr[2] = { cross, lrc };
    int rc = lc_coll_bcast(hdr, 2, MPI_INT, root, c);
    if (rc != MPI_SUCCESS) return rc;
    if (hdr[0]) return lc_x_connect(c, root, accept, &p, xid, hdr[1], out_p);
    return lc_inter_connect(c, root, rworld, (int)(LC_TAG_PORT_BRIDGE | p.id), lrc, out_p);
}

static int lc_connect_common(const char *func, const char *port_name, int root, MPI_Comm comm, MPI_Comm *newcomm,
                             bool accept)
{
    lc_comm_t *c = NULL, *n = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_intra(c, func));
    LC_TRY(lc_check_ptr(newcomm, "newcomm"));
    if (root < 0 || root >= c->size)
        LC_TRY(lc_error(MPI_ERR_ROOT, "root %d is out of range for a communicator of size %d", root, c->size));
    LC_TRY(lc_connect_comm(c, port_name, root, accept, &n));
    *newcomm = n->handle;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    (void)info;
    return lc_connect_common("MPI_Comm_accept", port_name, root, comm, newcomm, true);
}
LC_MPI_ALIAS(Comm_accept);

LC_API int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    (void)info;
    return lc_connect_common("MPI_Comm_connect", port_name, root, comm, newcomm, false);
}
LC_MPI_ALIAS(Comm_connect);

/* ---- MPI_Comm_join ----------------------------------------------------- */

/* What each side writes on the socket: who it is. */
typedef struct lc_join_hello {
    char magic[8]; /* "locusJ1" */
    int32_t rank;  /* world rank */
    char kvsname[256];
} lc_join_hello_t;

static int lc_join_io(int fd, void *buf, size_t len, bool out)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == ENOTSOCK)
            return lc_error(MPI_ERR_ARG, "fd %d is not a socket: MPI_Comm_join needs a connected socket", fd);
        if (n < 0)
            return lc_error(MPI_ERR_OTHER, "MPI_Comm_join cannot %s socket %d: %s", out ? "write to" : "read from", fd,
                            strerror(errno));
        if (n == 0)
            return lc_error(MPI_ERR_OTHER, "the other end of socket %d closed it before MPI_Comm_join's exchange", fd);
        p += n;
        len -= (size_t)n;
    }
    return MPI_SUCCESS;
}

LC_API int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    lc_comm_t *self = NULL, *n = NULL;
    lc_join_hello_t me, peer;
    int rc;
    LC_TRY(lc_check_comm(MPI_COMM_SELF, &self));
    LC_TRY(lc_check_ptr(intercomm, "intercomm"));
    memset(&me, 0, sizeof(me));
    memcpy(me.magic, "locusJ1", 8);
    me.rank = lc_world.rank;
    snprintf(me.kvsname, sizeof(me.kvsname), "%s", lc_world.kvsname);
    /* Both write first: the hello fits any socket buffer, so neither
     * blocks before reading. */
    LC_TRY(lc_join_io(fd, &me, sizeof(me), true));
    LC_TRY(lc_join_io(fd, &peer, sizeof(peer), false));
    peer.kvsname[sizeof(peer.kvsname) - 1] = '\0';
    if (memcmp(peer.magic, "locusJ1", 8) != 0)
        LC_TRY(lc_error(MPI_ERR_OTHER, "the other end of socket %d did not answer as a Locus MPI_Comm_join", fd));
    if (strcmp(peer.kvsname, me.kvsname) != 0)
        LC_TRY(lc_error(MPI_ERR_UNSUPPORTED_OPERATION,
                        "the other end of socket %d belongs to another job (%s; this "
                        "job is %s): joining separate jobs is not supported yet, see "
                        "docs/dynamic.md",
                        fd, peer.kvsname, me.kvsname));
    if (peer.rank < 0 || peer.rank >= lc_world.size || peer.rank == lc_world.rank)
        LC_TRY(lc_error(MPI_ERR_OTHER,
                        "the other end of socket %d is world rank %d (this is %d): MPI_Comm_join "
                        "joins two different processes",
                        fd, (int)peer.rank, lc_world.rank));
    LC_TRY(lc_inter_connect(self, 0, peer.rank, LC_TAG_JOIN, MPI_SUCCESS, &n));
    *intercomm = n->handle;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(self, "MPI_Comm_join", rc);
}
LC_MPI_ALIAS(Comm_join);

/* ---- MPI_Comm_disconnect ------------------------------------------------- */

/* A barrier over the communicator: every member has issued all its
 * communication on it and the channels deliver in order, so what was sent
 * before has arrived; then the communicator is freed. */
LC_API int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_ptr(comm, "comm"));
    LC_TRY(lc_check_comm(*comm, &c));
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        LC_TRY(lc_error(MPI_ERR_COMM, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be disconnected"));
    LC_TRY(c->remote_world ? lc_inter_barrier(c) : lc_coll_barrier(c));
    lc_mpi_spawn_forget_parent(*comm);
    return PMPI_Comm_free(comm);
err:
    return lc_mpi_error(c, "MPI_Comm_disconnect", rc);
}
LC_MPI_ALIAS(Comm_disconnect);
