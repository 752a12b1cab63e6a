/* The `report` section of opsim-report: reports/REPORT.md from its template reports/REPORT.md.in.
 *
 * The template is markdown holding the prose (the paper's claims, what we did and why) and
 * placeholders `{{NAME ARG ...}}`, each on one line, its words separated by spaces. Every number
 * of ours in the report is a placeholder, computed when the report is written from the files it
 * names: run files and tables under --results (`RUN` is a run file's path there without .h5,
 * e.g. fig6/rod), pictures and linked reports beside the report, the paper's Table 1 and the
 * compiler flags. `opsim-report placeholders` lists the names (PLACEHOLDERS below).
 *
 * Failure is all or nothing: an unknown name, wrong arguments, a missing input or one that does
 * not hold what is asked of it stops the report with one message naming the template line, the
 * placeholder and the file, e.g.
 *   reports/REPORT.md.in:212: {{run fig6/rod bodies}}: data/results/fig6/rod.h5: no such file
 *   (`make fig6` writes it)
 * and nothing is written (the report and the depfile go through core/io/atomic.h).
 *
 * Every placeholder is evaluated into a string of its own before anything is written; those
 * that describe the inputs as a whole (`inputs.table`) are evaluated last, once every other
 * placeholder has named its files. Run files are read once each (struct run, cached); the big
 * per-frame arrays only when a placeholder needs them. With --depfile the report also writes a
 * make rule "OUT: every file read", plus an empty rule per file as gcc -MP does, so that make
 * re-writes the report when any of them changes and does not fail when one goes away.
 *
 * Adding a number: write a placeholder into the template; when no name computes it, add a
 * function and its PLACEHOLDERS row here (or a field to `run` or `observable`). */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/atomic.h"
#include "opsim/ctx.h"
#include "report_md.h"
#include "report_md_tex.h"
#include "report_status.h"
#include "report_input.h"
#include "report_table1.h"
#include "opsim/runfile.h"

/* Where the report's tables live under --results: the make contract of the experiments' and
 * the reports' makefiles (experiments/, reports/reports.mk). */
static const char *const DEFLECTION_TSV = "fig2/deflection.tsv";
static const char *const STEADY_TSV = "fig3/steady.tsv";
static const char *const CONVERGENCE_TSV = "convergence/table.tsv";
static const char *const BENCH_CSV = "table1/bench.csv";
static const char *const SCALING_TABLE = "scaling/table.md";

enum { PATH_SIZE = 4096, MAX_ARGS = 16, MAX_BODIES = OP_RUNFILE_MAX_BODIES, NAME_SIZE = OP_RUNFILE_NAME_SIZE };

typedef struct run_body {
    char name[NAME_SIZE], model[NAME_SIZE];
    long particles, edges, vertices, faces;
} run_body;

/* One run file as the report sees it: its bodies and parameters at once, the rest when first
 * asked for. */
enum { RUN_NAME_SIZE = 256 };
typedef struct run {
    char name[RUN_NAME_SIZE], path[PATH_SIZE];
    int body_count;
    run_body *bodies;
    long particles, edges, vertices, faces, frames, frames_configured;
    int64_t substeps, iterations;
    double frame_time, density, min_radius;
    char git[64], created[64], flags[1024];
    int have_finite;
    long output_frames, finite_frames;
    int have_collision;
    double max_penetration, max_floor_penetration;
    long landing_frame; /* the first frame with a floor contact, 0 for none */
    int have_timing;
    double median_ms[4]; /* local, global, collision, total */
} run;

typedef struct segment {
    const char *text; /* literal text, or the placeholder between the braces */
    size_t length;
    int placeholder, line;
    char *value;
} segment;

typedef struct md {
    op_ctx *ctx;
    const report_md_def *def;
    char out_dir[PATH_SIZE];
    char **inputs;
    int input_count, input_capacity;
    run **runs;
    int run_count, run_capacity;
    report_table *paper, *deflection, *steady, *convergence;
    report_bench_row *bench;
    int bench_count;
    char build_flags[1024];
} md;

/* ---- Inputs ---------------------------------------------------------------------------------- */

/* The make target that writes an input: the first word of its name under --results or in the
 * figures directory ("fig6/rod.h5", "fig6-rod-snapshots.png" and "convergence.md" come from `make
 * fig6`, `make fig6` and `make convergence`). */
static void make_target(const char *name, char *out, size_t size)
{
    size_t n = strcspn(name, "/-.");
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), name);
}

static int remember_input(md *m, const char *path)
{
    for (int i = 0; i < m->input_count; ++i)
        if (strcmp(m->inputs[i], path) == 0)
            return OP_OK;
    if (m->input_count == m->input_capacity) {
        int capacity = m->input_capacity ? 2 * m->input_capacity : 64;
        char **grown = realloc(m->inputs, (size_t)capacity * sizeof *grown);
        if (!grown)
            return OP_FAIL(m->ctx, OP_ERR_NOMEM, "out of memory");
        m->inputs = grown;
        m->input_capacity = capacity;
    }
    char *copy = strdup(path);
    if (!copy)
        return OP_FAIL(m->ctx, OP_ERR_NOMEM, "out of memory");
    m->inputs[m->input_count++] = copy;
    return OP_OK;
}

/* DIR/NAME into path, remembered as an input; a missing file is OP_ERR_IO naming the make
 * target that writes it (target NULL: say none). */
static int input_file(md *m, const char *dir, const char *name, const char *target, char *path, size_t size)
{
    if (snprintf(path, size, "%s/%s", dir, name) >= (int)size)
        return OP_FAIL(m->ctx, OP_ERR_INVALID, "%s/%s: path too long", dir, name);
    if (access(path, R_OK) != 0) {
        if (!target)
            return OP_FAIL(m->ctx, OP_ERR_IO, "%s: %s", path, strerror(errno));
        return OP_FAIL(m->ctx, OP_ERR_IO, "%s: %s (`make %s` writes it)", path,
                       errno == ENOENT ? "no such file" : strerror(errno), target);
    }
    return remember_input(m, path);
}

/* NAME under --results. */
static int result_file(md *m, const char *name, char *path, size_t size)
{
    char target[64];
    make_target(name, target, sizeof target);
    return input_file(m, m->def->results, name, target, path, size);
}

/* ---- Formatting ------------------------------------------------------------------------------ */

/* A number for prose: three significant digits, integers below 10⁵ whole, very large and very
 * small ones as m×10<sup>e</sup> (markdown has no exponent notation of its own). */
static void put_number(FILE *out, double v)
{
    if (isnan(v)) {
        fputs("NaN", out);
        return;
    }
    if (isinf(v)) {
        fputs(v > 0 ? "∞" : "−∞", out);
        return;
    }
    double a = fabs(v);
    if (a == 0) {
        fputs("0", out);
        return;
    }
    if (a >= 1e5 || a < 1e-3) {
        int e = (int)floor(log10(a));
        double mantissa = v / pow(10, e);
        char text[32];
        snprintf(text, sizeof text, "%.3g", mantissa);
        if (fabs(strtod(text, NULL)) >= 10) { /* 9.996 rounds to 10 */
            ++e;
            snprintf(text, sizeof text, "%.3g", v / pow(10, e));
        }
        fprintf(out, "%s×10<sup>%d</sup>", text, e);
    } else if (a >= 100)
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.3g", v);
}

/* The factor a unit argument applies to an SI value: "" (none), "mm", "ms" (from s) or "%". */
static int unit_scale(md *m, const char *unit, double *scale)
{
    if (!unit || !*unit)
        *scale = 1;
    else if (strcmp(unit, "mm") == 0 || strcmp(unit, "ms") == 0)
        *scale = 1e3;
    else if (strcmp(unit, "%") == 0)
        *scale = 100;
    else
        return OP_FAIL(m->ctx, OP_ERR_PARSE, "unknown unit '%s' (mm, ms or %%)", unit);
    return OP_OK;
}

static int put_scaled(md *m, FILE *out, double v, const char *unit)
{
    double scale = 1;
    if (unit_scale(m, unit, &scale) != OP_OK)
        return m->ctx->status;
    put_number(out, v * scale);
    return OP_OK;
}

/* A parameter string: a list of numbers (gravity "0 -9.81 0") as "(0, -9.81, 0)", a single
 * number formatted, anything else as it is. */
static void put_parameter_text(FILE *out, const char *text)
{
    double values[8];
    int count = 0;
    const char *p = text;
    char *end;
    while (count < 8) {
        double v = strtod(p, &end);
        if (end == p)
            break;
        values[count++] = v;
        p = end;
    }
    if (count == 0 || p[strspn(p, " \t")] != '\0') {
        fputs(text, out);
        return;
    }
    if (count > 1)
        fputs("(", out);
    for (int i = 0; i < count; ++i) {
        if (i)
            fputs(", ", out);
        put_number(out, values[i]);
    }
    if (count > 1)
        fputs(")", out);
}

/* ---- Reading run files ----------------------------------------------------------------------- */

/* A whole float64 dataset, rows × columns values (columns: the product of its trailing
 * dimensions). */
static int read_dataset(md *m, const char *path, const char *dataset, double **values, long *rows, long *columns)
{
    int rank;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    *values = NULL;
    if (op_runfile_dataset_shape(m->ctx, path, dataset, &rank, dims) != OP_OK)
        return m->ctx->status;
    if (rank < 1 || dims[0] < 1)
        return OP_FAIL(m->ctx, OP_ERR_INVALID, "%s: %s is empty", path, dataset);
    long per = 1;
    for (int d = 1; d < rank; ++d)
        per *= (long)dims[d];
    if (!(*values = op_calloc(m->ctx, (size_t)(dims[0] * per), sizeof **values)))
        return m->ctx->status;
    if (op_runfile_read_rows(m->ctx, path, dataset, 0, (long)dims[0], *values, (long)dims[0] * per) != OP_OK) {
        OP_FREE(*values);
        return m->ctx->status;
    }
    *rows = (long)dims[0];
    *columns = per;
    return OP_OK;
}

static int read_int64_series(md *m, const char *path, const char *dataset, int64_t **values, long *rows)
{
    int rank;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    *values = NULL;
    if (op_runfile_dataset_shape(m->ctx, path, dataset, &rank, dims) != OP_OK)
        return m->ctx->status;
    if (rank != 1 || dims[0] < 1)
        return OP_FAIL(m->ctx, OP_ERR_INVALID, "%s: %s is not a non-empty series", path, dataset);
    if (!(*values = op_calloc(m->ctx, (size_t)dims[0], sizeof **values)))
        return m->ctx->status;
    if (op_runfile_read_rows_int64(m->ctx, path, dataset, 0, (long)dims[0], *values, (long)dims[0]) != OP_OK) {
        OP_FREE(*values);
        return m->ctx->status;
    }
    *rows = (long)dims[0];
    return OP_OK;
}

static int rows_of(md *m, const char *path, const char *dataset, long *rows)
{
    int rank;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    if (op_runfile_dataset_shape(m->ctx, path, dataset, &rank, dims) != OP_OK)
        return m->ctx->status;
    if (rank < 1)
        return OP_FAIL(m->ctx, OP_ERR_INVALID, "%s: %s is a scalar", path, dataset);
    *rows = (long)dims[0];
    return OP_OK;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of values[0 .. n-1], which it sorts. */
static double median(double *values, long n)
{
    qsort(values, (size_t)n, sizeof *values, compare_doubles);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

static int load_body(md *m, run *r, run_body *b)
{
    char object[2 * NAME_SIZE];
    int64_t particles, edges, polygons;
    long vertices = 0, n, three;
    double *radii;
    snprintf(object, sizeof object, "/graph/%s", b->name);
    if (op_runfile_read_attribute_int(m->ctx, r->path, object, "particles", &particles) != OP_OK ||
        op_runfile_read_attribute_int(m->ctx, r->path, object, "edges", &edges) != OP_OK)
        return m->ctx->status;
    if (r->body_count == 0 && op_runfile_read_attribute_double(m->ctx, r->path, object, "density", &r->density) != OP_OK)
        return m->ctx->status;
    snprintf(object, sizeof object, "/graph/%s/radii", b->name);
    if (read_dataset(m, r->path, object, &radii, &n, &three) != OP_OK)
        return m->ctx->status;
    for (long i = 0; i < n * three; ++i)
        r->min_radius = fmin(r->min_radius, radii[i]);
    free(radii);
    snprintf(object, sizeof object, "/mesh/%s", b->name);
    if (op_runfile_read_attribute_int(m->ctx, r->path, object, "polygons", &polygons) != OP_OK)
        return m->ctx->status;
    snprintf(object, sizeof object, "/mesh/%s/rest_vertices", b->name);
    if (rows_of(m, r->path, object, &vertices) != OP_OK)
        return m->ctx->status;
    snprintf(object, sizeof object, "/parameters/%s", b->name);
    if (op_runfile_read_attribute_string(m->ctx, r->path, object, "model", b->model, sizeof b->model) != OP_OK)
        return m->ctx->status;
    b->particles = (long)particles;
    b->edges = (long)edges;
    b->vertices = vertices;
    b->faces = (long)polygons;
    r->particles += b->particles;
    r->edges += b->edges;
    r->vertices += b->vertices;
    r->faces += b->faces;
    return OP_OK;
}

static void run_free(run *r)
{
    if (r)
        free(r->bodies);
    free(r);
}

/* The run file NAME.h5 under --results, read on first use: bodies, counts, parameters and
 * provenance. */
static int get_run(md *m, const char *name, run **out)
{
    for (int i = 0; i < m->run_count; ++i)
        if (strcmp(m->runs[i]->name, name) == 0) {
            *out = m->runs[i];
            return OP_OK;
        }
    char file[300];
    if (strlen(name) >= RUN_NAME_SIZE || snprintf(file, sizeof file, "%s.h5", name) >= (int)sizeof file)
        return OP_FAIL(m->ctx, OP_ERR_PARSE, "run name '%s' too long", name);
    if (m->run_count == m->run_capacity) {
        int capacity = m->run_capacity ? 2 * m->run_capacity : 16;
        run **grown = realloc(m->runs, (size_t)capacity * sizeof *grown);
        if (!grown)
            return OP_FAIL(m->ctx, OP_ERR_NOMEM, "out of memory");
        m->runs = grown;
        m->run_capacity = capacity;
    }
    run *r = op_calloc(m->ctx, 1, sizeof *r);
    char (*names)[NAME_SIZE] = op_calloc(m->ctx, MAX_BODIES, sizeof *names);
    int count = 0;
    if (!r || !names)
        goto fail;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->min_radius = INFINITY;
    if (result_file(m, file, r->path, sizeof r->path) != OP_OK ||
        op_runfile_body_names(m->ctx, r->path, names, MAX_BODIES, &count) != OP_OK)
        goto fail;
    if (count < 1) {
        OP_FAIL(m->ctx, OP_ERR_INVALID, "%s: no bodies", r->path);
        goto fail;
    }
    if (!(r->bodies = op_calloc(m->ctx, (size_t)count, sizeof *r->bodies)))
        goto fail;
    for (int b = 0; b < count; ++b) {
        snprintf(r->bodies[b].name, sizeof r->bodies[b].name, "%s", names[b]);
        if (load_body(m, r, &r->bodies[b]) != OP_OK)
            goto fail;
        r->body_count = b + 1;
    }
    int64_t frames;
    if (op_runfile_read_attribute_int(m->ctx, r->path, "/parameters", "frames", &frames) != OP_OK ||
        op_runfile_read_attribute_int(m->ctx, r->path, "/parameters", "substeps", &r->substeps) != OP_OK ||
        op_runfile_read_attribute_int(m->ctx, r->path, "/parameters", "iterations", &r->iterations) != OP_OK ||
        op_runfile_read_attribute_double(m->ctx, r->path, "/parameters", "frame_time", &r->frame_time) != OP_OK ||
        rows_of(m, r->path, "/timing/total", &r->frames) != OP_OK ||
        op_runfile_read_attribute_string(m->ctx, r->path, "/", "git_revision", r->git, sizeof r->git) != OP_OK ||
        op_runfile_read_attribute_string(m->ctx, r->path, "/", "created", r->created, sizeof r->created) != OP_OK ||
        op_runfile_read_attribute_string(m->ctx, r->path, "/", "compiler_flags", r->flags, sizeof r->flags) != OP_OK)
        goto fail;
    r->frames_configured = (long)frames;
    free(names);
    m->runs[m->run_count++] = r;
    *out = r;
    return OP_OK;
fail:
    free(names);
    run_free(r);
    return m->ctx->status;
}

/* Output frames whose every particle position and rotation is finite. */
static int need_finite(md *m, run *r)
{
    if (r->have_finite)
        return OP_OK;
    static const char *const datasets[] = { "/particles/position/value", "/particles/orientation/value" };
    long frames[2], columns[2];
    for (int d = 0; d < 2; ++d) {
        int rank;
        int64_t dims[OP_RUNFILE_MAX_RANK];
        if (op_runfile_dataset_shape(m->ctx, r->path, datasets[d], &rank, dims) != OP_OK)
            return m->ctx->status;
        frames[d] = (long)dims[0];
        columns[d] = 1;
        for (int k = 1; k < rank; ++k)
            columns[d] *= (long)dims[k];
    }
    if (frames[0] != frames[1])
        return OP_FAIL(m->ctx, OP_ERR_INVALID, "%s: %ld position frames but %ld orientation frames", r->path,
                       frames[0], frames[1]);
    double *row = op_calloc(m->ctx, (size_t)columns[1], sizeof *row);
    if (!row)
        return m->ctx->status;
    long finite = 0;
    for (long f = 0; f < frames[0]; ++f) {
        int ok = 1;
        for (int d = 0; d < 2 && ok; ++d) {
            if (op_runfile_read_rows(m->ctx, r->path, datasets[d], f, 1, row, columns[1]) != OP_OK) {
                free(row);
                return m->ctx->status;
            }
            for (long k = 0; k < columns[d] && ok; ++k)
                ok = isfinite(row[k]);
        }
        finite += ok;
    }
    free(row);
    r->output_frames = frames[0];
    r->finite_frames = finite;
    r->have_finite = 1;
    return OP_OK;
}

static int need_collision(md *m, run *r)
{
    if (r->have_collision)
        return OP_OK;
    double *pair = NULL, *below = NULL;
    int64_t *contacts = NULL;
    long n_pair, n_below, n_contacts, one;
    if (read_dataset(m, r->path, "/collision/max_penetration", &pair, &n_pair, &one) == OP_OK &&
        read_dataset(m, r->path, "/collision/max_floor_penetration", &below, &n_below, &one) == OP_OK &&
        read_int64_series(m, r->path, "/collision/floor_contacts", &contacts, &n_contacts) == OP_OK) {
        r->max_penetration = r->max_floor_penetration = 0;
        r->landing_frame = 0;
        for (long f = 0; f < n_pair; ++f)
            r->max_penetration = fmax(r->max_penetration, pair[f]);
        for (long f = 0; f < n_below; ++f)
            r->max_floor_penetration = fmax(r->max_floor_penetration, below[f]);
        /* row f is frame f + 1: the series start after the first step */
        for (long f = 0; f < n_contacts && !r->landing_frame; ++f)
            if (contacts[f] > 0)
                r->landing_frame = f + 1;
        r->have_collision = 1;
    }
    free(pair);
    free(below);
    free(contacts);
    return m->ctx->status;
}

static const char *const STAGES[4] = { "local", "global", "collision", "total" };

static int need_timing(md *m, run *r)
{
    for (int s = 0; s < 4 && !r->have_timing; ++s) {
        char dataset[64];
        double *ms;
        long n, one;
        snprintf(dataset, sizeof dataset, "/timing/%s", STAGES[s]);
        if (read_dataset(m, r->path, dataset, &ms, &n, &one) != OP_OK)
            return m->ctx->status;
        r->median_ms[s] = median(ms, n);
        free(ms);
    }
    r->have_timing = 1;
    return OP_OK;
}

/* ---- Tables ---------------------------------------------------------------------------------- */

static int get_table(md *m, report_table **table, const char *name, int columns)
{
    if (*table)
        return OP_OK;
    char path[PATH_SIZE];
    report_table *t = op_calloc(m->ctx, 1, sizeof *t);
    if (!t || result_file(m, name, path, sizeof path) != OP_OK || report_read_table(m->ctx, path, columns, t) != OP_OK) {
        free(t);
        return m->ctx->status;
    }
    if (t->rows == 0) {
        free(t);
        return OP_FAIL(m->ctx, OP_ERR_INVALID, "%s: no rows", path);
    }
    *table = t;
    return OP_OK;
}

static int get_paper(md *m)
{
    if (m->paper)
        return OP_OK;
    report_table *t = op_calloc(m->ctx, 1, sizeof *t);
    if (!t || remember_input(m, m->def->paper) != OP_OK || report_read_table(m->ctx, m->def->paper, 13, t) != OP_OK) {
        free(t);
        return m->ctx->status;
    }
    m->paper = t;
    return OP_OK;
}

static int get_bench(md *m)
{
    if (m->bench)
        return OP_OK;
    char path[PATH_SIZE];
    report_bench_row *rows = op_calloc(m->ctx, REPORT_MAX_ROWS, sizeof *rows);
    if (!rows || result_file(m, BENCH_CSV, path, sizeof path) != OP_OK ||
        report_read_bench(m->ctx, path, "catalogue", rows, &m->bench_count) != OP_OK) {
        free(rows);
        return m->ctx->status;
    }
    m->bench = rows;
    return OP_OK;
}

/* bench_scenes' row for experiments/CONFIG.ini. */
static int bench_row_of(md *m, const char *config, const report_bench_row **out)
{
    if (get_bench(m) != OP_OK)
        return m->ctx->status;
    char want[300];
    snprintf(want, sizeof want, "experiments/%s.ini", config);
    for (int b = 0; b < m->bench_count; ++b)
        if (strcmp(report_bench_value(&m->bench[b], "config"), want) == 0) {
            *out = &m->bench[b];
            return OP_OK;
        }
    return OP_FAIL(m->ctx, OP_ERR_INVALID, "%s/%s: no row for config=%s", m->def->results, BENCH_CSV, want);
}

static const char *const PAPER_COLUMNS[] = { "example", "fig", "nodes", "edges", "vertices", "faces", "ns",
                                             "ni", "local", "global", "collision", "total" };

/* The paper's row whose example is `example` ('_' standing for ' '). */
static int paper_row(md *m, const char *example, int *row)
{
    if (get_paper(m) != OP_OK)
        return m->ctx->status;
    char want[REPORT_FIELD_SIZE];
    snprintf(want, sizeof want, "%s", example);
    for (char *c = want; *c; ++c)
        if (*c == '_')
            *c = ' ';
    for (int r = 0; r < m->paper->rows; ++r)
        if (strcmp(m->paper->cell[r][0], want) == 0) {
            *row = r;
            return OP_OK;
        }
    return OP_FAIL(m->ctx, OP_ERR_INVALID, "%s: no example '%s'", m->def->paper, want);
}

static double paper_ms(const report_table *paper, int row, const char *column)
{
    for (int c = 8; c < 12; ++c)
        if (strcmp(PAPER_COLUMNS[c], column) == 0)
            return strcmp(paper->cell[row][c], "-") == 0 ? 0 : strtod(paper->cell[row][c], NULL);
    return NAN;
}

/* ---- Placeholders ---------------------------------------------------------------------------- */

typedef int (*value_fn)(md *m, int argc, char **argv, FILE *out);

static int value_version(md *m, int argc, char **argv, FILE *out)
{
    (void)m, (void)argc, (void)argv;
    fputs(OPSIM_VERSION, out);
    return OP_OK;
}

static int value_git(md *m, int argc, char **argv, FILE *out)
{
    (void)m, (void)argc, (void)argv;
    fputs(OPSIM_GIT_REV, out);
    return OP_OK;
}

static int value_date(md *m, int argc, char **argv, FILE *out)
{
    (void)m, (void)argc, (void)argv;
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fputs(date, out);
    return OP_OK;
}

static int value_cpu(md *m, int argc, char **argv, FILE *out)
{
    (void)m, (void)argc, (void)argv;
    char cpu[256];
    report_cpu_model(cpu, sizeof cpu);
    fputs(cpu, out);
    return OP_OK;
}

static int value_cores(md *m, int argc, char **argv, FILE *out)
{
    (void)m, (void)argc, (void)argv;
    fprintf(out, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    return OP_OK;
}

static int value_threads(md *m, int argc, char **argv, FILE *out)
{
    (void)m, (void)argc, (void)argv;
    fprintf(out, "%d", omp_get_max_threads());
    return OP_OK;
}

static int value_flags(md *m, int argc, char **argv, FILE *out)
{
    (void)argc, (void)argv;
    fputs(m->build_flags, out);
    return OP_OK;
}

static int value_figure(md *m, int argc, char **argv, FILE *out)
{
    (void)argc;
    char name[300], dir[2 * PATH_SIZE], path[PATH_SIZE], target[64];
    snprintf(name, sizeof name, "%s.png", argv[1]);
    snprintf(dir, sizeof dir, "%s/%s", m->out_dir, m->def->figures);
    make_target(argv[1], target, sizeof target);
    if (input_file(m, dir, name, target, path, sizeof path) != OP_OK)
        return m->ctx->status;
    fprintf(out, "%s/%s", m->def->figures, name);
    return OP_OK;
}

static int value_link(md *m, int argc, char **argv, FILE *out)
{
    (void)argc;
    char path[PATH_SIZE], target[64];
    make_target(argv[1], target, sizeof target);
    if (input_file(m, m->out_dir, argv[1], target, path, sizeof path) != OP_OK)
        return m->ctx->status;
    fputs(argv[1], out);
    return OP_OK;
}

/* "10 × dino100, 10 × bunny100, ..." in order of first appearance. */
static void put_models(const run *r, FILE *out)
{
    for (int b = 0; b < r->body_count; ++b) {
        int seen = 0, count = 0;
        for (int c = 0; c < b && !seen; ++c)
            seen = strcmp(r->bodies[c].model, r->bodies[b].model) == 0;
        if (seen)
            continue;
        for (int c = b; c < r->body_count; ++c)
            count += strcmp(r->bodies[c].model, r->bodies[b].model) == 0;
        fprintf(out, "%s", b ? ", " : "");
        if (count > 1)
            fprintf(out, "%d × ", count);
        fputs(r->bodies[b].model, out);
    }
}

static int value_run(md *m, int argc, char **argv, FILE *out)
{
    run *r;
    const char *field = argv[2], *unit = argc > 3 ? argv[3] : NULL;
    if (get_run(m, argv[1], &r) != OP_OK)
        return m->ctx->status;
    const char *const counts[] = { "bodies", "particles", "edges", "vertices", "faces", "frames", "frames_configured",
                                   "substeps", "iterations" };
    const long count_values[] = { r->body_count, r->particles, r->edges, r->vertices, r->faces, r->frames,
                                  r->frames_configured, (long)r->substeps, (long)r->iterations };
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c)
        if (strcmp(field, counts[c]) == 0) {
            fprintf(out, "%ld", count_values[c]);
            return OP_OK;
        }
    if (strcmp(field, "models") == 0)
        put_models(r, out);
    else if (strcmp(field, "git") == 0)
        fputs(r->git, out);
    else if (strcmp(field, "created") == 0)
        fputs(r->created, out);
    else if (strcmp(field, "frame_time") == 0)
        return put_scaled(m, out, r->frame_time, unit);
    else if (strcmp(field, "duration") == 0)
        return put_scaled(m, out, r->frames * r->frame_time, unit);
    else if (strcmp(field, "density") == 0)
        put_number(out, r->density);
    else if (strcmp(field, "min_radius") == 0)
        return put_scaled(m, out, r->min_radius, unit);
    else if (strcmp(field, "output_frames") == 0 || strcmp(field, "finite_frames") == 0) {
        if (need_finite(m, r) != OP_OK)
            return m->ctx->status;
        fprintf(out, "%ld", field[0] == 'o' ? r->output_frames : r->finite_frames);
    } else if (strcmp(field, "max_penetration") == 0 || strcmp(field, "max_floor_penetration") == 0 ||
               strcmp(field, "penetration_per_radius") == 0 || strcmp(field, "floor_penetration_per_radius") == 0) {
        if (need_collision(m, r) != OP_OK)
            return m->ctx->status;
        double v = strstr(field, "floor") ? r->max_floor_penetration : r->max_penetration;
        return put_scaled(m, out, strstr(field, "per_radius") ? v / r->min_radius : v, unit);
    } else if (strcmp(field, "landing") == 0) {
        if (need_collision(m, r) != OP_OK)
            return m->ctx->status;
        if (!r->landing_frame) {
            fputs("no floor contact within the run's ", out);
            put_number(out, r->frames * r->frame_time);
            fputs(" s", out);
        } else {
            fprintf(out, "frame %ld (", r->landing_frame);
            put_number(out, r->landing_frame * r->frame_time);
            fputs(" s)", out);
        }
    } else if (strncmp(field, "ms_", 3) == 0) {
        for (int s = 0; s < 4; ++s)
            if (strcmp(field + 3, STAGES[s]) == 0) {
                if (need_timing(m, r) != OP_OK)
                    return m->ctx->status;
                put_number(out, r->median_ms[s]);
                return OP_OK;
            }
        return OP_FAIL(m->ctx, OP_ERR_PARSE, "no field '%s' (ms_local, ms_global, ms_collision, ms_total)", field);
    } else
        return OP_FAIL(m->ctx, OP_ERR_PARSE, "no run field '%s' (`opsim-report placeholders` lists them)", field);
    return OP_OK;
}

static int value_param(md *m, int argc, char **argv, FILE *out)
{
    (void)argc;
    run *r;
    if (get_run(m, argv[1], &r) != OP_OK)
        return m->ctx->status;
    char object[300], name[128];
    const char *slash = strchr(argv[2], '/');
    if (slash) {
        snprintf(object, sizeof object, "/parameters/%.*s", (int)(slash - argv[2]), argv[2]);
        snprintf(name, sizeof name, "%s", slash + 1);
    } else {
        snprintf(object, sizeof object, "/parameters");
        snprintf(name, sizeof name, "%s", argv[2]);
    }
    /* A string first; a number is the other possibility, and its error is the one reported. */
    op_ctx scratch;
    op_ctx_init(&scratch);
    char text[1024];
    double value;
    if (op_runfile_read_attribute_string(&scratch, r->path, object, name, text, sizeof text) == OP_OK)
        put_parameter_text(out, text);
    else if (op_runfile_read_attribute_double(m->ctx, r->path, object, name, &value) == OP_OK)
        put_number(out, value);
    return m->ctx->status;
}

static int value_observable(md *m, int argc, char **argv, FILE *out)
{
    run *r;
    const char *stat = argv[3];
    int event = strcmp(stat, "first_below") == 0 || strcmp(stat, "stays_below") == 0;
    double threshold = 0;
    if (event) {
        char *end;
        threshold = argc > 4 ? strtod(argv[4], &end) : 0;
        if (argc != 5 || *end || end == argv[4])
            return OP_FAIL(m->ctx, OP_ERR_PARSE, "%s takes one threshold, e.g. 0.02", stat);
    }
    const char *unit = !event && argc > 4 ? argv[4] : NULL;
    if (!event && argc > 5)
        return OP_FAIL(m->ctx, OP_ERR_PARSE, "%s takes at most a unit", stat);
    double scale = 1;
    if (unit_scale(m, unit, &scale) != OP_OK || get_run(m, argv[1], &r) != OP_OK)
        return m->ctx->status;
    char dataset[256];
    double *values = NULL, *times = NULL;
    int64_t *steps = NULL;
    long n, one, n_times = 0, n_steps = 0;
    snprintf(dataset, sizeof dataset, "/observables/%s/value", argv[2]);
    if (read_dataset(m, r->path, dataset, &values, &n, &one) != OP_OK)
        return m->ctx->status;
    if (!event) {
        double v = values[0];
        if (strcmp(stat, "first") == 0)
            v = values[0];
        else if (strcmp(stat, "last") == 0)
            v = values[n - 1];
        else if (strcmp(stat, "min") == 0 || strcmp(stat, "max") == 0)
            for (long i = 1; i < n; ++i)
                v = stat[1] == 'i' ? fmin(v, values[i]) : fmax(v, values[i]);
        else if (strcmp(stat, "median") == 0)
            v = median(values, n);
        else
            OP_FAIL(m->ctx, OP_ERR_PARSE, "no statistic '%s' (first, last, min, max, median, first_below, stays_below)",
                    stat);
        if (m->ctx->status == OP_OK)
            put_number(out, v * scale);
        free(values);
        return m->ctx->status;
    }
    snprintf(dataset, sizeof dataset, "/observables/%s/time", argv[2]);
    if (read_dataset(m, r->path, dataset, &times, &n_times, &one) == OP_OK) {
        snprintf(dataset, sizeof dataset, "/observables/%s/step", argv[2]);
        read_int64_series(m, r->path, dataset, &steps, &n_steps);
    }
    if (m->ctx->status == OP_OK && (n_times != n || n_steps != n))
        OP_FAIL(m->ctx, OP_ERR_INVALID, "%s: /observables/%s has %ld values, %ld times and %ld steps", r->path, argv[2],
                n, n_times, n_steps);
    if (m->ctx->status == OP_OK) {
        long at = -1;
        if (stat[0] == 'f') {
            for (long i = 0; i < n && at < 0; ++i)
                if (values[i] < threshold)
                    at = i;
        } else
            for (long i = n - 1; i >= 0 && values[i] < threshold; --i)
                at = i;
        if (at < 0) {
            fputs("not within the run's ", out);
            put_number(out, times[n - 1]);
            fputs(" s", out);
        } else {
            put_number(out, times[at]);
            fprintf(out, " s (frame %lld)", (long long)steps[at]);
        }
    }
    free(values);
    free(times);
    free(steps);
    return m->ctx->status;
}

/* Iterations of every sub-step, from /solver/energy/total [S][I+1]: how many raise the energy
 * by more than TOL times the run's energy scale, and the largest change relative to that scale.
 * The scale is the largest energy any sub-step starts with: a falling body's sub-step can start
 * at 10⁻²⁵ J, where rounding alone moves the energy by a large fraction of itself. */
static int value_energy(md *m, int argc, char **argv, FILE *out)
{
    run *r;
    const char *stat = argv[2];
    int rises = strcmp(stat, "rises") == 0;
    double tolerance = 0;
    if (rises) {
        char *end;
        tolerance = argc == 4 ? strtod(argv[3], &end) : 0;
        if (argc != 4 || *end || end == argv[3] || !(tolerance >= 0))
            return OP_FAIL(m->ctx, OP_ERR_PARSE, "rises takes one relative tolerance, e.g. 1e-12");
    } else if (argc != 3 || (strcmp(stat, "iterations") != 0 && strcmp(stat, "max_rise") != 0))
        return OP_FAIL(m->ctx, OP_ERR_PARSE, "energy statistics: iterations, rises TOLERANCE, max_rise");
    double *e;
    long substeps, columns;
    if (get_run(m, argv[1], &r) != OP_OK || read_dataset(m, r->path, "/solver/energy/total", &e, &substeps, &columns) != OP_OK)
        return m->ctx->status;
    long count = 0;
    double max_rise = -INFINITY, scale = 0;
    for (long s = 0; s < substeps; ++s)
        scale = fmax(scale, fabs(e[s * columns]));
    if (!(scale > 0))
        scale = 1;
    for (long s = 0; s < substeps; ++s) {
        const double *row = e + s * columns;
        for (long k = 1; k < columns; ++k) {
            double rise = (row[k] - row[k - 1]) / scale;
            count += rise > tolerance;
            max_rise = fmax(max_rise, rise);
        }
    }
    free(e);
    if (rises)
        fprintf(out, "%ld", count);
    else if (stat[0] == 'i')
        fprintf(out, "%ld", substeps * (columns - 1));
    else
        put_number(out, max_rise);
    return OP_OK;
}

/* The median of the last `tail` values of a series (all of them when it is shorter). */
static double median_of_tail(double *values, long n, long tail)
{
    long first = n > tail ? n - tail : 0;
    return median(values + first, n - first);
}

/* {{contacts RUN STAT [UNIT]}}: what the contacts did (core/io/record.h), over the run's last 2 s
 * (its resting state in the figures' scenes): the reach below the floor before the push-back
 * (/collision/max_floor_reach_before: its median there, or its largest over the run) and the
 * elastic energy of the iterations' result (the last logged column of /solver/energy/elastic)
 * and of the state after contacts (/solver/energy_after_contacts/elastic), medians over those
 * sub-steps. */
static int value_contacts(md *m, int argc, char **argv, FILE *out)
{
    run *r;
    const char *stat = argv[2], *unit = argc > 3 ? argv[3] : NULL;
    if (get_run(m, argv[1], &r) != OP_OK)
        return m->ctx->status;
    long frames = (long)lround(2.0 / r->frame_time), rows, columns;
    double *v = NULL, value;
    if (strcmp(stat, "resting_reach") == 0 || strcmp(stat, "max_reach") == 0) {
        if (read_dataset(m, r->path, "/collision/max_floor_reach_before", &v, &rows, &columns) != OP_OK)
            return m->ctx->status;
        value = -INFINITY;
        for (long f = 0; f < rows && stat[0] == 'm'; ++f)
            value = fmax(value, v[f]);
        if (stat[0] == 'r')
            value = median_of_tail(v, rows, frames);
    } else if (strcmp(stat, "resting_elastic_iterated") == 0) {
        if (read_dataset(m, r->path, "/solver/energy/elastic", &v, &rows, &columns) != OP_OK)
            return m->ctx->status;
        for (long s = 0; s < rows; ++s)
            v[s] = v[s * columns + columns - 1];
        value = median_of_tail(v, rows, frames * r->substeps);
    } else if (strcmp(stat, "resting_elastic_after") == 0) {
        if (read_dataset(m, r->path, "/solver/energy_after_contacts/elastic", &v, &rows, &columns) != OP_OK)
            return m->ctx->status;
        value = median_of_tail(v, rows, frames * r->substeps);
    } else
        return OP_FAIL(m->ctx, OP_ERR_PARSE,
                       "contact statistics: resting_reach, max_reach, resting_elastic_iterated, resting_elastic_after");
    free(v);
    return put_scaled(m, out, value, unit);
}

/* One row per run: what it simulated, whether it stayed finite, what contacts left. */
static int value_runs_table(md *m, int argc, char **argv, FILE *out)
{
    fputs("| run | bodies | particles | edges | frames simulated (configured) | output frames all finite | "
          "deepest between bodies: mm (of the smallest radius) | deepest below the floor: mm (of the smallest radius) | "
          "median ms per frame in the run |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n", out);
    for (int a = 1; a < argc; ++a) {
        run *r;
        if (get_run(m, argv[a], &r) != OP_OK || need_finite(m, r) != OP_OK || need_collision(m, r) != OP_OK ||
            need_timing(m, r) != OP_OK)
            return m->ctx->status;
        fprintf(out, "| `%s.h5` | %d: ", r->name, r->body_count);
        put_models(r, out);
        fprintf(out, " | %ld | %ld | %ld (%ld) | %ld of %ld | ", r->particles, r->edges, r->frames,
                r->frames_configured, r->finite_frames, r->output_frames);
        put_number(out, 1e3 * r->max_penetration);
        fputs(" (", out);
        put_number(out, 100 * r->max_penetration / r->min_radius);
        fputs(" %) | ", out);
        put_number(out, 1e3 * r->max_floor_penetration);
        fputs(" (", out);
        put_number(out, 100 * r->max_floor_penetration / r->min_radius);
        fputs(" %) | ", out);
        put_number(out, r->median_ms[3]);
        fputs(" |\n", out);
    }
    return OP_OK;
}

/* fig2/deflection.tsv: run tag, body, stiffness, tip deflection (m), final kinetic energy, index. */
static int deflection_row(md *m, const char *tag, const char *body, int *row)
{
    if (get_table(m, &m->deflection, DEFLECTION_TSV, 6) != OP_OK)
        return m->ctx->status;
    for (int r = 0; r < m->deflection->rows; ++r)
        if (strcmp(m->deflection->cell[r][0], tag) == 0 && strcmp(m->deflection->cell[r][1], body) == 0) {
            *row = r;
            return OP_OK;
        }
    return OP_FAIL(m->ctx, OP_ERR_INVALID, "%s/%s: no row for run %s, body %s", m->def->results, DEFLECTION_TSV, tag,
                   body);
}

static int value_deflection(md *m, int argc, char **argv, FILE *out)
{
    int row;
    if (deflection_row(m, argv[1], argv[2], &row) != OP_OK)
        return m->ctx->status;
    return put_scaled(m, out, strtod(m->deflection->cell[row][3], NULL), argc > 3 ? argv[3] : NULL);
}

static int value_deflection_ratio(md *m, int argc, char **argv, FILE *out)
{
    (void)argc;
    int a, b;
    if (deflection_row(m, argv[1], argv[2], &a) != OP_OK || deflection_row(m, argv[1], argv[3], &b) != OP_OK)
        return m->ctx->status;
    fprintf(out, "%.3g", strtod(m->deflection->cell[a][3], NULL) / strtod(m->deflection->cell[b][3], NULL));
    return OP_OK;
}

/* Every bar of every run sorted by k: deflection, its ratio to the next stiffer bar's, and
 * k × deflection relative to the first bar of run `fig2` (1 throughout for a linear beam). */
static int value_deflection_table(md *m, int argc, char **argv, FILE *out)
{
    (void)argc, (void)argv;
    if (get_table(m, &m->deflection, DEFLECTION_TSV, 6) != OP_OK)
        return m->ctx->status;
    const report_table *t = m->deflection;
    int order[REPORT_MAX_ROWS], reference = 0;
    for (int r = 0; r < t->rows; ++r) {
        order[r] = r;
        if (strcmp(t->cell[r][0], "fig2") == 0 && strcmp(t->cell[r][5], "0") == 0)
            reference = r;
    }
    for (int i = 1; i < t->rows; ++i)
        for (int j = i; j > 0 && strtod(t->cell[order[j]][2], NULL) < strtod(t->cell[order[j - 1]][2], NULL); --j) {
            int swap = order[j];
            order[j] = order[j - 1];
            order[j - 1] = swap;
        }
    double k_d = strtod(t->cell[reference][2], NULL) * strtod(t->cell[reference][3], NULL);
    fprintf(out, "| run | bar | k | tip deflection (mm) | ÷ the next stiffer bar's | k × deflection ÷ that of `%s` %s |\n"
                 "|---|---|---:|---:|---:|---:|\n",
            t->cell[reference][0], t->cell[reference][1]);
    for (int i = 0; i < t->rows; ++i) {
        const int r = order[i];
        double k = strtod(t->cell[r][2], NULL), d = strtod(t->cell[r][3], NULL);
        fprintf(out, "| `%s` | %s | ", t->cell[r][0], t->cell[r][1]);
        put_number(out, k);
        fputs(" | ", out);
        put_number(out, 1e3 * d);
        fputs(" | ", out);
        if (i + 1 < t->rows)
            fprintf(out, "%.3g", d / strtod(t->cell[order[i + 1]][3], NULL));
        else
            fputs("–", out);
        fprintf(out, " | %.3g |\n", k * d / k_d);
    }
    return OP_OK;
}

/* fig3/steady.tsv: method, iterations, frame time (s), steady deflection (m), swing (m). */
static int value_steady_table(md *m, int argc, char **argv, FILE *out)
{
    (void)argc, (void)argv;
    if (get_table(m, &m->steady, STEADY_TSV, 5) != OP_OK)
        return m->ctx->status;
    fputs("| method | iterations | h (s) | steady tip deflection (mm) | swing over the last 2 s (mm) |\n"
          "|---|---:|---:|---:|---:|\n",
          out);
    for (int r = 0; r < m->steady->rows; ++r) {
        fprintf(out, "| %s | %s | 1/%.0f | ", m->steady->cell[r][0], m->steady->cell[r][1],
                1 / strtod(m->steady->cell[r][2], NULL));
        put_number(out, 1e3 * strtod(m->steady->cell[r][3], NULL));
        fputs(" | ", out);
        put_number(out, 1e3 * strtod(m->steady->cell[r][4], NULL));
        fputs(" |\n", out);
    }
    return OP_OK;
}

/* The steady deflections of METHOD across iteration counts (at its longest time step) or
 * across time steps (at the iteration count its shorter time steps run with): their spread
 * (max − min) / mean in %, or their ratio max / min. */
static int value_steady(md *m, int argc, char **argv, FILE *out)
{
    (void)argc;
    const char *method = argv[1], *across = argv[2];
    int spread = strcmp(argv[0], "steady.spread") == 0;
    if (strcmp(across, "iterations") != 0 && strcmp(across, "timestep") != 0)
        return OP_FAIL(m->ctx, OP_ERR_PARSE, "across 'iterations' or 'timestep', not '%s'", across);
    if (get_table(m, &m->steady, STEADY_TSV, 5) != OP_OK)
        return m->ctx->status;
    const report_table *t = m->steady;
    double longest = 0;
    long iterations = -1;
    for (int r = 0; r < t->rows; ++r)
        if (strcmp(t->cell[r][0], method) == 0)
            longest = fmax(longest, strtod(t->cell[r][2], NULL));
    for (int r = 0; r < t->rows; ++r)
        if (strcmp(t->cell[r][0], method) == 0 && strtod(t->cell[r][2], NULL) < longest) {
            long it = strtol(t->cell[r][1], NULL, 10);
            if (iterations >= 0 && it != iterations)
                return OP_FAIL(m->ctx, OP_ERR_INVALID,
                               "%s/%s: %s's shorter time steps run at %ld and %ld iterations, not at one count",
                               m->def->results, STEADY_TSV, method, iterations, it);
            iterations = it;
        }
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    int count = 0;
    for (int r = 0; r < t->rows; ++r) {
        if (strcmp(t->cell[r][0], method) != 0)
            continue;
        int take = across[0] == 'i' ? strtod(t->cell[r][2], NULL) == longest
                                    : strtol(t->cell[r][1], NULL, 10) == iterations;
        if (!take)
            continue;
        double d = strtod(t->cell[r][3], NULL);
        lo = fmin(lo, d);
        hi = fmax(hi, d);
        sum += d;
        ++count;
    }
    if (count < 2)
        return OP_FAIL(m->ctx, OP_ERR_INVALID, "%s/%s: fewer than two %s runs across %s", m->def->results, STEADY_TSV,
                       method, across);
    fprintf(out, "%.3g", spread ? 100 * (hi - lo) / (sum / count) : hi / lo);
    return OP_OK;
}

/* convergence/table.tsv: scene, variant, then iterations and ms to 1e-2, 1e-4, 1e-6, ... */
static int convergence_row(md *m, const char *scene, const char *variant, int *row)
{
    if (get_table(m, &m->convergence, CONVERGENCE_TSV, 8) != OP_OK)
        return m->ctx->status;
    for (int r = 0; r < m->convergence->rows; ++r)
        if (strcmp(m->convergence->cell[r][0], scene) == 0 && strcmp(m->convergence->cell[r][1], variant) == 0) {
            *row = r;
            return OP_OK;
        }
    return OP_FAIL(m->ctx, OP_ERR_INVALID, "%s/%s: no row for scene %s, variant %s", m->def->results, CONVERGENCE_TSV,
                   scene, variant);
}

static int tolerance_column(md *m, const char *tolerance, const char *what, int *column)
{
    static const char *const tolerances[] = { "1e-2", "1e-4", "1e-6" };
    for (int t = 0; t < 3; ++t)
        if (strcmp(tolerance, tolerances[t]) == 0) {
            *column = 2 + 2 * t + (strcmp(what, "ms") == 0);
            if (strcmp(what, "ms") != 0 && strcmp(what, "it") != 0)
                return OP_FAIL(m->ctx, OP_ERR_PARSE, "'it' or 'ms', not '%s'", what);
            return OP_OK;
        }
    return OP_FAIL(m->ctx, OP_ERR_PARSE, "tolerance 1e-2, 1e-4 or 1e-6, not '%s'", tolerance);
}

/* A cell never reached: empty ("-" in a table of before the tidy format). */
static int never_reached(const char *cell)
{
    return !*cell || strcmp(cell, "-") == 0;
}

/* plain → Chebyshev (plain / Chebyshev×), "–" where either never reached the tolerance. */
static void put_speedup(FILE *out, const char *plain, const char *chebyshev, int arrows)
{
    int reached = !never_reached(plain) && !never_reached(chebyshev) && strtod(chebyshev, NULL) > 0;
    if (arrows)
        fprintf(out, "%s → %s", never_reached(plain) ? "–" : plain, never_reached(chebyshev) ? "–" : chebyshev);
    if (reached)
        fprintf(out, arrows ? " (%.2f×)" : "%.2f", strtod(plain, NULL) / strtod(chebyshev, NULL));
    else if (!arrows)
        fputs("–", out);
}

static int value_convergence_speedup(md *m, int argc, char **argv, FILE *out)
{
    (void)argc;
    int plain, chebyshev, column = 0;
    char variant[64];
    snprintf(variant, sizeof variant, "%s-chebyshev", argv[2]);
    if (tolerance_column(m, argv[3], argv[4], &column) != OP_OK || convergence_row(m, argv[1], argv[2], &plain) != OP_OK ||
        convergence_row(m, argv[1], variant, &chebyshev) != OP_OK)
        return m->ctx->status;
    put_speedup(out, m->convergence->cell[plain][column], m->convergence->cell[chebyshev][column], 0);
    return OP_OK;
}

static int value_convergence_speedups(md *m, int argc, char **argv, FILE *out)
{
    (void)argc, (void)argv;
    if (get_table(m, &m->convergence, CONVERGENCE_TSV, 8) != OP_OK)
        return m->ctx->status;
    fputs("| scene | rotations | to 1e-4: iterations | ms | to 1e-6: iterations | ms |\n|---|---|---|---|---|---|\n", out);
    const report_table *t = m->convergence;
    for (int r = 0; r < t->rows; ++r) {
        int first = 1;
        for (int q = 0; q < r && first; ++q)
            first = strcmp(t->cell[q][0], t->cell[r][0]) != 0;
        if (!first)
            continue;
        static const char *const orders[2] = { "gs", "jacobi" }, *const names[2] = { "Gauss–Seidel", "Jacobi" };
        for (int o = 0; o < 2; ++o) {
            int plain, chebyshev;
            char variant[64];
            snprintf(variant, sizeof variant, "%s-chebyshev", orders[o]);
            if (convergence_row(m, t->cell[r][0], orders[o], &plain) != OP_OK ||
                convergence_row(m, t->cell[r][0], variant, &chebyshev) != OP_OK)
                return m->ctx->status;
            fprintf(out, "| %s | %s |", t->cell[r][0], names[o]);
            for (int column = 4; column <= 7; ++column) {
                fputs(" ", out);
                put_speedup(out, t->cell[plain][column], t->cell[chebyshev][column], 1);
                fputs(" |", out);
            }
            fputs("\n", out);
        }
    }
    return OP_OK;
}

/* The scaling study's section (experiments/scaling.mk): scaling/table.md under --results copied in,
 * with the figure when it is beside the report; without the table, how to make it, since the
 * study is opt-in and outside `make reproduce`. */
static int value_scaling_section(md *m, int argc, char **argv, FILE *out)
{
    (void)argc, (void)argv;
    char table[PATH_SIZE], figure[2 * PATH_SIZE];
    snprintf(table, sizeof table, "%s/%s", m->def->results, SCALING_TABLE);
    if (access(table, R_OK) != 0) {
        fputs("The scaling study has not been run here. `make scaling` (opt-in, outside `make reproduce`; "
              "docs/experiments.md, \"Scaling\") measures every variant over bodies of 100 to 30,000 "
              "particles and piles of 1 to 10,000 bodies; run `make report` after it to include the "
              "tables and figure.\n",
              out);
        return OP_OK;
    }
    if (result_file(m, SCALING_TABLE, table, sizeof table) != OP_OK)
        return m->ctx->status;
    FILE *in = fopen(table, "r");
    if (!in)
        return OP_FAIL(m->ctx, OP_ERR_IO, "%s: %s", table, strerror(errno));
    char buffer[4096];
    size_t got;
    while ((got = fread(buffer, 1, sizeof buffer, in)) > 0)
        fwrite(buffer, 1, got, out);
    fclose(in);
    snprintf(figure, sizeof figure, "%s/%s/scaling.png", m->out_dir, m->def->figures);
    if (access(figure, R_OK) == 0 && remember_input(m, figure) == OP_OK)
        fprintf(out, "\n![ms per frame, µs per particle-iteration and peak memory against size](%s/scaling.png)\n",
                m->def->figures);
    return m->ctx->status;
}

static int value_table1(md *m, int argc, char **argv, FILE *out)
{
    (void)argc, (void)argv;
    char bench[PATH_SIZE];
    if (result_file(m, BENCH_CSV, bench, sizeof bench) != OP_OK || get_paper(m) != OP_OK)
        return m->ctx->status;
    return report_write_table1(m->ctx, m->def->paper, bench, m->def->flags, out);
}

static int value_bench(md *m, int argc, char **argv, FILE *out)
{
    (void)argc;
    const report_bench_row *row;
    if (bench_row_of(m, argv[1], &row) != OP_OK)
        return m->ctx->status;
    double total = strtod(report_bench_value(row, "total_ms"), NULL);
    if (strcmp(argv[2], "fps") == 0)
        put_number(out, 1e3 / total);
    else if (strcmp(argv[2], "fps_skinned") == 0)
        put_number(out, 1e3 / (total + strtod(report_bench_value(row, "skinning_ms"), NULL)));
    else {
        const char *value = report_bench_value(row, argv[2]);
        char *end;
        if (!value)
            return OP_FAIL(m->ctx, OP_ERR_INVALID, "%s/%s: the row of experiments/%s.ini has no %s=", m->def->results,
                           BENCH_CSV, argv[1], argv[2]);
        double number = strtod(value, &end);
        if (*value && !*end)
            put_number(out, number);
        else
            fputs(value, out);
    }
    return OP_OK;
}

/* Per scene: the paper's total and stage shares beside ours, and our frames per second. */
static int value_timing_table(md *m, int argc, char **argv, FILE *out)
{
    if (get_paper(m) != OP_OK)
        return m->ctx->status;
    fputs("| scene | n_s × n_i | paper: ms per frame | paper: local / global / collision | ours: ms per frame | "
          "ours: local / global / collision | ours: frames per second | with skinning on the CPU |\n"
          "|---|---|---:|---|---:|---|---:|---:|\n",
          out);
    for (int a = 1; a < argc; ++a) {
        const report_bench_row *row;
        int p = -1;
        if (bench_row_of(m, argv[a], &row) != OP_OK)
            return m->ctx->status;
        const char *example = report_bench_value(row, "example");
        for (int r = 0; r < m->paper->rows && p < 0; ++r)
            if (strcmp(m->paper->cell[r][0], example) == 0)
                p = r;
        if (p < 0)
            return OP_FAIL(m->ctx, OP_ERR_INVALID, "%s: no example '%s' (from experiments/%s.ini's bench row)",
                           m->def->paper, example, argv[a]);
        double paper_total = paper_ms(m->paper, p, "total"), total = strtod(report_bench_value(row, "total_ms"), NULL);
        fprintf(out, "| %s (`%s.ini`) | %s × %s | ", example, argv[a], report_bench_value(row, "ns"),
                report_bench_value(row, "ni"));
        put_number(out, paper_total);
        fprintf(out, " | %.0f / %.0f / %.0f %% | ", 100 * paper_ms(m->paper, p, "local") / paper_total,
                100 * paper_ms(m->paper, p, "global") / paper_total, 100 * paper_ms(m->paper, p, "collision") / paper_total);
        put_number(out, total);
        fprintf(out, " | %.0f / %.0f / %.0f %% | ", 100 * strtod(report_bench_value(row, "local_ms"), NULL) / total,
                100 * strtod(report_bench_value(row, "global_ms"), NULL) / total,
                100 * strtod(report_bench_value(row, "collision_ms"), NULL) / total);
        put_number(out, 1e3 / total);
        fputs(" | ", out);
        put_number(out, 1e3 / (total + strtod(report_bench_value(row, "skinning_ms"), NULL)));
        fputs(" |\n", out);
    }
    return OP_OK;
}

static int value_paper(md *m, int argc, char **argv, FILE *out)
{
    (void)argc;
    int row;
    if (paper_row(m, argv[1], &row) != OP_OK)
        return m->ctx->status;
    for (int c = 1; c < 12; ++c)
        if (strcmp(PAPER_COLUMNS[c], argv[2]) == 0) {
            const char *cell = m->paper->cell[row][c];
            fputs(!*cell || strcmp(cell, "-") == 0 ? "–" : cell, out);
            return OP_OK;
        }
    return OP_FAIL(m->ctx, OP_ERR_PARSE, "no paper column '%s' (fig, nodes, edges, vertices, faces, ns, ni, local, "
                   "global, collision, total)", argv[2]);
}

/* ---- Any table an experiment writes ------------------------------------------------------------ */

/* A TSV under --results whose column names are its first line ("name<TAB>name ...", or "# name
 * ..." in a table of before the tidy format), as every experiment's table is written: the
 * cells, and the names in header (header->columns[0] of them). */
typedef struct named_table {
    report_table cells;
    char names[REPORT_MAX_FIELDS][REPORT_FIELD_SIZE];
    int name_count;
} named_table;

static int read_named_table(md *m, const char *name, named_table *t)
{
    char path[PATH_SIZE];
    if (result_file(m, name, path, sizeof path) != OP_OK || report_read_table(m->ctx, path, 1, &t->cells) != OP_OK)
        return m->ctx->status;
    FILE *f = fopen(path, "r");
    if (!f)
        return OP_FAIL(m->ctx, OP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char line[4096];
    t->name_count = 0;
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *text = line[0] == '#' ? line + 1 + strspn(line + 1, " ") : line;
        for (char *field = text, *tab; field && t->name_count < REPORT_MAX_FIELDS; field = tab ? tab + 1 : NULL) {
            tab = strchr(field, '\t');
            if (tab)
                *tab = '\0';
            snprintf(t->names[t->name_count++], REPORT_FIELD_SIZE, "%.*s", REPORT_FIELD_SIZE - 1, field);
        }
    }
    fclose(f);
    if (t->name_count == 0)
        return OP_FAIL(m->ctx, OP_ERR_PARSE, "%s: no header line naming the columns", path);
    if (t->cells.rows == 0)
        return OP_FAIL(m->ctx, OP_ERR_INVALID, "%s: no rows", path);
    return OP_OK;
}

/* A cell as prose: a number formatted as every number of the report (scaled by unit), anything
 * else as it is. */
static int put_cell(md *m, FILE *out, const char *cell, const char *unit)
{
    char *end;
    double v = strtod(cell, &end);
    if (*cell && *end == '\0')
        return put_scaled(m, out, v, unit);
    fputs(cell, out);
    return OP_OK;
}

/* Whether a row of column c holds a number: its missing (empty) cells are then set as "–". */
static int number_column(const report_table *t, int c)
{
    for (int r = 0; r < t->rows; ++r) {
        char *end;
        const char *cell = c < t->columns[r] ? t->cell[r][c] : "";
        strtod(cell, &end);
        if (*cell && *end == '\0')
            return 1;
    }
    return 0;
}

/* Column c of row r as it reads (report_status.h): a number column with a status or bound
 * column shows them; an empty cell of a column that holds a number "–"; any other as it is. */
static void display_cell(const named_table *t, int r, int c, char *text, size_t size)
{
    const char *names[REPORT_MAX_FIELDS];
    for (int n = 0; n < t->name_count; ++n)
        names[n] = t->names[n];
    const report_table *cells = &t->cells;
    int status, bound;
    report_status_find(names, t->name_count, c, &status, &bound);
    const char *cell = c < cells->columns[r] ? cells->cell[r][c] : "";
    if (status >= 0 || bound >= 0)
        report_status_display(cell, status >= 0 && status < cells->columns[r] ? cells->cell[r][status] : "",
                              bound >= 0 && bound < cells->columns[r] ? cells->cell[r][bound] : "", text, size);
    else
        snprintf(text, size, "%s", *cell || !number_column(cells, c) ? cell : "–");
}

static int is_companion(const named_table *t, int c)
{
    const char *names[REPORT_MAX_FIELDS];
    for (int n = 0; n < t->name_count; ++n)
        names[n] = t->names[n];
    return report_status_is_companion(names, t->name_count, c);
}

/* {{tsv.table PATH}}: the whole table, its header as the column names, each number column's
 * status and bound columns folded into its cells. */
static int value_tsv_table(md *m, int argc, char **argv, FILE *out)
{
    (void)argc;
    named_table *t = op_calloc(m->ctx, 1, sizeof *t);
    if (!t || read_named_table(m, argv[1], t) != OP_OK) {
        free(t);
        return m->ctx->status;
    }
    for (int c = 0; c < t->name_count; ++c)
        if (!is_companion(t, c))
            fprintf(out, "| %s ", t->names[c]);
    fputs("|\n", out);
    for (int c = 0; c < t->name_count; ++c)
        if (!is_companion(t, c))
            fputs(c == 0 ? "|---" : "|---:", out);
    fputs("|\n", out);
    for (int r = 0; r < t->cells.rows && m->ctx->status == OP_OK; ++r) {
        for (int c = 0; c < t->name_count; ++c) {
            if (is_companion(t, c))
                continue;
            char text[REPORT_FIELD_SIZE * 2];
            display_cell(t, r, c, text, sizeof text);
            fputs("| ", out);
            put_cell(m, out, text, NULL);
            fputc(' ', out);
        }
        fputs("|\n", out);
    }
    free(t);
    return m->ctx->status;
}

/* {{tsv PATH ROW COLUMN [UNIT]}}: the cell of the first row whose first field is ROW, in the
 * column the header names COLUMN, as it reads ("–" where empty). */
static int value_tsv(md *m, int argc, char **argv, FILE *out)
{
    named_table *t = op_calloc(m->ctx, 1, sizeof *t);
    if (!t || read_named_table(m, argv[1], t) != OP_OK) {
        free(t);
        return m->ctx->status;
    }
    int row = -1, column = -1;
    for (int r = 0; r < t->cells.rows && row < 0; ++r)
        if (strcmp(t->cells.cell[r][0], argv[2]) == 0)
            row = r;
    for (int c = 0; c < t->name_count && column < 0; ++c)
        if (strcmp(t->names[c], argv[3]) == 0)
            column = c;
    if (row < 0 || column < 0 || column >= t->cells.columns[row]) {
        if (row < 0)
            OP_FAIL(m->ctx, OP_ERR_INVALID, "%s/%s: no row starts with '%s'", m->def->results, argv[1], argv[2]);
        else
            OP_FAIL(m->ctx, OP_ERR_INVALID, "%s/%s: no column '%s' in row '%s'", m->def->results, argv[1], argv[3],
                    argv[2]);
        free(t);
        return m->ctx->status;
    }
    char text[REPORT_FIELD_SIZE * 2];
    display_cell(t, row, column, text, sizeof text);
    put_cell(m, out, *text ? text : "–", argc > 4 ? argv[4] : NULL);
    free(t);
    return m->ctx->status;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file read under --results: when it was written and, for run files, by which revision
 * and flags. Evaluated last, once the other placeholders have named their inputs. */
static int value_inputs_table(md *m, int argc, char **argv, FILE *out)
{
    (void)argc, (void)argv;
    size_t prefix = strlen(m->def->results);
    char **sorted = op_calloc(m->ctx, (size_t)m->input_count + 1, sizeof *sorted);
    if (!sorted)
        return m->ctx->status;
    memcpy(sorted, m->inputs, (size_t)m->input_count * sizeof *sorted);
    qsort(sorted, (size_t)m->input_count, sizeof *sorted, compare_strings);
    fputs("| input | written | opsim git revision | compiler flags |\n|---|---|---|---|\n", out);
    for (int i = 0; i < m->input_count; ++i) {
        const char *path = sorted[i];
        if (strncmp(path, m->def->results, prefix) != 0 || path[prefix] != '/')
            continue;
        const run *r = NULL;
        for (int k = 0; k < m->run_count && !r; ++k)
            if (strcmp(m->runs[k]->path, path) == 0)
                r = m->runs[k];
        if (r) {
            /* build/flags holds "CC CFLAGS"; a run records CFLAGS */
            size_t length = strlen(m->build_flags), own = strlen(r->flags);
            int same = length > own && strcmp(m->build_flags + length - own, r->flags) == 0 &&
                       m->build_flags[length - own - 1] == ' ';
            fprintf(out, "| `%s` | %s | %s | %s%s%s |\n", path, r->created, r->git, same ? "" : "`",
                    same ? "as `build/flags`" : r->flags, same ? "" : "`");
            continue;
        }
        struct stat info;
        char written[64] = "–";
        if (stat(path, &info) == 0)
            strftime(written, sizeof written, "%Y-%m-%dT%H:%M:%SZ", gmtime(&info.st_mtime));
        fprintf(out, "| `%s` | %s | – | – |\n", path, written);
    }
    free(sorted);
    return OP_OK;
}

typedef struct placeholder {
    const char *name, *arguments;
    int min_args, max_args; /* words after the name */
    int last;               /* evaluated after every other placeholder */
    value_fn fn;
    const char *help;
} placeholder;

static const placeholder PLACEHOLDERS[] = {
    { "version", "", 0, 0, 0, value_version, "opsim's version" },
    { "git", "", 0, 0, 0, value_git, "the git revision opsim-report was built from" },
    { "date", "", 0, 0, 0, value_date, "now, UTC" },
    { "cpu", "", 0, 0, 0, value_cpu, "the processor's name (/proc/cpuinfo)" },
    { "cores", "", 0, 0, 0, value_cores, "logical processors online" },
    { "threads", "", 0, 0, 0, value_threads, "OpenMP's default thread count here" },
    { "flags", "", 0, 0, 0, value_flags, "the compiler and flags of the build (--flags, build/flags)" },
    { "figure", "NAME", 1, 1, 0, value_figure, "FIGURES/NAME.png, which must exist beside the report" },
    { "link", "FILE", 1, 1, 0, value_link, "FILE, which must exist beside the report" },
    { "run", "RUN FIELD [UNIT]", 2, 3, 0, value_run,
      "a run file's bodies, models, particles, edges, vertices, faces, frames, frames_configured, substeps, "
      "iterations, frame_time, duration, density, min_radius (smallest semi-axis), output_frames, finite_frames "
      "(output frames with every position and rotation finite), max_penetration, max_floor_penetration (largest "
      "over the frames of /collision/*), penetration_per_radius, floor_penetration_per_radius, landing (first floor "
      "contact), ms_local, ms_global, ms_collision, ms_total (medians of /timing/*), git, created; UNIT mm, ms or %" },
    { "param", "RUN [BODY/]NAME", 2, 2, 0, value_param, "an attribute of /parameters or /parameters/BODY" },
    { "observable", "RUN NAME STAT [THRESHOLD] [UNIT]", 3, 5, 0, value_observable,
      "/observables/NAME: first, last, min, max, median [UNIT]; first_below X, stays_below X: the time (and frame) "
      "it first falls below X, and from which it stays below" },
    { "energy", "RUN STAT [TOLERANCE]", 2, 3, 0, value_energy,
      "/solver/energy/total: iterations (all sub-steps), rises TOL (iterations raising E by more than TOL × the "
      "largest E any sub-step starts with), max_rise (the largest change, relative likewise)" },
    { "contacts", "RUN STAT [UNIT]", 2, 3, 0, value_contacts,
      "over the run's last 2 s: resting_reach (median reach below the floor before the push-back), "
      "resting_elastic_iterated, resting_elastic_after (median elastic energy of the iterations' result and of the "
      "state after contacts); max_reach: the largest reach over the run" },
    { "runs.table", "RUN...", 1, MAX_ARGS - 1, 0, value_runs_table,
      "a table: bodies, particles, edges, frames, finite frames, penetrations, median ms per frame" },
    { "deflection", "TAG BODY [UNIT]", 2, 3, 0, value_deflection, "a tip deflection of fig2/deflection.tsv (m)" },
    { "deflection.ratio", "TAG BODY BODY", 3, 3, 0, value_deflection_ratio, "the first deflection over the second" },
    { "deflection.table", "", 0, 0, 0, value_deflection_table, "fig2/deflection.tsv sorted by k, with ratios" },
    { "steady.table", "", 0, 0, 0, value_steady_table, "fig3/steady.tsv" },
    { "steady.spread", "METHOD iterations|timestep", 2, 2, 0, value_steady,
      "(max − min) / mean of the steady deflections, in %" },
    { "steady.ratio", "METHOD iterations|timestep", 2, 2, 0, value_steady, "max / min of the steady deflections" },
    { "convergence.speedups", "", 0, 0, 0, value_convergence_speedups,
      "a table: plain → Chebyshev iterations and ms to 1e-4 and 1e-6 (convergence/table.tsv)" },
    { "convergence.speedup", "SCENE gs|jacobi 1e-2|1e-4|1e-6 it|ms", 4, 4, 0, value_convergence_speedup,
      "plain / Chebyshev" },
    { "scaling.section", "", 0, 0, 0, value_scaling_section,
      "scaling/table.md (make scaling) and its figure, or how to make them when absent" },
    { "table1.table", "", 0, 0, 0, value_table1, "the paper's Table 1 with our row under each (table1/bench.csv)" },
    { "bench", "CONFIG FIELD", 2, 2, 0, value_bench,
      "a field of table1/bench.csv's row for experiments/CONFIG.ini (total_ms, threads, ...), or fps, fps_skinned" },
    { "timing.table", "CONFIG...", 1, MAX_ARGS - 1, 0, value_timing_table,
      "a table: the paper's ms per frame and stage shares beside ours, and our frames per second" },
    { "paper", "EXAMPLE FIELD", 2, 2, 0, value_paper,
      "a cell of the paper's Table 1 (EXAMPLE with _ for spaces, e.g. Dinosaur_inverted edges)" },
    { "tsv.table", "PATH", 1, 1, 0, value_tsv_table,
      "a TSV under --results as a table, its first line naming the columns" },
    { "tsv", "PATH ROW COLUMN [UNIT]", 3, 4, 0, value_tsv,
      "one cell of such a TSV: the row whose first field is ROW, the column named COLUMN [UNIT mm, ms or %]" },
    { "inputs.table", "", 0, 0, 1, value_inputs_table, "a table of every file read under --results" },
};
enum { PLACEHOLDER_COUNT = sizeof PLACEHOLDERS / sizeof PLACEHOLDERS[0] };

void report_md_placeholders(FILE *out)
{
    for (int p = 0; p < PLACEHOLDER_COUNT; ++p)
        fprintf(out, "{{%s%s%s}}\n    %s\n", PLACEHOLDERS[p].name, *PLACEHOLDERS[p].arguments ? " " : "",
                PLACEHOLDERS[p].arguments, PLACEHOLDERS[p].help);
}

/* ---- The template ---------------------------------------------------------------------------- */

static char *read_text(op_ctx *ctx, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        OP_FAIL(ctx, OP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    size_t size = 0;
    FILE *memory = open_memstream(&text, &size);
    char buffer[65536];
    size_t got;
    while (memory && (got = fread(buffer, 1, sizeof buffer, f)) > 0)
        fwrite(buffer, 1, got, memory);
    int failed = ferror(f) || !memory;
    fclose(f);
    if (memory)
        fclose(memory);
    if (failed) {
        free(text);
        OP_FAIL(ctx, OP_ERR_IO, "%s: cannot read", path);
        return NULL;
    }
    return text;
}

/* Cuts the template into literal text and placeholders. */
static int parse_template(op_ctx *ctx, const char *path, const char *text, segment **out, int *count)
{
    int capacity = 64, n = 0, line = 1;
    segment *segments = malloc((size_t)capacity * sizeof *segments);
    if (!segments)
        return OP_FAIL(ctx, OP_ERR_NOMEM, "out of memory");
    for (const char *p = text; *p;) {
        if (n + 2 > capacity) {
            capacity *= 2;
            segment *grown = realloc(segments, (size_t)capacity * sizeof *grown);
            if (!grown) {
                free(segments);
                return OP_FAIL(ctx, OP_ERR_NOMEM, "out of memory");
            }
            segments = grown;
        }
        const char *open = strstr(p, "{{");
        size_t literal = open ? (size_t)(open - p) : strlen(p);
        if (literal) {
            segments[n++] = (segment){ .text = p, .length = literal, .line = line };
            for (size_t i = 0; i < literal; ++i)
                line += p[i] == '\n';
        }
        if (!open)
            break;
        const char *close = strstr(open + 2, "}}"), *newline = strchr(open + 2, '\n');
        if (!close || (newline && newline < close)) {
            free(segments);
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: '{{' without '}}' on the same line", path, line);
        }
        segments[n++] = (segment){ .text = open + 2, .length = (size_t)(close - open - 2), .placeholder = 1,
                                   .line = line };
        p = close + 2;
    }
    *out = segments;
    *count = n;
    return OP_OK;
}

/* Splits a placeholder into its words and finds its name; wrong counts are errors. */
static int lookup(op_ctx *ctx, char *words, char **argv, int *argc, const placeholder **found)
{
    *argc = 0;
    for (char *save = NULL, *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (*argc == MAX_ARGS)
            return OP_FAIL(ctx, OP_ERR_PARSE, "more than %d words", MAX_ARGS);
        argv[(*argc)++] = w;
    }
    if (*argc == 0)
        return OP_FAIL(ctx, OP_ERR_PARSE, "an empty placeholder");
    for (int p = 0; p < PLACEHOLDER_COUNT; ++p)
        if (strcmp(PLACEHOLDERS[p].name, argv[0]) == 0) {
            const placeholder *h = &PLACEHOLDERS[p];
            if (*argc - 1 < h->min_args || *argc - 1 > h->max_args)
                return OP_FAIL(ctx, OP_ERR_PARSE, "usage: {{%s%s%s}}", h->name, *h->arguments ? " " : "", h->arguments);
            *found = h;
            return OP_OK;
        }
    return OP_FAIL(ctx, OP_ERR_PARSE, "unknown placeholder '%s' (`opsim-report placeholders` lists them)", argv[0]);
}

/* Evaluates one placeholder into s->value; a failure's message is prefixed with the template
 * line and the placeholder. */
static int evaluate(md *m, segment *s, int last)
{
    char words[1024];
    char *argv[MAX_ARGS];
    int argc;
    const placeholder *h = NULL;
    snprintf(words, sizeof words, "%.*s", (int)s->length, s->text);
    if (lookup(m->ctx, words, argv, &argc, &h) == OP_OK && h->last == last) {
        size_t size;
        FILE *out = open_memstream(&s->value, &size);
        if (!out)
            OP_FAIL(m->ctx, OP_ERR_NOMEM, "out of memory");
        else {
            h->fn(m, argc, argv, out);
            fclose(out);
            /* a table ends its last row with a newline; the template's own line break follows */
            for (size_t n = strlen(s->value); n > 0 && s->value[n - 1] == '\n'; --n)
                s->value[n - 1] = '\0';
        }
    }
    if (m->ctx->status == OP_OK)
        return OP_OK;
    char message[sizeof m->ctx->message];
    snprintf(message, sizeof message, "%s", m->ctx->message);
    op_status status = m->ctx->status;
    op_ctx_init(m->ctx);
    return OP_FAIL(m->ctx, status, "%s:%d: {{%.*s}}: %s", m->def->template_path, s->line, (int)s->length, s->text,
                   message);
}

/* make's rule: the report depends on everything read; every input also gets an empty rule. */
static void put_make_path(FILE *out, const char *path)
{
    for (const char *c = path; *c; ++c) {
        if (*c == ' ' || *c == '#' || *c == ':')
            fputc('\\', out);
        if (*c == '$')
            fputc('$', out);
        fputc(*c, out);
    }
}

static int write_depfile(md *m)
{
    op_atomic_file file;
    if (op_atomic_open(m->ctx, &file, m->def->depfile) != OP_OK)
        return m->ctx->status;
    put_make_path(file.file, m->def->out);
    fputs(":", file.file);
    for (int i = 0; i < m->input_count; ++i) {
        fputs(" \\\n  ", file.file);
        put_make_path(file.file, m->inputs[i]);
    }
    fputs("\n", file.file);
    for (int i = 0; i < m->input_count; ++i) {
        fputs("\n", file.file);
        put_make_path(file.file, m->inputs[i]);
        fputs(":\n", file.file);
    }
    return op_atomic_commit(m->ctx, &file);
}

static int read_build_flags(md *m)
{
    if (remember_input(m, m->def->flags) != OP_OK)
        return m->ctx->status;
    FILE *f = fopen(m->def->flags, "r");
    if (!f)
        return OP_FAIL(m->ctx, OP_ERR_IO, "%s: cannot open: %s", m->def->flags, strerror(errno));
    if (!fgets(m->build_flags, sizeof m->build_flags, f))
        OP_FAIL(m->ctx, OP_ERR_PARSE, "%s: empty", m->def->flags);
    fclose(f);
    m->build_flags[strcspn(m->build_flags, "\r\n")] = '\0';
    return m->ctx->status;
}

/* The report's text: the template's literal text with every placeholder's value. */
static char *join_segments(op_ctx *ctx, const segment *segments, int count)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out) {
        OP_FAIL(ctx, OP_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (int s = 0; s < count; ++s)
        if (segments[s].placeholder)
            fputs(segments[s].value, out);
        else
            fwrite(segments[s].text, 1, segments[s].length, out);
    fclose(out);
    return text;
}

int report_md(op_ctx *ctx, const report_md_def *def)
{
    md m = { .ctx = ctx, .def = def };
    const char *slash = strrchr(def->out, '/');
    snprintf(m.out_dir, sizeof m.out_dir, "%.*s", slash ? (int)(slash - def->out) : 1, slash ? def->out : ".");
    segment *segments = NULL;
    int count = 0;
    char *text = read_text(ctx, def->template_path);
    if (text && remember_input(&m, def->template_path) == OP_OK && read_build_flags(&m) == OP_OK &&
        parse_template(ctx, def->template_path, text, &segments, &count) == OP_OK) {
        for (int last = 0; last < 2 && ctx->status == OP_OK; ++last)
            for (int s = 0; s < count && ctx->status == OP_OK; ++s)
                if (segments[s].placeholder && !segments[s].value)
                    evaluate(&m, &segments[s], last);
    }
    if (ctx->status == OP_OK && def->depfile)
        write_depfile(&m);
    char *report = ctx->status == OP_OK ? join_segments(ctx, segments, count) : NULL;
    int tables = 0;
    if (report && def->tex_dir)
        report_md_tex(ctx, report, def->out, def->tex_dir, &tables);
    op_atomic_file file;
    if (report && ctx->status == OP_OK && op_atomic_open(ctx, &file, def->out) == OP_OK) {
        fputs(report, file.file);
        op_atomic_commit(ctx, &file);
    }
    free(report);
    for (int s = 0; s < count; ++s)
        free(segments[s].value);
    free(segments);
    free(text);
    for (int i = 0; i < m.input_count; ++i)
        free(m.inputs[i]);
    free(m.inputs);
    for (int r = 0; r < m.run_count; ++r)
        run_free(m.runs[r]);
    free(m.runs);
    free(m.paper);
    free(m.deflection);
    free(m.steady);
    free(m.convergence);
    free(m.bench);
    return ctx->status;
}
