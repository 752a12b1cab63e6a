/* The command line's exit statuses and failure messages: a usage error names the command and
 * points to its --help; a core failure prints op_ctx's message (file:line, key or option) and
 * maps its status to sysexits (64 usage, 65 bad input data, 74 i/o, 70 anything else). */
#include <stdio.h>

#include "commands.h"

const char app_program[] = "opsim";

/* Set in the child of app_read_run_file_guarded (app/files.c). */
extern int app_reading_run_file;

int app_usage_error(const char *command, const char *format, const char *detail)
{
    fprintf(stderr, "%s%s%s: ", app_program, command[0] ? " " : "", command);
    fprintf(stderr, format, detail);
    fprintf(stderr, "\nTry '%s%s%s --help'.\n", app_program, command[0] ? " " : "", command);
    return EXIT_USAGE;
}

/* While a command reads a run file (info, export, xdmf), HDF5 failing means the file is
 * damaged (a metadata checksum, a heap reference out of range): bad input data. */
int app_report_failure(const op_ctx *ctx)
{
    int damaged = app_reading_run_file && ctx->status == OP_ERR_LIBRARY;
    fprintf(stderr, "%s: %s%s\n", app_program, ctx->message, damaged ? " (a damaged run file)" : "");
    if (damaged)
        return EXIT_DATA;
    switch (ctx->status) {
    case OP_ERR_USAGE: return EXIT_USAGE;
    case OP_ERR_PARSE:
    case OP_ERR_INVALID: return EXIT_DATA;
    case OP_ERR_IO: return EXIT_IO;
    default: return EXIT_SOFTWARE;
    }
}

int app_exit_status(const op_ctx *ctx)
{
    return ctx->status == OP_OK ? 0 : app_report_failure(ctx);
}
