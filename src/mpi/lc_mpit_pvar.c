/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpit_pvar.c — MPI_T performance variables, sessions and handles.
 *
 * The variables are the receive side's counters (lc_pt2pt_stats_t, bumped
 * off the eager path), all MPI_UNSIGNED_LONG, bound to no object:
 *   COUNTER        rendezvous messages and bytes by protocol (single-copy
 *                  pull or pipeline), unexpected messages; a handle counts
 *                  what happened while it was started; write and reset set
 *                  its value;
 *   LEVEL          the unexpected queue's length: continuous, read-only;
 *   HIGHWATERMARK  the queue's longest while the handle was started.
 * The library's counters only grow, so a COUNTER handle keeps its own
 * value (`acc`) and the counter's reading when it was started (`base`).
 * A HIGHWATERMARK handle needs the peak since its start, but there is one
 * peak (lc_pt2pt_stats.unexp_peak): whenever a handle needs it lowered to
 * the present length, every started handle first takes the peak so far
 * into its own `acc` (lc_mpit_peak_restart), so no handle loses a peak.
 */
#include "mpi/lc_mpit.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct lc_mpit_pvar {
    const char *name;
    int var_class;
    size_t offset; /* of the counter in lc_pt2pt_stats_t */
    const char *desc;
} lc_mpit_pvar_t;

#define LC_MPIT_STAT(field) offsetof(lc_pt2pt_stats_t, field)
static const lc_mpit_pvar_t lc_mpit_pvars[] = {
    { "locus_rndv_pull_msgs", MPI_T_PVAR_CLASS_COUNTER, LC_MPIT_STAT(rndv_pull),
      "Rendezvous messages this rank received by a single-copy pull (CMA within a host, fi_read over the "
      "network)." },
    { "locus_rndv_pipe_msgs", MPI_T_PVAR_CLASS_COUNTER, LC_MPIT_STAT(rndv_pipe),
      "Rendezvous messages this rank received through the two-copy pipeline (or streamed in network packets)." },
    { "locus_rndv_pull_bytes", MPI_T_PVAR_CLASS_COUNTER, LC_MPIT_STAT(rndv_pull_bytes),
      "Bytes of the rendezvous messages received by a single-copy pull." },
    { "locus_rndv_pipe_bytes", MPI_T_PVAR_CLASS_COUNTER, LC_MPIT_STAT(rndv_pipe_bytes),
      "Bytes of the rendezvous messages received through the pipeline." },
    { "locus_rndv_split_msgs", MPI_T_PVAR_CLASS_COUNTER, LC_MPIT_STAT(rndv_split),
      "Rendezvous messages this rank pulled together with their sender (the split copy, LOCUS_CMA_SPLIT); "
      "also counted as pulls." },
    { "locus_rndv_split_pushed_bytes", MPI_T_PVAR_CLASS_COUNTER, LC_MPIT_STAT(rndv_split_pushed),
      "Bytes of split-copy messages that the sender pushed rather than this rank pulled." },
    { "locus_rndv_split_send_msgs", MPI_T_PVAR_CLASS_COUNTER, LC_MPIT_STAT(rndv_split_sent),
      "Rendezvous messages this rank sent whose receiver asked to split them (its CTS said so: the sender "
      "follows the receiver's choice); summed over a pair, equal to the receiver's locus_rndv_split_msgs." },
    { "locus_unexpected_msgs", MPI_T_PVAR_CLASS_COUNTER, LC_MPIT_STAT(unexp_msgs),
      "Messages (eager or rendezvous) that arrived before a matching receive was posted." },
    { "locus_unexpected_queue_len", MPI_T_PVAR_CLASS_LEVEL, LC_MPIT_STAT(unexp_len),
      "Messages in the unexpected queue now (continuous, read-only)." },
    { "locus_unexpected_queue_max", MPI_T_PVAR_CLASS_HIGHWATERMARK, LC_MPIT_STAT(unexp_peak),
      "Most messages in the unexpected queue at once while the handle was started." },
};
#define LC_MPIT_NPVARS ((int)LC_ARRAY_SIZE(lc_mpit_pvars))

int lc_mpit_pvar_count(void)
{
    return LC_MPIT_NPVARS;
}

static unsigned long lc_mpit_stat(int pvar)
{
    const char *at = (const char *)&lc_pt2pt_stats + lc_mpit_pvars[pvar].offset;
    return lc_count_get((const unsigned long *)(const void *)at);
}

static bool lc_mpit_pvar_continuous(int pvar)
{
    return lc_mpit_pvars[pvar].var_class == MPI_T_PVAR_CLASS_LEVEL;
}

struct MPIR_T_pvar_handle_s {
    struct MPIR_T_pvar_handle_s *next; /* in its session */
    int pvar;
    bool started;
    unsigned long acc;  /* COUNTER: value over past started spans; HWM: highest known */
    unsigned long base; /* COUNTER: the counter when last started (or reset, written) */
};
struct MPIR_T_pvar_session_s {
    struct MPIR_T_pvar_session_s *next;
    struct MPIR_T_pvar_handle_s *handles;
};
static struct MPIR_T_pvar_session_s *lc_mpit_sessions;

static bool lc_mpit_session_valid(MPI_T_pvar_session s)
{
    for (struct MPIR_T_pvar_session_s *it = lc_mpit_sessions; it; it = it->next)
        if (it == s) return true;
    return false;
}

static bool lc_mpit_handle_valid(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    for (struct MPIR_T_pvar_handle_s *it = s->handles; it; it = it->next)
        if (it == h) return true;
    return false;
}

/* Lower the one peak to the present length, every started high-water
 * mark keeping what it saw (see the head). */
static void lc_mpit_peak_restart(void)
{
    for (struct MPIR_T_pvar_session_s *s = lc_mpit_sessions; s; s = s->next)
        for (struct MPIR_T_pvar_handle_s *h = s->handles; h; h = h->next)
            if (h->started && lc_mpit_pvars[h->pvar].var_class == MPI_T_PVAR_CLASS_HIGHWATERMARK &&
                lc_pt2pt_stats.unexp_peak > h->acc)
                h->acc = lc_pt2pt_stats.unexp_peak;
    lc_pt2pt_stats.unexp_peak = lc_pt2pt_stats.unexp_len;
}

static unsigned long lc_mpit_value(const struct MPIR_T_pvar_handle_s *h)
{
    switch (lc_mpit_pvars[h->pvar].var_class) {
    case MPI_T_PVAR_CLASS_COUNTER:
        return h->acc + (h->started ? lc_mpit_stat(h->pvar) - h->base : 0);
    case MPI_T_PVAR_CLASS_HIGHWATERMARK:
        return h->started && lc_pt2pt_stats.unexp_peak > h->acc ? lc_pt2pt_stats.unexp_peak : h->acc;
    default:
        return lc_mpit_stat(h->pvar);
    }
}

/* Give handle h the value v (reset, write). */
static void lc_mpit_set(struct MPIR_T_pvar_handle_s *h, unsigned long v)
{
    if (lc_mpit_pvars[h->pvar].var_class == MPI_T_PVAR_CLASS_HIGHWATERMARK) {
        if (h->started) lc_mpit_peak_restart();
    } else {
        h->base = lc_mpit_stat(h->pvar);
    }
    h->acc = v;
}

/* The value a reset gives: 0 for a counter, the present level for a
 * high-water mark (§15.3.7). */
static unsigned long lc_mpit_reset_value(const struct MPIR_T_pvar_handle_s *h)
{
    return lc_mpit_pvars[h->pvar].var_class == MPI_T_PVAR_CLASS_HIGHWATERMARK ? lc_pt2pt_stats.unexp_len : 0;
}

static void lc_mpit_start(struct MPIR_T_pvar_handle_s *h)
{
    if (h->started) return;
    if (lc_mpit_pvars[h->pvar].var_class == MPI_T_PVAR_CLASS_HIGHWATERMARK) lc_mpit_peak_restart();
    h->base = lc_mpit_stat(h->pvar);
    h->started = true;
}

static void lc_mpit_stop(struct MPIR_T_pvar_handle_s *h)
{
    if (!h->started) return;
    h->acc = lc_mpit_value(h);
    h->started = false;
}

LC_API int PMPI_T_pvar_get_num(int *num_pvar)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!num_pvar) return lc_mpit_leave(MPI_T_ERR_INVALID);
    *num_pvar = LC_MPIT_NPVARS;
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_pvar_get_num);

LC_API int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                                MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                                int *readonly, int *continuous, int *atomic)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (pvar_index < 0 || pvar_index >= LC_MPIT_NPVARS) return lc_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    const lc_mpit_pvar_t *v = &lc_mpit_pvars[pvar_index];
    bool cont = lc_mpit_pvar_continuous(pvar_index);
    lc_mpit_string(v->name, strlen(v->name), name, name_len);
    if (verbosity) *verbosity = MPI_T_VERBOSITY_TUNER_BASIC;
    if (var_class) *var_class = v->var_class;
    if (datatype) *datatype = MPI_UNSIGNED_LONG;
    if (enumtype) *enumtype = MPI_T_ENUM_NULL;
    lc_mpit_string(v->desc, strlen(v->desc), desc, desc_len);
    if (bind) *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly) *readonly = cont;
    if (continuous) *continuous = cont;
    /* readreset is one MPI_T call under lc_mpit_lock, and the counters
     * change only inside MPI calls, which exclude it (the MPI_THREAD_MULTIPLE
     * critical section; the progress thread runs only when no application
     * thread is in MPI). */
    if (atomic) *atomic = !cont;
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_pvar_get_info);

LC_API int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!name || !pvar_index) return lc_mpit_leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < LC_MPIT_NPVARS; i++) {
        if (lc_mpit_pvars[i].var_class == var_class && !strcmp(lc_mpit_pvars[i].name, name)) {
            *pvar_index = i;
            return lc_mpit_leave(MPI_SUCCESS);
        }
    }
    return lc_mpit_leave(MPI_T_ERR_INVALID_NAME);
}
LC_MPI_ALIAS(T_pvar_get_index);

LC_API int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!session) return lc_mpit_leave(MPI_T_ERR_INVALID);
    struct MPIR_T_pvar_session_s *s = calloc(1, sizeof(*s));
    if (!s) return lc_mpit_leave(MPI_T_ERR_MEMORY);
    s->next = lc_mpit_sessions;
    lc_mpit_sessions = s;
    *session = s;
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_pvar_session_create);

static void lc_mpit_session_destroy(struct MPIR_T_pvar_session_s *s)
{
    for (struct MPIR_T_pvar_session_s **p = &lc_mpit_sessions; *p; p = &(*p)->next) {
        if (*p == s) {
            *p = s->next;
            break;
        }
    }
    while (s->handles) {
        struct MPIR_T_pvar_handle_s *h = s->handles;
        s->handles = h->next;
        free(h);
    }
    free(s);
}

LC_API int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!session || !lc_mpit_session_valid(*session)) return lc_mpit_leave(MPI_T_ERR_INVALID_SESSION);
    lc_mpit_session_destroy(*session);
    *session = MPI_T_PVAR_SESSION_NULL;
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_pvar_session_free);

void lc_mpit_pvar_fini(void)
{
    while (lc_mpit_sessions) lc_mpit_session_destroy(lc_mpit_sessions);
}

LC_API int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                                    MPI_T_pvar_handle *handle, int *count)
{
    (void)obj_handle; /* bound to no object */
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!lc_mpit_session_valid(session)) return lc_mpit_leave(MPI_T_ERR_INVALID_SESSION);
    if (pvar_index < 0 || pvar_index >= LC_MPIT_NPVARS) return lc_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count) return lc_mpit_leave(MPI_T_ERR_INVALID);
    struct MPIR_T_pvar_handle_s *h = calloc(1, sizeof(*h));
    if (!h) return lc_mpit_leave(MPI_T_ERR_MEMORY);
    h->pvar = pvar_index;
    h->acc = lc_mpit_reset_value(h);
    /* A continuous variable is always started. */
    h->started = lc_mpit_pvar_continuous(pvar_index);
    h->next = session->handles;
    session->handles = h;
    *handle = h;
    *count = 1;
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_pvar_handle_alloc);

LC_API int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!lc_mpit_session_valid(session)) return lc_mpit_leave(MPI_T_ERR_INVALID_SESSION);
    if (!handle) return lc_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    for (struct MPIR_T_pvar_handle_s **p = &session->handles; *p; p = &(*p)->next) {
        if (*p == *handle) {
            *p = (*handle)->next;
            free(*handle);
            *handle = MPI_T_PVAR_HANDLE_NULL;
            return lc_mpit_leave(MPI_SUCCESS);
        }
    }
    return lc_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
}
LC_MPI_ALIAS(T_pvar_handle_free);

/* The common prologue of start, stop, reset: MPI_SUCCESS with the lock
 * held, or the error with it released.  `all`: the handle may be
 * MPI_T_PVAR_ALL_HANDLES. */
static int lc_mpit_pvar_enter(MPI_T_pvar_session session, MPI_T_pvar_handle handle, bool all)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!lc_mpit_session_valid(session)) return lc_mpit_leave(MPI_T_ERR_INVALID_SESSION);
    if (all && handle == MPI_T_PVAR_ALL_HANDLES) return MPI_SUCCESS;
    if (!lc_mpit_handle_valid(session, handle)) return lc_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    return MPI_SUCCESS;
}

/* Start (start = true) or stop one handle or, with MPI_T_PVAR_ALL_HANDLES,
 * every handle of the session that can be (§15.3.7: the continuous ones
 * are left alone). */
static int lc_mpit_startstop(MPI_T_pvar_session session, MPI_T_pvar_handle handle, bool start)
{
    int rc = lc_mpit_pvar_enter(session, handle, true);
    if (rc != MPI_SUCCESS) return rc;
    if (handle != MPI_T_PVAR_ALL_HANDLES && lc_mpit_pvar_continuous(handle->pvar))
        return lc_mpit_leave(MPI_T_ERR_PVAR_NO_STARTSTOP);
    for (struct MPIR_T_pvar_handle_s *h = session->handles; h; h = h->next) {
        if (handle != MPI_T_PVAR_ALL_HANDLES && h != handle) continue;
        if (lc_mpit_pvar_continuous(h->pvar)) continue;
        if (start)
            lc_mpit_start(h);
        else
            lc_mpit_stop(h);
    }
    return lc_mpit_leave(MPI_SUCCESS);
}

LC_API int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return lc_mpit_startstop(session, handle, true);
}
LC_MPI_ALIAS(T_pvar_start);

LC_API int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return lc_mpit_startstop(session, handle, false);
}
LC_MPI_ALIAS(T_pvar_stop);

LC_API int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    int rc = lc_mpit_pvar_enter(session, handle, false);
    if (rc != MPI_SUCCESS) return rc;
    if (!buf) return lc_mpit_leave(MPI_T_ERR_INVALID);
    *(unsigned long *)buf = lc_mpit_value(handle);
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_pvar_read);

LC_API int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    int rc = lc_mpit_pvar_enter(session, handle, false);
    if (rc != MPI_SUCCESS) return rc;
    if (lc_mpit_pvar_continuous(handle->pvar)) return lc_mpit_leave(MPI_T_ERR_PVAR_NO_WRITE);
    if (!buf) return lc_mpit_leave(MPI_T_ERR_INVALID);
    lc_mpit_set(handle, *(const unsigned long *)buf);
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_pvar_write);

LC_API int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    int rc = lc_mpit_pvar_enter(session, handle, true);
    if (rc != MPI_SUCCESS) return rc;
    if (handle != MPI_T_PVAR_ALL_HANDLES && lc_mpit_pvar_continuous(handle->pvar))
        return lc_mpit_leave(MPI_T_ERR_PVAR_NO_WRITE);
    /* With MPI_T_PVAR_ALL_HANDLES: every handle that is not read-only. */
    for (struct MPIR_T_pvar_handle_s *h = session->handles; h; h = h->next)
        if ((handle == MPI_T_PVAR_ALL_HANDLES || h == handle) && !lc_mpit_pvar_continuous(h->pvar))
            lc_mpit_set(h, lc_mpit_reset_value(h));
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_pvar_reset);

LC_API int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    int rc = lc_mpit_pvar_enter(session, handle, false);
    if (rc != MPI_SUCCESS) return rc;
    if (lc_mpit_pvar_continuous(handle->pvar)) return lc_mpit_leave(MPI_T_ERR_PVAR_NO_WRITE);
    if (!buf) return lc_mpit_leave(MPI_T_ERR_INVALID);
    *(unsigned long *)buf = lc_mpit_value(handle);
    lc_mpit_set(handle, lc_mpit_reset_value(handle));
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_pvar_readreset);
