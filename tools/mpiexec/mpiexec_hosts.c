/* SPDX-License-Identifier: BSD-3-Clause */
/* Hosts of a job and where each rank runs.
 *
 * The list comes from -hosts h1[:slots],h2[:slots] or from a host file
 * (-f: one `host[:slots]` a line, `#` starts a comment), as MPICH's hydra
 * reads them; a host without slots has 1.  -ppn N gives every entry N
 * slots instead.  Placement is by block: the first entry's slots get
 * ranks 0.., then the next entry's, and the list starts over while ranks
 * are left (-n larger than the slots wraps around, as hydra does).  Without
 * a list, every rank runs here.
 *
 * Entries with the same name are the same host (one proxy, one local rank
 * numbering); a name that means this machine (mpiexec_net_is_this_host)
 * is local: its ranks are forked by mpiexec itself, and all such names
 * are one host.
 *
 * PMI_process_mapping tells MPICH-built programs which ranks share a node:
 * runs of consecutive ranks on one node, with equal runs on consecutive
 * nodes folded into one (first node, node count, ranks per node) triple. */
#include "mpiexec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct mpiexec_entry {
    char *name;
    int   slots;
} mpiexec_entry_t;

typedef struct mpiexec_entries {
    int              n, cap;
    mpiexec_entry_t *e;
} mpiexec_entries_t;

static void mpiexec_entries_free(mpiexec_entries_t *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->e[i].name);
    free(l->e);
}

/* Parse "host[:slots]" (surrounding blanks removed) and append it.
 * `where` names the source for messages. */
static int mpiexec_entries_add(mpiexec_entries_t *l, const char *text, size_t len, const char *where)
{
    const char *colon;
    size_t nlen;
    long slots = 1;
    mpiexec_entry_t *e;

    while (len > 0 && (text[0] == ' ' || text[0] == '\t')) {
        text++;
        len--;
    }
    while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\r'))
        len--;
    if (len == 0)
        return 0;
    colon = memchr(text, ':', len);
    nlen = colon != NULL ? (size_t)(colon - text) : len;
    if (nlen == 0 || memchr(text, ' ', nlen) != NULL || memchr(text, '\t', nlen) != NULL) {
        mpiexec_say("%s: bad host entry '%.*s' (expected host[:slots])", where, (int)len, text);
        return -1;
    }
    if (colon != NULL) {
        char num[16], *end;
        size_t dlen = len - nlen - 1;

        if (dlen == 0 || dlen >= sizeof(num)) {
            mpiexec_say("%s: bad slot count in '%.*s'", where, (int)len, text);
            return -1;
        }
        memcpy(num, colon + 1, dlen);
        num[dlen] = '\0';
        errno = 0;
        slots = strtol(num, &end, 10);
        if (errno != 0 || *end != '\0' || slots < 1 || slots > 4096) {
            mpiexec_say("%s: bad slot count in '%.*s' (expected 1..4096)", where, (int)len, text);
            return -1;
        }
    }
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        mpiexec_entry_t *p = realloc(l->e, (size_t)cap * sizeof(*p));

        if (p == NULL)
            goto oom;
        l->e = p;
        l->cap = cap;
    }
    e = &l->e[l->n];
    e->name = strndup(text, nlen);
    if (e->name == NULL)
        goto oom;
    e->slots = (int)slots;
    l->n++;
    return 0;
oom:
    mpiexec_say("out of memory");
    return -1;
}

static int mpiexec_entries_from_list(mpiexec_entries_t *l, const char *list)
{
    while (*list) {
        size_t len = strcspn(list, ",");

        if (mpiexec_entries_add(l, list, len, "-hosts") != 0)
            return -1;
        list += len;
        if (*list == ',')
            list++;
    }
    return 0;
}

static int mpiexec_entries_from_file(mpiexec_entries_t *l, const char *path)
{
    FILE *f = fopen(path, "re");
    char line[4096], where[300];
    int lineno = 0, rc = 0;

    if (f == NULL) {
        mpiexec_say("cannot open host file '%s': %m", path);
        return -1;
    }
    while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
        size_t len = strcspn(line, "#\n");

        lineno++;
        snprintf(where, sizeof(where), "%s:%d", path, lineno);
        rc = mpiexec_entries_add(l, line, len, where);
    }
    fclose(f);
    return rc;
}

/* Add global rank r to host h's list. */
static int mpiexec_host_add_rank(mpiexec_host_t *h, int r, int cap)
{
    if (h->ranks == NULL) {
        h->ranks = malloc((size_t)cap * sizeof(int));
        if (h->ranks == NULL)
            return -1;
    }
    h->ranks[h->nranks++] = r;
    return 0;
}

static int mpiexec_hosts_mapping(mpiexec_job_t *job)
{
    size_t cap = 64, len;
    char *s = malloc(cap);
    int r = 0;

    if (s == NULL)
        return -1;
    len = (size_t)snprintf(s, cap, "(vector");
    while (r < job->size) {
        /* A run: consecutive ranks on one node ... */
        int node = job->ranks[r].host, count = 0, nodes = 1;

        while (r + count < job->size && job->ranks[r + count].host == node)
            count++;
        r += count;
        /* ... and the same run on the following nodes. */
        for (;;) {
            int next = node + nodes, k = 0;

            while (r + k < job->size && k < count && job->ranks[r + k].host == next)
                k++;
            if (k != count || (r + k < job->size && job->ranks[r + k].host == next))
                break;
            r += count;
            nodes++;
        }
        char triple[48];
        int n = snprintf(triple, sizeof(triple), ",(%d,%d,%d)", node, nodes, count);
        if (len + (size_t)n + 2 > cap) {
            char *p;
            cap = 2 * (len + (size_t)n + 2);
            p = realloc(s, cap);
            if (p == NULL) {
                free(s);
                return -1;
            }
            s = p;
        }
        memcpy(s + len, triple, (size_t)n + 1);
        len += (size_t)n;
    }
    s[len++] = ')';
    s[len] = '\0';
    job->process_mapping = s;
    return 0;
}

int mpiexec_hosts_place(mpiexec_job_t *job)
{
    mpiexec_entries_t l = {0};
    int *entry_host = NULL, rc = -1, total = 0;

    if (job->opt.hosts != NULL && mpiexec_entries_from_list(&l, job->opt.hosts) != 0)
        goto out;
    if (job->opt.hostfile != NULL && mpiexec_entries_from_file(&l, job->opt.hostfile) != 0)
        goto out;
    if ((job->opt.hosts != NULL || job->opt.hostfile != NULL) && l.n == 0) {
        mpiexec_say("%s: no hosts listed", job->opt.hosts != NULL ? "-hosts" : job->opt.hostfile);
        goto out;
    }
    if (l.n == 0 && mpiexec_entries_add(&l, "localhost", 9, "default") != 0)
        goto out;
    for (int i = 0; i < l.n; i++) {
        if (job->opt.ppn > 0)
            l.e[i].slots = job->opt.ppn;
        total += l.e[i].slots;
    }
    if (job->opt.nprocs == 0)
        job->opt.nprocs = total > 4096 ? 4096 : total;
    job->size = job->opt.nprocs;
    /* MPI_UNIVERSE_SIZE: -usize, else the slots listed, at least the world. */
    job->universe_size = job->opt.usize > 0 ? job->opt.usize
                         : job->opt.hosts != NULL || job->opt.hostfile != NULL ? total : job->size;
    if (job->universe_size < job->size)
        job->universe_size = job->size;

    /* Distinct hosts, in order of first appearance. */
    entry_host = malloc((size_t)l.n * sizeof(int));
    job->hosts = calloc((size_t)l.n, sizeof(mpiexec_host_t));
    job->ranks = calloc((size_t)job->size, sizeof(mpiexec_rank_t));
    if (entry_host == NULL || job->hosts == NULL || job->ranks == NULL)
        goto oom;
    for (int i = 0; i < l.n; i++) {
        int h;

        int local;

        for (h = 0; h < job->nhosts; h++)
            if (strcasecmp(job->hosts[h].name, l.e[i].name) == 0)
                break;
        if (h == job->nhosts) {
            local = job->opt.hosts == NULL && job->opt.hostfile == NULL ? 1 : mpiexec_net_is_this_host(l.e[i].name);
            /* Two names of this machine (localhost, its host name) are one host. */
            if (local)
                for (h = 0; h < job->nhosts && !job->hosts[h].local; h++)
                    ;
            if (h == job->nhosts) {
                job->hosts[h].name = strdup(l.e[i].name);
                if (job->hosts[h].name == NULL)
                    goto oom;
                job->hosts[h].local = local;
                job->nhosts++;
            }
        }
        entry_host[i] = h;
    }
    /* Block placement, wrapping around the list. */
    for (int r = 0, i = 0; r < job->size; i = (i + 1) % l.n) {
        mpiexec_host_t *h = &job->hosts[entry_host[i]];

        for (int k = 0; k < l.e[i].slots && r < job->size; k++, r++) {
            mpiexec_rank_t *rk = &job->ranks[r];

            rk->rank = r;
            rk->host = entry_host[i];
            rk->local_rank = h->nranks;
            if (mpiexec_host_add_rank(h, r, job->size) != 0)
                goto oom;
        }
    }
    for (int r = 0; r < job->size; r++)
        if (job->hosts[job->ranks[r].host].local)
            job->nlocal++;
    if (mpiexec_hosts_mapping(job) != 0)
        goto oom;
    rc = 0;
    goto out;
oom:
    mpiexec_say("out of memory for %d processes", job->size);
out:
    free(entry_host);
    mpiexec_entries_free(&l);
    return rc;
}
