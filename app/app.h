/* What the commands of bin/opsim share: the command table's entry (app/main.c holds the table),
 * each command's entry point (one file each, app/cmd_*.c), and the helpers of app/common.c.
 * Core functions report failures through op_ctx; the commands alone print them and pick the
 * exit status (64 usage, 65 bad input data, 74 i/o, 70 anything else). */
#ifndef OPSIM_APP_H
#define OPSIM_APP_H

#include <stddef.h>
#include <stdint.h>

#include "opsim/ctx.h"
#include "io/record.h"
#include "opsim/mesh.h"

enum { EXIT_USAGE = 64, EXIT_DATA = 65, EXIT_SOFTWARE = 70, EXIT_IO = 74 };

/* What a command may need beyond its own arguments. */
typedef struct app_call {
    const char *command_line; /* the whole command line, recorded in run files */
    const char *program_path; /* argv[0]: how to call this program again (sweep's Makefile) */
} app_call;

/* One command: `run` gets the arguments from the command's name on; a command that reads a run
 * file gives `reads_run_file` instead, which main runs in a child process
 * (read_run_file_guarded). */
typedef struct app_command {
    const char *name;
    const char *summary; /* the line of `opsim --help` */
    int (*run)(int argc, char **argv, const app_call *call);
    int (*reads_run_file)(int argc, char **argv);
} app_command;

int command_run(int argc, char **argv, const app_call *call);
int command_solvers(int argc, char **argv, const app_call *call);
int command_spring_curves(int argc, char **argv, const app_call *call);
int command_estimate_rho(int argc, char **argv, const app_call *call);
int command_converge(int argc, char **argv, const app_call *call);
int command_graph(int argc, char **argv, const app_call *call);
int command_mesh(int argc, char **argv, const app_call *call);
int command_sweep(int argc, char **argv, const app_call *call);
int command_info(int argc, char **argv);
int command_export(int argc, char **argv);
int command_xdmf(int argc, char **argv);

/* "opsim", as messages name the program */
extern const char *const program;
/* Set while a command reads a run file: HDF5 failing there means the file is damaged. */
extern int reading_run_file;

/* "opsim COMMAND: MESSAGE" and the hint to --help on stderr (format has one %s for detail);
 * returns EXIT_USAGE. */
int usage_error(const char *command, const char *format, const char *detail);
/* The failure's message on stderr; returns its exit status. */
int report_failure(const op_ctx *ctx);
/* 0 and *out when text is a whole number in [lo, hi] (parse_int), any unsigned 64-bit number
 * (parse_u64) or a finite positive number (parse_positive); else −1. */
int parse_int(const char *text, long lo, long hi, int *out);
int parse_u64(const char *text, uint64_t *out);
int parse_positive(const char *text, double *out);
/* Body name from a path: the file name without directory and extension. */
void body_name_from_path(const char *path, char *name, size_t size);
/* Puts "INPUT: " before a failure's message that does not name the input already; returns 0. */
int name_input(op_ctx *ctx, const char *input);
/* `command` run in a child process on the run file `path` (app/common.c says why). */
int read_run_file_guarded(int (*command)(int, char **), int argc, char **argv, const char *path);
/* A command taking one run file and nothing else: −1 when argv[1] is that file, else the exit
 * status to return (0 after printing `help` for --help, 64 for anything else). */
int check_single_run_file(const char *command, const char *help, int argc, char **argv);
/* The mesh of a generated shape (shape not NULL: op_shape_mesh) or of the file at path. */
int load_input_mesh(op_ctx *ctx, const char *path, const char *shape, op_mesh *mesh);
/* The directory dir, made unless it exists. */
int make_directory(op_ctx *ctx, const char *dir);
/* `opsim run`: one config, its overrides, recorded into `out`, then the sidecar beside it. */
int record_config(op_ctx *ctx, const char *config, int override_count, const char *const *overrides,
                  const char *out, const char *command_line, const op_record_def *def);

#endif
