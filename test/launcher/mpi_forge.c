/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi_forge MODE: rank 1 forges a packet in the ring it writes to in rank
 * 0's shared-memory segment, as a broken or hostile peer would, while rank
 * 0 waits in MPI_Recv (t_forge.sh; issue 12, point 4).  Rank 0 must end
 * the job with one message naming rank 1, shm and the bad field — never
 * read out of bounds or crash.
 *
 * No hook in the library: rank 1 finds rank 0's segment among its own
 * mappings (/proc/self/maps: "locus-<kvs>-0-<token>/rings"; the name is unlinked
 * by then, the mapping stays) and knows the layout (lc_shm.c, lc_shm.h):
 * header {magic, cell_size, ncells, nrings, pool_cells, key,
 * pool_cell_size}, ring i at 4096 + i x ncells x cell_size, cells
 * {seq, 24-byte packet header, payload}.  The next cell rank 1 would write
 * is the free one (seq = its index mod ncells) with the smallest seq.
 *
 * MODE: eager (length 70000 in a ring cell), pool (pool cell index 99999),
 * data (a DATA length below its prefix), kind (packet kind 77).
 * Prints "KVS <name>" (rank 1) so that the driver can look for leftovers.
 * Exit 77 when no Locus segment is mapped (another MPI, or not shm).
 */
#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    uint8_t kind, flags;
    uint16_t reserved;
    uint32_t len;
    int32_t tag;
    uint32_t ctx;
    int32_t src, sreq;
} pkt_hdr_t;

/* Rank 0's segment in our address space, and the job's name. */
static char *find_segment(char *kvs, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return NULL;
    char line[1024];
    char *found = NULL;
    while (!found && fgets(line, sizeof(line), f)) {
        unsigned long start, off;
        if (sscanf(line, "%lx-%*x %*s %lx", &start, &off) != 2 || off != 0) continue;
        char *name = strstr(line, "/locus-");
        if (!name) continue;
        name += strlen("/locus-");
        /* <kvs>-<rank>-<16 hex digits>/rings: the segment in its directory */
        size_t end = strcspn(name, " \n/");
        if (strncmp(name + end, "/rings", 6) != 0) continue;
        name[end] = 0;
        char *tok = strrchr(name, '-');
        if (!tok || strlen(tok + 1) != 16) continue;
        *tok = 0;
        char *rk = strrchr(name, '-');
        if (!rk || strcmp(rk + 1, "0") != 0) continue;
        *rk = 0;
        snprintf(kvs, len, "%s", name);
        found = (char *)start;
    }
    fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "eager";
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "mpi_forge: run with 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        /* Waits for rank 1: what arrives is the forged packet. */
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank 0 received %d: the forged packet was accepted\n", x);
        MPI_Finalize();
        return 3;
    }
    char kvs[256];
    char *base = find_segment(kvs, sizeof(kvs));
    if (!base) {
        fprintf(stderr, "mpi_forge: no Locus segment of rank 0 mapped: skipped\n");
        MPI_Abort(MPI_COMM_WORLD, 77);
    }
    printf("KVS %s\n", kvs);
    fflush(stdout);
    uint32_t cell_size, ncells;
    memcpy(&cell_size, base + 8, 4);
    memcpy(&ncells, base + 12, 4);
    char *ring = base + 4096 + (size_t)1 * ncells * cell_size; /* ring 1: written by local rank 1 */
    uint64_t next = UINT64_MAX;
    for (uint32_t i = 0; i < ncells; i++) {
        uint64_t seq = atomic_load_explicit((_Atomic uint64_t *)(ring + (size_t)i * cell_size), memory_order_acquire);
        if (seq % ncells == i && seq < next) next = seq;
    }
    char *cell = ring + (next % ncells) * cell_size;
    pkt_hdr_t h = { .kind = 1, .len = 70000 };
    uint32_t index = 0;
    if (!strcmp(mode, "pool")) {
        h.flags = 0x80;
        h.len = 10;
        index = 99999;
    } else if (!strcmp(mode, "data")) {
        h.kind = 4;
        h.len = 4;
    } else if (!strcmp(mode, "kind")) {
        h.kind = 77;
        h.len = 0;
    }
    memcpy(cell + 8, &h, sizeof(h));
    memcpy(cell + 32, &index, sizeof(index));
    atomic_store_explicit((_Atomic uint64_t *)cell, next + 1, memory_order_release);
    /* Wait to be ended by the launcher. */
    MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 4;
}
