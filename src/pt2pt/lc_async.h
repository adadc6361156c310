/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_async.h — the asynchronous progress thread (LOCUS_ASYNC_PROGRESS).
 * docs/architecture.md "Asynchronous progress".
 */
#ifndef LC_ASYNC_H
#define LC_ASYNC_H

/* Start the thread when LOCUS_ASYNC_PROGRESS asks for it (once, at the
 * end of the runtime's start-up, while the calling thread is the only
 * one in MPI); from then on every MPI call takes the critical section.
 * Returns 1 when the thread runs. */
int lc_async_start(void);

/* Stop and join it (MPI_Finalize / the last MPI_Session_finalize, from
 * inside the critical section: it is left while joining). */
void lc_async_stop(void);

#endif
