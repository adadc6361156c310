/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_errors.c: error classes of one-sided calls with MPI_ERRORS_RETURN
 * on the window, and a user window error handler. */
#include "lc_test.h"

static int handler_calls;
static void on_error(MPI_Win *win, int *code, ...)
{
    (void)win;
    (void)code;
    handler_calls++;
}

static int cls(int code)
{
    int c = -1;
    MPI_Error_class(code, &c);
    return c;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    int mem[4] = { 0 }, v = 1, rc;
    MPI_Win win;
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    rc = MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    LC_CHECK(cls(rc) == MPI_ERR_RMA_SYNC, "put outside an epoch: class %d", cls(rc));
    rc = MPI_Win_unlock(0, win);
    LC_CHECK(cls(rc) == MPI_ERR_RMA_SYNC, "unlock without lock: class %d", cls(rc));
    rc = MPI_Win_lock(12345, 0, 0, win);
    /* MPICH 4.0.2 answers MPI_ERR_ARG; MPI 4.1 names MPI_ERR_LOCKTYPE. */
    LC_CHECK(cls(rc) == MPI_ERR_LOCKTYPE || (lc_library_is_mpich() && cls(rc) == MPI_ERR_ARG),
             "bad lock type: class %d", cls(rc));
    MPI_Win_fence(0, win);
    rc = MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win);
    LC_CHECK(cls(rc) == MPI_ERR_RANK, "target out of range: class %d", cls(rc));
    if (!lc_library_is_mpich()) {
        /* disp x disp_unit beyond MPI_Aint: 2^62 x 4 wraps to offset 0 in
         * 64 bits; still outside the window (MPICH 4.0.2 does not check). */
        MPI_Aint far = (MPI_Aint)1 << 62;
        int got = 0;
        rc = MPI_Put(&v, 1, MPI_INT, 0, far, 1, MPI_INT, win);
        LC_CHECK(cls(rc) == MPI_ERR_RMA_RANGE, "put at displacement 2^62: class %d", cls(rc));
        rc = MPI_Get(&got, 1, MPI_INT, 0, far, 1, MPI_INT, win);
        LC_CHECK(cls(rc) == MPI_ERR_RMA_RANGE, "get at displacement 2^62: class %d", cls(rc));
        rc = MPI_Accumulate(&v, 1, MPI_INT, 0, far + 1, 1, MPI_INT, MPI_SUM, win);
        LC_CHECK(cls(rc) == MPI_ERR_RMA_RANGE, "accumulate at displacement 2^62 + 1: class %d", cls(rc));
        rc = MPI_Fetch_and_op(&v, &got, MPI_INT, 0, far, MPI_SUM, win);
        LC_CHECK(cls(rc) == MPI_ERR_RMA_RANGE, "fetch_and_op at displacement 2^62: class %d", cls(rc));
        rc = MPI_Compare_and_swap(&v, &v, &got, MPI_INT, 0, far, win);
        LC_CHECK(cls(rc) == MPI_ERR_RMA_RANGE, "compare_and_swap at displacement 2^62: class %d", cls(rc));
    }
    rc = MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win);
    LC_CHECK(rc == MPI_SUCCESS, "put to MPI_PROC_NULL: %d", rc);
    /* An empty accumulate combines nothing: any predefined op goes with any
     * type (mpi4py's Get_accumulate defaults to MPI_SUM, here on MPI_BYTE). */
    char b = 0, r = 0;
    rc = MPI_Get_accumulate(&b, 0, MPI_BYTE, &r, 0, MPI_BYTE, 0, 0, 0, MPI_BYTE, MPI_SUM, win);
    LC_CHECK(rc == MPI_SUCCESS, "empty Get_accumulate with MPI_SUM on MPI_BYTE: class %d", cls(rc));
    int iv[2] = { 0, 0 };
    rc = MPI_Get_accumulate(iv, 0, MPI_INT, iv + 1, 0, MPI_INT, MPI_PROC_NULL, 0, 0, MPI_BYTE, MPI_SUM, win);
    LC_CHECK(rc == MPI_SUCCESS, "Get_accumulate to MPI_PROC_NULL with unmatched types: class %d", cls(rc));
    /* A type of no data moves nothing whatever its count (MPICH's
     * rma/badrma): an item of contiguous(0, MPI_INT), which is made of no
     * predefined type, against 0 doubles; window memory untouched. */
    MPI_Datatype none;
    MPI_Type_contiguous(0, MPI_INT, &none);
    MPI_Type_commit(&none);
    double dv = 5;
    int before = mem[0];
    rc = MPI_Accumulate(&v, 1, none, 0, 0, 0, MPI_DOUBLE, MPI_SUM, win);
    LC_CHECK(rc == MPI_SUCCESS, "accumulate of 1 item of no data into 0 doubles: class %d", cls(rc));
    rc = MPI_Accumulate(&dv, 0, MPI_DOUBLE, 0, 0, 2, none, MPI_SUM, win);
    LC_CHECK(rc == MPI_SUCCESS, "accumulate of 0 doubles into 2 items of no data: class %d", cls(rc));
    rc = MPI_Get_accumulate(&v, 1, none, iv, 2, none, 0, 0, 1, none, MPI_SUM, win);
    LC_CHECK(rc == MPI_SUCCESS, "get_accumulate with types of no data on every side: class %d", cls(rc));
    rc = MPI_Put(&v, 2, none, 0, 0, 1, none, win);
    LC_CHECK(rc == MPI_SUCCESS, "put of items of no data: class %d", cls(rc));
    MPI_Win_fence(0, win);
    LC_CHECK(mem[0] == before, "accumulates of no data changed memory: %d, was %d", mem[0], before);
    MPI_Type_free(&none);
    MPI_Errhandler eh;
    MPI_Win_create_errhandler(on_error, &eh);
    MPI_Win_set_errhandler(win, eh);
    MPI_Errhandler_free(&eh);
    MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
    LC_CHECK(handler_calls == 1, "user handler called %d times", handler_calls);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int keyval, flag = 0;
    void *val = NULL;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &keyval, NULL);
    MPI_Win_set_attr(win, keyval, &rank);
    MPI_Win_get_attr(win, keyval, &val, &flag);
    LC_CHECK(flag && val == &rank, "attribute not found");
    MPI_Win_delete_attr(win, keyval);
    MPI_Win_free_keyval(&keyval);
    void *base = NULL;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    LC_CHECK(flag && base == mem, "MPI_WIN_BASE %p, expected %p", base, (void *)mem);
    MPI_Win_set_name(win, "rma-errors");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Win_get_name(win, name, &len);
    LC_CHECK(strcmp(name, "rma-errors") == 0 && len == 10, "name '%s'", name);
    MPI_Group g;
    int gs;
    MPI_Win_get_group(win, &g);
    MPI_Group_size(g, &gs);
    LC_CHECK(gs == size, "group size %d", gs);
    MPI_Group_free(&g);
    MPI_Info info, used;
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "false");
    rc = MPI_Win_set_info(win, info);
    LC_CHECK(rc == MPI_SUCCESS, "Win_set_info: %d", rc);
    rc = MPI_Win_get_info(win, &used);
    LC_CHECK(rc == MPI_SUCCESS && used != MPI_INFO_NULL, "Win_get_info: %d", rc);
    if (rc == MPI_SUCCESS) MPI_Info_free(&used);
    MPI_Info_free(&info);
    if (!lc_library_is_mpich()) {
        /* A derived datatype must be committed (rma_dtype.c tests the rest). */
        MPI_Datatype two;
        MPI_Type_contiguous(2, MPI_INT, &two);
        MPI_Win_fence(0, win);
        rc = MPI_Put(mem, 1, two, 0, 0, 1, two, win);
        LC_CHECK(cls(rc) == MPI_ERR_TYPE, "uncommitted derived datatype: class %d", cls(rc));
        MPI_Type_commit(&two);
        rc = MPI_Put(mem, 1, two, 0, 0, 1, two, win);
        LC_CHECK(rc == MPI_SUCCESS, "committed derived datatype: %d", rc);
        MPI_Win_fence(0, win);
        MPI_Type_free(&two);
    }
    MPI_Win_free(&win);

    /* Win_allocate_shared needs ranks that share memory: on a world that
     * MPI_COMM_TYPE_SHARED splits (net=ofi, mixed), MPI_ERR_RMA_SHARED. */
    MPI_Comm shm;
    int shm_size;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    MPI_Comm_size(shm, &shm_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *p = NULL;
    rc = MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &p, &win);
    if (shm_size == size) {
        LC_CHECK(rc == MPI_SUCCESS, "Win_allocate_shared on shared-memory ranks failed: class %d", cls(rc));
        if (rc == MPI_SUCCESS) MPI_Win_free(&win);
    } else {
        LC_CHECK(cls(rc) == MPI_ERR_RMA_SHARED, "Win_allocate_shared across hosts: class %d", cls(rc));
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_free(&shm);
    return lc_finish();
}
