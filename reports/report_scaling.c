/* The scaling study's table and plot data from bench_scenes' CSVs (report_scaling.h). */
#include "report_scaling.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "io/atomic.h"
#include "report_input.h"

typedef struct point {
    char series[2 * REPORT_FIELD_SIZE + 2]; /* "config setting" */
    double particles, bodies, ms, us, mb;
    double solve_bpp; /* the linear solves' bytes per particle (solve_bytes / particles), NAN without */
} point;

static double number(const report_bench_row *row, const char *key)
{
    const char *text = report_bench_value(row, key);
    return text && *text ? strtod(text, NULL) : NAN; /* an empty cell: the row has no value */
}

static int read_points(op_ctx *ctx, int count, char *const *paths, point *points, int *n)
{
    report_bench_row *rows = op_calloc(ctx, REPORT_MAX_ROWS, sizeof *rows);
    if (!rows)
        return ctx->status;
    *n = 0;
    for (int f = 0; f < count && ctx->status == OP_OK; ++f) {
        int found = 0;
        if (report_read_bench(ctx, paths[f], "catalogue", rows, &found) != OP_OK)
            break;
        for (int r = 0; r < found; ++r) {
            point *p = &points[(*n)++];
            const char *setting = report_bench_value(&rows[r], "setting");
            snprintf(p->series, sizeof p->series, "%s%s%s", report_bench_value(&rows[r], "config"),
                     setting ? " " : "", setting ? setting : "");
            p->particles = number(&rows[r], "nodes");
            p->bodies = number(&rows[r], "bodies");
            p->ms = number(&rows[r], "total_ms");
            p->us = 1e3 * p->ms / (number(&rows[r], "ns") * number(&rows[r], "ni") * p->particles);
            p->mb = number(&rows[r], "peak_rss_kb") / 1024.0;
            p->solve_bpp = number(&rows[r], "solve_bytes") / p->particles;
            if (!(p->particles > 0 && p->bodies > 0 && isfinite(p->ms)))
                OP_FAIL(ctx, OP_ERR_PARSE, "%s: a row without nodes, bodies or total_ms", paths[f]);
        }
    }
    free(rows);
    return ctx->status;
}

static int by_series_then_size(const void *a, const void *b)
{
    const point *p = a, *q = b;
    int c = strcmp(p->series, q->series);
    if (c)
        return c;
    double x = p->bodies != q->bodies ? p->bodies : p->particles, y = p->bodies != q->bodies ? q->bodies : q->particles;
    return (x > y) - (x < y);
}

/* Least-squares slope of log value on log size over the series' points; NAN with < 2 sizes. */
static double slope(const point *p, int n, int against_bodies, size_t value_offset)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int i = 0; i < n; ++i) {
        double value = *(const double *)((const char *)&p[i] + value_offset);
        if (!(value > 0))
            continue;
        double x = log(against_bodies ? p[i].bodies : p[i].particles), y = log(value);
        sx += x, sy += y, sxx += x * x, sxy += x * y, ++m;
    }
    double d = m * sxx - sx * sx;
    return m >= 2 && d > 1e-12 ? (m * sxy - sx * sy) / d : NAN;
}

static void write_slope(FILE *out, double s)
{
    if (isnan(s))
        fprintf(out, " – |");
    else
        fprintf(out, " %.2f |", s);
}

/* A table cell: value to `decimals` places, or "–" where the row has none */
static void write_value(FILE *out, double value, int decimals)
{
    if (isnan(value))
        fprintf(out, " – |");
    else
        fprintf(out, " %.*f |", decimals, value);
}

static void write_series(FILE *out, FILE *data, const point *p, int n, int against_bodies)
{
    fprintf(out, "\n**%s** against %s\n\n| particles | bodies | ms per frame | µs per particle-iteration | peak RSS, MB | "
                 "linear solves, bytes per particle |\n|---:|---:|---:|---:|---:|---:|\n",
            p[0].series, against_bodies ? "bodies" : "particles");
    /* blocks apart by two blank lines, none after the last (gnuplot's stats would count an empty one) */
    fprintf(data, "%s\"%s\"\tms\tus\tMB\tsolve_B_per_particle\n", ftell(data) > 0 ? "\n\n" : "", p[0].series);
    for (int i = 0; i < n; ++i) {
        fprintf(out, "| %.0f | %.0f | %.3f | %.4f | %.1f |", p[i].particles, p[i].bodies, p[i].ms, p[i].us, p[i].mb);
        write_value(out, p[i].solve_bpp, 0);
        fprintf(out, "\n");
        fprintf(data, "%.0f\t%.6g\t%.6g\t%.6g\t", against_bodies ? p[i].bodies : p[i].particles, p[i].ms, p[i].us,
                p[i].mb);
        if (isnan(p[i].solve_bpp)) /* gnuplot reads NaN as a missing value */
            fprintf(data, "NaN\n");
        else
            fprintf(data, "%.6g\n", p[i].solve_bpp);
    }
    fprintf(out, "| log-log slope | |");
    write_slope(out, slope(p, n, against_bodies, offsetof(point, ms)));
    write_slope(out, slope(p, n, against_bodies, offsetof(point, us)));
    write_slope(out, slope(p, n, against_bodies, offsetof(point, mb)));
    write_slope(out, slope(p, n, against_bodies, offsetof(point, solve_bpp)));
    fprintf(out, "\n");
}

static int write_all(op_ctx *ctx, point *points, int n, FILE *data[2], FILE *out)
{
    qsort(points, (size_t)n, sizeof *points, by_series_then_size);
    fprintf(out, "Series measured: %d points. Slopes are d log(value) / d log(size).\n", n);
    for (int first = 0, end; first < n; first = end) {
        int against_bodies = 0;
        for (end = first; end < n && strcmp(points[end].series, points[first].series) == 0; ++end)
            against_bodies |= points[end].bodies != points[first].bodies;
        write_series(out, data[against_bodies], &points[first], end - first, against_bodies);
    }
    return ctx->status;
}

int report_scaling(op_ctx *ctx, int csv_count, char *const *csv_paths, const char *data_prefix, FILE *out)
{
    point *points = op_calloc(ctx, (size_t)csv_count * REPORT_MAX_ROWS + 1, sizeof *points);
    int n = 0;
    if (!points || read_points(ctx, csv_count, csv_paths, points, &n) != OP_OK) {
        free(points);
        return ctx->status;
    }
    static const char *const kinds[2] = { "particles", "bodies" };
    op_atomic_file files[2];
    FILE *data[2];
    int opened = 0;
    for (; opened < 2; ++opened) {
        char path[4200];
        snprintf(path, sizeof path, "%s-%s.dat", data_prefix, kinds[opened]);
        if (op_atomic_open(ctx, &files[opened], path) != OP_OK)
            break;
        data[opened] = files[opened].file;
    }
    if (opened == 2)
        write_all(ctx, points, n, data, out);
    for (int k = 0; k < opened; ++k) {
        if (ctx->status == OP_OK)
            op_atomic_commit(ctx, &files[k]);
        else
            op_atomic_abort(&files[k]);
    }
    free(points);
    return ctx->status;
}
