/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit test of the PMI wire protocol (src/pmi/lc_pmi_wire.c): parsing and
 * formatting of PMI-1 lines and PMI-2 length-prefixed messages, their
 * escapes, limits and malformed inputs. */
#include <stdio.h>
#include <string.h>

#include "pmi/lc_pmi_wire.h"

#include "lc_unit_check.h"

#define CHECK_STR(a, b)                                                                    \
    do {                                                                                   \
        const char *a_ = (a), *b_ = (b);                                                   \
        if (a_ == NULL || strcmp(a_, b_) != 0) {                                           \
            fprintf(stderr, "%s:%d: '%s' is '%s', expected '%s'\n", __FILE__, __LINE__, #a, \
                    a_ ? a_ : "(null)", b_);                                               \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

static lc_pmi_msg_t msg;

static int parse1(const char *s)
{
    return lc_pmi1_parse(s, strlen(s), &msg);
}

static int parse2(const char *s)
{
    return lc_pmi2_parse(s, strlen(s), &msg);
}

static void test_pmi1_parse(void)
{
    long v = 0;

    CHECK(parse1("cmd=put kvsname=lc1x2 key=k value=v\n") == 0);
    CHECK(msg.nattrs == 4);
    CHECK_STR(lc_pmi_msg_cmd(&msg), "put");
    CHECK_STR(lc_pmi_msg_get(&msg, "kvsname"), "lc1x2");
    CHECK_STR(lc_pmi_msg_get(&msg, "key"), "k");
    CHECK_STR(lc_pmi_msg_get(&msg, "value"), "v");
    CHECK(lc_pmi_msg_get(&msg, "nope") == NULL);

    /* Several spaces, no newline, '\r\n', '=' inside a value, empty value. */
    CHECK(parse1("  cmd=get_result   rc=0 value=a=b=c empty=\r\n") == 0);
    CHECK(msg.nattrs == 4);
    CHECK_STR(lc_pmi_msg_get(&msg, "value"), "a=b=c");
    CHECK_STR(lc_pmi_msg_get(&msg, "empty"), "");
    CHECK(lc_pmi_msg_get_int(&msg, "rc", &v) == 0 && v == 0);

    CHECK(parse1("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024 rc=-1") == 0);
    CHECK(lc_pmi_msg_get_int(&msg, "vallen_max", &v) == 0 && v == 1024);
    CHECK(lc_pmi_msg_get_int(&msg, "rc", &v) == 0 && v == -1);
    CHECK(lc_pmi_msg_get_int(&msg, "cmd", &v) != 0); /* not a number */
    CHECK(lc_pmi_msg_get_int(&msg, "absent", &v) != 0);

    /* mcmd counts as the command (PMI-1 spawn). */
    CHECK(parse1("mcmd=spawn\n") == 0);
    CHECK_STR(lc_pmi_msg_cmd(&msg), "spawn");

    /* Abort messages are free text to the end of the line. */
    CHECK(parse1("cmd=abort exitcode=5 message=it broke: x=1 at  rank 3  \n") == 0);
    CHECK_STR(lc_pmi_msg_get(&msg, "message"), "it broke: x=1 at  rank 3");
    CHECK(lc_pmi_msg_get_int(&msg, "exitcode", &v) == 0 && v == 5);
    CHECK(parse1("cmd=abort error_msg=a b") == 0);
    CHECK_STR(lc_pmi_msg_get(&msg, "error_msg"), "a b");

    /* Empty line: no attributes, no command. */
    CHECK(parse1("\n") == 0 && msg.nattrs == 0);
    CHECK_STR(lc_pmi_msg_cmd(&msg), "");

    /* Malformed. */
    CHECK(parse1("cmd=put garbage\n") != 0);
    CHECK(parse1("=v\n") != 0);
    CHECK(parse1("cmd=a\nkey=b\n") != 0); /* two lines */
}

static void test_pmi1_parse_limits(void)
{
    char line[LC_PMI_WIRE_MAX + 64];
    size_t n = 0;

    /* LC_PMI_ATTRS_MAX attributes parse; one more does not. */
    for (int i = 0; i < LC_PMI_ATTRS_MAX; i++)
        n += (size_t)snprintf(line + n, sizeof(line) - n, "k%d=%d ", i, i);
    CHECK(lc_pmi1_parse(line, n, &msg) == 0 && msg.nattrs == LC_PMI_ATTRS_MAX);
    snprintf(line + n, sizeof(line) - n, "extra=1");
    CHECK(lc_pmi1_parse(line, strlen(line), &msg) != 0);

    /* A line of LC_PMI_WIRE_MAX bytes parses; a longer one does not. */
    memset(line, 'x', sizeof(line));
    memcpy(line, "cmd=put value=", 14);
    CHECK(lc_pmi1_parse(line, LC_PMI_WIRE_MAX, &msg) == 0);
    CHECK(strlen(lc_pmi_msg_get(&msg, "value")) == LC_PMI_WIRE_MAX - 14);
    CHECK(lc_pmi1_parse(line, LC_PMI_WIRE_MAX + 1, &msg) != 0);
}

static void test_pmi1_format(void)
{
    char buf[256];
    lc_pmi_fmt_t f;

    lc_pmi_fmt_init(&f, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&f, "cmd", "put");
    lc_pmi_fmt_add(&f, "key", "k");
    lc_pmi_fmt_add(&f, "value", "a=b;c");
    lc_pmi_fmt_add_int(&f, "n", -42);
    CHECK(lc_pmi_fmt_finish(&f) == (ssize_t)strlen("cmd=put key=k value=a=b;c n=-42\n"));
    CHECK_STR(buf, "cmd=put key=k value=a=b;c n=-42\n");

    /* Round trip. */
    CHECK(parse1(buf) == 0);
    CHECK_STR(lc_pmi_msg_get(&msg, "value"), "a=b;c");

    /* Free text may hold spaces, nothing may hold a newline. */
    lc_pmi_fmt_init(&f, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&f, "cmd", "abort");
    lc_pmi_fmt_add(&f, "message", "two words");
    CHECK(lc_pmi_fmt_finish(&f) > 0);
    CHECK(parse1(buf) == 0);
    CHECK_STR(lc_pmi_msg_get(&msg, "message"), "two words");

    lc_pmi_fmt_init(&f, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&f, "value", "two words");
    CHECK(lc_pmi_fmt_finish(&f) == -1);
    lc_pmi_fmt_init(&f, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&f, "message", "line\nbreak");
    CHECK(lc_pmi_fmt_finish(&f) == -1);
    lc_pmi_fmt_init(&f, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&f, "bad key", "v");
    CHECK(lc_pmi_fmt_finish(&f) == -1);
    lc_pmi_fmt_init(&f, 1, buf, sizeof(buf));
    lc_pmi_fmt_add(&f, "", "v");
    CHECK(lc_pmi_fmt_finish(&f) == -1);

    /* Exactly full buffer: "k=v\n" + NUL needs 5 bytes. */
    lc_pmi_fmt_init(&f, 1, buf, 5);
    lc_pmi_fmt_add(&f, "k", "v");
    CHECK(lc_pmi_fmt_finish(&f) == 4);
    CHECK_STR(buf, "k=v\n");
    lc_pmi_fmt_init(&f, 1, buf, 4);
    lc_pmi_fmt_add(&f, "k", "v");
    CHECK(lc_pmi_fmt_finish(&f) == -1);
}

static void test_pmi2(void)
{
    char buf[256];
    lc_pmi_fmt_t f;
    ssize_t n;

    CHECK(parse2("cmd=kvs-put;key=k;value=v;") == 0);
    CHECK(msg.nattrs == 3);
    CHECK_STR(lc_pmi_msg_cmd(&msg), "kvs-put");
    CHECK_STR(lc_pmi_msg_get(&msg, "value"), "v");

    /* ";;" is a literal ';'; '=' and spaces are plain characters. */
    CHECK(parse2("cmd=x;value=a;;b;;;;c=d e;empty=;") == 0);
    CHECK_STR(lc_pmi_msg_get(&msg, "value"), "a;b;;c=d e");
    CHECK_STR(lc_pmi_msg_get(&msg, "empty"), "");

    /* Malformed: no final ';', no '=', empty key. */
    CHECK(parse2("cmd=x;key=v") != 0);
    CHECK(parse2("cmd=x;keyonly;") != 0);
    CHECK(parse2("=v;") != 0);
    CHECK(parse2("cmd=x;value=a;;") != 0); /* escaped ';' then nothing */

    /* Format with escapes and the length prefix. */
    lc_pmi_fmt_init(&f, 2, buf, sizeof(buf));
    lc_pmi_fmt_add(&f, "cmd", "kvs-put");
    lc_pmi_fmt_add(&f, "value", "a;b");
    n = lc_pmi_fmt_finish(&f);
    CHECK_STR(buf, "23    cmd=kvs-put;value=a;;b;");
    CHECK(n == 6 + 23);
    CHECK(lc_pmi2_prefix_decode(buf) == 23);
    CHECK(lc_pmi2_parse(buf + 6, (size_t)n - 6, &msg) == 0);
    CHECK_STR(lc_pmi_msg_get(&msg, "value"), "a;b");

    /* Prefix forms accepted (left or right aligned) and refused. */
    CHECK(lc_pmi2_prefix_decode("000034") == 34);
    CHECK(lc_pmi2_prefix_decode("    34") == 34);
    CHECK(lc_pmi2_prefix_decode("34    ") == 34);
    CHECK(lc_pmi2_prefix_decode("      ") == -1);
    CHECK(lc_pmi2_prefix_decode("3 4   ") == -1);
    CHECK(lc_pmi2_prefix_decode("12x456") == -1);
    CHECK(lc_pmi2_prefix_decode("999999") == -1); /* above LC_PMI_WIRE_MAX */
}

static void test_validators(void)
{
    char key[LC_PMI_KEY_MAX + 1], value[LC_PMI_VALUE_MAX + 1];

    CHECK(lc_pmi_key_is_valid("locus-bc-3"));
    CHECK(!lc_pmi_key_is_valid(""));
    CHECK(!lc_pmi_key_is_valid("a=b"));
    CHECK(!lc_pmi_key_is_valid("a;b"));
    CHECK(!lc_pmi_key_is_valid("a b"));
    memset(key, 'k', sizeof(key));
    key[LC_PMI_KEY_MAX - 1] = '\0';
    CHECK(lc_pmi_key_is_valid(key)); /* 63 characters */
    key[LC_PMI_KEY_MAX - 1] = 'k';
    key[LC_PMI_KEY_MAX] = '\0';
    CHECK(!lc_pmi_key_is_valid(key)); /* 64 */

    memset(value, 'v', sizeof(value));
    value[LC_PMI_VALUE_MAX - 1] = '\0';
    CHECK(lc_pmi1_value_is_valid(value)); /* 1023 */
    value[LC_PMI_VALUE_MAX - 1] = 'v';
    value[LC_PMI_VALUE_MAX] = '\0';
    CHECK(!lc_pmi1_value_is_valid(value)); /* 1024 */
    CHECK(lc_pmi1_value_is_valid("a=b;c"));
    CHECK(!lc_pmi1_value_is_valid("a b"));
    CHECK(!lc_pmi1_value_is_valid("a\nb"));
}

/* The %-encoding of spawn requests: any byte but NUL survives a PMI-1 value. */
static void test_encode(void)
{
    char raw[256], enc[3 * 256 + 1], dec[257];
    ssize_t n;

    const char *text = "a b=c;d%e\nf-_./:,+@~";
    n = lc_pmi_encode(text, strlen(text), enc, sizeof(enc));
    CHECK(n == (ssize_t)strlen(enc));
    CHECK_STR(enc, "a%20b%3Dc%3Bd%25e%0Af-_./:,+@~");
    CHECK(lc_pmi1_value_is_valid(enc) && strchr(enc, '=') == NULL && strchr(enc, ';') == NULL);
    CHECK(lc_pmi_decode(enc, dec, sizeof(dec)) == (ssize_t)strlen(text));
    CHECK_STR(dec, "a b=c;d%e\nf-_./:,+@~");
    for (int i = 0; i < 255; i++)
        raw[i] = (char)(i + 1);
    n = lc_pmi_encode(raw, 255, enc, sizeof(enc));
    CHECK(n > 0 && lc_pmi_decode(enc, dec, sizeof(dec)) == 255 && memcmp(dec, raw, 255) == 0);
    CHECK(lc_pmi_encode("  ", 2, enc, 6) == -1); /* needs 7 bytes */
    CHECK(lc_pmi_encode("  ", 2, enc, 7) == 6);
    CHECK(lc_pmi_encode("", 0, enc, 1) == 0 && enc[0] == '\0');
    CHECK(lc_pmi_decode("%4", dec, sizeof(dec)) == -1);
    CHECK(lc_pmi_decode("%G0", dec, sizeof(dec)) == -1);
    CHECK(lc_pmi_decode("%41%62", dec, sizeof(dec)) == 2 && strcmp(dec, "Ab") == 0);
    CHECK(lc_pmi_decode("abc", dec, 3) == -1); /* no room for the NUL */
    CHECK(lc_pmi_decode("a%00b", dec, sizeof(dec)) == 3 && strlen(dec) == 1);
}

/* lc_getranks's values: `<len>:<bytes>` or `-`, bounded by cap. */
static void test_bulk(void)
{
    char buf[64];
    size_t len = 0;
    const char *p, *v;
    size_t vlen;

    CHECK(lc_pmi_bulk_put(buf, &len, sizeof(buf), "a:b=c") == 0);
    CHECK(lc_pmi_bulk_put(buf, &len, sizeof(buf), NULL) == 0);
    CHECK(lc_pmi_bulk_put(buf, &len, sizeof(buf), "") == 0);
    CHECK(lc_pmi_bulk_put(buf, &len, sizeof(buf), "12-") == 0);
    CHECK(len == strlen("5:a:b=c-0:3:12-") && memcmp(buf, "5:a:b=c-0:3:12-", len) == 0);
    size_t before = len;
    char big[80];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = 0;
    CHECK(lc_pmi_bulk_put(buf, &len, sizeof(buf), big) != 0 && len == before); /* no room: nothing */
    p = buf;
    CHECK(lc_pmi_bulk_next(&p, buf + len, &v, &vlen) == 1 && vlen == 5 && memcmp(v, "a:b=c", 5) == 0);
    CHECK(lc_pmi_bulk_next(&p, buf + len, &v, &vlen) == 1 && v == NULL);
    CHECK(lc_pmi_bulk_next(&p, buf + len, &v, &vlen) == 1 && v != NULL && vlen == 0);
    CHECK(lc_pmi_bulk_next(&p, buf + len, &v, &vlen) == 1 && vlen == 3 && memcmp(v, "12-", 3) == 0);
    CHECK(lc_pmi_bulk_next(&p, buf + len, &v, &vlen) == 0);
    /* Malformed: a length past the end, no colon, not a number, too long. */
    const char *bad[] = { "9:abc", "3abc", "x", "99999:", "1:" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        p = bad[i];
        CHECK(lc_pmi_bulk_next(&p, bad[i] + strlen(bad[i]), &v, &vlen) == -1);
    }
}

int main(void)
{
    test_bulk();
    test_encode();
    test_pmi1_parse();
    test_pmi1_parse_limits();
    test_pmi1_format();
    test_pmi2();
    test_validators();
    if (failures != 0) {
        fprintf(stderr, "test_pmi_wire: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_pmi_wire: all checks passed\n");
    return 0;
}
