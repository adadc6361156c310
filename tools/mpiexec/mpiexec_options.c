/* SPDX-License-Identifier: BSD-3-Clause */
/* Command line of mpiexec.  Options come first; the first argument that is
 * not an option is the program, and everything after it belongs to the
 * program.  Options spelled as MPICH's hydra spells them, so scripts
 * written for `mpiexec.mpich` keep working. */
#include "mpiexec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MPIEXEC_NPROCS_MAX 4096

static void mpiexec_usage(FILE *f)
{
    fputs("Usage: mpiexec -n N [options] program [args...]\n"
          "\n"
          "Starts N processes of program on this host, or on the hosts named by\n"
          "-hosts or -f, and serves them PMI-1/PMI-2.\n"
          "\n"
          "  -n N, -np N            number of processes (1..4096; required without\n"
          "                         hosts, else the total number of slots)\n"
          "  -hosts H1[:S],H2[:S]   hosts and their slots (default 1 slot each)\n"
          "  -f FILE                host file: one host[:slots] a line, # comments\n"
          "                         (also -hostfile, -machinefile)\n"
          "  -ppn N                 N processes per host per round, whatever the slots\n"
          "  -usize N               universe size (MPI_UNIVERSE_SIZE): processes the run may hold\n"
          "  -launcher-exec AGENT   start remote proxies with `AGENT host command`\n"
          "                         (default: ssh -x)\n"
          "  -iface IFACE           tell remote hosts the address of interface IFACE\n"
          "                         (default: the address this host's name resolves to)\n"
          "  -genv NAME VALUE       set NAME=VALUE in every process's environment\n"
          "  -genvall               pass mpiexec's whole environment (the default)\n"
          "  -bind-to core|none     pin each process to one core of its host (default: none)\n"
          "  -prepend-rank, -l      prefix every output line with \"[rank] \"\n"
          "  -h, --help             this help\n"
          "\n"
          "Ranks are placed in blocks: each host's slots are filled in order, and\n"
          "the list starts over when N exceeds the slots.\n"
          "\n"
          "Exit code: the first failing process's exit code (128+S if killed by\n"
          "signal S), 1 for usage and launch errors and lost hosts, else 0.\n"
          "See docs/launcher.md.\n",
          f);
}

static int mpiexec_parse_nprocs(const char *s, int *n_p)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 1 || v > MPIEXEC_NPROCS_MAX) {
        mpiexec_say("invalid number of processes '%s' (expected 1..%d)", s, MPIEXEC_NPROCS_MAX);
        return -1;
    }
    *n_p = (int)v;
    return 0;
}

static int mpiexec_parse_ppn(const char *s, int *n_p)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 1 || v > MPIEXEC_NPROCS_MAX) {
        mpiexec_say("invalid -ppn '%s' (expected 1..%d)", s, MPIEXEC_NPROCS_MAX);
        return -1;
    }
    *n_p = (int)v;
    return 0;
}

/* Options that take one string argument: where it goes. */
static char **mpiexec_string_option(mpiexec_options_t *opt, const char *a)
{
    if (strcmp(a, "-hosts") == 0 || strcmp(a, "--hosts") == 0 || strcmp(a, "-host") == 0)
        return &opt->hosts;
    if (strcmp(a, "-f") == 0 || strcmp(a, "-hostfile") == 0 || strcmp(a, "--hostfile") == 0 ||
        strcmp(a, "-machinefile") == 0 || strcmp(a, "-machine") == 0)
        return &opt->hostfile;
    if (strcmp(a, "-launcher") == 0 || strcmp(a, "-bootstrap") == 0)
        return &opt->launcher;
    if (strcmp(a, "-launcher-exec") == 0 || strcmp(a, "-bootstrap-exec") == 0)
        return &opt->launcher_exec;
    if (strcmp(a, "-iface") == 0 || strcmp(a, "--iface") == 0)
        return &opt->iface;
    return NULL;
}

static int mpiexec_add_genv(mpiexec_options_t *opt, char *name, char *value)
{
    char **names = realloc(opt->genv_names, (size_t)(opt->ngenv + 1) * sizeof(char *));
    char **values;

    if (names == NULL)
        return -1;
    opt->genv_names = names;
    values = realloc(opt->genv_values, (size_t)(opt->ngenv + 1) * sizeof(char *));
    if (values == NULL)
        return -1;
    opt->genv_values = values;
    opt->genv_names[opt->ngenv] = name;
    opt->genv_values[opt->ngenv] = value;
    opt->ngenv++;
    return 0;
}

int mpiexec_options_parse(int argc, char **argv, mpiexec_options_t *opt)
{
    int i;

    memset(opt, 0, sizeof(*opt));
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (a[0] != '-')
            break;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "-help") == 0 || strcmp(a, "--help") == 0) {
            mpiexec_usage(stdout);
            return 2;
        }
        if (strcmp(a, "-n") == 0 || strcmp(a, "-np") == 0 || strcmp(a, "--n") == 0 ||
            strcmp(a, "--np") == 0) {
            if (i + 1 >= argc) {
                mpiexec_say("option %s needs a number of processes", a);
                return 1;
            }
            if (mpiexec_parse_nprocs(argv[++i], &opt->nprocs) != 0)
                return 1;
        } else if (strcmp(a, "-genv") == 0) {
            if (i + 2 >= argc) {
                mpiexec_say("option -genv needs NAME and VALUE");
                return 1;
            }
            if (argv[i + 1][0] == '\0' || strchr(argv[i + 1], '=') != NULL) {
                mpiexec_say("-genv: '%s' is not a valid environment variable name", argv[i + 1]);
                return 1;
            }
            if (mpiexec_add_genv(opt, argv[i + 1], argv[i + 2]) != 0) {
                mpiexec_say("out of memory");
                return 1;
            }
            i += 2;
        } else if (strcmp(a, "-genvall") == 0) {
            /* The environment is always passed whole; accepted for hydra scripts. */
        } else if (strcmp(a, "-bind-to") == 0 || strcmp(a, "--bind-to") == 0) {
            if (i + 1 >= argc) {
                mpiexec_say("option -bind-to needs 'core' or 'none'");
                return 1;
            }
            i++;
            if (strcmp(argv[i], "core") == 0 || strcmp(argv[i], "cores") == 0) {
                opt->bind_core = 1;
            } else if (strcmp(argv[i], "none") == 0) {
                opt->bind_core = 0;
            } else {
                mpiexec_say("-bind-to %s: unsupported binding (use 'core' or 'none')", argv[i]);
                return 1;
            }
        } else if (strcmp(a, "-prepend-rank") == 0 || strcmp(a, "-l") == 0) {
            opt->prepend_rank = 1;
        } else if (strcmp(a, "-usize") == 0 || strcmp(a, "--usize") == 0) {
            if (i + 1 >= argc) {
                mpiexec_say("option -usize needs a number of processes");
                return 1;
            }
            if (mpiexec_parse_nprocs(argv[++i], &opt->usize) != 0)
                return 1;
        } else if (strcmp(a, "-ppn") == 0 || strcmp(a, "--ppn") == 0) {
            if (i + 1 >= argc) {
                mpiexec_say("option -ppn needs a number of processes per host");
                return 1;
            }
            if (mpiexec_parse_ppn(argv[++i], &opt->ppn) != 0)
                return 1;
        } else if (mpiexec_string_option(opt, a) != NULL) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0') {
                mpiexec_say("option %s needs an argument", a);
                return 1;
            }
            *mpiexec_string_option(opt, a) = argv[++i];
        } else {
            mpiexec_say("unknown option '%s' (see mpiexec --help)", a);
            return 1;
        }
    }
    if (i >= argc) {
        mpiexec_say("no program to run (usage: mpiexec -n N program [args...])");
        return 1;
    }
    if (opt->nprocs == 0 && opt->hosts == NULL && opt->hostfile == NULL) {
        mpiexec_say("missing -n N: how many processes to start");
        return 1;
    }
    if (opt->hosts != NULL && opt->hostfile != NULL) {
        mpiexec_say("give either -hosts or -f, not both");
        return 1;
    }
    if (opt->launcher != NULL && strcmp(opt->launcher, "ssh") != 0 && strcmp(opt->launcher, "rsh") != 0) {
        mpiexec_say("-launcher %s: unsupported launcher (use ssh or rsh, or -launcher-exec AGENT)",
                    opt->launcher);
        return 1;
    }
    opt->argv = argv + i; /* argv is NULL-terminated by the C runtime */
    return 0;
}
