/* The `graphs` section of opsim-report (report_graphs.h): the graph statistics of every model
 * (data/models.tsv) beside the paper's Table 1 counts, with each model's picture. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opsim/ctx.h"
#include "opsim/graph.h"
#include "opsim/mesh.h"
#include "opsim/runfile.h"
#include "report_graphs.h"
#include "report_input.h"

typedef struct model_counts {
    char name[REPORT_FIELD_SIZE];
    const char *kind, *source, *rule; /* rule: the catalogue's edge rule */
    long nodes, edges, vertices, polygons, triangles;
    long face_edges;                  /* the same model's edges under the face rule alone */
    int min_degree, max_degree;
    double mass, density, mesh_volume; /* Σ m_i (kg), ρ (kg/m³), the mesh's volume (m³) */
} model_counts;

/* The model's graph (and mesh when asked) from DIR/NAME.h5. */
static int read_model_graph(op_ctx *ctx, const char *runs, const char *name, op_graph *graph, op_mesh *mesh)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s.h5", runs, name) >= (int)sizeof path)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s/%s.h5: path too long", runs, name);
    return op_runfile_read_body(ctx, path, name, graph, mesh, NULL);
}

/* Row `row` of the catalogue: its graph from runs/NAME.h5, and when its edge rule is not the
 * face rule, the face rule's graph from face_runs/NAME.h5 (make graphs builds both). */
static int count_model(op_ctx *ctx, const char *runs, const char *face_runs, const report_table *models, int row,
                       model_counts *out)
{
    snprintf(out->name, sizeof out->name, "%s", models->cell[row][0]);
    out->source = models->cell[row][1];
    out->kind = models->cell[row][2];
    out->rule = models->columns[row] >= 6 ? models->cell[row][5] : "faces";
    op_graph graph = { 0 };
    op_mesh mesh = { 0 };
    if (read_model_graph(ctx, runs, out->name, &graph, &mesh) != OP_OK)
        return ctx->status;
    out->nodes = graph.particle_count;
    out->edges = graph.edge_count;
    out->face_edges = graph.edge_count;
    if (strcmp(out->rule, "faces") != 0) {
        op_graph faces = { 0 };
        if (read_model_graph(ctx, face_runs, out->name, &faces, NULL) != OP_OK) {
            op_graph_free(&graph);
            op_mesh_free(&mesh);
            return ctx->status;
        }
        out->face_edges = faces.edge_count;
        op_graph_free(&faces);
    }
    out->vertices = mesh.vertex_count;
    out->polygons = mesh.polygon_count;
    out->triangles = mesh.face_count;
    out->density = graph.density;
    out->mass = 0.0;
    for (int i = 0; i < graph.particle_count; ++i)
        out->mass += graph.mass[i];
    out->mesh_volume = op_mesh_volume(&mesh);
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

/* Sums "N*model+model+..." into totals[5] = nodes, edges, vertices, polygons, edges under the
 * face rule. */
static int sum_composition(op_ctx *ctx, const char *composition, const model_counts *models, int count,
                           long totals[5])
{
    char copy[REPORT_FIELD_SIZE];
    snprintf(copy, sizeof copy, "%s", composition);
    memset(totals, 0, 5 * sizeof(long));
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
        totals[4] += times * m->face_edges;
    }
    return OP_OK;
}

static void print_ratio(FILE *out, long ours, const char *paper)
{
    double reference = strtod(paper, NULL);
    fprintf(out, " %ld (%.2f) |", ours, reference > 0 ? ours / reference : 0.0);
}

int report_graphs(op_ctx *ctx, const char *models_path, const char *paper_path, const char *runs,
                  const char *face_runs, const char *figures, FILE *out)
{
    static report_table models, paper;
    static model_counts counts[REPORT_MAX_ROWS];
    if (report_read_table(ctx, models_path, 5, &models) != OP_OK || report_read_table(ctx, paper_path, 13, &paper) != OP_OK)
        return ctx->status;
    for (int m = 0; m < models.rows; ++m)
        if (count_model(ctx, runs, face_runs, &models, m, &counts[m]) != OP_OK)
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
    fprintf(out, "Two graph sets: the *matched* graphs, each model built with its own edge rule "
                 "(`data/models.tsv`, column *edges*: `overlap:S` also joins particles whose ellipsoids, "
                 "scaled by S, meet, S chosen so that each Table 1 scene has the paper's edge count), which "
                 "every experiment uses; and the *face-rule* graphs, every model joined by shared cell faces "
                 "alone (the single rule opsim used before; `[run] edges = faces` in a config). The "
                 "partition, particles and ellipsoids are the same in both; degrees are the matched "
                 "graph's.\n\n");
    fprintf(out, "| model | source | kind | nodes | edge rule | edges | edges, face rule | degree | vertices | "
                 "faces |\n");
    fprintf(out, "|---|---|---|---:|---|---:|---:|---|---:|---:|\n");
    for (int m = 0; m < models.rows; ++m) {
        const model_counts *c = &counts[m];
        fprintf(out, "| %s | `%s` | %s | %ld | `%s` | %ld | %ld | %d–%d, mean %.2f | %ld | %ld (%ld) |\n", c->name,
                c->source, c->kind, c->nodes, c->rule, c->edges, c->face_edges, c->min_degree, c->max_degree,
                c->nodes ? 2.0 * c->edges / c->nodes : 0.0, c->vertices, c->polygons, c->triangles);
    }

    fprintf(out, "\n## Mass\n\n");
    fprintf(out, "Each particle's mass is ρ times its ellipsoid's volume, m_i = ρ v_i, as the paper defines it "
                 "(Eq. 10). The ellipsoids carry their cells' second moments, so together they are larger than "
                 "the solid: a graph's mass is that much above ρ times the mesh's volume. opsim keeps the "
                 "paper's m_i (`docs/graph-construction.md`, \"Mass\").\n\n");
    fprintf(out, "| model | ρ (kg/m³) | Σ m_i (kg) | ρ × mesh volume (kg) | ratio |\n");
    fprintf(out, "|---|---:|---:|---:|---:|\n");
    for (int m = 0; m < models.rows; ++m) {
        const model_counts *c = &counts[m];
        double solid = c->density * c->mesh_volume;
        fprintf(out, "| %s | %.0f | %.4g | %.4g | %.3f |\n", c->name, c->density, c->mass, solid,
                solid > 0 ? c->mass / solid : 0.0);
    }

    fprintf(out, "\n## Table 1 beside ours\n\n");
    fprintf(out, "Each scene's counts summed over its models (column *models*); ours with the ratio "
                 "ours/paper in brackets. The paper's meshes are not public: our dinosaur, bunny and "
                 "armadillo are the CGAL sample meshes, so vertex and face counts differ by design; node "
                 "counts match by construction and edge counts measure the graph builder.\n\n");
    fprintf(out, "| example | fig. | models | nodes paper | ours | edges paper | ours, matched | ours, face rule | "
                 "vertices paper | ours | faces paper | ours |\n");
    fprintf(out, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int r = 0; r < paper.rows; ++r) {
        long totals[5];
        if (sum_composition(ctx, paper.cell[r][12], counts, models.rows, totals) != OP_OK)
            return ctx->status;
        fprintf(out, "| %s | %s | %s | %s |", paper.cell[r][0], paper.cell[r][1], paper.cell[r][12], paper.cell[r][2]);
        print_ratio(out, totals[0], paper.cell[r][2]);
        fprintf(out, " %s |", paper.cell[r][3]);
        print_ratio(out, totals[1], paper.cell[r][3]);
        print_ratio(out, totals[4], paper.cell[r][3]);
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
