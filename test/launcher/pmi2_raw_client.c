/* SPDX-License-Identifier: BSD-3-Clause */
/* A PMI-2 client written with literal wire strings (not with
 * lc_pmi_wire), so that it checks mpiexec's PMI-2 server against the
 * protocol text rather than against our own formatter:
 *
 *   cmd=init pmi_version=2 pmi_subversion=0\n      (PMI-1 framed)
 *   then 6-character length + "cmd=...;key=value;" with ";;" for ';'
 *
 * Every rank: fullinit, job-getid, kvs-put of a value containing ';' and
 * '=', kvs-fence, kvs-get of every rank's value, info-getjobattr of
 * PMI_process_mapping, finalize.  Exit 0 when every reply is as expected.
 * The mapping expected is that of one node, or $PMI2_EXPECT_MAPPING. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fd, rank;

static void fail(const char *what, const char *got)
{
    fprintf(stderr, "pmi2_raw_client rank %d: %s (got '%s')\n", rank, what, got ? got : "");
    exit(2);
}

static void send_raw(const char *s)
{
    size_t len = strlen(s);

    while (len > 0) {
        ssize_t n = write(fd, s, len);
        if (n <= 0)
            fail("write to PMI_FD failed", NULL);
        s += n;
        len -= (size_t)n;
    }
}

static void read_exact(char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = read(fd, buf, len);
        if (n <= 0)
            fail("PMI connection closed or failed", NULL);
        buf += n;
        len -= (size_t)n;
    }
}

/* Send one PMI-2 command, return the body of the reply (static buffer). */
static const char *call(const char *body)
{
    static char reply[8192];
    char frame[8192], prefix[7];
    long len;

    snprintf(frame, sizeof(frame), "%-6zu%s", strlen(body), body);
    send_raw(frame);
    read_exact(prefix, 6);
    prefix[6] = '\0';
    len = strtol(prefix, NULL, 10);
    if (len <= 0 || len >= (long)sizeof(reply))
        fail("bad length prefix", prefix);
    read_exact(reply, (size_t)len);
    reply[len] = '\0';
    return reply;
}

static void expect(const char *reply, const char *piece)
{
    if (strstr(reply, piece) == NULL) {
        char what[512];
        snprintf(what, sizeof(what), "reply lacks '%s'", piece);
        fail(what, reply);
    }
}

int main(void)
{
    const char *s = getenv("PMI_FD"), *reply;
    char line[512], body[512], piece[256], jobid[256];
    int size;
    size_t n = 0;

    if (s == NULL || getenv("PMI_RANK") == NULL || getenv("PMI_SIZE") == NULL)
        fail("PMI_FD, PMI_RANK and PMI_SIZE must be set", NULL);
    fd = atoi(s);
    rank = atoi(getenv("PMI_RANK"));
    size = atoi(getenv("PMI_SIZE"));

    /* The version is negotiated in PMI-1 framing. */
    send_raw("cmd=init pmi_version=2 pmi_subversion=0\n");
    while (n < sizeof(line) - 1) {
        read_exact(line + n, 1);
        if (line[n++] == '\n')
            break;
    }
    line[n] = '\0';
    expect(line, "cmd=response_to_init");
    expect(line, "pmi_version=2");
    expect(line, "rc=0");

    snprintf(body, sizeof(body), "cmd=fullinit;pmirank=%d;threaded=FALSE;", rank);
    reply = call(body);
    expect(reply, "cmd=fullinit-response;");
    snprintf(piece, sizeof(piece), ";rank=%d;", rank);
    expect(reply, piece);
    snprintf(piece, sizeof(piece), ";size=%d;", size);
    expect(reply, piece);
    expect(reply, "rc=0;");

    reply = call("cmd=job-getid;");
    expect(reply, "cmd=job-getid-response;");
    s = strstr(reply, "jobid=");
    if (s == NULL || sscanf(s, "jobid=%255[^;]", jobid) != 1)
        fail("no jobid", reply);

    /* The value "a;b=<rank>" travels as "a;;b=<rank>". */
    snprintf(body, sizeof(body), "cmd=kvs-put;key=raw-%d;value=a;;b=%d;", rank, rank);
    expect(call(body), "cmd=kvs-put-response;");
    expect(call("cmd=kvs-fence;"), "cmd=kvs-fence-response;");
    for (int r = 0; r < size; r++) {
        snprintf(body, sizeof(body), "cmd=kvs-get;jobid=%s;srcid=%d;key=raw-%d;", jobid, r, r);
        reply = call(body);
        expect(reply, "cmd=kvs-get-response;");
        expect(reply, "found=TRUE;");
        snprintf(piece, sizeof(piece), "value=a;;b=%d;", r);
        expect(reply, piece);
    }
    reply = call("cmd=kvs-get;key=raw-no-such-key;");
    expect(reply, "found=FALSE;");

    reply = call("cmd=info-getjobattr;key=PMI_process_mapping;");
    expect(reply, "found=TRUE;");
    if (getenv("PMI2_EXPECT_MAPPING") != NULL)
        snprintf(piece, sizeof(piece), "value=%s;", getenv("PMI2_EXPECT_MAPPING"));
    else
        snprintf(piece, sizeof(piece), "value=(vector,(0,1,%d));", size);
    expect(reply, piece);

    expect(call("cmd=finalize;"), "cmd=finalize-response;");
    printf("pmi2 rank %d/%d ok jobid=%s\n", rank, size, jobid);
    return 0;
}
