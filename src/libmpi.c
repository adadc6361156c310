/* SPDX-License-Identifier: BSD-3-Clause */
/* libmpi.so.12: the one shared library users link.  All code lives in the
 * per-layer archives folded in with --whole-archive; this file only names
 * the library for `strings libmpi.so.12 | grep Locus`. */
#include "lc_config.h"
__attribute__((used)) static const char lc_library_ident[] = "Locus MPI " LOCUS_VERSION;
