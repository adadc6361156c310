/* SPDX-License-Identifier: BSD-3-Clause */
/* SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for the handshake in
 * which mpiexec and each proxy prove to each other that they know the
 * host's launch key (mpiexec_auth.c).
 *
 * Written here rather than linked: glibc exports no SHA-256, the kernel's
 * AF_ALG sockets are often blocked in containers (seccomp), and a crypto
 * library would be a new run-time dependency of mpiexec on every host for
 * one hash of a few hundred bytes per host and job.  Speed does not
 * matter; correctness is checked against the FIPS 180-4 and RFC 4231
 * test vectors (test/launcher/hmac_check.c). */
#ifndef MPIEXEC_HMAC_H
#define MPIEXEC_HMAC_H

#include <stddef.h>
#include <stdint.h>

#define MPIEXEC_SHA256_LEN   32
#define MPIEXEC_SHA256_BLOCK 64

typedef struct mpiexec_sha256 {
    uint32_t state[8];
    uint64_t nbytes;                      /* message length so far */
    size_t   fill;                        /* bytes waiting in block */
    uint8_t  block[MPIEXEC_SHA256_BLOCK];
} mpiexec_sha256_t;

void mpiexec_sha256_init(mpiexec_sha256_t *ctx);
void mpiexec_sha256_update(mpiexec_sha256_t *ctx, const void *data, size_t len);
void mpiexec_sha256_final(mpiexec_sha256_t *ctx, uint8_t out[MPIEXEC_SHA256_LEN]);

/* HMAC-SHA-256 of the concatenation of nparts (pointer, length) pairs:
 * the message is assembled from its fields without a copy. */
typedef struct mpiexec_hmac_part {
    const void *p;
    size_t      len;
} mpiexec_hmac_part_t;

void mpiexec_hmac_sha256(const void *key, size_t key_len, const mpiexec_hmac_part_t *parts, int nparts,
                         uint8_t out[MPIEXEC_SHA256_LEN]);

/* 1 if a and b (n bytes each) are equal.  Takes the same time whatever
 * the contents, so a forger learns nothing from how fast a wrong proof is
 * refused. */
int mpiexec_equal_const_time(const void *a, const void *b, size_t n);

#endif /* MPIEXEC_HMAC_H */
