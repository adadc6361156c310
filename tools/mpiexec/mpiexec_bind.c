/* SPDX-License-Identifier: BSD-3-Clause */
/* -bind-to core: which CPUs make up "core number i".
 *
 * Cores are counted among the CPUs mpiexec itself may run on (its own
 * affinity mask: a container or cgroup may allow only some), in order of
 * (package, core id), with SMT siblings of one core kept together: a rank
 * bound to a core may use all its hardware threads.  When the topology
 * files are missing, every CPU counts as a core. */
#include "mpiexec.h"

#include <stdio.h>

static int mpiexec_bind_read_int(int cpu, const char *what)
{
    char path[128];
    FILE *f;
    int v = -1;

    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
    f = fopen(path, "re");
    if (f == NULL)
        return -1;
    if (fscanf(f, "%d", &v) != 1)
        v = -1;
    fclose(f);
    return v;
}

int mpiexec_bind_cpuset(int index, cpu_set_t *set_p)
{
    cpu_set_t allowed;
    int pkg[CPU_SETSIZE], core[CPU_SETSIZE], cpus[CPU_SETSIZE];
    int ncpus = 0, ncores = 0, want;

    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &allowed))
            continue;
        cpus[ncpus] = c;
        pkg[ncpus] = mpiexec_bind_read_int(c, "physical_package_id");
        core[ncpus] = mpiexec_bind_read_int(c, "core_id");
        if (core[ncpus] < 0)
            core[ncpus] = c; /* unknown topology: one CPU, one core */
        ncpus++;
    }
    if (ncpus == 0)
        return -1;

    /* Number the distinct (package, core) pairs in order of first CPU. */
    int coreno[CPU_SETSIZE];
    for (int i = 0; i < ncpus; i++) {
        coreno[i] = -1;
        for (int j = 0; j < i; j++) {
            if (pkg[j] == pkg[i] && core[j] == core[i]) {
                coreno[i] = coreno[j];
                break;
            }
        }
        if (coreno[i] < 0)
            coreno[i] = ncores++;
    }
    want = index % ncores;
    CPU_ZERO(set_p);
    for (int i = 0; i < ncpus; i++)
        if (coreno[i] == want)
            CPU_SET(cpus[i], set_p);
    return 0;
}
