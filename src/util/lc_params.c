/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_params.c — the parameter table, its parser and loader (printing: lc_params_print.c). */
#include "util/lc_params.h"
#include "util/lc_util.h"

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

lc_params_t lc_params;

const lc_param_desc_t lc_param_table[] = {
    LC_PARAM_ROW_SIZE_IN("EAGER_LIMIT", eager_limit, "8000", 0, 64 << 20, 0, LC_PARAM_RANKS,
        "Messages up to this size are copied into shared memory and the send completes at once; "
        "larger ones use the rendezvous protocol. Capped at SHM_CELL_SIZE minus the 64-byte header."),
    LC_PARAM_ROW_SIZE_IN("SHM_CELL_SIZE", shm_cell_size, "8k", 256, 64 << 20, LC_PARAM_MUL64, LC_PARAM_RANKS,
        "Size of one cell of a rank's shared-memory send pool (a multiple of 64, 256 to 64m): packets "
        "that do not fit a ring cell (eager messages, pipeline fragments) go through it."),
    LC_PARAM_ROW_INT_IN("SHM_POOL_CELLS", shm_pool_cells, "32", 1, 65536, 0, LC_PARAM_RANKS,
        "Cells of each rank's send pool, shared by all its shared-memory receivers (1..65536)."),
    LC_PARAM_ROW_INT_IN("SHM_BIG_CELLS", shm_big_cells, "auto", 0, 4096, 0, LC_PARAM_RANKS,
        "Big cells of each rank, used only by two-copy pipeline fragments (issue 13): larger fragments "
        "and more data in flight where CMA is impossible or not chosen. auto = 16 on a host of up to "
        "16 ranks, 8 up to 32, 4 beyond; 0 = none (fragments go through the send pool, SHM_CELL_SIZE). "
        "Shared by all the rank's receivers; a fragment waits while all are in flight. 0..4096."),
    LC_PARAM_ROW_SIZE_IN("SHM_BIG_CELL_SIZE", shm_big_cell_size, "64k", 256, 64 << 20, LC_PARAM_MUL64, LC_PARAM_RANKS,
        "Size of one big cell (a multiple of 64, 256 to 64m; its 64-byte header included). Not larger "
        "than SHM_CELL_SIZE = no big cells. Memory per rank: BIG_CELLS x BIG_CELL_SIZE on top of the "
        "rings and the pool (locus-info --shm-footprint N)."),
    LC_PARAM_ROW_BOOL("SHM_BIG_NT", shm_big_nt, "0", LC_PARAM_RANKS,
        "Write pipeline fragments into the big cells with non-temporal stores (x86-64; elsewhere a plain "
        "copy): the lines go to memory, not into the sender's cache, so the receiver reads clean lines. "
        "Faster where the two cores share no cache, slower where they do (docs/performance.md, "
        "\"Non-temporal big cells\"). 1 = for every peer; 0 = only where the per-pair pick "
        "(CMA_THRESHOLD=auto) chose it for a size class, as its third variant beside CMA and the pipeline."),
    LC_PARAM_ROW_SIZE_IN("SHM_RING_CELL_SIZE", shm_ring_cell_size, "128", 64, 64 << 20, LC_PARAM_MUL64, LC_PARAM_RANKS,
        "Size of one cell of a (sender, receiver) ring (a multiple of 64, 64 to 64m): packets up to it "
        "minus the 32-byte header go inline (the latency path). Memory per rank: ranks x RING_CELLS x "
        "RING_CELL_SIZE + POOL_CELLS x CELL_SIZE + BIG_CELLS x BIG_CELL_SIZE (locus-info --shm-footprint N)."),
    LC_PARAM_ROW_INT_IN("SHM_RING_CELLS", shm_ring_cells, "32", 2, 1 << 20, LC_PARAM_POW2, LC_PARAM_RANKS,
        "Cells per (sender, receiver) ring; a power of two from 2 to 1048576. It also bounds the packets in flight per pair."),
    LC_PARAM_ROW_BOOL("CMA", cma, "1", LC_PARAM_RANKS,
        "Use single-copy CMA (process_vm_readv) for rendezvous when the start-up probe proves it works."),
    LC_PARAM_ROW_SIZE("CMA_THRESHOLD", cma_threshold, "auto", LC_PARAM_RANKS,
        "Rendezvous messages at least this large are pulled with CMA (one copy, no help from the sender); "
        "smaller ones use the two-copy pipeline through the shared-memory pool. auto = measured per pair "
        "and size class (64 KiB-256 KiB, -1 MiB, -4 MiB, larger): the receiver times its first rendezvous "
        "messages from each peer both ways: pipeline 1.5x faster = pipeline; faster = pipeline for a lone "
        "message, CMA while another is pipelined; else CMA; once a window through the pipeline was timed, "
        "windows follow that figure against CMA's; CMA without measuring when the host's ranks "
        "(with LOCUS_ASYNC_PROGRESS, ranks and progress threads) outnumber its cores (docs/performance.md, \"CMA or pipeline\"); "
        "below 64 KiB the pipeline. A size fixes the threshold for every pair (0 = CMA for every "
        "rendezvous)."),
    LC_PARAM_ROW_SIZE("CMA_SPLIT", cma_split, "auto", LC_PARAM_RANKS,
        "The split copy (issue 13): a rendezvous message that the receiver pulls with CMA into a "
        "contiguous buffer (more than one CMA_SPLIT_CHUNK) is moved by both processes at once: the "
        "receiver pulls chunks from the front while the sender, if it is in MPI (a wait, a test, a later "
        "call), pushes chunks from the back with process_vm_writev; a shared claim word gives each chunk "
        "to one side. A sender that does not answer leaves it all to the receiver. The receiver decides (a "
        "sender helps whatever its own setting). auto = where CMA_THRESHOLD is auto, the receiver times "
        "windows of pulls both ways per peer and size class and splits where the split's are faster "
        "(docs/architecture.md, \"The split copy\"); with a fixed CMA_THRESHOLD, never. A size splits "
        "every such pull of at least that many bytes (forced); 0 = never."),
    LC_PARAM_ROW_SIZE_IN("CMA_SPLIT_CHUNK", cma_split_chunk, "128k", 4096, 1u << 30, 0, LC_PARAM_RANKS,
        "Bytes per claim of the split copy (CMA_SPLIT): each side copies one chunk per system call "
        "between claims. 4k to 1g."),
    LC_PARAM_ROW_SIZE("CMA_THRESHOLD_XNUMA", cma_threshold_xnuma, "64k", LC_PARAM_RANKS,
        "CMA_THRESHOLD for a shared-memory pair on two NUMA nodes farther apart than local (see NUMA): "
        "across sockets the two-copy pipeline moves the data over the interconnect twice and CMA once, so "
        "CMA pays off sooner. The default is a design choice, not measured here (docs/architecture.md, "
        "\"NUMA\")."),
    LC_PARAM_ROW_BOOL("NUMA", numa, "1", LC_PARAM_RANKS,
        "Read the host's NUMA topology (hwloc) at start-up: each rank's NUMA node (the one node its "
        "affinity mask lies in, else unknown) selects CMA_THRESHOLD_XNUMA for pairs on different nodes, "
        "and each rank's ring segment is placed on its node. 0 = every pair gets the same-node settings "
        "and rings are placed by first touch. hwloc's HWLOC_XMLFILE / HWLOC_SYNTHETIC are honoured."),
    LC_PARAM_ROW_SIZE_IN("PIPELINE_CHUNK", pipeline_chunk, "0", 64, 64 << 20, LC_PARAM_OR_0, LC_PARAM_RANKS,
        "Fragment size of the two-copy rendezvous pipeline (64 to 64m); 0 = one full cell (a big cell, "
        "SHM_BIG_CELL_SIZE, where the sender has them; else a pool cell)."),
    LC_PARAM_ROW_ENUM("POLL", poll_mode, "auto", "auto|spin|yield|sleep", LC_PARAM_RANKS,
        "Waiting: spin = busy-poll; yield = sched_yield between polls; sleep = yield, and after "
        "a run of fruitless polls sleep (up to 1 ms) until a shared-memory peer's packet "
        "rings this rank's doorbell; auto = spin unless ranks on this host outnumber the cores they may "
        "run on, then yield (and sleep as in sleep when the rank leads a session of its own, where a "
        "yield reaches no other rank: RANK_SESSIONS, Hydra); while spinning, a wait the kernel preempts "
        "(foreign load) sleeps on the doorbell until the preemptions stop (docs/architecture.md, "
        "\"Progress and waiting\"). At MPI_THREAD_MULTIPLE every mode yields after a fruitless pass "
        "(docs/architecture.md, \"Threads\")."),
    LC_PARAM_ROW_BOOL("ASYNC_PROGRESS", async_progress, "0", LC_PARAM_RANKS,
        "Start a progress thread at MPI_Init that advances nonblocking and persistent operations "
        "(point-to-point, collectives, RMA, partitioned) while the application computes outside MPI. "
        "The library then serializes its calls internally as at MPI_THREAD_MULTIPLE, whatever level was "
        "asked (the level reported is the one asked). The thread sleeps when nothing is pending and "
        "backs off to naps of up to 1 ms when pending work makes no progress; it never runs while an "
        "application thread is inside an MPI call. Costs latency (docs/performance.md); off by default."),
    LC_PARAM_ROW_BOOL("PARK_FOLLOW", park_follow, "1", LC_PARAM_RANKS,
        "At MPI_THREAD_MULTIPLE, when a process has more threads in waits than its share of the cores, "
        "the extra threads sleep (park) while one polls; 1 = a thread about to park on another CPU than "
        "its process's poller restricts its affinity to the poller's CPU for the rest of that wait and "
        "gets its own mask back when the wait ends (keeps each process's threads on one core: "
        "docs/architecture.md, \"Parking\"); 0 = parked threads' affinity is never touched (for "
        "applications whose runtime binds its threads and must not see the mask change)."),
    LC_PARAM_ROW_BOOL("SHOW_CHANNELS", show_channels, "0", LC_PARAM_RANKS,
        "Rank 0 prints the peers x channel matrix and why each channel was chosen."),
    LC_PARAM_ROW_BOOL("SHOW_INIT_TIMES", show_init_times, "0", LC_PARAM_RANKS,
        "Rank 0 prints how long each phase of MPI_Init (PMI connect, identity exchange, segment creation, "
        "ring attach and CMA probe, network endpoint, ...) and of MPI_Finalize took, in wall-clock ms on "
        "rank 0: a phase that ends in a PMI fence includes the wait for the slowest rank."),
    LC_PARAM_ROW_BOOL("QUIET", quiet, "0", LC_PARAM_RANKS,
        "Print no warnings (errors are always printed)."),
    LC_PARAM_ROW_BOOL("DEBUG", debug, "0", LC_PARAM_RANKS,
        "Warn about what is legal but may be a mistake: at MPI_Finalize each rank reports how many "
        "messages sent to it it never received (they are discarded). A warning, so QUIET hides it."),
    LC_PARAM_ROW_STRING("SHM_DIR", shm_dir, "", LC_PARAM_RANKS | LC_PARAM_LAUNCHER,
        "Put the shared-memory segments in this directory instead of POSIX shared memory (/dev/shm). "
        "Bind-mount one host directory at the same path into co-resident containers and set it in all "
        "of them: ranks in containers with private /dev/shm then share memory (see docs/containers.md). "
        "mpiexec removes the segments of a job that ended abnormally from here too."),
    LC_PARAM_ROW_BOOL("NET_FORCE", net_force, "0", LC_PARAM_RANKS,
        "Reach every other rank through the network channel (ofi), also those on this host: for testing "
        "the network path on one machine, or when shared memory between the ranks is not wanted."),
    LC_PARAM_ROW_INT_IN("NET_BLOCK", net_block, "0", 0, 0x7fffffff, 0, LC_PARAM_RANKS,
        "Testing: ranks r and s on one host use the network channel unless r/N == s/N, as if every block "
        "of N consecutive ranks ran on its own host (0 = off). Lets one machine run a job that mixes "
        "shared-memory and network peers."),
    LC_PARAM_ROW_STRING("IVSHMEM", ivshmem, "", LC_PARAM_RANKS,
        "Shared-memory region between co-resident virtual machines (docs/vms.md): a PCI address of an "
        "ivshmem-plain device (0000:00:04.0; its BAR2 is mapped), or a path to a file that all ranks map "
        "(lets tests emulate VMs on one host); empty = the first ivshmem-plain device (1af4:1110) in "
        "sysfs, if any; off = none. Ranks on different kernels that reach the same region use it "
        "(channel ivshmem) instead of the network."),
    LC_PARAM_ROW_INT_IN("IVSHMEM_SLOTS", ivshmem_slots, "8", 1, 64, 0, LC_PARAM_RANKS,
        "Slots a fresh IVSHMEM region is divided into by its first user (1..64): each rank that uses the "
        "region claims one slot for the rings it reads, so this bounds the ranks of all jobs on the "
        "region at once. A slot must hold (ranks on the region) x cells x cell size (docs/vms.md)."),
    LC_PARAM_ROW_INT_IN("IVSHMEM_LEASE", ivshmem_lease, "10", 1, 3600, 0, LC_PARAM_RANKS,
        "Seconds (1..3600) after which an IVSHMEM slot whose owner stopped renewing it (a rank that died, in any "
        "VM) may be claimed by another rank; owners renew every second from a helper thread. A slot "
        "whose owner is on this kernel and gone is reclaimed at once."),
    LC_PARAM_ROW_STRING("BOOT_ID", boot_id, "", LC_PARAM_RANKS,
        "Testing only: the kernel identity this rank reports instead of /proc/sys/kernel/random/boot_id "
        "(%b = the real boot id, %h = the host name, %d = the NIS domain name). LOCUS_BOOT_ID=%b-%h makes "
        "every emulated host (network namespaces, lc-hosts) count as its own kernel, i.e. as a virtual "
        "machine; %b-%d does the same for hosts given a domain name each, which containers made in them "
        "inherit (containers inside VMs)."),
    LC_PARAM_ROW_STRING("OFI_PROVIDER", ofi_provider, "", LC_PARAM_RANKS,
        "libfabric provider of the network channel, as `fi_info -l` names it (e.g. net, tcp, "
        "\"tcp;ofi_rxm\", verbs, efa); empty = the first provider libfabric offers with reliable datagram "
        "endpoints, except that net is taken before tcp;ofi_rxm (docs/ofi.md). FI_PROVIDER also restricts "
        "libfabric's choice."),
    LC_PARAM_ROW_STRING("OFI_IFACE", ofi_iface, "", LC_PARAM_RANKS,
        "libfabric domain of the network channel; for the tcp provider the network interface (e.g. eth0). "
        "Empty = the provider's first domain that is not a loopback interface."),
    LC_PARAM_ROW_SIZE_IN("OFI_EAGER_LIMIT", ofi_eager_limit, "64k", 256, 16 << 20, 0, LC_PARAM_RANKS,
        "Messages to network peers up to this size (256 to 16m) are sent in one packet and complete at once; larger "
        "ones use the rendezvous protocol. It is also the payload of every network packet and receive "
        "buffer (plus 32 bytes of headers); a pair of ranks uses the smaller of their two values. With "
        "many network peers, OFI_RX_POOL shrinks it (down to 16k) before it shrinks the credits."),
    LC_PARAM_ROW_INT_IN("OFI_CREDITS", ofi_credits, "32", 1, 255, 0, LC_PARAM_RANKS,
        "Packets a rank may have in flight to one network peer (1..255): the receiver pre-posts this many "
        "buffers per network peer (plus 3 for control packets), and a sender out of credits waits for the "
        "receiver to free some; nothing is ever dropped. See OFI_RX_POOL."),
    LC_PARAM_ROW_SIZE_IN("OFI_RX_POOL", ofi_rx_pool, "64m", 64 << 10, LLONG_MAX, 0, LC_PARAM_RANKS,
        "Ceiling on the memory for network receive buffers per rank (at least 64k; the pool is network peers x "
        "(credits + 3) x packet, so it grows with the job): with many network peers the packets shrink to fit (down "
        "to 16k), then the credits per peer (down to 4). Locus does not write the pool at MPI_Init: its pages fault "
        "in as packets arrive (providers that need registered buffers, e.g. verbs, pin it at once)."),
    LC_PARAM_ROW_INT_IN("OFI_TX_BUFFERS", ofi_tx_buffers, "64", 2, 65536, 0, LC_PARAM_RANKS,
        "Send bounce buffers per process (2..65536; packets too large to inject wait in one until the provider "
        "completes them)."),
    LC_PARAM_ROW_BOOL("OFI_RMA", ofi_rma, "1", LC_PARAM_RANKS,
        "Let the receiver of a large message read it with fi_read (one copy, no bounce buffers) when the "
        "provider offers FI_RMA; 0 = always stream it in packets."),
    LC_PARAM_ROW_SIZE("OFI_RMA_THRESHOLD", ofi_rma_threshold, "0", LC_PARAM_RANKS,
        "Rendezvous messages to network peers at least this large are read with fi_read (with OFI_RMA); "
        "smaller ones are streamed in packets."),
    LC_PARAM_ROW_SIZE("RMA_AM_MAX", rma_am_max, "auto", LC_PARAM_RANKS,
        "MPI_Put and MPI_Get on a window over user memory (MPI_Win_create; MPI_Win_create_dynamic with "
        "RMA_DYN_DIRECT) to a rank CMA reaches: up to "
        "this many bytes they are active messages through the shared-memory rings, which the target's "
        "progress engine serves (a few hundred ns while it is inside MPI; a target computing outside MPI "
        "serves them at its next call, or with ASYNC_PROGRESS), larger ones one CMA system call (about "
        "1.5 us plus the copy), complete without the target. auto = measured per pair and size class up "
        "to 64 KiB: the origin times its first operations both ways and keeps the cheaper (larger ones "
        "CMA); 0 = always CMA (docs/performance.md, \"One-sided\")."),
    LC_PARAM_ROW_BOOL("RMA_CMA_ACC", rma_cma_acc, "1", LC_PARAM_RANKS,
        "MPI_Win_create and MPI_Win_create_dynamic windows where every rank reaches every other by CMA: "
        "accumulates, Get_accumulate, Fetch_and_op and Compare_and_swap of predefined types are applied by "
        "the origin (a per-target lock in a shared segment, process_vm_readv, the operation, "
        "process_vm_writev), without the target's progress. 0 = they are active messages the target serves "
        "(the same on every rank: the window takes the direct way only when every rank allows it)."),
    LC_PARAM_ROW_BOOL("RMA_DYN_DIRECT", rma_dyn_direct, "1", LC_PARAM_RANKS,
        "MPI_Win_create_dynamic windows whose ranks all share memory: every rank publishes its attached "
        "regions in a shared table, and MPI_Put / MPI_Get to a rank CMA reaches are one CMA system call "
        "checked against that table, without the target's progress (an address outside its regions still "
        "goes to the target, which refuses it). 0 = every operation is an active message the target serves "
        "(the same on every rank: the window takes the table only when every rank allows it)."),
    LC_PARAM_ROW_INT_IN("OFI_CONNECT_TIMEOUT", ofi_connect_timeout, "10", 1, 86400, 0, LC_PARAM_RANKS,
        "Seconds (1..86400) the first packet to a network peer may wait for its connection before Locus checks that "
        "something answers at the peer's address: if nothing does, the job ends with a message naming "
        "the rank and host; if the peer is only busy, the wait goes on."),
    LC_PARAM_ROW_INT_IN("NET_TIMEOUT", net_timeout, "60", 0, 86400, 0, LC_PARAM_RANKS,
        "Seconds (0..86400) a connection to a network peer on another host may stay silent, although the "
        "kernel probes it (TCP keepalive), before the job ends with a message naming the rank and host "
        "that went silent (a host powered off or cut off the network).  A peer that computes without "
        "calling MPI still answers (its kernel does).  0 = never."),
    LC_PARAM_ROW_INT_IN("LAUNCH_TIMEOUT", launch_timeout, "30", 1, 86400, 0, LC_PARAM_LAUNCHER,
        "Seconds (1..86400) mpiexec waits for the proxy on each other host to connect back after it started the "
        "launcher agent (ssh, -launcher-exec); a host whose proxy does not connect in time ends the job "
        "with a message naming it (docs/launcher.md)."),
    LC_PARAM_ROW_BOOL("PMI_STATS", pmi_stats, "0", LC_PARAM_LAUNCHER,
        "mpiexec prints, when the job ends, how many PMI requests it answered, by command (get, lc_getranks, "
        "put, fence, other; every job of the run, remote ranks' too) and its own CPU time: the start-up "
        "traffic a job of N ranks costs the launcher (docs/launcher.md, \"Bulk get\")."),
    LC_PARAM_ROW_BOOL("RANK_SESSIONS", rank_sessions, "0", LC_PARAM_LAUNCHER,
        "mpiexec (and each host's proxy) starts every rank in a session of its own (setsid), as MPICH's "
        "Hydra does, instead of as a process group in mpiexec's session. Where the scheduler groups CPU "
        "time by session (autogroups, /proc/sys/kernel/sched_autogroup_enabled = 1) the job then gets a "
        "share per rank beside other sessions' work, not one share; oversubscribed waits sleep on the "
        "doorbell instead of only yielding, and collectives of many ranks on few cores get slower "
        "(docs/architecture.md, \"Ranks stay in mpiexec's session\")."),
};
const size_t lc_param_count = LC_ARRAY_SIZE(lc_param_table);

const char *lc_param_type_name(lc_param_type_t t)
{
    switch (t) {
    case LC_PARAM_SIZE: return "size";
    case LC_PARAM_INT: return "int";
    case LC_PARAM_BOOL: return "bool";
    case LC_PARAM_ENUM: return "enum";
    case LC_PARAM_STRING: return "string";
    }
    return "?";
}

static int lc_param_parse(const lc_param_desc_t *d, const char *text, void *field)
{
    char *end;
    switch (d->type) {
    case LC_PARAM_SIZE: {
        if (!strcasecmp(text, "auto") && d->default_value && !strcasecmp(d->default_value, "auto")) {
            *(size_t *)field = LC_PARAM_SIZE_AUTO;
            return 0;
        }
        /* strtoull takes "-1" as 2^64 - 1: a size starts with a digit. */
        if (!isdigit((unsigned char)*text)) return -1;
        errno = 0;
        unsigned long long v = strtoull(text, &end, 0);
        if (errno || end == text) return -1;
        unsigned shift = 0;
        switch (tolower((unsigned char)*end)) {
        case 'k': shift = 10; end++; break;
        case 'm': shift = 20; end++; break;
        case 'g': shift = 30; end++; break;
        default: break;
        }
        if (v > (SIZE_MAX >> shift)) return -1; /* "99999999999g" must not wrap */
        v <<= shift;
        if (tolower((unsigned char)*end) == 'b') end++; /* "8kb" */
        if (*end) return -1;
        *(size_t *)field = (size_t)v;
        return 0;
    }
    case LC_PARAM_INT: {
        if (!strcasecmp(text, "auto") && d->default_value && !strcasecmp(d->default_value, "auto")) {
            *(long *)field = LC_PARAM_INT_AUTO;
            return 0;
        }
        errno = 0;
        long v = strtol(text, &end, 0);
        if (errno || end == text || *end) return -1;
        *(long *)field = v;
        return 0;
    }
    case LC_PARAM_BOOL: {
        static const char *yes[] = { "1", "yes", "on", "true", "y" };
        static const char *no[] = { "0", "no", "off", "false", "n" };
        for (size_t i = 0; i < LC_ARRAY_SIZE(yes); i++) {
            if (!strcasecmp(text, yes[i])) { *(int *)field = 1; return 0; }
            if (!strcasecmp(text, no[i])) { *(int *)field = 0; return 0; }
        }
        return -1;
    }
    case LC_PARAM_ENUM: {
        int idx = 0;
        size_t len = strlen(text);
        for (const char *c = d->choices; *c; idx++) {
            const char *bar = strchr(c, '|');
            size_t clen = bar ? (size_t)(bar - c) : strlen(c);
            if (clen == len && !strncasecmp(c, text, len)) { *(int *)field = idx; return 0; }
            if (!bar) break;
            c = bar + 1;
        }
        return -1;
    }
    case LC_PARAM_STRING:
        if (strlen(text) >= LC_PARAM_STRING_MAX) return -1;
        strcpy((char *)field, text);
        return 0;
    }
    return -1;
}

/* A size as the user would write it: 65536 as 64k. */
static void lc_param_size_text(long long v, char *buf, size_t len)
{
    static const char suffix[] = "gmk";
    for (int i = 0; i < 3; i++) {
        long long unit = 1LL << (30 - 10 * i);
        if (v >= unit && v % unit == 0) {
            snprintf(buf, len, "%lld%c", v / unit, suffix[i]);
            return;
        }
    }
    snprintf(buf, len, "%lld", v);
}

void lc_param_allowed(const lc_param_desc_t *d, char *buf, size_t len)
{
    buf[0] = 0;
    if (!(d->in & LC_PARAM_IN)) return;
    char lo[32], hi[32];
    if (d->type == LC_PARAM_SIZE) {
        lc_param_size_text(d->min, lo, sizeof(lo));
        lc_param_size_text(d->max, hi, sizeof(hi));
    } else {
        snprintf(lo, sizeof(lo), "%lld", d->min);
        snprintf(hi, sizeof(hi), "%lld", d->max);
    }
    if (d->max == LLONG_MAX) snprintf(buf, len, "at least %s", lo);
    else snprintf(buf, len, "%s..%s", lo, hi);
    size_t n = strlen(buf);
    if (d->in & LC_PARAM_POW2) snprintf(buf + n, len - n, ", a power of two");
    n = strlen(buf);
    if (d->in & LC_PARAM_MUL64) snprintf(buf + n, len - n, ", a multiple of 64");
    n = strlen(buf);
    if (d->in & LC_PARAM_OR_0) snprintf(buf + n, len - n, ", or 0");
}

/* The parsed value of a row with allowed values is one of them. */
static bool lc_param_in_range(const lc_param_desc_t *d, const void *field)
{
    if (!(d->in & LC_PARAM_IN)) return true;
    long long v;
    if (d->type == LC_PARAM_SIZE) {
        size_t z = *(const size_t *)field;
        if (z > (size_t)LLONG_MAX) return false;
        v = (long long)z;
    } else {
        v = *(const long *)field;
        if (v == LC_PARAM_INT_AUTO && d->default_value && !strcasecmp(d->default_value, "auto")) return true;
    }
    if (v == 0 && (d->in & LC_PARAM_OR_0)) return true;
    if (v < d->min || v > d->max) return false;
    if ((d->in & LC_PARAM_POW2) && (v & (v - 1))) return false;
    if ((d->in & LC_PARAM_MUL64) && v % 64) return false;
    return true;
}

static const char *lc_param_env_name(const lc_param_desc_t *d, char *buf, size_t len)
{
    snprintf(buf, len, "LOCUS_%s", d->name);
    return buf;
}

static void lc_param_default_into(const lc_param_desc_t *d, void *field)
{
    if (lc_param_parse(d, d->default_value, field) != 0 || !lc_param_in_range(d, field))
        lc_fatal("internal: bad default for LOCUS_%s", d->name);
}

void lc_param_set_default(const lc_param_desc_t *d)
{
    lc_param_default_into(d, (char *)&lc_params + d->offset);
}

const lc_param_desc_t *lc_param_find(const char *name)
{
    for (size_t i = 0; i < lc_param_count; i++)
        if (!strcmp(lc_param_table[i].name, name)) return &lc_param_table[i];
    return NULL;
}

/* Every row into *p: the default, or what the environment says to one of
 * `readers`.  Only the readers of a row parse it, so that a bad value is
 * reported (when `report`) by those who use it and by nobody else; a bad
 * value leaves the default. */
static int lc_params_read_into(lc_params_t *p, unsigned readers, bool report)
{
    int rc = 0;
    for (size_t i = 0; i < lc_param_count; i++) {
        const lc_param_desc_t *d = &lc_param_table[i];
        void *field = (char *)p + d->offset;
        lc_param_default_into(d, field);
        if (!(d->readers & readers)) continue;
        char env[96];
        const char *text = getenv(lc_param_env_name(d, env, sizeof(env)));
        if (!text) continue;
        int bad = lc_param_parse(d, text, field) != 0 ? 1 : !lc_param_in_range(d, field) ? 2 : 0;
        if (!bad) continue;
        if (report) {
            char allowed[96];
            lc_param_allowed(d, allowed, sizeof(allowed));
            if (bad == 1)
                lc_log_error("%s=\"%s\" is not a valid %s%s%s%s%s%s%s; using the default %s", env, text,
                             lc_param_type_name(d->type), d->choices ? " (one of " : "", d->choices ? d->choices : "",
                             d->choices ? ")" : "", allowed[0] ? " (" : "", allowed, allowed[0] ? ")" : "",
                             d->default_value);
            else
                lc_log_error("%s=\"%s\" is not allowed: it must be %s; using the default %s", env, text, allowed,
                             d->default_value);
        }
        lc_param_default_into(d, field);
        rc = -1;
    }
    return rc;
}

int lc_params_load_for(unsigned readers)
{
    return lc_params_read_into(&lc_params, readers, true);
}

void lc_params_read_env(lc_params_t *p, unsigned readers)
{
    (void)lc_params_read_into(p, readers, false); /* silent: a bad value is the default */
}

int lc_params_load(void)
{
    return lc_params_load_for(LC_PARAM_RANKS);
}
