/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_f_glue.h — what the generated Fortran entry points (lc_f_glue.c,
 * written by scripts/gen_fortran.py) use: export and alias macros, the
 * sentinel objects of mpif.h and their recognition, string and logical
 * conversion.
 *
 * Conventions (gfortran, MPICH's Fortran ABI): every argument by
 * reference; INTEGER is MPI_Fint (int) and a Fortran handle is the C
 * handle; LOGICAL is an int with .TRUE. = 1; a CHARACTER argument
 * brings a hidden size_t length after the explicit arguments; a status
 * is MPI_STATUS_SIZE INTEGERs laid out as MPI_Status.
 */
#ifndef LC_F_GLUE_H
#define LC_F_GLUE_H

#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>

#define LC_F_API __attribute__((visibility("default")))
/* Another name for the same entry point (MPICH exports four spellings:
 * name_, name, name__, NAME). */
#define LC_F_ALIAS(target, name) \
    extern __typeof__(target) name __attribute__((weak, alias(#target), visibility("default")));

/* gfortran's .TRUE. and .FALSE. */
#define LC_F_TRUE 1
#define LC_F_FALSE 0
#define LC_F_LOGICAL(c) ((c) ? LC_F_TRUE : LC_F_FALSE)

/* mpif.h's common blocks, MPICH's names and layout.  Programs built with
 * MPICH's mpif.h (or ours) pass the addresses of these members; the
 * library defines the blocks so every program's view is one object.
 * They must be reached through the GOT (default visibility): in a
 * non-PIE program the linker copies them into the executable and the
 * library's references follow. */
struct lc_f_priv1 {
    MPI_Fint bottom, in_place, status_ignore[MPI_F_STATUS_SIZE];
};
struct lc_f_priv2 {
    MPI_Fint statuses_ignore[MPI_F_STATUS_SIZE];
    MPI_Fint errcodes_ignore[1];
};
struct lc_f_privc {
    char argvs_null, argv_null;
};
extern struct lc_f_priv1 mpipriv1_;
extern struct lc_f_priv2 mpipriv2_;
extern struct lc_f_privc mpiprivc_;
extern MPI_Fint mpifcmb5_; /* MPI_UNWEIGHTED */
extern MPI_Fint mpifcmb9_; /* MPI_WEIGHTS_EMPTY */
/* module mpi_f08's sentinels (bind(C) variables of the module, compiled
 * into libmpifort with this glue).  Their link names are MPICH's, with
 * MPICH's sizes, so programs built with MPICH's mpi_f08 (which refer to
 * them, copied into a PIE executable) and Locus's pass the same objects. */
extern MPI_Fint lc_f08_bottom __asm__("MPIR_F08_MPI_BOTTOM");
extern MPI_Fint lc_f08_in_place __asm__("MPIR_F08_MPI_IN_PLACE");
extern MPI_Fint lc_f08_status_ignore[MPI_F_STATUS_SIZE] __asm__("MPIR_F08_MPI_STATUS_IGNORE_OBJ");
extern MPI_Fint lc_f08_statuses_ignore[MPI_F_STATUS_SIZE] __asm__("MPIR_F08_MPI_STATUSES_IGNORE_OBJ");

/* A choice buffer: MPI_BOTTOM and MPI_IN_PLACE become C's values. */
static inline void *lc_f_buf(const void *b)
{
    if (b == (const void *)&mpipriv1_.bottom || b == (const void *)&lc_f08_bottom)
        return MPI_BOTTOM;
    if (b == (const void *)&mpipriv1_.in_place || b == (const void *)&lc_f08_in_place)
        return MPI_IN_PLACE;
    return (void *)b;
}
#define LC_F_BUF(b) lc_f_buf(b)

/* A status or an array of them (a Fortran status is an MPI_Status). */
static inline MPI_Status *lc_f_status(MPI_Fint *s)
{
    if (s == mpipriv1_.status_ignore || s == mpipriv2_.statuses_ignore || s == lc_f08_status_ignore ||
        s == lc_f08_statuses_ignore)
        return MPI_STATUS_IGNORE;
    return (MPI_Status *)(void *)s;
}
#define LC_F_STATUS(s) lc_f_status(s)
#define LC_F_STATUSES(s) lc_f_status(s)

/* Integer-array sentinels: graph weights (MPI_UNWEIGHTED,
 * MPI_WEIGHTS_EMPTY) and spawn's error codes (MPI_ERRCODES_IGNORE).
 * The weights' are mpif.h's common blocks or module mpi_f08's variables
 * (MPICH's link names, module mpi_f08_link_constants: MPICH-built
 * mpi_f08 programs pass those). */
extern MPI_Fint lc_f08_unweighted[1] __asm__("__mpi_f08_link_constants_MOD_mpi_unweighted");
extern MPI_Fint lc_f08_weights_empty[1] __asm__("__mpi_f08_link_constants_MOD_mpi_weights_empty");
static inline int *lc_f_weights(MPI_Fint *w)
{
    if (w == &mpifcmb5_ || w == lc_f08_unweighted)
        return MPI_UNWEIGHTED;
    if (w == &mpifcmb9_ || w == lc_f08_weights_empty)
        return MPI_WEIGHTS_EMPTY;
    return w;
}
#define LC_F_WEIGHTS(w) lc_f_weights(w)
/* module mpi_f08's MPI_ERRCODES_IGNORE, MPI_ARGV_NULL, MPI_ARGVS_NULL:
 * variables of the module under MPICH's link names (its module
 * mpi_f08_link_constants), so MPICH-built mpi_f08 programs pass them too. */
extern MPI_Fint lc_f08_errcodes_ignore[1] __asm__("__mpi_f08_link_constants_MOD_mpi_errcodes_ignore");
extern char lc_f08_argv_null[1] __asm__("__mpi_f08_link_constants_MOD_mpi_argv_null");
extern char lc_f08_argvs_null[1] __asm__("__mpi_f08_link_constants_MOD_mpi_argvs_null");
#define LC_F_ERRCODES(e)                                                                           \
    ((e) == mpipriv2_.errcodes_ignore || (e) == lc_f08_errcodes_ignore ? MPI_ERRCODES_IGNORE : (e))
/* MPI_ARGV_NULL / MPI_ARGVS_NULL (src/fortran/lc_f_spawn.c converts
 * Fortran's CHARACTER arrays of arguments). */
#define LC_F_IS_ARGV_NULL(a)                                                                       \
    ((const void *)(a) == (const void *)&mpiprivc_.argv_null || (const void *)(a) == (const void *)lc_f08_argv_null)
#define LC_F_IS_ARGVS_NULL(a)                                                                      \
    ((const void *)(a) == (const void *)&mpiprivc_.argvs_null ||                                   \
     (const void *)(a) == (const void *)lc_f08_argvs_null)

/* libmpi (src/mpi/lc_mpi_errhandler.c): marks an error handler made by
 * MPI_FILE_CREATE_ERRHANDLER as a Fortran one (INTEGER file handle). */
void MPII_Errhandler_set_fc(MPI_Errhandler eh);

/* Strings: in, a NUL-terminated copy without the trailing blanks; out, a
 * buffer of n chars for the C function, then copied back blank-padded
 * (truncated to the Fortran length).  NULL when out of memory. */
char *lc_f_str_in(const char *s, size_t len);
char *lc_f_str_in_info(const char *s, size_t len);
char *lc_f_str_buf(size_t n);
void lc_f_str_out(char *dst, size_t len, const char *src);
int lc_f_nomem(const char *func);

/* An MPI_Aint copy of n default INTEGERs (MPI-1 names' displacements);
 * NULL when out of memory, a valid pointer for n <= 0. */
MPI_Aint *lc_f_aint_array(const MPI_Fint *a, MPI_Fint n);

/* libmpi (src/mpi/lc_mpi_attr.h): attributes from Fortran are integers,
 * kept as such (MPI 4.1 §19.3.7: C reading one gets a pointer to it);
 * the get forms give the predefined attributes' values. */
int lc_mpi_keyval_fortran(int keyval, int mpi1);
int lc_mpi_comm_attr_set_f(MPI_Comm comm, int keyval, MPI_Aint value, int mpi1);
int lc_mpi_comm_attr_get_f(MPI_Comm comm, int keyval, MPI_Aint *value, int *flag);
int lc_mpi_type_attr_set_f(MPI_Datatype datatype, int keyval, MPI_Aint value);
int lc_mpi_type_attr_get_f(MPI_Datatype datatype, int keyval, MPI_Aint *value, int *flag);
int lc_mpi_win_attr_set_f(MPI_Win win, int keyval, MPI_Aint value);
int lc_mpi_win_attr_get_f(MPI_Win win, int keyval, MPI_Aint *value, int *flag);

/* mpif.h's predefined attribute keys are C's plus one (MPICH's values,
 * which MPICH-built programs carry): the C key for a Fortran key. */
int lc_f_keyval(MPI_Fint keyval);

#endif
