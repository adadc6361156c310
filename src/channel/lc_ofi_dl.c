/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_ofi_dl.c — libfabric, loaded when the network channel first needs it.
 *
 * Why not linked: loading Debian's libfabric.so.1 loads its PSM
 * providers' libraries, and libinfinipath's constructor sleeps ~830 times
 * for 125 us probing for its hardware: 0.20 s of every process's start
 * (an empty C program linked with libfabric: 0.20 s, without: 0.00),
 * paid by every rank of a job that never leaves shared memory.  Now a job
 * pays it when its first rank opens an ofi endpoint (ranks on other hosts,
 * containers without a shared kernel path, LOCUS_CHANNEL=ofi), and a
 * single-host job runs where libfabric is not installed at all.
 *
 * Of libfabric's API only five entry points are symbols; the rest are
 * inline functions calling through the objects' operation tables.  Those
 * five are defined here (hidden: libmpi exports only MPI's names, so an
 * application's own libfabric is untouched) and forward to the loaded
 * library's; the first call loads it (pthread_once), whichever it is.
 * dlsym, not dlvsym: it gives each name's default version, the one a link
 * against the same library would have bound.
 */
#include "channel/lc_ofi_impl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct {
    void *lib;
    char why[256]; /* why it could not be loaded ("" when it was) */
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *, struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
} lc_fi;

static pthread_once_t lc_fi_once = PTHREAD_ONCE_INIT;

static void lc_fi_load(void)
{
    /* By soname first (LD_LIBRARY_PATH and the loader's paths decide, as
     * for a linked library), then where pkg-config found it at build. */
    void *lib = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen(LC_LIBFABRIC_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(lc_fi.why, sizeof lc_fi.why, "%s", e ? e : "libfabric.so.1 not found");
        return;
    }
    /* POSIX: a dlsym result converts to a function pointer. */
    lc_fi.getinfo = (int (*)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                             struct fi_info **))dlsym(lib, "fi_getinfo");
    lc_fi.freeinfo = (void (*)(struct fi_info *))dlsym(lib, "fi_freeinfo");
    lc_fi.dupinfo = (struct fi_info * (*)(const struct fi_info *)) dlsym(lib, "fi_dupinfo");
    lc_fi.fabric = (int (*)(struct fi_fabric_attr *, struct fid_fabric **, void *))dlsym(lib, "fi_fabric");
    lc_fi.strerror = (const char *(*)(int))dlsym(lib, "fi_strerror");
    if (!lc_fi.getinfo || !lc_fi.freeinfo || !lc_fi.dupinfo || !lc_fi.fabric || !lc_fi.strerror) {
        snprintf(lc_fi.why, sizeof lc_fi.why, "the libfabric.so.1 found lacks fi_getinfo, fi_freeinfo, "
                                              "fi_dupinfo, fi_fabric or fi_strerror");
        dlclose(lib);
        return;
    }
    lc_fi.lib = lib;
}

const char *lc_ofi_dl_why(void)
{
    pthread_once(&lc_fi_once, lc_fi_load);
    return lc_fi.lib ? NULL : lc_fi.why;
}

int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
               const struct fi_info *hints, struct fi_info **info)
{
    if (lc_ofi_dl_why()) return -FI_ENOSYS;
    return lc_fi.getinfo(version, node, service, flags, hints, info);
}

void fi_freeinfo(struct fi_info *info)
{
    /* Whatever there is to free, libfabric made: it is loaded then. */
    if (info && !lc_ofi_dl_why()) lc_fi.freeinfo(info);
}

struct fi_info *fi_dupinfo(const struct fi_info *info)
{
    if (lc_ofi_dl_why()) return NULL;
    return lc_fi.dupinfo(info);
}

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    if (lc_ofi_dl_why()) return -FI_ENOSYS;
    return lc_fi.fabric(attr, fabric, context);
}

const char *fi_strerror(int errnum)
{
    if (lc_ofi_dl_why()) return lc_fi.why;
    return lc_fi.strerror(errnum);
}
