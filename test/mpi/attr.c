/* SPDX-License-Identifier: BSD-3-Clause */
/* attr: attribute caching on communicators.  Keyvals with copy and delete
 * callbacks: set (delete runs on the value replaced), get, delete_attr,
 * MPI_Comm_dup (copy callbacks decide what the duplicate gets:
 * MPI_COMM_DUP_FN copies, MPI_COMM_NULL_COPY_FN does not, a callback may
 * change the value), MPI_Comm_free (delete callbacks run, in reverse order
 * of setting in Locus), a keyval freed while in use (its handle still
 * names it and is not reused; a second free does nothing), a copy callback that
 * fails (the dup fails with its code); the deprecated Keyval_create/
 * Attr_put/get/delete/Keyval_free; the predefined attributes on
 * MPI_COMM_WORLD; MPI_COMM_SELF's attributes deleted at the start of
 * MPI_Finalize; errors (MPI_ERR_KEYVAL) under MPI_ERRORS_RETURN. */
#include "lc_test.h"

static void expect_class(int rc, int cls, const char *call)
{
    int got = lc_class_of(rc);
    LC_CHECK(got == cls, "%s: class %d (%s), expected %d", call, got, lc_class_name(got), cls);
}
#define EXPECT(call, cls) expect_class((call), cls, #call)

/* What the delete callbacks saw, in order: value ids. */
static int deleted[16], ndeleted;
static int copies;

static int record_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    LC_CHECK(extra == (void *)&deleted, "delete callback got extra_state %p", extra);
    if (ndeleted < 16) deleted[ndeleted++] = (int)(intptr_t)value;
    return MPI_SUCCESS;
}

/* Copies value + 100, counting calls. */
static int copy_plus_100(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    copies++;
    *(void **)out = (void *)((intptr_t)in + 100);
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_fails(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_ERR_OTHER;
}

static void *get(MPI_Comm c, int key, int *flag)
{
    void *v = NULL;
    LC_MPI(MPI_Comm_get_attr(c, key, &v, flag));
    return v;
}

static void test_callbacks(void)
{
    int k_dup, k_null, k_plus, flag;
    LC_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &k_dup, &deleted));
    LC_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record_delete, &k_null, &deleted));
    LC_MPI(MPI_Comm_create_keyval(copy_plus_100, record_delete, &k_plus, &deleted));
    MPI_Comm a, b;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    get(a, k_dup, &flag);
    LC_CHECK(!flag, "attribute present before it was set");
    LC_MPI(MPI_Comm_set_attr(a, k_dup, (void *)1));
    LC_MPI(MPI_Comm_set_attr(a, k_null, (void *)2));
    LC_MPI(MPI_Comm_set_attr(a, k_plus, (void *)3));
    LC_MPI(MPI_Comm_set_attr(a, k_dup, (void *)4)); /* replaces 1: delete(1) */
    LC_CHECK(ndeleted == 1 && deleted[0] == 1, "replacing ran %d deletes (first %d)", ndeleted, deleted[0]);
    LC_CHECK(get(a, k_dup, &flag) == (void *)4 && flag, "value after replacing");
    LC_MPI(MPI_Comm_dup(a, &b));
    LC_CHECK(copies == 1, "copy callback ran %d times", copies);
    LC_CHECK(get(b, k_dup, &flag) == (void *)4 && flag, "MPI_COMM_DUP_FN did not copy");
    get(b, k_null, &flag);
    LC_CHECK(!flag, "MPI_COMM_NULL_COPY_FN copied");
    LC_CHECK(get(b, k_plus, &flag) == (void *)103 && flag, "the copy callback's value was not used");
    ndeleted = 0;
    LC_MPI(MPI_Comm_delete_attr(b, k_dup));
    LC_CHECK(ndeleted == 1 && deleted[0] == 4, "delete_attr: %d deletes", ndeleted);
    get(b, k_dup, &flag);
    LC_CHECK(!flag, "attribute still there after delete_attr");
    /* Freeing the keyvals now: attributes keep them alive. */
    int saved = k_plus;
    LC_MPI(MPI_Comm_free_keyval(&k_plus));
    LC_CHECK(k_plus == MPI_KEYVAL_INVALID, "freed keyval is %#x", (unsigned)k_plus);
    /* ... and so do their handles: a new key gets another one, the freed
     * one still reaches the attribute, freeing it again does nothing (as
     * MPICH's tests attr/fkeyval and attr/keyval_double_free expect) */
    int other, again = saved;
    LC_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &other, NULL));
    LC_CHECK(other != saved, "a new keyval got the handle %#x of a freed one still in use", (unsigned)saved);
    LC_CHECK(get(b, saved, &flag) == (void *)103 && flag, "the freed key no longer reaches its attribute");
    LC_MPI(MPI_Comm_free_keyval(&again));
    LC_MPI(MPI_Comm_free_keyval(&other));
    ndeleted = 0;
    LC_MPI(MPI_Comm_free(&b)); /* deletes 103 (key saved, freed) */
    LC_CHECK(ndeleted == 1 && deleted[0] == 103, "free(b): %d deletes, first %d", ndeleted, deleted[0]);
    ndeleted = 0;
    LC_MPI(MPI_Comm_free(&a)); /* deletes 4, 2, 3: all three */
    LC_CHECK(ndeleted == 3, "free(a): %d deletes", ndeleted);
    if (!lc_library_is_mpich()) /* Locus: reverse order of setting */
        LC_CHECK(deleted[0] == 3 && deleted[1] == 2 && deleted[2] == 4, "free(a) order %d %d %d", deleted[0],
                 deleted[1], deleted[2]);
    LC_MPI(MPI_Comm_free_keyval(&k_dup));
    LC_MPI(MPI_Comm_free_keyval(&k_null));
}

static void test_failing_copy(void)
{
    int k;
    LC_MPI(MPI_Comm_create_keyval(copy_fails, MPI_COMM_NULL_DELETE_FN, &k, NULL));
    MPI_Comm a, b = MPI_COMM_NULL;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    LC_MPI(MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Comm_set_attr(a, k, (void *)7));
    int rc = MPI_Comm_dup(a, &b);
    LC_CHECK(rc != MPI_SUCCESS && b == MPI_COMM_NULL, "dup with a failing copy callback: rc %d, newcomm %#x", rc,
             (unsigned)b);
    LC_MPI(MPI_Comm_free(&a));
    LC_MPI(MPI_Comm_free_keyval(&k));
}

static void test_deprecated(void)
{
    int k, flag;
    void *v = NULL;
    LC_MPI(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k, NULL));
    LC_MPI(MPI_Attr_put(MPI_COMM_WORLD, k, (void *)55));
    LC_MPI(MPI_Attr_get(MPI_COMM_WORLD, k, &v, &flag));
    LC_CHECK(flag && v == (void *)55, "Attr_get: flag %d value %p", flag, v);
    LC_MPI(MPI_Attr_delete(MPI_COMM_WORLD, k));
    LC_MPI(MPI_Attr_get(MPI_COMM_WORLD, k, &v, &flag));
    LC_CHECK(!flag, "attribute after Attr_delete");
    LC_MPI(MPI_Keyval_free(&k));
}

static void test_predefined(void)
{
    int flag, *v;
    LC_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
    LC_CHECK(flag && *v >= 32767, "MPI_TAG_UB: flag %d value %d", flag, flag ? *v : 0);
    LC_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag));
    LC_CHECK(flag && (*v == MPI_PROC_NULL || (*v >= 0 && *v < lc_world_size())), "MPI_HOST: %d", flag ? *v : 0);
    LC_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag));
    LC_CHECK(flag && (*v == MPI_ANY_SOURCE || *v == MPI_PROC_NULL || *v >= 0), "MPI_IO: %d", flag ? *v : 0);
    LC_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag));
    LC_CHECK(!flag || *v == 0 || *v == 1, "MPI_WTIME_IS_GLOBAL: %d", *v);
    LC_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
    LC_CHECK(!flag || *v >= lc_world_size(), "MPI_UNIVERSE_SIZE %d below the world size", *v);
    LC_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
    LC_CHECK(!flag || *v == 0, "MPI_APPNUM %d for a single program", *v);
    LC_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    LC_CHECK(flag && *v >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE: flag %d value %d", flag, flag ? *v : 0);
}

static void test_errors(void)
{
    int k = MPI_KEYVAL_INVALID, flag;
    void *v;
    EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, NULL), MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag), MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL);
    LC_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL));
    LC_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, k)); /* not set: nothing to do */
    EXPECT(MPI_Comm_set_attr(MPI_COMM_NULL, k, NULL), MPI_ERR_COMM);
    LC_MPI(MPI_Comm_free_keyval(&k));
}

/* Deleted at MPI_Finalize: prints nothing, the count is checked by the
 * exit code through a second delete callback that writes a marker. */
static int self_deletes;
static int count_self_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)keyval, (void)value, (void)extra;
    if (comm == MPI_COMM_SELF) self_deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    test_callbacks();
    test_failing_copy();
    test_deprecated();
    test_predefined();
    test_errors();
    int k;
    LC_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_self_delete, &k, NULL));
    LC_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, k, NULL));
    LC_MPI(MPI_Comm_free_keyval(&k));
    int rc = lc_finish(); /* MPI_Finalize runs the delete callback */
    if (self_deletes != 1) {
        fprintf(stderr, "[rank ?] FAIL: MPI_COMM_SELF's attribute deleted %d times at MPI_Finalize\n", self_deletes);
        return 1;
    }
    return rc;
}
