/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit test of the parameter table: defaults, suffixes, enums, bad values. */
#include "util/lc_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "FAILED: %s (line %d)\n", #cond, __LINE__); failures++; } } while (0)

int main(void)
{
    unsetenv("LOCUS_EAGER_LIMIT");
    CHECK(lc_params_load() == 0);
    CHECK(lc_params.eager_limit == 8000);
    CHECK(lc_params.shm_cell_size == 8192);
    CHECK(lc_params.poll_mode == LC_POLL_AUTO);

    setenv("LOCUS_EAGER_LIMIT", "4k", 1);
    setenv("LOCUS_SHM_CELL_SIZE", "1M", 1);
    setenv("LOCUS_POLL", "yield", 1);
    setenv("LOCUS_CMA", "off", 1);
    CHECK(lc_params_load() == 0);
    CHECK(lc_params.eager_limit == 4096);
    CHECK(lc_params.shm_cell_size == 1 << 20);
    CHECK(lc_params.poll_mode == LC_POLL_YIELD);
    CHECK(lc_params.cma == 0);

    /* A bad value is reported and the default kept. */
    setenv("LOCUS_POLL", "sometimes", 1);
    setenv("LOCUS_SHM_RING_CELLS", "12x", 1);
    CHECK(lc_params_load() == -1);
    CHECK(lc_params.poll_mode == LC_POLL_AUTO);
    CHECK(lc_params.shm_ring_cells == 32);

    /* Each row is read by its readers only: mpiexec's LAUNCH_TIMEOUT is not
     * the ranks' business (nor reported by them when bad), and the other
     * way round; SHM_DIR is read by both. */
    unsetenv("LOCUS_POLL");
    unsetenv("LOCUS_SHM_RING_CELLS");
    setenv("LOCUS_LAUNCH_TIMEOUT", "7", 1);
    setenv("LOCUS_SHM_DIR", "/tmp/segs", 1);
    setenv("LOCUS_QUIET", "yes", 1);
    setenv("LOCUS_DEBUG", "1", 1);
    CHECK(lc_params_load() == 0);
    CHECK(lc_params.launch_timeout == 30);
    CHECK(!strcmp(lc_params.shm_dir, "/tmp/segs"));
    CHECK(lc_params.quiet == 1 && lc_params.debug == 1);
    CHECK(lc_params_load_for(LC_PARAM_LAUNCHER) == 0);
    CHECK(lc_params.launch_timeout == 7);
    CHECK(!strcmp(lc_params.shm_dir, "/tmp/segs"));
    CHECK(lc_params.quiet == 0 && lc_params.debug == 0 && lc_params.cma == 1);
    setenv("LOCUS_LAUNCH_TIMEOUT", "soon", 1);
    CHECK(lc_params_load() == 0);
    CHECK(lc_params_load_for(LC_PARAM_LAUNCHER) == -1);
    CHECK(lc_params.launch_timeout == 30);
    setenv("LOCUS_QUIET", "0", 1); /* a boolean now: 0 means not quiet */
    CHECK(lc_params_load() == 0 && lc_params.quiet == 0);

    /* Lookup and reset by name, as mpiexec does for a timeout <= 0. */
    const lc_param_desc_t *d = lc_param_find("LAUNCH_TIMEOUT");
    CHECK(d != NULL && d->readers == LC_PARAM_LAUNCHER && lc_param_find("SPIN_COUNT") == NULL);
    lc_params.launch_timeout = -5;
    if (d) lc_param_set_default(d);
    CHECK(lc_params.launch_timeout == 30);

    /* Every parameter is listed with its help text. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    lc_params_print(f);
    fclose(f);
    for (size_t i = 0; i < lc_param_count; i++) {
        CHECK(strstr(text, lc_param_table[i].name) != NULL);
        CHECK(strlen(lc_param_table[i].help) > 10);
    }
    free(text);
    if (!failures) printf("params: %zu parameters ok\n", lc_param_count);
    return failures ? 1 : 0;
}
