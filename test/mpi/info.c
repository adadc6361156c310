/* SPDX-License-Identifier: BSD-3-Clause */
/* info: every MPI_Info_* function.  Objects made before MPI_Init still work
 * after it; set/get/get_valuelen/get_string (with a buffer too small, and
 * *buflen 0 to ask the length)/get_nkeys/get_nthkey (insertion order)/
 * delete/dup/free; MPI_INFO_ENV and MPI_Info_create_env hold only keys
 * the standard names, the same before MPI_Init as after; errors: a key too long (MPI_ERR_INFO_KEY), a value
 * too long (MPI_ERR_INFO_VALUE), a missing key for delete
 * (MPI_ERR_INFO_NOKEY), n out of range for get_nthkey (MPI_ERR_ARG),
 * MPI_INFO_NULL (MPI_ERR_INFO or MPI_ERR_ARG). */
#include "lc_test.h"

static void expect_class(int rc, int cls, const char *call)
{
    int got = lc_class_of(rc);
    LC_CHECK(got == cls, "%s: class %d (%s), expected %d", call, got, lc_class_name(got), cls);
}
#define EXPECT(call, cls) expect_class((call), cls, #call)

static void test_basic(MPI_Info info)
{
    char v[64], k[MPI_MAX_INFO_KEY + 1];
    int flag, len, n;
    LC_MPI(MPI_Info_get_nkeys(info, &n));
    LC_CHECK(n == 2, "%d keys, expected 2 (set before MPI_Init)", n);
    LC_MPI(MPI_Info_set(info, "beta", "22"));
    LC_MPI(MPI_Info_set(info, "alpha", "one again")); /* replaces, keeps its place */
    LC_MPI(MPI_Info_get_nkeys(info, &n));
    LC_CHECK(n == 3, "%d keys after three distinct sets", n);
    const char *order[3] = { "alpha", "zeta", "beta" };
    for (int i = 0; i < 3 && i < n; i++) {
        LC_MPI(MPI_Info_get_nthkey(info, i, k));
        if (!lc_library_is_mpich() || i == 0)
            LC_CHECK(strcmp(k, order[i]) == 0, "key %d is \"%s\", expected \"%s\"", i, k, order[i]);
    }
    LC_MPI(MPI_Info_get(info, "alpha", sizeof(v) - 1, v, &flag));
    LC_CHECK(flag && strcmp(v, "one again") == 0, "alpha = \"%s\" (flag %d)", flag ? v : "", flag);
    if (!lc_library_is_mpich()) { /* MPICH 4.0.2 fails instead of truncating (MPI 4.1 §10 truncates) */
        LC_MPI(MPI_Info_get(info, "alpha", 3, v, &flag));
        LC_CHECK(flag && strcmp(v, "one") == 0, "alpha cut to 3: \"%s\"", v);
    }
    LC_MPI(MPI_Info_get(info, "nosuch", sizeof(v) - 1, v, &flag));
    LC_CHECK(!flag, "a missing key was found");
    LC_MPI(MPI_Info_get_valuelen(info, "alpha", &len, &flag));
    LC_CHECK(flag && len == 9, "valuelen %d flag %d", len, flag);
    len = 0;
    LC_MPI(MPI_Info_get_string(info, "alpha", &len, v, &flag));
    LC_CHECK(flag && len == 10, "get_string asking the length: %d flag %d", len, flag);
    len = 4;
    LC_MPI(MPI_Info_get_string(info, "alpha", &len, v, &flag));
    LC_CHECK(flag && len == 10 && strcmp(v, "one") == 0, "get_string into 4 bytes: \"%s\" len %d", v, len);
    len = sizeof(v);
    LC_MPI(MPI_Info_get_string(info, "nosuch", &len, v, &flag));
    LC_CHECK(!flag, "get_string found a missing key");
    MPI_Info d;
    LC_MPI(MPI_Info_dup(info, &d));
    LC_MPI(MPI_Info_delete(info, "zeta"));
    LC_MPI(MPI_Info_get_nkeys(info, &n));
    LC_CHECK(n == 2, "%d keys after delete", n);
    LC_MPI(MPI_Info_get_nkeys(d, &n));
    LC_CHECK(n == 3, "the duplicate has %d keys: delete reached it", n);
    LC_MPI(MPI_Info_get(d, "zeta", sizeof(v) - 1, v, &flag));
    LC_CHECK(flag && strcmp(v, "last") == 0, "duplicate's zeta = \"%s\"", flag ? v : "");
    LC_MPI(MPI_Info_free(&d));
    LC_CHECK(d == MPI_INFO_NULL, "freed info handle is %#x", (unsigned)d);
}

static const char *known[] = { "command", "argv", "maxprocs", "soft", "host", "arch", "wdir", "file", "thread_level" };

/* MPI_Info_create_env gives the same keys and values before MPI_Init as
 * after it (MPICH test info/infocreateenv; Locus had maxprocs and
 * thread_level only after). */
static void test_env_early(MPI_Info early)
{
    MPI_Info late;
    LC_MPI(MPI_Info_create_env(0, NULL, &late));
    for (size_t j = 0; j < sizeof(known) / sizeof(known[0]); j++) {
        char v1[MPI_MAX_INFO_VAL + 1] = "", v2[MPI_MAX_INFO_VAL + 1] = "";
        int f1, f2;
        LC_MPI(MPI_Info_get(early, known[j], MPI_MAX_INFO_VAL, v1, &f1));
        LC_MPI(MPI_Info_get(late, known[j], MPI_MAX_INFO_VAL, v2, &f2));
        LC_CHECK(f1 == f2 && strcmp(v1, v2) == 0, "create_env's \"%s\": before MPI_Init %s\"%s\", after %s\"%s\"",
                 known[j], f1 ? "" : "(none) ", v1, f2 ? "" : "(none) ", v2);
    }
    char v[MPI_MAX_INFO_VAL + 1];
    int flag, size;
    LC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    LC_MPI(MPI_Info_get(late, "maxprocs", MPI_MAX_INFO_VAL, v, &flag));
    LC_CHECK(!flag || atoi(v) == size, "maxprocs = %s in a job of %d", v, size);
    LC_MPI(MPI_Info_free(&late));
}

static void test_env(void)
{
    MPI_Info envs[2] = { MPI_INFO_ENV, MPI_INFO_NULL };
    LC_MPI(MPI_Info_create_env(0, NULL, &envs[1]));
    for (int e = 0; e < 2; e++) {
        int n;
        char k[MPI_MAX_INFO_KEY + 1];
        LC_MPI(MPI_Info_get_nkeys(envs[e], &n));
        for (int i = 0; i < n; i++) {
            LC_MPI(MPI_Info_get_nthkey(envs[e], i, k));
            int ok = 0;
            for (size_t j = 0; j < sizeof(known) / sizeof(known[0]); j++) ok |= strcmp(k, known[j]) == 0;
            LC_CHECK(ok, "%s has key \"%s\", which MPI does not name", e ? "create_env" : "MPI_INFO_ENV", k);
        }
    }
    if (!lc_library_is_mpich()) { /* MPICH 4.0.2's MPI_INFO_ENV is empty */
        char v[MPI_MAX_INFO_VAL + 1];
        int flag;
        LC_MPI(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, v, &flag));
        LC_CHECK(flag && strstr(v, "info"), "MPI_INFO_ENV command = \"%s\"", flag ? v : "");
    }
    LC_MPI(MPI_Info_free(&envs[1]));
}

static void test_errors(MPI_Info info)
{
    char big[MPI_MAX_INFO_VAL + 8], v[8];
    memset(big, 'k', sizeof(big) - 1);
    big[sizeof(big) - 1] = 0;
    int flag, n;
    EXPECT(MPI_Info_set(info, big, "v"), MPI_ERR_INFO_KEY);
    EXPECT(MPI_Info_set(info, "k", big), MPI_ERR_INFO_VALUE);
    EXPECT(MPI_Info_delete(info, "nosuch"), MPI_ERR_INFO_NOKEY);
    LC_MPI(MPI_Info_get_nkeys(info, &n));
    EXPECT(MPI_Info_get_nthkey(info, n, v), MPI_ERR_ARG);
    EXPECT(MPI_Info_get_nthkey(info, -1, v), MPI_ERR_ARG);
    int cls = lc_class_of(MPI_Info_get(MPI_INFO_NULL, "k", 4, v, &flag));
    LC_CHECK(cls == MPI_ERR_INFO || cls == MPI_ERR_ARG, "MPI_Info_get(MPI_INFO_NULL): class %d", cls);
    MPI_Info null = MPI_INFO_NULL;
    cls = lc_class_of(MPI_Info_free(&null));
    LC_CHECK(cls == MPI_ERR_INFO || cls == MPI_ERR_ARG, "MPI_Info_free(MPI_INFO_NULL): class %d", cls);
}

int main(int argc, char **argv)
{
    MPI_Info info;
    /* Info objects work before MPI_Init (MPI 4.1 §11.2.1). */
    LC_MPI(MPI_Info_create(&info));
    LC_MPI(MPI_Info_set(info, "alpha", "1"));
    LC_MPI(MPI_Info_set(info, "zeta", "last"));
    MPI_Info early;
    LC_MPI(MPI_Info_create_env(argc, argv, &early));
    LC_MPI(MPI_Init(&argc, &argv));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    test_basic(info);
    test_env();
    test_env_early(early);
    LC_MPI(MPI_Info_free(&early));
    test_errors(info);
    LC_MPI(MPI_Info_free(&info));
    return lc_finish();
}
