/* SPDX-License-Identifier: BSD-3-Clause */
/* init_thread: MPI_Init_thread with the level named by argv[1]
 * (single|funneled|serialized|multiple).  The provided level must be a
 * valid level, MPI_Query_thread must report the same, the main thread is
 * MPI_Is_thread_main.  When MPI_THREAD_MULTIPLE is provided it is used:
 * two threads per rank exchange messages concurrently with the partner
 * rank (distinct tags) and see MPI_Is_thread_main false. */
#include "lc_test.h"
#include <pthread.h>

#define NTHREADS 2
#define NMSG 200

static const char *level_name(int l)
{
    switch (l) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    }
    return "(invalid level)";
}

typedef struct {
    int tid, rank, partner;
    int errs;
} thread_arg;

static void *exchange(void *p)
{
    thread_arg *a = p;
    int is_main = -1;
    MPI_Is_thread_main(&is_main);
    if (is_main != 0) {
        fprintf(stderr, "[rank %d] FAIL: MPI_Is_thread_main in thread %d gave %d\n", a->rank,
                a->tid, is_main);
        a->errs++;
    }
    for (int i = 0; i < NMSG; i++) {
        int out[4] = {a->rank, a->tid, i, lc_pattern(a->rank, i, a->tid)}, in[4] = {-1, -1, -1, -1};
        MPI_Status st;
        if (MPI_Sendrecv(out, 4, MPI_INT, a->partner, a->tid, in, 4, MPI_INT, a->partner, a->tid,
                         MPI_COMM_WORLD, &st) != MPI_SUCCESS) {
            a->errs++;
            break;
        }
        if (in[0] != a->partner || in[1] != a->tid || in[2] != i ||
            in[3] != lc_pattern(a->partner, i, a->tid) || st.MPI_TAG != a->tid) {
            if (a->errs++ < 5)
                fprintf(stderr,
                        "[rank %d] FAIL: thread %d message %d got {%d,%d,%d} tag %d, expected "
                        "{%d,%d,%d} tag %d\n",
                        a->rank, a->tid, i, in[0], in[1], in[2], st.MPI_TAG, a->partner, a->tid, i,
                        a->tid);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int required = MPI_THREAD_SINGLE;
    if (argc > 1) {
        if (!strcmp(argv[1], "single"))
            required = MPI_THREAD_SINGLE;
        else if (!strcmp(argv[1], "funneled"))
            required = MPI_THREAD_FUNNELED;
        else if (!strcmp(argv[1], "serialized"))
            required = MPI_THREAD_SERIALIZED;
        else if (!strcmp(argv[1], "multiple"))
            required = MPI_THREAD_MULTIPLE;
        else {
            fprintf(stderr, "usage: init_thread single|funneled|serialized|multiple\n");
            return 2;
        }
    }
    int provided = -1;
    LC_MPI(MPI_Init_thread(&argc, &argv, required, &provided));
    int rank = lc_world_rank(), size = lc_world_size();
    LC_CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
             provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE,
             "MPI_Init_thread(required=%s) provided invalid level %d", level_name(required),
             provided);
    int queried = -1;
    LC_MPI(MPI_Query_thread(&queried));
    LC_CHECK(queried == provided, "MPI_Query_thread gave %d, MPI_Init_thread provided %d", queried,
             provided);
    int is_main = -1;
    LC_MPI(MPI_Is_thread_main(&is_main));
    LC_CHECK(is_main == 1, "MPI_Is_thread_main in the main thread gave %d", is_main);

    /* every rank must report the same level */
    int lo = -1, hi = -1;
    LC_MPI(MPI_Allreduce(&provided, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    LC_MPI(MPI_Allreduce(&provided, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    LC_CHECK(lo == hi, "ranks disagree on the provided thread level: %d..%d", lo, hi);
    if (rank == 0)
        printf("required %s, provided %s\n", level_name(required), level_name(provided));

    if (provided == MPI_THREAD_MULTIPLE) {
        /* pairs (0,1), (2,3), ...; an odd last rank talks to itself */
        int partner = (rank ^ 1) < size ? (rank ^ 1) : rank;
        pthread_t th[NTHREADS];
        thread_arg args[NTHREADS];
        for (int t = 0; t < NTHREADS; t++) {
            args[t] = (thread_arg){t, rank, partner, 0};
            if (pthread_create(&th[t], NULL, exchange, &args[t]) != 0)
                LC_FATAL("pthread_create failed");
        }
        for (int t = 0; t < NTHREADS; t++) {
            pthread_join(th[t], NULL);
            lc_errs += args[t].errs;
        }
    }
    return lc_finish();
}
