/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_init_times.h — LOCUS_SHOW_INIT_TIMES: where the time of MPI_Init
 * and MPI_Finalize goes, phase by phase, printed by rank 0. */
#ifndef LC_INIT_TIMES_H
#define LC_INIT_TIMES_H

/* Start timing an operation (what = "MPI_Init", "MPI_Finalize"); call
 * after lc_params_load.  Does nothing unless LOCUS_SHOW_INIT_TIMES. */
void lc_init_times_begin(const char *what);
/* The phase that just ended (a string literal: kept by address). */
void lc_init_times_mark(const char *phase);
/* Rank 0 (lc_log_rank) prints the phases since lc_init_times_begin. */
void lc_init_times_report(int nranks);

#endif
