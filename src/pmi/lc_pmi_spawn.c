/* SPDX-License-Identifier: BSD-3-Clause */
/* PMI client: spawn and universe size (lc_pmi_spawn.h).
 * Skeleton on branch h1-spawnlaunch only: not implemented yet. */
#include "pmi/lc_pmi_spawn.h"

#include <stdio.h>

#include "pmi/lc_pmi_impl.h"

int lc_pmi_spawn(int ncmds, const lc_pmi_spawn_cmd_t *cmds,
                 int npreput, const char *const *preput_keys, const char *const *preput_vals,
                 char *child_kvs, size_t kvslen, int *errcodes, char *why, size_t whylen)
{
    (void)ncmds; (void)cmds; (void)npreput; (void)preput_keys; (void)preput_vals;
    (void)child_kvs; (void)kvslen; (void)errcodes;
    if (why != NULL && whylen > 0) snprintf(why, whylen, "lc_pmi_spawn: not yet implemented");
    return -1;
}

int lc_pmi_universe_size(void)
{
    return -1;
}
