/* The `report` section of opsim-report (reports/report_md.c): REPORT.md from its template. */
#ifndef OPSIM_REPORT_MD_H
#define OPSIM_REPORT_MD_H

#include <stdio.h>

#include "opsim/ctx.h"

typedef struct report_md_def {
    const char *template_path; /* reports/REPORT.md.in */
    const char *results;       /* data/results: run files and tables, named relative to it */
    const char *paper;         /* reports/paper_table1.tsv */
    const char *flags;         /* build/flags */
    const char *figures;       /* the pictures' directory relative to the report ("figures") */
    const char *out;           /* reports/REPORT.md */
    const char *depfile;       /* make dependencies of `out` on what was read, or NULL */
    const char *tex_dir;       /* every table of the report as LaTeX here (report_md_tex.h), or NULL */
} report_md_def;

int report_md(op_ctx *ctx, const report_md_def *def);
/* The placeholders report_md knows, one per line with what each writes. */
void report_md_placeholders(FILE *out);

#endif
