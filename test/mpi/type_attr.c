/* SPDX-License-Identifier: BSD-3-Clause */
/* type_attr: attribute caching on datatypes.  Keyvals with copy and delete
 * callbacks on a derived type: set (delete runs on the value replaced),
 * get, delete_attr, MPI_Type_dup (MPI_TYPE_DUP_FN copies,
 * MPI_TYPE_NULL_COPY_FN does not, a callback may change the value, a
 * failing copy callback fails the dup), MPI_Type_free (every delete
 * callback runs, with the type's handle), a keyval freed while in use,
 * attributes on a predefined type; errors (MPI_ERR_KEYVAL for a
 * communicator keyval or a freed one) under MPI_ERRORS_RETURN. */
#include "lc_test.h"

static void expect_class(int rc, int cls, const char *call)
{
    int got = lc_class_of(rc);
    LC_CHECK(got == cls, "%s: class %d (%s), expected %d", call, got, lc_class_name(got), cls);
}
#define EXPECT(call, cls) expect_class((call), cls, #call)

static int deleted[16], ndeleted, copies;
static MPI_Datatype delete_saw;

static int record_delete(MPI_Datatype t, int keyval, void *value, void *extra)
{
    (void)keyval;
    LC_CHECK(extra == (void *)&deleted, "delete callback got extra_state %p", extra);
    delete_saw = t;
    if (ndeleted < 16) deleted[ndeleted++] = (int)(intptr_t)value;
    return MPI_SUCCESS;
}

static int copy_plus_100(MPI_Datatype t, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)keyval, (void)extra;
    copies++;
    *(void **)out = (void *)((intptr_t)in + 100);
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_fails(MPI_Datatype t, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_ERR_OTHER;
}

static void *get(MPI_Datatype t, int key, int *flag)
{
    void *v = NULL;
    LC_MPI(MPI_Type_get_attr(t, key, &v, flag));
    return v;
}

static int has_value(int v)
{
    for (int i = 0; i < ndeleted; i++)
        if (deleted[i] == v) return 1;
    return 0;
}

static void test_callbacks(void)
{
    int k_dup, k_null, k_plus, flag;
    LC_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, record_delete, &k_dup, &deleted));
    LC_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, record_delete, &k_null, &deleted));
    LC_MPI(MPI_Type_create_keyval(copy_plus_100, record_delete, &k_plus, &deleted));
    MPI_Datatype a, b;
    LC_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &a));
    get(a, k_dup, &flag);
    LC_CHECK(!flag, "attribute present before it was set");
    LC_MPI(MPI_Type_set_attr(a, k_dup, (void *)1));
    LC_MPI(MPI_Type_set_attr(a, k_null, (void *)2));
    LC_MPI(MPI_Type_set_attr(a, k_plus, (void *)3));
    LC_MPI(MPI_Type_set_attr(a, k_dup, (void *)4)); /* replaces 1: delete(1) */
    LC_CHECK(ndeleted == 1 && deleted[0] == 1, "replacing ran %d deletes (first %d)", ndeleted, deleted[0]);
    LC_CHECK(get(a, k_dup, &flag) == (void *)4 && flag, "value after replacing");
    LC_MPI(MPI_Type_dup(a, &b));
    LC_CHECK(copies == 1, "copy callback ran %d times", copies);
    LC_CHECK(get(b, k_dup, &flag) == (void *)4 && flag, "MPI_TYPE_DUP_FN did not copy");
    get(b, k_null, &flag);
    LC_CHECK(!flag, "MPI_TYPE_NULL_COPY_FN copied");
    LC_CHECK(get(b, k_plus, &flag) == (void *)103 && flag, "copy callback's value not stored");

    ndeleted = 0;
    LC_MPI(MPI_Type_delete_attr(a, k_null));
    LC_CHECK(ndeleted == 1 && deleted[0] == 2, "delete_attr ran %d deletes (first %d)", ndeleted, deleted[0]);
    get(a, k_null, &flag);
    LC_CHECK(!flag, "attribute still there after delete_attr");

    /* A keyval freed while attributes use it stays usable on them. */
    int k_keep = k_dup;
    LC_MPI(MPI_Type_free_keyval(&k_dup));
    LC_CHECK(k_dup == MPI_KEYVAL_INVALID, "free_keyval left %d", k_dup);

    /* The dup first: MPICH runs a type's delete callbacks when its object
     * goes, and the dup's object holds the original's. */
    ndeleted = 0;
    MPI_Datatype b_handle = b;
    LC_MPI(MPI_Type_free(&b));
    LC_CHECK(b == MPI_DATATYPE_NULL, "Type_free left the handle");
    LC_CHECK(ndeleted == 2 && has_value(4) && has_value(103), "freeing the dup ran %d deletes", ndeleted);
    LC_CHECK(delete_saw == b_handle, "delete callback got handle %#x, expected %#x", (unsigned)delete_saw,
             (unsigned)b_handle);
    ndeleted = 0;
    LC_MPI(MPI_Type_free(&a));
    LC_CHECK(ndeleted == 2 && has_value(4) && has_value(3), "freeing ran %d deletes", ndeleted);
    (void)k_keep;

    /* A failing copy callback fails the dup and leaves no new type. */
    int k_fail;
    LC_MPI(MPI_Type_create_keyval(copy_fails, MPI_TYPE_NULL_DELETE_FN, &k_fail, NULL));
    LC_MPI(MPI_Type_contiguous(2, MPI_DOUBLE, &a));
    LC_MPI(MPI_Type_set_attr(a, k_fail, (void *)7));
    b = MPI_DATATYPE_NULL;
    int rc = MPI_Type_dup(a, &b);
    LC_CHECK(rc != MPI_SUCCESS, "dup with a failing copy callback succeeded");
    LC_MPI(MPI_Type_free(&a));
    LC_MPI(MPI_Type_free_keyval(&k_fail));
    LC_MPI(MPI_Type_free_keyval(&k_null));
    LC_MPI(MPI_Type_free_keyval(&k_plus));
}

static void test_predefined_and_errors(void)
{
    int key, flag, ckey;
    LC_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &key, NULL));
    LC_MPI(MPI_Type_set_attr(MPI_INT, key, (void *)42));
    LC_CHECK(get(MPI_INT, key, &flag) == (void *)42 && flag, "attribute on MPI_INT");
    get(MPI_DOUBLE, key, &flag);
    LC_CHECK(!flag, "MPI_DOUBLE has MPI_INT's attribute");
    LC_MPI(MPI_Type_delete_attr(MPI_INT, key));
    get(MPI_INT, key, &flag);
    LC_CHECK(!flag, "attribute on MPI_INT after delete");

    LC_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ckey, NULL));
    EXPECT(MPI_Type_set_attr(MPI_INT, ckey, (void *)1), MPI_ERR_KEYVAL);
    LC_MPI(MPI_Comm_free_keyval(&ckey));
    int freed = key;
    LC_MPI(MPI_Type_free_keyval(&key));
    if (!lc_library_is_mpich()) /* MPICH 4.0.2 accepts a freed keyval */
        EXPECT(MPI_Type_set_attr(MPI_INT, freed, (void *)1), MPI_ERR_KEYVAL);
    EXPECT(MPI_Type_set_attr(MPI_DATATYPE_NULL, MPI_KEYVAL_INVALID, (void *)1), MPI_ERR_TYPE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_callbacks();
    test_predefined_and_errors();
    return lc_finish();
}
