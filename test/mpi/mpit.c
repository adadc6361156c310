/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpit.c — the MPI tool information interface (MPI 4.1 §15.3): nested
 * MPI_T_init_thread/finalize before MPI_Init and after MPI_Finalize;
 * every control variable (unique names, get_index round trip, info,
 * enumerations, a read of each); every performance variable (sessions,
 * handles, start/stop/read/reset); categories (every index they list is
 * valid and round-trips); events and sources; error classes for bad
 * indices, handles and sessions.
 *
 * On Locus also (lc_library_is_mpich() false): the variables it exposes
 * (docs/mpit.md) — LOCUS_EAGER_LIMIT reads the environment before MPI_Init
 * and the value in use after, writes are MPI_T_ERR_CVAR_SET_NEVER; the
 * rendezvous counters count exactly the rendezvous messages sent to rank
 * 0 while started (and nothing while stopped); the unexpected-queue
 * length, high-water mark and counter see three early messages; each
 * variable is in exactly one category; no events, one clock source.
 */
#include "lc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RNDV_BYTES (1 << 20) /* above every eager limit */
#define RNDV_MSGS 5
#define EARLY_MSGS 3

static int locus;

/* Failures seen while MPI is not initialized (no rank to print). */
static int early_errs;
#define EARLY_CHECK(cond, ...)                                                                                         \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            early_errs++;                                                                                              \
            fprintf(stderr, "FAIL %s:%d (MPI not initialized): ", __FILE__, __LINE__);                                 \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fprintf(stderr, "\n");                                                                                     \
        }                                                                                                              \
    } while (0)

static unsigned long expected_eager_limit(void)
{
    const char *e = getenv("LOCUS_EAGER_LIMIT"); /* the testlist sets a plain number */
    return e ? strtoul(e, NULL, 0) : 8000;
}

static unsigned long read_cvar_ulong(const char *name, int *rc_p)
{
    int idx, count;
    unsigned long v = 0;
    MPI_T_cvar_handle h;
    int rc = MPI_T_cvar_get_index(name, &idx);
    if (rc == MPI_SUCCESS) rc = MPI_T_cvar_handle_alloc(idx, NULL, &h, &count);
    if (rc == MPI_SUCCESS) {
        rc = MPI_T_cvar_read(h, &v);
        MPI_T_cvar_handle_free(&h);
    }
    *rc_p = rc;
    return v;
}

static void before_init(void)
{
    int num, provided, rc;
    EARLY_CHECK(MPI_T_cvar_get_num(&num) == MPI_T_ERR_NOT_INITIALIZED, "MPI_T_cvar_get_num before MPI_T_init");
    EARLY_CHECK(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED, "MPI_T_finalize before MPI_T_init");
    /* Nested: two inits, one finalize, still usable. */
    EARLY_CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "first MPI_T_init_thread");
    EARLY_CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS, "second MPI_T_init_thread");
    EARLY_CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided %d", provided);
    EARLY_CHECK(MPI_T_finalize() == MPI_SUCCESS, "inner MPI_T_finalize");
    EARLY_CHECK(MPI_T_cvar_get_num(&num) == MPI_SUCCESS && num >= 0, "cvar_get_num after the inner finalize");
    if (locus) {
        unsigned long v = read_cvar_ulong("LOCUS_EAGER_LIMIT", &rc);
        EARLY_CHECK(rc == MPI_SUCCESS && v == expected_eager_limit(),
                    "LOCUS_EAGER_LIMIT before MPI_Init: rc %d, %lu, expected %lu", rc, v, expected_eager_limit());
    }
}

/* The string convention: a NULL buffer gives the length needed, a short
 * one a truncated string. */
static void check_strings(int idx)
{
    int len = 0, full, rc;
    rc = MPI_T_cvar_get_info(idx, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    LC_CHECK(rc == MPI_SUCCESS && len > 1, "cvar %d: name length %d (rc %d)", idx, len, rc);
    full = len;
    char small[4];
    len = sizeof(small);
    rc = MPI_T_cvar_get_info(idx, small, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    LC_CHECK(rc == MPI_SUCCESS && len <= (int)sizeof(small) && strlen(small) == (size_t)len - 1,
             "cvar %d: name into 4 bytes: len %d (full %d)", idx, len, full);
}

static void check_enum(MPI_T_enum e, const char *var, int value)
{
    int num = -1, len = 256, found = 0;
    char name[256];
    LC_CHECK(MPI_T_enum_get_info(e, &num, name, &len) == MPI_SUCCESS && num > 0, "%s: enum_get_info", var);
    for (int i = 0; i < num; i++) {
        int v = -1;
        len = sizeof(name);
        LC_CHECK(MPI_T_enum_get_item(e, i, &v, name, &len) == MPI_SUCCESS && len > 1, "%s: item %d", var, i);
        found |= v == value;
    }
    LC_CHECK(found, "%s: value %d is none of its %d enumeration items", var, value, num);
    int v;
    len = sizeof(name);
    LC_CHECK(MPI_T_enum_get_item(e, num, &v, name, &len) == MPI_T_ERR_INVALID_INDEX, "%s: item %d past the end", var,
             num);
}

static void check_cvars(void)
{
    int num;
    LC_MPI(MPI_T_cvar_get_num(&num));
    char(*names)[256] = lc_malloc((size_t)num * sizeof(*names));
    for (int i = 0; i < num; i++) {
        int len = sizeof(names[i]), verb, bind, scope, dlen = 0, count, idx = -1, rc;
        MPI_Datatype dt;
        MPI_T_enum e;
        rc = MPI_T_cvar_get_info(i, names[i], &len, &verb, &dt, &e, NULL, &dlen, &bind, &scope);
        if (rc != MPI_SUCCESS) { /* a variable may have gone (not in Locus) */
            LC_CHECK(rc == MPI_T_ERR_INVALID_INDEX && !locus, "cvar_get_info(%d): %d", i, rc);
            names[i][0] = 0;
            continue;
        }
        check_strings(i);
        for (int j = 0; j < i; j++) LC_CHECK(strcmp(names[i], names[j]), "cvars %d and %d are both %s", j, i, names[i]);
        LC_CHECK(MPI_T_cvar_get_index(names[i], &idx) == MPI_SUCCESS && idx == i, "get_index(%s) = %d, not %d",
                 names[i], idx, i);
        if (bind != MPI_T_BIND_NO_OBJECT) continue; /* needs an object to read */
        MPI_T_cvar_handle h;
        LC_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
        int tsize;
        LC_MPI(MPI_Type_size(dt, &tsize));
        char *buf = lc_malloc((size_t)count * (size_t)tsize + 1);
        LC_CHECK(MPI_T_cvar_read(h, buf) == MPI_SUCCESS, "read %s", names[i]);
        if (dt == MPI_CHAR) LC_CHECK(memchr(buf, 0, (size_t)count) != NULL, "%s: string not terminated", names[i]);
        if (e != MPI_T_ENUM_NULL && dt == MPI_INT) check_enum(e, names[i], *(int *)buf);
        if (locus) {
            LC_CHECK(!strncmp(names[i], "LOCUS_", 6), "cvar %s", names[i]);
            LC_CHECK(scope == MPI_T_SCOPE_READONLY, "%s: scope %d", names[i], scope);
            LC_CHECK(dlen > 20, "%s: description of %d characters", names[i], dlen);
            LC_CHECK(MPI_T_cvar_write(h, buf) == MPI_T_ERR_CVAR_SET_NEVER, "%s: write", names[i]);
        }
        free(buf);
        LC_MPI(MPI_T_cvar_handle_free(&h));
        LC_CHECK(h == MPI_T_CVAR_HANDLE_NULL, "cvar_handle_free leaves the handle set");
    }
    int idx, count;
    MPI_T_cvar_handle h;
    LC_CHECK(MPI_T_cvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
             "cvar_get_info(num)");
    LC_CHECK(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
             "cvar_get_info(-1)");
    LC_CHECK(MPI_T_cvar_handle_alloc(num, NULL, &h, &count) == MPI_T_ERR_INVALID_INDEX, "cvar_handle_alloc(num)");
    LC_CHECK(MPI_T_cvar_get_index("no_such_variable_xyz", &idx) == MPI_T_ERR_INVALID_NAME, "cvar_get_index");
    if (locus) {
        int rc;
        unsigned long v = read_cvar_ulong("LOCUS_EAGER_LIMIT", &rc);
        LC_CHECK(rc == MPI_SUCCESS && v == expected_eager_limit(), "LOCUS_EAGER_LIMIT in use: %lu", v);
        h = MPI_T_CVAR_HANDLE_NULL;
        LC_CHECK(MPI_T_cvar_read(h, &v) == MPI_T_ERR_INVALID_HANDLE, "cvar_read(NULL handle)");
        LC_CHECK(MPI_T_cvar_handle_free(&h) == MPI_T_ERR_INVALID_HANDLE, "cvar_handle_free(NULL handle)");
    }
    free(names);
}

/* Index of the performance variable `name` of class `cls`, or -1. */
static int pvar(const char *name, int cls)
{
    int idx;
    return MPI_T_pvar_get_index(name, cls, &idx) == MPI_SUCCESS ? idx : -1;
}

static unsigned long pv_read(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long v = 0;
    LC_MPI(MPI_T_pvar_read(s, h, &v));
    return v;
}

static void check_pvars_generic(void)
{
    int num;
    MPI_T_pvar_session s;
    LC_MPI(MPI_T_pvar_get_num(&num));
    LC_MPI(MPI_T_pvar_session_create(&s));
    for (int i = 0; i < num; i++) {
        char name[256], desc[1024];
        int len = sizeof(name), dlen = sizeof(desc), verb, cls, bind, ro, cont, atomic, count, idx = -1;
        MPI_Datatype dt;
        MPI_T_enum e;
        int rc = MPI_T_pvar_get_info(i, name, &len, &verb, &cls, &dt, &e, desc, &dlen, &bind, &ro, &cont, &atomic);
        if (rc != MPI_SUCCESS) {
            LC_CHECK(rc == MPI_T_ERR_INVALID_INDEX && !locus, "pvar_get_info(%d): %d", i, rc);
            continue;
        }
        LC_CHECK(MPI_T_pvar_get_index(name, cls, &idx) == MPI_SUCCESS && idx == i, "pvar_get_index(%s) = %d, not %d",
                 name, idx, i);
        if (bind != MPI_T_BIND_NO_OBJECT) continue;
        MPI_T_pvar_handle h;
        LC_MPI(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count));
        int tsize;
        LC_MPI(MPI_Type_size(dt, &tsize));
        char *buf = lc_malloc((size_t)count * (size_t)tsize + 1);
        LC_CHECK(MPI_T_pvar_read(s, h, buf) == MPI_SUCCESS, "pvar_read(%s)", name);
        if (cont) LC_CHECK(MPI_T_pvar_start(s, h) == MPI_T_ERR_PVAR_NO_STARTSTOP, "%s is continuous: start", name);
        if (ro) LC_CHECK(MPI_T_pvar_write(s, h, buf) == MPI_T_ERR_PVAR_NO_WRITE, "%s is read-only: write", name);
        free(buf);
        LC_MPI(MPI_T_pvar_handle_free(s, &h));
        LC_CHECK(h == MPI_T_PVAR_HANDLE_NULL, "pvar_handle_free leaves the handle set");
    }
    MPI_T_pvar_handle h;
    int count;
    /* MPICH 4.0.2 crashes here (it indexes its table unchecked). */
    if (locus)
        LC_CHECK(MPI_T_pvar_handle_alloc(s, num, NULL, &h, &count) == MPI_T_ERR_INVALID_INDEX,
                 "pvar_handle_alloc(num)");
    if (locus)
        LC_CHECK(MPI_T_pvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
                     MPI_T_ERR_INVALID_INDEX,
                 "pvar_get_info(num)");
    LC_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    LC_MPI(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    LC_MPI(MPI_T_pvar_session_free(&s));
    LC_CHECK(s == MPI_T_PVAR_SESSION_NULL, "pvar_session_free leaves the session set");
}

/* Rank 1 sends RNDV_MSGS rendezvous messages to rank 0 while the counters
 * are started, then one more while they are stopped. */
static void check_rndv_counters(void)
{
    int rank = lc_world_rank();
    int ipull = pvar("locus_rndv_pull_msgs", MPI_T_PVAR_CLASS_COUNTER);
    int ipipe = pvar("locus_rndv_pipe_msgs", MPI_T_PVAR_CLASS_COUNTER);
    int ipullb = pvar("locus_rndv_pull_bytes", MPI_T_PVAR_CLASS_COUNTER);
    int ipipeb = pvar("locus_rndv_pipe_bytes", MPI_T_PVAR_CLASS_COUNTER);
    LC_CHECK(ipull >= 0 && ipipe >= 0 && ipullb >= 0 && ipipeb >= 0, "rendezvous counters missing");
    if (ipull < 0 || ipipe < 0 || ipullb < 0 || ipipeb < 0) return;
    MPI_T_pvar_session s;
    MPI_T_pvar_handle pull, pipe, pullb, pipeb;
    int count;
    LC_MPI(MPI_T_pvar_session_create(&s));
    LC_MPI(MPI_T_pvar_handle_alloc(s, ipull, NULL, &pull, &count));
    LC_MPI(MPI_T_pvar_handle_alloc(s, ipipe, NULL, &pipe, &count));
    LC_MPI(MPI_T_pvar_handle_alloc(s, ipullb, NULL, &pullb, &count));
    LC_MPI(MPI_T_pvar_handle_alloc(s, ipipeb, NULL, &pipeb, &count));
    LC_CHECK(pv_read(s, pull) == 0 && pv_read(s, pipe) == 0, "counters not 0 before start");
    LC_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    char *buf = lc_malloc(RNDV_BYTES);
    memset(buf, 7, RNDV_BYTES);
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i <= RNDV_MSGS; i++) {
        if (i == RNDV_MSGS) {
            LC_MPI(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
            LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
        }
        if (rank == 1) LC_MPI(MPI_Send(buf, RNDV_BYTES, MPI_CHAR, 0, i, MPI_COMM_WORLD));
        if (rank == 0) LC_MPI(MPI_Recv(buf, RNDV_BYTES, MPI_CHAR, 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    unsigned long n = pv_read(s, pull) + pv_read(s, pipe), bytes = pv_read(s, pullb) + pv_read(s, pipeb);
    unsigned long want = rank == 0 ? RNDV_MSGS : 0;
    LC_CHECK(n == want, "rank %d counted %lu rendezvous messages (pull %lu, pipeline %lu), expected %lu", rank, n,
             pv_read(s, pull), pv_read(s, pipe), want);
    LC_CHECK(bytes == want * RNDV_BYTES, "rendezvous bytes %lu, expected %lu", bytes, want * RNDV_BYTES);
    /* readreset gives the value and starts again from 0. */
    unsigned long v;
    LC_MPI(MPI_T_pvar_readreset(s, pull, &v));
    LC_CHECK(pv_read(s, pull) == 0, "after readreset: %lu", pv_read(s, pull));
    v = 42;
    LC_MPI(MPI_T_pvar_write(s, pipe, &v));
    LC_CHECK(pv_read(s, pipe) == 42, "after write 42: %lu", pv_read(s, pipe));
    LC_MPI(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));
    LC_CHECK(pv_read(s, pipe) == 0, "after reset: %lu", pv_read(s, pipe));
    LC_CHECK(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &v) == MPI_T_ERR_INVALID_HANDLE, "read(ALL_HANDLES)");
    /* A handle belongs to its session. */
    MPI_T_pvar_session s2;
    LC_MPI(MPI_T_pvar_session_create(&s2));
    LC_CHECK(MPI_T_pvar_read(s2, pull, &v) == MPI_T_ERR_INVALID_HANDLE, "read of another session's handle");
    LC_MPI(MPI_T_pvar_session_free(&s2));
    LC_CHECK(MPI_T_pvar_handle_alloc(MPI_T_PVAR_SESSION_NULL, ipull, NULL, &pull, &count) == MPI_T_ERR_INVALID_SESSION,
             "handle_alloc in no session");
    free(buf);
    LC_MPI(MPI_T_pvar_session_free(&s)); /* frees its handles */
}

/* Rank 1 sends EARLY_MSGS small messages that rank 0 receives only after
 * a barrier: they wait in its unexpected queue. */
static void check_unexpected(void)
{
    int rank = lc_world_rank();
    int ilen = pvar("locus_unexpected_queue_len", MPI_T_PVAR_CLASS_LEVEL);
    int imax = pvar("locus_unexpected_queue_max", MPI_T_PVAR_CLASS_HIGHWATERMARK);
    int imsgs = pvar("locus_unexpected_msgs", MPI_T_PVAR_CLASS_COUNTER);
    LC_CHECK(ilen >= 0 && imax >= 0 && imsgs >= 0, "unexpected-queue variables missing");
    if (ilen < 0 || imax < 0 || imsgs < 0) return;
    MPI_T_pvar_session s;
    MPI_T_pvar_handle len, max, msgs;
    int count;
    unsigned long v = 0;
    LC_MPI(MPI_T_pvar_session_create(&s));
    LC_MPI(MPI_T_pvar_handle_alloc(s, ilen, NULL, &len, &count));
    LC_MPI(MPI_T_pvar_handle_alloc(s, imax, NULL, &max, &count));
    LC_MPI(MPI_T_pvar_handle_alloc(s, imsgs, NULL, &msgs, &count));
    LC_CHECK(MPI_T_pvar_start(s, len) == MPI_T_ERR_PVAR_NO_STARTSTOP, "start of a continuous variable");
    LC_CHECK(MPI_T_pvar_write(s, len, &v) == MPI_T_ERR_PVAR_NO_WRITE, "write of a read-only variable");
    LC_CHECK(MPI_T_pvar_reset(s, len) == MPI_T_ERR_PVAR_NO_WRITE, "reset of a read-only variable");
    LC_CHECK(MPI_T_pvar_readreset(s, len, &v) == MPI_T_ERR_PVAR_NO_WRITE, "readreset of a read-only variable");
    LC_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    /* Rank 0's counter runs before rank 1 sends: else rank 0, preempted
     * in the pass that ended the last check's receive, could take the
     * early messages in that pass, before its start (CI, session 16, at
     * load ~25: queue length 5, messages counted 0). */
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int x[EARLY_MSGS] = { 0 };
    if (rank == 1)
        for (int i = 0; i < EARLY_MSGS; i++) LC_MPI(MPI_Send(&x[i], 1, MPI_INT, 0, 100 + i, MPI_COMM_WORLD));
    /* Rank 1's messages precede its barrier message on the channel. */
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        LC_CHECK(pv_read(s, len) == EARLY_MSGS, "unexpected queue holds %lu, expected %d", pv_read(s, len), EARLY_MSGS);
        LC_CHECK(pv_read(s, max) >= EARLY_MSGS, "high-water mark %lu", pv_read(s, max));
        LC_CHECK(pv_read(s, msgs) >= EARLY_MSGS, "unexpected messages %lu", pv_read(s, msgs));
        for (int i = EARLY_MSGS - 1; i >= 0; i--)
            LC_MPI(MPI_Recv(&x[i], 1, MPI_INT, 1, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        LC_CHECK(pv_read(s, len) == 0, "unexpected queue holds %lu after the receives", pv_read(s, len));
        LC_CHECK(pv_read(s, max) >= EARLY_MSGS, "high-water mark %lu after the receives", pv_read(s, max));
        /* A reset high-water mark starts from the present length. */
        LC_MPI(MPI_T_pvar_reset(s, max));
        LC_CHECK(pv_read(s, max) == 0, "high-water mark %lu after reset", pv_read(s, max));
    }
    LC_MPI(MPI_T_pvar_handle_free(s, &max));
    LC_CHECK(MPI_T_pvar_handle_free(s, &max) == MPI_T_ERR_INVALID_HANDLE, "second handle_free");
    LC_MPI(MPI_T_pvar_session_free(&s));
}

static void check_categories(void)
{
    int ncat, ncvar, npvar;
    LC_MPI(MPI_T_category_get_num(&ncat));
    LC_MPI(MPI_T_cvar_get_num(&ncvar));
    LC_MPI(MPI_T_pvar_get_num(&npvar));
    int *cv_seen = calloc((size_t)ncvar + 1, sizeof(int)), *pv_seen = calloc((size_t)npvar + 1, sizeof(int));
    for (int c = 0; c < ncat; c++) {
        char name[256];
        int len = sizeof(name), nc, np, nk, idx = -1, ne;
        int rc = MPI_T_category_get_info(c, name, &len, NULL, NULL, &nc, &np, &nk);
        if (rc != MPI_SUCCESS) {
            LC_CHECK(rc == MPI_T_ERR_INVALID_INDEX && !locus, "category_get_info(%d): %d", c, rc);
            continue;
        }
        LC_CHECK(MPI_T_category_get_index(name, &idx) == MPI_SUCCESS && idx == c, "category %s: index %d, not %d", name,
                 idx, c);
        int *ix = lc_malloc(sizeof(int) * (size_t)(nc + np + nk + 1));
        LC_MPI(MPI_T_category_get_cvars(c, nc, ix));
        for (int i = 0; i < nc; i++) {
            LC_CHECK(ix[i] >= 0 && ix[i] < ncvar, "category %s lists cvar %d of %d", name, ix[i], ncvar);
            if (ix[i] >= 0 && ix[i] < ncvar) cv_seen[ix[i]]++;
        }
        LC_MPI(MPI_T_category_get_pvars(c, np, ix));
        for (int i = 0; i < np; i++) {
            LC_CHECK(ix[i] >= 0 && ix[i] < npvar, "category %s lists pvar %d of %d", name, ix[i], npvar);
            if (ix[i] >= 0 && ix[i] < npvar) pv_seen[ix[i]]++;
        }
        LC_MPI(MPI_T_category_get_categories(c, nk, ix));
        for (int i = 0; i < nk; i++)
            LC_CHECK(ix[i] >= 0 && ix[i] < ncat && ix[i] != c, "category %s lists category %d", name, ix[i]);
        LC_MPI(MPI_T_category_get_num_events(c, &ne));
        free(ix);
    }
    if (locus) {
        for (int i = 0; i < ncvar; i++) LC_CHECK(cv_seen[i] == 1, "cvar %d is in %d categories", i, cv_seen[i]);
        for (int i = 0; i < npvar; i++) LC_CHECK(pv_seen[i] == 1, "pvar %d is in %d categories", i, pv_seen[i]);
    }
    int idx, upd = -1;
    LC_CHECK(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
             "category_get_info(ncat)");
    LC_CHECK(MPI_T_category_get_cvars(-1, 0, NULL) == MPI_T_ERR_INVALID_INDEX, "category_get_cvars(-1)");
    LC_CHECK(MPI_T_category_get_index("no_such_category_xyz", &idx) == MPI_T_ERR_INVALID_NAME, "category_get_index");
    LC_MPI(MPI_T_category_changed(&upd));
    free(cv_seen);
    free(pv_seen);
}

static void check_events(void)
{
    int n = -1, ns = -1;
    LC_MPI(MPI_T_event_get_num(&n));
    LC_MPI(MPI_T_source_get_num(&ns));
    /* MPICH 4.0.2 (no sources) does not answer MPI_T_ERR_INVALID_INDEX. */
    if (locus)
        LC_CHECK(MPI_T_source_get_info(ns, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
                 "source_get_info(%d)", ns);
    if (ns > 0) {
        MPI_Count t0 = 0, t1 = 0, tps = 0;
        MPI_T_source_order order;
        char name[256];
        int len = sizeof(name);
        MPI_Info info = MPI_INFO_NULL;
        LC_MPI(MPI_T_source_get_info(0, name, &len, NULL, NULL, &order, &tps, NULL, &info));
        if (info != MPI_INFO_NULL) MPI_Info_free(&info);
        LC_MPI(MPI_T_source_get_timestamp(0, &t0));
        LC_MPI(MPI_T_source_get_timestamp(0, &t1));
        LC_CHECK(tps > 0 && (order != MPI_T_SOURCE_ORDERED || t1 >= t0), "source 0: %lld ticks/s, %lld then %lld",
                 (long long)tps, (long long)t0, (long long)t1);
    }
    if (!locus) return;
    MPI_T_event_registration reg;
    int idx;
    LC_CHECK(n == 0 && ns == 1, "%d events, %d sources", n, ns);
    LC_CHECK(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
                 MPI_T_ERR_INVALID_INDEX,
             "event_get_info(0)");
    LC_CHECK(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg) == MPI_T_ERR_INVALID_INDEX, "event_handle_alloc");
    LC_CHECK(MPI_T_event_get_index("anything", &idx) == MPI_T_ERR_INVALID_NAME, "event_get_index");
    char text[MPI_MAX_ERROR_STRING];
    int len;
    LC_MPI(MPI_Error_string(MPI_T_ERR_INVALID_INDEX, text, &len));
    LC_CHECK(strstr(text, "MPI_T_ERR_INVALID_INDEX") != NULL, "MPI_Error_string(MPI_T_ERR_INVALID_INDEX): %s", text);
}

/* MPI 4.1 Table 15.4's binding kinds: all twelve defined and distinct
 * (MPI_T_BIND_MPI_SESSION, new in 4.0, was missing: MPICH's
 * threads/mpi_t/mpit_threading did not compile).  Locus's mpi.h only:
 * MPICH 4.0.2's lacks MPI_T_BIND_MPI_SESSION. */
static void check_bind_constants(void)
{
#ifdef LOCUS_MPI
    const int kinds[] = {MPI_T_BIND_NO_OBJECT, MPI_T_BIND_MPI_COMM, MPI_T_BIND_MPI_DATATYPE, MPI_T_BIND_MPI_ERRHANDLER,
                         MPI_T_BIND_MPI_FILE, MPI_T_BIND_MPI_GROUP, MPI_T_BIND_MPI_OP, MPI_T_BIND_MPI_REQUEST,
                         MPI_T_BIND_MPI_WIN, MPI_T_BIND_MPI_MESSAGE, MPI_T_BIND_MPI_INFO, MPI_T_BIND_MPI_SESSION};
    const int n = (int)(sizeof(kinds) / sizeof(kinds[0]));
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) LC_CHECK(kinds[i] != kinds[j], "binding kinds %d and %d are equal", i, j);
    /* MPICH's ABI (>= 4.1): the value after MPI_T_BIND_MPI_INFO */
    LC_CHECK(MPI_T_BIND_MPI_SESSION == 9711, "MPI_T_BIND_MPI_SESSION %d", (int)MPI_T_BIND_MPI_SESSION);
#endif
}

int main(int argc, char **argv)
{
    int provided;
    /* MPI_Get_library_version may be called before MPI_Init. */
    locus = !lc_library_is_mpich();
    before_init();
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    LC_CHECK(early_errs == 0, "%d failures before MPI_Init (above)", early_errs);
    early_errs = 0;
    check_bind_constants();
    check_cvars();
    check_pvars_generic();
    if (lc_world_size() >= 2) {
        if (locus) check_rndv_counters();
        if (locus) check_unexpected();
    }
    check_categories();
    check_events();
    LC_MPI(MPI_T_finalize());
    int num;
    /* MPICH 4.0.2 aborts here (its MPI_T lock is gone). */
    if (locus)
        LC_CHECK(MPI_T_cvar_get_num(&num) == MPI_T_ERR_NOT_INITIALIZED, "cvar_get_num after the last MPI_T_finalize");
    int rc = lc_finish();
    /* After MPI_Finalize: MPI_T again; the value in use is still read. */
    EARLY_CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread after MPI_Finalize");
    if (locus) {
        int rc2;
        unsigned long v = read_cvar_ulong("LOCUS_EAGER_LIMIT", &rc2);
        EARLY_CHECK(rc2 == MPI_SUCCESS && v == expected_eager_limit(), "LOCUS_EAGER_LIMIT after MPI_Finalize: %lu", v);
    }
    EARLY_CHECK(MPI_T_finalize() == MPI_SUCCESS, "MPI_T_finalize after MPI_Finalize");
    return rc || early_errs ? 1 : 0;
}
