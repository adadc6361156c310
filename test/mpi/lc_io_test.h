/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_io_test.h — for the MPI-IO tests (io_*.c): a scratch directory that
 * every rank of the job sees (rank 0 makes it under $TMPDIR or /tmp and
 * broadcasts its name; on one host, or hosts that share that path), and
 * its removal at the end.
 */
#ifndef LC_IO_TEST_H
#define LC_IO_TEST_H

#include "lc_test.h"

#include <dirent.h>
#include <unistd.h>

static char lc_io_dir[512];

/* Make the directory; returns its name (the same on every rank). */
static inline const char *lc_io_tmpdir(const char *tag)
{
    if (lc_world_rank() == 0) {
        const char *base = getenv("TMPDIR");
        snprintf(lc_io_dir, sizeof lc_io_dir, "%s/lc_%s_XXXXXX", base && *base ? base : "/tmp", tag);
        if (!mkdtemp(lc_io_dir)) LC_FATAL("cannot make a scratch directory %s", lc_io_dir);
    }
    LC_MPI(MPI_Bcast(lc_io_dir, sizeof lc_io_dir, MPI_CHAR, 0, MPI_COMM_WORLD));
    return lc_io_dir;
}

/* A path in the directory. */
static inline const char *lc_io_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", lc_io_dir, name);
    return buf;
}

/* Remove the directory and what is left in it (collective). */
static inline void lc_io_cleanup(void)
{
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (lc_world_rank() != 0) return;
    DIR *d = opendir(lc_io_dir);
    if (d) {
        struct dirent *e;
        char p[1024];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(p, sizeof p, "%s/%s", lc_io_dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(lc_io_dir);
}

/* The error class of an MPI-IO call's return code. */
#define LC_IO_EXPECT(call, cls)                                                                              \
    do {                                                                                                     \
        int lc_io_rc_ = (call);                                                                              \
        LC_CHECK(lc_class_of(lc_io_rc_) == (cls), "%s returned class %d (%s), expected %s (%d)", #call,        \
                 lc_class_of(lc_io_rc_), lc_io_rc_ ? lc_err_str(lc_io_rc_) : "success", #cls, cls);           \
    } while (0)

#endif
