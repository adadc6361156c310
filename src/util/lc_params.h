/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_params.h — every tunable of Locus, declared once.
 *
 * The table in lc_params.c gives each parameter its name, type, default,
 * readers and help text.  The environment variable is LOCUS_<NAME>; the
 * values are read once into `lc_params` (by each rank at MPI_Init, by
 * mpiexec at start-up), `locus-info --params` prints the table and
 * `locus-info --params --markdown` writes docs/params.md from it, so a
 * default is never stated twice.  Nothing else in Locus reads a LOCUS_*
 * variable (the collective algorithm choices LOCUS_COLL_<NAME> come from
 * the selection table in src/coll/lc_coll_select.c).
 *
 * mpiexec links this file and lc_log.c and nothing else of Locus but the
 * PMI codec (test/layers checks it), so both stay free of any other layer
 * and of libraries beyond libc.
 */
#ifndef LC_PARAMS_H
#define LC_PARAMS_H

#include <stddef.h>
#include <stdio.h>

typedef enum lc_param_type {
    LC_PARAM_SIZE,    /* byte count; accepts suffixes k, m, g (binary); "auto" where that is the default */
    LC_PARAM_INT,
    LC_PARAM_BOOL,    /* 0/1, yes/no, on/off, true/false */
    LC_PARAM_ENUM,    /* one of the words in `choices` (stored as index) */
    LC_PARAM_STRING,  /* free text, stored in a char[LC_PARAM_STRING_MAX] */
} lc_param_type_t;

/* Who reads a parameter from the environment (a bit mask). */
enum {
    LC_PARAM_RANKS = 1,    /* the library, in every rank at MPI_Init */
    LC_PARAM_LAUNCHER = 2, /* mpiexec and its proxies on other hosts */
};

#define LC_PARAM_STRING_MAX 128

/* The value of a SIZE parameter whose default is "auto" and that was left
 * so (or set to "auto"): the library decides (e.g. CMA_THRESHOLD: measured
 * per pair, src/pt2pt/lc_pt2pt_pick.c). */
#define LC_PARAM_SIZE_AUTO ((size_t)-1)
/* The same for an INT parameter whose default is "auto" (e.g.
 * SHM_BIG_CELLS: chosen by the job's size, src/channel/lc_shm_space.c). */
#define LC_PARAM_INT_AUTO (-1L)

typedef enum lc_poll_mode {
    LC_POLL_AUTO = 0, /* spin while ranks <= usable cores, else yield */
    LC_POLL_SPIN = 1,
    LC_POLL_YIELD = 2,
    LC_POLL_SLEEP = 3, /* yield, then sleep on the doorbell (lc_progress_idle) */
} lc_poll_mode_t;

typedef struct lc_params {
    size_t eager_limit;       /* largest message sent eagerly (one shm cell) */
    size_t shm_cell_size;     /* bytes per cell of a rank's shared-memory send pool */
    long   shm_ring_cells;    /* cells per (sender, receiver) ring */
    size_t shm_ring_cell_size; /* bytes per ring cell (the latency path) */
    long   shm_pool_cells;    /* cells of each rank's send pool (cells of shm_cell_size bytes) */
    long   shm_big_cells;     /* big cells of each rank (pipeline fragments); LC_PARAM_INT_AUTO: by job size */
    size_t shm_big_cell_size; /* bytes per big cell */
    int    shm_big_nt;        /* big-cell fragments written with non-temporal stores (lc_copy_nt) */
    size_t cma_threshold;     /* rendezvous messages at least this big use CMA; LC_PARAM_SIZE_AUTO: calibrated */
    size_t cma_threshold_xnuma; /* the same for a pair on two NUMA nodes */
    size_t cma_split;           /* CMA pulls at least this big are split with the sender (0: never;
                                 * LC_PARAM_SIZE_AUTO: where the pick chose it) */
    size_t cma_split_chunk;   /* bytes per claim of the split copy */
    int    numa;              /* load the topology: NUMA node per rank, per-pair decisions */
    int    cma;               /* allow CMA single copy at all */
    size_t pipeline_chunk;    /* fragment size of the two-copy pipeline */
    int    poll_mode;         /* lc_poll_mode_t */
    int    async_progress;    /* a progress thread advances nonblocking operations (src/pt2pt/lc_async.c) */
    int    park_follow;       /* a parking thread moves to its poller's CPU for the wait (src/pt2pt/lc_park.c) */
    int    show_channels;     /* rank 0 prints the peer x channel matrix */
    int    show_init_times;   /* rank 0 prints MPI_Init's and MPI_Finalize's phases (lc_init_times.c) */
    int    quiet;             /* lc_log_warn prints nothing */
    int    debug;             /* report suspicious but legal use (unreceived messages) */
    char   shm_dir[LC_PARAM_STRING_MAX];      /* "" = POSIX shm (/dev/shm); else segment files here */
    int    net_force;         /* every non-self peer uses the network channel */
    long   net_block;         /* testing: ranks r, s are "other hosts" unless r/N == s/N */
    char   ivshmem[LC_PARAM_STRING_MAX];      /* "" = discover ivshmem PCI devices; "off"; PCI address or path */
    long   ivshmem_slots;     /* slots of a region this rank initialises */
    long   ivshmem_lease;     /* s after which an unrenewed slot may be reclaimed */
    char   boot_id[LC_PARAM_STRING_MAX];      /* testing: reported kernel identity (%b, %h) */
    char   ofi_provider[LC_PARAM_STRING_MAX]; /* fi_getinfo provider name; "" = libfabric's choice */
    char   ofi_iface[LC_PARAM_STRING_MAX];    /* fi_getinfo domain (tcp: interface); "" = first non-loopback */
    size_t ofi_eager_limit;   /* eager limit to network peers = payload of one ofi packet */
    long   ofi_credits;       /* packets in flight per (sender, receiver) pair */
    size_t ofi_rx_pool;       /* budget of the receive buffers; credits shrink to fit */
    long   ofi_tx_buffers;    /* send bounce buffers of the process */
    int    ofi_rma;           /* pull rendezvous data with fi_read where the provider offers FI_RMA */
    size_t ofi_rma_threshold; /* rendezvous messages at least this big are pulled with fi_read */
    size_t rma_am_max;        /* Win_create puts/gets to CMA peers: active messages up to it; AUTO: lc_rma_pick.c */
    int    rma_dyn_direct;    /* dynamic windows: CMA puts/gets checked against a shared region table */
    int    rma_cma_acc;       /* create/dynamic windows all CMA peers: accumulates by the origin under a shared lock */
    long   ofi_connect_timeout; /* s before a peer that accepts no packet is probed */
    long   net_timeout;       /* s of silence on a network connection before the job ends (0: never) */
    long   launch_timeout;    /* mpiexec: s for a remote proxy to connect back */
    int    pmi_stats;         /* mpiexec: print the PMI requests it answered, by command, at the end */
    int    rank_sessions;     /* mpiexec: each rank in a session of its own (setsid), as Hydra */
} lc_params_t;

extern lc_params_t lc_params;

typedef struct lc_param_desc {
    const char *name;          /* without the LOCUS_ prefix */
    lc_param_type_t type;
    size_t offset;             /* into lc_params_t */
    const char *default_value; /* as the user would write it */
    const char *choices;       /* LC_PARAM_ENUM: "a|b|c" */
    unsigned readers;          /* LC_PARAM_RANKS | LC_PARAM_LAUNCHER */
    const char *help;
    /* SIZE and INT rows with LC_PARAM_IN set: the values allowed (issue 12,
     * point 5).  A value out of [min, max], or not of the shape `in`
     * demands, is refused like one that does not parse. */
    long long min, max;
    unsigned in;               /* LC_PARAM_IN | LC_PARAM_POW2 | LC_PARAM_MUL64 | LC_PARAM_OR_0 */
} lc_param_desc_t;

enum {
    LC_PARAM_IN = 1,    /* min and max apply */
    LC_PARAM_POW2 = 2,  /* a power of two */
    LC_PARAM_MUL64 = 4, /* a multiple of 64 */
    LC_PARAM_OR_0 = 8,  /* 0 (off, automatic) is allowed besides [min, max] */
};

/*
 * Rows of lc_param_table, one per parameter: LC_PARAM_ROW_<TYPE>(name,
 * field of lc_params_t, default, [choices,] readers, help).  A row compiles only
 * when its field has the C type that the type's parser writes (SIZE:
 * size_t, INT: long, BOOL and ENUM: int, STRING: char[LC_PARAM_STRING_MAX]):
 * the _Generic has no default association, so a row naming a field of
 * another type is a compile error rather than a value written over its
 * neighbour (test/unit/params_row_type.sh checks that it stays one).
 */
#define LC_PARAM_FIELD(field, ctype_ptr) _Generic(&((lc_params_t *)0)->field, ctype_ptr: offsetof(lc_params_t, field))
#define LC_PARAM_ROW(name_, type_, offset_, default_, choices_, readers_, help_) \
    { .name = name_, .type = type_, .offset = offset_, .default_value = default_, .choices = choices_, \
      .readers = readers_, .help = help_ }
#define LC_PARAM_ROW_SIZE(name, field, dflt, readers, help) \
    LC_PARAM_ROW(name, LC_PARAM_SIZE, LC_PARAM_FIELD(field, size_t *), dflt, NULL, readers, help)
#define LC_PARAM_ROW_INT(name, field, dflt, readers, help) \
    LC_PARAM_ROW(name, LC_PARAM_INT, LC_PARAM_FIELD(field, long *), dflt, NULL, readers, help)
/* The same with the allowed values: min, max (inclusive) and shape flags. */
#define LC_PARAM_ROW_IN(name_, type_, offset_, default_, min_, max_, in_, readers_, help_) \
    { .name = name_, .type = type_, .offset = offset_, .default_value = default_, .choices = NULL, \
      .readers = readers_, .help = help_, .min = min_, .max = max_, .in = LC_PARAM_IN | (in_) }
#define LC_PARAM_ROW_SIZE_IN(name, field, dflt, min, max, in, readers, help) \
    LC_PARAM_ROW_IN(name, LC_PARAM_SIZE, LC_PARAM_FIELD(field, size_t *), dflt, min, max, in, readers, help)
#define LC_PARAM_ROW_INT_IN(name, field, dflt, min, max, in, readers, help) \
    LC_PARAM_ROW_IN(name, LC_PARAM_INT, LC_PARAM_FIELD(field, long *), dflt, min, max, in, readers, help)
#define LC_PARAM_ROW_BOOL(name, field, dflt, readers, help) \
    LC_PARAM_ROW(name, LC_PARAM_BOOL, LC_PARAM_FIELD(field, int *), dflt, NULL, readers, help)
#define LC_PARAM_ROW_ENUM(name, field, dflt, choices, readers, help) \
    LC_PARAM_ROW(name, LC_PARAM_ENUM, LC_PARAM_FIELD(field, int *), dflt, choices, readers, help)
#define LC_PARAM_ROW_STRING(name, field, dflt, readers, help) \
    LC_PARAM_ROW(name, LC_PARAM_STRING, LC_PARAM_FIELD(field, char(*)[LC_PARAM_STRING_MAX]), dflt, NULL, readers, \
                 help)

extern const lc_param_desc_t lc_param_table[];
extern const size_t lc_param_count;

/* Set every parameter to its default, then read LOCUS_<NAME> from the
 * environment for the rows whose readers include `readers`.  Returns 0,
 * or -1 after printing which variable has a bad value and what it
 * accepts (that parameter keeps its default). */
int lc_params_load_for(unsigned readers);
/* The values lc_params_load_for(readers) would give, into *p and without
 * a word (MPI_T reads them before MPI_Init, src/mpi/lc_mpit_cvar.c). */
void lc_params_read_env(lc_params_t *p, unsigned readers);
/* lc_params_load_for(LC_PARAM_RANKS): what MPI_Init and the unit tests read. */
int lc_params_load(void);
/* The row of LOCUS_<name>, or NULL. */
const lc_param_desc_t *lc_param_find(const char *name);
/* Put the row's default into its field of lc_params (for a caller that
 * finds a parsed value out of its range). */
void lc_param_set_default(const lc_param_desc_t *d);
/* The values a row allows, as text ("256..64m, a multiple of 64"; "" when
 * any value of its type is). */
void lc_param_allowed(const lc_param_desc_t *d, char *buf, size_t len);
/* "size", "int", "bool", "enum", "string". */
const char *lc_param_type_name(lc_param_type_t type);

/* Print the table (name, type, current value, default, help) to `out`. */
void lc_params_print(FILE *out);
/* docs/params.md, from the table alone (defaults, never the environment):
 * the rows of the index table "| variable | type | default | read by |",
 * and one section per parameter. */
void lc_params_print_markdown_index(FILE *out);
void lc_params_print_markdown(FILE *out);
/* "`a`, `b`, `c`" from "a|b|c" (also for LOCUS_COLL_<NAME>). */
void lc_params_print_choices_markdown(const char *choices, FILE *out);

#endif
