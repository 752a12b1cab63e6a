/* The tables the make recipes derive from an experiment's TSV (reports/report_tsv.c), written
 * by the `pivot`, `pivot-interval`, `pick`, `keyed`, `targets`, `tex` and `stiffness` sections of
 * opsim-report.
 * Each reads one TSV whose first line names the columns ("variant\tscene\tms_per_frame...",
 * docs/results.md; in a table of before the tidy format a '#' line, whose "# " is not part of the
 * first name) and whose rows are keyed by their first two cells (a row and a column key, e.g.
 * variant and scene; a later row with the same keys replaces an earlier one). Empty lines are
 * skipped. Used by experiments/variants.mk, e.g.
 *   opsim-report pivot --in matrix.tsv --column ms_per_frame --keys 'bar collapse' --out ms.tsv
 *   opsim-report pivot-interval --in matrix.tsv --column ms_per_frame --keys 'bar' --out ms-int.tsv
 *   opsim-report pick --in matrix.tsv --column bar:max_k --column collapse:recovery_s --out bar.tsv
 *   opsim-report keyed --in matrix.tsv --out matrix-keyed.tsv
 *   opsim-report tex --in ms.tsv --source data/results/variants/ms.tsv --out ms.tex
 *   opsim-report matrix --in runs/matrix-cells.txt --out matrix.tsv
 * A column the header does not name is OP_ERR_PARSE naming the file and the column. */
#ifndef OPSIM_REPORT_TSV_H
#define OPSIM_REPORT_TSV_H

#include <stdio.h>

#include "opsim/ctx.h"

enum { REPORT_TSV_MAX_PICKS = 16 };

/* One row per first key (in order of first appearance), one column per second key in `keys`
 * (space-separated): the cell of `column`, empty where the pair has no row. The header is
 * the first column's name, then the keys; where `column` has a status column, KEY_status for
 * each key after them (its cells the status of the pair), and where it has a bound column,
 * KEY_bound the same. With `interval` (the section pivot-interval), a text table for the report:
 * a timed column of the timing protocol (docs/timing.md) with its 95 % interval, a numeric cell
 * "MEDIAN (LO–HI)" from COLUMN_lo and COLUMN_hi, followed by "†" when COLUMN_noisy is 1, an
 * empty cell its status where that is not "ok" ("refused"), no status columns; a cell that
 * is not a number stays as it is. */
int report_tsv_pivot(op_ctx *ctx, const char *in_path, const char *column, const char *keys, int interval, FILE *out);

/* One row per first key (in order of first appearance): the key, then for each pick
 * "KEY2:COLUMN" that column of the row (key, KEY2), empty where there is none. The header is
 * the first column's name, then the picks' column names, then for each pick whose column has
 * a status or bound column COLUMN_status and COLUMN_bound, the row's. */
int report_tsv_pick(op_ctx *ctx, const char *in_path, const char *const *picks, int pick_count, FILE *out);

/* Every row with a first cell "KEY1:KEY2" before it, so that one cell can be named by a single
 * row key ({{tsv PATH ROW COLUMN}} in the report); the header gains "case". */
int report_tsv_keyed(op_ctx *ctx, const char *in_path, FILE *out);

/* The table as a LaTeX booktabs tabular for a paper (report_tex.h says how it is set), as it
 * reads (report_status.h): a number column's status and bound columns folded into its cells
 * and not set (an empty cell its status word, or '–' where "ok"; a bound "≥1e11"). The first
 * column is the key; a column is numeric when at least as many of its present cells are
 * numbers or bounds as are words. `source` is named in the first comment line. */
int report_tsv_tex(op_ctx *ctx, const char *in_path, const char *source, FILE *out);

/* Plain against accelerated: one row per target "NAME:PLAIN:ACCELERATED:SCENE:SUFFIX", the
 * rows (PLAIN, SCENE) and (ACCELERATED, SCENE) compared in the
 * columns iterations_SUFFIX and ms_SUFFIX, each pair with its ratio plain / accelerated to two
 * decimals (empty unless both cells are plain numbers and the accelerated one is not 0). */
enum { REPORT_TSV_MAX_TARGETS = 16 };
int report_tsv_targets(op_ctx *ctx, const char *in_path, const char *const *targets, int target_count, FILE *out);

/* The stiffness study's summary from its table.tsv (experiments/stiffness.mk), one row per
 * stiffness factor in order of first appearance: the factor, k, steady_over_static at each of
 * `iterations` (space-separated) and h = 1/30 s (0 where there is no such run), then over the
 * runs at the `grid` iteration counts the spread of the steady deflection (max − min) / mean
 * in %, the smallest and largest steady_over_static, and the largest swing over every run of
 * the factor in mm. A factor without a grid run is OP_ERR_PARSE. */
int report_tsv_stiffness(op_ctx *ctx, const char *in_path, const char *iterations, const char *grid, FILE *out);

/* The table in long form, for a notebook to pivot (docs/results.md): the columns named in
 * `keys` (space-separated; NULL: the first column), then "measure" and "value", one row per
 * number cell of every other column, as written. Word and empty cells make no row (a status or
 * reason stays in the wide table); a row replaced by a later one with the same keys neither. */
int report_tsv_long(op_ctx *ctx, const char *in_path, const char *keys, FILE *out);

/* Several tables of one study in one long form: "table" (the file's name without its
 * directory and .tsv), "case" (a row's first cell after its column's name and '=', e.g.
 * "mode=rigid": the tables' keys differ), "measure" and "value", a row per number cell of
 * every column but the first, as report_tsv_long. */
enum { REPORT_TSV_MAX_LONG_TABLES = 32 };
int report_tsv_long_tables(op_ctx *ctx, const char *const *in_paths, int count, FILE *out);

/* The variants matrix as experiments/variants.sh gathers its cells (words where a cell could
 * not be measured: "refused", "failed", "single update", "x* unsettled", "never in 5 s",
 * "none"; bounds "≥1/10", "≥1e11"; '–' for missing) made a table of numbers (docs/results.md,
 * *The variants matrix*): the first two columns the keys, every other column but `note` a
 * number column whose words move to its status column (report_status_name: the first word
 * among a status's columns, else "ok" for a group's status or a column with a number, empty
 * where the measure does not apply to the row), bounds to NAME_bound ("ge", "le") with the
 * number left (a fraction "1/10" as its value, 0.1), '–' empty. The header: the columns but
 * note in their order, then the status columns, each after the first column it describes, a
 * bound after its status, then note last. A table with status columns already is OP_ERR_PARSE. */
int report_tsv_matrix(op_ctx *ctx, const char *in_path, FILE *out);

#endif
