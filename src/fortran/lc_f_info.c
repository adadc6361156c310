/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_f_info.c — MPI_INFO_GET_STRING for Fortran (hand-written: its BUFLEN
 * means different things in C and Fortran).  In C, buflen counts the
 * terminating NUL both ways; in Fortran (MPICH's behaviour, which
 * MPICH-built programs expect) it is, on input, the room in VALUE (at most
 * LEN(VALUE)) and, on output, the length of the value.  With BUFLEN 0 on
 * input VALUE is left alone and only the length is returned.
 */
#include "lc_f_glue.h"

#include <string.h>

typedef int lc_c_info_get_string_fn(MPI_Info, const char *, int *, char *, int *);

static void lc_f_info_get_string(lc_c_info_get_string_fn *fn, const char *name, MPI_Fint *info, char *key,
                                 MPI_Fint *buflen, char *value, MPI_Fint *flag, MPI_Fint *ierr,
                                 size_t key_len, size_t value_len)
{
    size_t room = *buflen > 0 ? (size_t)*buflen : 0;
    if (room > value_len)
        room = value_len;
    if (room > (size_t)MPI_MAX_INFO_VAL)
        room = MPI_MAX_INFO_VAL;
    char *c_key = lc_f_str_in_info(key, key_len);
    char *c_value = lc_f_str_buf(room + 1);
    if (!c_key || !c_value) {
        free(c_key);
        free(c_value);
        *ierr = lc_f_nomem(name);
        return;
    }
    int c_buflen = room > 0 ? (int)room + 1 : 0;
    int c_flag = 0;
    int rc = fn(*info, c_key, &c_buflen, c_value, &c_flag);
    if (rc == MPI_SUCCESS) {
        *flag = LC_F_LOGICAL(c_flag);
        if (c_flag) {
            *buflen = c_buflen > 0 ? c_buflen - 1 : 0;
            if (room > 0)
                lc_f_str_out(value, value_len, c_value);
        }
    }
    free(c_key);
    free(c_value);
    *ierr = rc;
}

#define LC_F_INFO_GET_STRING(lname, cname)                                                                   \
    LC_F_API void lname##_(MPI_Fint *info, char *key, MPI_Fint *buflen, char *value, MPI_Fint *flag,          \
                           MPI_Fint *ierr, size_t key_len, size_t value_len);                                 \
    LC_F_API void lname##_(MPI_Fint *info, char *key, MPI_Fint *buflen, char *value, MPI_Fint *flag,          \
                           MPI_Fint *ierr, size_t key_len, size_t value_len)                                  \
    {                                                                                                         \
        lc_f_info_get_string(cname, #cname, info, key, buflen, value, flag, ierr, key_len, value_len);        \
    }

LC_F_INFO_GET_STRING(mpi_info_get_string, MPI_Info_get_string)
LC_F_INFO_GET_STRING(pmpi_info_get_string, PMPI_Info_get_string)
LC_F_ALIAS(mpi_info_get_string_, mpi_info_get_string)
LC_F_ALIAS(mpi_info_get_string_, mpi_info_get_string__)
LC_F_ALIAS(mpi_info_get_string_, MPI_INFO_GET_STRING)
LC_F_ALIAS(mpi_info_get_string_, lc_f08_info_get_string_)
LC_F_ALIAS(pmpi_info_get_string_, lc_f08p_info_get_string_) /* mpi_f08's PMPI_Info_get_string */
LC_F_ALIAS(pmpi_info_get_string_, pmpi_info_get_string)
LC_F_ALIAS(pmpi_info_get_string_, pmpi_info_get_string__)
LC_F_ALIAS(pmpi_info_get_string_, PMPI_INFO_GET_STRING)
