/* SPDX-License-Identifier: BSD-3-Clause */
/* What the PMI client's files share (lc_pmi.c owns the connection). */
#ifndef LC_PMI_IMPL_H
#define LC_PMI_IMPL_H

#include "pmi/lc_pmi.h"

/* One request (built in fmt) and its reply, whose cmd must be `expect`
 * (see lc_pmi.c).  The caller serializes calls. */
int lc_pmi_call(lc_pmi_fmt_t *fmt, const char *expect, lc_pmi_msg_t *reply_p, long *rc_p);
/* The same for a request of several lines (len bytes, each line ended by
 * '\n'), answered by one reply (lc_pmi_spawn.c). */
int lc_pmi_call_lines(const char *lines, size_t len, const char *expect, lc_pmi_msg_t *reply_p, long *rc_p);
/* A request answered by one line longer than the short replies (Locus's
 * lc_getranks): the reply, without its '\n' and NUL-terminated, into
 * line[cap]; returns its length, or -1 after saying why. */
ssize_t lc_pmi_call_long(const char *req, size_t len, char *line, size_t cap);
int lc_pmi_is_initialized(void);
int lc_pmi_is_singleton(void);
/* Forget a singleton's published names (lc_pmi_finalize). */
void lc_pmi_names_fini(void);

#endif
