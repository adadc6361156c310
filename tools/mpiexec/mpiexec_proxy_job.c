/* SPDX-License-Identifier: BSD-3-Clause */
/* The JOB frame as a proxy reads it (mpiexec builds it in
 * mpiexec_remote.c):
 *
 *   str kvsname, u32 size, u32 flags, str cwd, u32 argc + argv strings,
 *   u32 nenv + NAME=VALUE strings, u32 nranks + global ranks (increasing)
 *
 * Decoding takes on the environment at once (setenv), so the ranks the
 * proxy forks inherit it.  Every count is checked against the bytes left
 * before anything is allocated for it. */
#include "mpiexec.h"
#include "mpiexec_frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mpiexec_proxy_job_free(mpiexec_proxy_job_t *job)
{
    for (int i = 0; job->argv != NULL && job->argv[i] != NULL; i++)
        free(job->argv[i]);
    free(job->argv);
    free(job->cwd);
    free(job->ranks);
    memset(job, 0, sizeof(*job));
}

static void mpiexec_proxy_job_env(mpiexec_rd_t *rd)
{
    uint32_t nenv = mpiexec_rd_u32(rd);

    for (uint32_t i = 0; i < nenv && !rd->bad; i++) {
        char *kv = strdup(mpiexec_rd_str(rd)), *eq = kv != NULL ? strchr(kv, '=') : NULL;

        if (eq != NULL && eq != kv) {
            *eq = '\0';
            setenv(kv, eq + 1, 1);
        }
        free(kv);
    }
}

int mpiexec_proxy_job_decode(const char *p, size_t len, mpiexec_proxy_job_t *job)
{
    mpiexec_rd_t rd = {.p = p, .left = len};
    uint32_t argc, n;

    memset(job, 0, sizeof(*job));
    snprintf(job->kvsname, sizeof(job->kvsname), "%s", mpiexec_rd_str(&rd));
    job->size = mpiexec_rd_u32(&rd);
    job->flags = mpiexec_rd_u32(&rd);
    job->cwd = strdup(mpiexec_rd_str(&rd));
    argc = mpiexec_rd_u32(&rd);
    /* A string takes at least 5 bytes (length and NUL). */
    if (rd.bad || job->cwd == NULL || argc == 0 || argc > rd.left / 5 || job->size == 0 ||
        (job->argv = calloc((size_t)argc + 1, sizeof(char *))) == NULL)
        goto bad;
    for (uint32_t i = 0; i < argc; i++)
        if ((job->argv[i] = strdup(mpiexec_rd_str(&rd))) == NULL)
            goto bad;
    mpiexec_proxy_job_env(&rd);
    n = mpiexec_rd_u32(&rd);
    if (rd.bad || n == 0 || n > job->size || n > rd.left / 4 || (job->ranks = calloc(n, sizeof(int))) == NULL)
        goto bad;
    job->nranks = (int)n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = mpiexec_rd_u32(&rd);

        if (r >= job->size || (i > 0 && (int)r <= job->ranks[i - 1]))
            goto bad;
        job->ranks[i] = (int)r;
    }
    if (!rd.bad)
        return 0;
bad:
    mpiexec_proxy_job_free(job);
    return -1;
}
