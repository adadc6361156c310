/* SPDX-License-Identifier: BSD-3-Clause */
/* PMI client: how a Locus process learns its rank, size and job name and
 * exchanges small key/value records with its peers at MPI_Init.
 *
 * Speaks the PMI-1 wire protocol (lc_pmi_wire.h) to whatever launched the
 * process:
 *   - PMI_FD=n (+ PMI_RANK, PMI_SIZE): an inherited connected socket, as
 *     MPICH's hydra and Locus's own mpiexec give it;
 *   - PMI_PORT=host:port (+ PMI_ID): connect by TCP first and introduce
 *     ourselves with `cmd=initack pmiid=N`, as hydra's -pmi-port does;
 *   - neither: a singleton (rank 0 of 1, kvsname "single<pid>"); puts and
 *     gets are served from a table in this process.
 *
 * Calls are blocking; one request and its reply are kept together by a
 * mutex, so the calls made after MPI_Init (names, spawn, gets) may come
 * from several threads; init, fence and finalize run single-threaded.  All functions return 0 on success
 * and -1 (LC_ERROR in util/lc_error.h's vocabulary) on error, after
 * printing one line saying why on stderr; lc_pmi_get also says, without a
 * message, that a key is missing (LC_PMI_NO_KEY).
 *
 * Limits: keys shorter than LC_PMI_KEY_MAX (64) characters, values shorter
 * than LC_PMI_VALUE_MAX (1024), neither containing spaces or newlines
 * (PMI-1 cannot carry them); keys also no '=' or ';'.
 */
#ifndef LC_PMI_H
#define LC_PMI_H

#include <stddef.h>

#include "pmi/lc_pmi_wire.h"

typedef struct lc_pmi_info {
    int  rank;
    int  size;
    int  appnum;    /* 0 for the first (only) executable; -1 if unknown */
    int  singleton; /* 1: started without a launcher */
    char kvsname[LC_PMI_KVSNAME_MAX];
} lc_pmi_info_t;

/* Connect to the launcher (or become a singleton) and fill *info_p. */
int lc_pmi_init(lc_pmi_info_t *info_p);
/* The job's size the launcher put in the environment (PMI_SIZE, set by
 * mpiexec for its ranks and for spawned ones alike), or 0 when it is not
 * there or not a number; needs no lc_pmi_init (MPI_INFO_ENV's "maxprocs"
 * before MPI_Init). */
int lc_pmi_env_size(void);

/* Publish key=value for every rank of the job (visible after the next
 * lc_pmi_fence).  Putting a key twice replaces its value. */
int lc_pmi_put(const char *key, const char *value);

/* Commit this rank's puts and wait for every rank: afterwards every
 * rank's puts made before its fence are visible to lc_pmi_get. */
int lc_pmi_fence(void);

/* Fetch the value another rank put.  src_rank is a hint (PMI-1 has one
 * flat key space and ignores it).  `len` is the size of `value`; a longer
 * value is an error.  Returns 0; LC_PMI_NO_KEY if nobody put the key,
 * with no message (the caller knows what its absence means); or -1 after
 * printing why. */
#define LC_PMI_NO_KEY (-2)
int lc_pmi_get(int src_rank, const char *key, char *value, size_t len);

/* The value of key `<prefix><r>` for each rank r of ranks[0..n)
 * (ascending), handed to fn(r, value, arg) in that order; value NULL: no
 * rank put that key.  Under Locus's mpiexec a few requests carry them all
 * (lc_getranks, docs/launcher.md "Bulk get": at 256 ranks, a handful
 * instead of 255 round trips); elsewhere one get per rank.  fn returns 0,
 * or -1 to stop (it says why).  Returns 0, or -1 (said why). */
typedef int (*lc_pmi_rank_fn)(int rank, const char *value, void *arg);
int lc_pmi_get_ranks(const char *prefix, const int *ranks, int n, lc_pmi_rank_fn fn, void *arg);

/* Longest lc_getranks reply the launcher sends; 0: not Locus's mpiexec
 * (or a singleton), lc_pmi_get_ranks gets key by key. */
size_t lc_pmi_bulk_max(void);

/* The same from the key space of job `kvsname` (NULL: ours) of the same
 * launch: a spawned process reads its parent job's keys, a parent its
 * children's (Locus's mpiexec serves it; read only).  Also callable after
 * MPI_Init from any thread. */
int lc_pmi_get_from(const char *kvsname, const char *key, char *value, size_t len);

/* The job's name service (MPI_Publish_name, MPI_Unpublish_name,
 * MPI_Lookup_name): service -> port, kept by the launcher (a singleton
 * keeps its own).  Each returns 0; LC_PMI_REFUSED when the launcher said
 * no (already published, not published, another port), with its one-word
 * reason in why[whylen]; or -1 after printing why.  lookup writes the
 * port into port[len].  Unlike the calls above these run after MPI_Init,
 * from any thread: a mutex keeps request and reply together. */
#define LC_PMI_REFUSED (-3)
int lc_pmi_name_publish(const char *service, const char *port, char *why, size_t whylen);
int lc_pmi_name_unpublish(const char *service, const char *port, char *why, size_t whylen);
int lc_pmi_name_lookup(const char *service, char *port, size_t len, char *why, size_t whylen);

/* Tell the launcher this job aborts with exit_code (msg may be NULL).
 * Returns; the caller then _exit()s.  The launcher ends the other ranks. */
int lc_pmi_abort(int exit_code, const char *msg);

/* Has the launcher closed our connection (it or its proxy died)?  A
 * poll with no wait, nothing consumed: 1 yes, 0 no (or no launcher). */
int lc_pmi_connection_lost(void);

/* Tell the launcher this rank leaves cleanly, and close the connection.
 * A rank that exits without it is treated as failed by the launcher. */
int lc_pmi_finalize(void);

#endif /* LC_PMI_H */
