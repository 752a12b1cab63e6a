/* opsim-report: writes the generated markdown reports from run files. Every number in a
 * report comes from a run file or from the paper's table (reports/paper_table1.tsv); nothing is
 * typed in. Sections:
 *   graphs   the graph statistics of every model (data/models.tsv) beside the paper's Table 1
 *            counts, with each model's picture. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctx.h"
#include "graph.h"
#include "mesh.h"
#include "runfile.h"

enum { MAX_ROWS = 64, MAX_FIELDS = 16, FIELD_SIZE = 256 };

/* A tab-separated table with '#' comment lines, as in data/models.tsv. */
typedef struct table {
    int rows, columns[MAX_ROWS];
    char cell[MAX_ROWS][MAX_FIELDS][FIELD_SIZE];
} table;

static int read_table(op_ctx *ctx, const char *path, int min_columns, table *t)
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
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (t->rows == MAX_ROWS) {
            fclose(f);
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: more than %d rows", path, number, MAX_ROWS);
        }
        int c = 0;
        for (char *field = line, *tab; field && c < MAX_FIELDS; field = tab ? tab + 1 : NULL, ++c) {
            tab = strchr(field, '\t');
            if (tab)
                *tab = '\0';
            if (strlen(field) >= FIELD_SIZE) {
                fclose(f);
                return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: field %d is longer than %d characters", path, number,
                               c + 1, FIELD_SIZE - 1);
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

typedef struct model_counts {
    char name[FIELD_SIZE];
    const char *kind, *source;
    long nodes, edges, vertices, polygons, triangles;
    int min_degree, max_degree;
} model_counts;

static int count_model(op_ctx *ctx, const char *runs, const table *models, int row, model_counts *out)
{
    char path[4096];
    snprintf(out->name, sizeof out->name, "%s", models->cell[row][0]);
    out->source = models->cell[row][1];
    out->kind = models->cell[row][2];
    if (snprintf(path, sizeof path, "%s/%s.h5", runs, out->name) >= (int)sizeof path)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s/%s.h5: path too long", runs, out->name);
    op_graph graph = { 0 };
    op_mesh mesh = { 0 };
    if (op_runfile_read_body(ctx, path, out->name, &graph, &mesh, NULL) != OP_OK)
        return ctx->status;
    out->nodes = graph.particle_count;
    out->edges = graph.edge_count;
    out->vertices = mesh.vertex_count;
    out->polygons = mesh.polygon_count;
    out->triangles = mesh.face_count;
    out->min_degree = graph.particle_count;
    out->max_degree = 0;
    for (int i = 0; i < graph.particle_count; ++i) {
        int degree = graph.adjacency_start[i + 1] - graph.adjacency_start[i];
        out->min_degree = degree < out->min_degree ? degree : out->min_degree;
        out->max_degree = degree > out->max_degree ? degree : out->max_degree;
    }
    op_graph_free(&graph);
    op_mesh_free(&mesh);
    return OP_OK;
}

static const model_counts *find_model(const model_counts *models, int count, const char *name)
{
    for (int m = 0; m < count; ++m)
        if (strcmp(models[m].name, name) == 0)
            return &models[m];
    return NULL;
}

/* Sums "N*model+model+..." into totals[4] = nodes, edges, vertices, polygons. */
static int sum_composition(op_ctx *ctx, const char *composition, const model_counts *models, int count,
                           long totals[4])
{
    char copy[FIELD_SIZE];
    snprintf(copy, sizeof copy, "%s", composition);
    memset(totals, 0, 4 * sizeof(long));
    for (char *save = NULL, *term = strtok_r(copy, "+", &save); term; term = strtok_r(NULL, "+", &save)) {
        long times = 1;
        char *star = strchr(term, '*');
        if (star) {
            times = strtol(term, NULL, 10);
            term = star + 1;
        }
        const model_counts *m = find_model(models, count, term);
        if (!m || times < 1)
            return OP_FAIL(ctx, OP_ERR_PARSE, "paper table: composition term '%s' names no model", term);
        totals[0] += times * m->nodes;
        totals[1] += times * m->edges;
        totals[2] += times * m->vertices;
        totals[3] += times * m->polygons;
    }
    return OP_OK;
}

static void print_ratio(FILE *out, long ours, const char *paper)
{
    double reference = strtod(paper, NULL);
    fprintf(out, " %ld (%.2f) |", ours, reference > 0 ? ours / reference : 0.0);
}

static int report_graphs(op_ctx *ctx, const char *models_path, const char *paper_path, const char *runs,
                         const char *figures, FILE *out)
{
    static table models, paper;
    static model_counts counts[MAX_ROWS];
    if (read_table(ctx, models_path, 5, &models) != OP_OK || read_table(ctx, paper_path, 13, &paper) != OP_OK)
        return ctx->status;
    for (int m = 0; m < models.rows; ++m)
        if (count_model(ctx, runs, &models, m, &counts[m]) != OP_OK)
            return ctx->status;

    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    fprintf(out, "# The oriented-particle graphs of the paper's models\n\n");
    fprintf(out, "Generated by `make graphs` (opsim %s, git %s) on %s from the run files in `%s/`; "
                 "do not edit. How the graphs are built: `docs/graph-construction.md`.\n\n",
            OPSIM_VERSION, OPSIM_GIT_REV, date, runs);

    fprintf(out, "## Models\n\n");
    fprintf(out, "Faces are counted as the mesh's polygons (the bar's and sheet's quads), triangles in "
                 "brackets.\n\n");
    fprintf(out, "| model | source | kind | nodes | edges | degree | vertices | faces |\n");
    fprintf(out, "|---|---|---|---:|---:|---|---:|---:|\n");
    for (int m = 0; m < models.rows; ++m) {
        const model_counts *c = &counts[m];
        fprintf(out, "| %s | `%s` | %s | %ld | %ld | %d–%d, mean %.2f | %ld | %ld (%ld) |\n", c->name, c->source,
                c->kind, c->nodes, c->edges, c->min_degree, c->max_degree, c->nodes ? 2.0 * c->edges / c->nodes : 0.0,
                c->vertices, c->polygons, c->triangles);
    }

    fprintf(out, "\n## Table 1 beside ours\n\n");
    fprintf(out, "Each scene's counts summed over its models (column *models*); ours with the ratio "
                 "ours/paper in brackets. The paper's meshes are not public: our dinosaur, bunny and "
                 "armadillo are the CGAL sample meshes, so vertex and face counts differ by design; node "
                 "counts match by construction and edge counts measure the graph builder.\n\n");
    fprintf(out, "| example | fig. | models | nodes paper | ours | edges paper | ours | vertices paper | ours | "
                 "faces paper | ours |\n");
    fprintf(out, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int r = 0; r < paper.rows; ++r) {
        long totals[4];
        if (sum_composition(ctx, paper.cell[r][12], counts, models.rows, totals) != OP_OK)
            return ctx->status;
        fprintf(out, "| %s | %s | %s | %s |", paper.cell[r][0], paper.cell[r][1], paper.cell[r][12], paper.cell[r][2]);
        print_ratio(out, totals[0], paper.cell[r][2]);
        fprintf(out, " %s |", paper.cell[r][3]);
        print_ratio(out, totals[1], paper.cell[r][3]);
        fprintf(out, " %s |", paper.cell[r][4]);
        print_ratio(out, totals[2], paper.cell[r][4]);
        fprintf(out, " %s |", paper.cell[r][5]);
        print_ratio(out, totals[3], paper.cell[r][5]);
        fprintf(out, "\n");
    }
    fprintf(out, "\nThe paper rounds the two Fig. 7 scenes' vertex and face counts to thousands (175K, "
                 "350K, 704K, 1,406K).\n");

    fprintf(out, "\n## Pictures\n\nEach particle's principal axes (a red, b green, c blue; half-lengths "
                 "are the radii) over the rest surface, y up.\n\n");
    for (int m = 0; m < models.rows; ++m)
        fprintf(out, "### %s\n\n![%s: %ld particles, %ld edges](%s/graph-%s.png)\n\n", counts[m].name,
                counts[m].name, counts[m].nodes, counts[m].edges, figures, counts[m].name);
    return OP_OK;
}

static const char help[] =
    "usage: opsim-report graphs --models data/models.tsv --paper reports/paper_table1.tsv\n"
    "                           --runs DIR --figures DIR --out REPORT.md\n"
    "\n"
    "Writes a markdown report from run files. --figures is the pictures' directory as the report\n"
    "refers to it (relative to the report). The report is written to a temporary name and renamed.\n";

int main(int argc, char **argv)
{
    const char *models = NULL, *paper = NULL, *runs = NULL, *figures = NULL, *out_path = NULL;
    if (argc < 2 || strcmp(argv[1], "graphs") != 0) {
        if (argc >= 2 && strcmp(argv[1], "--help") == 0) {
            fputs(help, stdout);
            return 0;
        }
        fputs(help, stderr);
        return 64;
    }
    for (int a = 2; a + 1 < argc; a += 2) {
        const char *key = argv[a], *value = argv[a + 1];
        if (strcmp(key, "--models") == 0) models = value;
        else if (strcmp(key, "--paper") == 0) paper = value;
        else if (strcmp(key, "--runs") == 0) runs = value;
        else if (strcmp(key, "--figures") == 0) figures = value;
        else if (strcmp(key, "--out") == 0) out_path = value;
        else {
            fprintf(stderr, "opsim-report: unknown option '%s'\n", key);
            return 64;
        }
    }
    if (!models || !paper || !runs || !figures || !out_path || argc % 2) {
        fputs(help, stderr);
        return 64;
    }
    char temp[4200];
    snprintf(temp, sizeof temp, "%s.tmp", out_path);
    FILE *out = fopen(temp, "w");
    if (!out) {
        fprintf(stderr, "opsim-report: %s: cannot create: %s\n", temp, strerror(errno));
        return 74;
    }
    op_ctx ctx;
    op_ctx_init(&ctx);
    report_graphs(&ctx, models, paper, runs, figures, out);
    int write_failed = ferror(out) | (fclose(out) != 0);
    if (ctx.status == OP_OK && !write_failed && rename(temp, out_path) == 0)
        return 0;
    remove(temp);
    fprintf(stderr, "opsim-report: %s\n", ctx.status != OP_OK ? ctx.message : "cannot write the report");
    return ctx.status == OP_OK ? 74 : 65;
}
