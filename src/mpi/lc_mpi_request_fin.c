/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_request_fin.c — tying a higher layer's object to a request
 * (lc_req_fin_t, pt2pt/lc_request.h): mpi_f08's contiguous copy of an
 * array section that a nonblocking or persistent call was given
 * (src/fortran/lc_f_cdesc.c).  Not an MPI function: libmpifort's entry.
 *
 * A nonblocking request runs the object's LC_FIN_DONE at its release,
 * after its operation completed (or was cancelled); a persistent one
 * runs LC_FIN_START at each MPI_Start (lc_mpi_start.c: before the
 * operation reads the buffer), hands it to the instance, whose release
 * runs LC_FIN_DONE, and runs LC_FIN_FREE at its own release.
 */
#include "mpi/lc_mpi_request_finish.h"

LC_API int lc_mpi_request_fin(MPI_Request handle, lc_req_fin_t *fin);

LC_API int lc_mpi_request_fin(MPI_Request handle, lc_req_fin_t *fin)
{
    lc_request_t *req = NULL;
    int rc = lc_request_check(handle, &req);
    if (rc != MPI_SUCCESS) return rc;
    if (!req || !fin || !fin->fn) return lc_error(MPI_ERR_REQUEST, "no request to tie an mpi_f08 array copy to");
    /* a partitioned request's buffer is filled partition by partition, and
     * a generalized one is the user's: nothing would copy at the right time */
    if (req->kind == LC_REQ_PART_SEND || req->kind == LC_REQ_PART_RECV || req->kind == LC_REQ_GREQ)
        return lc_error(MPI_ERR_REQUEST, "this request cannot carry an mpi_f08 array section copy");
    if (req->fin) return lc_error(MPI_ERR_REQUEST, "the request already carries an mpi_f08 array section copy");
    req->fin = fin;
    return MPI_SUCCESS;
}
