/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit test of the parameter table: defaults, suffixes, enums, bad values. */
#include "util/lc_params.h"
#include "util/lc_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_unit_check.h"

/* What lc_log printed (the parameter errors), through its sink. */
static char said[1024];
static void keep_line(const char *line)
{
    size_t n = strlen(said);
    snprintf(said + n, sizeof(said) - n, "%s\n", line);
}

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

    /* Allowed values (issue 12, point 5): out of range, negative, not a
     * power of two or a multiple of 64 where required, overflowing or
     * with a garbage suffix: refused, the default kept, the message names
     * the variable, the value and what is allowed. */
    struct {
        const char *var, *value;
        int ok;
        const char *says;
    } cases[] = {
        { "LOCUS_SHM_CELL_SIZE", "4g", 0, "LOCUS_SHM_CELL_SIZE=\"4g\" is not allowed: it must be 256..64m, a multiple of 64" },
        { "LOCUS_SHM_CELL_SIZE", "-1", 0, "LOCUS_SHM_CELL_SIZE=\"-1\" is not a valid size (256..64m" },
        { "LOCUS_SHM_CELL_SIZE", " -8k", 0, "is not a valid size" },
        { "LOCUS_SHM_CELL_SIZE", "1000", 0, "a multiple of 64" },
        { "LOCUS_SHM_CELL_SIZE", "128", 0, "256..64m" },
        { "LOCUS_SHM_CELL_SIZE", "64m", 1, NULL },
        { "LOCUS_SHM_CELL_SIZE", "256", 1, NULL },
        { "LOCUS_SHM_CELL_SIZE", "8kq", 0, "not a valid size" },
        { "LOCUS_SHM_CELL_SIZE", "99999999999999g", 0, "not a valid size" },
        { "LOCUS_SHM_CELL_SIZE", "18446744073709551616", 0, "not a valid size" },
        { "LOCUS_SHM_RING_CELLS", "12", 0, "2..1048576, a power of two" },
        { "LOCUS_SHM_RING_CELLS", "1", 0, "2..1048576" },
        { "LOCUS_SHM_RING_CELLS", "2097152", 0, "2..1048576" },
        { "LOCUS_SHM_RING_CELLS", "1024", 1, NULL },
        { "LOCUS_SHM_RING_CELL_SIZE", "100", 0, "64..64m, a multiple of 64" },
        { "LOCUS_SHM_POOL_CELLS", "0", 0, "1..65536" },
        { "LOCUS_SHM_POOL_CELLS", "-5", 0, "1..65536" },
        { "LOCUS_SHM_POOL_CELLS", "99999999999999999999", 0, "not a valid int" },
        { "LOCUS_EAGER_LIMIT", "0", 1, NULL },
        { "LOCUS_EAGER_LIMIT", "1g", 0, "0..64m" },
        { "LOCUS_PIPELINE_CHUNK", "0", 1, NULL },
        { "LOCUS_PIPELINE_CHUNK", "8", 0, "64..64m, or 0" },
        { "LOCUS_NET_BLOCK", "-2", 0, "0..2147483647" },
        { "LOCUS_IVSHMEM_SLOTS", "65", 0, "1..64" },
        { "LOCUS_IVSHMEM_LEASE", "0", 0, "1..3600" },
        { "LOCUS_OFI_CREDITS", "256", 0, "1..255" },
        { "LOCUS_OFI_EAGER_LIMIT", "32m", 0, "256..16m" },
        { "LOCUS_OFI_RX_POOL", "1k", 0, "at least 64k" },
        { "LOCUS_OFI_TX_BUFFERS", "1", 0, "2..65536" },
        { "LOCUS_OFI_CONNECT_TIMEOUT", "-1", 0, "1..86400" },
        { "LOCUS_CMA_THRESHOLD", "-1", 0, "not a valid size" },
        { "LOCUS_CMA_THRESHOLD", "0", 1, NULL },
    };
    setenv("LOCUS_QUIET", "0", 1);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *log = said;
        said[0] = 0;
        lc_log_sink = keep_line;
        setenv(cases[i].var, cases[i].value, 1);
        int rc = lc_params_load();
        unsetenv(cases[i].var);
        lc_log_sink = NULL;
        const lc_param_desc_t *row = lc_param_find(cases[i].var + 6);
        CHECK(row != NULL);
        if (cases[i].ok) {
            CHECK(rc == 0);
            if (rc != 0) fprintf(stderr, "  %s=%s refused: %s\n", cases[i].var, cases[i].value, log);
        } else {
            CHECK(rc == -1);
            int named = log && strstr(log, cases[i].says) && strstr(log, cases[i].var) && strstr(log, "using the default");
            CHECK(named);
            if (rc != -1 || !named) fprintf(stderr, "  %s=%s: rc %d, said: %s\n", cases[i].var, cases[i].value, rc, log);
        }
    }
    CHECK(lc_params_load() == 0 && lc_params.shm_cell_size == 8192 && lc_params.shm_ring_cells == 32);

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
