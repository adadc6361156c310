/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_user.c — the user's requests of one-sided operations (MPI_Rput,
 * MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate) on the active-message
 * path, completed by their answers (lc_rma_am.c posts the answer's
 * receive with the hook lc_rma_user_hook gives).
 */
#include "datatype/lc_dt.h"
#include "rma/lc_rma_impl.h"

#include <stdlib.h>

/* A user request (MPI_Rput ...) completes with its answer: the answer's
 * receive carries a completion hook (lc_request_t.on_complete, argument
 * in `ext`, as buffered sends do) that completes it, so it is complete
 * as soon as its answer is in, whatever else is in flight, and no
 * progress pass has to look for it among the window's requests (which
 * made every pass O(requests in flight) while one was pending).  The
 * hook runs inside lc_request_complete: at MPI_THREAD_MULTIPLE in the
 * critical section (a request with a hook defers its completion to the
 * section's holder), the one the window's engine runs in. */
typedef struct lc_rma_user_unpack {
    lc_request_t *user;
    lc_rma_unpack_t unpack; /* the packed answer in `buf`, unpacked into the user's type */
    void *buf;
} lc_rma_user_unpack_t;

static void lc_rma_user_done(lc_request_t *answer)
{
    lc_request_t *user = answer->ext;
    user->st_error = answer->st_error; /* MPI_Wait reports a failed answer */
    lc_request_complete(user);         /* no hook of its own: no recursion */
}

/* ... with a derived result type: the answer lands packed and is
 * unpacked before the user's request completes. */
static void lc_rma_user_unpack_done(lc_request_t *answer)
{
    lc_rma_user_unpack_t *u = answer->ext;
    lc_dt_t *t = u->unpack.t;
    if (!answer->st_error)
        lc_dt_unpack(t, u->unpack.count, u->unpack.buf, 0, u->buf, (size_t)(u->unpack.count * t->size));
    lc_dt_release(t);
    u->user->st_error = answer->st_error;
    lc_request_complete(u->user);
    free(u->buf);
    free(u);
}

int lc_rma_user_hook(lc_request_t *user, void *result, const lc_rma_unpack_t *unpack,
                     void (**hook_p)(lc_request_t *), void **arg_p)
{
    *hook_p = lc_rma_user_done;
    *arg_p = user;
    if (unpack) {
        lc_rma_user_unpack_t *u = malloc(sizeof *u);
        if (!u) return lc_error(MPI_ERR_NO_MEM, "out of memory tracking a one-sided request");
        *u = (lc_rma_user_unpack_t){ user, *unpack, result };
        *hook_p = lc_rma_user_unpack_done;
        *arg_p = u;
    }
    return MPI_SUCCESS;
}

void lc_rma_user_unhook(void *arg, void (*hook)(lc_request_t *))
{
    if (hook != lc_rma_user_unpack_done) return;
    lc_rma_user_unpack_t *u = arg;
    free(u->buf);
    free(u);
}
