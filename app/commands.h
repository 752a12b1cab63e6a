/* The command line's private contract: each command's handler and usage, the entries of
 * main.c's command table, and the
 * helpers the commands share, written once (exit statuses and failure messages, number and
 * --set parsing, the one-run-file operand, output directories, guarded run-file reads).
 *
 * Exit statuses follow sysexits: 0 success, 64 usage, 65 bad input data, 74 i/o, 70 anything
 * else. Core functions report failures through op_ctx; only the command line prints them. */
#ifndef OPSIM_APP_COMMANDS_H
#define OPSIM_APP_COMMANDS_H

#include <stdint.h>

#include "opsim/ctx.h"
#include "opsim/mesh.h"
#include "io/record.h"

enum { EXIT_USAGE = 64, EXIT_DATA = 65, EXIT_SOFTWARE = 70, EXIT_IO = 74 };

/* The program's name in every message. */
extern const char app_program[];

/* One command as its handler sees it: argv[0] is the command's name, argv[1..] its options and
 * operands (getopt_long may permute them). */
typedef struct app_call {
    int argc;
    char **argv;
    const char *command_line; /* the whole command line as typed, for a run's provenance */
    const char *opsim;        /* how this program was started, for the commands sweep writes */
} app_call;

/* A command's handler returns its exit status; its usage is the text of `opsim NAME --help`.
 * Each pair is defined in app/cmd_NAME.c and has one row in main.c's table. */
typedef int app_handler(const app_call *call);

app_handler app_run, app_solvers, app_spring_curves, app_estimate_rho, app_converge, app_graph, app_mesh,
    app_sweep, app_info, app_export, app_xdmf, app_overlap, app_verify, app_cache;
extern const char app_run_usage[], app_solvers_usage[], app_spring_curves_usage[], app_estimate_rho_usage[],
    app_converge_usage[], app_graph_usage[], app_mesh_usage[], app_sweep_usage[], app_info_usage[],
    app_export_usage[], app_xdmf_usage[], app_overlap_usage[], app_verify_usage[], app_cache_usage[];

/* ---- exit statuses and messages (app/status.c) ---- */

/* "opsim COMMAND: MESSAGE" (format with one %s for detail) and a pointer to --help; returns 64. */
int app_usage_error(const char *command, const char *format, const char *detail);
/* Prints ctx's message and returns the exit status its failure calls for. */
int app_report_failure(const op_ctx *ctx);
/* 0 when ctx holds no failure, else app_report_failure(ctx). */
int app_exit_status(const op_ctx *ctx);

/* ---- options and operands (app/options.c) ---- */

/* A whole number in [lo, hi], a non-negative 64-bit one, a finite positive real: 0, or -1 when
 * `text` is anything else (the caller names the option in its message). */
int app_parse_int(const char *text, long lo, long hi, int *out);
int app_parse_u64(const char *text, uint64_t *out);
int app_parse_positive(const char *text, double *out);

/* Repeated option values in the order given, e.g. every `--set SECTION.KEY=VALUE`: room for
 * `capacity` of them, pointers into argv. */
typedef struct app_list {
    const char **item;
    int count;
} app_list;
int app_list_init(app_list *list, int capacity); /* 0, or -1 out of memory */
void app_list_add(app_list *list, const char *item);
void app_list_free(app_list *list);

/* A command taking one run file and nothing else (info, xdmf): -1 when argv[1] is that file,
 * else the exit status to return (0 after printing `usage` for --help, 64 for anything else). */
int app_single_run_file(const app_call *call, const char *usage);

/* ---- runs (app/cmd_run.c) ---- */

/* Loads `config` with `overrides` (SECTION.KEY=VALUE), records it into `out` and writes its
 * XDMF sidecar: one `opsim run`, and each run of `opsim sweep --run`. */
int app_record_config(op_ctx *ctx, const char *config, const app_list *overrides, const char *out,
                      const char *command_line, const op_record_def *def);

/* ---- files (app/files.c) ---- */

/* DIR, made unless it exists (its parent must). */
int app_make_directory(op_ctx *ctx, const char *dir);

/* The mesh FILE (OFF or OBJ) or, when `shape` is set, the generated shape of that name. */
int app_load_input_mesh(op_ctx *ctx, const char *path, const char *shape, op_mesh *mesh);

/* Runs `handler` in a child process whose standard output is held until it exits; a crash
 * there (libhdf5 reading a damaged run file `path`) becomes exit 65 and no output. */
int app_read_run_file_guarded(app_handler *handler, const app_call *call, const char *path);

#endif
