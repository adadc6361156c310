/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_file_open.c — MPI_File_open / close / delete, the table of open
 * files (handle checks, MPI_File_c2f / f2c), and the calls on the file as
 * a whole: set_size, preallocate, get_size, get_amode, get_group,
 * set/get_atomicity, sync (MPI 4.1 §14.2, §14.6.1).  Error handlers:
 * lc_mpi_file_errhandler.c.
 *
 * Open is collective and all-or-nothing: when MPI_MODE_CREATE is given,
 * rank 0 creates the file first (so MPI_MODE_EXCL fails once, for
 * everyone, when the file exists) and the others open it after it said
 * so; then every rank opens it and the ranks agree: if any failed, those
 * that succeeded close it again and every rank returns an error.
 */
#include "coll/lc_coll.h"
#include "mpi/lc_mpi_comm.h"
#include "mpi/lc_mpi_errhandler.h"
#include "mpi/lc_mpi_file.h"
#include "mpi/lc_mpi_group.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the table of open files --------------------------------------------- */

static lc_file_t **lc_files; /* [lc_files_len]; NULL = free */
static int lc_files_len;

static int lc_file_index(MPI_File fh)
{
    for (int i = 0; i < lc_files_len; i++)
        if (lc_files[i] == fh) return i;
    return -1;
}

static int lc_file_register(lc_file_t *f)
{
    for (int i = 0; i < lc_files_len; i++)
        if (!lc_files[i]) {
            lc_files[i] = f;
            return MPI_SUCCESS;
        }
    lc_file_t **n = realloc(lc_files, sizeof(*n) * (size_t)(lc_files_len + 8));
    if (!n) return lc_error(MPI_ERR_NO_MEM, "out of memory for the table of open files");
    for (int i = lc_files_len; i < lc_files_len + 8; i++) n[i] = NULL;
    n[lc_files_len] = f;
    lc_files = n;
    lc_files_len += 8;
    return MPI_SUCCESS;
}

int lc_check_file(MPI_File fh, lc_file_t **f_p)
{
    int rc = lc_check_initialized();
    if (rc) return rc;
    if (fh == MPI_FILE_NULL) return lc_error(MPI_ERR_FILE, "the file handle is MPI_FILE_NULL");
    if (lc_file_index(fh) < 0)
        return lc_error(MPI_ERR_FILE, "%p is not an open file handle (closed, or never opened)", (void *)fh);
    *f_p = fh;
    return MPI_SUCCESS;
}

LC_API MPI_Fint PMPI_File_c2f(MPI_File file)
{
    int i = file == MPI_FILE_NULL ? -1 : lc_file_index(file);
    return (MPI_Fint)(i + 1); /* MPI_FILE_NULL (and any unknown pointer) is 0 */
}
LC_MPI_ALIAS(File_c2f);

LC_API MPI_File PMPI_File_f2c(MPI_Fint file)
{
    if (file <= 0 || file > lc_files_len) return MPI_FILE_NULL;
    return lc_files[file - 1];
}
LC_MPI_ALIAS(File_f2c);

int lc_file_agree(lc_comm_t *comm, int rc, const char *what)
{
    int mine = rc ? lc_error_class_of(rc) : 0, worst = 0;
    int crc = lc_coll_allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm);
    if (rc) return rc;
    if (crc) return crc;
    if (worst) return lc_error(worst, "%s failed on another rank of the file's communicator", what);
    return MPI_SUCCESS;
}

/* ---- open ------------------------------------------------------------------ */

static int lc_file_check_amode(int amode)
{
    int access = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) + !!(amode & MPI_MODE_RDWR);
    int known = MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL |
                MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
    if (amode & ~known) return lc_error(MPI_ERR_AMODE, "amode %#x has bits that are no MPI_MODE_* constant", amode);
    if (access != 1)
        return lc_error(MPI_ERR_AMODE,
                        "amode %#x must have exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY, MPI_MODE_RDWR", amode);
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return lc_error(MPI_ERR_AMODE, "MPI_MODE_RDONLY cannot be combined with MPI_MODE_CREATE or MPI_MODE_EXCL");
    if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
        return lc_error(MPI_ERR_AMODE, "MPI_MODE_RDWR cannot be combined with MPI_MODE_SEQUENTIAL");
    return MPI_SUCCESS;
}

/* ROMIO accepts "<fs>:" in front of a path to name the file system
 * driver; Locus has one (POSIX), so the prefix is dropped. */
static const char *lc_file_strip_prefix(const char *name)
{
    static const char *prefixes[] = { "ufs:", "nfs:", "tmpfs:", "lustre:", "gpfs:", "pvfs2:", "testfs:" };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(name, prefixes[i], strlen(prefixes[i]))) return name + strlen(prefixes[i]);
    return name;
}

/* The hints every file reports (MPI 4.1 §14.2.8); user hints replace
 * them.  cb_nodes defaults to `ngroups`, the number of sets of
 * co-resident ranks (one aggregator each, lc_mpi_file_coll.c). */
static int lc_file_hints(lc_file_t *f, const lc_info_t *user, int ngroups)
{
    char nodes[16];
    snprintf(nodes, sizeof nodes, "%d", ngroups);
    const char *defaults[][2] = { { "cb_buffer_size", "16777216" }, { "romio_cb_read", "automatic" },
                                  { "romio_cb_write", "automatic" }, { "cb_nodes", nodes },
                                  { "romio_no_indep_rw", "false" },  { "romio_ds_read", "automatic" },
                                  { "romio_ds_write", "automatic" }, { "ind_rd_buffer_size", "4194304" },
                                  { "ind_wr_buffer_size", "524288" } };
    int rc = lc_info_new(&f->hints);
    for (size_t i = 0; !rc && i < sizeof defaults / sizeof defaults[0]; i++)
        rc = lc_info_set(f->hints, defaults[i][0], defaults[i][1]);
    for (int i = 0; !rc && user && i < user->n; i++)
        rc = lc_info_set(f->hints, user->entries[i].key, user->entries[i].value);
    return rc;
}

/* Collective: rank 0 creates (when asked), then everyone opens. */
static int lc_file_open_fd(lc_comm_t *c, const char *path, int amode, int *fd_p)
{
    bool create = amode & MPI_MODE_CREATE, excl = amode & MPI_MODE_EXCL;
    int rc = MPI_SUCCESS, fd = -1;
    if (create) {
        if (c->rank == 0) rc = lc_io_open(path, amode, true, excl, &fd);
        int mine = rc ? lc_error_class_of(rc) : 0;
        int crc = lc_coll_bcast(&mine, 1, MPI_INT, 0, c);
        if (crc) return crc;
        if (c->rank == 0) {
            if (rc) return rc;
        } else if (mine) {
            return lc_error(mine, "rank 0 could not create %s (see its message)", path);
        }
    }
    if (fd < 0) rc = lc_io_open(path, amode, false, false, &fd);
    rc = lc_file_agree(c, rc, "opening the file");
    if (rc) {
        if (fd >= 0) lc_io_close(fd, path);
        return rc;
    }
    *fd_p = fd;
    return MPI_SUCCESS;
}

static int lc_file_shfp_setup(lc_file_t *f)
{
    /* Rank 0 names the side file, so that every rank uses the same one. */
    unsigned long tag = 0;
    if (f->comm->rank == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        tag = ((unsigned long)getpid() << 32) ^ (unsigned long)ts.tv_nsec ^ ((unsigned long)ts.tv_sec << 20);
    }
    int rc = lc_coll_bcast(&tag, 1, MPI_UNSIGNED_LONG, 0, f->comm);
    char name[4096];
    if (!rc) rc = lc_io_shfp_name(f->path, tag, name, sizeof name);
    if (!rc) rc = lc_io_shfp_attach(&f->shfp, name);
    return rc;
}

static void lc_file_destroy(lc_file_t *f)
{
    int i = lc_file_index(f);
    if (i >= 0) lc_files[i] = NULL;
    lc_io_shfp_detach(&f->shfp, false);
    lc_file_drop_view(f);
    lc_info_free(f->hints);
    lc_errhandler_release(f->errhandler);
    if (f->comm) lc_comm_free_handle(f->comm);
    free(f->path);
    free(f);
}

static int lc_file_open(lc_comm_t *c, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    lc_info_t *user = NULL;
    /* A rank with bad arguments still takes part in the agreement, so
     * that the others return an error instead of waiting for it. */
    int rc = lc_check_ptr(filename, "filename");
    if (!rc) rc = lc_check_ptr(fh, "fh");
    if (!rc) rc = lc_check_info_or_null(info, &user);
    if (!rc) rc = lc_file_check_amode(amode);
    /* Every rank must give the same amode (MPI 4.1 §14.2.1). */
    int mm[2] = { amode, -amode }, agreed[2];
    int crc = lc_coll_allreduce(mm, agreed, 2, MPI_INT, MPI_MAX, c);
    if (crc) return crc;
    if (!rc && agreed[0] != -agreed[1])
        rc = lc_error(MPI_ERR_NOT_SAME, "the ranks gave different amodes (this rank %#x): each must give the same",
                      amode);
    if ((rc = lc_file_agree(c, rc, "checking the arguments of MPI_File_open"))) return rc;
    /* The sets of co-resident ranks: each counted by its leader. */
    int leader = lc_file_cb_leader(c) == c->rank, ngroups = 1;
    if ((rc = lc_coll_allreduce(&leader, &ngroups, 1, MPI_INT, MPI_SUM, c))) return rc;
    lc_file_t *f = calloc(1, sizeof *f);
    if (!f) return lc_error(MPI_ERR_NO_MEM, "out of memory opening a file");
    f->fd = -1;
    f->shfp.fd = -1;
    f->errhandler = lc_file_default_errhandler();
    lc_errhandler_retain(f->errhandler);
    lc_file_default_view(f);
    f->amode = amode;
    if (!(f->path = strdup(lc_file_strip_prefix(filename))))
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory opening a file");
    if (!rc) rc = lc_file_hints(f, user, ngroups);
    /* Local failures are agreed on before the collective steps below. */
    if ((rc = lc_file_agree(c, rc, "preparing the file's hints"))) goto fail;
    if ((rc = lc_mpi_comm_derive(c, c->rank, c->size, c->world_ranks, &f->comm))) goto fail;
    if ((rc = lc_file_open_fd(f->comm, f->path, amode, &f->fd))) goto fail;
    if ((rc = lc_file_shfp_setup(f))) goto fail_fd;
    if (amode & MPI_MODE_APPEND) {
        /* Both pointers start at the end (default view: etypes are bytes). */
        MPI_Offset size = 0;
        if ((rc = lc_io_get_size(f->fd, &size))) goto fail_fd;
        f->pos = size;
        if (f->comm->rank == 0) rc = lc_io_shfp_set(&f->shfp, size);
        if ((rc = lc_file_agree(f->comm, rc, "setting the shared pointer to the end (MPI_MODE_APPEND)")))
            goto fail_fd;
    }
    if ((rc = lc_file_register(f))) goto fail_fd;
    *fh = f;
    return MPI_SUCCESS;
fail_fd:
    lc_io_close(f->fd, f->path);
fail:
    lc_file_destroy(f);
    return rc;
}

LC_API int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_file_open(c, filename, amode, info, fh));
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(NULL, "MPI_File_open", rc);
}
LC_MPI_ALIAS(File_open);

LC_API int PMPI_File_close(MPI_File *fh)
{
    lc_file_t *f = NULL;
    int rc;
    LC_TRY(lc_check_ptr(fh, "fh"));
    LC_TRY(lc_check_file(*fh, &f));
    if (f->split_active)
        LC_TRY(lc_error(MPI_ERR_OTHER, "a split collective (MPI_File_*_begin) is still open: call its _end first"));
    /* Every rank stops using the file (and its shared pointer) before
     * rank 0 removes what must be removed. */
    rc = lc_io_close(f->fd, f->path);
    f->fd = -1;
    int arc = lc_file_agree(f->comm, rc, "closing the file");
    if (f->comm->rank == 0) {
        lc_io_shfp_detach(&f->shfp, true);
        if (f->amode & MPI_MODE_DELETE_ON_CLOSE) {
            int drc = lc_io_delete(f->path);
            if (!arc) arc = drc;
        }
    }
    lc_file_destroy(f);
    *fh = MPI_FILE_NULL;
    f = NULL;
    LC_TRY(arc);
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_close", rc);
}
LC_MPI_ALIAS(File_close);

LC_API int PMPI_File_delete(const char *filename, MPI_Info info)
{
    lc_info_t *hints;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(filename, "filename"));
    LC_TRY(lc_check_info_or_null(info, &hints));
    LC_TRY(lc_io_delete(lc_file_strip_prefix(filename)));
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(NULL, "MPI_File_delete", rc);
}
LC_MPI_ALIAS(File_delete);

/* ---- the file as a whole ------------------------------------------------- */

/* set_size and preallocate: rank 0 changes the file, everyone learns the
 * outcome (every rank gives the same size, MPI 4.1 §14.2.4). */
static int lc_file_resize(lc_file_t *f, MPI_Offset size, bool grow_only, const char *what)
{
    int rc = lc_file_check_mode(f, true, false);
    if (!rc && size < 0) rc = lc_error(MPI_ERR_ARG, "size %lld is negative", (long long)size);
    /* Every rank's arguments are checked before rank 0 changes the file. */
    if ((rc = lc_file_agree(f->comm, rc, "checking the size"))) return rc;
    if (f->comm->rank == 0) rc = grow_only ? lc_io_preallocate(f->fd, size) : lc_io_set_size(f->fd, size);
    return lc_file_agree(f->comm, rc, what);
}

LC_API int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    lc_file_t *f = NULL;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_file_resize(f, size, false, "resizing the file"));
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_set_size", rc);
}
LC_MPI_ALIAS(File_set_size);

LC_API int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    lc_file_t *f = NULL;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_file_resize(f, size, true, "preallocating the file"));
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_preallocate", rc);
}
LC_MPI_ALIAS(File_preallocate);

LC_API int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    lc_file_t *f = NULL;
    MPI_Offset s;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_check_ptr(size, "size"));
    LC_TRY(lc_io_get_size(f->fd, &s));
    *size = s;
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_get_size", rc);
}
LC_MPI_ALIAS(File_get_size);

LC_API int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    lc_file_t *f = NULL;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_check_ptr(amode, "amode"));
    *amode = f->amode;
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_get_amode", rc);
}
LC_MPI_ALIAS(File_get_amode);

LC_API int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    lc_file_t *f = NULL;
    lc_group_t *g;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_check_ptr(group, "group"));
    LC_TRY(lc_group_new(f->comm->size, f->comm->world_ranks, &g));
    LC_TRY(lc_group_publish(g, group));
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_get_group", rc);
}
LC_MPI_ALIAS(File_get_group);

LC_API int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    lc_file_t *f = NULL;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    int mm[2] = { !!flag, -!!flag }, agreed[2];
    LC_TRY(lc_coll_allreduce(mm, agreed, 2, MPI_INT, MPI_MAX, f->comm));
    if (agreed[0] != -agreed[1])
        LC_TRY(lc_error(MPI_ERR_NOT_SAME, "the ranks gave different atomicity flags: each must give the same"));
    f->atomic = flag != 0;
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_set_atomicity", rc);
}
LC_MPI_ALIAS(File_set_atomicity);

LC_API int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    lc_file_t *f = NULL;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    LC_TRY(lc_check_ptr(flag, "flag"));
    *flag = f->atomic;
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_get_atomicity", rc);
}
LC_MPI_ALIAS(File_get_atomicity);

/* Every rank's writes reach the storage device, and (the barrier) what
 * one rank wrote before the call is visible to every rank after it. */
LC_API int PMPI_File_sync(MPI_File fh)
{
    lc_file_t *f = NULL;
    int rc;
    LC_TRY(lc_check_file(fh, &f));
    if (f->amode & MPI_MODE_RDONLY) {
        LC_TRY(lc_file_agree(f->comm, MPI_SUCCESS, "syncing the file"));
    } else {
        LC_TRY(lc_file_agree(f->comm, lc_io_sync(f->fd), "syncing the file"));
    }
    return MPI_SUCCESS;
err:
    return lc_mpi_file_error(f, "MPI_File_sync", rc);
}
LC_MPI_ALIAS(File_sync);
