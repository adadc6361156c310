/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of a shared window's segment object (lc_shm_winobj.c; issue
 * 12, point 3): created alone in a 0700 directory, it is mapped only with
 * the key its creator drew and the geometry every rank computed; a wrong
 * key, length, rank count or header place, an overwritten magic, a
 * directory others may look into and a link in place of the object are
 * refused with a reason naming it, never mapped.  The mapping outlives
 * the removed name.
 */
#include "channel/lc_shm.h"
#include "util/lc_params.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lc_unit_check.h"

static void expect_refused(const char *path, const lc_shm_win_geom_t *g, const char *what, const char *name)
{
    char why[1200] = "";
    int err = 0;
    void *p = lc_shm_win_map(path, g, &err, why, sizeof(why));
    CHECKF(p == NULL, "a window segment with %s was mapped", what);
    if (p) munmap(p, g->len);
    CHECKF(!p && strstr(why, name), "the refusal of %s does not name %s: %s", what, name, why);
}

int main(void)
{
    if (lc_params_load() != 0) return 1;
    char stem[64], path[LC_SHM_PATH_MAX], dir[LC_SHM_PATH_MAX], why[1200] = "";
    snprintf(stem, sizeof(stem), "locus-unitwin%d-w0-0", (int)getpid());
    uint64_t token = 0x0123456789abcdefull;
    CHECK(lc_shm_obj_path(path, sizeof(path), stem, token, "win") == 0);
    snprintf(dir, sizeof(dir), "%s", path);
    *strrchr(dir, '/') = 0;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    lc_shm_win_geom_t g = { .key = 0x5eed5eed12345678ull, .len = 3 * page, .nranks = 4, .hdr_off = 4 * 64 };
    int err = lc_shm_win_create(path, &g, why, sizeof(why));
    CHECKF(err == 0, "cannot create %s: %s (%s)", path, strerror(err), why);
    if (err) return 1;
    struct stat st;
    CHECK(lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700 && st.st_uid == geteuid());
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600 && (size_t)st.st_size == g.len);
    /* The name is taken: a second creation fails (O_EXCL on mkdir). */
    CHECK(lc_shm_win_create(path, &g, why, sizeof(why)) == EEXIST);

    lc_shm_win_geom_t bad = g;
    bad.key ^= 1;
    expect_refused(path, &bad, "another key", path);
    bad = g;
    bad.len = 2 * page;
    expect_refused(path, &bad, "another length", path);
    bad = g;
    bad.len = 4 * page;
    expect_refused(path, &bad, "a length beyond the object", path);
    bad = g;
    bad.nranks = 5;
    expect_refused(path, &bad, "another rank count", path);
    bad = g;
    bad.hdr_off = 8 * 64;
    expect_refused(path, &bad, "the header elsewhere", path);

    /* A forged header: the magic, then the geometry it claims. */
    void *p = lc_shm_win_map(path, &g, &err, why, sizeof(why));
    CHECKF(p != NULL, "the genuine segment was refused: %s", why);
    if (!p) return 1;
    uint64_t *magic = (uint64_t *)((char *)p + g.hdr_off), saved = *magic;
    *magic = 0;
    expect_refused(path, &g, "no magic", path);
    *magic = saved;
    uint64_t *len = magic + 2, saved_len = *len;
    *len = 1ull << 40;
    expect_refused(path, &g, "a forged length", path);
    *len = saved_len;

    chmod(dir, 0755);
    expect_refused(path, &g, "a directory of mode 0755", dir);
    chmod(dir, 0700);
    char moved[LC_SHM_PATH_MAX + 16];
    snprintf(moved, sizeof(moved), "%s.moved", path);
    if (rename(path, moved) == 0 && symlink(moved, path) == 0) {
        expect_refused(path, &g, "a link in place of the object", path);
        unlink(path);
    }
    rename(moved, path);

    void *q = lc_shm_win_map(path, &g, &err, why, sizeof(why));
    CHECKF(q != NULL, "the restored segment was refused: %s", why);
    lc_shm_obj_remove(path);
    CHECK(lstat(path, &st) != 0 && lstat(dir, &st) != 0);
    /* The mappings outlive the name: both see the same memory. */
    if (q) {
        ((char *)p)[2 * page] = 42;
        CHECK(((char *)q)[2 * page] == 42);
        munmap(q, g.len);
    }
    munmap(p, g.len);
    if (failures) return 1;
    printf("PASS: window segment refused with a wrong key, geometry, directory mode or link\n");
    return 0;
}
