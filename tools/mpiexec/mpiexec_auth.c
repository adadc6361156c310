/* SPDX-License-Identifier: BSD-3-Clause */
/* Launch keys and the proofs of the mpiexec-proxy handshake (protocol and
 * reasons: mpiexec_auth.h). */
#include "mpiexec_auth.h"
#include "mpiexec.h"
#include "mpiexec_hmac.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

static const char mpiexec_auth_label_mpiexec[] = "locus-mpiexec-key-proof";
static const char mpiexec_auth_label_proxy[] = "locus-proxy-key-proof";

int mpiexec_auth_random(void *buf, size_t n)
{
    size_t got = 0;

    while (got < n) {
        ssize_t r = getrandom((char *)buf + got, n - got, 0);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            mpiexec_say("cannot get random bytes for the launch keys: %m");
            return -1;
        }
        got += (size_t)r;
    }
    return 0;
}

void mpiexec_auth_key_line(const uint8_t key[MPIEXEC_KEY_LEN], char line[MPIEXEC_KEY_LINE_MAX])
{
    size_t n = strlen(MPIEXEC_KEY_LINE_PREFIX);

    memcpy(line, MPIEXEC_KEY_LINE_PREFIX, n);
    for (int i = 0; i < MPIEXEC_KEY_LEN; i++)
        snprintf(line + n + 2 * (size_t)i, 3, "%02x", key[i]);
    line[n + 2 * MPIEXEC_KEY_LEN] = '\n';
    line[n + 2 * MPIEXEC_KEY_LEN + 1] = '\0';
}

static int mpiexec_auth_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Byte by byte: whatever follows the line on stdin is not ours to take. */
int mpiexec_auth_read_key(int fd, int timeout_ms, uint8_t key_p[MPIEXEC_KEY_LEN])
{
    char line[MPIEXEC_KEY_LINE_MAX];
    size_t len = 0, plen = strlen(MPIEXEC_KEY_LINE_PREFIX);
    struct timespec until;
    int rc = -1;

    mpiexec_deadline(&until, timeout_ms);
    while (len < sizeof(line) - 1) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        ssize_t n;

        if (poll(&p, 1, (int)mpiexec_ms_until(&until)) == 0) {
            mpiexec_say("no launch key on stdin within %d s; a proxy is started by mpiexec, which passes "
                        "the key through the launcher agent's stdin (an agent must forward it, as ssh does "
                        "without -n)", timeout_ms / 1000);
            goto out;
        }
        n = read(fd, line + len, 1);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            break;
        if (line[len++] == '\n')
            break;
    }
    line[len] = '\0';
    if (len != plen + 2 * MPIEXEC_KEY_LEN + 1 || strncmp(line, MPIEXEC_KEY_LINE_PREFIX, plen) != 0) {
        mpiexec_say("no launch key on stdin (%s); a proxy is started by mpiexec, which passes the key "
                    "through the launcher agent's stdin (an agent must forward it, as ssh does without -n)",
                    len == 0 ? "it is empty" : "malformed line");
        goto out;
    }
    for (int i = 0; i < MPIEXEC_KEY_LEN; i++) {
        int hi = mpiexec_auth_hex_digit(line[plen + 2 * (size_t)i]);
        int lo = mpiexec_auth_hex_digit(line[plen + 2 * (size_t)i + 1]);

        if (hi < 0 || lo < 0) {
            mpiexec_say("malformed launch key on stdin");
            goto out;
        }
        key_p[i] = (uint8_t)(hi << 4 | lo);
    }
    rc = 0;
out:
    mpiexec_auth_wipe(line, sizeof(line));
    return rc;
}

void mpiexec_auth_proof(const uint8_t key[MPIEXEC_KEY_LEN], int side, uint32_t index,
                        const uint8_t nonce_p[MPIEXEC_NONCE_LEN], const uint8_t nonce_m[MPIEXEC_NONCE_LEN],
                        uint8_t proof_p[MPIEXEC_PROOF_LEN])
{
    const char *label = side == MPIEXEC_AUTH_MPIEXEC ? mpiexec_auth_label_mpiexec : mpiexec_auth_label_proxy;
    uint8_t index_be[4] = {(uint8_t)(index >> 24), (uint8_t)(index >> 16), (uint8_t)(index >> 8),
                           (uint8_t)index};
    /* The label with its NUL, so no label is a prefix of the other's input. */
    mpiexec_hmac_part_t parts[4] = {{label, strlen(label) + 1},
                                    {index_be, sizeof(index_be)},
                                    {nonce_p, MPIEXEC_NONCE_LEN},
                                    {nonce_m, MPIEXEC_NONCE_LEN}};

    mpiexec_hmac_sha256(key, MPIEXEC_KEY_LEN, parts, 4, proof_p);
}

int mpiexec_auth_check(const uint8_t key[MPIEXEC_KEY_LEN], int side, uint32_t index,
                       const uint8_t nonce_p[MPIEXEC_NONCE_LEN], const uint8_t nonce_m[MPIEXEC_NONCE_LEN],
                       const uint8_t *proof)
{
    uint8_t want[MPIEXEC_PROOF_LEN];
    int ok;

    mpiexec_auth_proof(key, side, index, nonce_p, nonce_m, want);
    ok = mpiexec_equal_const_time(want, proof, sizeof(want));
    mpiexec_auth_wipe(want, sizeof(want));
    return ok;
}

void mpiexec_auth_wipe(void *p, size_t n)
{
    explicit_bzero(p, n);
}
