/* SPDX-License-Identifier: BSD-3-Clause */
/* PMI client, dynamic processes: ask the launcher (Locus's mpiexec) to
 * start a new job, for MPI_Comm_spawn / MPI_Comm_spawn_multiple, and ask
 * it how many processes the run may hold (MPI_UNIVERSE_SIZE).
 * Wire format: docs/dynamic.md "Step 2". */
#ifndef LC_PMI_SPAWN_H
#define LC_PMI_SPAWN_H

#include <stddef.h>

#include "pmi/lc_pmi.h"

typedef struct lc_pmi_spawn_cmd {
    const char  *command;   /* program as given to MPI_Comm_spawn: resolved like mpiexec resolves
                               its program (PATH, or the "path" info key; relative to "wdir") */
    char *const *argv;      /* arguments after the program, NULL-terminated; NULL = none */
    int          maxprocs;  /* >= 1 */
    int          ninfo;     /* info key/value pairs of this command: "wdir", "path", "host",
                               unknown keys are ignored */
    const char *const *info_keys;
    const char *const *info_vals;
} lc_pmi_spawn_cmd_t;

/* Start ONE new job of sum(maxprocs) processes: command 0's processes are ranks 0..m0-1, then
 * command 1's, ...; each process's appnum = its command index.  Before any child starts, the
 * launcher puts each preput key/value into the child job's key space (the children read them
 * with lc_pmi_get, no fence needed) together with `lc-parent-kvs` = the caller's kvsname.
 * Returns 0 when every child was started (exec succeeded): child_kvs gets the new job's name and
 * errcodes[i] (i < total procs) = 0.  Returns LC_PMI_REFUSED when the launcher refused or no
 * child could be started (program not found / not executable, too many processes, not under a
 * Locus mpiexec): NO child runs, errcodes[i] = an MPI error class (MPI_ERR_SPAWN,
 * MPI_ERR_NO_SUCH_FILE ...), why[] = one line saying what was wrong and what to do.
 * -1 after printing why on protocol failure.  Called from any thread after MPI_Init: the same
 * mutex as the name service keeps request and reply together.  Values may contain any bytes
 * but NUL (spaces, '=', newlines in argv): encode them on the wire. */
int lc_pmi_spawn(int ncmds, const lc_pmi_spawn_cmd_t *cmds,
                 int npreput, const char *const *preput_keys, const char *const *preput_vals,
                 char *child_kvs, size_t kvslen, int *errcodes, char *why, size_t whylen);

/* The universe size the launcher offers (slots of the run, `mpiexec -usize N` or the host
 * list's slots; at least the world size), or -1 when unknown (singleton / foreign launcher). */
int lc_pmi_universe_size(void);

#endif /* LC_PMI_SPAWN_H */
