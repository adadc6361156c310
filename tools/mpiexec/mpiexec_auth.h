/* SPDX-License-Identifier: BSD-3-Clause */
/* How mpiexec and a proxy prove to each other that they belong to the
 * same job (issue 12; the trust model is in docs/security.md).
 *
 * Key: mpiexec draws 32 random bytes per remote host (getrandom) and
 * gives them to that host's proxy on the launcher agent's stdin, which ssh
 * carries inside its encrypted channel, as one line
 *
 *     locus-proxy-key-1 <64 hex digits>\n
 *
 * Never on a command line or in an environment: those are readable by
 * every local user (/proc/PID/cmdline) or inherited by the ranks.  One key
 * per host, so a proxy (or whoever reads one host's memory) can speak for
 * its own host only.
 *
 * Handshake, on the proxy's TCP connection back to mpiexec (frames of
 * mpiexec_frame.h, each at most MPIEXEC_PREAUTH_FRAME_MAX bytes until it
 * is over):
 *
 *   proxy   -> mpiexec  HELLO     magic, host index, nonce_p
 *   mpiexec -> proxy    CHALLENGE nonce_m, proof_m = HMAC(key, "mpiexec" | index | nonce_p | nonce_m)
 *   proxy   -> mpiexec  PROOF     proof_p = HMAC(key, "proxy" | index | nonce_p | nonce_m), host name, pid
 *   mpiexec -> proxy    JOB ...
 *
 * Both nonces are fresh, so a proof cannot be replayed on another
 * connection; the two labels differ, so neither side's proof can be
 * reflected as the other's.  Proofs are compared in constant time.  The
 * proxy checks proof_m before it sends anything else and obeys nothing
 * before that; mpiexec checks proof_p before it sends the job.  What this
 * does not do: encrypt the connection or authenticate each frame after
 * the handshake -- the network between the hosts is trusted not to be an
 * active attacker (docs/security.md). */
#ifndef MPIEXEC_AUTH_H
#define MPIEXEC_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define MPIEXEC_KEY_LEN   32
#define MPIEXEC_NONCE_LEN 32
#define MPIEXEC_PROOF_LEN 32
#define MPIEXEC_KEY_LINE_PREFIX "locus-proxy-key-1 "
/* prefix + 64 hex digits + newline + NUL */
#define MPIEXEC_KEY_LINE_MAX (sizeof(MPIEXEC_KEY_LINE_PREFIX) + 2 * MPIEXEC_KEY_LEN + 2)

enum mpiexec_auth_side { MPIEXEC_AUTH_MPIEXEC, MPIEXEC_AUTH_PROXY };

/* n random bytes (getrandom).  0, or -1 after a message. */
int  mpiexec_auth_random(void *buf, size_t n);

/* The line that carries key to a proxy (with its newline). */
void mpiexec_auth_key_line(const uint8_t key[MPIEXEC_KEY_LEN], char line[MPIEXEC_KEY_LINE_MAX]);

/* The proxy's side: read the key line from fd (its stdin) within
 * timeout_ms, without reading past the newline.  0, or -1 after a
 * message that says what was wrong. */
int  mpiexec_auth_read_key(int fd, int timeout_ms, uint8_t key_p[MPIEXEC_KEY_LEN]);

/* proof = HMAC-SHA-256(key, label(side) | index (u32, big-endian) | nonce_p | nonce_m) */
void mpiexec_auth_proof(const uint8_t key[MPIEXEC_KEY_LEN], int side, uint32_t index,
                        const uint8_t nonce_p[MPIEXEC_NONCE_LEN], const uint8_t nonce_m[MPIEXEC_NONCE_LEN],
                        uint8_t proof_p[MPIEXEC_PROOF_LEN]);

/* 1 if proof is what `side` must send, compared in constant time. */
int  mpiexec_auth_check(const uint8_t key[MPIEXEC_KEY_LEN], int side, uint32_t index,
                        const uint8_t nonce_p[MPIEXEC_NONCE_LEN], const uint8_t nonce_m[MPIEXEC_NONCE_LEN],
                        const uint8_t *proof);

/* Forget a secret (not optimized away). */
void mpiexec_auth_wipe(void *p, size_t n);

#endif /* MPIEXEC_AUTH_H */
