/* Model catalogue look-up and building. */
#include "model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapes.h"

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

int op_model_load(op_ctx *ctx, const char *catalogue, const char *name, const op_build_def *build, op_model *model)
{
    memset(model, 0, sizeof *model);
    FILE *f = fopen(catalogue, "r");
    if (!f)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot open the model catalogue: %s", catalogue, strerror(errno));
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
    int status = strncmp(model->source, "shape:", 6) == 0 ? op_shape_mesh(ctx, model->source + 6, &model->mesh)
                                                         : op_mesh_read(ctx, model->source, &model->mesh);
    if (status == OP_OK)
        status = op_build_body(ctx, &model->mesh, &model->build, &model->graph, &model->skin);
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
