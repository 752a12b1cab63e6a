/* One column of numbers reduced to statistics (report_series.h): the rows read and summed
 * across the chosen columns, the row range kept, each statistic computed in row order. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_calc.h"
#include "report_series.h"

typedef struct series {
    const char *name;
    double *value;
    int count, capacity;
} series;

enum { COLUMN_LAST = -1, MAX_SUMMED = 8 };

/* "1", "last" or "1+2" into column numbers (1-based; COLUMN_LAST). */
static int parse_columns(op_ctx *ctx, const char *text, int *column, int *count)
{
    *count = 0;
    for (const char *c = text; *c;) {
        char *end;
        long n = strtol(c, &end, 10);
        if (strncmp(c, "last", 4) == 0)
            n = COLUMN_LAST, end = (char *)c + 4;
        else if (end == c || n < 1)
            n = 0;
        if (n == 0 || *count == MAX_SUMMED || (*end && *end != '+'))
            return OP_FAIL(ctx, OP_ERR_USAGE, "--column '%s': expected N, 'last' or N+N", text);
        column[(*count)++] = (int)n;
        c = *end ? end + 1 : end;
    }
    return *count ? OP_OK : OP_FAIL(ctx, OP_ERR_USAGE, "--column '%s': expected N, 'last' or N+N", text);
}

static int append(op_ctx *ctx, series *s, double value)
{
    if (s->count == s->capacity) {
        int capacity = s->capacity ? 2 * s->capacity : 1024;
        double *more = realloc(s->value, (size_t)capacity * sizeof *more);
        if (!more)
            return OP_FAIL(ctx, OP_ERR_NOMEM, "%s: out of memory", s->name);
        s->value = more;
        s->capacity = capacity;
    }
    s->value[s->count++] = value;
    return OP_OK;
}

/* The value of one line: the sum of its chosen cells. */
static int line_value(op_ctx *ctx, const series *s, int number, char *line, const int *column, int columns,
                      double *value)
{
    double cell[256];
    int count = 0;
    for (char *word = strtok(line, " \t\r"); word && count < 256; word = strtok(NULL, " \t\r")) {
        char *end;
        errno = 0;
        cell[count] = strtod(word, &end);
        if (end == word || *end)
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: '%s' is not a number", s->name, number, word);
        ++count;
    }
    *value = 0;
    for (int c = 0; c < columns; ++c) {
        int index = column[c] == COLUMN_LAST ? count : column[c];
        if (index < 1 || index > count)
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: no column %d", s->name, number, index);
        *value += cell[index - 1];
    }
    return OP_OK;
}

static int read_series(op_ctx *ctx, FILE *in, const int *column, int columns, series *s)
{
    char line[8192];
    for (int number = 1; fgets(line, sizeof line, in); ++number) {
        size_t length = strlen(line);
        if (length == sizeof line - 1 && line[length - 1] != '\n')
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: line too long", s->name, number);
        line[strcspn(line, "\n")] = '\0';
        const char *first = line + strspn(line, " \t\r");
        if (*first == '\0' || *first == '#')
            continue;
        double value = 0;
        if (line_value(ctx, s, number, line, column, columns, &value) != OP_OK ||
            append(ctx, s, value) != OP_OK)
            return ctx->status;
    }
    return ferror(in) ? OP_FAIL(ctx, OP_ERR_IO, "%s: cannot read", s->name) : OP_OK;
}

/* "A:B" (either side may be empty, A negative counts from the end) into [first, end). */
static int parse_rows(op_ctx *ctx, const char *text, int count, int *first, int *end)
{
    *first = 0;
    *end = count;
    if (!text)
        return OP_OK;
    const char *colon = strchr(text, ':');
    char *stop;
    if (!colon)
        return OP_FAIL(ctx, OP_ERR_USAGE, "--rows '%s': expected A:B, A: or :B", text);
    if (colon > text) {
        long a = strtol(text, &stop, 10);
        if (stop != colon || a == 0)
            return OP_FAIL(ctx, OP_ERR_USAGE, "--rows '%s': expected A:B, A: or :B", text);
        *first = a > 0 ? (int)a - 1 : count + (int)a > 0 ? count + (int)a : 0;
    }
    if (colon[1]) {
        long b = strtol(colon + 1, &stop, 10);
        if (*stop || b < 1)
            return OP_FAIL(ctx, OP_ERR_USAGE, "--rows '%s': expected A:B, A: or :B", text);
        *end = b < count ? (int)b : count;
    }
    if (*first < 0 || *first >= *end)
        return OP_FAIL(ctx, OP_ERR_PARSE, "--rows '%s': no rows of the %d in %s", text, count, "the series");
    return OP_OK;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The statistic `name` of v[0..n). */
static int statistic(op_ctx *ctx, const series *s, const double *v, int n, const char *name, double *value)
{
    if (strncmp(name, "at:", 3) == 0) {
        char *stop;
        long row = strtol(name + 3, &stop, 10);
        long index = row > 0 ? row - 1 : s->count + row;
        if (*stop || row == 0 || index < 0 || index >= s->count)
            return OP_FAIL(ctx, OP_ERR_PARSE, "--of %s: %s has %d rows", name, s->name, s->count);
        *value = s->value[index];
        return OP_OK;
    }
    if (strncmp(name, "settles-below:", 14) == 0) {
        char *stop;
        double bound = strtod(name + 14, &stop);
        if (*stop || stop == name + 14)
            return OP_FAIL(ctx, OP_ERR_USAGE, "--of %s: expected a number after 'settles-below:'", name);
        int row = n;
        while (row > 0 && v[row - 1] < bound)
            --row;
        *value = row == n ? 0 : row + 1; /* 1-based; 0: the last row is not below */
        return OP_OK;
    }
    double sum = 0, lo = v[0], hi = v[0], absmax = 0, absmin = fabs(v[0]);
    for (int i = 0; i < n; ++i) {
        sum += v[i];
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
        absmax = fabs(v[i]) > absmax ? fabs(v[i]) : absmax;
        absmin = fabs(v[i]) < absmin ? fabs(v[i]) : absmin;
    }
    if (strcmp(name, "first") == 0) *value = v[0];
    else if (strcmp(name, "last") == 0) *value = v[n - 1];
    else if (strcmp(name, "min") == 0) *value = lo;
    else if (strcmp(name, "max") == 0) *value = hi;
    else if (strcmp(name, "absmax") == 0) *value = absmax;
    else if (strcmp(name, "absmin") == 0) *value = absmin;
    else if (strcmp(name, "sum") == 0) *value = sum;
    else if (strcmp(name, "mean") == 0) *value = sum / n;
    else if (strcmp(name, "spread") == 0) *value = hi - lo;
    else if (strcmp(name, "median") == 0) {
        double *sorted = malloc((size_t)n * sizeof *sorted);
        if (!sorted)
            return OP_FAIL(ctx, OP_ERR_NOMEM, "%s: out of memory", s->name);
        memcpy(sorted, v, (size_t)n * sizeof *sorted);
        qsort(sorted, (size_t)n, sizeof *sorted, compare_doubles);
        *value = sorted[(n + 1) / 2 - 1];
        free(sorted);
    } else
        return OP_FAIL(ctx, OP_ERR_USAGE,
                       "--of '%s': expected first, last, min, max, absmax, absmin, sum, mean, spread, median, "
                       "at:N or settles-below:X", name);
    return OP_OK;
}

static int write_statistics(op_ctx *ctx, const report_series_def *def, series *s, FILE *out)
{
    const char *format = def->format ? def->format : "%.17g";
    if (!report_calc_format_ok(format))
        return OP_FAIL(ctx, OP_ERR_USAGE, "--format '%s': expected %%g, %%e or %%f with an optional precision",
                       format);
    if (s->count == 0)
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s: no numbers", s->name);
    for (int i = def->from_first ? s->count - 1 : -1; i >= 0; --i)
        s->value[i] -= s->value[0];
    int first, end;
    if (parse_rows(ctx, def->rows, s->count, &first, &end) != OP_OK)
        return ctx->status;
    double value[REPORT_SERIES_MAX_STATS];
    for (int k = 0; k < def->stat_count; ++k)
        if (statistic(ctx, s, s->value + first, end - first, def->stat[k], &value[k]) != OP_OK)
            return ctx->status;
    for (int k = 0; k < def->stat_count; ++k)
        report_calc_write(value[k], format, k + 1 < def->stat_count ? "\t" : "\n", out);
    return OP_OK;
}

int report_series(op_ctx *ctx, const report_series_def *def, FILE *out)
{
    int column[MAX_SUMMED], columns;
    if (parse_columns(ctx, def->column ? def->column : "1", column, &columns) != OP_OK)
        return ctx->status;
    if (def->stat_count == 0)
        return OP_FAIL(ctx, OP_ERR_USAGE, "series: give at least one --of STAT");
    series s = { .name = def->in ? def->in : "standard input" };
    FILE *in = def->in ? fopen(def->in, "r") : stdin;
    if (!in)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot open: %s", def->in, strerror(errno));
    if (read_series(ctx, in, column, columns, &s) == OP_OK)
        write_statistics(ctx, def, &s, out);
    if (def->in)
        fclose(in);
    free(s.value);
    return ctx->status;
}
