/* SPDX-License-Identifier: BSD-3-Clause */
/* PMI client: one key per rank for many ranks (lc_pmi_get_ranks).
 *
 * MPI_Init reads every peer's identity record and shared-memory card:
 * one get per peer is N^2 requests for the launcher (65,536 at 256 ranks,
 * each a round trip through a server that is one process for the whole
 * job).  Locus's mpiexec answers Locus's `lc_getranks` (lc_pmi_wire.h)
 * with as many consecutive ranks' values as fit one reply line of
 * lc_pmi_bulk_max() bytes, so a rank needs about N x record / 32 KiB
 * requests.  Any other launcher (hydra) gets one `get` per rank: it was
 * never told of the command (lc_pmi_init learns of it from `maxes`). */
#include "pmi/lc_pmi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int lc_pmi_get_ranks_each(const char *prefix, const int *ranks, int n, lc_pmi_rank_fn fn, void *arg)
{
    char key[LC_PMI_KEY_MAX], value[LC_PMI_VALUE_MAX];

    for (int i = 0; i < n; i++) {
        int rc;

        snprintf(key, sizeof(key), "%s%d", prefix, ranks[i]);
        rc = lc_pmi_get(ranks[i], key, value, sizeof(value));
        if (rc == -1)
            return -1; /* lc_pmi_get said why */
        if (fn(ranks[i], rc == 0 ? value : NULL, arg) != 0)
            return -1;
    }
    return 0;
}

/* One error line, as lc_pmi.c's (one write). */
static int lc_pmi_bulk_fail(const char *what, const char *line)
{
    fprintf(stderr, "locus: PMI: %s: %.200s\n", what, line);
    return -1;
}

/* The reply's first, count (and rc, msg) come before `values=`. */
static int lc_pmi_bulk_header(char *line, size_t len, long *first_p, long *count_p, const char **values_p)
{
    static const char tag[] = " values=";
    char *v = strstr(line, tag);
    lc_pmi_msg_t msg;
    long rc = -1;

    if (v != NULL)
        *v = '\0';
    if (lc_pmi1_parse(line, v != NULL ? (size_t)(v - line) : len, &msg) != 0 ||
        strcmp(lc_pmi_msg_cmd(&msg), "lc_getranks_result") != 0)
        return lc_pmi_bulk_fail("unexpected reply to lc_getranks", line);
    if (lc_pmi_msg_get_int(&msg, "rc", &rc) != 0 || rc != 0) {
        const char *why = lc_pmi_msg_get(&msg, "msg");
        return lc_pmi_bulk_fail("launcher refused lc_getranks", why != NULL ? why : "no reason given");
    }
    if (v == NULL || lc_pmi_msg_get_int(&msg, "first", first_p) != 0 ||
        lc_pmi_msg_get_int(&msg, "count", count_p) != 0 || *count_p < 1)
        return lc_pmi_bulk_fail("malformed reply to lc_getranks", line);
    *values_p = v + sizeof(tag) - 1;
    return 0;
}

int lc_pmi_get_ranks(const char *prefix, const int *ranks, int n, lc_pmi_rank_fn fn, void *arg)
{
    size_t cap = lc_pmi_bulk_max();
    char key[LC_PMI_KEY_MAX], req[LC_PMI_WIRE_MAX + 2], value[LC_PMI_VALUE_MAX], *line;
    int i = 0, rc = 0;

    if (n <= 0)
        return 0;
    /* The longest key asked must be a valid one: check it as lc_pmi_get does. */
    snprintf(key, sizeof(key), "%s%d", prefix, ranks[n - 1]);
    if (cap == 0 || !lc_pmi_key_is_valid(key) || strlen(prefix) + 11 >= LC_PMI_KEY_MAX)
        return lc_pmi_get_ranks_each(prefix, ranks, n, fn, arg);
    line = malloc(cap);
    if (line == NULL)
        return lc_pmi_get_ranks_each(prefix, ranks, n, fn, arg);
    while (i < n && rc == 0) {
        lc_pmi_fmt_t fmt;
        ssize_t len;
        long first, count;
        const char *p, *end;

        lc_pmi_fmt_init(&fmt, 1, req, sizeof(req));
        lc_pmi_fmt_add(&fmt, "cmd", "lc_getranks");
        lc_pmi_fmt_add(&fmt, "prefix", prefix);
        lc_pmi_fmt_add_int(&fmt, "first", ranks[i]);
        lc_pmi_fmt_add_int(&fmt, "count", (long)ranks[n - 1] - ranks[i] + 1);
        lc_pmi_fmt_add_int(&fmt, "maxlen", (long)cap);
        len = lc_pmi_fmt_finish(&fmt);
        if (len < 0 || (len = lc_pmi_call_long(req, (size_t)len, line, cap)) < 0 ||
            lc_pmi_bulk_header(line, (size_t)len, &first, &count, &p) != 0) {
            rc = -1;
            break;
        }
        if (first != ranks[i] || count > (long)ranks[n - 1] - ranks[i] + 1) {
            rc = lc_pmi_bulk_fail("lc_getranks answered other ranks than asked", line);
            break;
        }
        end = line + len;
        for (long k = 0; k < count && rc == 0; k++) {
            const char *v;
            size_t vlen;

            if (lc_pmi_bulk_next(&p, end, &v, &vlen) != 1) {
                rc = lc_pmi_bulk_fail("malformed values in a reply to lc_getranks", prefix);
                break;
            }
            if (i >= n || first + k != ranks[i])
                continue; /* a rank between the wanted ones */
            if (v != NULL) {
                memcpy(value, v, vlen);
                value[vlen] = '\0';
            }
            i++;
            rc = fn((int)(first + k), v != NULL ? value : NULL, arg);
        }
        if (rc == 0 && p != end)
            rc = lc_pmi_bulk_fail("reply to lc_getranks longer than its count", prefix);
    }
    free(line);
    return rc;
}
