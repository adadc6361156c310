/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_win.h — window objects of the MPI layer: the handle, the name,
 * hints, attributes and error handler around the engine's window
 * (src/rma).  Handles 0xa0000000 | index (MPICH's direct windows).
 */
#ifndef LC_MPI_WIN_H
#define LC_MPI_WIN_H

#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_info.h"
#include "rma/lc_rma.h"

typedef struct lc_win {
    MPI_Win handle;
    lc_rma_win_t *rma;
    lc_comm_t *comm;           /* the window's private duplicate */
    MPI_Errhandler errhandler; /* MPI_ERRORS_ARE_FATAL unless set */
    lc_info_t *info;           /* hints given (NULL: none) */
    void *attrs;               /* lc_mpi_attr list */
    size_t size_attr;          /* MPI_WIN_SIZE's value (an MPI_Aint) */
    int disp_unit_attr, flavor_attr, model_attr;
    char name[MPI_MAX_OBJECT_NAME];
} lc_win_t;

int lc_check_win(MPI_Win handle, lc_win_t **win_p);
/* The window of a valid handle while MPI is initialized, else NULL (no
 * error raised: for fast paths that fall back on the checked one). */
lc_win_t *lc_win_find(MPI_Win handle);
/* Run the window's error handler (lc_mpi_error for windows); NULL: the
 * handler of MPI_COMM_WORLD. */
int lc_mpi_win_error(lc_win_t *win, const char *func, int code);
/* A predefined datatype one-sided operations move today. */
int lc_check_rma_dtype(MPI_Datatype dt);

#endif
