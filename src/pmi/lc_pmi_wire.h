/* SPDX-License-Identifier: BSD-3-Clause */
/* PMI wire protocol: parse and format the text messages that PMI clients
 * (the MPI library) and PMI servers (mpiexec, hydra, Slurm) exchange.
 *
 * Two framings exist, and one connection uses one of them after its first
 * line:
 *
 *  PMI-1   `cmd=put kvsname=x key=k value=v\n`
 *          Attributes are key=value tokens separated by one or more spaces;
 *          the line ends with '\n'.  The value is everything after the
 *          first '=' up to the next space, so a value may contain '=' but
 *          never a space or a newline.  Exception (the one free-text
 *          attribute the protocol has): `message=` and `error_msg=` in an
 *          abort take the rest of the line, spaces included.
 *
 *  PMI-2   `000034cmd=kvs-put;key=k;value=v;`
 *          A 6-character decimal length of the body (space padded, as
 *          MPICH and Slurm write it: "%-6d"), then `key=value;` pairs.
 *          Inside a value ";;" stands for a literal ';'.
 *
 * A client always opens with a PMI-1 line `cmd=init pmi_version=V ...`;
 * the server answers in PMI-1 and from then on both use the framing of V.
 *
 * These are pure functions: no I/O, no allocation, no global state.
 * Client (src/pmi/lc_pmi.c) and server (tools/mpiexec) share them.
 */
#ifndef LC_PMI_WIRE_H
#define LC_PMI_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Buffer sizes including the terminating NUL, as PMI reports them in
 * `cmd=maxes` (so a key has at most 63 characters, a value 1023). */
#define LC_PMI_KEY_MAX     64
#define LC_PMI_VALUE_MAX   1024
#define LC_PMI_KVSNAME_MAX 256

/* Longest wire message either side accepts (PMI-1 line or PMI-2 body).
 * A put of the longest key, value and kvsname fits with room to spare. */
#define LC_PMI_WIRE_MAX 4096
/* PMI-2 length prefix: 6 characters, so a body is at most 999999 bytes
 * on the wire; we accept LC_PMI_WIRE_MAX. */
#define LC_PMI2_PREFIX_LEN 6
/* Most attributes in one message (the largest, fullinit-response, has 9). */
#define LC_PMI_ATTRS_MAX 32

typedef struct lc_pmi_attr {
    const char *key;   /* NUL-terminated, points into lc_pmi_msg_t.buf */
    const char *value; /* NUL-terminated and unescaped, into .buf */
} lc_pmi_attr_t;

/* One parsed message.  Self-contained: keys and values are copied into
 * .buf, so the input buffer may be reused right after parsing. */
typedef struct lc_pmi_msg {
    int           nattrs;
    lc_pmi_attr_t attrs[LC_PMI_ATTRS_MAX];
    char          buf[LC_PMI_WIRE_MAX + LC_PMI_ATTRS_MAX];
} lc_pmi_msg_t;

/* Parse one PMI-1 line (with or without its trailing '\n'; a trailing
 * '\r' is tolerated).  Returns 0, or -1 when the line is malformed (a
 * token without '=', an empty key, too many attributes, too long).
 * Tokens without '=' directly after `message=`/`error_msg=` belong to
 * that value. */
int lc_pmi1_parse(const char *line, size_t len, lc_pmi_msg_t *msg_p);

/* Parse one PMI-2 body (the bytes after the 6-character length prefix).
 * Returns 0, or -1 when malformed (missing '=' or final ';', too long). */
int lc_pmi2_parse(const char *body, size_t len, lc_pmi_msg_t *msg_p);

/* Decode a PMI-2 length prefix (exactly LC_PMI2_PREFIX_LEN characters:
 * decimal digits, spaces around them allowed).  Returns the body length,
 * or -1 if the prefix is not a number or exceeds LC_PMI_WIRE_MAX. */
ssize_t lc_pmi2_prefix_decode(const char prefix[LC_PMI2_PREFIX_LEN]);

/* Value of attribute `key`, or NULL if absent.  The first match wins. */
const char *lc_pmi_msg_get(const lc_pmi_msg_t *msg, const char *key);

/* Integer value of attribute `key`: 0 and *value_p set, or -1 if the
 * attribute is absent or not a complete decimal integer. */
int lc_pmi_msg_get_int(const lc_pmi_msg_t *msg, const char *key, long *value_p);

/* The `cmd` (or PMI-1 `mcmd`) attribute, or "" if there is none. */
const char *lc_pmi_msg_cmd(const lc_pmi_msg_t *msg);

/* Message builder.  Usage:
 *     lc_pmi_fmt_t f;
 *     lc_pmi_fmt_init(&f, 1, buf, sizeof(buf));
 *     lc_pmi_fmt_add(&f, "cmd", "put"); ...
 *     ssize_t n = lc_pmi_fmt_finish(&f);   // bytes to send, or -1
 * Errors (no room, a character the framing cannot carry) are sticky and
 * reported once by lc_pmi_fmt_finish, so callers check only there. */
typedef struct lc_pmi_fmt {
    char  *buf;
    size_t cap;
    size_t len;
    int    version; /* 1 or 2 */
    int    failed;
} lc_pmi_fmt_t;

/* version 1 or 2.  For 2, the first 6 bytes are reserved for the prefix. */
void lc_pmi_fmt_init(lc_pmi_fmt_t *fmt, int version, char *buf, size_t cap);

/* Append key=value.  PMI-1 refuses a value with a space or newline
 * (except the free-text keys above, whose newlines it refuses) and
 * PMI-2 escapes ';' as ";;".  Keys may not contain ' ', '=', ';', '\n'. */
void lc_pmi_fmt_add(lc_pmi_fmt_t *fmt, const char *key, const char *value);
void lc_pmi_fmt_add_int(lc_pmi_fmt_t *fmt, const char *key, long value);

/* Terminate the message ('\n' for PMI-1; the length prefix for PMI-2)
 * and NUL-terminate the buffer.  Returns the wire length (without the
 * NUL), or -1 if any earlier step failed. */
ssize_t lc_pmi_fmt_finish(lc_pmi_fmt_t *fmt);

/* True if `s` can be a PMI key: 1..LC_PMI_KEY_MAX-1 characters, none of
 * ' ', '=', ';', '\n', '\r'. */
bool lc_pmi_key_is_valid(const char *s);

/* True if `s` can be a value on a PMI-1 wire: shorter than LC_PMI_VALUE_MAX,
 * no ' ', '\n', '\r' (PMI-1 cannot carry them). */
bool lc_pmi1_value_is_valid(const char *s);

/* Any bytes as one PMI value (Locus's spawn request, docs/dynamic.md):
 * letters, digits and "-_./:,+@~" stay, every other byte becomes %XX
 * (two upper-case hex digits), so the result has no space, '=', ';',
 * newline or '%' of its own.  lc_pmi_encode writes the encoding of in[n]
 * and a NUL into out[cap]; returns its length, or -1 if it does not fit
 * (at most 3n + 1 bytes are needed). */
ssize_t lc_pmi_encode(const char *in, size_t n, char *out, size_t cap);
/* Decode s into out[cap] (NUL-terminated; a %00 would be a NUL inside
 * the result, which the caller sees as a length beyond strlen).  Returns
 * the decoded length, or -1 on a malformed %-sequence or no room. */
ssize_t lc_pmi_decode(const char *s, char *out, size_t cap);

/* Locus's bulk get (docs/launcher.md "Bulk get"), PMI-1 framing only:
 *   cmd=lc_getranks prefix=P first=F count=C maxlen=M
 *   cmd=lc_getranks_result rc=0 first=F count=N values=E...
 * The values of keys P<F> .. P<F+N-1> (N >= 1, N <= C: as many as fit a
 * line of M bytes, '\n' included), each entry `<length>:<bytes>` or `-`
 * for a key nobody put.  `values=` is the last attribute.  The server says
 * it serves the command with `lc_bulk_max=M` in its `maxes` reply; other
 * launchers never see it. */
#define LC_PMI_BULK_MAX 32768 /* longest reply line either side accepts */
#define LC_PMI_BULK_MIN 2048  /* a maxlen that always fits one entry */

/* Append one entry (value NULL: absent) at buf[*len_p], within cap bytes
 * (no NUL written).  0, or -1 if it does not fit (nothing appended). */
int lc_pmi_bulk_put(char *buf, size_t *len_p, size_t cap, const char *value);

/* Take the next entry of `values=` from *p_p (which ends at `end`): 1 and
 * *value_p (NULL: absent) with *vlen_p bytes (not NUL-terminated); 0 at
 * the end; -1 malformed. */
int lc_pmi_bulk_next(const char **p_p, const char *end, const char **value_p, size_t *vlen_p);

#endif /* LC_PMI_WIRE_H */
