/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_f_datarep.c — MPI_REGISTER_DATAREP for Fortran (and mpi_f08's
 * MPI_Register_datarep_c), MPI_CONVERSION_FN_NULL(_C); hand-written
 * (api/fortran_hints.txt marks them `handwritten`; the module interfaces
 * are still generated).
 *
 * Why by hand: Locus calls a conversion function with C's conventions
 * (datatype, count, position and extra_state by value, an int result);
 * Fortran's takes everything by reference (USERBUF and FILEBUF are
 * buffers by reference in mpif.h and `mpi`, TYPE(C_PTR), VALUE in
 * mpi_f08: both a pointer to the data), EXTRA_STATE is an
 * INTEGER(KIND=MPI_ADDRESS_KIND) and the result comes back in IERROR.
 * Each registration gets a record (the three procedures and the Fortran
 * EXTRA_STATE), the C extra_state of trampolines.  Representations are
 * never unregistered (MPI 4.1 §14.5.3), so the record lives as long as
 * the process; libmpi's registry keeps the pointer.
 *
 * MPI_CONVERSION_FN_NULL (C: a null pointer, "the file holds the native
 * bytes") is, in Fortran, a procedure libmpifort exports; it is
 * recognised by address and passed to C as the null pointer.
 */
#include "lc_f_glue.h"

#include <stdbool.h>

typedef void lc_f_conv_fn(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf, MPI_Offset *position,
                          MPI_Aint *extra, MPI_Fint *ierr);
typedef void lc_f_conv_c_fn(void *userbuf, MPI_Fint *datatype, MPI_Count *count, void *filebuf, MPI_Offset *position,
                            MPI_Aint *extra, MPI_Fint *ierr);
typedef void lc_f_extent_fn(MPI_Fint *datatype, MPI_Aint *extent, MPI_Aint *extra, MPI_Fint *ierr);

struct lc_f_datarep {
    void (*read)(void), (*write)(void); /* lc_f_conv_fn or lc_f_conv_c_fn */
    lc_f_extent_fn *extent;
    MPI_Aint extra;
};

/* MPI_CONVERSION_FN_NULL(_C): never called by Locus (recognised below);
 * a program that calls it itself gets no conversion. */
LC_F_API void mpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                                      MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierr);
LC_F_API void mpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                                      MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierr)
{
    (void)userbuf, (void)datatype, (void)count, (void)filebuf, (void)position, (void)extra;
    *ierr = MPI_SUCCESS;
}
LC_F_API void mpi_conversion_fn_null_c_(void *userbuf, MPI_Fint *datatype, MPI_Count *count, void *filebuf,
                                        MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierr);
LC_F_API void mpi_conversion_fn_null_c_(void *userbuf, MPI_Fint *datatype, MPI_Count *count, void *filebuf,
                                        MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierr)
{
    (void)userbuf, (void)datatype, (void)count, (void)filebuf, (void)position, (void)extra;
    *ierr = MPI_SUCCESS;
}
/* MPICH's names: mpif.h's four spellings and their PMPI ones, and its
 * mpi_f08 module procedures (what MPICH-built mpi_f08 programs refer to) */
LC_F_ALIAS(mpi_conversion_fn_null_, mpi_conversion_fn_null)
LC_F_ALIAS(mpi_conversion_fn_null_, mpi_conversion_fn_null__)
/* MPI_CONVERSION_FN_NULL is mpi.h's macro: the symbol by its asm name */
extern __typeof__(mpi_conversion_fn_null_) lc_f_conversion_fn_null_upper __asm__("MPI_CONVERSION_FN_NULL")
    __attribute__((weak, alias("mpi_conversion_fn_null_"), visibility("default")));
LC_F_ALIAS(mpi_conversion_fn_null_, pmpi_conversion_fn_null)
LC_F_ALIAS(mpi_conversion_fn_null_, pmpi_conversion_fn_null_)
LC_F_ALIAS(mpi_conversion_fn_null_, pmpi_conversion_fn_null__)
LC_F_ALIAS(mpi_conversion_fn_null_, PMPI_CONVERSION_FN_NULL)
LC_F_ALIAS(mpi_conversion_fn_null_, __mpi_f08_callbacks_MOD_mpi_conversion_fn_null)
LC_F_ALIAS(mpi_conversion_fn_null_c_, __mpi_f08_callbacks_MOD_mpi_conversion_fn_null_c)

/* By address: each name is its own symbol, and in a non-PIE program the
 * address of a library function is that of the program's PLT entry for
 * that name, so every spelling a program may use is compared (through
 * the GOT: these have default visibility). */
static bool lc_f_conversion_fn_null(void (*fn)(void))
{
    return fn == (void (*)(void))mpi_conversion_fn_null_ || fn == (void (*)(void))mpi_conversion_fn_null ||
           fn == (void (*)(void))mpi_conversion_fn_null__ || fn == (void (*)(void))lc_f_conversion_fn_null_upper ||
           fn == (void (*)(void))pmpi_conversion_fn_null_ ||
           fn == (void (*)(void))__mpi_f08_callbacks_MOD_mpi_conversion_fn_null ||
           fn == (void (*)(void))mpi_conversion_fn_null_c_ ||
           fn == (void (*)(void))__mpi_f08_callbacks_MOD_mpi_conversion_fn_null_c;
}

static int lc_f_datarep_conv(void (*fn)(void), void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                             MPI_Offset position, struct lc_f_datarep *r)
{
    MPI_Fint dt = (MPI_Fint)datatype, n = count, ierr = MPI_SUCCESS;
    ((lc_f_conv_fn *)fn)(userbuf, &dt, &n, filebuf, &position, &r->extra, &ierr);
    return ierr;
}

static int lc_f_datarep_read(void *userbuf, MPI_Datatype datatype, int count, void *filebuf, MPI_Offset position,
                             void *extra_state)
{
    struct lc_f_datarep *r = extra_state;
    return lc_f_datarep_conv(r->read, userbuf, datatype, count, filebuf, position, r);
}

static int lc_f_datarep_write(void *userbuf, MPI_Datatype datatype, int count, void *filebuf, MPI_Offset position,
                              void *extra_state)
{
    struct lc_f_datarep *r = extra_state;
    return lc_f_datarep_conv(r->write, userbuf, datatype, count, filebuf, position, r);
}

static int lc_f_datarep_conv_c(void (*fn)(void), void *userbuf, MPI_Datatype datatype, MPI_Count count, void *filebuf,
                               MPI_Offset position, struct lc_f_datarep *r)
{
    MPI_Fint dt = (MPI_Fint)datatype, ierr = MPI_SUCCESS;
    ((lc_f_conv_c_fn *)fn)(userbuf, &dt, &count, filebuf, &position, &r->extra, &ierr);
    return ierr;
}

static int lc_f_datarep_read_c(void *userbuf, MPI_Datatype datatype, MPI_Count count, void *filebuf,
                               MPI_Offset position, void *extra_state)
{
    struct lc_f_datarep *r = extra_state;
    return lc_f_datarep_conv_c(r->read, userbuf, datatype, count, filebuf, position, r);
}

static int lc_f_datarep_write_c(void *userbuf, MPI_Datatype datatype, MPI_Count count, void *filebuf,
                                MPI_Offset position, void *extra_state)
{
    struct lc_f_datarep *r = extra_state;
    return lc_f_datarep_conv_c(r->write, userbuf, datatype, count, filebuf, position, r);
}

static int lc_f_datarep_extent(MPI_Datatype datatype, MPI_Aint *extent, void *extra_state)
{
    struct lc_f_datarep *r = extra_state;
    MPI_Fint dt = (MPI_Fint)datatype, ierr = MPI_SUCCESS;
    r->extent(&dt, extent, &r->extra, &ierr);
    return ierr;
}

typedef int lc_c_register_fn(const char *, MPI_Datarep_conversion_function *, MPI_Datarep_conversion_function *,
                             MPI_Datarep_extent_function *, void *);
typedef int lc_c_register_c_fn(const char *, MPI_Datarep_conversion_function_c *, MPI_Datarep_conversion_function_c *,
                               MPI_Datarep_extent_function *, void *);

/* One of register_fn / register_c_fn is given. */
static void lc_f_register_datarep(lc_c_register_fn *reg, lc_c_register_c_fn *reg_c, const char *datarep,
                                  void (*read)(void), void (*write)(void), lc_f_extent_fn *extent, MPI_Aint *extra,
                                  MPI_Fint *ierr, size_t datarep_len)
{
    char *name = lc_f_str_in(datarep, datarep_len);
    struct lc_f_datarep *r = malloc(sizeof *r);
    if (!name || !r) {
        free(name);
        free(r);
        *ierr = lc_f_nomem(reg ? "MPI_Register_datarep" : "MPI_Register_datarep_c");
        return;
    }
    *r = (struct lc_f_datarep){ read, write, extent, *extra };
    bool null_read = lc_f_conversion_fn_null(read), null_write = lc_f_conversion_fn_null(write);
    /* a missing extent function is the C function's error to report */
    MPI_Datarep_extent_function *ext = extent ? lc_f_datarep_extent : NULL;
    int rc;
    if (reg)
        rc = reg(name, null_read ? MPI_CONVERSION_FN_NULL : lc_f_datarep_read,
                 null_write ? MPI_CONVERSION_FN_NULL : lc_f_datarep_write, ext, r);
    else
        rc = reg_c(name, null_read ? MPI_CONVERSION_FN_NULL_C : lc_f_datarep_read_c,
                   null_write ? MPI_CONVERSION_FN_NULL_C : lc_f_datarep_write_c, ext, r);
    free(name);
    if (rc != MPI_SUCCESS) free(r); /* not registered: nobody refers to it */
    *ierr = rc;
}

#define LC_F_REGISTER_DATAREP(lname, reg, reg_c, conv_t)                                                               \
    LC_F_API void lname(const char *datarep, conv_t *read, conv_t *write, lc_f_extent_fn *extent, MPI_Aint *extra,     \
                        MPI_Fint *ierr, size_t datarep_len);                                                           \
    LC_F_API void lname(const char *datarep, conv_t *read, conv_t *write, lc_f_extent_fn *extent, MPI_Aint *extra,     \
                        MPI_Fint *ierr, size_t datarep_len)                                                            \
    {                                                                                                                  \
        lc_f_register_datarep(reg, reg_c, datarep, (void (*)(void))read, (void (*)(void))write, extent, extra, ierr,   \
                              datarep_len);                                                                            \
    }

LC_F_REGISTER_DATAREP(mpi_register_datarep_, MPI_Register_datarep, NULL, lc_f_conv_fn)
LC_F_REGISTER_DATAREP(pmpi_register_datarep_, PMPI_Register_datarep, NULL, lc_f_conv_fn)
LC_F_REGISTER_DATAREP(lc_f08_register_datarep_c_, NULL, MPI_Register_datarep_c, lc_f_conv_c_fn)
LC_F_REGISTER_DATAREP(lc_f08p_register_datarep_c_, NULL, PMPI_Register_datarep_c, lc_f_conv_c_fn)
LC_F_ALIAS(mpi_register_datarep_, mpi_register_datarep)
LC_F_ALIAS(mpi_register_datarep_, mpi_register_datarep__)
LC_F_ALIAS(mpi_register_datarep_, MPI_REGISTER_DATAREP)
LC_F_ALIAS(mpi_register_datarep_, lc_f08_register_datarep_)
LC_F_ALIAS(pmpi_register_datarep_, lc_f08p_register_datarep_) /* mpi_f08's PMPI_Register_datarep */
LC_F_ALIAS(pmpi_register_datarep_, pmpi_register_datarep)
LC_F_ALIAS(pmpi_register_datarep_, pmpi_register_datarep__)
LC_F_ALIAS(pmpi_register_datarep_, PMPI_REGISTER_DATAREP)
