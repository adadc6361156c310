/* SPDX-License-Identifier: BSD-3-Clause */
/* PMI-1 / PMI-2 wire parsing and formatting.  See lc_pmi_wire.h for the
 * two framings.  Parsing copies keys and values into the message's own
 * buffer (unescaping PMI-2's ";;"), so a parsed message never points into
 * the caller's receive buffer. */
#include "pmi/lc_pmi_wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Attributes whose value is free text running to the end of a PMI-1 line
 * (abort messages); every other value ends at a space. */
static bool lc_pmi1_key_is_free_text(const char *key)
{
    return strcmp(key, "message") == 0 || strcmp(key, "error_msg") == 0;
}

/* Copy n bytes into msg->buf at *used and NUL-terminate; NULL if no room. */
static char *lc_pmi_msg_store(lc_pmi_msg_t *msg, size_t *used, const char *s, size_t n)
{
    char *dst;

    if (*used + n + 1 > sizeof(msg->buf))
        return NULL;
    dst = msg->buf + *used;
    memcpy(dst, s, n);
    dst[n] = '\0';
    *used += n + 1;
    return dst;
}

static int lc_pmi_msg_append(lc_pmi_msg_t *msg, const char *key, const char *value)
{
    if (msg->nattrs >= LC_PMI_ATTRS_MAX || key[0] == '\0')
        return -1;
    msg->attrs[msg->nattrs].key   = key;
    msg->attrs[msg->nattrs].value = value;
    msg->nattrs++;
    return 0;
}

int lc_pmi1_parse(const char *line, size_t len, lc_pmi_msg_t *msg_p)
{
    size_t used = 0, pos = 0;

    msg_p->nattrs = 0;
    /* The newline (and a '\r' before it, from hand-typed tests) is framing. */
    if (len > 0 && line[len - 1] == '\n')
        len--;
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (len > LC_PMI_WIRE_MAX || memchr(line, '\n', len) != NULL)
        return -1;

    while (pos < len) {
        const char *tok, *eq;
        size_t toklen;
        char *key, *value;

        while (pos < len && line[pos] == ' ')
            pos++;
        if (pos == len)
            break;
        tok = line + pos;
        while (pos < len && line[pos] != ' ')
            pos++;
        toklen = (size_t)(line + pos - tok);
        eq = memchr(tok, '=', toklen);
        if (eq == NULL || eq == tok)
            return -1;
        key = lc_pmi_msg_store(msg_p, &used, tok, (size_t)(eq - tok));
        if (key == NULL)
            return -1;
        if (lc_pmi1_key_is_free_text(key)) {
            /* The rest of the line, spaces included, minus trailing blanks. */
            size_t end = len;
            while (end > (size_t)(eq + 1 - line) && line[end - 1] == ' ')
                end--;
            value = lc_pmi_msg_store(msg_p, &used, eq + 1, end - (size_t)(eq + 1 - line));
            pos = len;
        } else {
            value = lc_pmi_msg_store(msg_p, &used, eq + 1, toklen - (size_t)(eq + 1 - tok));
        }
        if (value == NULL || lc_pmi_msg_append(msg_p, key, value) != 0)
            return -1;
    }
    return 0;
}

int lc_pmi2_parse(const char *body, size_t len, lc_pmi_msg_t *msg_p)
{
    size_t used = 0, pos = 0;

    msg_p->nattrs = 0;
    if (len > LC_PMI_WIRE_MAX)
        return -1;

    while (pos < len) {
        size_t kstart = pos, vlen = 0;
        char *key, *value;

        while (pos < len && body[pos] != '=' && body[pos] != ';')
            pos++;
        if (pos == len || body[pos] != '=' || pos == kstart)
            return -1;
        key = lc_pmi_msg_store(msg_p, &used, body + kstart, pos - kstart);
        if (key == NULL)
            return -1;
        pos++; /* '=' */

        /* Unescape the value in place in msg->buf: ";;" -> ';', a single
         * ';' ends it.  Reserve the worst case first (no escapes). */
        value = msg_p->buf + used;
        for (;;) {
            if (pos == len)
                return -1; /* every pair ends with ';' */
            if (body[pos] == ';') {
                if (pos + 1 < len && body[pos + 1] == ';') {
                    if (used + vlen + 1 >= sizeof(msg_p->buf))
                        return -1;
                    value[vlen++] = ';';
                    pos += 2;
                    continue;
                }
                pos++;
                break;
            }
            if (used + vlen + 1 >= sizeof(msg_p->buf))
                return -1;
            value[vlen++] = body[pos++];
        }
        value[vlen] = '\0';
        used += vlen + 1;
        if (lc_pmi_msg_append(msg_p, key, value) != 0)
            return -1;
    }
    return 0;
}

ssize_t lc_pmi2_prefix_decode(const char prefix[LC_PMI2_PREFIX_LEN])
{
    size_t i = 0;
    long n = 0;
    int digits = 0;

    while (i < LC_PMI2_PREFIX_LEN && prefix[i] == ' ')
        i++;
    while (i < LC_PMI2_PREFIX_LEN && prefix[i] >= '0' && prefix[i] <= '9') {
        n = n * 10 + (prefix[i] - '0');
        digits++;
        i++;
    }
    while (i < LC_PMI2_PREFIX_LEN && prefix[i] == ' ')
        i++;
    if (i != LC_PMI2_PREFIX_LEN || digits == 0 || n > LC_PMI_WIRE_MAX)
        return -1;
    return (ssize_t)n;
}

const char *lc_pmi_msg_get(const lc_pmi_msg_t *msg, const char *key)
{
    for (int i = 0; i < msg->nattrs; i++)
        if (strcmp(msg->attrs[i].key, key) == 0)
            return msg->attrs[i].value;
    return NULL;
}

int lc_pmi_msg_get_int(const lc_pmi_msg_t *msg, const char *key, long *value_p)
{
    const char *s = lc_pmi_msg_get(msg, key);
    char *end;
    long v;

    if (s == NULL || s[0] == '\0')
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *value_p = v;
    return 0;
}

const char *lc_pmi_msg_cmd(const lc_pmi_msg_t *msg)
{
    const char *cmd = lc_pmi_msg_get(msg, "cmd");

    if (cmd == NULL)
        cmd = lc_pmi_msg_get(msg, "mcmd");
    return cmd != NULL ? cmd : "";
}

void lc_pmi_fmt_init(lc_pmi_fmt_t *fmt, int version, char *buf, size_t cap)
{
    fmt->buf     = buf;
    fmt->cap     = cap;
    fmt->version = version;
    fmt->failed  = (version != 1 && version != 2);
    fmt->len     = version == 2 ? LC_PMI2_PREFIX_LEN : 0;
    if (fmt->len >= cap)
        fmt->failed = 1;
}

static void lc_pmi_fmt_putc(lc_pmi_fmt_t *fmt, char c)
{
    /* After this character, keep room for what finish appends: '\n' and
     * NUL for PMI-1, NUL for PMI-2. */
    size_t reserve = fmt->version == 1 ? 2 : 1;

    if (fmt->len + 1 + reserve > fmt->cap) {
        fmt->failed = 1;
        return;
    }
    fmt->buf[fmt->len++] = c;
}

bool lc_pmi_key_is_valid(const char *s)
{
    size_t n = strlen(s);

    return n > 0 && n < LC_PMI_KEY_MAX && strpbrk(s, " =;\n\r") == NULL;
}

bool lc_pmi1_value_is_valid(const char *s)
{
    return strlen(s) < LC_PMI_VALUE_MAX && strpbrk(s, " \n\r") == NULL;
}

void lc_pmi_fmt_add(lc_pmi_fmt_t *fmt, const char *key, const char *value)
{
    size_t n = strlen(key);

    if (fmt->failed)
        return;
    /* Wire keys are not limited to LC_PMI_KEY_MAX (attribute names such as
     * "pmi_subversion" are protocol words); only their characters matter. */
    if (n == 0 || strpbrk(key, " =;\n\r") != NULL) {
        fmt->failed = 1;
        return;
    }
    if (fmt->version == 1) {
        if (fmt->len > 0)
            lc_pmi_fmt_putc(fmt, ' ');
        if (strpbrk(value, "\n\r") != NULL ||
            (!lc_pmi1_key_is_free_text(key) && strchr(value, ' ') != NULL)) {
            fmt->failed = 1;
            return;
        }
    }
    for (size_t i = 0; i < n; i++)
        lc_pmi_fmt_putc(fmt, key[i]);
    lc_pmi_fmt_putc(fmt, '=');
    for (const char *p = value; *p; p++) {
        lc_pmi_fmt_putc(fmt, *p);
        if (fmt->version == 2 && *p == ';')
            lc_pmi_fmt_putc(fmt, ';');
    }
    if (fmt->version == 2)
        lc_pmi_fmt_putc(fmt, ';');
}

void lc_pmi_fmt_add_int(lc_pmi_fmt_t *fmt, const char *key, long value)
{
    char num[24];

    snprintf(num, sizeof(num), "%ld", value);
    lc_pmi_fmt_add(fmt, key, num);
}

ssize_t lc_pmi_fmt_finish(lc_pmi_fmt_t *fmt)
{
    if (fmt->failed)
        return -1;
    if (fmt->version == 1) {
        /* putc kept room for this newline and the NUL. */
        fmt->buf[fmt->len++] = '\n';
        fmt->buf[fmt->len]   = '\0';
    } else {
        size_t body = fmt->len - LC_PMI2_PREFIX_LEN;
        char prefix[LC_PMI2_PREFIX_LEN + 1];

        if (body > LC_PMI_WIRE_MAX)
            return -1;
        /* "%-6d": left-aligned, space padded, as MPICH and Slurm write it. */
        snprintf(prefix, sizeof(prefix), "%-6zu", body);
        memcpy(fmt->buf, prefix, LC_PMI2_PREFIX_LEN);
        fmt->buf[fmt->len] = '\0';
    }
    if (fmt->version == 1 && fmt->len - 1 > LC_PMI_WIRE_MAX)
        return -1;
    return (ssize_t)fmt->len;
}

static bool lc_pmi_enc_plain(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != '\0' && strchr("-_./:,+@~", c) != NULL);
}

ssize_t lc_pmi_encode(const char *in, size_t n, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)in[i];

        if (lc_pmi_enc_plain(c)) {
            if (len + 1 >= cap)
                return -1;
            out[len++] = (char)c;
        } else {
            if (len + 3 >= cap)
                return -1;
            out[len++] = '%';
            out[len++] = hex[c >> 4];
            out[len++] = hex[c & 15];
        }
    }
    if (len >= cap)
        return -1;
    out[len] = '\0';
    return (ssize_t)len;
}

static int lc_pmi_hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

ssize_t lc_pmi_decode(const char *s, char *out, size_t cap)
{
    size_t len = 0;

    for (; *s; s++) {
        int c = (unsigned char)*s;

        if (c == '%') {
            int hi = lc_pmi_hexval(s[1]), lo = hi < 0 ? -1 : lc_pmi_hexval(s[2]);

            if (hi < 0 || lo < 0)
                return -1;
            c = hi * 16 + lo;
            s += 2;
        }
        if (len + 1 >= cap)
            return -1;
        out[len++] = (char)c;
    }
    if (len >= cap)
        return -1;
    out[len] = '\0';
    return (ssize_t)len;
}

int lc_pmi_bulk_put(char *buf, size_t *len_p, size_t cap, const char *value)
{
    char head[24];
    size_t n = value != NULL ? strlen(value) : 0;
    int h = value != NULL ? snprintf(head, sizeof(head), "%zu:", n) : snprintf(head, sizeof(head), "-");

    if (h < 0 || *len_p + (size_t)h + n > cap)
        return -1;
    memcpy(buf + *len_p, head, (size_t)h);
    if (n > 0)
        memcpy(buf + *len_p + h, value, n);
    *len_p += (size_t)h + n;
    return 0;
}

int lc_pmi_bulk_next(const char **p_p, const char *end, const char **value_p, size_t *vlen_p)
{
    const char *p = *p_p;
    size_t n = 0;

    if (p >= end)
        return 0;
    if (*p == '-') {
        *value_p = NULL;
        *vlen_p = 0;
        *p_p = p + 1;
        return 1;
    }
    if (*p < '0' || *p > '9')
        return -1;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        n = n * 10 + (size_t)(*p - '0');
        if (n >= LC_PMI_VALUE_MAX)
            return -1;
    }
    if (p >= end || *p != ':' || (size_t)(end - p - 1) < n)
        return -1;
    *value_p = p + 1;
    *vlen_p = n;
    *p_p = p + 1 + n;
    return 1;
}
