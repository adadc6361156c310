/* SPDX-License-Identifier: BSD-3-Clause */
/* Locus's bulk get, `cmd=lc_getranks prefix=P first=F count=C maxlen=M`
 * (wire format: src/pmi/lc_pmi_wire.h; docs/launcher.md "Bulk get"): the
 * values of P<F>, P<F+1>, ... from the asking rank's job, as many as fit a
 * reply line of min(M, LC_PMI_BULK_MAX) bytes, at least one.
 *
 * Why: MPI_Init reads one identity record (and one shared-memory card)
 * per peer.  Key by key that is N^2 requests through this single-threaded
 * server (65,536 at 256 ranks); this way each rank asks about
 * N x 200 B / 32 KiB times.
 *
 * Only Locus's client sends it, and only after our `maxes` reply said
 * lc_bulk_max (hydra ends a job on a command it does not know).  Reading
 * keys is open to every rank of the job, as `get` is; the reply is
 * bounded, so it fits the rank's socket buffer in one send
 * (mpiexec_pmi_send_bytes) and a proxy's PMI backlog. */
#include "mpiexec.h"

#include <stdio.h>
#include <string.h>

static void mpiexec_pmi_getranks_refuse(mpiexec_job_t *job, mpiexec_rank_t *r, const char *why)
{
    char buf[256];
    lc_pmi_fmt_t fmt;
    ssize_t len;

    lc_pmi_fmt_init(&fmt, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&fmt, "cmd", "lc_getranks_result");
    lc_pmi_fmt_add(&fmt, "rc", "-1");
    lc_pmi_fmt_add(&fmt, "msg", why);
    len = lc_pmi_fmt_finish(&fmt);
    if (len > 0)
        mpiexec_pmi_send_bytes(job, r, buf, (size_t)len);
}

void mpiexec_pmi_getranks(mpiexec_job_t *job, mpiexec_rank_t *r, const lc_pmi_msg_t *msg)
{
    static char values[LC_PMI_BULK_MAX], line[LC_PMI_BULK_MAX + 1]; /* single-threaded */
    const char *prefix = lc_pmi_msg_get(msg, "prefix");
    const mpiexec_pjob_t *pj = r->pj;
    long first, count, maxlen;
    char key[LC_PMI_KEY_MAX];
    size_t vlen = 0, room;
    int head, n = 0;

    if (r->pmi_version == 2) {
        mpiexec_pmi_getranks_refuse(job, r, "PMI-1_only");
        return;
    }
    if (prefix == NULL || lc_pmi_msg_get_int(msg, "first", &first) != 0 ||
        lc_pmi_msg_get_int(msg, "count", &count) != 0 || lc_pmi_msg_get_int(msg, "maxlen", &maxlen) != 0) {
        mpiexec_pmi_getranks_refuse(job, r, "missing_prefix_first_count_or_maxlen");
        return;
    }
    if (strlen(prefix) + 11 >= LC_PMI_KEY_MAX || (prefix[0] != '\0' && !lc_pmi_key_is_valid(prefix))) {
        mpiexec_pmi_getranks_refuse(job, r, "invalid_prefix");
        return;
    }
    if (first < 0 || first >= pj->size || count < 1 || count > pj->size - first) {
        mpiexec_pmi_getranks_refuse(job, r, "ranks_out_of_range");
        return;
    }
    if (maxlen < LC_PMI_BULK_MIN) {
        mpiexec_pmi_getranks_refuse(job, r, "maxlen_too_small");
        return;
    }
    if (maxlen > LC_PMI_BULK_MAX)
        maxlen = LC_PMI_BULK_MAX;
    /* The header's longest form, first and count of 10 digits each. */
    room = (size_t)maxlen - sizeof("cmd=lc_getranks_result rc=0 first=0123456789 count=0123456789 values=\n");
    for (; n < count; n++) {
        const char *v;

        snprintf(key, sizeof(key), "%s%ld", prefix, first + n);
        v = mpiexec_kvs_get(pj->kvs, key);
        if (v != NULL && !lc_pmi1_value_is_valid(v)) {
            /* Put by a PMI-2 client with a space in it: PMI-1 cannot say it. */
            mpiexec_pmi_getranks_refuse(job, r, "value_not_representable_in_PMI-1");
            return;
        }
        if (lc_pmi_bulk_put(values, &vlen, room, v) != 0)
            break; /* the rest in the next request; one value always fits */
    }
    head = snprintf(line, sizeof(line), "cmd=lc_getranks_result rc=0 first=%ld count=%d values=", first, n);
    memcpy(line + head, values, vlen);
    line[head + vlen] = '\n';
    mpiexec_pmi_send_bytes(job, r, line, (size_t)head + vlen + 1);
}
