/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_f_spawn.c — MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE for Fortran
 * (hand-written: api/fortran_hints.txt marks them `handwritten`; the module
 * interfaces are still generated from the argv/argvs/strings kinds).
 *
 * Why by hand: the arguments are CHARACTER arrays, one hidden length for
 * all their elements (gfortran: size_t, after the explicit arguments, in
 * the order of the CHARACTER dummies).
 *   - ARGV(*): the arguments of the command, ended by the first blank
 *     element; MPI_ARGV_NULL (recognised by address) is C's NULL.
 *   - ARRAY_OF_COMMANDS(COUNT).
 *   - ARRAY_OF_ARGV(COUNT, *): column major, so ARRAY_OF_ARGV(I, J),
 *     argument J of command I, is element (J-1)*COUNT + I-1; each
 *     command's list ends at its first blank element; MPI_ARGVS_NULL is
 *     C's NULL.
 * Every element loses its trailing blanks (as MPICH does; leading and
 * inner blanks stay: "a b" is one argument).  ARRAY_OF_ERRCODES may be
 * MPI_ERRCODES_IGNORE (LC_F_ERRCODES).
 *
 * COMMAND, ARGV, COUNT, ARRAY_OF_COMMANDS, ARRAY_OF_ARGV, MAXPROCS and
 * INFO are significant at ROOT only: another rank may pass a short or
 * unterminated ARGV, or any COUNT, so only the root converts them (the C
 * function reads them at the root only, and gets NULLs elsewhere).  The
 * root is found with MPI_Comm_rank on COMM: on an intercommunicator that
 * is the local rank and the C call then refuses the communicator; a root
 * out of range matches no rank and the C call reports MPI_ERR_ROOT.  An
 * invalid COMM fails the rank query, which reports it (MPI_ERR_COMM,
 * through MPI_COMM_WORLD's handler, the one the C call would use); the C
 * call is then skipped so that the error is raised once, not twice.
 */
#include "lc_f_glue.h"

#include <stdbool.h>
#include <string.h>

static bool lc_f_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len && s[i] != '\0'; i++)
        if (s[i] != ' ') return false;
    return true;
}

static void lc_f_argv_free(char **v)
{
    if (!v) return;
    for (char **p = v; *p; p++) free(*p);
    free(v);
}

/* A NULL-terminated C argv from the elements a, a + stride, a + 2*stride
 * ... (each `len` chars) up to the first blank one; NULL when out of
 * memory. */
static char **lc_f_argv_in(const char *a, size_t len, size_t stride)
{
    size_t n = 0;
    while (len > 0 && !lc_f_blank(a + n * stride, len)) n++;
    char **v = calloc(n + 1, sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < n; i++) {
        v[i] = lc_f_str_in(a + i * stride, len);
        if (!v[i]) {
            lc_f_argv_free(v);
            return NULL;
        }
    }
    return v;
}

/* Whether this rank is ROOT of COMM; *rc is the rank query's error (then
 * already reported by the error handler) or MPI_SUCCESS. */
static bool lc_f_spawn_root(const MPI_Fint *root, const MPI_Fint *comm, int *rc)
{
    int rank = MPI_PROC_NULL;
    *rc = PMPI_Comm_rank((MPI_Comm)*comm, &rank);
    return *rc == MPI_SUCCESS && rank == *root;
}

typedef int lc_c_spawn_fn(const char *, char *[], int, MPI_Info, int, MPI_Comm, MPI_Comm *, int[]);

static void lc_f_comm_spawn(lc_c_spawn_fn *spawn, const char *command, const char *argv, MPI_Fint *maxprocs,
                            MPI_Fint *info, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                            MPI_Fint *ierr, size_t command_len, size_t argv_len)
{
    int rc;
    bool at_root = lc_f_spawn_root(root, comm, &rc);
    if (rc != MPI_SUCCESS) {
        *ierr = rc;
        return;
    }
    /* COMMAND and ARGV are looked at on the root only */
    char *c_command = NULL, **c_argv = MPI_ARGV_NULL;
    if (at_root) {
        c_command = lc_f_str_in(command, command_len);
        c_argv = LC_F_IS_ARGV_NULL(argv) ? MPI_ARGV_NULL : lc_f_argv_in(argv, argv_len, argv_len);
        if (!c_command || (!c_argv && !LC_F_IS_ARGV_NULL(argv))) {
            free(c_command);
            lc_f_argv_free(c_argv);
            *ierr = lc_f_nomem("MPI_Comm_spawn");
            return;
        }
    }
    MPI_Comm ic = MPI_COMM_NULL;
    rc = spawn(c_command, c_argv, *maxprocs, *info, *root, *comm, &ic, LC_F_ERRCODES(errcodes));
    if (rc == MPI_SUCCESS) *intercomm = (MPI_Fint)ic;
    free(c_command);
    lc_f_argv_free(c_argv);
    *ierr = rc;
}

typedef int lc_c_spawn_multiple_fn(int, char *[], char **[], const int[], const MPI_Info[], int, MPI_Comm, MPI_Comm *,
                                   int[]);

static void lc_f_strings_free(char **v, size_t n)
{
    if (v)
        for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

static void lc_f_argvs_free(char ***v, size_t n)
{
    if (v)
        for (size_t i = 0; i < n; i++) lc_f_argv_free(v[i]);
    free(v);
}

/* The C forms of ARRAY_OF_COMMANDS and ARRAY_OF_ARGV; false when out of
 * memory (then nothing is left allocated). */
static bool lc_f_spawn_multiple_in(size_t n, const char *commands, size_t commands_len, const char *argvs,
                                   size_t argvs_len, char ***cmds_p, char ****argvs_p)
{
    char **cmds = calloc(n + 1, sizeof *cmds);
    char ***v = LC_F_IS_ARGVS_NULL(argvs) ? MPI_ARGVS_NULL : calloc(n + 1, sizeof *v);
    bool ok = cmds && (v || LC_F_IS_ARGVS_NULL(argvs));
    for (size_t i = 0; ok && i < n; i++) {
        cmds[i] = lc_f_str_in(commands + i * commands_len, commands_len);
        ok = cmds[i] != NULL;
        if (ok && v) {
            /* column i of the COUNT x * array: its elements n apart */
            v[i] = lc_f_argv_in(argvs + i * argvs_len, argvs_len, n * argvs_len);
            ok = v[i] != NULL;
        }
    }
    if (!ok) {
        lc_f_strings_free(cmds, n);
        lc_f_argvs_free(v, n);
        return false;
    }
    *cmds_p = cmds;
    *argvs_p = v;
    return true;
}

static void lc_f_comm_spawn_multiple(lc_c_spawn_multiple_fn *spawn, MPI_Fint *count, const char *commands,
                                     const char *argvs, MPI_Fint *maxprocs, MPI_Fint *infos, MPI_Fint *root,
                                     MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes, MPI_Fint *ierr,
                                     size_t commands_len, size_t argvs_len)
{
    /* COUNT and the arrays are significant at the root only: elsewhere
     * nothing is read (the C function checks COUNT at the root) */
    int rc;
    bool at_root = lc_f_spawn_root(root, comm, &rc);
    if (rc != MPI_SUCCESS) {
        *ierr = rc;
        return;
    }
    size_t n = at_root && *count > 0 ? (size_t)*count : 0;
    char **cmds = NULL, ***v = NULL;
    if (at_root && !lc_f_spawn_multiple_in(n, commands, commands_len, argvs, argvs_len, &cmds, &v)) {
        *ierr = lc_f_nomem("MPI_Comm_spawn_multiple");
        return;
    }
    MPI_Comm ic = MPI_COMM_NULL;
    rc = spawn(*count, cmds, v, at_root ? maxprocs : NULL, at_root ? infos : NULL, *root, *comm, &ic,
               LC_F_ERRCODES(errcodes));
    if (rc == MPI_SUCCESS) *intercomm = (MPI_Fint)ic;
    lc_f_strings_free(cmds, n);
    lc_f_argvs_free(v, n);
    *ierr = rc;
}

#define LC_F_SPAWN(lname, cname)                                                                                       \
    LC_F_API void lname##_(const char *command, const char *argv, MPI_Fint *maxprocs, MPI_Fint *info, MPI_Fint *root,  \
                           MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes, MPI_Fint *ierr,                    \
                           size_t command_len, size_t argv_len);                                                       \
    LC_F_API void lname##_(const char *command, const char *argv, MPI_Fint *maxprocs, MPI_Fint *info, MPI_Fint *root,  \
                           MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes, MPI_Fint *ierr,                    \
                           size_t command_len, size_t argv_len)                                                        \
    {                                                                                                                  \
        lc_f_comm_spawn(cname, command, argv, maxprocs, info, root, comm, intercomm, errcodes, ierr, command_len,      \
                        argv_len);                                                                                     \
    }
#define LC_F_SPAWN_MULTIPLE(lname, cname)                                                                              \
    LC_F_API void lname##_(MPI_Fint *count, const char *commands, const char *argvs, MPI_Fint *maxprocs,               \
                           MPI_Fint *infos, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,   \
                           MPI_Fint *ierr, size_t commands_len, size_t argvs_len);                                     \
    LC_F_API void lname##_(MPI_Fint *count, const char *commands, const char *argvs, MPI_Fint *maxprocs,               \
                           MPI_Fint *infos, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,   \
                           MPI_Fint *ierr, size_t commands_len, size_t argvs_len)                                      \
    {                                                                                                                  \
        lc_f_comm_spawn_multiple(cname, count, commands, argvs, maxprocs, infos, root, comm, intercomm, errcodes,      \
                                 ierr, commands_len, argvs_len);                                                       \
    }

LC_F_SPAWN(mpi_comm_spawn, MPI_Comm_spawn)
LC_F_SPAWN(pmpi_comm_spawn, PMPI_Comm_spawn)
LC_F_SPAWN_MULTIPLE(mpi_comm_spawn_multiple, MPI_Comm_spawn_multiple)
LC_F_SPAWN_MULTIPLE(pmpi_comm_spawn_multiple, PMPI_Comm_spawn_multiple)
LC_F_ALIAS(mpi_comm_spawn_, mpi_comm_spawn)
LC_F_ALIAS(mpi_comm_spawn_, mpi_comm_spawn__)
LC_F_ALIAS(mpi_comm_spawn_, MPI_COMM_SPAWN)
LC_F_ALIAS(mpi_comm_spawn_, lc_f08_comm_spawn_)
LC_F_ALIAS(pmpi_comm_spawn_, lc_f08p_comm_spawn_) /* mpi_f08's PMPI_Comm_spawn */
LC_F_ALIAS(pmpi_comm_spawn_, pmpi_comm_spawn)
LC_F_ALIAS(pmpi_comm_spawn_, pmpi_comm_spawn__)
LC_F_ALIAS(pmpi_comm_spawn_, PMPI_COMM_SPAWN)
LC_F_ALIAS(mpi_comm_spawn_multiple_, mpi_comm_spawn_multiple)
LC_F_ALIAS(mpi_comm_spawn_multiple_, mpi_comm_spawn_multiple__)
LC_F_ALIAS(mpi_comm_spawn_multiple_, MPI_COMM_SPAWN_MULTIPLE)
LC_F_ALIAS(mpi_comm_spawn_multiple_, lc_f08_comm_spawn_multiple_)
LC_F_ALIAS(pmpi_comm_spawn_multiple_, lc_f08p_comm_spawn_multiple_) /* mpi_f08's PMPI_Comm_spawn_multiple */
LC_F_ALIAS(pmpi_comm_spawn_multiple_, pmpi_comm_spawn_multiple)
LC_F_ALIAS(pmpi_comm_spawn_multiple_, pmpi_comm_spawn_multiple__)
LC_F_ALIAS(pmpi_comm_spawn_multiple_, PMPI_COMM_SPAWN_MULTIPLE)
