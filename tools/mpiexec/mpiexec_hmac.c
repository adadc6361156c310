/* SPDX-License-Identifier: BSD-3-Clause */
/* SHA-256 and HMAC-SHA-256 (why they are written here: mpiexec_hmac.h). */
#include "mpiexec_hmac.h"

#include <string.h>

/* FIPS 180-4, 4.2.2: the first 32 bits of the fractional parts of the
 * cube roots of the first 64 primes. */
static const uint32_t mpiexec_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t mpiexec_rotr(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

/* One 64-byte block into the state (FIPS 180-4, 6.2.2). */
static void mpiexec_sha256_block(uint32_t h[8], const uint8_t *p)
{
    uint32_t w[64], a, b, c, d, e, f, g, hh;

    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 | (uint32_t)p[4 * t + 2] << 8 |
               (uint32_t)p[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = mpiexec_rotr(w[t - 15], 7) ^ mpiexec_rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = mpiexec_rotr(w[t - 2], 17) ^ mpiexec_rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);

        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t s1 = mpiexec_rotr(e, 6) ^ mpiexec_rotr(e, 11) ^ mpiexec_rotr(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = hh + s1 + ch + mpiexec_sha256_k[t] + w[t];
        uint32_t s0 = mpiexec_rotr(a, 2) ^ mpiexec_rotr(a, 13) ^ mpiexec_rotr(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = s0 + maj;

        hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void mpiexec_sha256_init(mpiexec_sha256_t *ctx)
{
    /* FIPS 180-4, 5.3.3: fractional parts of the square roots of the
     * first 8 primes. */
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

    memcpy(ctx->state, h0, sizeof(h0));
    ctx->nbytes = 0;
    ctx->fill = 0;
}

void mpiexec_sha256_update(mpiexec_sha256_t *ctx, const void *data, size_t len)
{
    const uint8_t *p = data;

    ctx->nbytes += len;
    while (len > 0) {
        size_t n = MPIEXEC_SHA256_BLOCK - ctx->fill;

        if (n > len)
            n = len;
        memcpy(ctx->block + ctx->fill, p, n);
        ctx->fill += n;
        p += n;
        len -= n;
        if (ctx->fill == MPIEXEC_SHA256_BLOCK) {
            mpiexec_sha256_block(ctx->state, ctx->block);
            ctx->fill = 0;
        }
    }
}

void mpiexec_sha256_final(mpiexec_sha256_t *ctx, uint8_t out[MPIEXEC_SHA256_LEN])
{
    uint64_t bits = ctx->nbytes * 8;
    uint8_t pad[MPIEXEC_SHA256_BLOCK + 8] = {0x80};
    /* 0x80, zeros up to 56 mod 64, then the length in bits, big-endian. */
    size_t npad = (ctx->fill < 56 ? 56 : 120) - ctx->fill;
    uint8_t len_be[8];

    for (int i = 0; i < 8; i++)
        len_be[i] = (uint8_t)(bits >> (56 - 8 * i));
    mpiexec_sha256_update(ctx, pad, npad);
    mpiexec_sha256_update(ctx, len_be, sizeof(len_be));
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(ctx->state[i] >> 24);
        out[4 * i + 1] = (uint8_t)(ctx->state[i] >> 16);
        out[4 * i + 2] = (uint8_t)(ctx->state[i] >> 8);
        out[4 * i + 3] = (uint8_t)ctx->state[i];
    }
    memset(ctx, 0, sizeof(*ctx));
}

void mpiexec_hmac_sha256(const void *key, size_t key_len, const mpiexec_hmac_part_t *parts, int nparts,
                         uint8_t out[MPIEXEC_SHA256_LEN])
{
    uint8_t k[MPIEXEC_SHA256_BLOCK] = {0}, pad[MPIEXEC_SHA256_BLOCK], inner[MPIEXEC_SHA256_LEN];
    mpiexec_sha256_t ctx;

    /* RFC 2104: a key longer than a block is hashed first; shorter ones
     * are padded with zeros. */
    if (key_len > MPIEXEC_SHA256_BLOCK) {
        mpiexec_sha256_init(&ctx);
        mpiexec_sha256_update(&ctx, key, key_len);
        mpiexec_sha256_final(&ctx, k);
    } else {
        memcpy(k, key, key_len);
    }
    for (int i = 0; i < MPIEXEC_SHA256_BLOCK; i++)
        pad[i] = k[i] ^ 0x36;
    mpiexec_sha256_init(&ctx);
    mpiexec_sha256_update(&ctx, pad, sizeof(pad));
    for (int i = 0; i < nparts; i++)
        mpiexec_sha256_update(&ctx, parts[i].p, parts[i].len);
    mpiexec_sha256_final(&ctx, inner);
    for (int i = 0; i < MPIEXEC_SHA256_BLOCK; i++)
        pad[i] = k[i] ^ 0x5c;
    mpiexec_sha256_init(&ctx);
    mpiexec_sha256_update(&ctx, pad, sizeof(pad));
    mpiexec_sha256_update(&ctx, inner, sizeof(inner));
    mpiexec_sha256_final(&ctx, out);
    /* The key schedule must not linger on the stack. */
    memset(k, 0, sizeof(k));
    memset(pad, 0, sizeof(pad));
    __asm__ __volatile__("" : : "r"(k), "r"(pad) : "memory");
}

int mpiexec_equal_const_time(const void *a, const void *b, size_t n)
{
    const volatile uint8_t *x = a, *y = b;
    uint8_t diff = 0;

    for (size_t i = 0; i < n; i++)
        diff |= x[i] ^ y[i];
    return diff == 0;
}
