/* The `graphs` section of opsim-report (reports/graphs.c): every model's graph statistics beside
 * the paper's Table 1 counts, with each model's picture. */
#ifndef OPSIM_REPORT_GRAPHS_H
#define OPSIM_REPORT_GRAPHS_H

#include <stdio.h>

#include "opsim/ctx.h"

int report_graphs(op_ctx *ctx, const char *models_path, const char *paper_path, const char *runs,
                  const char *face_runs, const char *figures, FILE *out);

#endif
