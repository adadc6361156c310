/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_file.h — MPI-IO file handles (MPI 4.1 §14), shared by
 * lc_mpi_file_open.c (open/close/delete/size/info/errhandlers),
 * lc_mpi_file_view.c (views, individual pointer), lc_mpi_file_rw.c (data
 * access: explicit offsets, individual pointer, collective, nonblocking,
 * split collective) and lc_mpi_file_shared.c (shared pointer, ordered).
 *
 * MPI_File is a pointer in MPICH's ABI (`struct ADIOI_FileD *`), so the
 * object is that struct; a handle is valid while it is in the table of
 * open files (lc_file_lookup: never dereferenced before it is found
 * there), whose index + 1 is the Fortran handle (MPI_File_c2f).
 *
 * The POSIX work is the io layer's (src/io/lc_io.h); here are handles,
 * argument checks, error handlers and what is collective: every rank of
 * the file's communicator (a private duplicate of the one given to
 * MPI_File_open) learns whether a collective call succeeded everywhere.
 */
#ifndef LC_MPI_FILE_H
#define LC_MPI_FILE_H

#include "io/lc_io.h"
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_info.h"

/* A data representation other than native (lc_mpi_datarep.c); NULL
 * stands for "native" (and "internal", which is native here). */
typedef struct lc_datarep lc_datarep_t;

struct ADIOI_FileD {
    lc_comm_t *comm;          /* private duplicate: collectives of the file never meet the user's */
    int fd;
    char *path;               /* as opened (after any "ufs:"-style prefix) */
    int amode;                /* MPI_MODE_* bits */
    bool atomic;              /* MPI_File_set_atomicity */
    MPI_Errhandler errhandler;
    lc_info_t *hints;         /* what MPI_File_get_info reports */
    lc_io_view_t view;        /* etype and filetype in the file's representation, retained */
    lc_dt_t *uetype, *uftype; /* the user's etype and filetype (get_view), retained */
    const lc_datarep_t *rep;  /* the view's representation (NULL: native) */
    char datarep[MPI_MAX_DATAREP_STRING + 1];
    MPI_Offset pos;           /* individual file pointer, in etypes of the view */
    lc_io_shfp_t shfp;        /* the shared file pointer (lc_io_shfp.c) */
    /* a split collective in progress (one per file, MPI 4.1 §14.4.5) */
    bool split_active;
    const void *split_buf;
    int split_rc;
    size_t split_bytes;
};
typedef struct ADIOI_FileD lc_file_t;

/* The open file of a handle, else MPI_ERR_FILE. */
int lc_check_file(MPI_File fh, lc_file_t **f_p);
/* Run the file's error handler (f NULL: the one set on MPI_FILE_NULL,
 * MPI_ERRORS_RETURN unless changed) for `code` raised in `func`. */
int lc_mpi_file_error(lc_file_t *f, const char *func, int code);
/* The handler set on MPI_FILE_NULL (files opened now start with it). */
MPI_Errhandler lc_file_default_errhandler(void);
/* Collective over the file's communicator: MPI_SUCCESS when every rank
 * had rc == MPI_SUCCESS; else this rank's own error, or an error of the
 * worst class seen saying `what` failed on another rank. */
int lc_file_agree(lc_comm_t *comm, int rc, const char *what);
/* Write permission for a write (MPI_ERR_READ_ONLY), read permission for
 * a read (MPI_ERR_ACCESS); SEQUENTIAL files refuse explicit offsets and
 * the individual pointer (MPI_ERR_UNSUPPORTED_OPERATION) when `indiv`. */
int lc_file_check_mode(const lc_file_t *f, bool write, bool indiv);
/* Checks of a data access's buffer description, then the access of the
 * view data starting at etype position `pos`; *bytes_p: memory bytes
 * moved, *etypes_p (may be NULL): etypes of the view accessed. */
int lc_file_access(lc_file_t *f, MPI_Offset pos, const void *buf, MPI_Count count, MPI_Datatype dt, bool write,
                   size_t *bytes_p, MPI_Offset *etypes_p);
/* The checks of lc_file_access: *t_p the memory type, *item_p the bytes
 * one item of it occupies in the file. */
int lc_file_access_check(lc_file_t *f, const void *buf, MPI_Count count, MPI_Datatype dt, lc_dt_t **t_p,
                         MPI_Count *item_p);
/* Data sieving settings of the file's hints for reads or writes. */
void lc_file_sieve(const lc_file_t *f, bool write, lc_io_sieve_t *ds);
/* A hint's value as a positive number, else -1. */
long long lc_file_hint_num(const lc_file_t *f, const char *key);
/* Two-phase collective buffering (lc_mpi_file_coll.c), collective over
 * the file's communicator: every rank calls it, `rc` is its result so
 * far (a rank with an error takes part and returns it).  *done_p false:
 * nothing was accessed (the hints or the pattern ask for independent
 * accesses; the caller does them).  Else *bytes_p and *etypes_p as for
 * lc_file_access. */
int lc_file_coll_access(lc_file_t *f, int rc, MPI_Offset pos, const void *buf, MPI_Count count, MPI_Datatype dt,
                        bool write, size_t *bytes_p, MPI_Offset *etypes_p, bool *done_p);
/* The lowest rank of c this process shares memory with (the locality
 * detector's groups, as MPI_COMM_TYPE_SHARED): one set of co-resident
 * ranks per leader. */
int lc_file_cb_leader(const lc_comm_t *c);

/* The etypes of the view that count items of dt occupy (checked: a
 * whole number). */
int lc_file_etypes(lc_file_t *f, MPI_Count count, MPI_Datatype dt, MPI_Offset *n_p);

/* Data representations (lc_mpi_datarep.c).  *rep_p NULL for "native" and
 * "internal"; MPI_ERR_UNSUPPORTED_DATAREP for an unknown name. */
int lc_file_datarep_find(const char *name, const lc_datarep_t **rep_p);
/* t as it lies in the file (rep NULL: t itself), a new reference. */
int lc_file_rep_type(const lc_datarep_t *rep, lc_dt_t *t, lc_dt_t **out);
/* The bytes one item of t occupies in the file. */
int lc_file_rep_item(const lc_datarep_t *rep, lc_dt_t *t, MPI_Count *item_p);
/* The context of lc_file_rep_convert (an lc_io_conv_t's fn). */
typedef struct lc_file_conv {
    const lc_datarep_t *rep;
    const lc_dt_t *t;
    MPI_Datatype handle; /* the user's datatype, for the user's conversion functions */
} lc_file_conv_t;
int lc_file_rep_convert(void *ctx, void *buf, MPI_Count first, MPI_Count n, void *file, bool write);
/* A request, complete at once, with the status of `bytes` (nonblocking
 * calls do their I/O when started). */
int lc_file_request_done(size_t bytes, MPI_Request *request);
/* The status of a file access that moved `bytes`. */
void lc_file_status(MPI_Status *status, size_t bytes);
/* Where a seek to (offset, whence) from etype position `cur` goes. */
int lc_file_seek_target(lc_file_t *f, MPI_Offset cur, MPI_Offset offset, int whence, MPI_Offset *pos_p);
/* Shared-pointer accesses (lc_mpi_file_shared.c): independent, and the
 * collective ordered one (rank order).  *bytes_p: bytes moved. */
int lc_file_shared_access(lc_file_t *f, const void *buf, MPI_Count count, MPI_Datatype dt, bool write,
                          size_t *bytes_p);
int lc_file_ordered_access(lc_file_t *f, const void *buf, MPI_Count count, MPI_Datatype dt, bool write,
                           size_t *bytes_p);
/* The shared file pointer of a view starts at 0 (set_view, open). */
int lc_file_shared_reset(lc_file_t *f);
/* A view of etype = filetype = MPI_BYTE at displacement 0. */
void lc_file_default_view(lc_file_t *f);
void lc_file_drop_view(lc_file_t *f);

#endif
