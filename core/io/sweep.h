/* Parameter sweeps (`opsim sweep`): one experiment config, overrides every run shares
 * ("section.key=value", as `opsim run --set` takes them) and grids "section.key=v1,v2,...";
 * one run per combination of grid values (the Cartesian product, the first grid varying
 * slowest, like nested loops in the order given), run r recorded into DIR/run-NNN.h5 (NNN = r
 * with at least three digits, all names of a sweep one width). Two files describe a sweep:
 *
 *   DIR/sweep.tsv  '#' lines, then one line per run, tab-separated: the run file's path, then
 *                  each grid's value. The header lines are
 *                    # opsim sweep: ... (a description)
 *                    # config<TAB>CONFIG
 *                    # set<TAB>SECTION.KEY=VALUE         (one per shared override)
 *                    # run<TAB>KEY1<TAB>KEY2 ...          (the column names)
 *                  so a script can rebuild run r's command (tools/sweep-slurm.sh does).
 *   DIR/sweep.mk   a Makefile: one rule per run file, `$(OPSIM) run CONFIG --set ... --out
 *                  DIR/run-NNN.h5`, depending on CONFIG and $(OPSIM) (default bin/opsim, so run
 *                  it from the project root); its first target, `sweep`, makes them all, so
 *                  `make -f DIR/sweep.mk -j2` runs two at a time.
 *
 * Both are written under a temporary name and renamed when complete. */
#ifndef OPSIM_SWEEP_H
#define OPSIM_SWEEP_H

#include <stdio.h>

#include "opsim/ctx.h"

enum { OP_SWEEP_MAX_GRIDS = 16, OP_SWEEP_MAX_RUNS = 100000 };

typedef struct op_sweep_grid {
    char *key;    /* "section.key" */
    int value_count;
    char **values; /* each non-empty, trimmed of blanks, without tab or newline */
} op_sweep_grid;

typedef struct op_sweep {
    const char *config;       /* borrowed, like dir and sets */
    const char *dir;
    int set_count;
    const char *const *sets;  /* shared overrides, before the grid values */
    int grid_count;
    op_sweep_grid grids[OP_SWEEP_MAX_GRIDS];
    long run_count;           /* product of the value counts; 1 with no grid */
} op_sweep;

/* Starts a sweep without grids. A shared override without '=', or a config, DIR or shared
 * override holding a tab or newline (sweep.tsv could not list it), is OP_ERR_USAGE naming it. */
int op_sweep_init(op_ctx *ctx, op_sweep *sweep, const char *config, const char *dir, int set_count,
                  const char *const *sets);
/* Adds the grid "section.key=v1,v2,...". A key without a section, an empty value, a key given
 * twice (in two grids, or as a grid and a shared override), more than OP_SWEEP_MAX_GRIDS grids
 * or more than OP_SWEEP_MAX_RUNS runs is OP_ERR_USAGE quoting the grid. */
int op_sweep_add_grid(op_ctx *ctx, op_sweep *sweep, const char *spec);
void op_sweep_free(op_sweep *sweep);

/* Grid g's value in run r. */
const char *op_sweep_value(const op_sweep *sweep, long run, int grid);
/* DIR/run-NNN.h5 of run r; OP_ERR_INVALID when it does not fit `size`. */
int op_sweep_run_path(op_ctx *ctx, const op_sweep *sweep, long run, char *out, size_t size);
/* Run r's overrides, the shared ones then "key=value" of each grid: *count strings in a new
 * array the caller frees with op_sweep_free_strings (which frees any such array). */
int op_sweep_overrides(op_ctx *ctx, const op_sweep *sweep, long run, char ***overrides, int *count);
void op_sweep_free_strings(char **overrides, int count);

typedef enum op_sweep_quoting {
    OP_SWEEP_WORDS, /* the words joined by blanks, as a run file records its command line */
    OP_SWEEP_MAKE   /* shell-quoted, '$' doubled: a make recipe */
} op_sweep_quoting;
/* "OPSIM run CONFIG --set ... --out DIR/run-NNN.h5" for run r, in a new string the caller
 * frees. */
char *op_sweep_command(op_ctx *ctx, const op_sweep *sweep, const char *opsim, long run, op_sweep_quoting quoting);

/* DIR/sweep.tsv. `command_line` (how the sweep was made) goes into its first line. */
int op_sweep_write_table(op_ctx *ctx, const op_sweep *sweep, const char *command_line);
/* DIR/sweep.mk, also copied to `echo` unless NULL (`--print-make`). Make cannot name a path
 * holding blanks or any of : # $ % \ * ? [ ] ; the config and DIR are refused with
 * OP_ERR_USAGE when they do. */
int op_sweep_write_make(op_ctx *ctx, const op_sweep *sweep, const char *command_line, FILE *echo);

#endif
