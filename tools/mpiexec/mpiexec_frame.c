/* SPDX-License-Identifier: BSD-3-Clause */
/* Frames between mpiexec and its proxies (format: mpiexec_frame.h). */
#include "mpiexec_frame.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

int mpiexec_frame_put_u32(mpiexec_buf_t *b, uint32_t v)
{
    uint32_t be = htonl(v);

    return mpiexec_buf_put(b, &be, sizeof(be));
}

int mpiexec_frame_put_str(mpiexec_buf_t *b, const char *s)
{
    size_t n = strlen(s) + 1;

    if (n > MPIEXEC_FRAME_MAX || mpiexec_frame_put_u32(b, (uint32_t)n) != 0)
        return -1;
    return mpiexec_buf_put(b, s, n);
}

int mpiexec_frame_put_blob(mpiexec_buf_t *b, const void *p, size_t n)
{
    if (n > MPIEXEC_FRAME_MAX || mpiexec_frame_put_u32(b, (uint32_t)n) != 0)
        return -1;
    return n > 0 ? mpiexec_buf_put(b, p, n) : 0;
}

int mpiexec_frame_put(mpiexec_buf_t *q, int type, int rank, const void *payload, size_t len)
{
    if (len > MPIEXEC_FRAME_MAX || mpiexec_buf_reserve(q, MPIEXEC_FRAME_HDR + len) != 0)
        return -1;
    mpiexec_frame_put_u32(q, (uint32_t)type);
    mpiexec_frame_put_u32(q, (uint32_t)rank);
    mpiexec_frame_put_u32(q, (uint32_t)len);
    return len > 0 ? mpiexec_buf_put(q, payload, len) : 0;
}

static uint32_t mpiexec_frame_get_u32(const char *p)
{
    uint32_t be;

    memcpy(&be, p, sizeof(be));
    return ntohl(be);
}

int mpiexec_frame_next(mpiexec_buf_t *in, size_t max, int *type_p, int *rank_p, const char **payload_p,
                       size_t *len_p)
{
    size_t avail = in->len - in->off;
    const char *p = in->data + in->off;
    uint32_t len;

    if (avail < MPIEXEC_FRAME_HDR)
        return 0;
    len = mpiexec_frame_get_u32(p + 8);
    if (len > max)
        return -1;
    if (avail < MPIEXEC_FRAME_HDR + (size_t)len)
        return 0;
    *type_p = (int)mpiexec_frame_get_u32(p);
    *rank_p = (int)mpiexec_frame_get_u32(p + 4);
    *payload_p = p + MPIEXEC_FRAME_HDR;
    *len_p = len;
    /* Consumed now; the bytes stay in place until the next fill. */
    in->off += MPIEXEC_FRAME_HDR + (size_t)len;
    return 1;
}

uint32_t mpiexec_rd_u32(mpiexec_rd_t *rd)
{
    uint32_t v;

    if (rd->left < 4) {
        rd->bad = 1;
        rd->left = 0;
        return 0;
    }
    v = mpiexec_frame_get_u32(rd->p);
    rd->p += 4;
    rd->left -= 4;
    return v;
}

const uint8_t *mpiexec_rd_blob(mpiexec_rd_t *rd, size_t n)
{
    uint32_t len = mpiexec_rd_u32(rd);
    const uint8_t *p = (const uint8_t *)rd->p;

    if (rd->bad || len != n || n > rd->left) {
        rd->bad = 1;
        rd->left = 0;
        return NULL;
    }
    rd->p += n;
    rd->left -= n;
    return p;
}

const char *mpiexec_rd_str(mpiexec_rd_t *rd)
{
    uint32_t n = mpiexec_rd_u32(rd);
    const char *s = rd->p;

    if (rd->bad || n == 0 || n > rd->left || s[n - 1] != '\0') {
        rd->bad = 1;
        rd->left = 0;
        return "";
    }
    rd->p += n;
    rd->left -= n;
    return s;
}

ssize_t mpiexec_frame_fill(int fd, mpiexec_buf_t *in, size_t max)
{
    size_t want = 65536, pending;
    ssize_t n;

    /* Drop what was consumed, then make room for at least one header or
     * the rest of the frame being received -- never for more than one
     * frame of at most max bytes beyond what is already here. */
    mpiexec_buf_consume(in, 0);
    pending = in->len - in->off;
    if (want > MPIEXEC_FRAME_HDR + max)
        want = MPIEXEC_FRAME_HDR + max;
    if (pending >= MPIEXEC_FRAME_HDR) {
        size_t need = MPIEXEC_FRAME_HDR + mpiexec_frame_get_u32(in->data + in->off + 8);

        if (need > MPIEXEC_FRAME_HDR + max)
            return 1; /* refused by the caller's mpiexec_frame_next: read nothing more */
        if (need > pending && need - pending > want)
            want = need - pending;
    }
    if (mpiexec_buf_reserve(in, want) != 0) {
        errno = ENOMEM;
        return -2;
    }
    do {
        n = read(fd, in->data + in->len, want);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? -1 : -2;
    in->len += (size_t)n;
    return n;
}
