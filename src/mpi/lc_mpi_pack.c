/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_pack.c — MPI_Pack, MPI_Unpack, MPI_Pack_size and the external32
 * forms MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size
 * (each also _c).  The native packed form is the data bytes of the
 * typemap in order, without padding (the datatype layer's packed
 * stream); MPI_Pack_size is exact.
 */
#include "mpi/lc_mpi_dt.h"

#include <string.h>

/* count items of per bytes, placed at *position in a buffer of `size`
 * bytes: MPI_ERR_TRUNCATE when they do not fit. */
static int lc_mpi_pack_room(MPI_Count position, MPI_Count size, MPI_Count count, MPI_Count per, MPI_Count *bytes_p,
                            const char *what)
{
    MPI_Count bytes;
    if (position < 0 || position > size)
        return lc_error(MPI_ERR_ARG, "position %lld is outside the buffer of %lld bytes", (long long)position,
                        (long long)size);
    if (__builtin_mul_overflow(count, per, &bytes) || bytes > size - position)
        return lc_error(MPI_ERR_TRUNCATE, "%lld items of %lld packed bytes do not fit the %lld bytes left of %s",
                        (long long)count, (long long)per, (long long)(size - position), what);
    *bytes_p = bytes;
    return MPI_SUCCESS;
}

static int lc_mpi_pack_any(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                           MPI_Count outsize, MPI_Count *position, MPI_Comm comm, const char *fn)
{
    lc_comm_t *c = NULL;
    lc_dt_t *t;
    MPI_Count bytes;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_count(incount));
    LC_TRY(lc_mpi_dt_committed(datatype, &t));
    LC_TRY(lc_check_ptr(position, "position"));
    LC_TRY(lc_mpi_pack_room(*position, outsize, incount, t->size, &bytes, "outbuf"));
    if (bytes) { /* (no pointer arithmetic on a NULL outbuf with nothing to pack) */
        LC_TRY(lc_check_ptr(outbuf, "outbuf"));
        LC_TRY(lc_dt_pack(t, incount, inbuf, 0, (char *)outbuf + *position, (size_t)bytes));
    }
    *position += bytes;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, fn, rc);
}

static int lc_mpi_unpack_any(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                             MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm, const char *fn)
{
    lc_comm_t *c = NULL;
    lc_dt_t *t;
    MPI_Count bytes;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_count(outcount));
    LC_TRY(lc_mpi_dt_committed(datatype, &t));
    LC_TRY(lc_check_ptr(position, "position"));
    LC_TRY(lc_mpi_pack_room(*position, insize, outcount, t->size, &bytes, "inbuf"));
    if (bytes) {
        LC_TRY(lc_check_ptr(inbuf, "inbuf"));
        LC_TRY(lc_dt_unpack(t, outcount, outbuf, 0, (const char *)inbuf + *position, (size_t)bytes));
    }
    *position += bytes;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, fn, rc);
}

LC_API int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position,
                     MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int rc = lc_mpi_pack_any(inbuf, incount, datatype, outbuf, outsize, position ? &pos : NULL, comm, "MPI_Pack");
    if (rc == MPI_SUCCESS) *position = (int)pos; /* <= outsize */
    return rc;
}
LC_MPI_ALIAS(Pack);

LC_API int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                       MPI_Count *position, MPI_Comm comm)
{
    return lc_mpi_pack_any(inbuf, incount, datatype, outbuf, outsize, position, comm, "MPI_Pack_c");
}
LC_MPI_ALIAS(Pack_c);

LC_API int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                       MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int rc = lc_mpi_unpack_any(inbuf, insize, position ? &pos : NULL, outbuf, outcount, datatype, comm,
                               "MPI_Unpack");
    if (rc == MPI_SUCCESS) *position = (int)pos;
    return rc;
}
LC_MPI_ALIAS(Unpack);

LC_API int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
                         MPI_Datatype datatype, MPI_Comm comm)
{
    return lc_mpi_unpack_any(inbuf, insize, position, outbuf, outcount, datatype, comm, "MPI_Unpack_c");
}
LC_MPI_ALIAS(Unpack_c);

static int lc_mpi_pack_size_any(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size,
                                const char *fn)
{
    lc_comm_t *c = NULL;
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_count(incount));
    LC_TRY(lc_mpi_dt_committed(datatype, &t));
    LC_TRY(lc_check_ptr(size, "size"));
    if (__builtin_mul_overflow(incount, t->size, size)) {
        rc = lc_error(MPI_ERR_COUNT, "%lld items of %lld bytes overflow MPI_Count", (long long)incount,
                      (long long)t->size);
        goto err;
    }
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, fn, rc);
}

LC_API int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPI_Count n = 0;
    int rc = lc_mpi_pack_size_any(incount, datatype, comm, size ? &n : NULL, "MPI_Pack_size");
    if (rc == MPI_SUCCESS && n > INT_MAX)
        rc = lc_mpi_error(lc_comm_lookup(comm), "MPI_Pack_size",
                          lc_error(MPI_ERR_VALUE_TOO_LARGE, "%lld bytes do not fit an int: use MPI_Pack_size_c",
                                   (long long)n));
    if (rc == MPI_SUCCESS) *size = (int)n;
    return rc;
}
LC_MPI_ALIAS(Pack_size);

LC_API int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    return lc_mpi_pack_size_any(incount, datatype, comm, size, "MPI_Pack_size_c");
}
LC_MPI_ALIAS(Pack_size_c);

/* ---- external32 ------------------------------------------------------------------------ */

static int lc_mpi_check_datarep(const char *datarep)
{
    if (!datarep) return lc_error(MPI_ERR_ARG, "datarep is NULL");
    if (strcmp(datarep, "external32") == 0) return MPI_SUCCESS;
    return lc_error(MPI_ERR_ARG, "datarep \"%.64s\" is not \"external32\", the only representation of "
                                 "MPI_Pack_external", datarep);
}

static int lc_mpi_pack_external_any(const char *datarep, const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                                    void *outbuf, MPI_Count outsize, MPI_Count *position, const char *fn)
{
    lc_dt_t *t;
    MPI_Count bytes;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_check_datarep(datarep));
    LC_TRY(lc_check_count(incount));
    LC_TRY(lc_mpi_dt_committed(datatype, &t));
    LC_TRY(lc_check_ptr(position, "position"));
    LC_TRY(lc_mpi_pack_room(*position, outsize, incount, t->ext32_size, &bytes, "outbuf"));
    if (bytes) {
        LC_TRY(lc_check_ptr(outbuf, "outbuf"));
        LC_TRY(lc_dt_pack_external32(t, incount, inbuf, (char *)outbuf + *position));
    }
    *position += bytes;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, fn, rc);
}

static int lc_mpi_unpack_external_any(const char *datarep, const void *inbuf, MPI_Count insize, MPI_Count *position,
                                      void *outbuf, MPI_Count outcount, MPI_Datatype datatype, const char *fn)
{
    lc_dt_t *t;
    MPI_Count bytes;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_check_datarep(datarep));
    LC_TRY(lc_check_count(outcount));
    LC_TRY(lc_mpi_dt_committed(datatype, &t));
    LC_TRY(lc_check_ptr(position, "position"));
    LC_TRY(lc_mpi_pack_room(*position, insize, outcount, t->ext32_size, &bytes, "inbuf"));
    if (bytes) {
        LC_TRY(lc_check_ptr(inbuf, "inbuf"));
        LC_TRY(lc_dt_unpack_external32(t, outcount, outbuf, (const char *)inbuf + *position));
    }
    *position += bytes;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, fn, rc);
}

LC_API int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                              void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    MPI_Count pos = position ? *position : 0;
    int rc = lc_mpi_pack_external_any(datarep, inbuf, incount, datatype, outbuf, outsize, position ? &pos : NULL,
                                      "MPI_Pack_external");
    if (rc == MPI_SUCCESS) *position = (MPI_Aint)pos;
    return rc;
}
LC_MPI_ALIAS(Pack_external);

LC_API int PMPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                                void *outbuf, MPI_Count outsize, MPI_Count *position)
{
    return lc_mpi_pack_external_any(datarep, inbuf, incount, datatype, outbuf, outsize, position,
                                    "MPI_Pack_external_c");
}
LC_MPI_ALIAS(Pack_external_c);

LC_API int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                                void *outbuf, int outcount, MPI_Datatype datatype)
{
    MPI_Count pos = position ? *position : 0;
    int rc = lc_mpi_unpack_external_any(datarep, inbuf, insize, position ? &pos : NULL, outbuf, outcount, datatype,
                                        "MPI_Unpack_external");
    if (rc == MPI_SUCCESS) *position = (MPI_Aint)pos;
    return rc;
}
LC_MPI_ALIAS(Unpack_external);

LC_API int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position,
                                  void *outbuf, MPI_Count outcount, MPI_Datatype datatype)
{
    return lc_mpi_unpack_external_any(datarep, inbuf, insize, position, outbuf, outcount, datatype,
                                      "MPI_Unpack_external_c");
}
LC_MPI_ALIAS(Unpack_external_c);

static int lc_mpi_pack_external_size_any(const char *datarep, MPI_Count incount, MPI_Datatype datatype,
                                         MPI_Count *size, const char *fn)
{
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_mpi_check_datarep(datarep));
    LC_TRY(lc_check_count(incount));
    LC_TRY(lc_mpi_dt_committed(datatype, &t));
    LC_TRY(lc_check_ptr(size, "size"));
    if (__builtin_mul_overflow(incount, t->ext32_size, size)) {
        rc = lc_error(MPI_ERR_COUNT, "%lld items of %lld external32 bytes overflow MPI_Count", (long long)incount,
                      (long long)t->ext32_size);
        goto err;
    }
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, fn, rc);
}

LC_API int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size)
{
    MPI_Count n = 0;
    int rc = lc_mpi_pack_external_size_any(datarep, incount, datatype, size ? &n : NULL, "MPI_Pack_external_size");
    if (rc == MPI_SUCCESS) *size = (MPI_Aint)n;
    return rc;
}
LC_MPI_ALIAS(Pack_external_size);

LC_API int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                                     MPI_Count *size)
{
    return lc_mpi_pack_external_size_any(datarep, incount, datatype, size, "MPI_Pack_external_size_c");
}
LC_MPI_ALIAS(Pack_external_size_c);
