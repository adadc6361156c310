/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_select.c — which algorithm runs each collective, and the entry
 * points of lc_coll.h that dispatch to it.
 *
 * Each collective has an ordered table of rules {algorithm, largest
 * message, communicator sizes}; the first rule that fits the call wins
 * and the last rule of every table fits everything.  Rules with an empty
 * size range are never chosen automatically: they name algorithms that
 * only the override reaches.  The override LOCUS_COLL_<NAME>=<algorithm>
 * (read once by lc_coll_init) forces one algorithm for every call;
 * every algorithm is correct for every call, so any choice is safe.
 *
 * The selection must come out the same on every rank, so the "message
 * size" of a rule is something every rank knows alike:
 *   bcast, reduce, allreduce, scan, exscan: the vector, in bytes;
 *   gather, scatter, allgather, alltoall: one rank's block, in bytes;
 *   allgatherv, reduce_scatter(_block): the whole vector, in bytes;
 *   gatherv, scatterv, alltoallv, barrier: 0 (only the communicator
 *   size can be used: ranks do not know each other's counts).
 */
#include "coll/lc_coll_impl.h"
#include "coll/lc_icoll.h"
#include "util/lc_params.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

typedef enum lc_coll_id {
    LC_COLL_BARRIER,
    LC_COLL_BCAST,
    LC_COLL_REDUCE,
    LC_COLL_ALLREDUCE,
    LC_COLL_GATHER,
    LC_COLL_GATHERV,
    LC_COLL_SCATTER,
    LC_COLL_SCATTERV,
    LC_COLL_ALLGATHER,
    LC_COLL_ALLGATHERV,
    LC_COLL_ALLTOALL,
    LC_COLL_ALLTOALLV,
    LC_COLL_REDUCE_SCATTER,
    LC_COLL_REDUCE_SCATTER_BLOCK,
    LC_COLL_SCAN,
    LC_COLL_EXSCAN,
    LC_COLL_COUNT
} lc_coll_id_t;

typedef union lc_coll_fn {
    lc_coll_barrier_fn *barrier;
    lc_coll_bcast_fn *bcast;
    lc_coll_reduce_fn *reduce;
    lc_coll_allreduce_fn *allreduce;
    lc_coll_gather_fn *gather;
    lc_coll_gatherv_fn *gatherv;
    lc_coll_scatter_fn *scatter;
    lc_coll_scatterv_fn *scatterv;
    lc_coll_allgather_fn *allgather;
    lc_coll_allgatherv_fn *allgatherv;
    lc_coll_alltoall_fn *alltoall;
    lc_coll_alltoallv_fn *alltoallv;
    lc_coll_reduce_scatter_fn *reduce_scatter;
    lc_coll_scan_fn *scan;
} lc_coll_fn_t;

typedef struct lc_coll_rule {
    const char *algorithm;
    size_t max_bytes;          /* applies to messages up to this size */
    int min_ranks, max_ranks;  /* and to communicators of this size */
    lc_coll_fn_t fn;
} lc_coll_rule_t;

#define KiB ((size_t)1024)
#define ANY_SIZE SIZE_MAX
#define ANY_RANKS 1, INT_MAX
#define BY_NAME_ONLY 0, 0, 0 /* never matches: only the override selects it */
/* Communicators where a rooted collective of short messages goes straight
 * between the root and each rank ("linear"): the root's p-1 eager sends
 * (or receives) cost less than a tree's log2 p hops up to here, and no
 * rank waits for a forwarder that may be descheduled when ranks outnumber
 * cores (docs/performance.md, coll4/coll8). */
#define SMALL_COMM 1, 16

/* Thresholds follow the usual cost models (latency-bound trees for short
 * messages, bandwidth-optimal rings and direct exchanges for long ones),
 * adjusted where a first measurement on one node disagreed: with
 * single-copy (CMA) transfers the binomial broadcast beat
 * scatter+allgather up to 2 MiB on 4 ranks.  Provisional: to be tuned with
 * bench/lc_osu_coll on machines that are not oversubscribed. */
/* Barrier: on small communicators fan-in/fan-out through rank 0, which
 * then leaves first, ahead of the rooted collective that usually follows
 * (lc_coll_barrier_linear.c); beyond, dissemination's log2 p rounds. */
static const lc_coll_rule_t lc_rules_barrier[] = {
    { "linear", ANY_SIZE, SMALL_COMM, { .barrier = lc_coll_barrier_linear } },
    { "dissemination", ANY_SIZE, ANY_RANKS, { .barrier = lc_coll_barrier_dissemination } },
};
static const lc_coll_rule_t lc_rules_bcast[] = {
    { "linear", 4 * KiB, SMALL_COMM, { .bcast = lc_coll_bcast_linear } },
    { "binomial", 512 * KiB, ANY_RANKS, { .bcast = lc_coll_bcast_binomial } },
    { "scatter_allgather", ANY_SIZE, 8, INT_MAX, { .bcast = lc_coll_bcast_scatter_allgather } },
    { "binomial", ANY_SIZE, ANY_RANKS, { .bcast = lc_coll_bcast_binomial } },
};
static const lc_coll_rule_t lc_rules_reduce[] = {
    { "linear", 4 * KiB, SMALL_COMM, { .reduce = lc_coll_reduce_linear } },
    { "binomial", 64 * KiB, ANY_RANKS, { .reduce = lc_coll_reduce_binomial } },
    { "scatter_gather", ANY_SIZE, ANY_RANKS, { .reduce = lc_coll_reduce_scatter_gather } },
};
static const lc_coll_rule_t lc_rules_allreduce[] = {
    { "recursive_doubling", 32 * KiB, ANY_RANKS, { .allreduce = lc_coll_allreduce_recursive_doubling } },
    /* At 2 ranks the ring (session 23) sends half the vector each way
     * twice, reduces half of it and copies nothing, against recursive
     * doubling's copy, whole exchange and whole reduction; but its two
     * rendezvous steps in a row cost more than that saves up to 256 KiB
     * (64-128 KiB: 1.4-2.3x slower in 7 alternated runs at load 12; 512
     * KiB and 1 MiB 1.5x faster). */
    { "recursive_doubling", 256 * KiB, 2, 2, { .allreduce = lc_coll_allreduce_recursive_doubling } },
    { "ring", ANY_SIZE, ANY_RANKS, { .allreduce = lc_coll_allreduce_ring } },
};
static const lc_coll_rule_t lc_rules_gather[] = {
    { "linear", 4 * KiB, SMALL_COMM, { .gather = lc_coll_gather_linear } },
    { "binomial", 4 * KiB, ANY_RANKS, { .gather = lc_coll_gather_binomial } },
    { "linear", ANY_SIZE, ANY_RANKS, { .gather = lc_coll_gather_linear } },
};
static const lc_coll_rule_t lc_rules_gatherv[] = {
    { "linear", ANY_SIZE, ANY_RANKS, { .gatherv = lc_coll_gatherv_linear } },
};
static const lc_coll_rule_t lc_rules_scatter[] = {
    { "linear", 4 * KiB, SMALL_COMM, { .scatter = lc_coll_scatter_linear } },
    { "binomial", 4 * KiB, ANY_RANKS, { .scatter = lc_coll_scatter_binomial } },
    { "linear", ANY_SIZE, ANY_RANKS, { .scatter = lc_coll_scatter_linear } },
};
static const lc_coll_rule_t lc_rules_scatterv[] = {
    { "linear", ANY_SIZE, ANY_RANKS, { .scatterv = lc_coll_scatterv_linear } },
};
static const lc_coll_rule_t lc_rules_allgather[] = {
    { "bruck", 8 * KiB, ANY_RANKS, { .allgather = lc_coll_allgather_bruck } },
    { "ring", ANY_SIZE, ANY_RANKS, { .allgather = lc_coll_allgather_ring } },
};
static const lc_coll_rule_t lc_rules_allgatherv[] = {
    { "ring", ANY_SIZE, ANY_RANKS, { .allgatherv = lc_coll_allgatherv_ring } },
};
static const lc_coll_rule_t lc_rules_alltoall[] = {
    { "linear", 4 * KiB, ANY_RANKS, { .alltoall = lc_coll_alltoall_linear } },
    { "pairwise", ANY_SIZE, ANY_RANKS, { .alltoall = lc_coll_alltoall_pairwise } },
};
static const lc_coll_rule_t lc_rules_alltoallv[] = {
    { "pairwise", ANY_SIZE, ANY_RANKS, { .alltoallv = lc_coll_alltoallv_pairwise } },
};
static const lc_coll_rule_t lc_rules_reduce_scatter[] = {
    /* At 2 ranks the ring is one exchange (reduce + scatterv: two steps). */
    { "reduce_scatterv", 16 * KiB, 3, INT_MAX, { .reduce_scatter = lc_coll_reduce_scatter_reduce_scatterv } },
    { "ring", ANY_SIZE, ANY_RANKS, { .reduce_scatter = lc_coll_reduce_scatter_ring } },
};
static const lc_coll_rule_t lc_rules_scan[] = {
    /* The chain is p-1 messages deep: it only saves bandwidth. */
    { "recursive_doubling", ANY_SIZE, ANY_RANKS, { .scan = lc_coll_scan_recursive_doubling } },
    { "linear", BY_NAME_ONLY, { .scan = lc_coll_scan_linear } },
};
static const lc_coll_rule_t lc_rules_exscan[] = {
    { "recursive_doubling", ANY_SIZE, ANY_RANKS, { .scan = lc_coll_exscan_recursive_doubling } },
    { "linear", BY_NAME_ONLY, { .scan = lc_coll_exscan_linear } },
};

typedef struct lc_coll_table {
    const char *name; /* override: LOCUS_COLL_<name> */
    const lc_coll_rule_t *rules;
    size_t n;
} lc_coll_table_t;

#define LC_TABLE(id, name, rules) [id] = { name, rules, LC_ARRAY_SIZE(rules) }
static const lc_coll_table_t lc_coll_tables[LC_COLL_COUNT] = {
    LC_TABLE(LC_COLL_BARRIER, "BARRIER", lc_rules_barrier),
    LC_TABLE(LC_COLL_BCAST, "BCAST", lc_rules_bcast),
    LC_TABLE(LC_COLL_REDUCE, "REDUCE", lc_rules_reduce),
    LC_TABLE(LC_COLL_ALLREDUCE, "ALLREDUCE", lc_rules_allreduce),
    LC_TABLE(LC_COLL_GATHER, "GATHER", lc_rules_gather),
    LC_TABLE(LC_COLL_GATHERV, "GATHERV", lc_rules_gatherv),
    LC_TABLE(LC_COLL_SCATTER, "SCATTER", lc_rules_scatter),
    LC_TABLE(LC_COLL_SCATTERV, "SCATTERV", lc_rules_scatterv),
    LC_TABLE(LC_COLL_ALLGATHER, "ALLGATHER", lc_rules_allgather),
    LC_TABLE(LC_COLL_ALLGATHERV, "ALLGATHERV", lc_rules_allgatherv),
    LC_TABLE(LC_COLL_ALLTOALL, "ALLTOALL", lc_rules_alltoall),
    LC_TABLE(LC_COLL_ALLTOALLV, "ALLTOALLV", lc_rules_alltoallv),
    LC_TABLE(LC_COLL_REDUCE_SCATTER, "REDUCE_SCATTER", lc_rules_reduce_scatter),
    LC_TABLE(LC_COLL_REDUCE_SCATTER_BLOCK, "REDUCE_SCATTER_BLOCK", lc_rules_reduce_scatter),
    LC_TABLE(LC_COLL_SCAN, "SCAN", lc_rules_scan),
    LC_TABLE(LC_COLL_EXSCAN, "EXSCAN", lc_rules_exscan),
};

/* A table may name one algorithm twice, for different sizes: true for the
 * first rule naming it, so that lists show each algorithm once. */
static bool lc_coll_rule_is_first_of_its_algorithm(const lc_coll_table_t *t, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (strcmp(t->rules[i].algorithm, t->rules[j].algorithm) == 0) return false;
    return true;
}

/* "auto|alg1|alg2": each algorithm of the table once. */
static void lc_coll_choices(const lc_coll_table_t *t, char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "auto");
    for (size_t i = 0; i < t->n; i++)
        if (lc_coll_rule_is_first_of_its_algorithm(t, i) && len < size)
            len += (size_t)snprintf(buf + len, size - len, "|%s", t->rules[i].algorithm);
}

void lc_coll_algorithms_print(FILE *out)
{
    for (int id = 0; id < LC_COLL_COUNT; id++) {
        const lc_coll_table_t *t = &lc_coll_tables[id];
        for (size_t i = 0; i < t->n; i++)
            if (lc_coll_rule_is_first_of_its_algorithm(t, i)) fprintf(out, "%s %s\n", t->name, t->rules[i].algorithm);
    }
}

static const char lc_coll_param_help[] =
    "Force this collective's algorithm; auto follows the selection table in src/coll/lc_coll_select.c.";

void lc_coll_params_print(FILE *out)
{
    for (int id = 0; id < LC_COLL_COUNT; id++) {
        const lc_coll_table_t *t = &lc_coll_tables[id];
        char choices[256], var[64];
        lc_coll_choices(t, choices, sizeof(choices));
        snprintf(var, sizeof(var), "LOCUS_COLL_%s", t->name);
        const char *now = getenv(var);
        fprintf(out, "%s (enum: %s) = %s  [default auto]\n    %s\n", var, choices, now && *now ? now : "auto",
                lc_coll_param_help);
    }
}

void lc_coll_params_print_markdown(FILE *out)
{
    fprintf(out, "## `LOCUS_COLL_<NAME>`\n\nenum, default `auto`; read by every rank at MPI_Init. One variable per "
                 "collective. %s A word that is not an algorithm of that collective is reported once and `auto` "
                 "used.\n\n| variable | choices |\n|---|---|\n", lc_coll_param_help);
    for (int id = 0; id < LC_COLL_COUNT; id++) {
        const lc_coll_table_t *t = &lc_coll_tables[id];
        char choices[256];
        lc_coll_choices(t, choices, sizeof(choices));
        fprintf(out, "| `LOCUS_COLL_%s` | ", t->name);
        lc_params_print_choices_markdown(choices, out);
        fprintf(out, " |\n");
    }
}

/* Set by lc_coll_init before any collective runs, read-only afterwards. */
static const lc_coll_rule_t *lc_coll_forced[LC_COLL_COUNT];

void lc_coll_init(void)
{
    lc_sched_init();
    for (int id = 0; id < LC_COLL_COUNT; id++) {
        const lc_coll_table_t *t = &lc_coll_tables[id];
        char var[64];
        snprintf(var, sizeof(var), "LOCUS_COLL_%s", t->name);
        const char *want = getenv(var);
        lc_coll_forced[id] = NULL;
        if (!want || !*want || strcasecmp(want, "auto") == 0) continue;
        for (size_t i = 0; i < t->n && !lc_coll_forced[id]; i++)
            if (strcasecmp(want, t->rules[i].algorithm) == 0) lc_coll_forced[id] = &t->rules[i];
        if (lc_coll_forced[id]) continue;
        char choices[256];
        lc_coll_choices(t, choices, sizeof(choices));
        if (lc_log_rank <= 0) /* every rank reads the same environment: say it once */
            lc_log_warn("%s=%s is not an algorithm of this collective (choices: %s); using the automatic choice",
                        var, want, choices);
    }
}

static const lc_coll_rule_t *lc_coll_pick(lc_coll_id_t id, size_t bytes, int ranks)
{
    if (lc_coll_forced[id]) return lc_coll_forced[id];
    const lc_coll_table_t *t = &lc_coll_tables[id];
    for (size_t i = 0; i < t->n; i++) {
        const lc_coll_rule_t *rule = &t->rules[i];
        if (bytes <= rule->max_bytes && ranks >= rule->min_ranks && ranks <= rule->max_ranks) return rule;
    }
    return &t->rules[0]; /* unreachable: every table ends with a catch-all */
}

/* Whether a reduction algorithm combines operands in rank order.  The
 * ring reduce-scatter does not (block b's reduction starts at rank b+1),
 * so the algorithms built on it take commutative operations only. */
static bool lc_coll_rule_keeps_order(lc_coll_id_t id, const lc_coll_rule_t *rule)
{
    switch (id) {
    case LC_COLL_REDUCE: return rule->fn.reduce != lc_coll_reduce_scatter_gather;
    case LC_COLL_ALLREDUCE: return rule->fn.allreduce != lc_coll_allreduce_ring;
    case LC_COLL_REDUCE_SCATTER:
    case LC_COLL_REDUCE_SCATTER_BLOCK: return rule->fn.reduce_scatter != lc_coll_reduce_scatter_ring;
    default: return true;
    }
}

/* lc_coll_pick for a reduction with `op`: a non-commutative operation
 * skips the rules (and an override) that would reorder its operands.
 * Commutativity is a property of the operation, the same on every rank,
 * so the choice still agrees everywhere.  The first rule of each table
 * keeps order. */
static const lc_coll_rule_t *lc_coll_pick_op(lc_coll_id_t id, size_t bytes, int ranks, MPI_Op op)
{
    const lc_coll_rule_t *rule = lc_coll_pick(id, bytes, ranks);
    if (lc_likely(lc_coll_rule_keeps_order(id, rule)) || lc_op_commutative(op)) return rule;
    const lc_coll_table_t *t = &lc_coll_tables[id];
    for (size_t i = 0; i < t->n; i++) {
        rule = &t->rules[i];
        if (bytes <= rule->max_bytes && ranks >= rule->min_ranks && ranks <= rule->max_ranks &&
            lc_coll_rule_keeps_order(id, rule))
            return rule;
    }
    return &t->rules[0];
}

/* ---- entry points ------------------------------------------------------- */
/* A collective that moves no data on any rank returns at once: every rank
 * computes the same "nothing to do" from arguments all ranks share.
 * While lc_coll_capture is set (the MPI layer starting a nonblocking or
 * persistent collective), the chosen rule's schedule is built instead of
 * running it: one table decides for both (src/coll/lc_icoll.h). */

/* The capturing schedule, taken (so that it builds exactly one call). */
static inline lc_sched_t *lc_coll_take_capture(void)
{
    lc_sched_t *s = lc_coll_capture;
    lc_coll_capture = NULL;
    return s;
}
#define LC_CAPTURE(build)                                \
    do {                                                 \
        if (lc_unlikely(lc_coll_capture != NULL)) {      \
            lc_sched_t *s_ = lc_coll_take_capture();     \
            return build;                                \
        }                                                \
    } while (0)

/* LC_CAPTURE through the communicator's memo of schedules (lc_sched.h):
 * a hit builds nothing (lc_icoll_end runs the memoized schedule). */
#define LC_CAPTURE_MEMO(id, sb, rb, cnt, dt_, op_, root_, build)                                                   \
    do {                                                                                                           \
        if (lc_unlikely(lc_coll_capture != NULL)) {                                                                \
            lc_sched_t *s_ = lc_coll_take_capture();                                                               \
            lc_sched_key_t k_ = { .rule = rule, .sbuf = (sb), .rbuf = (rb), .count = (cnt), .dt = (dt_),           \
                                  .op = (op_), .root = (root_), .coll = (id) };                                    \
            bool hit_;                                                                                             \
            bool memo_ = lc_sched_memo_find(s_, &k_, &hit_);                                                       \
            if (hit_) return MPI_SUCCESS;                                                                          \
            int rc_ = build;                                                                                       \
            if (memo_ && rc_ == MPI_SUCCESS) lc_sched_memo_keep(s_, &k_);                                          \
            return rc_;                                                                                            \
        }                                                                                                          \
    } while (0)

int lc_coll_barrier(lc_comm_t *comm)
{
    const lc_coll_rule_t *rule = lc_coll_pick(LC_COLL_BARRIER, 0, comm->size);
    LC_CAPTURE_MEMO(LC_COLL_BARRIER, NULL, NULL, 0, MPI_DATATYPE_NULL, MPI_OP_NULL, 0,
                    lc_icoll_barrier(s_, rule->algorithm, comm));
    return rule->fn.barrier(comm);
}

int lc_coll_bcast(void *buf, size_t count, MPI_Datatype dt, int root, lc_comm_t *comm)
{
    size_t bytes = count * lc_dtype_size(dt);
    if (bytes == 0 || comm->size == 1) return MPI_SUCCESS;
    const lc_coll_rule_t *rule = lc_coll_pick(LC_COLL_BCAST, bytes, comm->size);
    LC_CAPTURE_MEMO(LC_COLL_BCAST, NULL, buf, bytes, MPI_DATATYPE_NULL, MPI_OP_NULL, root,
                    lc_icoll_bcast(s_, rule->algorithm, buf, bytes, root, comm));
    return rule->fn.bcast(buf, bytes, root, comm);
}

int lc_coll_reduce(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, int root,
                   lc_comm_t *comm)
{
    size_t bytes = count * lc_dtype_size(dt);
    if (bytes == 0) return MPI_SUCCESS;
    const lc_coll_rule_t *rule = lc_coll_pick_op(LC_COLL_REDUCE, bytes, comm->size, op);
    LC_CAPTURE_MEMO(LC_COLL_REDUCE, sbuf, rbuf, count, dt, op, root,
                    lc_icoll_reduce(s_, rule->algorithm, sbuf, rbuf, count, dt, op, root, comm));
    return rule->fn.reduce(sbuf, rbuf, count, dt, op, root, comm);
}

int lc_coll_allreduce(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm)
{
    size_t bytes = count * lc_dtype_size(dt);
    if (bytes == 0) return MPI_SUCCESS;
    const lc_coll_rule_t *rule = lc_coll_pick_op(LC_COLL_ALLREDUCE, bytes, comm->size, op);
    LC_CAPTURE_MEMO(LC_COLL_ALLREDUCE, sbuf, rbuf, count, dt, op, 0,
                    lc_icoll_allreduce(s_, rule->algorithm, sbuf, rbuf, count, dt, op, comm));
    return rule->fn.allreduce(sbuf, rbuf, count, dt, op, comm);
}

int lc_coll_gather(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                   int root, lc_comm_t *comm)
{
    bool is_root = comm->rank == root;
    /* Receive arguments count only at the root, send arguments not at an
     * in-place root. */
    size_t sbytes = sbuf == MPI_IN_PLACE ? 0 : scount * lc_dtype_size(sdt);
    size_t rbytes = is_root ? rcount * lc_dtype_size(rdt) : 0;
    size_t block = is_root ? rbytes : sbytes;
    if (block == 0) return MPI_SUCCESS;
    const lc_coll_rule_t *rule = lc_coll_pick(LC_COLL_GATHER, block, comm->size);
    LC_CAPTURE(lc_icoll_gather(s_, rule->algorithm, sbuf, sbytes, rbuf, rbytes, root, comm));
    return rule->fn.gather(sbuf, sbytes, rbuf, rbytes, root, comm);
}

int lc_coll_gatherv(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, const lc_vec_t *rv,
                    MPI_Datatype rdt, int root, lc_comm_t *comm)
{
    bool is_root = comm->rank == root;
    size_t sbytes = sbuf == MPI_IN_PLACE ? 0 : scount * lc_dtype_size(sdt);
    size_t resize = is_root ? lc_dtype_size(rdt) : 0;
    const lc_coll_rule_t *rule = lc_coll_pick(LC_COLL_GATHERV, 0, comm->size);
    LC_CAPTURE(lc_icoll_gatherv(s_, rule->algorithm, sbuf, sbytes, rbuf, rv, resize, root, comm));
    return rule->fn.gatherv(sbuf, sbytes, rbuf, rv, resize, root, comm);
}

int lc_coll_scatter(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                    int root, lc_comm_t *comm)
{
    bool is_root = comm->rank == root;
    size_t sbytes = is_root ? scount * lc_dtype_size(sdt) : 0;
    size_t rbytes = rbuf == MPI_IN_PLACE ? 0 : rcount * lc_dtype_size(rdt);
    size_t block = is_root ? sbytes : rbytes;
    if (block == 0) return MPI_SUCCESS;
    const lc_coll_rule_t *rule = lc_coll_pick(LC_COLL_SCATTER, block, comm->size);
    LC_CAPTURE(lc_icoll_scatter(s_, rule->algorithm, sbuf, sbytes, rbuf, rbytes, root, comm));
    return rule->fn.scatter(sbuf, sbytes, rbuf, rbytes, root, comm);
}

int lc_coll_scatterv(const void *sbuf, const lc_vec_t *sv, MPI_Datatype sdt, void *rbuf,
                     size_t rcount, MPI_Datatype rdt, int root, lc_comm_t *comm)
{
    bool is_root = comm->rank == root;
    size_t sesize = is_root ? lc_dtype_size(sdt) : 0;
    size_t rbytes = rbuf == MPI_IN_PLACE ? 0 : rcount * lc_dtype_size(rdt);
    const lc_coll_rule_t *rule = lc_coll_pick(LC_COLL_SCATTERV, 0, comm->size);
    LC_CAPTURE(lc_icoll_scatterv(s_, rule->algorithm, sbuf, sv, sesize, rbuf, rbytes, root, comm));
    return rule->fn.scatterv(sbuf, sv, sesize, rbuf, rbytes, root, comm);
}

int lc_coll_allgather(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount,
                      MPI_Datatype rdt, lc_comm_t *comm)
{
    size_t sbytes = sbuf == MPI_IN_PLACE ? 0 : scount * lc_dtype_size(sdt);
    size_t rbytes = rcount * lc_dtype_size(rdt);
    if (rbytes == 0) return MPI_SUCCESS;
    const lc_coll_rule_t *rule = lc_coll_pick(LC_COLL_ALLGATHER, rbytes, comm->size);
    LC_CAPTURE(lc_icoll_allgather(s_, rule->algorithm, sbuf, sbytes, rbuf, rbytes, comm));
    return rule->fn.allgather(sbuf, sbytes, rbuf, rbytes, comm);
}

int lc_coll_allgatherv(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, const lc_vec_t *rv,
                       MPI_Datatype rdt, lc_comm_t *comm)
{
    size_t sbytes = sbuf == MPI_IN_PLACE ? 0 : scount * lc_dtype_size(sdt);
    size_t resize = lc_dtype_size(rdt), total = lc_vec_total(rv, comm->size);
    if (total * resize == 0) return MPI_SUCCESS;
    const lc_coll_rule_t *rule = lc_coll_pick(LC_COLL_ALLGATHERV, total * resize, comm->size);
    LC_CAPTURE(lc_icoll_allgatherv(s_, rule->algorithm, sbuf, sbytes, rbuf, rv, resize, comm));
    return rule->fn.allgatherv(sbuf, sbytes, rbuf, rv, resize, comm);
}

int lc_coll_alltoall(const void *sbuf, size_t scount, MPI_Datatype sdt, void *rbuf, size_t rcount,
                     MPI_Datatype rdt, lc_comm_t *comm)
{
    size_t sbytes = sbuf == MPI_IN_PLACE ? 0 : scount * lc_dtype_size(sdt);
    size_t rbytes = rcount * lc_dtype_size(rdt);
    if (rbytes == 0) return MPI_SUCCESS;
    const lc_coll_rule_t *rule = lc_coll_pick(LC_COLL_ALLTOALL, rbytes, comm->size);
    LC_CAPTURE(lc_icoll_alltoall(s_, rule->algorithm, sbuf, sbytes, rbuf, rbytes, comm));
    return rule->fn.alltoall(sbuf, sbytes, rbuf, rbytes, comm);
}

int lc_coll_alltoallv(const void *sbuf, const lc_vec_t *sv, MPI_Datatype sdt, void *rbuf, const lc_vec_t *rv,
                      MPI_Datatype rdt, lc_comm_t *comm)
{
    size_t sesize = sbuf == MPI_IN_PLACE ? 0 : lc_dtype_size(sdt);
    const lc_coll_rule_t *rule = lc_coll_pick(LC_COLL_ALLTOALLV, 0, comm->size);
    LC_CAPTURE(lc_icoll_alltoallv(s_, rule->algorithm, sbuf, sv, sesize, rbuf, rv, lc_dtype_size(rdt), comm));
    return rule->fn.alltoallv(sbuf, sv, sesize, rbuf, rv, lc_dtype_size(rdt), comm);
}

int lc_coll_reduce_scatter(const void *sbuf, void *rbuf, const lc_vec_t *rv, MPI_Datatype dt, MPI_Op op,
                           lc_comm_t *comm)
{
    size_t bytes = lc_vec_total(rv, comm->size) * lc_dtype_size(dt);
    if (bytes == 0) return MPI_SUCCESS;
    const lc_coll_rule_t *rule = lc_coll_pick_op(LC_COLL_REDUCE_SCATTER, bytes, comm->size, op);
    LC_CAPTURE(lc_icoll_reduce_scatter(s_, rule->algorithm, sbuf, rbuf, rv, dt, op, comm));
    return rule->fn.reduce_scatter(sbuf, rbuf, rv, dt, op, comm);
}

int lc_coll_reduce_scatter_block(const void *sbuf, void *rbuf, size_t rcount, MPI_Datatype dt, MPI_Op op,
                                 lc_comm_t *comm)
{
    size_t bytes = rcount * (size_t)comm->size * lc_dtype_size(dt);
    if (bytes == 0) return MPI_SUCCESS;
    lc_vec_t uniform = { .counts = NULL, .displs = NULL, .uniform = rcount, .wide = false };
    const lc_coll_rule_t *rule = lc_coll_pick_op(LC_COLL_REDUCE_SCATTER_BLOCK, bytes, comm->size, op);
    LC_CAPTURE(lc_icoll_reduce_scatter(s_, rule->algorithm, sbuf, rbuf, &uniform, dt, op, comm));
    return rule->fn.reduce_scatter(sbuf, rbuf, &uniform, dt, op, comm);
}

int lc_coll_scan(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm)
{
    size_t bytes = count * lc_dtype_size(dt);
    if (bytes == 0) return MPI_SUCCESS;
    const lc_coll_rule_t *rule = lc_coll_pick(LC_COLL_SCAN, bytes, comm->size);
    LC_CAPTURE(lc_icoll_scan(s_, rule->algorithm, sbuf, rbuf, count, dt, op, comm));
    return rule->fn.scan(sbuf, rbuf, count, dt, op, comm);
}

int lc_coll_exscan(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm)
{
    size_t bytes = count * lc_dtype_size(dt);
    if (bytes == 0) return MPI_SUCCESS;
    const lc_coll_rule_t *rule = lc_coll_pick(LC_COLL_EXSCAN, bytes, comm->size);
    LC_CAPTURE(lc_icoll_exscan(s_, rule->algorithm, sbuf, rbuf, count, dt, op, comm));
    return rule->fn.scan(sbuf, rbuf, count, dt, op, comm);
}
