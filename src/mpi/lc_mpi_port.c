/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_port.c — MPI_Open_port, MPI_Close_port and the name service
 * (MPI_Publish_name, MPI_Unpublish_name, MPI_Lookup_name; MPI 4.1 §11.4).
 *
 * A port is only a name (lc_mpi_port.h): opening one takes a fresh id and
 * remembers it in this process's table, so that MPI_Comm_accept can refuse
 * a port that is not open here.  Names are kept by the launcher (PMI-1
 * publish_name & co.), job-wide.
 */
#include "mpi/lc_mpi_port.h"
#include "channel/lc_ofi.h"
#include "coord/lc_world.h"
#include "mpi/lc_mpi.h"
#include "pmi/lc_pmi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Open port ids (a bitmap grown on demand); every MPI call runs in the
 * library's critical section, so no lock of its own. */
static unsigned char *lc_ports_open;
static size_t lc_ports_cap; /* bytes */
static unsigned lc_ports_next = 1;

bool lc_port_is_open(unsigned id)
{
    return id / 8 < lc_ports_cap && (lc_ports_open[id / 8] >> (id % 8) & 1);
}

static int lc_port_mark(unsigned id, bool open)
{
    if (id / 8 >= lc_ports_cap) {
        size_t cap = lc_ports_cap ? 2 * lc_ports_cap : 64;
        while (id / 8 >= cap) cap *= 2;
        unsigned char *p = realloc(lc_ports_open, cap);
        if (!p) return lc_error(MPI_ERR_NO_MEM, "out of memory for the table of open ports");
        memset(p + lc_ports_cap, 0, cap - lc_ports_cap);
        lc_ports_open = p;
        lc_ports_cap = cap;
    }
    if (open)
        lc_ports_open[id / 8] |= (unsigned char)(1u << (id % 8));
    else
        lc_ports_open[id / 8] &= (unsigned char)~(1u << (id % 8));
    /* Tell the job, so that a connect to a closed port fails at once
     * (lc_port_check_open).  Advisory: a launcher that refuses the put
     * only loses that check (lc_pmi_put has said why on stderr). */
    char key[64];
    snprintf(key, sizeof(key), "lc-port-%d-%u", lc_world.rank, id);
    (void)lc_pmi_put(key, open ? "1" : "0");
    return MPI_SUCCESS;
}

int lc_port_check_open(const char *port_name, const lc_port_t *p)
{
    char key[64], v[8];
    snprintf(key, sizeof(key), "lc-port-%d-%u", p->rank, p->id);
    int rc = lc_pmi_get(p->rank, key, v, sizeof(v));
    /* A missing key is not proof that the port was never opened: a
     * launcher such as hydra may show another process's put only after a
     * fence.  So only a closed port is refused; a connect to a port
     * number never opened waits (docs/dynamic.md). */
    if (rc == 0 && strcmp(v, "0") == 0)
        return lc_error(MPI_ERR_PORT, "port '%s' is closed: its owner (world rank %d) called MPI_Close_port", port_name,
                        p->rank);
    return MPI_SUCCESS;
}

static int lc_port_bad(const char *port_name, const char *why)
{
    return lc_error(MPI_ERR_PORT, "'%.200s' is not a Locus port name (%s): port names come from MPI_Open_port",
                    port_name, why);
}

int lc_port_parse(const char *port_name, lc_port_t *port_p)
{
    static const char prefix[] = "locus:";
    if (!port_name) return lc_error(MPI_ERR_PORT, "port_name is NULL");
    if (strnlen(port_name, MPI_MAX_PORT_NAME) >= MPI_MAX_PORT_NAME)
        return lc_error(MPI_ERR_PORT, "port_name is not a string of fewer than MPI_MAX_PORT_NAME (%d) characters",
                        MPI_MAX_PORT_NAME);
    if (strncmp(port_name, prefix, sizeof(prefix) - 1) != 0) return lc_port_bad(port_name, "no 'locus:' prefix");
    /* kvsname (no ':' in the names launchers give), rank, id, then the
     * optional address (which has ':' of its own). */
    const char *kvs = port_name + sizeof(prefix) - 1, *rankp = strchr(kvs, ':');
    if (!rankp || rankp == kvs) return lc_port_bad(port_name, "no job name");
    rankp++;
    char *rend, *iend;
    errno = 0;
    long rank = strtol(rankp, &rend, 10);
    if (errno || rend == rankp || *rend != ':' || rank < 0) return lc_port_bad(port_name, "bad rank");
    const char *idp = rend + 1;
    long id = strtol(idp, &iend, 10);
    if (errno || iend == idp || (*iend && *iend != ':') || id < 1 || id > LC_PORT_ID_MAX)
        return lc_port_bad(port_name, "bad id");
    snprintf(port_p->addr, sizeof(port_p->addr), "%s", *iend ? iend + 1 : "");
    size_t kvslen = (size_t)(rankp - 1 - kvs);
    port_p->same_job = kvslen == strlen(lc_world.kvsname) && strncmp(kvs, lc_world.kvsname, kvslen) == 0;
    if (!port_p->same_job && !port_p->addr[0])
        return lc_error(MPI_ERR_PORT,
                        "port '%.200s' belongs to another job (this job is %s) and carries no network address: "
                        "its owner could not open a network endpoint (see its error output)",
                        port_name, lc_world.kvsname);
    if (port_p->same_job && rank >= lc_world.size)
        return lc_port_bad(port_name, "its rank is beyond this job's MPI_COMM_WORLD");
    port_p->rank = (int)rank;
    port_p->id = (unsigned)id;
    return MPI_SUCCESS;
}

int lc_port_open(char *port_name)
{
    if (lc_ports_next > LC_PORT_ID_MAX)
        return lc_error(MPI_ERR_PORT, "this process opened %d ports, the most it can", LC_PORT_ID_MAX);
    unsigned id = lc_ports_next;
    /* A process of another job reaches us by our network address: open
     * the endpoint now if wire-up did not need it.  Without one (no
     * provider) the port still serves this job. */
    lc_ofi_ensure_open(lc_world.peers, lc_world.rank, lc_world.size);
    const char *addr = lc_ofi_address();
    int n = snprintf(port_name, MPI_MAX_PORT_NAME, "locus:%s:%d:%u%s%s", lc_world.kvsname, lc_world.rank, id,
                     addr[0] ? ":" : "", addr);
    if (n >= MPI_MAX_PORT_NAME) return lc_error(MPI_ERR_INTERN, "the job name is too long for a port name");
    int rc = lc_port_mark(id, true);
    if (rc != MPI_SUCCESS) return rc;
    lc_ports_next++;
    return MPI_SUCCESS;
}

int lc_port_close(const char *port_name)
{
    lc_port_t p;
    int rc = lc_port_parse(port_name, &p);
    if (rc != MPI_SUCCESS) return rc;
    if (!p.same_job || p.rank != lc_world.rank || !lc_port_is_open(p.id))
        return lc_error(MPI_ERR_PORT, "port '%s' is not open at this process (world rank %d)", port_name,
                        lc_world.rank);
    return lc_port_mark(p.id, false);
}

LC_API int PMPI_Open_port(MPI_Info info, char *port_name)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(port_name, "port_name"));
    (void)info; /* no hints */
    LC_TRY(lc_port_open(port_name));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Open_port", rc);
}
LC_MPI_ALIAS(Open_port);

LC_API int PMPI_Close_port(const char *port_name)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_port_close(port_name));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Close_port", rc);
}
LC_MPI_ALIAS(Close_port);

/* ---- the name service ------------------------------------------------------ */

static int lc_check_service(const char *service_name)
{
    if (!service_name) return lc_error(MPI_ERR_ARG, "service_name is NULL");
    if (!service_name[0]) return lc_error(MPI_ERR_ARG, "service_name is empty");
    return MPI_SUCCESS;
}

/* A PMI answer as an MPI error of class `cls` (the launcher's reason). */
static int lc_names_error(int prc, int cls, const char *what, const char *service, const char *why)
{
    if (prc == LC_PMI_REFUSED)
        return lc_error(cls, "%s '%.200s': %s", what, service, why[0] ? why : "refused by the launcher");
    return lc_error(MPI_ERR_INTERN, "%s '%.200s': the launcher's name service failed (see the PMI message above)", what,
                    service);
}

LC_API int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    char why[128] = "";
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_service(service_name));
    LC_TRY(lc_check_ptr(port_name, "port_name"));
    (void)info;
    int prc = lc_pmi_name_publish(service_name, port_name, why, sizeof(why));
    if (prc != 0) LC_TRY(lc_names_error(prc, MPI_ERR_SERVICE, "cannot publish service", service_name, why));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Publish_name", rc);
}
LC_MPI_ALIAS(Publish_name);

LC_API int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    char why[128] = "";
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_service(service_name));
    LC_TRY(lc_check_ptr(port_name, "port_name"));
    (void)info;
    int prc = lc_pmi_name_unpublish(service_name, port_name, why, sizeof(why));
    if (prc != 0) LC_TRY(lc_names_error(prc, MPI_ERR_SERVICE, "cannot unpublish service", service_name, why));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Unpublish_name", rc);
}
LC_MPI_ALIAS(Unpublish_name);

LC_API int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    char why[128] = "";
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_service(service_name));
    LC_TRY(lc_check_ptr(port_name, "port_name"));
    (void)info;
    int prc = lc_pmi_name_lookup(service_name, port_name, MPI_MAX_PORT_NAME, why, sizeof(why));
    if (prc != 0) LC_TRY(lc_names_error(prc, MPI_ERR_NAME, "cannot look up service", service_name, why));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Lookup_name", rc);
}
LC_MPI_ALIAS(Lookup_name);
