/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_io.h — the I/O layer: POSIX file access for MPI-IO (src/mpi/lc_mpi_file*.c).
 *
 * It sits right above the datatype layer (util datatype io pmi ...) and
 * knows nothing of communicators: everything collective (agreement on
 * open, the shared pointer's ordered updates) is the MPI layer's.  What
 * it provides:
 *   - open/close/delete/size/sync with errno turned into MPI error
 *     classes and messages naming the path and the reason (lc_io_posix.c);
 *   - a view (displacement, etype, filetype) and the mapping of the data
 *     bytes seen through it to byte ranges of the file, and typed reads
 *     and writes through it (lc_io_view.c);
 *   - the shared file pointer, an 8-byte counter in a side file updated
 *     under an fcntl lock (lc_io_shfp.c; docs/io.md says why).
 * Every function returns MPI_SUCCESS or an MPI error code made by
 * lc_error() (the failing function says what went wrong, once).
 */
#ifndef LC_IO_H
#define LC_IO_H

#include <mpi.h>

#include "datatype/lc_dt.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- files (lc_io_posix.c) ---------------------------------------------- */

/* Open `path` for MPI amode bits (MPI_MODE_*); `create` adds O_CREAT (and
 * O_EXCL when `excl`): the MPI layer lets one rank create the file first.
 * *fd_p on success. */
int lc_io_open(const char *path, int amode, bool create, bool excl, int *fd_p);
int lc_io_close(int fd, const char *path);
int lc_io_delete(const char *path);
int lc_io_get_size(int fd, MPI_Offset *size_p);
int lc_io_set_size(int fd, MPI_Offset size);
/* Make the file at least `size` bytes with its blocks allocated. */
int lc_io_preallocate(int fd, MPI_Offset size);
int lc_io_sync(int fd);
/* Whole-range reads and writes at `off`: a read stops early only at the
 * end of the file (*done_p says how far it got). */
int lc_io_pread(int fd, void *buf, size_t len, MPI_Offset off, size_t *done_p);
int lc_io_pwrite(int fd, const void *buf, size_t len, MPI_Offset off);
/* Lock [off, off + len) (len 0: to the end and beyond) for writing
 * (`excl`) or reading; waits.  Open-file-description locks where the
 * kernel has them, so closing another descriptor of the file does not
 * drop them. */
int lc_io_lock(int fd, MPI_Offset off, MPI_Offset len, bool excl);
void lc_io_unlock(int fd, MPI_Offset off, MPI_Offset len);
/* The MPI error for a failed system call on `path` (errno `err`). */
int lc_io_errno(int err, const char *what, const char *path);

/* ---- views (lc_io_view.c) ------------------------------------------------- */

/* A file view (MPI 4.1 §14.3): the file seen from `disp` as tiles of
 * `ftype`, whose data bytes hold etypes.  Positions are counted in
 * etypes; a position p is data byte p * esize of the view. */
typedef struct lc_io_view {
    MPI_Offset disp;
    lc_dt_t *etype, *ftype;  /* retained by the owner of the view */
    MPI_Count esize;         /* etype size in bytes (> 0) */
    MPI_Count fsize;         /* filetype data bytes per tile (multiple of esize, > 0) */
    MPI_Aint fext;           /* tile extent */
    bool contig;             /* the data bytes are one run from disp + ftype->true_lb */
} lc_io_view_t;

/* Fill the derived fields of v from disp, etype, ftype. */
void lc_io_view_init(lc_io_view_t *v);
/* The file offset of view data byte q. */
int lc_io_view_offset(const lc_io_view_t *v, MPI_Offset q, MPI_Offset *off_p);
/* The view data bytes that lie before file offset `fsize` (the end of
 * file seen through the view). */
int lc_io_view_data_below(const lc_io_view_t *v, MPI_Offset fsize, MPI_Offset *q_p);

/* A byte range of the file. */
typedef struct lc_io_seg {
    MPI_Offset off, len;
} lc_io_seg_t;
/* The file segments of view data bytes [q, q + n), in view order (which
 * is file order: a filetype's displacements never decrease), adjacent
 * ones merged.  *segs_p is malloc'd (NULL when there are none). */
int lc_io_view_segments(const lc_io_view_t *v, MPI_Offset q, MPI_Offset n, lc_io_seg_t **segs_p, size_t *nseg_p);

/* A data representation other than "native" (MPI 4.1 §14.5): one item
 * of the memory type occupies `item` bytes in the file, and fn converts
 * items [first, first + n) of the user's buffer to (`write`) or from
 * the file representation at `file` (n * item bytes).  The view's
 * etype and filetype are then the file-representation types
 * (lc_dt_file_rep), so view data bytes are file bytes. */
typedef struct lc_io_conv {
    MPI_Count item;
    int (*fn)(void *ctx, void *buf, MPI_Count first, MPI_Count n, void *file, bool write);
    void *ctx;
} lc_io_conv_t;

/* Data sieving for independent accesses (docs/io.md, "Data sieving"):
 * the pieces of one access that lie close together are read as one span
 * into a buffer of at most `cap` bytes and copied out; for writes the
 * span is read, the pieces copied in and the span written back under an
 * fcntl lock of the span.  ROMIO's hints "romio_ds_read" / "romio_ds_write"
 * (automatic/enable/disable) and "ind_rd_buffer_size" /
 * "ind_wr_buffer_size". */
typedef enum { LC_IO_DS_AUTO, LC_IO_DS_ENABLE, LC_IO_DS_DISABLE } lc_io_ds_mode_t;
typedef struct lc_io_sieve {
    lc_io_ds_mode_t mode;
    size_t cap;    /* bytes per span (> 0) */
    bool readable; /* writes: the descriptor can read (a span with holes is read first); else no holes are sieved */
} lc_io_sieve_t;
#define LC_IO_DS_CAP ((size_t)4 << 20)
#define LC_IO_DS_WR_CAP ((size_t)512 << 10)

/* Read or write `count` items of `mtype` at `buf` as view data bytes
 * starting at q; `conv` NULL: native (the data bytes are the packed
 * memory bytes).  *done_p gets the memory bytes moved, *fdone_p (may be
 * NULL) the view data bytes; a read stops at the end of the file (with a
 * conversion: at the last whole item).  `atomic`: the whole access holds
 * a lock on the file.  `ds` (NULL: automatic with LC_IO_DS_CAP for
 * reads, LC_IO_DS_WR_CAP for writes): data sieving in this direction. */
int lc_io_access(int fd, const lc_io_view_t *v, MPI_Offset q, void *buf, MPI_Count count, const lc_dt_t *mtype,
                 const lc_io_conv_t *conv, bool write, bool atomic, const lc_io_sieve_t *ds, size_t *done_p,
                 size_t *fdone_p);

/* ---- shared file pointer (lc_io_shfp.c) ------------------------------------ */

typedef struct lc_io_shfp {
    char *path; /* the side file (NULL: none) */
    int fd;     /* -1 until first used */
} lc_io_shfp_t;

/* Name a side file for `file` (unique per open: `tag` comes from the
 * rank that chose it); nothing is created yet. */
int lc_io_shfp_name(const char *file, unsigned long tag, char *buf, size_t len);
int lc_io_shfp_attach(lc_io_shfp_t *s, const char *path);
/* Atomically: *old_p = value; value += delta (in etypes). */
int lc_io_shfp_fetch_add(lc_io_shfp_t *s, MPI_Offset delta, MPI_Offset *old_p);
int lc_io_shfp_set(lc_io_shfp_t *s, MPI_Offset value);
/* Close the descriptor; `unlink_it`: remove the side file too. */
void lc_io_shfp_detach(lc_io_shfp_t *s, bool unlink_it);

#endif
