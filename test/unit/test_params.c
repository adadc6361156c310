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
