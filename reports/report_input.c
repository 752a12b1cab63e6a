/* The inputs of opsim-report's sections (report_input.h): tab-separated tables, bench_scenes'
 * CSV and the processor's name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opsim/ctx.h"
#include "base/timing_stats.h"
#include "report_input.h"

/* Every line a row but '#' and empty lines, and the first line when `headed` and it does not
 * start with '#' (the plain header of docs/results.md; a table of before the tidy format has
 * its names on a '#' line). */
static int read_rows(op_ctx *ctx, const char *path, int min_columns, int headed, report_table *t)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char line[4096];
    int number = 0;
    t->rows = 0;
    while (fgets(line, sizeof line, f)) {
        ++number;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0' || (headed && number == 1))
            continue;
        if (t->rows == REPORT_MAX_ROWS) {
            fclose(f);
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: more than %d rows", path, number, REPORT_MAX_ROWS);
        }
        int c = 0;
        for (char *field = line, *tab; field && c < REPORT_MAX_FIELDS; field = tab ? tab + 1 : NULL, ++c) {
            tab = strchr(field, '\t');
            if (tab)
                *tab = '\0';
            if (strlen(field) >= REPORT_FIELD_SIZE) {
                fclose(f);
                return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: field %d is longer than %d characters", path, number,
                               c + 1, REPORT_FIELD_SIZE - 1);
            }
            strcpy(t->cell[t->rows][c], field);
        }
        if (c < min_columns) {
            fclose(f);
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: %d tab-separated fields, expected %d", path, number, c,
                           min_columns);
        }
        t->columns[t->rows++] = c;
    }
    fclose(f);
    return OP_OK;
}

int report_read_table(op_ctx *ctx, const char *path, int min_columns, report_table *t)
{
    return read_rows(ctx, path, min_columns, 1, t);
}

int report_read_rows(op_ctx *ctx, const char *path, int min_columns, report_table *t)
{
    return read_rows(ctx, path, min_columns, 0, t);
}

const char *report_bench_value(const report_bench_row *row, const char *key)
{
    for (int k = 0; k < row->count; ++k)
        if (strcmp(row->key[k], key) == 0)
            return row->value[k];
    return NULL;
}

/* Splits a comma-separated line in place, empty cells kept; returns the cell count, or -1 when
 * there are more than max. */
static int split_commas(char *line, char **cells, int max)
{
    int count = 0;
    for (char *cell = line; cell; ++count) {
        if (count == max)
            return -1;
        cells[count] = cell;
        char *comma = strchr(cell, ',');
        if (comma)
            *comma = '\0';
        cell = comma ? comma + 1 : NULL;
    }
    return count;
}

int report_read_bench(op_ctx *ctx, const char *path, const char *edge_rule, report_bench_row *rows, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char header[4096], line[4096], *names[REPORT_BENCH_KEYS], *cells[REPORT_BENCH_KEYS];
    int number = 1, columns = -1;
    *count = 0;
    if (fgets(header, sizeof header, f)) {
        header[strcspn(header, "\r\n")] = '\0';
        columns = split_commas(header, names, REPORT_BENCH_KEYS);
    }
    for (int c = 0; c < columns; ++c)
        if (!names[c][0] || strlen(names[c]) >= REPORT_BENCH_KEY_SIZE)
            columns = -1;
    if (columns < 0) {
        fclose(f);
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s:1: not a header row of at most %d column names", path,
                       REPORT_BENCH_KEYS);
    }
    while (fgets(line, sizeof line, f)) {
        ++number;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0')
            continue;
        if (split_commas(line, cells, REPORT_BENCH_KEYS) != columns) {
            fclose(f);
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: not %d comma-separated cells, as the header has", path, number,
                           columns);
        }
        if (*count == REPORT_MAX_ROWS) {
            fclose(f);
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: more than %d rows", path, number, REPORT_MAX_ROWS);
        }
        report_bench_row *row = &rows[*count];
        row->count = 0;
        for (int c = 0; c < columns; ++c) {
            if (strlen(cells[c]) >= REPORT_FIELD_SIZE) {
                fclose(f);
                return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: the %s cell is longer than %d characters", path, number,
                               names[c], REPORT_FIELD_SIZE - 1);
            }
            if (cells[c][0]) {
                strcpy(row->key[row->count], names[c]);
                strcpy(row->value[row->count++], cells[c]);
            }
        }
        static const char *const required[] = { "edge_rule", "example", "config", "per", "threads", "nodes",
                                                "edges", "vertices", "faces", "ns", "ni", "local_ms", "global_ms",
                                                "collision_ms", "total_ms", "skinning_ms", "warmup", "frames",
                                                "repeats" };
        for (size_t k = 0; k < sizeof required / sizeof required[0]; ++k)
            if (!report_bench_value(row, required[k])) {
                fclose(f);
                return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: no %s", path, number, required[k]);
            }
        if (strcmp(report_bench_value(row, "per"), "scene") == 0 &&
            strcmp(report_bench_value(row, "edge_rule"), edge_rule) == 0)
            ++*count;
    }
    fclose(f);
    if (*count == 0)
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s: no per-scene rows with edge_rule %s", path, edge_rule);
    return OP_OK;
}

void report_cpu_model(char *out, size_t size)
{
    op_cpu_model(out, size > 4096 ? 4096 : (int)size);
}
