/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_params_print.c — the parameter table as locus-info prints it: a listing
 * with current values, or docs/params.md (Markdown, defaults only). */
#include "util/lc_params.h"
#include "util/lc_util.h"

#include <ctype.h>
#include <string.h>

static void lc_param_format(const lc_param_desc_t *d, char *buf, size_t len)
{
    const void *field = (const char *)&lc_params + d->offset;
    switch (d->type) {
    case LC_PARAM_SIZE:
        if (*(const size_t *)field == LC_PARAM_SIZE_AUTO)
            snprintf(buf, len, "auto");
        else
            snprintf(buf, len, "%zu", *(const size_t *)field);
        break;
    case LC_PARAM_INT:
        if (*(const long *)field == LC_PARAM_INT_AUTO && d->default_value && !strcmp(d->default_value, "auto"))
            snprintf(buf, len, "auto");
        else
            snprintf(buf, len, "%ld", *(const long *)field);
        break;
    case LC_PARAM_BOOL: snprintf(buf, len, "%s", *(const int *)field ? "1" : "0"); break;
    case LC_PARAM_ENUM: {
        int idx = *(const int *)field;
        const char *c = d->choices;
        for (int i = 0; i < idx && c; i++) {
            c = strchr(c, '|');
            if (c) c++;
        }
        size_t clen = c ? strcspn(c, "|") : 0;
        snprintf(buf, len, "%.*s", (int)clen, c ? c : "");
        break;
    }
    case LC_PARAM_STRING: snprintf(buf, len, "\"%s\"", (const char *)field); break;
    }
}

/* "", " (read by mpiexec)", " (read by the ranks and mpiexec)": the text
 * listing names the readers only where they are not just the ranks. */
static const char *lc_param_readers_note(const lc_param_desc_t *d)
{
    if (d->readers == LC_PARAM_RANKS) return "";
    return d->readers == LC_PARAM_LAUNCHER ? "; read by mpiexec" : "; read by the ranks and mpiexec";
}

void lc_params_print(FILE *out)
{
    for (size_t i = 0; i < lc_param_count; i++) {
        const lc_param_desc_t *d = &lc_param_table[i];
        char value[LC_PARAM_STRING_MAX + 8];
        lc_param_format(d, value, sizeof(value));
        int quote = d->type == LC_PARAM_STRING;
        fprintf(out, "LOCUS_%s (%s%s%s) = %s  [default %s%s%s%s]\n    %s\n", d->name,
                lc_param_type_name(d->type), d->choices ? ": " : "", d->choices ? d->choices : "",
                value, quote ? "\"" : "", d->default_value, quote ? "\"" : "", lc_param_readers_note(d), d->help);
    }
}

/* ---- docs/params.md ----------------------------------------------------- */

static const char *lc_param_readers_md(const lc_param_desc_t *d)
{
    if (d->readers == LC_PARAM_RANKS) return "ranks";
    return d->readers == LC_PARAM_LAUNCHER ? "mpiexec" : "ranks, mpiexec";
}

/* `8k`, or *(empty)* for an empty string. */
static void lc_param_default_md(const lc_param_desc_t *d, char *buf, size_t len)
{
    if (d->default_value[0]) snprintf(buf, len, "`%s`", d->default_value);
    else snprintf(buf, len, "*(empty)*");
}

void lc_params_print_choices_markdown(const char *choices, FILE *out)
{
    for (const char *c = choices; *c;) {
        size_t n = strcspn(c, "|");
        fprintf(out, "%s`%.*s`", c == choices ? "" : ", ", (int)n, c);
        c += n;
        if (*c) c++;
    }
}

void lc_params_print_markdown_index(FILE *out)
{
    for (size_t i = 0; i < lc_param_count; i++) {
        const lc_param_desc_t *d = &lc_param_table[i];
        char dflt[LC_PARAM_STRING_MAX + 8];
        lc_param_default_md(d, dflt, sizeof(dflt));
        fprintf(out, "| [`LOCUS_%s`](#locus_", d->name);
        for (const char *c = d->name; *c; c++) fputc(tolower((unsigned char)*c), out);
        fprintf(out, ") | %s | %s | %s |\n", lc_param_type_name(d->type), dflt, lc_param_readers_md(d));
    }
}

void lc_params_print_markdown(FILE *out)
{
    for (size_t i = 0; i < lc_param_count; i++) {
        const lc_param_desc_t *d = &lc_param_table[i];
        char dflt[LC_PARAM_STRING_MAX + 8];
        lc_param_default_md(d, dflt, sizeof(dflt));
        fprintf(out, "## `LOCUS_%s`\n\n%s", d->name, lc_param_type_name(d->type));
        if (d->choices) {
            fprintf(out, " (");
            lc_params_print_choices_markdown(d->choices, out);
            fprintf(out, ")");
        }
        fprintf(out, ", default %s; read by %s.\n\n%s\n\n", dflt,
                d->readers == LC_PARAM_RANKS      ? "every rank at MPI_Init"
                : d->readers == LC_PARAM_LAUNCHER ? "mpiexec"
                                                  : "every rank at MPI_Init and by mpiexec",
                d->help);
    }
}
