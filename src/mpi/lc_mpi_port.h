/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_port.h — ports of MPI_Open_port (lc_mpi_port.c), as
 * MPI_Comm_accept / MPI_Comm_connect (lc_mpi_connect.c) use them.
 *
 * A port name is "locus:<kvsname>:<world rank>:<id>[:<ofi address>]": the
 * job, the process that opened the port (whose MPI_Comm_accept owns it), a
 * number that process gave it, and — when its network endpoint is open —
 * the endpoint's address, which a process of another job needs to reach
 * the owner (docs/dynamic.md).
 */
#ifndef LC_MPI_PORT_H
#define LC_MPI_PORT_H

#include <mpi.h>
#include <stdbool.h>

/* Port ids fit the low 24 bits of the tags the handshake uses. */
#define LC_PORT_ID_MAX 0x00ffffff

/* The handshake's tags on MPI_COMM_WORLD's collective context: the
 * connecting leader's request to the port's owner, then the leaders'
 * exchange (lc_inter_connect); MPI_Comm_join's exchange. */
#define LC_TAG_PORT_REQUEST 0x30000000
#define LC_TAG_PORT_BRIDGE 0x31000000
#define LC_TAG_JOIN 0x32000000
/* Between jobs (lc_mpi_xconnect.c), on the roots' pair communicator: the
 * tables of addresses and ids; then the bridge. */
#define LC_TAG_XPORT 0x33000000
#define LC_TAG_XBRIDGE 0x34000000

typedef struct lc_port {
    int rank;    /* world rank of the opener */
    unsigned id; /* 1..LC_PORT_ID_MAX */
    bool same_job;
    char addr[MPI_MAX_PORT_NAME]; /* the owner's network address ("" if none) */
} lc_port_t;

/* Parse port_name: MPI_SUCCESS, or MPI_ERR_PORT with a message (malformed,
 * or a port of another job).  `func` names the caller's argument. */
int lc_port_parse(const char *port_name, lc_port_t *port_p);
/* Whether this process opened port id and has not closed it. */
bool lc_port_is_open(unsigned id);
/* At a connecting root: MPI_ERR_PORT when the port's owner has closed it
 * (asks the launcher's key space: one PMI round trip). */
int lc_port_check_open(const char *port_name, const lc_port_t *port);
/* Open a port (MPI_Open_port's work): its name into port_name. */
int lc_port_open(char *port_name);
/* Close a port this process opened (MPI_Close_port's work). */
int lc_port_close(const char *port_name);

#endif
