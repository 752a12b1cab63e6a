/* The convergence study's table row and its markdown report (reports/report_convergence.c),
 * the `convergence-row` and `convergence-report` sections of opsim-report, called by
 * experiments/convergence.mk, and the variants matrix's convergence cells (`convergence-cells`,
 * experiments/variants.sh).
 *
 * convergence-row --scene S --variant V --reference REF.tsv --run RUN.tsv --rho R
 *   REF.tsv and RUN.tsv are `opsim converge` outputs: a header line and rows "k seconds energy"
 *   (the first word after "config = ", "frame = " and "h = " in RUN.tsv.meta is read, or in
 *   RUN's "# " lines in a file of before the sidecar). E* is REF's last energy.
 *   RUN's E_0 (its first row) must equal REF's iteration-0 energy (the same state) and
 *   lie above E*. Prints one line of table.tsv: scene, variant, then for 1e-2, 1e-4, 1e-6 the
 *   first k after which r_k = |E_k − E*| / (E_0 − E*) stays at or below the tolerance to the
 *   end and the ms spent up to it (%.3f; empty cells if never), R (empty unless Chebyshev; "-" is
 *   read as none), r at the end (%.3e), E_0 and E* (%.17g), the last k, frame, h and config; then
 *   for each tolerance the ms's 95 % interval and noisy flag (ms_TOL_lo, ms_TOL_hi, %.3f, and
 *   ms_TOL_noisy as RUN wrote it), from RUN's seconds_lo, seconds_hi and noisy columns (`opsim
 *   converge --repeats`: the timing protocol, docs/timing.md); empty where the tolerance is never
 *   reached or RUN has no such columns.
 * convergence-report --table T --reference-iterations N --figure F --rho FILE [--rho FILE ...]
 *   reports/convergence.md from T (the rows above) and the ρ files SCENE-rho-ORDER.txt (their
 *   chebyshev_rho_source line): the scenes, the tolerances reached, the Chebyshev speed-ups
 *   (plain / Chebyshev, two decimals and ×; – where either is missing), the ρ estimates, and the
 *   runs that never reach 1e-2. */
#ifndef OPSIM_REPORT_CONVERGENCE_H
#define OPSIM_REPORT_CONVERGENCE_H

#include <stdio.h>

#include "opsim/ctx.h"

typedef struct report_convergence_row_def {
    const char *scene, *variant, *reference, *run, *rho;
} report_convergence_row_def;

int report_convergence_row(op_ctx *ctx, const report_convergence_row_def *def, FILE *out);

/* convergence-cells --reference REF.tsv --run RUN.tsv --at N
 *   The variants matrix's convergence cells of one converge run (experiments/variants.sh), on
 *   one line, tab-separated: for 1e-2, 1e-4, 1e-6 the first k after which r_k (as above, E* REF's
 *   last energy, a NaN r counted above) stays at or below the tolerance and the ms up to it
 *   (%.3f; "–" and "–" if never); r at the end and r at row N (%.2e); then for each tolerance
 *   the ms's 95 % interval and noisy flag (%.3f, %.3f, as RUN wrote it; "–" three times where
 *   never reached or RUN has no interval columns); then the same for own_ms, the ms to each
 *   tolerance of the variant's own fixed point (`opsim converge --fixed-point`): the interval
 *   of the row that RUN.meta's own_fields gives for it, its word three times where own_fields
 *   has a word ("x* unsettled", "single update", "–"), "–" three times where RUN.meta has no
 *   own_fields. 26 cells in all. */
typedef struct report_convergence_cells_def {
    const char *reference, *run;
    int at;
} report_convergence_cells_def;

int report_convergence_cells(op_ctx *ctx, const report_convergence_cells_def *def, FILE *out);

enum { REPORT_CONVERGENCE_MAX_RHO = 32 };

typedef struct report_convergence_def {
    const char *table, *reference_iterations, *figure;
    const char *rho[REPORT_CONVERGENCE_MAX_RHO];
    int rho_count;
} report_convergence_def;

int report_convergence(op_ctx *ctx, const report_convergence_def *def, FILE *out);

/* convergence-long --reference SCENE=REF.tsv [...] --run SCENE:VARIANT=RUN.tsv [...]
 *   The study in long form, one tab-separated table a notebook pivots: the header
 *   "variant scene repetition iteration seconds measure value" on the first line, then per
 *   run and row two rows: measure energy_J (E_k) and relative_error (r_k against the scene's
 *   reference E*, its last energy), values %.17g, repetition 1 (one run each). */
enum { REPORT_CONVERGENCE_MAX_RUNS = 64 };
typedef struct report_convergence_long_def {
    const char *reference[REPORT_CONVERGENCE_MAX_RUNS], *run[REPORT_CONVERGENCE_MAX_RUNS];
    int reference_count, run_count;
} report_convergence_long_def;

int report_convergence_long(op_ctx *ctx, const report_convergence_long_def *def, FILE *out);

#endif
