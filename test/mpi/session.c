/* SPDX-License-Identifier: BSD-3-Clause */
/* session: the MPI 4 Sessions Model, alone (no MPI_Init: MPI_Initialized
 * stays false) or with arg "world" beside the World Model ("world_early":
 * MPI_Finalize while a session lives on, which must still work).  Two sessions
 * at once; the process sets (mpi://WORLD and mpi://SELF must be there),
 * their info (mpi_size), the nth-pset length protocol; groups from psets
 * and communicators from groups (collectives on them, two string tags);
 * MPI_Session_get_info's thread_level; session error handlers (errors
 * returned with MPI_ERRORS_RETURN, a user handler called by
 * MPI_Session_call_errhandler and by a failing call, a handler made
 * before MPI is initialized).  Results are
 * summed over the session's world communicator. */
#include "lc_test.h"

#include <stdlib.h>

static int handler_calls, handler_code;

static void on_error(MPI_Session *s, int *code, ...)
{
    (void)s;
    handler_calls++;
    handler_code = *code;
}

/* s2's first handler, made before MPI is initialized. */
static int first_calls;
static void on_first_error(MPI_Session *s, int *code, ...)
{
    (void)s;
    (void)code;
    first_calls++;
}

static int find_pset(MPI_Session s, const char *want)
{
    int n = 0, found = 0;
    LC_MPI(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    LC_CHECK(n >= 2, "only %d process sets", n);
    for (int i = 0; i < n; i++) {
        int len = 0;
        LC_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        LC_CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "pset %d: length %d", i, len);
        char *name = lc_malloc((size_t)len);
        LC_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        LC_CHECK((int)strlen(name) == len - 1, "pset %d: name \"%s\" does not have length %d - 1", i, name, len);
        if (strcmp(name, want) == 0) found = 1;
        free(name);
    }
    return found;
}

static MPI_Comm comm_from(MPI_Session s, const char *pset, const char *tag)
{
    MPI_Group g;
    MPI_Comm c;
    LC_MPI(MPI_Group_from_session_pset(s, pset, &g));
    LC_MPI(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    LC_MPI(MPI_Group_free(&g));
    return c;
}

int main(int argc, char **argv)
{
    /* "world": MPI_Init first, MPI_Finalize last; "world_early": MPI_Finalize
     * before the last session ends (the runtime must stay up for it) */
    int early = argc > 1 && strcmp(argv[1], "world_early") == 0;
    int world = early || (argc > 1 && strcmp(argv[1], "world") == 0);
    if (world) LC_MPI(MPI_Init(&argc, &argv));

    /* MPI_Session_create_errhandler and MPI_Errhandler_free work before
     * MPI is initialized (MPI 4.1 §11.4.1): s2 starts with such a handler,
     * freed while s2 still uses it.  (MPICH 4.0.2 refuses it before
     * MPI_Init: there s2 gets MPI_ERRORS_RETURN.) */
    int mpich = lc_library_is_mpich();
    MPI_Errhandler first_eh = MPI_ERRORS_RETURN;
    if (!mpich || world) LC_MPI(MPI_Session_create_errhandler(on_first_error, &first_eh));

    MPI_Info hints;
    MPI_Session s1, s2;
    LC_MPI(MPI_Info_create(&hints));
    LC_MPI(MPI_Info_set(hints, "thread_level", "MPI_THREAD_FUNNELED"));
    LC_MPI(MPI_Session_init(hints, MPI_ERRORS_RETURN, &s1));
    LC_MPI(MPI_Info_free(&hints));
    LC_MPI(MPI_Session_init(MPI_INFO_NULL, first_eh, &s2));
    LC_MPI(MPI_Errhandler_free(&first_eh));
    int init = -1;
    LC_MPI(MPI_Initialized(&init));
    LC_CHECK(init == world, "MPI_Initialized = %d with%s MPI_Init", init, world ? "" : "out");

    /* A call on no session runs the handler of errors tied to no object
     * (MPI_COMM_WORLD's, here MPI_ERRORS_RETURN), not an abort.  (MPICH
     * 4.0.2 aborts: Locus only.) */
    if (world && !lc_library_is_mpich()) {
        MPI_Group g;
        LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int rc = MPI_Group_from_session_pset(MPI_SESSION_NULL, "mpi://WORLD", &g);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_SESSION, "MPI_SESSION_NULL: class %s", lc_class_name(lc_class_of(rc)));
    }

    LC_CHECK(find_pset(s1, "mpi://WORLD"), "no mpi://WORLD");
    LC_CHECK(find_pset(s1, "mpi://SELF"), "no mpi://SELF");

    MPI_Comm c = comm_from(s1, "mpi://WORLD", "org.locus.test.a");
    MPI_Comm c2 = comm_from(s2, "mpi://WORLD", "org.locus.test.b");
    MPI_Comm self = comm_from(s2, "mpi://SELF", "org.locus.test.self");
    int rank, size, r2, s2size, ssize;
    LC_MPI(MPI_Comm_rank(c, &rank));
    LC_MPI(MPI_Comm_size(c, &size));
    LC_MPI(MPI_Comm_rank(c2, &r2));
    LC_MPI(MPI_Comm_size(c2, &s2size));
    LC_MPI(MPI_Comm_size(self, &ssize));
    LC_CHECK(r2 == rank && s2size == size && ssize == 1, "ranks/sizes %d/%d, %d/%d, self %d", rank, size, r2, s2size,
             ssize);
    if (world) {
        int wr, ws;
        MPI_Comm_rank(MPI_COMM_WORLD, &wr);
        MPI_Comm_size(MPI_COMM_WORLD, &ws);
        LC_CHECK(wr == rank && ws == size, "session world %d/%d, MPI_COMM_WORLD %d/%d", rank, size, wr, ws);
    }

    /* pset info */
    MPI_Info pinfo;
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    LC_MPI(MPI_Session_get_pset_info(s1, "mpi://WORLD", &pinfo));
    LC_MPI(MPI_Info_get(pinfo, "mpi_size", MPI_MAX_INFO_VAL, value, &flag));
    LC_CHECK(flag && atoi(value) == size, "mpi://WORLD mpi_size = %s, expected %d", flag ? value : "(none)", size);
    LC_MPI(MPI_Info_free(&pinfo));

    /* collectives on both communicators, interleaved */
    int sum = 0, sum2 = 0, one = 1;
    LC_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    LC_MPI(MPI_Allreduce(&one, &sum2, 1, MPI_INT, MPI_SUM, c2));
    LC_CHECK(sum == size * (size - 1) / 2 && sum2 == size, "Allreduce on session communicators: %d, %d", sum, sum2);
    int token = rank;
    LC_MPI(MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 0, (rank + size - 1) % size, 0, c,
                                MPI_STATUS_IGNORE));
    LC_CHECK(token == (rank + size - 1) % size, "ring on a session communicator: %d", token);

    /* session info: the thread level asked for (or what was granted) */
    MPI_Info used;
    LC_MPI(MPI_Session_get_info(s1, &used));
    LC_MPI(MPI_Info_get(used, "thread_level", MPI_MAX_INFO_VAL, value, &flag));
    LC_CHECK(flag && strncmp(value, "MPI_THREAD_", 11) == 0, "thread_level = %s", flag ? value : "(none)");
    /* Locus grants what was asked (MPICH: the first session's or
     * MPI_Init's level, for every session) */
    LC_CHECK(mpich || strcmp(value, "MPI_THREAD_FUNNELED") == 0, "s1's thread_level = %s", value);
    LC_MPI(MPI_Info_free(&used));
    /* s2 asked for nothing: MPI_THREAD_MULTIPLE (MPI 4.1 §11.3.1 advises
     * against MPI_THREAD_SINGLE as the sessions' default; MPICH's too) */
    LC_MPI(MPI_Session_get_info(s2, &used));
    LC_MPI(MPI_Info_get(used, "thread_level", MPI_MAX_INFO_VAL, value, &flag));
    LC_CHECK(mpich || (flag && strcmp(value, "MPI_THREAD_MULTIPLE") == 0), "s2's thread_level without a hint = %s",
             flag ? value : "(none)");
    LC_MPI(MPI_Info_free(&used));

    /* errors: returned, then through a user handler (MPICH 4.0.2 ignores
     * the session's handler and aborts on a bad pset name) */
    MPI_Group g;
    int rc = mpich ? 1 : MPI_Group_from_session_pset(s2, "mpi://NO_SUCH_SET", &g);
    LC_CHECK(rc != MPI_SUCCESS, "a pset that does not exist gave a group");
    LC_CHECK(mpich || first_calls == 1, "s2's first handler ran %d times for a bad pset name", first_calls);
    MPI_Errhandler eh, got;
    LC_MPI(MPI_Session_create_errhandler(on_error, &eh));
    LC_MPI(MPI_Session_set_errhandler(s2, eh));
    LC_MPI(MPI_Session_get_errhandler(s2, &got));
    LC_CHECK(got == eh, "Session_get_errhandler gave another handler");
    LC_MPI(MPI_Errhandler_free(&got));
    LC_MPI(MPI_Session_call_errhandler(s2, MPI_ERR_OTHER));
    LC_CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER, "user handler: %d calls, code %d", handler_calls,
             handler_code);
    if (!mpich) {
        rc = MPI_Group_from_session_pset(s2, "mpi://NO_SUCH_SET", &g);
        LC_CHECK(rc != MPI_SUCCESS && handler_calls == 2, "failing call: rc %d, %d handler calls", rc, handler_calls);
    }
    LC_MPI(MPI_Errhandler_free(&eh));

    /* report over the session's communicator, then tear down */
    int total = 0;
    LC_MPI(MPI_Allreduce(&lc_errs, &total, 1, MPI_INT, MPI_SUM, c));
    if (rank == 0) {
        printf(total ? "Found %d errors\n" : "No Errors\n", total);
        fflush(stdout);
    }
    LC_MPI(MPI_Comm_free(&self));
    LC_MPI(MPI_Comm_free(&c2));
    LC_MPI(MPI_Comm_free(&c));
    LC_MPI(MPI_Session_finalize(&s2));
    LC_CHECK(s2 == MPI_SESSION_NULL, "Session_finalize left the handle set");
    if (early) {
        LC_MPI(MPI_Finalize());
        int fin = 0;
        MPI_Finalized(&fin);
        /* the session still works: one more collective on a new communicator */
        c = comm_from(s1, "mpi://WORLD", "org.locus.test.late");
        LC_MPI(MPI_Allreduce(&one, &sum2, 1, MPI_INT, MPI_SUM, c));
        LC_CHECK(fin && sum2 == size, "after MPI_Finalize: finalized %d, Allreduce %d", fin, sum2);
        LC_MPI(MPI_Comm_free(&c));
    }
    LC_MPI(MPI_Session_finalize(&s1));
    if (world && !early) LC_MPI(MPI_Finalize());
    return total || lc_errs ? 1 : 0; /* lc_errs: a failure after the report (world_early) */
}
