/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_session.c — the MPI 4 Sessions Model (MPI 4.1 §11.3):
 * MPI_Session_init / _finalize, the process sets (psets), their info,
 * MPI_Group_from_session_pset, MPI_Comm_create_from_group and the session
 * error handlers.
 *
 * A session is a handle on the runtime: the first session (or MPI_Init)
 * starts it, the last one to leave shuts it down (lc_mpi_runtime_start /
 * _release, lc_mpi_init.c).  Locus has two process sets, "mpi://WORLD"
 * and "mpi://SELF" (names compared without case).  Communicators made
 * from a session's groups agree on their context id among the group's
 * members, over the world communicator the runtime always has, the way
 * MPI_Comm_create_group does; the string tag becomes that call's tag (a
 * hash: two concurrent creations over overlapping groups with different
 * tags that hash alike would be mixed up, which 30 bits make unlikely).
 *
 * Handles: 0xb8000000 | index (MPICH's direct session handles; its
 * MPI_SESSION_NULL is 0x38000000).  A session error handler is made by
 * the communicator handlers' machinery (same calling convention, an int
 * handle first); errors of a session call go to the session's handler.
 *
 * Each session has an id that is never reused (slots are); its groups
 * and the communicators made from them carry it (lc_group_t.session,
 * lc_comm_t.session) so that a buffered send finds the session's buffer
 * (MPI_Session_attach_buffer, lc_mpi_session_buffer.c).  MPI_Session_finalize
 * flushes and detaches that buffer.
 */
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_bsend.h"
#include "mpi/lc_mpi_errhandler.h"
#include "mpi/lc_mpi_group.h"
#include "mpi/lc_mpi_info.h"
#include "pmi/lc_pmi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define LC_SESSION_KIND 0xb8000000u
#define LC_SESSION_MAX 64

typedef struct lc_session {
    bool in_use;
    MPI_Errhandler errhandler;
    int thread_level;
    lc_info_t *info; /* the hints given at MPI_Session_init (NULL: none) */
    uint32_t id;     /* never 0, never reused */
    lc_bsend_pool_t pool; /* MPI_Session_attach_buffer's */
} lc_session_t;

static lc_session_t lc_sessions[LC_SESSION_MAX];
static uint32_t lc_session_last_id;

static const char *const lc_pset_names[] = { "mpi://WORLD", "mpi://SELF" };
#define LC_NPSETS 2

/* ---- errors --------------------------------------------------------------- */

/* Run the error handler `eh` for `code` raised in `func` on `session`. */
static int lc_session_raise(MPI_Session session, MPI_Errhandler eh, const char *func, int code)
{
    if (eh == MPI_ERRORS_RETURN) return code;
    MPI_Comm_errhandler_function *fn = lc_errhandler_fn(eh);
    if (fn) {
        /* Made by MPI_Session_create_errhandler: its type differs from the
         * communicator handlers' only in the handle it points to. */
        MPI_Session_errhandler_function *sfn = (MPI_Session_errhandler_function *)(void (*)(void))fn;
        MPI_Session handle = session;
        int arg = code;
        sfn(&handle, &arg, func);
        return code;
    }
    char text[MPI_MAX_ERROR_STRING], msg[MPI_MAX_ERROR_STRING + 64];
    lc_mpi_error_text(code, text, sizeof(text));
    snprintf(msg, sizeof(msg), "%s: %s", func, text);
    lc_log_error("%s", msg);
    int exit_code = lc_error_class_of(code) & 0xff;
    if (lc_mpi_state == LC_MPI_STATE_INIT) lc_pmi_abort(exit_code, msg);
    _exit(exit_code ? exit_code : 1);
}

/* An error on no session (MPI_SESSION_NULL, a stale handle) has no
 * session handler to run: it goes where errors tied to no object go, as
 * in the rest of the MPI layer (lc_mpi_error). */
static int lc_session_error(MPI_Session session, const lc_session_t *s, const char *func, int code)
{
    if (!s) return lc_mpi_error(NULL, func, code);
    return lc_session_raise(session, s->errhandler, func, code);
}

static int lc_check_session(MPI_Session handle, lc_session_t **s_p)
{
    unsigned h = (unsigned)handle, i = h & ~LC_SESSION_KIND;
    if ((h & LC_SESSION_KIND) != LC_SESSION_KIND || i >= LC_SESSION_MAX || !lc_sessions[i].in_use)
        return lc_error(MPI_ERR_SESSION, "%#x is not a session (from MPI_Session_init)", h);
    *s_p = &lc_sessions[i];
    return MPI_SUCCESS;
}

/* ---- what the session's buffer needs (lc_mpi_bsend.h) ---------------------- */

lc_bsend_pool_t *lc_session_pool(uint32_t session)
{
    /* Outside the section at MULTIPLE (a Bsend on the session's
     * communicator): `in_use` with acquire, stored with release after the
     * record is filled (Session_init); a slot being finalized meanwhile is
     * an erroneous program's (its communicators must not be used then). */
    for (int i = 0; i < LC_SESSION_MAX; i++)
        if (__atomic_load_n(&lc_sessions[i].in_use, __ATOMIC_ACQUIRE) &&
            __atomic_load_n(&lc_sessions[i].id, __ATOMIC_RELAXED) == session)
            return lc_bsend_pool_live(&lc_sessions[i].pool) ? &lc_sessions[i].pool : NULL;
    return NULL; /* finalized: its communicators fall back to the process's buffer */
}

int lc_session_buffer(MPI_Session session, lc_bsend_pool_t **pool_p)
{
    lc_session_t *s = NULL;
    int rc = lc_check_session(session, &s);
    if (rc == MPI_SUCCESS) *pool_p = &s->pool;
    return rc;
}

int lc_session_fail(MPI_Session session, const char *func, int code)
{
    lc_session_t *s = NULL;
    if (lc_check_session(session, &s) != MPI_SUCCESS) s = NULL;
    return lc_session_error(session, s, func, code);
}

/* MPI_ERRORS_ARE_FATAL, _RETURN, _ABORT or one of MPI_Session_create_errhandler. */
static int lc_check_session_errhandler(MPI_Errhandler eh)
{
    return lc_check_comm_errhandler(eh);
}

/* ---- init and finalize ---------------------------------------------------- */

/* The thread level asked for in the hints ("thread_level"); without the
 * hint (or with a value that names no level), MPI_THREAD_MULTIPLE: MPI
 * 4.1 §11.3.1 leaves the default to the implementation but discourages
 * MPI_THREAD_SINGLE (a library making its own session cannot know what
 * the rest of the process does; MPICH defaults to MULTIPLE too).  It
 * switches the whole process to MULTIPLE's locked paths for good
 * (docs/architecture.md "Threads"). */
static int lc_session_thread_request(const lc_info_t *info)
{
    static const char *const names[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                         "MPI_THREAD_MULTIPLE" };
    static const int levels[] = { MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE };
    const char *v = info ? lc_info_get(info, "thread_level") : NULL;
    for (int i = 0; v && i < 4; i++)
        if (strcasecmp(v, names[i]) == 0) return levels[i];
    return MPI_THREAD_MULTIPLE;
}

LC_API int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    lc_info_t *hints = NULL, *copy = NULL;
    int rc, slot = -1;
    /* No runtime yet: argument errors go to the handler given. */
    if (!session) LC_TRY(lc_error(MPI_ERR_ARG, "session is NULL"));
    for (int i = 0; i < LC_SESSION_MAX && slot < 0; i++)
        if (!lc_sessions[i].in_use) slot = i;
    if (slot < 0) LC_TRY(lc_error(MPI_ERR_SESSION, "more than %d sessions at once", LC_SESSION_MAX));
    LC_TRY(lc_mpi_runtime_start());
    if ((rc = lc_check_info_or_null(info, &hints)) == MPI_SUCCESS &&
        (rc = lc_check_session_errhandler(errhandler)) == MPI_SUCCESS && hints)
        rc = lc_info_dup(hints, &copy);
    if (rc != MPI_SUCCESS) {
        lc_mpi_runtime_release();
        goto err;
    }
    lc_errhandler_retain(errhandler);
    /* `in_use` and `id` are read outside the section (lc_session_pool):
     * the rest first, then them, `in_use` last with release.  The pool is
     * all zero (static, or reset by Session_finalize). */
    lc_session_t *s = &lc_sessions[slot];
    s->errhandler = errhandler;
    s->info = copy;
    s->thread_level = lc_mpi_thread_grant(lc_session_thread_request(copy));
    __atomic_store_n(&s->id, ++lc_session_last_id, __ATOMIC_RELAXED);
    __atomic_store_n(&s->in_use, true, __ATOMIC_RELEASE);
    *session = (MPI_Session)(LC_SESSION_KIND | (unsigned)slot);
    return MPI_SUCCESS;
err:
    /* The handler given, if it can be used; else the default. */
    if (errhandler == MPI_ERRORS_RETURN) return rc;
    return lc_session_raise(MPI_SESSION_NULL, MPI_ERRORS_ARE_FATAL, "MPI_Session_init", rc);
}
LC_MPI_ALIAS(Session_init);

LC_API int PMPI_Session_finalize(MPI_Session *session)
{
    lc_session_t *s = NULL;
    MPI_Session h = session ? *session : MPI_SESSION_NULL;
    int rc;
    if (!session) LC_TRY(lc_error(MPI_ERR_ARG, "session is NULL"));
    LC_TRY(lc_check_session(h, &s));
    /* MPI 4.1 §3.6.1: finalizing a session detaches its buffer (after its
     * messages have left it); the user keeps the memory. */
    void *buffer;
    MPI_Count size;
    lc_bsend_pool_detach(&s->pool, &buffer, &size);
    lc_errhandler_release(s->errhandler);
    lc_info_free(s->info);
    /* `in_use` and `id` first, atomically (lc_session_pool reads them
     * from any thread), then the rest. */
    __atomic_store_n(&s->in_use, false, __ATOMIC_RELAXED);
    __atomic_store_n(&s->id, 0, __ATOMIC_RELAXED);
    s->errhandler = (MPI_Errhandler)0;
    s->info = NULL;
    s->thread_level = 0;
    s->pool = (lc_bsend_pool_t){ 0 };
    s = NULL;
    *session = MPI_SESSION_NULL;
    LC_TRY(lc_mpi_runtime_release());
    return MPI_SUCCESS;
err:
    return lc_session_error(h, s, "MPI_Session_finalize", rc);
}
LC_MPI_ALIAS(Session_finalize);

/* ---- process sets --------------------------------------------------------- */

/* The index of a pset name, or MPI_ERR_ARG. */
static int lc_pset_find(const char *name, int *index_p)
{
    if (!name) return lc_error(MPI_ERR_ARG, "pset_name is NULL");
    for (int i = 0; i < LC_NPSETS; i++)
        if (strcasecmp(name, lc_pset_names[i]) == 0) {
            *index_p = i;
            return MPI_SUCCESS;
        }
    return lc_error(MPI_ERR_ARG, "no process set is called \"%s\" (Locus has mpi://WORLD and mpi://SELF)", name);
}

LC_API int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    lc_session_t *s = NULL;
    lc_info_t *hints;
    int rc;
    LC_TRY(lc_check_session(session, &s));
    LC_TRY(lc_check_info_or_null(info, &hints));
    LC_TRY(lc_check_ptr(npset_names, "npset_names"));
    *npset_names = LC_NPSETS;
    return MPI_SUCCESS;
err:
    return lc_session_error(session, s, "MPI_Session_get_num_psets", rc);
}
LC_MPI_ALIAS(Session_get_num_psets);

LC_API int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name)
{
    lc_session_t *s = NULL;
    lc_info_t *hints;
    int rc;
    LC_TRY(lc_check_session(session, &s));
    LC_TRY(lc_check_info_or_null(info, &hints));
    LC_TRY(lc_check_ptr(pset_len, "pset_len"));
    if (n < 0 || n >= LC_NPSETS) LC_TRY(lc_error(MPI_ERR_ARG, "n %d is outside 0..%d", n, LC_NPSETS - 1));
    const char *name = lc_pset_names[n];
    int len = (int)strlen(name) + 1;
    /* pset_len 0 asks for the length (with the terminating null);
     * otherwise at most pset_len characters are written, null included. */
    if (*pset_len > 0) {
        LC_TRY(lc_check_ptr(pset_name, "pset_name"));
        int k = *pset_len < len ? *pset_len - 1 : len - 1;
        memcpy(pset_name, name, (size_t)k);
        pset_name[k] = '\0';
    }
    *pset_len = len;
    return MPI_SUCCESS;
err:
    return lc_session_error(session, s, "MPI_Session_get_nth_pset", rc);
}
LC_MPI_ALIAS(Session_get_nth_pset);

/* A new info with one key (MPI error code; *out_p on success). */
static int lc_info_with(const char *key, const char *value, MPI_Info *out_p)
{
    lc_info_t *info;
    int rc = lc_info_new(&info);
    if (rc != MPI_SUCCESS) return rc;
    if ((rc = lc_info_set(info, key, value)) != MPI_SUCCESS) {
        lc_info_free(info);
        return rc;
    }
    return lc_info_publish(info, out_p);
}

LC_API int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    lc_session_t *s = NULL;
    int rc, k;
    char size[16];
    LC_TRY(lc_check_session(session, &s));
    LC_TRY(lc_check_ptr(info, "info"));
    LC_TRY(lc_pset_find(pset_name, &k));
    snprintf(size, sizeof(size), "%d", k == 0 ? lc_world.size : 1);
    LC_TRY(lc_info_with("mpi_size", size, info));
    return MPI_SUCCESS;
err:
    return lc_session_error(session, s, "MPI_Session_get_pset_info", rc);
}
LC_MPI_ALIAS(Session_get_pset_info);

LC_API int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    static const char *const names[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                         "MPI_THREAD_MULTIPLE" };
    lc_session_t *s = NULL;
    lc_info_t *info = NULL;
    int rc;
    LC_TRY(lc_check_session(session, &s));
    LC_TRY(lc_check_ptr(info_used, "info_used"));
    /* The hints as given, with the thread level this session got. */
    LC_TRY(lc_info_dup(s->info, &info));
    rc = lc_info_set(info, "thread_level", names[s->thread_level - MPI_THREAD_SINGLE]);
    if (rc != MPI_SUCCESS) {
        lc_info_free(info);
        goto err;
    }
    LC_TRY(lc_info_publish(info, info_used));
    return MPI_SUCCESS;
err:
    return lc_session_error(session, s, "MPI_Session_get_info", rc);
}
LC_MPI_ALIAS(Session_get_info);

LC_API int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    lc_session_t *s = NULL;
    lc_group_t *g = NULL;
    int rc, k;
    LC_TRY(lc_check_session(session, &s));
    LC_TRY(lc_check_ptr(newgroup, "newgroup"));
    LC_TRY(lc_pset_find(pset_name, &k));
    if (k == 0) {
        int *world = malloc(sizeof(int) * (size_t)lc_world.size);
        if (!world) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory for a group of %d", lc_world.size));
        for (int i = 0; i < lc_world.size; i++) world[i] = i;
        rc = lc_group_new(lc_world.size, world, &g);
        free(world);
        LC_TRY(rc);
    } else {
        LC_TRY(lc_group_new(1, &lc_world.rank, &g));
    }
    g->session = s->id;
    LC_TRY(lc_group_publish(g, newgroup));
    return MPI_SUCCESS;
err:
    return lc_session_error(session, s, "MPI_Group_from_session_pset", rc);
}
LC_MPI_ALIAS(Group_from_session_pset);

/* ---- communicators from groups -------------------------------------------- */

/* FNV-1a of the tag, folded into the tags MPI_Comm_create_group takes. */
static int lc_stringtag_hash(const char *tag)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)tag; *p; p++) h = (h ^ *p) * 16777619u;
    return (int)(h & 0x3fffffff);
}

LC_API int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler,
                                       MPI_Comm *newcomm)
{
    lc_group_t *g;
    lc_info_t *hints;
    MPI_Comm out = MPI_COMM_NULL;
    int rc;
    LC_TRY(lc_check_group(group, &g));
    LC_TRY(lc_check_ptr(stringtag, "stringtag"));
    if (strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN)
        LC_TRY(lc_error(MPI_ERR_ARG, "stringtag is longer than MPI_MAX_STRINGTAG_LEN - 1 (%d)",
                        MPI_MAX_STRINGTAG_LEN - 1));
    LC_TRY(lc_check_info_or_null(info, &hints));
    LC_TRY(lc_check_comm_errhandler(errhandler));
    LC_TRY(lc_check_ptr(newcomm, "newcomm"));
    /* The group names world ranks, so the world communicator (which the
     * runtime has whichever model started it) is the parent. */
    rc = PMPI_Comm_create_group(MPI_COMM_WORLD, group, lc_stringtag_hash(stringtag), &out);
    if (rc != MPI_SUCCESS) return rc; /* reported by MPI_Comm_create_group */
    if (out != MPI_COMM_NULL && info != MPI_INFO_NULL && (rc = PMPI_Comm_set_info(out, info)) != MPI_SUCCESS) return rc;
    if (out != MPI_COMM_NULL && (rc = PMPI_Comm_set_errhandler(out, errhandler)) != MPI_SUCCESS) return rc;
    if (out != MPI_COMM_NULL) lc_comm_lookup(out)->session = g->session; /* MPI 4.1 §3.6.1: its buffer */
    *newcomm = out;
    return MPI_SUCCESS;
err:
    return lc_session_raise(MPI_SESSION_NULL, errhandler == MPI_ERRORS_RETURN ? errhandler : MPI_ERRORS_ARE_FATAL,
                            "MPI_Comm_create_from_group", rc);
}
LC_MPI_ALIAS(Comm_create_from_group);

/* ---- session error handlers ----------------------------------------------- */

LC_API int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                          MPI_Errhandler *errhandler)
{
    /* The communicator handlers' object serves (see the head comment);
     * unlike theirs, this call is allowed before MPI is initialized. */
    int rc;
    LC_TRY(lc_errhandler_new((MPI_Comm_errhandler_function *)(void (*)(void))session_errhandler_fn, errhandler));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Session_create_errhandler", rc);
}
LC_MPI_ALIAS(Session_create_errhandler);

LC_API int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    lc_session_t *s = NULL;
    int rc;
    LC_TRY(lc_check_session(session, &s));
    LC_TRY(lc_check_session_errhandler(errhandler));
    lc_errhandler_retain(errhandler);
    lc_errhandler_release(s->errhandler);
    s->errhandler = errhandler;
    return MPI_SUCCESS;
err:
    return lc_session_error(session, s, "MPI_Session_set_errhandler", rc);
}
LC_MPI_ALIAS(Session_set_errhandler);

LC_API int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    lc_session_t *s = NULL;
    int rc;
    LC_TRY(lc_check_session(session, &s));
    LC_TRY(lc_check_ptr(errhandler, "errhandler"));
    lc_errhandler_retain(s->errhandler); /* the handle returned is the user's to free */
    *errhandler = s->errhandler;
    return MPI_SUCCESS;
err:
    return lc_session_error(session, s, "MPI_Session_get_errhandler", rc);
}
LC_MPI_ALIAS(Session_get_errhandler);

LC_API int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    lc_session_t *s = NULL;
    int rc;
    LC_TRY(lc_check_session(session, &s));
    lc_session_error(session, s, "MPI_Session_call_errhandler", errorcode);
    return MPI_SUCCESS; /* the handler ran; the call itself succeeded */
err:
    return lc_session_error(session, s, "MPI_Session_call_errhandler", rc);
}
LC_MPI_ALIAS(Session_call_errhandler);
