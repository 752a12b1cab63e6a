/* A run's stored states as `opsim export` reads them (app/export.h): the output frames, their
 * indices recorded in /particles/position/step, or with `[run] output = substeps` every
 * sub-step's state, /substeps/position/step; chosen by index, "last" or "all", and one body's
 * particles at one of them. A frame the run did not record fails naming the frames it has; a
 * run without sub-steps asked for them fails saying how to store them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "opsim/runfile.h"

void app_frame_state_free(app_frame_state *f)
{
    op_graph_free(&f->graph);
    op_mesh_free(&f->mesh);
    op_skin_free(&f->skin);
    free(f->position);
    free(f->rotation);
    memset(f, 0, sizeof *f);
}

const char *app_state_word(const char *group)
{
    return strcmp(group, APP_SUBSTEPS) == 0 ? "sub-step" : "frame";
}

/* A run without /substeps asked for its sub-steps: say how to store them. */
static int fail_no_substeps(op_ctx *ctx, const char *path)
{
    int rank = 0;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    op_ctx probe;
    op_ctx_init(&probe);
    if (op_runfile_dataset_shape(&probe, path, "/particles/position/step", &rank, dims) != OP_OK)
        return OP_FAIL(ctx, probe.status, "%s (not a simulation run: make one with 'opsim run')", probe.message);
    return OP_FAIL(ctx, OP_ERR_INVALID,
                   "%s: the run stored no sub-steps (no /substeps): run it again with "
                   "'--set run.output=substeps' ([run] output = substeps)", path);
}

/* Every stored state's index, GROUP/position/step, into a new array of *rows. */
static int read_steps(op_ctx *ctx, const char *path, const char *group, int64_t **steps, long *rows)
{
    char steps_path[64];
    snprintf(steps_path, sizeof steps_path, "%s/position/step", group);
    const char *word = app_state_word(group);
    int rank = 0;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    *steps = NULL;
    op_ctx probe;
    op_ctx_init(&probe);
    if (strcmp(group, APP_SUBSTEPS) == 0 && op_runfile_dataset_shape(&probe, path, steps_path, &rank, dims) != OP_OK)
        return fail_no_substeps(ctx, path);
    if (op_runfile_dataset_shape(ctx, path, steps_path, &rank, dims) != OP_OK) {
        if (ctx->status == OP_ERR_INVALID)
            snprintf(ctx->message + strlen(ctx->message), sizeof ctx->message - strlen(ctx->message),
                     " (not a simulation run: make one with 'opsim run')");
        return ctx->status;
    }
    if (rank != 1 || dims[0] < 1)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s holds no stored %ss", path, steps_path, word);
    *rows = (long)dims[0];
    *steps = op_calloc(ctx, (size_t)*rows, sizeof **steps);
    if (*steps && op_runfile_read_rows_int64(ctx, path, steps_path, 0, *rows, *steps, *rows) != OP_OK)
        OP_FREE(*steps);
    /* Frame indices name the OBJ files and pick rows: negative or repeated ones (a damaged
     * file) would have written one name several times. */
    for (long r = 0; *steps && r < *rows; ++r)
        if ((*steps)[r] < 0 || (*steps)[r] > 999999999 || (r > 0 && (*steps)[r] <= (*steps)[r - 1])) {
            OP_FAIL(ctx, OP_ERR_INVALID,
                    "%s: %s row %ld holds %s %lld: %s indices must increase from 0 (a damaged file)", path,
                    steps_path, r, word, (long long)(*steps)[r], word);
            OP_FREE(*steps);
        }
    return ctx->status;
}

/* A frame (or sub-step) that was not recorded: the failure names the ones the run has. The
 * recorder writes frame 0, every output_every-th frame and the last one; every sub-step. */
static int fail_unrecorded(op_ctx *ctx, const char *path, const char *word, const char *frame_text,
                           const int64_t *steps, long rows)
{
    long long every = rows > 1 ? (long long)(steps[1] - steps[0]) : 0;
    int regular = 1;
    for (long r = 1; r + 1 < rows; ++r)
        regular &= steps[r + 1] - steps[r] == every;
    if (rows == 1)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s %s was not recorded; the only one stored is %lld", path, word,
                       frame_text, (long long)steps[0]);
    if (regular)
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: %s %s was not recorded; stored %ss are %lld to %lld every %lld "
                       "(%ld %ss), or 'last'",
                       path, word, frame_text, word, (long long)steps[0], (long long)steps[rows - 1], every, rows,
                       word);
    return OP_FAIL(ctx, OP_ERR_INVALID,
                   "%s: %s %s was not recorded; stored %ss are %lld, %lld, ... %lld (%ld "
                   "%ss, every %lld and the last), or 'last'",
                   path, word, frame_text, word, (long long)steps[0], (long long)steps[1], (long long)steps[rows - 1],
                   rows, word, every);
}

/* The row of GROUP whose step is `frame_text` (an index or "last"). */
static int find_frame_row(op_ctx *ctx, const char *path, const char *group, const char *frame_text, long *row)
{
    int64_t *steps;
    long rows = 0;
    if (read_steps(ctx, path, group, &steps, &rows) != OP_OK)
        return ctx->status;
    *row = -1;
    if (strcmp(frame_text, "last") == 0)
        *row = rows - 1;
    else {
        long long frame = strtoll(frame_text, NULL, 10);
        for (long r = 0; r < rows && *row < 0; ++r)
            if (steps[r] == frame)
                *row = r;
    }
    if (*row < 0)
        fail_unrecorded(ctx, path, app_state_word(group), frame_text, steps, rows);
    free(steps);
    return ctx->status;
}

/* The body's rest data and place in the series, with room for one frame of its state. */
int app_read_frame_body(op_ctx *ctx, const char *path, const char *group, const char *body, int with_mesh,
                        app_frame_state *f)
{
    memset(f, 0, sizeof *f);
    f->group = group;
    if (op_runfile_read_body(ctx, path, body, &f->graph, with_mesh ? &f->mesh : NULL,
                             with_mesh ? &f->skin : NULL) != OP_OK)
        return ctx->status;
    char object[128];
    snprintf(object, sizeof object, "/parameters/%s", body);
    char position[64];
    snprintf(position, sizeof position, "%s/position/value", group);
    int rank = 0;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    if (op_runfile_read_attribute_int(ctx, path, object, "particle_offset", &f->offset) != OP_OK ||
        op_runfile_dataset_shape(ctx, path, position, &rank, dims) != OP_OK)
        return ctx->status;
    int n = f->graph.particle_count;
    if (rank != 3 || dims[2] != 3 || f->offset < 0 || f->offset + n > dims[1])
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: body %s (particles %lld to %lld) does not fit %s of %lld particles",
                       path, body, (long long)f->offset, (long long)f->offset + n - 1, position,
                       rank >= 2 ? (long long)dims[1] : 0LL);
    f->total = (long)dims[1];
    f->position = op_calloc(ctx, 3 * (size_t)n, sizeof *f->position);
    f->rotation = op_calloc(ctx, 9 * (size_t)n, sizeof *f->rotation);
    return ctx->status;
}

/* The body's particles at row `row` of its group (its frame or sub-step index and time too). */
int app_read_frame_row(op_ctx *ctx, const char *path, long row, app_frame_state *f)
{
    char position[64], orientation[64], step_path[64], time[64];
    snprintf(position, sizeof position, "%s/position/value", f->group);
    snprintf(orientation, sizeof orientation, "%s/orientation/value", f->group);
    snprintf(step_path, sizeof step_path, "%s/position/step", f->group);
    snprintf(time, sizeof time, "%s/position/time", f->group);
    long total = f->total;
    size_t n = (size_t)f->graph.particle_count;
    double *all_x = op_calloc(ctx, 3 * (size_t)total, sizeof *all_x);
    double *all_r = op_calloc(ctx, 9 * (size_t)total, sizeof *all_r);
    int64_t step = 0;
    if (ctx->status == OP_OK &&
        op_runfile_read_rows(ctx, path, position, row, 1, all_x, 3 * total) == OP_OK &&
        op_runfile_read_rows(ctx, path, orientation, row, 1, all_r, 9 * total) == OP_OK &&
        op_runfile_read_rows_int64(ctx, path, step_path, row, 1, &step, 1) == OP_OK &&
        op_runfile_read_rows(ctx, path, time, row, 1, &f->time, 1) == OP_OK) {
        memcpy(f->position, &all_x[3 * f->offset], 3 * n * sizeof(double));
        memcpy(f->rotation, &all_r[9 * f->offset], 9 * n * sizeof(double));
        f->frame = step;
    }
    free(all_x);
    free(all_r);
    return ctx->status;
}

int app_read_frame_state(op_ctx *ctx, const char *path, const char *group, const char *body, const char *frame_text,
                         int with_mesh, app_frame_state *f)
{
    long row = 0;
    memset(f, 0, sizeof *f);
    if (find_frame_row(ctx, path, group, frame_text, &row) == OP_OK &&
        app_read_frame_body(ctx, path, group, body, with_mesh, f) == OP_OK)
        app_read_frame_row(ctx, path, row, f);
    return ctx->status;
}

/* The body's visual surface skinned by its particles at the frame read (Eq. 2). */
void app_skin_frame(const app_frame_state *f, double *vertices)
{
    op_state state = { .particle_count = f->graph.particle_count, .position = f->position, .rotation = f->rotation };
    op_skin_apply(&f->skin, &f->graph, &state, f->mesh.vertices, vertices);
}

/* The rows of GROUP `frames` names: "all", or a comma-separated list of indices and 'last'
 * (each checked by app_valid_frame_list), in the order given. */
int app_select_rows(op_ctx *ctx, const char *path, const char *group, const char *frames, long **rows, long *count)
{
    int64_t *steps;
    long recorded = 0;
    *rows = NULL;
    *count = 0;
    if (read_steps(ctx, path, group, &steps, &recorded) != OP_OK)
        return ctx->status;
    free(steps);
    int all = strcmp(frames, "all") == 0;
    long wanted = all ? recorded : 1;
    for (const char *c = frames; !all && *c; ++c)
        wanted += *c == ',';
    *rows = op_calloc(ctx, (size_t)wanted, sizeof **rows);
    if (*rows && all)
        for (*count = 0; *count < recorded; ++*count)
            (*rows)[*count] = *count;
    for (const char *item = frames; *rows && !all;) {
        char text[32];
        size_t length = strcspn(item, ",");
        snprintf(text, sizeof text, "%.*s", (int)length, item);
        if (find_frame_row(ctx, path, group, text, &(*rows)[(*count)++]) != OP_OK || !item[length])
            break;
        item += length + 1;
    }
    if (ctx->status != OP_OK)
        OP_FREE(*rows);
    return ctx->status;
}

/* A frame is a non-negative whole number or "last". */
int app_valid_frame_text(const char *text)
{
    if (strcmp(text, "last") == 0)
        return 1;
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    return !errno && end != text && !*end && value >= 0;
}

/* `--frames`: "all", or frame indices and 'last' separated by commas. */
int app_valid_frame_list(const char *text)
{
    if (strcmp(text, "all") == 0)
        return 1;
    for (const char *item = text;; ++item) {
        char one[32];
        size_t length = strcspn(item, ",");
        if (length == 0 || length >= sizeof one)
            return 0;
        snprintf(one, sizeof one, "%.*s", (int)length, item);
        if (!app_valid_frame_text(one))
            return 0;
        item += length;
        if (!*item)
            return 1;
    }
}
