/* SPDX-License-Identifier: BSD-3-Clause */
/* A spawn request as it arrives (mpiexec_spawn_req.c), for the code that
 * starts its job (mpiexec_spawn_job.c).  Wire format: mpiexec_spawn_job.c. */
#ifndef MPIEXEC_SPAWN_REQ_H
#define MPIEXEC_SPAWN_REQ_H

#include "mpiexec.h"

/* Bounds on one request, against a runaway client: strings in all, and
 * counts (processes are bounded by MPIEXEC_RUN_PROCS_MAX). */
#define MPIEXEC_SPAWN_BYTES_MAX (4u << 20)
#define MPIEXEC_SPAWN_CMDS_MAX  MPIEXEC_RUN_PROCS_MAX
#define MPIEXEC_SPAWN_ITEMS_MAX 65536 /* arguments, info or preput pairs of one command / request */

typedef struct mpiexec_spawn_cmd_in {
    int           seen;      /* its spawn_cmd line came */
    int           nprocs, argc, ninfo;
    mpiexec_buf_t exec;
    mpiexec_buf_t *args;     /* [argc] */
    mpiexec_buf_t *ikeys, *ivals; /* [ninfo] */
} mpiexec_spawn_cmd_in_t;

/* the type of mpiexec_rank_t.spawn_in */
struct mpiexec_spawn_in {
    int                     ncmds, npreput;
    mpiexec_spawn_cmd_in_t *cmds;
    mpiexec_buf_t          *pkeys, *pvals; /* [npreput] */
    size_t                  bytes;
    char                    refuse[512];   /* set: the answer will be a refusal */
};

/* One spawn_begin / spawn_cmd / spawn_str line into r->spawn_in: 0, or -1
 * if malformed (or out of memory).  A request that will be refused (too
 * large, a NUL in a string) is still taken to its end: in->refuse says why. */
int mpiexec_spawn_req_take(mpiexec_rank_t *r, const lc_pmi_msg_t *msg);
/* A received string as a C string ("" if nothing came), NULL without memory. */
const char *mpiexec_spawn_s(mpiexec_buf_t *b);
void mpiexec_spawn_in_destroy(struct mpiexec_spawn_in *in);

#endif
