/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_spawn.c — MPI_Comm_spawn, MPI_Comm_spawn_multiple and
 * MPI_Comm_get_parent (MPI 4.1 §11.8), over the launcher's spawn
 * (src/pmi/lc_pmi_spawn.h) and accept/connect between jobs
 * (lc_mpi_xconnect.c).  docs/dynamic.md, step 4.
 *
 * Parent (collective over comm): the root opens a port and asks the
 * launcher for one new job of all the commands' processes, with the key
 * `lc-spawn-port` = the port name put into the children's key space.
 * The root broadcasts the outcome and the error codes: a refused spawn
 * returns the launcher's class on every member and makes no
 * intercommunicator.  Otherwise the members accept on the port (the
 * root's) and the root closes it.
 *
 * Child: MPI_Init, once the world is wired up, finds `lc-spawn-port` in
 * its job's key space and connects MPI_COMM_WORLD to it: the result is
 * what MPI_Comm_get_parent returns.  A process without the key (a job
 * mpiexec started) has no parent.
 */
#include "channel/lc_ofi.h"
#include "coll/lc_coll.h"
#include "coord/lc_world.h"
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_comm.h"
#include "mpi/lc_mpi_info.h"
#include "mpi/lc_mpi_port.h"
#include "mpi/lc_mpi_xconnect.h"
#include "pmi/lc_pmi.h"
#include "pmi/lc_pmi_spawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LC_PARENT_PORT_KEY "lc-spawn-port" /* (lc-parent-* keys are the launcher's own) */
/* The info keys passed on to the launcher (others are ignored, as MPI
 * allows). */
static const char *const lc_spawn_keys[] = { "wdir", "path", "host" };
#define LC_SPAWN_NKEYS 3

static MPI_Comm lc_parent = MPI_COMM_NULL;

/* A child's MPI_Init: connect to the parent if there is one.  Errors end
 * the process (MPI_Init cannot return a parent it failed to reach). */
int lc_mpi_spawn_child_init(void)
{
    char port[MPI_MAX_PORT_NAME];
    int prc = lc_pmi_get(0, LC_PARENT_PORT_KEY, port, sizeof(port));
    if (prc == LC_PMI_NO_KEY) return MPI_SUCCESS;
    if (prc != 0) return lc_error(MPI_ERR_SPAWN, "cannot read the parent's port from the launcher");
    lc_comm_t *n = NULL;
    int rc = lc_connect_comm(lc_comm_builtin[0], port, 0, false, &n);
    if (rc != MPI_SUCCESS) return rc;
    lc_parent = n->handle;
    return MPI_SUCCESS;
}

void lc_mpi_spawn_forget_parent(MPI_Comm handle)
{
    if (handle == lc_parent) lc_parent = MPI_COMM_NULL;
}

LC_API int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(parent, "parent"));
    /* MPI_COMM_NULL once the program freed or disconnected it. */
    *parent = lc_parent != MPI_COMM_NULL && lc_comm_lookup(lc_parent) ? lc_parent : MPI_COMM_NULL;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Comm_get_parent", rc);
}
LC_MPI_ALIAS(Comm_get_parent);

/* One command as the launcher takes it: the info keys it knows. */
typedef struct lc_spawn_prep {
    const char *keys[LC_SPAWN_NKEYS];
    const char *vals[LC_SPAWN_NKEYS];
} lc_spawn_prep_t;

/* The root's checks and the launcher's answer.  errcodes[total]. */
static int lc_spawn_root(int count, char *commands[], char **argvs[], const int maxprocs[], const MPI_Info infos[],
                         int *total_p, int **codes_p, char *port)
{
    int rc = MPI_SUCCESS, total = 0;
    if (count < 1) return lc_error(MPI_ERR_ARG, "count %d: spawn at least one command", count);
    if (!commands) return lc_error(MPI_ERR_ARG, "the array of commands is NULL");
    if (!maxprocs) return lc_error(MPI_ERR_ARG, "the array of maxprocs is NULL");
    for (int i = 0; i < count; i++) {
        if (!commands[i] || !commands[i][0])
            return lc_error(MPI_ERR_SPAWN, "command %d is %s", i, commands[i] ? "empty" : "NULL");
        if (maxprocs[i] < 1 || maxprocs[i] > 4096)
            return lc_error(MPI_ERR_SPAWN, "maxprocs %d of command %d (%s): give 1..4096", maxprocs[i], i,
                            commands[i]);
        total += maxprocs[i];
    }
    lc_pmi_spawn_cmd_t *cmds = calloc((size_t)count, sizeof(*cmds));
    lc_spawn_prep_t *prep = calloc((size_t)count, sizeof(*prep));
    int *codes = malloc(sizeof(int) * (size_t)total);
    if (!cmds || !prep || !codes) {
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory spawning %d processes", total);
        goto out;
    }
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
        lc_info_t *info = NULL;
        rc = lc_check_info_or_null(infos ? infos[i] : MPI_INFO_NULL, &info);
        if (rc != MPI_SUCCESS) break;
        int k = 0;
        for (int j = 0; info && j < LC_SPAWN_NKEYS; j++) {
            const char *v = lc_info_get(info, lc_spawn_keys[j]);
            if (!v) continue;
            prep[i].keys[k] = lc_spawn_keys[j];
            prep[i].vals[k++] = v;
        }
        cmds[i].command = commands[i];
        cmds[i].argv = argvs ? argvs[i] : NULL;
        cmds[i].maxprocs = maxprocs[i];
        cmds[i].ninfo = k;
        cmds[i].info_keys = prep[i].keys;
        cmds[i].info_vals = prep[i].vals;
    }
    if (rc == MPI_SUCCESS) rc = lc_port_open(port);
    if (rc == MPI_SUCCESS && !lc_ofi_address()[0]) {
        /* The children reach us through the network channel only. */
        lc_port_close(port);
        rc = lc_error(MPI_ERR_SPAWN, "this process has no network endpoint (see the libfabric error above): "
                                     "spawned processes reach their parents through it");
    }
    if (rc == MPI_SUCCESS) {
        const char *pk[1] = { LC_PARENT_PORT_KEY }, *pv[1] = { port };
        char kvs[LC_PMI_KVSNAME_MAX], why[512] = "";
        for (int i = 0; i < total; i++) codes[i] = MPI_ERR_SPAWN;
        int prc = lc_pmi_spawn(count, cmds, 1, pk, pv, kvs, sizeof(kvs), codes, why, sizeof(why));
        if (prc != 0) {
            int cls = prc == LC_PMI_REFUSED && codes[0] != MPI_SUCCESS ? codes[0] : MPI_ERR_SPAWN;
            rc = lc_error(cls, "the launcher did not start %s%s: %s", commands[0], count > 1 ? " and the others" : "",
                          why[0] ? why : "spawning needs Locus's mpiexec (see the message above)");
            for (int i = 0; i < total; i++)
                if (codes[i] == MPI_SUCCESS) codes[i] = cls;
            lc_port_close(port);
        }
    }
out:
    free(cmds);
    free(prep);
    *total_p = total;
    *codes_p = codes;
    return rc;
}

static int lc_spawn_common(const char *func, int count, char *commands[], char **argvs[], const int maxprocs[],
                           const MPI_Info infos[], int root, MPI_Comm comm, MPI_Comm *intercomm, int errcodes[])
{
    lc_comm_t *c = NULL, *n = NULL;
    int *codes = NULL, rc;
    char port[MPI_MAX_PORT_NAME] = "";
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_intra(c, func));
    LC_TRY(lc_check_ptr(intercomm, "intercomm"));
    if (root < 0 || root >= c->size)
        LC_TRY(lc_error(MPI_ERR_ROOT, "root %d is out of range for a communicator of size %d", root, c->size));
    /* The arguments are significant at the root only; it tells the others
     * the outcome, the number of processes and their error codes. */
    int hdr[2] = { MPI_SUCCESS, 0 };
    if (c->rank == root) hdr[0] = lc_spawn_root(count, commands, argvs, maxprocs, infos, &hdr[1], &codes, port);
    LC_TRY(lc_coll_bcast(hdr, 2, MPI_INT, root, c));
    if (c->rank != root && hdr[1] > 0 && !(codes = malloc(sizeof(int) * (size_t)hdr[1])))
        LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory for %d error codes", hdr[1]));
    if (hdr[1] > 0 && codes) LC_TRY(lc_coll_bcast(codes, (size_t)hdr[1], MPI_INT, root, c));
    if (errcodes && codes)
        for (int i = 0; i < hdr[1]; i++) errcodes[i] = codes[i];
    if (hdr[0] != MPI_SUCCESS) {
        LC_TRY(c->rank == root ? hdr[0]
                               : lc_error(lc_error_class_of(hdr[0]), "the root (rank %d) could not spawn (see its error)",
                                          root));
    }
    rc = lc_connect_comm(c, port, root, true, &n);
    if (c->rank == root) lc_port_close(port);
    LC_TRY(rc);
    free(codes);
    *intercomm = n->handle;
    return MPI_SUCCESS;
err:
    free(codes);
    if (intercomm && c) *intercomm = MPI_COMM_NULL;
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                           MPI_Comm *intercomm, int array_of_errcodes[])
{
    char *cmds[1] = { (char *)command };
    char **argvs[1] = { argv };
    int mp[1] = { maxprocs };
    MPI_Info infos[1] = { info };
    return lc_spawn_common("MPI_Comm_spawn", 1, cmds, argvs, mp, infos, root, comm, intercomm, array_of_errcodes);
}
LC_MPI_ALIAS(Comm_spawn);

LC_API int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                                    const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    return lc_spawn_common("MPI_Comm_spawn_multiple", count, array_of_commands, array_of_argv, array_of_maxprocs,
                           array_of_info, root, comm, intercomm, array_of_errcodes);
}
LC_MPI_ALIAS(Comm_spawn_multiple);
