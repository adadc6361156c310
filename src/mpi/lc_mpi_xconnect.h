/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_xconnect.h — accept/connect between jobs (lc_mpi_xconnect.c) and
 * the identities of peers met after wire-up.
 */
#ifndef LC_MPI_XCONNECT_H
#define LC_MPI_XCONNECT_H

#include "mpi/lc_mpi_port.h"
#include "pt2pt/lc_comm.h"

#include <stdbool.h>
#include <stdint.h>

/* At MPI_Init: hellos from other jobs are taken from here on. */
void lc_x_init(void);
/* At MPI_Finalize: forget the peers met (the table goes with wire-up's). */
void lc_x_fini(void);
/* The id of a process whose hello to `port` has arrived and no accept has
 * taken yet (the oldest), removed from the queue; -1: none. */
int lc_x_take_arrival(unsigned port);
/* Put a taken arrival back at the head of the queue. */
void lc_x_requeue(unsigned port, int id);
/* Accept (accept) or connect over c (lc_mpi_connect.c): the work of
 * MPI_Comm_accept/connect, for MPI_Comm_spawn and a child's MPI_Init too. */
int lc_connect_comm(lc_comm_t *c, const char *port_name, int root, bool accept, lc_comm_t **out_p);
/* Collective over c: the intercommunicator with the group of another job
 * whose root connects (accept) or accepts (!accept).  At the root: `port`
 * (parsed) and, for accept, `other` = the id lc_x_take_arrival gave; lrc
 * its own earlier error (then no contact is made).  MPI error code. */
int lc_x_connect(lc_comm_t *c, int root, bool accept, const lc_port_t *port, int other, int lrc, lc_comm_t **out_p);
/* An order of processes that every process agrees on, whatever ids its
 * table gives them (MPI_Intercomm_merge's tie break): world rank within a
 * job, else a hash of (job, rank). */
bool lc_x_before(int a, int b);

/* lc_mpi_spawn.c: a spawned child's MPI_Init connects to its parent; the
 * parent intercommunicator is forgotten when disconnected. */
int lc_mpi_spawn_child_init(void);
void lc_mpi_spawn_forget_parent(MPI_Comm handle);

#endif
