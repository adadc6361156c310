/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_f_support.c — the objects and helpers behind the generated Fortran
 * entry points: mpif.h's common blocks (MPICH's names and sizes), the
 * C-visible pointers to them that MPICH's libmpichfort also exports, and
 * string conversion.
 */
#include "lc_f_glue.h"

#include <stdint.h>
#include <string.h>

/* The common blocks (zero-initialised; only their addresses matter). */
LC_F_API struct lc_f_priv1 mpipriv1_;
LC_F_API struct lc_f_priv2 mpipriv2_;
LC_F_API struct lc_f_privc mpiprivc_;
LC_F_API MPI_Fint mpifcmb5_;
LC_F_API MPI_Fint mpifcmb9_;

/* C's names for the Fortran sentinels (MPI 4.1 §19.3.5: MPI_F_STATUS_IGNORE
 * lives in libmpi and is pointed here below; the others are MPICH's). */
LC_F_API MPI_Fint *MPI_F_ERRCODES_IGNORE = mpipriv2_.errcodes_ignore;
LC_F_API void *MPI_F_ARGV_NULL = &mpiprivc_.argv_null;
LC_F_API void *MPI_F_ARGVS_NULL = &mpiprivc_.argvs_null;
LC_F_API void *MPIR_F_MPI_BOTTOM = &mpipriv1_.bottom;
LC_F_API void *MPIR_F_MPI_IN_PLACE = &mpipriv1_.in_place;
LC_F_API void *MPIR_F_MPI_UNWEIGHTED = &mpifcmb5_;
LC_F_API void *MPIR_F_MPI_WEIGHTS_EMPTY = &mpifcmb9_;

/* When libmpifort is loaded, C code that receives a Fortran status (a
 * C routine called from Fortran) compares it with MPI_F_STATUS_IGNORE /
 * MPI_F08_STATUS_IGNORE: make those the addresses Fortran programs pass
 * (mpif.h's common block, module mpi_f08's variable). */
__attribute__((constructor)) static void lc_f_init(void)
{
    MPI_F_STATUS_IGNORE = mpipriv1_.status_ignore;
    MPI_F_STATUSES_IGNORE = mpipriv2_.statuses_ignore;
    MPI_F08_STATUS_IGNORE = (MPI_F08_status *)(void *)lc_f08_status_ignore;
    MPI_F08_STATUSES_IGNORE = (MPI_F08_status *)(void *)lc_f08_statuses_ignore;
}

char *lc_f_str_in(const char *s, size_t len)
{
    const char *nul = memchr(s, '\0', len);
    if (nul)
        len = (size_t)(nul - s);
    while (len > 0 && s[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, s, len);
        c[len] = '\0';
    }
    return c;
}

/* Info keys and values: leading blanks go too (MPI 4.1 §10: "In Fortran,
 * leading and trailing spaces are stripped from both"). */
char *lc_f_str_in_info(const char *s, size_t len)
{
    const char *nul = memchr(s, '\0', len);
    if (nul)
        len = (size_t)(nul - s);
    while (len > 0 && *s == ' ') {
        s++;
        len--;
    }
    return lc_f_str_in(s, len);
}

char *lc_f_str_buf(size_t n)
{
    return calloc(n ? n : 1, 1);
}

void lc_f_str_out(char *dst, size_t len, const char *src)
{
    size_t n = strnlen(src, len);
    memcpy(dst, src, n);
    memset(dst + n, ' ', len - n);
}

/* Out of memory for a string copy: the error goes to MPI_COMM_WORLD's
 * handler (the C function was not called, so it has no better place). */
int lc_f_nomem(const char *func)
{
    (void)func;
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    return MPI_ERR_NO_MEM;
}

MPI_Aint *lc_f_aint_array(const MPI_Fint *a, MPI_Fint n)
{
    MPI_Aint *c = malloc(sizeof(MPI_Aint) * (size_t)(n > 0 ? n : 1));
    for (MPI_Fint i = 0; c && i < n; i++)
        c[i] = a[i];
    return c;
}

int lc_f_keyval(MPI_Fint keyval)
{
    switch (keyval) {
    case MPI_TAG_UB + 1:
    case MPI_HOST + 1:
    case MPI_IO + 1:
    case MPI_WTIME_IS_GLOBAL + 1:
    case MPI_UNIVERSE_SIZE + 1:
    case MPI_LASTUSEDCODE + 1:
    case MPI_APPNUM + 1:
    case MPI_WIN_BASE + 1:
    case MPI_WIN_SIZE + 1:
    case MPI_WIN_DISP_UNIT + 1:
    case MPI_WIN_CREATE_FLAVOR + 1:
    case MPI_WIN_MODEL + 1:
        return keyval - 1;
    default:
        return keyval;
    }
}

/* MPI_F_SYNC_REG(buf) (MPI 4.1 §19.1.17): a call the compiler cannot see
 * into, so that it keeps buf in memory across it; nothing to do. */
LC_F_API void mpi_f_sync_reg_(void *buf);
LC_F_API void mpi_f_sync_reg_(void *buf)
{
    (void)buf;
}
LC_F_ALIAS(mpi_f_sync_reg_, mpi_f_sync_reg)
LC_F_ALIAS(mpi_f_sync_reg_, mpi_f_sync_reg__)
LC_F_ALIAS(mpi_f_sync_reg_, MPI_F_SYNC_REG)
LC_F_ALIAS(mpi_f_sync_reg_, pmpi_f_sync_reg)
LC_F_ALIAS(mpi_f_sync_reg_, pmpi_f_sync_reg_)
LC_F_ALIAS(mpi_f_sync_reg_, pmpi_f_sync_reg__)
LC_F_ALIAS(mpi_f_sync_reg_, PMPI_F_SYNC_REG)
LC_F_ALIAS(mpi_f_sync_reg_, lc_f08_f_sync_reg_)
