/* The `graphs` section of opsim-report (reports/report_graphs.c): reports/graphs.md. */
#ifndef OPSIM_REPORT_GRAPHS_H
#define OPSIM_REPORT_GRAPHS_H

#include <stdio.h>

#include "opsim/ctx.h"

/* The graph statistics of every model (models_path, data/models.tsv) beside the paper's Table 1
 * counts (paper_path), each model's graph read from runs/NAME.h5 and, where its catalogue rule
 * is not the face rule, from face_runs/NAME.h5; figures is the pictures' directory as the
 * report refers to it. */
int report_graphs(op_ctx *ctx, const char *models_path, const char *paper_path, const char *runs,
                  const char *face_runs, const char *figures, FILE *out);

#endif
