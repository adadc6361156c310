/* SPDX-License-Identifier: BSD-3-Clause */
/* The C half of f90_attr_lang (attributes across languages, MPI 4.1
 * §19.3.7): C reads what Fortran set, sets what Fortran reads, and makes
 * keyvals whose callbacks see Fortran's values.  Called from Fortran with
 * every argument by reference; errors are counted into *errs. */
#include <mpi.h>
#include <stdio.h>

void c_read_aint_(MPI_Fint *fcomm, MPI_Fint *key, MPI_Aint *expected, MPI_Fint *errs);
void c_read_fint_(MPI_Fint *fcomm, MPI_Fint *key, MPI_Fint *expected, MPI_Fint *errs);
void c_read_type_(MPI_Fint *ftype, MPI_Fint *key, MPI_Aint *expected, MPI_Fint *errs);
void c_read_win_(MPI_Fint *fwin, MPI_Fint *key, MPI_Aint *expected, MPI_Fint *errs);
void c_set_addr_(MPI_Fint *fcomm, MPI_Fint *key, MPI_Aint *addr);
void c_read_addr_(MPI_Fint *fcomm, MPI_Fint *key, MPI_Aint *expected, MPI_Fint *errs);
void c_make_keys_(MPI_Fint *dupkey, MPI_Fint *cbkey);
void c_check_callbacks_(MPI_Aint *expected, MPI_Fint *errs);

/* A Fortran MPI-2 value: C gets a pointer to an MPI_Aint holding it. */
void c_read_aint_(MPI_Fint *fcomm, MPI_Fint *key, MPI_Aint *expected, MPI_Fint *errs)
{
    MPI_Aint *v = NULL;
    int flag = 0;
    MPI_Comm_get_attr(MPI_Comm_f2c(*fcomm), *key, &v, &flag);
    if (!flag || !v || *v != *expected) {
        printf("C read of a Fortran MPI_ADDRESS_KIND attribute: flag %d, pointer %p, expected %ld\n", flag, (void *)v,
               (long)*expected);
        if (flag && v) printf("  it points at %ld\n", (long)*v);
        (*errs)++;
    }
}

/* A Fortran MPI_ATTR_PUT value: C gets a pointer to an int holding it. */
void c_read_fint_(MPI_Fint *fcomm, MPI_Fint *key, MPI_Fint *expected, MPI_Fint *errs)
{
    MPI_Fint *v = NULL;
    int flag = 0;
    MPI_Attr_get(MPI_Comm_f2c(*fcomm), *key, &v, &flag);
    if (!flag || !v || *v != *expected) {
        printf("C read of a Fortran INTEGER attribute: flag %d, pointer %p, expected %d\n", flag, (void *)v,
               (int)*expected);
        (*errs)++;
    }
}

void c_read_type_(MPI_Fint *ftype, MPI_Fint *key, MPI_Aint *expected, MPI_Fint *errs)
{
    MPI_Aint *v = NULL;
    int flag = 0;
    MPI_Type_get_attr(MPI_Type_f2c(*ftype), *key, &v, &flag);
    if (!flag || !v || *v != *expected) {
        printf("C read of a Fortran datatype attribute: flag %d, expected %ld\n", flag, (long)*expected);
        (*errs)++;
    }
}

void c_read_win_(MPI_Fint *fwin, MPI_Fint *key, MPI_Aint *expected, MPI_Fint *errs)
{
    MPI_Aint *v = NULL;
    int flag = 0;
    MPI_Win_get_attr(MPI_Win_f2c(*fwin), *key, &v, &flag);
    if (!flag || !v || *v != *expected) {
        printf("C read of a Fortran window attribute: flag %d, expected %ld\n", flag, (long)*expected);
        (*errs)++;
    }
}

/* C stores an address; Fortran reads it as an integer. */
void c_set_addr_(MPI_Fint *fcomm, MPI_Fint *key, MPI_Aint *addr)
{
    MPI_Comm_set_attr(MPI_Comm_f2c(*fcomm), *key, (void *)*addr);
}

/* An address-valued attribute (set by C; a Fortran copy callback's
 * copy of one): C reads the address. */
void c_read_addr_(MPI_Fint *fcomm, MPI_Fint *key, MPI_Aint *expected, MPI_Fint *errs)
{
    void *v = NULL;
    int flag = 0;
    MPI_Comm_get_attr(MPI_Comm_f2c(*fcomm), *key, &v, &flag);
    if (!flag || (MPI_Aint)v != *expected) {
        printf("C read of an address attribute: flag %d, %p, expected %#lx\n", flag, v, (unsigned long)*expected);
        (*errs)++;
    }
}

/* C callbacks on Fortran values: they get pointers to the integers (the
 * copy callback copies nothing: its result would be an integer-valued
 * attribute holding C's address, as in MPICH). */
static MPI_Aint seen_copy = -1, seen_delete = -1;

static int copy_cb(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)key, (void)extra;
    (void)out;
    seen_copy = *(MPI_Aint *)in;
    *flag = 0;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)extra;
    seen_delete = *(MPI_Aint *)value;
    return MPI_SUCCESS;
}

void c_make_keys_(MPI_Fint *dupkey, MPI_Fint *cbkey)
{
    int k1, k2;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k1, NULL);
    MPI_Comm_create_keyval(copy_cb, delete_cb, &k2, NULL);
    *dupkey = k1;
    *cbkey = k2;
}

void c_check_callbacks_(MPI_Aint *expected, MPI_Fint *errs)
{
    if (seen_copy != *expected || seen_delete != *expected) {
        printf("C callbacks on a Fortran value: copy saw %ld, delete saw %ld, expected %ld\n", (long)seen_copy,
               (long)seen_delete, (long)*expected);
        (*errs)++;
    }
}
