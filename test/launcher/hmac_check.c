/* SPDX-License-Identifier: BSD-3-Clause */
/* mpiexec's SHA-256 and HMAC-SHA-256 (tools/mpiexec/mpiexec_hmac.c)
 * against the published test vectors: FIPS 180-4 examples (and the
 * million-'a' message) for SHA-256, RFC 4231 cases 1, 2, 6 and 7 for
 * HMAC (short key, short text key, key longer than a block, both longer
 * than a block).  Also: a message split into parts hashes like the whole,
 * every split point of the buffered update gives the same digest, and the
 * constant-time compare tells equal from different.  Exit 0 = all pass. */
#include "mpiexec_hmac.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void hex(const uint8_t *d, char *out)
{
    for (int i = 0; i < MPIEXEC_SHA256_LEN; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static void expect(const char *what, const uint8_t *d, const char *want)
{
    char got[2 * MPIEXEC_SHA256_LEN + 1];

    hex(d, got);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "FAIL %s:\n  got  %s\n  want %s\n", what, got, want);
        failures++;
    }
}

static void sha(const char *what, const void *p, size_t n, const char *want)
{
    mpiexec_sha256_t c;
    uint8_t d[MPIEXEC_SHA256_LEN];

    mpiexec_sha256_init(&c);
    mpiexec_sha256_update(&c, p, n);
    mpiexec_sha256_final(&c, d);
    expect(what, d, want);
}

static void hmac(const char *what, const void *key, size_t klen, const char *msg, const char *want)
{
    mpiexec_hmac_part_t part = {msg, strlen(msg)};
    uint8_t d[MPIEXEC_SHA256_LEN];

    mpiexec_hmac_sha256(key, klen, &part, 1, d);
    expect(what, d, want);
}

int main(void)
{
    static char million[1000000];
    const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    uint8_t key_0b[20], key_aa[131], d1[MPIEXEC_SHA256_LEN], d2[MPIEXEC_SHA256_LEN];
    mpiexec_sha256_t c;

    sha("SHA-256 of the empty message", "", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha("SHA-256 of abc", "abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    sha("SHA-256 of the 448-bit message", two_blocks, strlen(two_blocks),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    memset(million, 'a', sizeof(million));
    sha("SHA-256 of a million a", million, sizeof(million),
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

    /* Every split of the 448-bit message into two updates. */
    for (size_t cut = 0; cut <= strlen(two_blocks); cut++) {
        mpiexec_sha256_init(&c);
        mpiexec_sha256_update(&c, two_blocks, cut);
        mpiexec_sha256_update(&c, two_blocks + cut, strlen(two_blocks) - cut);
        mpiexec_sha256_final(&c, d1);
        expect("SHA-256 of the 448-bit message in two updates", d1,
               "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    }

    memset(key_0b, 0x0b, sizeof(key_0b));
    memset(key_aa, 0xaa, sizeof(key_aa));
    hmac("RFC 4231 case 1", key_0b, sizeof(key_0b), "Hi There",
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    hmac("RFC 4231 case 2", "Jefe", 4, "what do ya want for nothing?",
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    hmac("RFC 4231 case 6", key_aa, sizeof(key_aa), "Test Using Larger Than Block-Size Key - Hash Key First",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    hmac("RFC 4231 case 7", key_aa, sizeof(key_aa),
         "This is a test using a larger than block-size key and a larger than block-size data. The key needs "
         "to be hashed before being used by the HMAC algorithm.",
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");

    /* Parts hash as their concatenation. */
    {
        mpiexec_hmac_part_t parts[3] = {{"what do ya ", 11}, {"", 0}, {"want for nothing?", 17}};

        mpiexec_hmac_sha256("Jefe", 4, parts, 3, d1);
        expect("RFC 4231 case 2 in parts", d1, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    }

    memcpy(d2, d1, sizeof(d1));
    if (!mpiexec_equal_const_time(d1, d2, sizeof(d1))) {
        fprintf(stderr, "FAIL: equal digests compare different\n");
        failures++;
    }
    for (size_t i = 0; i < sizeof(d1); i++) {
        d2[i] ^= 0x01;
        if (mpiexec_equal_const_time(d1, d2, sizeof(d1))) {
            fprintf(stderr, "FAIL: digests differing in byte %zu compare equal\n", i);
            failures++;
        }
        d2[i] ^= 0x01;
    }
    if (failures == 0)
        printf("PASS\n");
    return failures == 0 ? 0 : 1;
}
