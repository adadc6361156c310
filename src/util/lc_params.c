/* lc_params.c — the parameter table and its parser. */
#include "util/lc_params.h"
#include "util/lc_util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

lc_params_t lc_params;

#define LC_P(field) offsetof(lc_params_t, field)
const lc_param_desc_t lc_param_table[] = {
    { "EAGER_LIMIT", LC_PARAM_SIZE, LC_P(eager_limit), "8000", NULL,
      "Messages up to this size are copied into the receiver's ring and the send completes at once; "
      "larger ones use the rendezvous protocol. Capped at SHM_CELL_SIZE minus the 32-byte header." },
    { "SHM_CELL_SIZE", LC_PARAM_SIZE, LC_P(shm_cell_size), "8k", NULL,
      "Size of one cell of a shared-memory ring (a multiple of 64)." },
    { "SHM_RING_CELLS", LC_PARAM_INT, LC_P(shm_ring_cells), "32", NULL,
      "Cells per (sender, receiver) ring; a power of two. Memory per rank: ranks x cells x cell size." },
    { "CMA", LC_PARAM_BOOL, LC_P(cma), "1", NULL,
      "Use single-copy CMA (process_vm_readv) for rendezvous when the start-up probe proves it works." },
    { "CMA_THRESHOLD", LC_PARAM_SIZE, LC_P(cma_threshold), "256m", NULL,
      "Rendezvous messages at least this large are pulled with CMA (one copy, no help from the sender); "
      "smaller ones use the two-copy pipeline through the rings, whose copies run in parallel on both "
      "cores and whose staging cells stay in cache. Measured on KVM guests the pipeline is faster up to "
      "64 MiB (docs/performance.md); lower it when senders compute long between MPI calls." },
    { "CMA_THRESHOLD_XNUMA", LC_PARAM_SIZE, LC_P(cma_threshold_xnuma), "64k", NULL,
      "CMA_THRESHOLD for a shared-memory pair on two NUMA nodes farther apart than local (see NUMA): "
      "across sockets the two-copy pipeline moves the data over the interconnect twice and CMA once, so "
      "CMA pays off sooner. The default is a design choice, not measured here (docs/architecture.md, "
      "\"NUMA\")." },
    { "NUMA", LC_PARAM_BOOL, LC_P(numa), "1", NULL,
      "Read the host's NUMA topology (hwloc) at start-up: each rank's NUMA node (the one node its "
      "affinity mask lies in, else unknown) selects CMA_THRESHOLD_XNUMA for pairs on different nodes, "
      "and each rank's ring segment is placed on its node. 0 = every pair gets the same-node settings "
      "and rings are placed by first touch. hwloc's HWLOC_XMLFILE / HWLOC_SYNTHETIC are honoured." },
    { "PIPELINE_CHUNK", LC_PARAM_SIZE, LC_P(pipeline_chunk), "0", NULL,
      "Fragment size of the two-copy rendezvous pipeline; 0 = one full cell." },
    { "POLL", LC_PARAM_ENUM, LC_P(poll_mode), "auto", "auto|spin|yield",
      "Waiting: spin = busy-poll; yield = sched_yield between polls; auto = spin unless ranks on this "
      "host outnumber the cores they may run on." },
    { "SHOW_CHANNELS", LC_PARAM_BOOL, LC_P(show_channels), "0", NULL,
      "Rank 0 prints the peers x channel matrix and why each channel was chosen." },
    { "SHM_DIR", LC_PARAM_STRING, LC_P(shm_dir), "", NULL,
      "Put the shared-memory segments in this directory instead of POSIX shared memory (/dev/shm). "
      "Bind-mount one host directory at the same path into co-resident containers and set it in all "
      "of them: ranks in containers with private /dev/shm then share memory (see docs/containers.md)." },
    { "NET_FORCE", LC_PARAM_BOOL, LC_P(net_force), "0", NULL,
      "Reach every other rank through the network channel (ofi), also those on this host: for testing "
      "the network path on one machine, or when shared memory between the ranks is not wanted." },
    { "NET_BLOCK", LC_PARAM_INT, LC_P(net_block), "0", NULL,
      "Testing: ranks r and s on one host use the network channel unless r/N == s/N, as if every block "
      "of N consecutive ranks ran on its own host (0 = off). Lets one machine run a job that mixes "
      "shared-memory and network peers." },
    { "OFI_PROVIDER", LC_PARAM_STRING, LC_P(ofi_provider), "", NULL,
      "libfabric provider of the network channel, as `fi_info -l` names it (e.g. net, tcp, "
      "\"tcp;ofi_rxm\", verbs, efa); empty = the first provider libfabric offers with reliable datagram "
      "endpoints, except that net is taken before tcp;ofi_rxm (docs/ofi.md). FI_PROVIDER also restricts "
      "libfabric's choice." },
    { "OFI_IFACE", LC_PARAM_STRING, LC_P(ofi_iface), "", NULL,
      "libfabric domain of the network channel; for the tcp provider the network interface (e.g. eth0). "
      "Empty = the provider's first domain that is not a loopback interface." },
    { "OFI_EAGER_LIMIT", LC_PARAM_SIZE, LC_P(ofi_eager_limit), "64k", NULL,
      "Messages to network peers up to this size are sent in one packet and complete at once; larger "
      "ones use the rendezvous protocol. It is also the payload of every network packet and receive "
      "buffer (plus 32 bytes of headers); a pair of ranks uses the smaller of their two values. With "
      "many network peers, OFI_RX_POOL shrinks it (down to 16k) before it shrinks the credits." },
    { "OFI_CREDITS", LC_PARAM_INT, LC_P(ofi_credits), "32", NULL,
      "Packets a rank may have in flight to one network peer (1..255): the receiver pre-posts this many "
      "buffers per network peer (plus 3 for control packets), and a sender out of credits waits for the "
      "receiver to free some; nothing is ever dropped. See OFI_RX_POOL." },
    { "OFI_RX_POOL", LC_PARAM_SIZE, LC_P(ofi_rx_pool), "64m", NULL,
      "Memory for network receive buffers per rank (network peers x (credits + 3) x packet): with many "
      "network peers the packets shrink to fit (down to 16k), then the credits per peer (down to 4)." },
    { "OFI_TX_BUFFERS", LC_PARAM_INT, LC_P(ofi_tx_buffers), "64", NULL,
      "Send bounce buffers per process (packets too large to inject wait in one until the provider "
      "completes them)." },
    { "OFI_RMA", LC_PARAM_BOOL, LC_P(ofi_rma), "1", NULL,
      "Let the receiver of a large message read it with fi_read (one copy, no bounce buffers) when the "
      "provider offers FI_RMA; 0 = always stream it in packets." },
    { "OFI_RMA_THRESHOLD", LC_PARAM_SIZE, LC_P(ofi_rma_threshold), "0", NULL,
      "Rendezvous messages to network peers at least this large are read with fi_read (with OFI_RMA); "
      "smaller ones are streamed in packets." },
    { "OFI_CONNECT_TIMEOUT", LC_PARAM_INT, LC_P(ofi_connect_timeout), "10", NULL,
      "Seconds the first packet to a network peer may wait for its connection before Locus checks that "
      "something answers at the peer's address: if nothing does, the job ends with a message naming "
      "the rank and host; if the peer is only busy, the wait goes on." },
};
const size_t lc_param_count = LC_ARRAY_SIZE(lc_param_table);

static const char *lc_param_type_name(lc_param_type_t t)
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
        errno = 0;
        unsigned long long v = strtoull(text, &end, 0);
        if (errno || end == text) return -1;
        switch (tolower((unsigned char)*end)) {
        case 'k': v <<= 10; end++; break;
        case 'm': v <<= 20; end++; break;
        case 'g': v <<= 30; end++; break;
        default: break;
        }
        if (tolower((unsigned char)*end) == 'b') end++; /* "8kb" */
        if (*end) return -1;
        *(size_t *)field = (size_t)v;
        return 0;
    }
    case LC_PARAM_INT: {
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

int lc_params_load(void)
{
    int rc = 0;
    for (size_t i = 0; i < lc_param_count; i++) {
        const lc_param_desc_t *d = &lc_param_table[i];
        void *field = (char *)&lc_params + d->offset;
        if (lc_param_parse(d, d->default_value, field) != 0)
            lc_fatal("internal: bad default for LOCUS_%s", d->name);
        char env[96];
        snprintf(env, sizeof(env), "LOCUS_%s", d->name);
        const char *text = getenv(env);
        if (text && lc_param_parse(d, text, field) != 0) {
            lc_log_error("%s=\"%s\" is not a valid %s%s%s%s; using the default %s", env, text,
                         lc_param_type_name(d->type), d->choices ? " (one of " : "",
                         d->choices ? d->choices : "", d->choices ? ")" : "", d->default_value);
            lc_param_parse(d, d->default_value, field);
            rc = -1;
        }
    }
    return rc;
}

static void lc_param_format(const lc_param_desc_t *d, char *buf, size_t len)
{
    const void *field = (const char *)&lc_params + d->offset;
    switch (d->type) {
    case LC_PARAM_SIZE: snprintf(buf, len, "%zu", *(const size_t *)field); break;
    case LC_PARAM_INT: snprintf(buf, len, "%ld", *(const long *)field); break;
    case LC_PARAM_BOOL: snprintf(buf, len, "%s", *(const int *)field ? "1" : "0"); break;
    case LC_PARAM_ENUM: {
        int idx = *(const int *)field;
        const char *c = d->choices;
        for (int i = 0; i < idx && c; i++) {
            c = strchr(c, '|');
            if (c) c++;
        }
        size_t clen = c ? strcspn(c, "|") : 0;
        snprintf(buf, len, "%.*s", (int)clen, c ? c : "");
        break;
    }
    case LC_PARAM_STRING: snprintf(buf, len, "\"%s\"", (const char *)field); break;
    }
}

void lc_params_print(FILE *out)
{
    for (size_t i = 0; i < lc_param_count; i++) {
        const lc_param_desc_t *d = &lc_param_table[i];
        char value[LC_PARAM_STRING_MAX + 8];
        lc_param_format(d, value, sizeof(value));
        int quote = d->type == LC_PARAM_STRING;
        fprintf(out, "LOCUS_%s (%s%s%s) = %s  [default %s%s%s]\n    %s\n", d->name,
                lc_param_type_name(d->type), d->choices ? ": " : "", d->choices ? d->choices : "",
                value, quote ? "\"" : "", d->default_value, quote ? "\"" : "", d->help);
    }
}
