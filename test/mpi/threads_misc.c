/* SPDX-License-Identifier: BSD-3-Clause */
/* threads_misc: MPI_THREAD_MULTIPLE object management.  argv[1] threads per
 * rank (default 3).  Concurrently, each thread on its own duplicate of
 * MPI_COMM_WORLD:
 *  - MPI_Comm_dup / MPI_Comm_split and MPI_Comm_free (context ids agreed
 *    by several threads of each process at once), using the new
 *    communicator before freeing it;
 *  - derived datatypes: create, commit, send to itself, free;
 *  - attributes: a keyval of its own, set/get/delete on its communicator,
 *    with copy and delete callbacks counted per thread;
 *  - info objects and groups: create, query, free. */
#include "lc_test.h"
#include "lc_test_threads.h"

#define ITERS 40
#define MAXT 8

static int rank, size, nthreads;
static MPI_Comm comms[MAXT];
static int deletes[MAXT];


static int del_fn(MPI_Comm c, int keyval, void *val, void *extra)
{
    (void)c;
    (void)keyval;
    (void)val;
    deletes[(int)(intptr_t)extra]++;
    return MPI_SUCCESS;
}

static void *body(void *p)
{
    int t = (int)(intptr_t)p;
    MPI_Comm base = comms[t];
    int key;
    LC_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_fn, &key, (void *)(intptr_t)t));
    for (int i = 0; i < ITERS; i++) {
        /* communicators */
        MPI_Comm d, s;
        LC_MPI(MPI_Comm_dup(base, &d));
        int sum = 0, one = 1;
        LC_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d));
        TCHECK(sum == size, "thread %d iter %d: allreduce on a dup gave %d", t, i, sum);
        LC_MPI(MPI_Comm_split(d, rank % 2, -rank, &s));
        int ssize, srank;
        MPI_Comm_size(s, &ssize);
        MPI_Comm_rank(s, &srank);
        int want = size / 2 + (rank % 2 == 0 ? size % 2 : 0);
        TCHECK(ssize == want, "thread %d iter %d: split size %d, expected %d", t, i, ssize, want);
        LC_MPI(MPI_Barrier(s));

        /* attributes: set on d, copied by a dup, deleted by the frees */
        LC_MPI(MPI_Comm_set_attr(d, key, (void *)(intptr_t)(i + 1)));
        MPI_Comm dd;
        LC_MPI(MPI_Comm_dup(d, &dd));
        void *v = NULL;
        int flag = 0;
        LC_MPI(MPI_Comm_get_attr(dd, key, &v, &flag));
        TCHECK(flag && (intptr_t)v == i + 1, "thread %d iter %d: copied attribute %d/%ld", t, i, flag, (long)(intptr_t)v);
        LC_MPI(MPI_Comm_free(&dd));
        LC_MPI(MPI_Comm_delete_attr(d, key));
        LC_MPI(MPI_Comm_free(&s));
        LC_MPI(MPI_Comm_free(&d));

        /* datatypes */
        MPI_Datatype vec, st;
        LC_MPI(MPI_Type_vector(4, 2, 3 + t, MPI_INT, &vec));
        LC_MPI(MPI_Type_commit(&vec));
        LC_MPI(MPI_Type_create_resized(vec, 0, 64, &st));
        LC_MPI(MPI_Type_commit(&st));
        int src[32], dst[32];
        for (int k = 0; k < 32; k++) src[k] = lc_pattern(t, i, k), dst[k] = -1;
        MPI_Request rq;
        LC_MPI(MPI_Irecv(dst, 1, vec, 0, t, MPI_COMM_SELF, &rq));
        LC_MPI(MPI_Send(src, 1, st, 0, t, MPI_COMM_SELF));
        LC_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        for (int b = 0; b < 4; b++)
            for (int k = 0; k < 2; k++) {
                int at = b * (3 + t) + k;
                TCHECK(dst[at] == src[at], "thread %d iter %d: vector item %d is %d", t, i, at, dst[at]);
            }
        LC_MPI(MPI_Type_free(&st));
        LC_MPI(MPI_Type_free(&vec));

        /* info and groups */
        MPI_Info info;
        LC_MPI(MPI_Info_create(&info));
        char val[32];
        snprintf(val, sizeof val, "%d", i * 10 + t);
        LC_MPI(MPI_Info_set(info, "locus_test", val));
        char got[32] = "";
        LC_MPI(MPI_Info_get_string(info, "locus_test", &(int){ sizeof got }, got, &flag));
        TCHECK(flag && !strcmp(got, val), "thread %d iter %d: info value '%s'", t, i, got);
        LC_MPI(MPI_Info_free(&info));
        MPI_Group g, h;
        LC_MPI(MPI_Comm_group(base, &g));
        int r0 = 0;
        LC_MPI(MPI_Group_incl(g, 1, &r0, &h));
        int hs;
        MPI_Group_size(h, &hs);
        TCHECK(hs == 1, "thread %d: group size %d", t, hs);
        LC_MPI(MPI_Group_free(&h));
        LC_MPI(MPI_Group_free(&g));
    }
    LC_MPI(MPI_Comm_free_keyval(&key));
    return NULL;
}

int main(int argc, char **argv)
{
    lc_threads_init(&argc, &argv);
    rank = lc_world_rank();
    size = lc_world_size();
    nthreads = lc_threads_count(argc, argv, 3, MAXT);
    for (int t = 0; t < nthreads; t++) LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    lc_threads_run(nthreads, body);
    for (int t = 0; t < nthreads; t++) {
        /* one delete per set value: by delete_attr of d, and by the free of dd */
        TCHECK(deletes[t] == 2 * ITERS, "thread %d: %d delete callbacks, expected %d", t, deletes[t], 2 * ITERS);
        LC_MPI(MPI_Comm_free(&comms[t]));
    }
    return lc_threads_finish();
}
