/* The scaling study's table (reports/report_scaling.c), the `scaling` section of opsim-report:
 * experiments/scaling.mk runs bench_scenes once per size and variant (one process each, so each
 * CSV row's peak_rss_kb is that size's memory) and hands every CSV here. Rows are grouped into
 * series by config and setting (-c solver.name=V names the variant); a series whose rows differ
 * in body count is measured against bodies, any other against particles (the CSV's nodes).
 * Written: a markdown section, per series a table of size, ms per frame, µs per
 * particle-iteration (total_ms / (ns × ni × particles)), peak RSS in MB and the linear solves'
 * bytes per particle (solve_bytes / particles: the factor or the pcg matrix with their
 * workspaces, solver.h; "–" for a variant that does not report it), sorted by size, with
 * a last row of log-log slopes (least squares of log value on log size; "–" with fewer than two
 * sizes); and for gnuplot (plots/scaling.gp) DATA-particles.dat and DATA-bodies.dat, a block per
 * series ("index" in gnuplot) headed by its name: size, ms, µs, MB, solve bytes per particle. */
#ifndef OPSIM_REPORT_SCALING_H
#define OPSIM_REPORT_SCALING_H

#include <stdio.h>

#include "opsim/ctx.h"

int report_scaling(op_ctx *ctx, int csv_count, char *const *csv_paths, const char *data_prefix, FILE *out);

#endif
