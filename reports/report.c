/* opsim-report: writes the generated markdown reports from run files. Every number in a
 * report comes from a run file, a table generated from run files, or the paper's table
 * (reports/paper_table1.tsv); nothing is typed in. Sections:
 *   graphs   the graph statistics of every model (data/models.tsv) beside the paper's Table 1
 *            counts, with each model's picture;
 *   table1   the paper's Table 1 beside our timings, from bench_scenes' CSV (make table1), on the
 *            matched graphs and, where they differ, on the face rule's,
 *            with the machine, thread count and compiler flags they were measured with;
 *   report   reports/REPORT.md from its template reports/REPORT.md.in (reports/report_md.c).
 * This file holds the first two, what the sections share (report.h) and main. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/atomic.h"
#include "contact/collide.h"
#include "opsim/ctx.h"
#include "opsim/graph.h"
#include "opsim/mesh.h"
#include "report.h"
#include "opsim/runfile.h"

int report_read_table(op_ctx *ctx, const char *path, int min_columns, report_table *t)
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

static int report_graphs(op_ctx *ctx, const char *models_path, const char *paper_path, const char *runs,
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
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
            char *name = strchr(line, ':') + 1;
            name += strspn(name, " \t");
            name[strcspn(name, "\r\n")] = '\0';
            snprintf(out, size, "%s", name);
            break;
        }
    fclose(f);
}

/* A paper time cell: "-" stays "–". */
static void print_paper_ms(FILE *out, const char *cell)
{
    fprintf(out, " %s |", strcmp(cell, "-") == 0 ? "–" : cell);
}

/* One measured row of Table 1, labelled `who`, with the paper's total over its own. */
static void print_bench_row(FILE *out, const char *who, const report_bench_row *row, double paper_total)
{
    double total = strtod(report_bench_value(row, "total_ms"), NULL);
    fprintf(out, "| | | %s | %s | %s | %s | %s | %s × %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f× |\n", who,
            report_bench_value(row, "nodes"), report_bench_value(row, "edges"), report_bench_value(row, "vertices"),
            report_bench_value(row, "faces"), report_bench_value(row, "ns"), report_bench_value(row, "ni"),
            strtod(report_bench_value(row, "local_ms"), NULL), strtod(report_bench_value(row, "global_ms"), NULL),
            strtod(report_bench_value(row, "collision_ms"), NULL), total,
            strtod(report_bench_value(row, "skinning_ms"), NULL), total > 0 ? paper_total / total : 0.0);
}

/* Under a scene's row, when some of its frames ran their contacts on one thread: its stage medians
 * over the runs that stayed in each spell (bench_scenes' near_runs and near_*_ms, far_runs and
 * far_*_ms; "–" for a spell no run stayed in), with the paper's total over each. */
static void print_spell_rows(FILE *out, const report_bench_row *row, double paper_total)
{
    const char *share = report_bench_value(row, "contacts_one_thread");
    if (!share || !(strtod(share, NULL) > 0.0) || !report_bench_value(row, "far_runs"))
        return;
    static const char *const stages[] = { "local_ms", "global_ms", "collision_ms", "total_ms" };
    for (int far = 0; far < 2; ++far) {
        const char *spell = far ? "far" : "near";
        char key[REPORT_BENCH_KEY_SIZE];
        snprintf(key, sizeof key, "%s_runs", spell);
        fprintf(out, "| | | ours, contacts on %s throughout: %s of %s runs | | | | | |",
                far ? "one thread (cores far)" : "the team (cores near)", report_bench_value(row, key),
                report_bench_value(row, "repeats"));
        const char *cell = NULL;
        for (size_t s = 0; s < sizeof stages / sizeof stages[0]; ++s) {
            snprintf(key, sizeof key, "%s_%s", spell, stages[s]);
            if ((cell = report_bench_value(row, key)))
                fprintf(out, " %.3f |", strtod(cell, NULL));
            else
                fprintf(out, " – |");
        }
        /* cell: the total's */
        if (cell && strtod(cell, NULL) > 0.0)
            fprintf(out, " | %.1f× |\n", paper_total / strtod(cell, NULL));
        else
            fprintf(out, " | |\n");
    }
}

/* Where each scene's contacts between bodies ran (bench_scenes' handoff_ns and
 * contacts_one_thread; absent from older benchmark files, and for scenes without such contacts). */
static void print_contact_threads(FILE *out, const report_bench_row *rows, int count)
{
    int printed = 0;
    for (int r = 0; r < count; ++r) {
        const char *handoff = report_bench_value(&rows[r], "handoff_ns");
        const char *share = report_bench_value(&rows[r], "contacts_one_thread");
        if (!handoff || !share)
            continue;
        if (!printed++)
            fprintf(out, "\nWhere the contacts between bodies ran (`[world] collision_threads = auto`, "
                         "`core/contact/collide.h`): each frame measures how long a cache line takes between two cores and "
                         "runs its contacts on one thread when that is over %.0f ns. On this kind of virtual "
                         "machine the cores are near (about 40 ns) in some spells and far (about 210 ns) in "
                         "others, and a pile's frame differs by about a quarter between the two "
                         "(`docs/performance.md`, *The contact stage on one thread or on all*). Where some of a "
                         "scene's frames ran on one thread, the two rows under its own give the medians over the runs "
                         "that stayed in one spell, each spell apart (a run that changed spell counts in the "
                         "scene's own row alone: a spell can last a tenth of a second, and a pile's impacts cost "
                         "three times its rest); the paper's four cores were on one chip, as ours are in a near "
                         "spell. In this run:",
                    OP_COLLIDE_FAR_HANDOFF_NS);
        fprintf(out, "%s %s, %s ns (median), on one thread in %.1f %% of the frames", printed > 1 ? ";" : "",
                report_bench_value(&rows[r], "example"), handoff, 100 * strtod(share, NULL));
    }
    if (printed)
        fprintf(out, ".\n");
}

int report_write_table1(op_ctx *ctx, const char *paper_path, const char *bench_path, const char *flags_path,
                        FILE *out)
{
    int count = 0, face_count = 0;
    report_table *paper = op_calloc(ctx, 1, sizeof *paper), *flags = op_calloc(ctx, 1, sizeof *flags);
    report_bench_row *rows = op_calloc(ctx, REPORT_MAX_ROWS, sizeof *rows);
    report_bench_row *face_rows = op_calloc(ctx, REPORT_MAX_ROWS, sizeof *face_rows);
    if (!paper || !flags || !rows || !face_rows || report_read_table(ctx, paper_path, 13, paper) != OP_OK ||
        report_read_bench(ctx, bench_path, "catalogue", rows, &count) != OP_OK ||
        report_read_bench(ctx, bench_path, "faces", face_rows, &face_count) != OP_OK ||
        report_read_table(ctx, flags_path, 1, flags) != OP_OK)
        goto done;
    char cpu[256];
    report_cpu_model(cpu, sizeof cpu);
    const report_bench_row *first = &rows[0];
    const char *simd = report_bench_value(first, "simd"); /* absent from older benchmark files */
    fprintf(out, "Ours: %s, %s thread(s)%s, `%s`; double precision. The paper: MacBook Pro, Intel Core i7 "
                 "2.9 GHz, 4 cores for the two Fig. 7 scenes, skinning on the GPU.\n\n",
            cpu, report_bench_value(first, "threads"),
            simd && strcmp(simd, "avx") == 0 ? ", AVX paths on (`core/kernels/simd.h`)" : "",
            flags->cell[0][0]);
    fprintf(out, "Milliseconds per frame (h = 1/30 s), each stage's median over %s runs of each scene's own "
                 "frames after %s warm-up frames, energy logging off (`bench/bench_scenes.c`). Stage medians "
                 "are taken one by one, so they need not add up to the total. *skinning*: every visual "
                 "vertex of every body skinned on the CPU, timed apart from the frames (between them it "
                 "would evict the world's data from the caches; the paper skinned on the GPU), not in our "
                 "total. *ratio*: the "
                 "paper's total over ours. Our meshes are the CGAL sample meshes, not the paper's (more "
                 "vertices).\n\n"
                 "Two graph sets (`reports/graphs.md`): *ours* runs the matched graphs, each model with its "
                 "catalogue edge rule, which bring every scene's edge count to the paper's; *ours, face rule* "
                 "runs the same scenes with every model joined by shared cell faces alone (`[run] edges = "
                 "faces`), fewer edges, where the two differ: %s run(s) of %s frames each after the same "
                 "warm-up, enough to show what the density costs, not to time it as closely.\n\n",
            report_bench_value(first, "repeats"), report_bench_value(first, "warmup"),
            report_bench_value(&face_rows[0], "repeats"), report_bench_value(&face_rows[0], "frames"));
    fprintf(out, "| example | fig. | | nodes | edges | vertices | faces | n_s × n_i | local | global | collision | "
                 "total | skinning | ratio |\n");
    fprintf(out, "|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
    for (int r = 0; r < paper->rows; ++r) {
        const char *example = paper->cell[r][0];
        const report_bench_row *ours = NULL;
        for (int b = 0; b < count && !ours; ++b)
            if (strcmp(report_bench_value(&rows[b], "example"), example) == 0)
                ours = &rows[b];
        fprintf(out, "| %s | %s | paper | %s | %s | %s | %s | %s × %s |", example, paper->cell[r][1],
                paper->cell[r][2], paper->cell[r][3], paper->cell[r][4], paper->cell[r][5], paper->cell[r][6],
                paper->cell[r][7]);
        for (int c = 8; c < 12; ++c)
            print_paper_ms(out, paper->cell[r][c]);
        fprintf(out, " GPU | |\n");
        if (!ours) {
            fprintf(out, "| | | ours | not measured | | | | | | | | | | |\n");
            continue;
        }
        double total = strtod(report_bench_value(ours, "total_ms"), NULL);
        double paper_total = strtod(paper->cell[r][11], NULL);
        print_bench_row(out, "ours", ours, paper_total);
        print_spell_rows(out, ours, paper_total);
        for (int b = 0; b < face_count; ++b)
            if (strcmp(report_bench_value(&face_rows[b], "example"), example) == 0 &&
                strcmp(report_bench_value(&face_rows[b], "edges"), report_bench_value(ours, "edges")) != 0)
                print_bench_row(out, "ours, face rule", &face_rows[b], paper_total);
        const char *bodies = report_bench_value(ours, "bodies");
        if (bodies && strtol(bodies, NULL, 10) > 1 && strcmp(example, "Bar stiffness") == 0)
            fprintf(out, "| | | ours per bar | | | | | | | | | %.3f | | %.1f× |\n", total / strtod(bodies, NULL),
                    paper_total * strtod(bodies, NULL) / total);
    }
    fprintf(out, "\nBar stiffness simulates three bars; the paper's row describes one, so the time per bar is "
                 "given too. Times from one machine are noisy: compare ratios measured in one run.\n");
    print_contact_threads(out, rows, count);
done:
    free(paper);
    free(flags);
    free(rows);
    free(face_rows);
    return ctx->status;
}

static int report_table1(op_ctx *ctx, const char *paper_path, const char *bench_path, const char *flags_path,
                         FILE *out)
{
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    fprintf(out, "# Table 1: timings, the paper's beside ours\n\n");
    fprintf(out, "Generated by `make table1` (opsim %s, git %s) on %s from `%s`; do not edit.\n\n", OPSIM_VERSION,
            OPSIM_GIT_REV, date, bench_path);
    return report_write_table1(ctx, paper_path, bench_path, flags_path, out);
}

static const char help[] =
    "usage: opsim-report graphs --models data/models.tsv --paper reports/paper_table1.tsv\n"
    "                           --runs DIR --face-runs DIR --figures DIR --out REPORT.md\n"
    "       opsim-report table1 --paper reports/paper_table1.tsv --bench BENCH.csv\n"
    "                           --flags build/flags --out TABLE1.md\n"
    "       opsim-report report --template reports/REPORT.md.in --results data/results\n"
    "                           --paper reports/paper_table1.tsv --flags build/flags\n"
    "                           --figures DIR [--depfile FILE.d] --out REPORT.md\n"
    "       opsim-report placeholders\n"
    "\n"
    "Writes a markdown report: graphs from run files, table1 from bench_scenes' CSV,\n"
    "report from a template whose {{placeholders}} are computed from the run files and tables\n"
    "under --results (`opsim-report placeholders` lists them). --figures is the pictures'\n"
    "directory as the report refers to it (relative to the report). --depfile writes a make\n"
    "rule: the report depends on every file it read. Reports are written to a temporary name\n"
    "and renamed; on any error nothing is written.\n";

/* Exit status as bin/opsim's: 64 usage, 65 bad input data, 74 input/output. */
static int exit_status(const op_ctx *ctx)
{
    switch (ctx->status) {
    case OP_OK: return 0;
    case OP_ERR_USAGE: return 64;
    case OP_ERR_IO: return 74;
    default: return 65;
    }
}

int main(int argc, char **argv)
{
    const char *section = argc >= 2 ? argv[1] : "";
    if (strcmp(section, "--help") == 0) {
        fputs(help, stdout);
        return 0;
    }
    if (strcmp(section, "placeholders") == 0 && argc == 2) {
        report_md_placeholders(stdout);
        return 0;
    }
    int graphs = strcmp(section, "graphs") == 0, table1 = strcmp(section, "table1") == 0,
        report = strcmp(section, "report") == 0;
    if ((!graphs && !table1 && !report) || argc % 2) {
        fputs(help, stderr);
        return 64;
    }
    const char *models = NULL, *paper = NULL, *runs = NULL, *face_runs = NULL, *figures = NULL, *out_path = NULL;
    const char *bench = NULL, *flags = NULL, *template = NULL, *results = NULL, *depfile = NULL;
    for (int a = 2; a + 1 < argc; a += 2) {
        const char *key = argv[a], *value = argv[a + 1];
        if (strcmp(key, "--models") == 0) models = value;
        else if (strcmp(key, "--paper") == 0) paper = value;
        else if (strcmp(key, "--runs") == 0) runs = value;
        else if (strcmp(key, "--face-runs") == 0) face_runs = value;
        else if (strcmp(key, "--figures") == 0) figures = value;
        else if (strcmp(key, "--out") == 0) out_path = value;
        else if (strcmp(key, "--bench") == 0) bench = value;
        else if (strcmp(key, "--flags") == 0) flags = value;
        else if (strcmp(key, "--template") == 0) template = value;
        else if (strcmp(key, "--results") == 0) results = value;
        else if (strcmp(key, "--depfile") == 0) depfile = value;
        else {
            fprintf(stderr, "opsim-report: unknown option '%s'\n", key);
            return 64;
        }
    }
    if (graphs ? !models || !paper || !runs || !face_runs || !figures || !out_path
        : table1 ? !paper || !bench || !flags || !out_path
                 : !template || !results || !paper || !flags || !figures || !out_path) {
        fputs(help, stderr);
        return 64;
    }
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (report) {
        report_md_def def = { .template_path = template, .results = results, .paper = paper, .flags = flags,
                              .figures = figures, .out = out_path, .depfile = depfile };
        report_md(&ctx, &def);
    } else {
        op_atomic_file file;
        if (op_atomic_open(&ctx, &file, out_path) == OP_OK) {
            if (graphs)
                report_graphs(&ctx, models, paper, runs, face_runs, figures, file.file);
            else
                report_table1(&ctx, paper, bench, flags, file.file);
            if (ctx.status == OP_OK)
                op_atomic_commit(&ctx, &file);
            else
                op_atomic_abort(&file);
        }
    }
    if (ctx.status != OP_OK)
        fprintf(stderr, "opsim-report: %s\n", ctx.message);
    return exit_status(&ctx);
}
