/* SPDX-License-Identifier: BSD-3-Clause */
/* errhandler_user: user error handlers and user error codes.
 * MPI_Comm_create_errhandler + set: an error on the communicator calls the
 * handler with the communicator and the code, and the call returns the
 * code; MPI_Comm_call_errhandler calls it too (and returns MPI_SUCCESS);
 * a duplicate inherits the handler; the handler outlives
 * MPI_Errhandler_free while a communicator uses it; get_errhandler
 * returns it; the deprecated Errhandler_create/set/get.
 * MPI_Add_error_class/_code/_string: classes and codes map back with
 * MPI_Error_class, strings with MPI_Error_string, MPI_LASTUSEDCODE grows;
 * a code of a predefined class; MPI 4.1 MPI_Remove_error_* (and adding
 * after removing, 4,000 times; Locus only:
 * MPICH 4.0.2 is MPI 4.0). */
#include "lc_test.h"

static int calls, last_code;
static MPI_Comm last_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    last_comm = *comm;
    last_code = *code;
}

static void test_handler(void)
{
    MPI_Errhandler eh, got;
    MPI_Comm d, e;
    LC_MPI(MPI_Comm_create_errhandler(handler, &eh));
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    LC_MPI(MPI_Comm_set_errhandler(d, eh));
    LC_MPI(MPI_Errhandler_free(&eh)); /* d still uses it */
    LC_CHECK(eh == MPI_ERRHANDLER_NULL, "freed error handler handle is %#x", (unsigned)eh);
    int x = 0, rc = MPI_Send(&x, 1, MPI_INT, lc_world_size(), 0, d); /* bad rank */
    LC_CHECK(calls == 1 && last_comm == d && last_code == rc && lc_class_of(rc) == MPI_ERR_RANK,
             "handler: %d calls, comm %#x (want %#x), code %d (returned %d, class %d)", calls,
             (unsigned)last_comm, (unsigned)d, last_code, rc, lc_class_of(rc));
    LC_MPI(MPI_Comm_call_errhandler(d, MPI_ERR_OTHER));
    LC_CHECK(calls == 2 && last_code == MPI_ERR_OTHER, "call_errhandler: %d calls, code %d", calls, last_code);
    LC_MPI(MPI_Comm_dup(d, &e)); /* inherits the handler */
    LC_MPI(MPI_Comm_call_errhandler(e, MPI_ERR_ARG));
    LC_CHECK(calls == 3 && last_comm == e, "duplicate's handler: %d calls", calls);
    LC_MPI(MPI_Comm_get_errhandler(e, &got));
    LC_MPI(MPI_Comm_set_errhandler(e, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Comm_set_errhandler(e, got)); /* the returned handle works */
    LC_MPI(MPI_Errhandler_free(&got));
    LC_MPI(MPI_Comm_call_errhandler(e, MPI_ERR_ARG));
    LC_CHECK(calls == 4, "handler from get_errhandler: %d calls", calls);
    LC_MPI(MPI_Comm_free(&e));
    LC_MPI(MPI_Comm_free(&d));
    /* MPI_ERRORS_RETURN handler through call_errhandler: nothing happens */
    LC_MPI(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER));
}

static void test_deprecated(void)
{
    MPI_Errhandler eh, got;
    MPI_Comm d;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    LC_MPI(MPI_Errhandler_create(handler, &eh));
    LC_MPI(MPI_Errhandler_set(d, eh));
    LC_MPI(MPI_Errhandler_get(d, &got));
    LC_CHECK(got == eh, "Errhandler_get gave %#x, set %#x", (unsigned)got, (unsigned)eh);
    int before = calls;
    LC_MPI(MPI_Comm_call_errhandler(d, MPI_ERR_OTHER));
    LC_CHECK(calls == before + 1, "handler set by Errhandler_set not called");
    LC_MPI(MPI_Errhandler_free(&got));
    LC_MPI(MPI_Errhandler_free(&eh));
    LC_MPI(MPI_Comm_free(&d));
}

static void test_codes(void)
{
    int cls, code, code2, got, len, flag, *last;
    char s[MPI_MAX_ERROR_STRING];
    LC_MPI(MPI_Add_error_class(&cls));
    LC_MPI(MPI_Add_error_code(cls, &code));
    LC_MPI(MPI_Add_error_code(MPI_ERR_ARG, &code2));
    LC_CHECK(code != cls && code2 != MPI_ERR_ARG, "codes equal their classes");
    LC_MPI(MPI_Error_class(code, &got));
    LC_CHECK(got == cls, "class of a user code %#x is %#x, expected %#x", (unsigned)code, (unsigned)got, (unsigned)cls);
    LC_MPI(MPI_Error_class(cls, &got));
    LC_CHECK(got == cls, "class of a user class is %#x", (unsigned)got);
    LC_MPI(MPI_Error_class(code2, &got));
    LC_CHECK(got == MPI_ERR_ARG, "class of a code added to MPI_ERR_ARG is %d", got);
    LC_MPI(MPI_Error_string(code, s, &len));
    LC_CHECK(len == 0 && s[0] == 0, "string of a code without one: \"%s\"", s);
    LC_MPI(MPI_Add_error_string(code, "a user error"));
    LC_MPI(MPI_Add_error_string(cls, "a user class"));
    LC_MPI(MPI_Error_string(code, s, &len));
    LC_CHECK(strcmp(s, "a user error") == 0 && len == 12, "code string \"%s\" (%d)", s, len);
    LC_MPI(MPI_Error_string(cls, s, &len));
    LC_CHECK(strcmp(s, "a user class") == 0, "class string \"%s\"", s);
    LC_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    LC_CHECK(flag && *last >= cls, "MPI_LASTUSEDCODE %#x below the class %#x", flag ? (unsigned)*last : 0,
             (unsigned)cls);
    /* A user code goes through a handler like any other. */
    int before = calls;
    MPI_Errhandler eh;
    MPI_Comm d;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    LC_MPI(MPI_Comm_create_errhandler(handler, &eh));
    LC_MPI(MPI_Comm_set_errhandler(d, eh));
    LC_MPI(MPI_Comm_call_errhandler(d, code));
    LC_CHECK(calls == before + 1 && last_code == code, "user code through the handler: %d", last_code);
    LC_MPI(MPI_Errhandler_free(&eh));
    LC_MPI(MPI_Comm_free(&d));
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    int rc = MPI_Remove_error_class(cls); /* still has a code and a string */
    LC_CHECK(lc_class_of(rc) == MPI_ERR_ARG, "removing a class with codes: class %d", lc_class_of(rc));
    LC_MPI(MPI_Remove_error_string(code));
    LC_MPI(MPI_Remove_error_code(code));
    LC_MPI(MPI_Remove_error_string(cls));
    LC_MPI(MPI_Remove_error_class(cls));
    rc = MPI_Error_class(code, &got);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_ARG, "a removed code is still valid (class %d)", lc_class_of(rc));
    LC_MPI(MPI_Remove_error_code(code2));
    /* Adding and removing in a loop never runs out (Locus had 255 classes
     * for the life of the program; MPICH test errhan/adderr) */
    for (int i = 0; i < 1000 && lc_errs == 0; i++) {
        int k[4], c[4];
        for (int j = 0; j < 4; j++) {
            LC_MPI(MPI_Add_error_class(&k[j]));
            LC_MPI(MPI_Add_error_code(k[j], &c[j]));
            LC_MPI(MPI_Add_error_string(c[j], "looping"));
        }
        for (int j = 0; j < 4; j++) {
            LC_MPI(MPI_Error_class(c[j], &got));
            LC_CHECK(got == k[j], "round %d: class of code %#x is %#x, expected %#x", i, (unsigned)c[j],
                     (unsigned)got, (unsigned)k[j]);
            LC_MPI(MPI_Remove_error_string(c[j]));
            LC_MPI(MPI_Remove_error_code(c[j]));
            LC_MPI(MPI_Remove_error_class(k[j]));
        }
    }
#endif
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    test_handler();
    test_deprecated();
    test_codes();
    return lc_finish();
}
