/* mpiexec: Locus's local launcher.
 *
 * One single-threaded process runs the whole job:
 *
 *   options (mpiexec_options.c)  ->  launch (mpiexec_launch.c, mpiexec_bind.c)
 *        -> poll() loop (mpiexec_main.c) over
 *             - a self-pipe carrying signals (SIGCHLD, SIGINT, SIGTERM, SIGHUP),
 *             - each rank's PMI socket  (mpiexec_pmi_server.c, mpiexec_kvs.c),
 *             - each rank's stdout/stderr pipes and rank 0's stdin (mpiexec_io.c),
 *        -> fate: exits, aborts, ending the job, /dev/shm cleanup
 *           (mpiexec_fate.c).
 *
 * Invariants
 *  - Every rank is the leader of its own process group (so a terminal's
 *    Ctrl-C reaches mpiexec only, and killing -pid also reaches the rank's
 *    children).  mpiexec signals a group only while its leader is not yet
 *    reaped, so the id cannot have been reused.
 *  - Before a rank's exit is judged, its PMI socket and output pipes are
 *    drained: an abort message or a last line of output written before
 *    exit is always seen first.
 *  - mpiexec writes forwarded output one complete line per write (or
 *    writev), and it is the only writer of its stdout/stderr, so lines of
 *    different ranks never mix.
 */
#ifndef MPIEXEC_H
#define MPIEXEC_H

#include <sched.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "pmi/lc_pmi_wire.h"

#define MPIEXEC_IO_BUF   65536 /* longest line forwarded in one piece */
#define MPIEXEC_KILL_GRACE_MS 1000 /* SIGTERM -> SIGKILL */
#define MPIEXEC_DRAIN_MS 200   /* output still open after the last exit */

typedef struct mpiexec_options {
    int    nprocs;       /* -n / -np */
    int    bind_core;    /* -bind-to core */
    int    prepend_rank; /* -prepend-rank / -l */
    int    ngenv;        /* -genv NAME VALUE pairs */
    char **genv_names;
    char **genv_values;
    char **argv;         /* program and its arguments (NULL-terminated) */
} mpiexec_options_t;

/* One output pipe of a rank, forwarded line by line to fd `target`. */
typedef struct mpiexec_stream {
    int    fd;           /* read end, -1 once closed */
    int    target;       /* 1 or 2 */
    int    rank;
    int    at_line_start;
    size_t len;
    char   buf[MPIEXEC_IO_BUF];
} mpiexec_stream_t;

typedef struct mpiexec_rank {
    int   rank;
    pid_t pid;           /* 0 until started */
    int   running;       /* started and not yet reaped */
    /* PMI connection */
    int   pmi_fd;        /* mpiexec's end, -1 once closed */
    int   pmi_version;   /* 0 before `cmd=init`, then 1 or 2 */
    int   pmi_inited;
    int   pmi_finalized;
    int   in_barrier;
    size_t pmi_len;
    char  pmi_in[LC_PMI2_PREFIX_LEN + LC_PMI_WIRE_MAX + 2];
    mpiexec_stream_t out, err;
} mpiexec_rank_t;

typedef struct mpiexec_kvs mpiexec_kvs_t;

typedef struct mpiexec_job {
    mpiexec_options_t opt;
    int             size;
    mpiexec_rank_t *ranks;
    char            kvsname[64];
    char           *program_path;   /* resolved executable */
    mpiexec_kvs_t  *kvs;            /* the job's key space (PMI put/get) */
    mpiexec_kvs_t  *node_attrs;     /* PMI-2 node attributes */
    int             nbarrier;       /* ranks waiting in barrier/fence */
    int             nrunning;
    /* stdin -> rank 0 */
    int             stdin_fd;       /* our 0 while we forward it, else -1 */
    int             rank0_stdin;    /* write end of rank 0's stdin, or -1 */
    size_t          stdin_len;
    char            stdin_buf[MPIEXEC_IO_BUF];
    /* fate */
    int             ending;         /* the job is being torn down */
    int             exit_code;      /* decided by the first failure */
    int             exit_code_set;
    int             killed_hard;    /* SIGKILL already sent */
    struct timespec kill_at;        /* when SIGTERM becomes SIGKILL */
    int             signal_pipe[2];
} mpiexec_job_t;

/* mpiexec_util.c */
void   mpiexec_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
long   mpiexec_ms_until(const struct timespec *t);
void   mpiexec_deadline(struct timespec *t, long ms);
int    mpiexec_write_all(int fd, const void *buf, size_t len);

/* mpiexec_options.c: 0 ok, 1 bad usage (message printed), 2 --help shown */
int    mpiexec_options_parse(int argc, char **argv, mpiexec_options_t *opt);

/* mpiexec_launch.c */
char  *mpiexec_launch_resolve(const char *prog); /* NULL + message if not runnable */
int    mpiexec_launch_all(mpiexec_job_t *job);

/* mpiexec_bind.c: CPU set of core (index % ncores) among the CPUs we may use */
int    mpiexec_bind_cpuset(int index, cpu_set_t *set_p);

/* mpiexec_kvs.c */
mpiexec_kvs_t *mpiexec_kvs_create(void);
void           mpiexec_kvs_destroy(mpiexec_kvs_t *kvs);
int            mpiexec_kvs_put(mpiexec_kvs_t *kvs, const char *key, const char *value);
const char    *mpiexec_kvs_get(const mpiexec_kvs_t *kvs, const char *key);

/* mpiexec_pmi_server.c */
void   mpiexec_pmi_readable(mpiexec_job_t *job, mpiexec_rank_t *r);
void   mpiexec_pmi_close(mpiexec_job_t *job, mpiexec_rank_t *r);

/* mpiexec_io.c */
void   mpiexec_io_init_stream(mpiexec_stream_t *s, int fd, int target, int rank);
void   mpiexec_io_readable(mpiexec_job_t *job, mpiexec_stream_t *s); /* reads once */
void   mpiexec_io_drain(mpiexec_job_t *job, mpiexec_stream_t *s);    /* reads what is there */
void   mpiexec_io_close(mpiexec_job_t *job, mpiexec_stream_t *s);    /* flush and close */
void   mpiexec_io_stdin_readable(mpiexec_job_t *job);
void   mpiexec_io_stdin_writable(mpiexec_job_t *job);
void   mpiexec_io_stdin_close(mpiexec_job_t *job);

/* mpiexec_fate.c */
void   mpiexec_fate_reap(mpiexec_job_t *job);
void   mpiexec_fate_abort(mpiexec_job_t *job, mpiexec_rank_t *r, long code, const char *msg);
void   mpiexec_fate_protocol_error(mpiexec_job_t *job, mpiexec_rank_t *r, const char *what);
void   mpiexec_fate_signal(mpiexec_job_t *job, int sig);
void   mpiexec_fate_end_job(mpiexec_job_t *job, int code);
void   mpiexec_fate_tick(mpiexec_job_t *job);
void   mpiexec_fate_cleanup_shm(const mpiexec_job_t *job);

#endif /* MPIEXEC_H */
