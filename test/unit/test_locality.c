/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the identity record: format/parse round trip with every
 * field at its widest (the record must fit a PMI-1 value), rejection of
 * malformed records, and the NUMA node and shared-memory domain that
 * lc_identity_self fills in.
 */
#include "locality/lc_locality.h"
#include "locality/lc_topo.h"
#include "pmi/lc_pmi_wire.h"
#include "util/lc_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lc_unit_check.h"

static void check_same(const lc_identity_t *a, const lc_identity_t *b)
{
    CHECK(!strcmp(a->boot_id, b->boot_id));
    CHECK(!strcmp(a->host, b->host));
    CHECK(a->pid == b->pid && a->uid == b->uid);
    CHECK(a->ns_ipc == b->ns_ipc && a->ns_pid == b->ns_pid && a->ns_net == b->ns_net);
    CHECK(a->ns_uts == b->ns_uts && a->ns_mnt == b->ns_mnt && a->ns_user == b->ns_user);
    CHECK(a->cookie_addr == b->cookie_addr && a->cookie == b->cookie);
    CHECK(!memcmp(a->cpus, b->cpus, sizeof(a->cpus)));
    CHECK(a->numa_node == b->numa_node);
    CHECK(a->shm_dev == b->shm_dev && a->shm_ino == b->shm_ino);
}

/* Widest record: longest boot id and host name, all-ones 64-bit fields. */
static void round_trip_widest(int numa_node)
{
    lc_identity_t id, back;
    memset(&id, 0, sizeof(id));
    memset(id.boot_id, 'b', sizeof(id.boot_id) - 1);
    memset(id.host, 'h', sizeof(id.host) - 1);
    id.pid = 2147483647;
    id.uid = 4294967294u;
    id.ns_ipc = id.ns_pid = id.ns_net = id.ns_uts = id.ns_mnt = id.ns_user = UINT64_MAX;
    id.cookie_addr = id.cookie = UINT64_MAX;
    for (int w = 0; w < LC_CPUSET_WORDS; w++) id.cpus[w] = UINT64_MAX;
    id.numa_node = numa_node;
    id.shm_dev = id.shm_ino = UINT64_MAX;
    char text[1024];
    lc_identity_format(&id, text, sizeof(text));
    CHECK(strlen(text) < LC_IDENTITY_TEXT_MAX);
    CHECK(lc_pmi1_value_is_valid(text));
    CHECK(lc_identity_parse(text, &back) == 0);
    check_same(&id, &back);
}

int main(void)
{
    unsetenv("LOCUS_SHM_DIR");
    lc_params_load();

    round_trip_widest(-1);
    round_trip_widest(1023);

    /* A real identity, before the topology is loaded: node unknown;
     * the shm domain is /dev/shm's. */
    lc_identity_t me, back;
    lc_identity_self(&me);
    me.cookie_addr = 0x7fff12345678;
    me.cookie = 0xdeadbeefcafe;
    CHECK(me.numa_node == -1);
    struct stat st;
    if (stat("/dev/shm", &st) == 0) {
        CHECK(me.shm_dev == (uint64_t)st.st_dev && me.shm_ino == (uint64_t)st.st_ino);
        CHECK(me.shm_dev != 0 || me.shm_ino != 0);
    }
    char text[LC_IDENTITY_TEXT_MAX];
    lc_identity_format(&me, text, sizeof(text));
    CHECK(lc_identity_parse(text, &back) == 0);
    check_same(&me, &back);

    /* Malformed: truncated, trailing junk, a record without the NUMA and
     * shm fields (16 fields), a node below -1. */
    char bad[LC_IDENTITY_TEXT_MAX + 16];
    snprintf(bad, sizeof(bad), "%.*s", (int)(strlen(text) - 3), text);
    CHECK(lc_identity_parse(bad, &back) == -1);
    snprintf(bad, sizeof(bad), "%s,7", text);
    CHECK(lc_identity_parse(bad, &back) == -1);
    snprintf(bad, sizeof(bad), "%s", text);
    *strrchr(bad, ',') = 0;
    *strrchr(bad, ',') = 0;
    CHECK(lc_identity_parse(bad, &back) == -1);
    lc_identity_t neg = me;
    neg.numa_node = -2;
    lc_identity_format(&neg, text, sizeof(text));
    CHECK(lc_identity_parse(text, &back) == -1);
    CHECK(lc_identity_parse("", &back) == -1);

    /* LOCUS_SHM_DIR names the domain. */
    char dir[] = "/tmp/lc-unit-shmdir-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("LOCUS_SHM_DIR", dir, 1);
    lc_params_load();
    CHECK(!strcmp(lc_identity_shm_dir(), dir));
    lc_identity_self(&me);
    CHECK(stat(dir, &st) == 0);
    CHECK(me.shm_dev == (uint64_t)st.st_dev && me.shm_ino == (uint64_t)st.st_ino);
    rmdir(dir);
    unsetenv("LOCUS_SHM_DIR");
    lc_params_load();

    /* LOCUS_BOOT_ID (testing): %h the host name, %d the domain name (what
     * an emulated VM's containers share, t_ivshmem_hosts.sh nested), a
     * comma made '_', an expansion too long for the field hashed. */
    char host[64] = "", domain[65] = "", want[128];
    CHECK(gethostname(host, sizeof(host) - 1) == 0);
    CHECK(getdomainname(domain, sizeof(domain) - 1) == 0);
    setenv("LOCUS_BOOT_ID", "k,%d", 1);
    lc_params_load();
    lc_identity_self(&me);
    snprintf(want, sizeof(want), "k_%s", domain);
    if (strlen(want) < sizeof(me.boot_id)) CHECK(!strcmp(me.boot_id, want));
    setenv("LOCUS_BOOT_ID", "%h", 1);
    lc_params_load();
    lc_identity_self(&me);
    if (strlen(host) < sizeof(me.boot_id) && !strchr(host, ',')) CHECK(!strcmp(me.boot_id, host));
    setenv("LOCUS_BOOT_ID", "%b/%b", 1);
    lc_params_load();
    lc_identity_self(&me);
    CHECK(!strncmp(me.boot_id, "fake-", 5) && strlen(me.boot_id) == 21);
    unsetenv("LOCUS_BOOT_ID");
    lc_params_load();

    /* With this machine's topology: the node is the one our mask lies in. */
    unsetenv("HWLOC_XMLFILE");
    unsetenv("HWLOC_SYNTHETIC");
    CHECK(lc_topo_load() == 0);
    lc_identity_self(&me);
    CHECK(me.numa_node == lc_topo_node_of_self());
    if (lc_topo_numa_count() == 1) CHECK(me.numa_node == lc_topo_numa_os_index(0));
    lc_topo_unload();

    if (!failures) printf("locality: identity records ok (node %d)\n", me.numa_node);
    return failures ? 1 : 0;
}
