/* SPDX-License-Identifier: BSD-3-Clause */
/* PMI-1 name service client (lc_pmi.h): publish_name / unpublish_name /
 * lookup_name, the commands and replies hydra uses, so a Locus process
 * publishes names under hydra as under Locus's mpiexec.  A singleton
 * keeps its names in a list of its own (no other process can see them,
 * which is all a job of one process needs). */
#include "pmi/lc_pmi_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lc_pmi_name {
    struct lc_pmi_name *next;
    char service[LC_PMI_VALUE_MAX];
    char port[LC_PMI_VALUE_MAX];
} lc_pmi_name_t;

/* Serializes the name calls: each is one request and one reply on the
 * launcher's socket, and MPI_THREAD_MULTIPLE callers may overlap.  Init
 * and finalize run when no MPI call can (the MPI layer's rule). */
static pthread_mutex_t lc_pmi_names_lock = PTHREAD_MUTEX_INITIALIZER;
static lc_pmi_name_t *lc_pmi_names_local;

static void lc_pmi_why(char *why, size_t whylen, const char *text)
{
    if (why != NULL && whylen > 0) snprintf(why, whylen, "%s", text);
}

static int lc_pmi_names_check(const char *service, const char *port)
{
    if (!lc_pmi_is_initialized()) return -1;
    if (!lc_pmi1_value_is_valid(service) || service[0] == '\0' || strlen(service) >= LC_PMI_VALUE_MAX / 2 ||
        (port != NULL && (!lc_pmi1_value_is_valid(port) || strlen(port) >= LC_PMI_VALUE_MAX / 2)))
        return LC_PMI_REFUSED;
    return 0;
}

static lc_pmi_name_t **lc_pmi_local_name(const char *service)
{
    lc_pmi_name_t **pp = &lc_pmi_names_local;
    while (*pp && strcmp((*pp)->service, service) != 0) pp = &(*pp)->next;
    return pp;
}

/* The singleton's answer to cmd (p/u/l), as the launcher would give it. */
static int lc_pmi_names_singleton(char cmd, const char *service, const char *port, char *out, size_t len, char *why,
                                  size_t whylen)
{
    lc_pmi_name_t **pp = lc_pmi_local_name(service), *n = *pp;
    if (cmd == 'p') {
        if (n) goto refused_have;
        n = calloc(1, sizeof(*n));
        if (!n) return -1;
        snprintf(n->service, sizeof(n->service), "%s", service);
        snprintf(n->port, sizeof(n->port), "%s", port);
        *pp = n;
        return 0;
    }
    if (!n) {
        lc_pmi_why(why, whylen, "service_not_published");
        return LC_PMI_REFUSED;
    }
    if (cmd == 'u') {
        if (port && strcmp(port, n->port) != 0) {
            lc_pmi_why(why, whylen, "service_published_with_another_port");
            return LC_PMI_REFUSED;
        }
        *pp = n->next;
        free(n);
        return 0;
    }
    if (strlen(n->port) >= len) return -1;
    memcpy(out, n->port, strlen(n->port) + 1);
    return 0;
refused_have:
    lc_pmi_why(why, whylen, "service_already_published");
    return LC_PMI_REFUSED;
}

static int lc_pmi_names_call(char cmd, const char *service, const char *port, char *out, size_t len, char *why,
                             size_t whylen)
{
    static const char *const req[] = { "publish_name", "unpublish_name", "lookup_name" };
    static const char *const rep[] = { "publish_result", "unpublish_result", "lookup_result" };
    int k = cmd == 'p' ? 0 : cmd == 'u' ? 1 : 2;
    int rc = lc_pmi_names_check(service, port);
    if (rc == LC_PMI_REFUSED) lc_pmi_why(why, whylen, "name_or_port_not_representable");
    if (rc != 0) return rc;
    pthread_mutex_lock(&lc_pmi_names_lock);
    if (lc_pmi_is_singleton()) {
        rc = lc_pmi_names_singleton(cmd, service, port, out, len, why, whylen);
    } else {
        char buf[LC_PMI_WIRE_MAX + 2];
        lc_pmi_fmt_t fmt;
        lc_pmi_msg_t msg;
        long prc = 0;
        lc_pmi_fmt_init(&fmt, 1, buf, sizeof(buf));
        lc_pmi_fmt_add(&fmt, "cmd", req[k]);
        lc_pmi_fmt_add(&fmt, "service", service);
        if (port) lc_pmi_fmt_add(&fmt, "port", port);
        rc = lc_pmi_call(&fmt, rep[k], &msg, &prc);
        if (rc == 0 && prc != 0) {
            const char *m = lc_pmi_msg_get(&msg, "msg");
            lc_pmi_why(why, whylen, m ? m : "refused");
            rc = LC_PMI_REFUSED;
        } else if (rc == 0 && cmd == 'l') {
            const char *v = lc_pmi_msg_get(&msg, "port");
            if (!v || strlen(v) >= len) {
                lc_pmi_why(why, whylen, "lookup_result_without_usable_port");
                rc = -1;
            } else {
                memcpy(out, v, strlen(v) + 1);
            }
        }
    }
    pthread_mutex_unlock(&lc_pmi_names_lock);
    return rc;
}

void lc_pmi_names_fini(void)
{
    while (lc_pmi_names_local) {
        lc_pmi_name_t *n = lc_pmi_names_local;
        lc_pmi_names_local = n->next;
        free(n);
    }
}

int lc_pmi_name_publish(const char *service, const char *port, char *why, size_t whylen)
{
    return lc_pmi_names_call('p', service, port, NULL, 0, why, whylen);
}

int lc_pmi_name_unpublish(const char *service, const char *port, char *why, size_t whylen)
{
    return lc_pmi_names_call('u', service, port, NULL, 0, why, whylen);
}

int lc_pmi_name_lookup(const char *service, char *port, size_t len, char *why, size_t whylen)
{
    return lc_pmi_names_call('l', service, NULL, port, len, why, whylen);
}
