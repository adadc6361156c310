/* SPDX-License-Identifier: BSD-3-Clause */
/* mpiexec: Locus's launcher, on one host or across hosts.
 *
 * One single-threaded process runs the whole job:
 *
 *   options (mpiexec_options.c) -> placement (mpiexec_hosts.c)
 *     -> remote hosts: listen, start one proxy per host through the
 *        launcher agent (mpiexec_remote.c, mpiexec_agent.c, mpiexec_net.c)
 *     -> local ranks: fork (mpiexec_launch.c, mpiexec_spawn.c, mpiexec_bind.c)
 *     -> poll() loop (mpiexec_main.c) over
 *          - a self-pipe carrying signals (SIGCHLD, SIGINT, SIGTERM, SIGHUP),
 *          - each local rank's PMI socket (mpiexec_pmi_server.c, mpiexec_kvs.c),
 *          - each local rank's stdout/stderr pipes and rank 0's stdin (mpiexec_io.c),
 *          - the listening socket and one connection per proxy, which
 *            carries the remote ranks' PMI bytes, output and exits
 *            (mpiexec_frame.h),
 *     -> fate: exits, aborts, lost hosts, ending the job, /dev/shm cleanup
 *        (mpiexec_fate.c).
 *
 * A proxy (`mpiexec --proxy ...`, mpiexec_proxy.c) is the same binary on a
 * remote host: it forks that host's ranks, relays their PMI traffic and
 * output to mpiexec unchanged, reports their exits, and ends them when
 * told to or when mpiexec goes away.  The PMI server, the line-by-line
 * output and the fate rules are mpiexec's alone, so a remote rank behaves
 * exactly like a local one.
 *
 * Invariants
 *  - Every rank is the leader of its own process group (so a terminal's
 *    Ctrl-C reaches mpiexec only, and killing -pid also reaches the rank's
 *    children).  A group is signalled only while its leader is not yet
 *    reaped, so the id cannot have been reused.  Ranks get SIGKILL when
 *    the process that forked them (mpiexec or a proxy) dies.  mpiexec and
 *    the proxies are child subreapers: whatever a rank leaves behind is
 *    re-parented to them and killed when the job is over, so nothing of
 *    the job outlives it on any host.
 *  - Before a rank's exit is judged, its PMI socket and output pipes are
 *    drained: an abort message or a last line of output written before
 *    exit is always seen first.  A proxy drains them before it sends the
 *    exit, on the same connection, so the order survives the relay.
 *  - mpiexec writes forwarded output one complete line per write (or
 *    writev), and it is the only writer of its stdout/stderr, so lines of
 *    different ranks never mix.
 */
#ifndef MPIEXEC_H
#define MPIEXEC_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "pmi/lc_pmi_wire.h"
#include "util/lc_params.h"

#define MPIEXEC_IO_BUF   65536 /* longest line forwarded in one piece */
#define MPIEXEC_KILL_GRACE_MS 1000 /* SIGTERM -> SIGKILL */
#define MPIEXEC_ABORT_SETTLE_MS 300 /* an abort or exit waits this long for the failure behind it */
#define MPIEXEC_DRAIN_MS 200   /* output still open after the last exit */
#define MPIEXEC_HELLO_MS 5000  /* an accepted connection must finish the handshake */
#define MPIEXEC_BYE_MS   3000  /* proxies end, sweep and hang up at the end */

typedef struct mpiexec_options {
    int    nprocs;       /* -n / -np; 0 = not given */
    int    bind_core;    /* -bind-to core */
    int    prepend_rank; /* -prepend-rank / -l */
    int    ngenv;        /* -genv NAME VALUE pairs */
    char **genv_names;
    char **genv_values;
    char  *hosts;        /* -hosts h1[:n],h2[:n],... */
    char  *hostfile;     /* -f / -hostfile / -machinefile */
    int    ppn;          /* -ppn: ranks per host per round (0 = the slots) */
    int    usize;        /* -usize: universe size (0 = not given) */
    char  *launcher;     /* -launcher NAME (ssh, rsh) */
    char  *launcher_exec;/* -launcher-exec AGENT */
    char  *iface;        /* -iface IFACE */
    char **argv;         /* program and its arguments (NULL-terminated) */
} mpiexec_options_t;

/* A growable byte buffer: a queue (data[off..len) pending) or a builder. */
typedef struct mpiexec_buf {
    char  *data;
    size_t off, len, cap;
} mpiexec_buf_t;

/* One output stream of a rank (or of a launcher agent), forwarded line by
 * line to fd `target`.  Local streams read a pipe (fd); remote ones are
 * fed with what the proxy relays (fd -1). */
typedef struct mpiexec_stream {
    int    fd;           /* read end, or -1 (remote, or closed) */
    int    open;         /* more bytes may come */
    int    target;       /* 1 or 2 */
    int    rank;         /* -1: an agent's stream (no prefix) */
    int    jobid;        /* 0: the world; a spawned job's prefix is "[job:rank] " */
    int    at_line_start;
    size_t len;
    char   buf[MPIEXEC_IO_BUF];
} mpiexec_stream_t;

struct mpiexec_proxy;
struct mpiexec_pjob;
struct mpiexec_spawn_in;

typedef struct mpiexec_rank {
    int   rank;          /* in its job */
    struct mpiexec_pjob *pj; /* its job (the world or a spawned one) */
    int   appnum;        /* index of its command in the spawn request (0 in the world) */
    int   host;          /* index in job->hosts (a spawned process: 0, the only host of its job) */
    int   local_rank;    /* among the ranks of its host */
    struct mpiexec_proxy *proxy; /* NULL: forked by mpiexec itself */
    pid_t pid;           /* 0 until started (a remote rank: its pid there) */
    int   running;       /* started and not yet reaped / reported exited */
    /* PMI connection */
    int   pmi_fd;        /* local rank: mpiexec's end, -1 once closed */
    int   pmi_open;      /* requests may come and replies may go */
    int   pmi_version;   /* 0 before `cmd=init`, then 1 or 2 */
    int   pmi_inited;
    int   pmi_finalized;
    int   aborted;        /* called PMI abort: its exit is no further news */
    int   in_barrier;
    char  pmi_last[24];  /* its last PMI command (mpiexec_stuck.c says it) */
    struct mpiexec_spawn_in *spawn_in; /* a spawn request being received (mpiexec_spawn_job.c) */
    size_t pmi_len;
    char  pmi_in[LC_PMI2_PREFIX_LEN + LC_PMI_WIRE_MAX + 2];
    mpiexec_stream_t out, err;
} mpiexec_rank_t;

/* A host of the job: where some ranks run. */
typedef struct mpiexec_host {
    char *name;
    int   local;         /* this machine: its ranks are forked directly */
    int   nranks;
    int  *ranks;         /* global ranks placed here, in local-rank order */
    struct mpiexec_proxy *proxy; /* remote host: its proxy */
} mpiexec_host_t;

enum mpiexec_proxy_state {
    MPIEXEC_PROXY_STARTING,  /* agent started, no connection yet */
    MPIEXEC_PROXY_RUNNING,   /* connected, job sent */
    MPIEXEC_PROXY_ENDING,    /* END sent, waiting for it to hang up */
    MPIEXEC_PROXY_GONE       /* connection closed (or never made) */
};

/* mpiexec's side of one remote host's proxy. */
typedef struct mpiexec_proxy {
    int              host;          /* index in job->hosts */
    int              state;
    pid_t            agent_pid;     /* process group leader of the agent */
    int              agent_running; /* not yet reaped */
    int              agent_status;
    struct timespec  agent_exit_deadline; /* agent exited 0 before the proxy connected */
    int              agent_exited_early;
    mpiexec_stream_t agent_out, agent_err; /* the agent's own output, to our stderr */
    int              fd;            /* connection, -1 when none */
    int              write_errno;   /* a write failed: handled by the event loop */
    mpiexec_buf_t    out;           /* frames not yet written */
    mpiexec_buf_t    in;            /* bytes received, not yet a whole frame */
    uint8_t          key[32];       /* launch key (mpiexec_auth.h); wiped once the proxy is in */
    int              nrunning;      /* its ranks running */
    int              npending;      /* its ranks neither started nor failed */
    int              said_bye;
} mpiexec_proxy_t;

/* An accepted connection that has not proven who it is yet
 * (mpiexec_listen.c). */
enum mpiexec_conn_state {
    MPIEXEC_CONN_HELLO,     /* waiting for HELLO */
    MPIEXEC_CONN_PROOF      /* CHALLENGE sent, waiting for PROOF */
};

typedef struct mpiexec_conn {
    int             fd;
    int             state;
    uint32_t        index;           /* the host it claims to be the proxy of */
    unsigned long   seq;             /* accept order: lower is older */
    int             peer_family;     /* its address, to share the slots fairly */
    unsigned char   peer[16];
    mpiexec_buf_t   in;
    struct timespec deadline;        /* the handshake must be over by then */
    uint8_t         nonce_p[32], nonce_m[32];
} mpiexec_conn_t;

#define MPIEXEC_CONNS_MAX 64

typedef struct mpiexec_kvs mpiexec_kvs_t;

/* Most processes the run holds at once (the world and its spawned jobs). */
#define MPIEXEC_RUN_PROCS_MAX 4096

/* A PMI job of the run: the world (the command line's ranks) or one a rank
 * started with MPI_Comm_spawn.  PMI requests are answered per job: a
 * barrier counts that job's ranks, puts and gets go to its key space.
 * Spawned jobs run on mpiexec's host only, unbound, stdin /dev/null. */
typedef struct mpiexec_pjob {
    int             id;             /* 0: the world; then 1, 2, ... in spawn order */
    char            kvsname[80];
    int             size;
    mpiexec_rank_t *ranks;          /* [size]; the world's: job->ranks */
    mpiexec_kvs_t  *kvs;            /* the world's: job->kvs */
    mpiexec_kvs_t  *node_attrs;     /* PMI-2 node attributes */
    char           *process_mapping;
    int             nbarrier;       /* its ranks waiting in barrier/fence */
    int             cancelled;      /* a spawn that failed: its processes' exits are no news */
} mpiexec_pjob_t;

/* Kinds of PMI request counted for LOCUS_PMI_STATS. */
enum {
    MPIEXEC_PMI_GET,
    MPIEXEC_PMI_GETRANKS,
    MPIEXEC_PMI_PUT,
    MPIEXEC_PMI_FENCE,
    MPIEXEC_PMI_OTHER,
    MPIEXEC_PMI_KINDS
};

typedef struct mpiexec_job {
    mpiexec_options_t opt;
    int             size;
    mpiexec_rank_t *ranks;
    int             nhosts;
    mpiexec_host_t *hosts;
    int             nlocal;         /* ranks forked by mpiexec */
    char            kvsname[64];
    char           *program_path;   /* resolved executable (local ranks) */
    mpiexec_kvs_t  *kvs;            /* the job's key space (PMI put/get) */
    mpiexec_kvs_t  *node_attrs;     /* PMI-2 node attributes */
    mpiexec_kvs_t  *names;          /* MPI_Publish_name's service -> port */
    char           *process_mapping;/* PMI_process_mapping value */
    int             nrunning;       /* processes running, of every job */
    int             universe_size;  /* -usize, else the slots of the host list, at least size */
    /* jobs: [0] = &world, then the spawned ones (never removed before the end) */
    mpiexec_pjob_t  world;
    mpiexec_pjob_t **pjobs;
    int             npjobs;
    int             npending;       /* remote ranks neither started nor failed */
    /* remote hosts */
    int             nproxies;
    mpiexec_proxy_t *proxies;
    int             listen_fd;      /* open while a proxy is awaited */
    char            addr[64];       /* where proxies connect (and what we bind) */
    int             port;
    struct timespec launch_deadline;
    int             nconns;
    unsigned long   conn_seq;
    int             said_refused;   /* a wrong proof was reported (once) */
    mpiexec_conn_t  conns[MPIEXEC_CONNS_MAX];
    /* stdin -> rank 0 */
    int             stdin_fd;       /* our 0 while we forward it, else -1 */
    int             rank0_stdin;    /* local rank 0: write end of its stdin, or -1 */
    mpiexec_proxy_t *stdin_proxy;   /* remote rank 0: its proxy, or NULL */
    int             stdin_inflight; /* a chunk sent to the proxy, not yet acknowledged */
    size_t          stdin_len;
    char            stdin_buf[MPIEXEC_IO_BUF];
    /* fate */
    int             ending;         /* the job is being torn down */
    int             exit_code;      /* decided by the first failure */
    int             exit_code_set;
    int             killed_hard;    /* SIGKILL already sent */
    struct timespec kill_at;        /* when SIGTERM becomes SIGKILL */
    /* An abort or a non-zero exit held for MPIEXEC_ABORT_SETTLE_MS
     * (mpiexec_fate.c): its report and the exit code it decides. */
    int             abort_held;
    int             abort_exit_code;
    char            abort_text[1024];
    struct timespec abort_at;
    int             signal_pipe[2];
    /* PMI requests answered, by kind (LOCUS_PMI_STATS; mpiexec_pmi_server.c) */
    unsigned long pmi_count[MPIEXEC_PMI_KINDS];
} mpiexec_job_t;

/* mpiexec_util.c */
extern const char *mpiexec_say_prefix;            /* "mpiexec" */
extern void (*mpiexec_say_hook)(const char *text); /* set: messages go there */
void   mpiexec_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Read the LOCUS_* parameters mpiexec uses (the table's LC_PARAM_LAUNCHER
 * rows: lc_params.launch_timeout, lc_params.shm_dir) from the environment;
 * a bad value (also a launch timeout <= 0) keeps its default and, with
 * `report`, is reported through mpiexec_say. */
void   mpiexec_params_load(int report);
long   mpiexec_ms_until(const struct timespec *t);
void   mpiexec_deadline(struct timespec *t, long ms);
int    mpiexec_write_all(int fd, const void *buf, size_t len);
int    mpiexec_install_signals(int signal_pipe[2]);
void   mpiexec_adopt_orphans(void);
void   mpiexec_kill_orphans(void);
void   mpiexec_fix_std_fds(void);
/* In a forked child before exec: default dispositions for the signals
 * mpiexec handles or ignores, nothing blocked (ignored signals and the
 * mask survive exec). */
void   mpiexec_child_signals(void);
/* In a forked child before exec: every descriptor from 3 up becomes
 * close-on-exec (the caller then clears the flag on what it passes on
 * purpose), so a program started gets only what mpiexec gives it. */
void   mpiexec_child_cloexec_all(void);
int    mpiexec_buf_reserve(mpiexec_buf_t *b, size_t more);
int    mpiexec_buf_put(mpiexec_buf_t *b, const void *p, size_t n);
void   mpiexec_buf_consume(mpiexec_buf_t *b, size_t n);
void   mpiexec_buf_free(mpiexec_buf_t *b);
size_t mpiexec_buf_pending(const mpiexec_buf_t *b);
int    mpiexec_buf_write(int fd, mpiexec_buf_t *b); /* 0 (all or EAGAIN), -1 error */

/* mpiexec_options.c: 0 ok, 1 bad usage (message printed), 2 --help shown */
int    mpiexec_options_parse(int argc, char **argv, mpiexec_options_t *opt);

/* mpiexec_hosts.c: hosts, placement, PMI_process_mapping.  0 or -1 (message). */
int    mpiexec_hosts_place(mpiexec_job_t *job);

/* mpiexec_net.c */
int    mpiexec_net_listen(const char *addr, int *port_p);
int    mpiexec_net_iface_addr(const char *iface, char *buf, size_t len);
int    mpiexec_net_default_addr(char *buf, size_t len, int *loopback_p);
int    mpiexec_net_is_this_host(const char *name);
void   mpiexec_net_tune(int fd);
int    mpiexec_net_connect(const char *addr, const char *port, int timeout_ms);

/* mpiexec_spawn.c: fork and exec one rank. */
typedef struct mpiexec_spawn_req {
    const char  *path;       /* resolved program */
    char *const *argv;
    int          rank, size, local_rank, local_size;
    int          ngenv;      /* extra NAME=VALUE for the rank (-genv) */
    char       **genv_names;
    char       **genv_values;
    int          bind_core;  /* bind to core local_rank mod ncores */
    int          stdin_pipe; /* 1: stdin is a pipe (write end returned); 0: /dev/null */
    const char  *wdir;       /* working directory of the process, NULL: ours */
    char        *why;        /* not NULL: failures are written here instead of said */
    size_t       whylen;
} mpiexec_spawn_req_t;
typedef struct mpiexec_spawned {
    pid_t pid;
    int   pmi_fd, out_fd, err_fd, in_fd; /* our ends; in_fd -1 without stdin_pipe */
} mpiexec_spawned_t;
/* 0: running.  -1: nothing started.  1: forked, but exec failed (the child
 * exits 127 and must be reaped; no descriptors returned).  Messages printed. */
int    mpiexec_spawn(const mpiexec_spawn_req_t *req, mpiexec_spawned_t *res);

/* mpiexec_launch.c */
char  *mpiexec_launch_resolve(const char *prog); /* NULL + message if not runnable */
/* Full path of prog as execvp would find it, searching `path` (a PATH-like
 * list; NULL: our PATH); relative names are taken from wdir (NULL: our
 * directory).  NULL with why[] set (and *noent_p = 1 if nothing by that
 * name exists, 0 if it exists but cannot be run) if not runnable. */
char  *mpiexec_launch_find(const char *prog, const char *path, const char *wdir, char *why, size_t whylen,
                           int *noent_p);
int    mpiexec_launch_all(mpiexec_job_t *job);   /* the local ranks */

/* mpiexec_bind.c: CPU set of core (index % ncores) among the CPUs we may use */
int    mpiexec_bind_cpuset(int index, cpu_set_t *set_p);

/* mpiexec_kvs.c */
mpiexec_kvs_t *mpiexec_kvs_create(void);
void           mpiexec_kvs_destroy(mpiexec_kvs_t *kvs);
/* Insert, or replace a value the same owner put.  0 ok, -1 out of memory,
 * -2 the key belongs to another owner. */
int            mpiexec_kvs_put(mpiexec_kvs_t *kvs, const char *key, const char *value, int owner);
const char    *mpiexec_kvs_get(const mpiexec_kvs_t *kvs, const char *key);
/* Remove a key its owner put: 0, -1 no such key, -2 another owner's. */
int            mpiexec_kvs_delete(mpiexec_kvs_t *kvs, const char *key, int owner);

/* mpiexec_pmi_server.c */
void   mpiexec_pmi_readable(mpiexec_job_t *job, mpiexec_rank_t *r);  /* local rank */
void   mpiexec_pmi_feed(mpiexec_job_t *job, mpiexec_rank_t *r, const char *data, size_t len);
void   mpiexec_pmi_close(mpiexec_job_t *job, mpiexec_rank_t *r);
/* LOCUS_PMI_STATS: the requests answered, by kind, on stderr. */
void mpiexec_pmi_report(const mpiexec_job_t *job);
/* A reply of len bytes to r (relayed through its proxy if remote). */
void   mpiexec_pmi_send_bytes(mpiexec_job_t *job, mpiexec_rank_t *r, const char *buf, size_t len);
/* mpiexec_pmi_bulk.c: Locus's lc_getranks (lc_pmi_wire.h), answered. */
void   mpiexec_pmi_getranks(mpiexec_job_t *job, mpiexec_rank_t *r, const lc_pmi_msg_t *msg);

/* mpiexec_io.c */
void   mpiexec_io_init_stream(mpiexec_stream_t *s, int fd, int target, int rank);
void   mpiexec_io_readable(mpiexec_job_t *job, mpiexec_stream_t *s); /* reads once */
void   mpiexec_io_drain(mpiexec_job_t *job, mpiexec_stream_t *s);    /* reads what is there */
void   mpiexec_io_feed(mpiexec_job_t *job, mpiexec_stream_t *s, const char *data, size_t len);
void   mpiexec_io_close(mpiexec_job_t *job, mpiexec_stream_t *s);    /* flush and close */
void   mpiexec_io_stdin_readable(mpiexec_job_t *job);
void   mpiexec_io_stdin_writable(mpiexec_job_t *job);
void   mpiexec_io_stdin_close(mpiexec_job_t *job);
int    mpiexec_io_stdin_wanted(const mpiexec_job_t *job); /* poll our stdin now? */

/* mpiexec_remote.c: mpiexec's side of the proxies */
int    mpiexec_remote_prepare(mpiexec_job_t *job); /* listen, address, keys; 0 or -1 */
/* px proved who it is on fd (in: what it sent after the proof): it is in. */
void   mpiexec_remote_admit(mpiexec_job_t *job, mpiexec_proxy_t *px, int fd, mpiexec_buf_t *in);
int    mpiexec_remote_awaited(const mpiexec_proxy_t *px); /* its proxy may still connect */
void   mpiexec_remote_readable(mpiexec_job_t *job, mpiexec_proxy_t *px);
void   mpiexec_remote_writable(mpiexec_job_t *job, mpiexec_proxy_t *px);
void   mpiexec_remote_send(mpiexec_job_t *job, mpiexec_proxy_t *px, int type, int rank,
                           const void *data, size_t len);
void   mpiexec_remote_signal(mpiexec_job_t *job, int sig); /* all remote ranks */
long   mpiexec_remote_timeout(mpiexec_job_t *job); /* ms until the next deadline, -1 none */
void   mpiexec_remote_tick(mpiexec_job_t *job);    /* deadlines passed */
void   mpiexec_remote_end(mpiexec_job_t *job);     /* all ranks done: END to every proxy */
int    mpiexec_remote_done(const mpiexec_job_t *job); /* proxies hung up, agents reaped */
void   mpiexec_remote_finish(mpiexec_job_t *job);  /* stop what is left, free */
void   mpiexec_remote_cancel_pending(mpiexec_job_t *job, mpiexec_proxy_t *px);
const char *mpiexec_remote_ranks_text(const mpiexec_host_t *h); /* "ranks 2-3" */
const char *mpiexec_rank_where(const mpiexec_job_t *job, const mpiexec_rank_t *r);

/* mpiexec_listen.c: the listening socket and the connections that have not
 * proven who they are yet (the handshake of mpiexec_auth.h) */
void   mpiexec_listen_accept(mpiexec_job_t *job);
void   mpiexec_listen_conn_readable(mpiexec_job_t *job, int i);
long   mpiexec_listen_timeout(const mpiexec_job_t *job); /* ms until a handshake deadline, -1 none */
void   mpiexec_listen_tick(mpiexec_job_t *job);   /* drop connections past their deadline */
void   mpiexec_listen_update(mpiexec_job_t *job); /* close the listener once no proxy is awaited */
void   mpiexec_listen_close(mpiexec_job_t *job);

/* mpiexec_agent.c: the launcher agents that start the proxies */
int    mpiexec_agent_launch_all(mpiexec_job_t *job);
void   mpiexec_agent_kill(mpiexec_proxy_t *px, int sig);
int    mpiexec_agent_reaped(mpiexec_job_t *job, pid_t pid, int status); /* 1: was an agent */
void   mpiexec_agent_finish(mpiexec_job_t *job); /* end and reap what is left */

/* mpiexec_proxy.c: `mpiexec --proxy ADDR PORT HOST-INDEX` (key on stdin) */
int    mpiexec_proxy_main(int argc, char **argv);
/* mpiexec_proxy_job.c: the JOB frame, decoded (its environment set) */
typedef struct mpiexec_proxy_job {
    char      kvsname[LC_PMI_KVSNAME_MAX];
    uint32_t  size, flags;  /* flags: 1 bind to cores, 2 rank 0 reads mpiexec's stdin */
    char     *cwd;
    char    **argv;         /* NULL-terminated */
    int       nranks;
    int      *ranks;        /* this host's global ranks, increasing */
} mpiexec_proxy_job_t;
int    mpiexec_proxy_job_decode(const char *p, size_t len, mpiexec_proxy_job_t *job_p); /* 0 or -1 */
void   mpiexec_proxy_job_free(mpiexec_proxy_job_t *job);
/* mpiexec_proxy_connect.c: the proxy's connection to mpiexec, once both
 * proved they know the key: a tuned non-blocking socket, or -1 after a
 * message. */
int    mpiexec_proxy_connect(const char *addr, const char *port, uint32_t index, const char *host);

/* mpiexec_spawn_job.c: the run's jobs and PMI `spawn` (MPI_Comm_spawn) */
int    mpiexec_pjobs_init(mpiexec_job_t *job);  /* the world as job 0; 0 or -1 (message) */
void   mpiexec_pjobs_free(mpiexec_job_t *job);
/* "rank 3" for the world, "job 2 rank 0" for a spawned job (static buffer). */
const char *mpiexec_rank_name(const mpiexec_rank_t *r);
/* A `cmd=spawn_*` line from rank r: 1 when a reply was built in fmt
 * (buf[cap]), 0 when none is due yet. */
int    mpiexec_spawn_line(mpiexec_job_t *job, mpiexec_rank_t *r, const lc_pmi_msg_t *msg, lc_pmi_fmt_t *fmt,
                          char *buf, size_t cap);
void   mpiexec_spawn_in_free(mpiexec_rank_t *r);

/* mpiexec_fate.c */
void   mpiexec_fate_reap(mpiexec_job_t *job);
void   mpiexec_fate_rank_exited(mpiexec_job_t *job, mpiexec_rank_t *r, int status);
void   mpiexec_fate_abort(mpiexec_job_t *job, mpiexec_rank_t *r, long code, const char *msg);
void   mpiexec_fate_protocol_error(mpiexec_job_t *job, mpiexec_rank_t *r, const char *what);
void   mpiexec_fate_signal(mpiexec_job_t *job, int sig);
void   mpiexec_fate_end_job(mpiexec_job_t *job, int code);
void   mpiexec_fate_tick(mpiexec_job_t *job);
/* Remove what the job left in /dev/shm and in shm_dir (NULL: our
 * LOCUS_SHM_DIR), the ranks' LOCUS_SHM_DIR. */
void   mpiexec_fate_cleanup_shm(const char *kvsname, const char *shm_dir);
/* mpiexec_stuck.c: told to end the job by signal sig, say which processes
 * have not exited and what each is doing (PMI progress, /proc state). */
void   mpiexec_stuck_report(const mpiexec_job_t *job, int sig);

#endif /* MPIEXEC_H */
