/* Parameter sweeps (sweep.h): grid parsing, the mixed-radix walk over the combinations, and
 * the sweep's table and Makefile. */
#include "io/sweep.h"

#include <stdlib.h>
#include <string.h>

#include "io/atomic.h"

static char *copy_text(op_ctx *ctx, const char *text, size_t length)
{
    char *copy = op_calloc(ctx, length + 1, 1);
    if (copy)
        memcpy(copy, text, length);
    return copy;
}

/* The key of an override "key=value": its length, or 0 when there is no '='. */
static size_t key_length(const char *override)
{
    const char *eq = strchr(override, '=');
    return eq ? (size_t)(eq - override) : 0;
}

int op_sweep_init(op_ctx *ctx, op_sweep *sweep, const char *config, const char *dir, int set_count,
                  const char *const *sets)
{
    memset(sweep, 0, sizeof *sweep);
    if (strpbrk(config, "\t\n") || strpbrk(dir, "\t\n"))
        return OP_FAIL(ctx, OP_ERR_USAGE, "'%s', '%s': sweep.tsv cannot list paths with tabs or newlines", config, dir);
    for (int i = 0; i < set_count; ++i)
        if (!key_length(sets[i]) || strpbrk(sets[i], "\t\n"))
            return OP_FAIL(ctx, OP_ERR_USAGE, "--set '%.100s': give SECTION.KEY=VALUE without tabs or newlines", sets[i]);
    sweep->config = config;
    sweep->dir = dir;
    sweep->set_count = set_count;
    sweep->sets = sets;
    sweep->run_count = 1;
    return OP_OK;
}

static int key_taken(const op_sweep *sweep, const char *key, size_t length)
{
    for (int g = 0; g < sweep->grid_count; ++g)
        if (strlen(sweep->grids[g].key) == length && strncmp(sweep->grids[g].key, key, length) == 0)
            return 1;
    for (int i = 0; i < sweep->set_count; ++i)
        if (key_length(sweep->sets[i]) == length && strncmp(sweep->sets[i], key, length) == 0)
            return 1;
    return 0;
}

int op_sweep_add_grid(op_ctx *ctx, op_sweep *sweep, const char *spec)
{
    size_t length = key_length(spec);
    const char *dot = memchr(spec, '.', length);
    if (!length || !dot || dot == spec || dot + 1 == spec + length)
        return OP_FAIL(ctx, OP_ERR_USAGE, "--grid '%.100s': give SECTION.KEY=V1,V2,...", spec);
    if (strpbrk(spec, "\t\n"))
        return OP_FAIL(ctx, OP_ERR_USAGE, "--grid '%.100s': tabs and newlines cannot go into sweep.tsv", spec);
    if (key_taken(sweep, spec, length))
        return OP_FAIL(ctx, OP_ERR_USAGE, "--grid '%.100s': %.*s is given twice", spec, (int)length, spec);
    if (sweep->grid_count == OP_SWEEP_MAX_GRIDS)
        return OP_FAIL(ctx, OP_ERR_USAGE, "--grid '%.100s': at most %d grids", spec, OP_SWEEP_MAX_GRIDS);
    const char *list = spec + length + 1;
    int count = 1;
    for (const char *c = list; *c; ++c)
        count += *c == ',';
    if (sweep->run_count * count > OP_SWEEP_MAX_RUNS)
        return OP_FAIL(ctx, OP_ERR_USAGE, "--grid '%.100s': the sweep would have more than %d runs", spec,
                       OP_SWEEP_MAX_RUNS);
    op_sweep_grid grid = { .key = copy_text(ctx, spec, length), .values = op_calloc(ctx, (size_t)count, sizeof(char *)) };
    const char *start = list;
    for (int v = 0; v < count && ctx->status == OP_OK; ++v) {
        size_t span = strcspn(start, ",");
        const char *first = start, *end = start + span;
        while (first < end && (*first == ' ' || *first == '\t'))
            ++first;
        while (end > first && (end[-1] == ' ' || end[-1] == '\t'))
            --end;
        if (first == end)
            OP_FAIL(ctx, OP_ERR_USAGE, "--grid '%.100s': value %d is empty", spec, v + 1);
        else
            grid.values[grid.value_count++] = copy_text(ctx, first, (size_t)(end - first));
        start += span + 1;
    }
    if (ctx->status != OP_OK) {
        op_sweep_free_strings(grid.values, grid.value_count);
        free(grid.key);
        return ctx->status;
    }
    sweep->grids[sweep->grid_count++] = grid;
    sweep->run_count *= count;
    return OP_OK;
}

void op_sweep_free(op_sweep *sweep)
{
    for (int g = 0; g < sweep->grid_count; ++g) {
        op_sweep_free_strings(sweep->grids[g].values, sweep->grids[g].value_count);
        free(sweep->grids[g].key);
    }
    sweep->grid_count = 0;
}

const char *op_sweep_value(const op_sweep *sweep, long run, int grid)
{
    /* mixed radix, the last grid the fastest digit */
    for (int g = sweep->grid_count - 1; g > grid; --g)
        run /= sweep->grids[g].value_count;
    return sweep->grids[grid].values[run % sweep->grids[grid].value_count];
}

int op_sweep_run_path(op_ctx *ctx, const op_sweep *sweep, long run, char *out, size_t size)
{
    int width = 3;
    for (long last = sweep->run_count - 1; last >= 1000; last /= 10)
        ++width;
    if ((size_t)snprintf(out, size, "%s/run-%0*ld.h5", sweep->dir, width, run) >= size)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%.200s: run file path too long", sweep->dir);
    return OP_OK;
}

void op_sweep_free_strings(char **overrides, int count)
{
    if (!overrides)
        return;
    for (int i = 0; i < count; ++i)
        free(overrides[i]);
    free(overrides);
}

int op_sweep_overrides(op_ctx *ctx, const op_sweep *sweep, long run, char ***overrides, int *count)
{
    int total = sweep->set_count + sweep->grid_count;
    char **list = op_calloc(ctx, (size_t)total, sizeof *list);
    *overrides = NULL;
    *count = 0;
    if (!list)
        return ctx->status;
    for (int i = 0; i < sweep->set_count && ctx->status == OP_OK; ++i)
        list[i] = copy_text(ctx, sweep->sets[i], strlen(sweep->sets[i]));
    for (int g = 0; g < sweep->grid_count && ctx->status == OP_OK; ++g) {
        const char *key = sweep->grids[g].key, *value = op_sweep_value(sweep, run, g);
        size_t size = strlen(key) + strlen(value) + 2;
        if ((list[sweep->set_count + g] = op_calloc(ctx, size, 1)))
            snprintf(list[sweep->set_count + g], size, "%s=%s", key, value);
    }
    if (ctx->status != OP_OK) {
        op_sweep_free_strings(list, total);
        return ctx->status;
    }
    *overrides = list;
    *count = total;
    return OP_OK;
}

/* One word of a command: plain, or single-quoted for the shell ('\'' for a quote) with each '$'
 * doubled so make passes it on. */
static void put_word(FILE *out, const char *word, op_sweep_quoting quoting)
{
    fputc(' ', out);
    if (quoting == OP_SWEEP_WORDS) {
        fputs(word, out);
        return;
    }
    fputc('\'', out);
    for (const char *c = word; *c; ++c)
        fputs(*c == '\'' ? "'\\''" : *c == '$' ? "$$" : (char[]){ *c, 0 }, out);
    fputc('\'', out);
}

char *op_sweep_command(op_ctx *ctx, const op_sweep *sweep, const char *opsim, long run, op_sweep_quoting quoting)
{
    char path[4200], **overrides;
    int count;
    if (op_sweep_run_path(ctx, sweep, run, path, sizeof path) != OP_OK ||
        op_sweep_overrides(ctx, sweep, run, &overrides, &count) != OP_OK)
        return NULL;
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out) {
        OP_FAIL(ctx, OP_ERR_NOMEM, "out of memory spelling the command of run %ld", run);
        op_sweep_free_strings(overrides, count);
        return NULL;
    }
    fprintf(out, "%s run", opsim);
    put_word(out, sweep->config, quoting);
    for (int i = 0; i < count; ++i) {
        fputs(" --set", out);
        put_word(out, overrides[i], quoting);
    }
    fputs(" --out", out);
    put_word(out, path, quoting);
    op_sweep_free_strings(overrides, count);
    if (fclose(out) != 0) {
        free(text);
        OP_FAIL(ctx, OP_ERR_NOMEM, "out of memory spelling the command of run %ld", run);
        return NULL;
    }
    return text;
}

/* DIR/NAME, opened for a whole-or-nothing write. */
static int open_in_dir(op_ctx *ctx, const op_sweep *sweep, const char *name, op_atomic_file *file)
{
    char path[4200];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", sweep->dir, name) >= sizeof path)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%.200s: path too long", sweep->dir);
    return op_atomic_open(ctx, file, path);
}

int op_sweep_write_table(op_ctx *ctx, const op_sweep *sweep, const char *command_line)
{
    op_atomic_file file;
    if (open_in_dir(ctx, sweep, "sweep.tsv", &file) != OP_OK)
        return ctx->status;
    FILE *out = file.file;
    fprintf(out, "# opsim sweep: %ld runs of %s (%s)\n", sweep->run_count, sweep->config, command_line);
    fprintf(out, "# config\t%s\n", sweep->config);
    for (int i = 0; i < sweep->set_count; ++i)
        fprintf(out, "# set\t%s\n", sweep->sets[i]);
    fprintf(out, "# run");
    for (int g = 0; g < sweep->grid_count; ++g)
        fprintf(out, "\t%s", sweep->grids[g].key);
    fputc('\n', out);
    for (long r = 0; r < sweep->run_count && ctx->status == OP_OK; ++r) {
        char path[4200];
        if (op_sweep_run_path(ctx, sweep, r, path, sizeof path) != OP_OK)
            break;
        fputs(path, out);
        for (int g = 0; g < sweep->grid_count; ++g)
            fprintf(out, "\t%s", op_sweep_value(sweep, r, g));
        fputc('\n', out);
    }
    if (ctx->status != OP_OK) {
        op_atomic_abort(&file);
        return ctx->status;
    }
    return op_atomic_commit(ctx, &file);
}

static int make_safe(op_ctx *ctx, const char *what, const char *path)
{
    if (strpbrk(path, " \t\n:#$%\\*?[]"))
        return OP_FAIL(ctx, OP_ERR_USAGE,
                       "%s '%s': make cannot name a path holding blanks or any of : # $ %% \\ * ? [ ]", what, path);
    return OP_OK;
}

/* The whole fragment, written to `out`. */
static int print_make(op_ctx *ctx, const op_sweep *sweep, const char *command_line, FILE *out)
{
    fprintf(out, "# opsim sweep: %ld runs of %s into %s (%s lists each run's values).\n", sweep->run_count,
            sweep->config, sweep->dir, "sweep.tsv");
    fprintf(out, "# Made by: %s\n", command_line);
    fprintf(out, "# Run from the project root: make -f %s/sweep.mk -j2 (OPSIM=... for another binary).\n",
            sweep->dir);
    fprintf(out, "OPSIM ?= bin/opsim\n\n.PHONY: sweep\nsweep:");
    for (long r = 0; r < sweep->run_count; ++r) {
        char path[4200];
        if (op_sweep_run_path(ctx, sweep, r, path, sizeof path) != OP_OK)
            return ctx->status;
        fprintf(out, " \\\n    %s", path);
    }
    fputc('\n', out);
    for (long r = 0; r < sweep->run_count; ++r) {
        char path[4200];
        char *command = op_sweep_command(ctx, sweep, "$(OPSIM)", r, OP_SWEEP_MAKE);
        if (!command || op_sweep_run_path(ctx, sweep, r, path, sizeof path) != OP_OK) {
            free(command);
            return ctx->status;
        }
        fprintf(out, "\n%s: %s $(OPSIM)\n\t%s\n", path, sweep->config, command);
        free(command);
    }
    return OP_OK;
}

int op_sweep_write_make(op_ctx *ctx, const op_sweep *sweep, const char *command_line, FILE *echo)
{
    op_atomic_file file;
    if (make_safe(ctx, "--out", sweep->dir) != OP_OK || make_safe(ctx, "config", sweep->config) != OP_OK ||
        open_in_dir(ctx, sweep, "sweep.mk", &file) != OP_OK)
        return ctx->status;
    if (print_make(ctx, sweep, command_line, file.file) != OP_OK) {
        op_atomic_abort(&file);
        return ctx->status;
    }
    if (op_atomic_commit(ctx, &file) == OP_OK && echo)
        print_make(ctx, sweep, command_line, echo);
    return ctx->status;
}
