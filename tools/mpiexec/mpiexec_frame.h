/* SPDX-License-Identifier: BSD-3-Clause */
/* The connection between mpiexec and a proxy: a TCP stream of frames.
 *
 *   u32 type | i32 rank | u32 payload length | payload      (big-endian)
 *
 * `rank` is the global rank a frame is about, or -1.  Payload fields are
 * u32 numbers and strings (u32 length including the NUL, then the bytes
 * and the NUL), so a string can be used in place in the receive buffer.
 *
 * Data relayed for a rank (PMI bytes, output) travels unchanged: the
 * proxy does not parse PMI, it only moves bytes between a rank's PMI
 * socket and this connection, so any client (PMI-1, PMI-2, MPICH's) works
 * remotely exactly as it does locally.
 *
 * Order is the invariant that makes this work: one connection per host,
 * and a proxy sends a rank's last PMI bytes and output before its EXITED.
 *
 * The proxy opens with HELLO, mpiexec answers with CHALLENGE, the proxy
 * with PROOF (the handshake of mpiexec_auth.h: each side proves it knows
 * the host's launch key); then mpiexec sends the JOB (or END if the job is
 * already ending).  At the end mpiexec sends END; the proxy ends what is
 * left, sweeps /dev/shm, says BYE and hangs up.
 *
 * Frame sizes are capped by what the receiver expects from the sender it
 * knows: MPIEXEC_PREAUTH_FRAME_MAX until the handshake is over (so an
 * unidentified peer cannot make either side reserve memory), then
 * MPIEXEC_PROXY_FRAME_MAX from a proxy (its frames carry at most one read
 * of a rank's output) and MPIEXEC_FRAME_MAX from mpiexec (the JOB carries
 * the environment). */
#ifndef MPIEXEC_FRAME_H
#define MPIEXEC_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "mpiexec.h"

#define MPIEXEC_FRAME_HDR 12
#define MPIEXEC_FRAME_MAX (64u << 20) /* the JOB frame carries the environment */
#define MPIEXEC_PROXY_FRAME_MAX (1u << 20) /* proxy -> mpiexec: output is relayed in 64 KiB reads */
#define MPIEXEC_PREAUTH_FRAME_MAX 256u /* before the handshake is over: HELLO, CHALLENGE, PROOF */
#define MPIEXEC_PROXY_MAGIC "locus-mpiexec-proxy-2" /* HELLO's first string */

enum mpiexec_frame_type {
    /* proxy -> mpiexec */
    MPX_HELLO = 1,     /* str magic, u32 host index, blob nonce_p */
    MPX_STARTED,       /* [rank] u32 pid: the rank runs */
    MPX_SPAWN_FAILED,  /* [rank] not started (a NOTE says why) */
    MPX_PMI,           /* [rank] bytes the rank wrote on its PMI socket */
    MPX_PMI_STUCK,     /* [rank] the rank does not read its PMI replies */
    MPX_OUT,           /* [rank] stdout bytes */
    MPX_ERR,           /* [rank] stderr bytes */
    MPX_OUT_EOF,       /* [rank] */
    MPX_ERR_EOF,       /* [rank] */
    MPX_EXITED,        /* [rank] u32 wait status */
    MPX_STDIN_ACK,     /* the last STDIN chunk was taken by rank 0 */
    MPX_STDIN_CLOSED,  /* rank 0 closed its stdin: send no more */
    MPX_NOTE,          /* str: a message of the proxy, for mpiexec's stderr */
    MPX_BYE,           /* after END: ranks gone, /dev/shm swept */
    MPX_PROOF,         /* blob proof_p, str hostname, u32 pid (mpiexec_auth.h) */
    /* mpiexec -> proxy */
    MPX_JOB = 64,      /* see mpiexec_remote.c: kvsname, ranks, program, env, ... */
    MPX_PMI_REPLY,     /* [rank] bytes for the rank's PMI socket */
    MPX_PMI_CLOSE,     /* [rank] close the rank's PMI socket */
    MPX_STDIN,         /* bytes for rank 0's stdin */
    MPX_STDIN_EOF,
    MPX_SIGNAL,        /* u32 signal for every running rank's process group */
    MPX_END,           /* end everything, sweep /dev/shm, say BYE */
    MPX_CHALLENGE      /* blob nonce_m, blob proof_m (mpiexec_auth.h) */
};

/* Append one frame to queue q.  0, or -1 out of memory. */
int mpiexec_frame_put(mpiexec_buf_t *q, int type, int rank, const void *payload, size_t len);

/* Payload builders (append to b): 0, or -1 out of memory. */
int mpiexec_frame_put_u32(mpiexec_buf_t *b, uint32_t v);
int mpiexec_frame_put_str(mpiexec_buf_t *b, const char *s);
int mpiexec_frame_put_blob(mpiexec_buf_t *b, const void *p, size_t n); /* u32 n, then the bytes */

/* Take the next complete frame out of `in`.  1: *type_p, *rank_p,
 * *payload_p (valid until `in` changes), *len_p set; 0: incomplete;
 * -1: malformed (payload longer than max). */
int mpiexec_frame_next(mpiexec_buf_t *in, size_t max, int *type_p, int *rank_p, const char **payload_p,
                       size_t *len_p);

/* Payload reader: fields in order; a read past the end sets `bad`. */
typedef struct mpiexec_rd {
    const char *p;
    size_t      left;
    int         bad;
} mpiexec_rd_t;

uint32_t    mpiexec_rd_u32(mpiexec_rd_t *rd);
const char *mpiexec_rd_str(mpiexec_rd_t *rd); /* "" (and bad) when malformed */
/* A blob of exactly n bytes: its bytes, or NULL (and bad). */
const uint8_t *mpiexec_rd_blob(mpiexec_rd_t *rd, size_t n);

/* Read once from fd into `in`, growing it up to one frame of at most
 * max payload bytes: memory follows what a frame announces only when the
 * announcement is within max (the caller's mpiexec_frame_next then
 * refuses a larger one).  >0 bytes read (1 without reading when the
 * frame waiting in `in` is over max: mpiexec_frame_next says so), 0 EOF,
 * -1 nothing now (EAGAIN), -2 error (errno set). */
ssize_t mpiexec_frame_fill(int fd, mpiexec_buf_t *in, size_t max);

#endif /* MPIEXEC_FRAME_H */
