/* SPDX-License-Identifier: BSD-3-Clause */
/* numa_split: MPI_Comm_split_type by NUMA node, under the two-node
 * topology t_numa_split.sh simulates (HWLOC_SYNTHETIC "pack:2 numa:1
 * core:1 pu:1": cpu i is NUMA node i) with every rank bound to one cpu.
 * MPI_COMM_TYPE_HW_GUIDED "NUMANode" must group exactly the ranks bound
 * to my cpu; MPI_COMM_TYPE_HW_UNGUIDED must give the same groups (shared
 * memory spans the whole job here, so NUMA is the first level that
 * splits) and name the level "NUMANode".  Argument "unbound": ranks span
 * both nodes, so HW_GUIDED "NUMANode" gives MPI_COMM_NULL everywhere. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

static int errs;
#define CHECK(c, ...)                                                                                         \
    do {                                                                                                      \
        if (!(c)) {                                                                                           \
            errs++;                                                                                           \
            fprintf(stderr, "FAIL line %d: ", __LINE__);                                                     \
            fprintf(stderr, __VA_ARGS__);                                                                     \
            fprintf(stderr, "\n");                                                                            \
        }                                                                                                     \
    } while (0)

/* The one cpu this process may run on, or -1. */
static int my_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0 || CPU_COUNT(&set) != 1) return -1;
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &set)) return i;
    return -1;
}

/* c holds exactly the ranks of world whose cpu is mine. */
static void check_group(MPI_Comm c, int cpu, const int *cpus, int size, const char *what)
{
    CHECK(c != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what);
    if (c == MPI_COMM_NULL) return;
    int n, want = 0, theirs[64];
    for (int i = 0; i < size; i++) want += cpus[i] == cpu;
    MPI_Comm_size(c, &n);
    CHECK(n == want, "%s: %d ranks, expected the %d bound to cpu %d", what, n, want, cpu);
    MPI_Allgather(&cpu, 1, MPI_INT, theirs, 1, MPI_INT, c);
    for (int i = 0; i < n; i++) CHECK(theirs[i] == cpu, "%s: rank %d is on cpu %d, not %d", what, i, theirs[i], cpu);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, cpu = my_cpu(), cpus[64], unbound = argc > 1 && strcmp(argv[1], "unbound") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Allgather(&cpu, 1, MPI_INT, cpus, 1, MPI_INT, MPI_COMM_WORLD);
    CHECK(unbound || cpu >= 0, "rank %d is not bound to one cpu (start it with -bind-to core)", rank);
    MPI_Info info;
    MPI_Comm c;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", "NUMANode");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &c);
    MPI_Info_free(&info);
    if (unbound) {
        CHECK(c == MPI_COMM_NULL, "an unbound rank spanning two nodes got a NUMA communicator");
    } else {
        check_group(c, cpu, cpus, size, "HW_GUIDED NUMANode");
        if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, MPI_INFO_NULL, &c);
        check_group(c, cpu, cpus, size, "HW_UNGUIDED");
        if (c != MPI_COMM_NULL) {
            char level[MPI_MAX_INFO_VAL + 1] = "";
            int flag = 0;
            MPI_Comm_get_info(c, &info);
            MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, level, &flag);
            CHECK(flag && strcmp(level, "NUMANode") == 0, "HW_UNGUIDED's level is \"%s\", not NUMANode", level);
            MPI_Info_free(&info);
            MPI_Comm_free(&c);
        }
    }
    int total = 0;
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf(total ? "Found %d errors\n" : "No Errors\n", total);
    MPI_Finalize();
    return total != 0;
}
