/* Model catalogue look-up and building.
 *
 * A joined model (kind `joined`, source "join:A+B offset DX DY DZ reach R") is ONE graph made of
 * two catalogue models: B's particles, mesh and skinning are placed at A's model frame + (DX, DY,
 * DZ), and every A-B particle pair whose rest centres are at most R apart becomes an edge. So a
 * load hung from a cloth (Vogiannou et al. 2010, Fig. 5) is one body that every variant and tool
 * simulates unchanged, with no joint between bodies. Both parts are built with the joined model's
 * build parameters (one density: masses follow the particles' volumes) and their own kind and
 * particle count; a part may not itself be joined. */
#include "geometry/model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/graph_cache.h"
#include "base/math3.h"
#include "base/paths.h"
#include "geometry/shapes.h"
#include "io/input.h"

/* Splits a tab-separated line in place; returns the field count (at most max). */
static int split_tabs(char *line, char **fields, int max)
{
    int count = 0;
    for (char *field = line; field && count < max; ++count) {
        fields[count] = field;
        char *tab = strchr(field, '\t');
        if (tab)
            *tab = '\0';
        field = tab ? tab + 1 : NULL;
    }
    return count;
}

/* Builds model->graph, mesh and skin from the two parts named in model->source (see the header). */
static int join_parts(op_ctx *ctx, const char *catalogue, op_model *model, int particles_override)
{
    char part_name[2][64];
    double offset[3], reach;
    int used = 0;
    if (sscanf(model->source, "join:%63[^+ ]+%63s offset %lf %lf %lf reach %lf%n", part_name[0], part_name[1],
               &offset[0], &offset[1], &offset[2], &reach, &used) != 6 ||
        model->source[used] != '\0' || !(isfinite(offset[0]) && isfinite(offset[1]) && isfinite(offset[2])) ||
        !(reach > 0 && isfinite(reach)))
        return OP_FAIL(ctx, OP_ERR_PARSE,
                       "%s: model %s: source '%s' is not 'join:A+B offset DX DY DZ reach R' (R > 0, metres)",
                       catalogue, model->name, model->source);
    if (particles_override > 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "model %s is joined from %s and %s: set their particle counts in %s",
                       model->name, part_name[0], part_name[1], catalogue);
    op_build_def part_def = model->build;
    part_def.particles = 0;
    op_model part[2];
    memset(part, 0, sizeof part);
    for (int p = 0; p < 2; ++p) {
        if (op_model_load(ctx, catalogue, part_name[p], &part_def, &part[p]) != OP_OK)
            goto done;
        if (part[p].build.kind == OP_BODY_JOINED) {
            OP_FAIL(ctx, OP_ERR_INVALID, "model %s: its part %s is itself joined", model->name, part_name[p]);
            goto done;
        }
    }
    const op_graph *a = &part[0].graph, *b = &part[1].graph;
    int na = a->particle_count, n = na + b->particle_count;
    double *placed_b = op_calloc(ctx, 3 * (size_t)b->particle_count, sizeof(double));
    int pairs = 0;
    if (!placed_b)
        goto done;
    for (int j = 0; j < b->particle_count; ++j)
        for (int d = 0; d < 3; ++d)
            placed_b[3 * j + d] = b->rest_position[3 * j + d] + offset[d];
    for (int i = 0; i < na; ++i)
        for (int j = 0; j < b->particle_count; ++j)
            pairs += v3_dist2(&a->rest_position[3 * i], &placed_b[3 * j]) <= reach * reach;
    if (pairs == 0) {
        OP_FAIL(ctx, OP_ERR_INVALID, "model %s: no particle of %s is within reach %g m of one of %s", model->name,
                part_name[1], reach, part_name[0]);
        goto free_placed;
    }
    int edge_count = a->edge_count + b->edge_count + pairs;
    int *edges = op_calloc(ctx, 2 * (size_t)edge_count, sizeof(int));
    if (!edges || op_graph_alloc(ctx, &model->graph, n, edge_count) != OP_OK)
        goto free_edges;
    op_graph_edges(a, edges);
    op_graph_edges(b, &edges[2 * a->edge_count]);
    int e = a->edge_count;
    for (int k = 2 * e; k < 2 * (e + b->edge_count); ++k)
        edges[k] += na;
    e += b->edge_count;
    for (int i = 0; i < na; ++i)
        for (int j = 0; j < b->particle_count; ++j)
            if (v3_dist2(&a->rest_position[3 * i], &placed_b[3 * j]) <= reach * reach) {
                edges[2 * e] = i;
                edges[2 * e + 1] = na + j;
                ++e;
            }
    op_graph *g = &model->graph;
    memcpy(g->rest_position, a->rest_position, 3 * (size_t)na * sizeof(double));
    memcpy(&g->rest_position[3 * na], placed_b, 3 * (size_t)b->particle_count * sizeof(double));
    memcpy(g->rest_axes, a->rest_axes, 9 * (size_t)na * sizeof(double));
    memcpy(&g->rest_axes[9 * na], b->rest_axes, 9 * (size_t)b->particle_count * sizeof(double));
    memcpy(g->radii, a->radii, 3 * (size_t)na * sizeof(double));
    memcpy(&g->radii[3 * na], b->radii, 3 * (size_t)b->particle_count * sizeof(double));
    if (op_graph_set_edges(ctx, g, edges, edge_count) != OP_OK)
        goto free_edges;
    op_graph_derive(g, model->build.density);

    const op_mesh *ma = &part[0].mesh, *mb = &part[1].mesh;
    int va = ma->vertex_count;
    if (op_mesh_alloc(ctx, &model->mesh, va + mb->vertex_count, ma->face_count + mb->face_count) != OP_OK)
        goto free_edges;
    model->mesh.polygon_count = ma->polygon_count + mb->polygon_count;
    memcpy(model->mesh.vertices, ma->vertices, 3 * (size_t)va * sizeof(double));
    for (int v = 0; v < mb->vertex_count; ++v)
        for (int d = 0; d < 3; ++d)
            model->mesh.vertices[3 * (va + v) + d] = mb->vertices[3 * v + d] + offset[d];
    memcpy(model->mesh.faces, ma->faces, 3 * (size_t)ma->face_count * sizeof(int));
    for (int f = 0; f < 3 * mb->face_count; ++f)
        model->mesh.faces[3 * ma->face_count + f] = mb->faces[f] + va;

    /* the wider skinning of the two; a narrower part's spare slots repeat its first influence with
       weight 0, as op_skin does */
    const op_skin *sa = &part[0].skin, *sb = &part[1].skin;
    int k = sa->k > sb->k ? sa->k : sb->k;
    if (op_skin_alloc(ctx, &model->skin, va + mb->vertex_count, k) != OP_OK)
        goto free_edges;
    for (int v = 0; v < va + mb->vertex_count; ++v) {
        const op_skin *s = v < va ? sa : sb;
        int sv = v < va ? v : v - va, shift = v < va ? 0 : na;
        for (int slot = 0; slot < k; ++slot) {
            int from = slot < s->k ? slot : 0;
            model->skin.index[k * v + slot] = s->index[s->k * sv + from] + shift;
            model->skin.weight[k * v + slot] = slot < s->k ? s->weight[s->k * sv + from] : 0.0;
        }
    }
    model->build.particles = n;
free_edges:
    free(edges);
free_placed:
    free(placed_b);
done:
    op_model_free(&part[0]);
    op_model_free(&part[1]);
    return ctx->status;
}

/* A mesh file named in the catalogue: relative to the catalogue's folder. */
static int read_mesh_beside(op_ctx *ctx, const char *catalogue, const char *source, op_mesh *mesh)
{
    char path[4096];
    if (op_path_beside(ctx, catalogue, source, path, sizeof path) != OP_OK)
        return ctx->status;
    return op_mesh_read(ctx, path, mesh);
}

int op_model_load(op_ctx *ctx, const char *catalogue, const char *name, const op_build_def *build, op_model *model)
{
    memset(model, 0, sizeof *model);
    FILE *f = op_input_open(ctx, catalogue, OP_INPUT_MAX_CONFIG_BYTES, "model catalogue");
    if (!f)
        return ctx->status;
    char line[1024], *fields[8];
    int number = 0, found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        ++number;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        int count = split_tabs(line, fields, 8);
        if (strcmp(fields[0], name) != 0)
            continue;
        found = 1;
        if (count < 4) {
            fclose(f);
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: model %s needs name, source, kind and particles", catalogue,
                           number, name);
        }
        model->build = *build;
        char *end;
        long particles = strtol(fields[3], &end, 10);
        if (op_body_kind_parse(fields[2], &model->build.kind) || *end || particles < 1 || particles > 1000000) {
            fclose(f);
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: model %s: bad kind '%s' or particle count '%s'", catalogue,
                           number, name, fields[2], fields[3]);
        }
        if (build->particles <= 0)
            model->build.particles = (int)particles;
        if (build->overlap_scale < 0.0 && op_edge_rule_parse(count >= 6 ? fields[5] : "faces",
                                                             &model->build.overlap_scale)) {
            fclose(f);
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: model %s: bad edge rule '%s' (faces or overlap:S, S in (0, 10])",
                           catalogue, number, name, fields[5]);
        }
        if (strlen(fields[0]) >= sizeof model->name || strlen(fields[1]) >= sizeof model->source) {
            fclose(f);
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: model name or source too long", catalogue, number);
        }
        strcpy(model->name, fields[0]);
        strcpy(model->source, fields[1]);
    }
    fclose(f);
    if (!found)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: no model named '%s'", catalogue, name);
    int joined = strncmp(model->source, "join:", 5) == 0;
    if (joined != (model->build.kind == OP_BODY_JOINED))
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s: model %s: the kind 'joined' goes with a 'join:' source, and only it",
                       catalogue, name);
    int status;
    if (joined)
        status = join_parts(ctx, catalogue, model, build->particles);
    else if (strncmp(model->source, "shape:", 6) == 0)
        status = op_shape_mesh(ctx, model->source + 6, &model->mesh);
    else
        status = read_mesh_beside(ctx, catalogue, model->source, &model->mesh);
    char cache[4096];
    if (status == OP_OK && !joined && (status = op_graph_cache_beside(ctx, catalogue, cache, sizeof cache)) == OP_OK)
        status = op_build_body_cached(ctx, cache[0] ? cache : NULL, model->name, &model->mesh, &model->build,
                                      &model->graph, &model->skin, &model->built, NULL);
    if (status != OP_OK)
        op_model_free(model);
    return status;
}

void op_model_free(op_model *model)
{
    op_mesh_free(&model->mesh);
    op_graph_free(&model->graph);
    op_skin_free(&model->skin);
}
