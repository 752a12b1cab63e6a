/* A run's output frames as `opsim export` reads them: the frame indices recorded in
 * /particles/position/step, chosen by index, "last" or "all", and one body's particles at one
 * of them (app/export.h). A frame the run did not record fails naming the frames it has. */
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

/* Every output frame's index, /particles/position/step, into a new array of *rows. */
static int read_steps(op_ctx *ctx, const char *path, int64_t **steps, long *rows)
{
    const char *steps_path = "/particles/position/step";
    int rank = 0;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    *steps = NULL;
    if (op_runfile_dataset_shape(ctx, path, steps_path, &rank, dims) != OP_OK) {
        if (ctx->status == OP_ERR_INVALID)
            snprintf(ctx->message + strlen(ctx->message), sizeof ctx->message - strlen(ctx->message),
                     " (not a simulation run: make one with 'opsim run')");
        return ctx->status;
    }
    if (rank != 1 || dims[0] < 1)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s holds no output frames", path, steps_path);
    *rows = (long)dims[0];
    *steps = op_calloc(ctx, (size_t)*rows, sizeof **steps);
    if (*steps && op_runfile_read_rows_int64(ctx, path, steps_path, 0, *rows, *steps, *rows) != OP_OK)
        OP_FREE(*steps);
    /* Frame indices name the OBJ files and pick rows: negative or repeated ones (a damaged
     * file) would have written one name several times. */
    for (long r = 0; *steps && r < *rows; ++r)
        if ((*steps)[r] < 0 || (*steps)[r] > 999999999 || (r > 0 && (*steps)[r] <= (*steps)[r - 1])) {
            OP_FAIL(ctx, OP_ERR_INVALID,
                    "%s: %s row %ld holds frame %lld: frame indices must increase from 0 (a damaged file)", path,
                    steps_path, r, (long long)(*steps)[r]);
            OP_FREE(*steps);
        }
    return ctx->status;
}

/* A frame that was not recorded: the failure names the frames the run has. The recorder writes
 * frame 0, every output_every-th frame and the last one. */
static int fail_unrecorded(op_ctx *ctx, const char *path, const char *frame_text, const int64_t *steps, long rows)
{
    long long every = rows > 1 ? (long long)(steps[1] - steps[0]) : 0;
    int regular = 1;
    for (long r = 1; r + 1 < rows; ++r)
        regular &= steps[r + 1] - steps[r] == every;
    if (rows == 1)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: frame %s was not recorded; the only output frame is %lld", path,
                       frame_text, (long long)steps[0]);
    if (regular)
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: frame %s was not recorded; output frames are %lld to %lld every %lld "
                       "(%ld frames), or 'last'",
                       path, frame_text, (long long)steps[0], (long long)steps[rows - 1], every, rows);
    return OP_FAIL(ctx, OP_ERR_INVALID,
                   "%s: frame %s was not recorded; output frames are %lld, %lld, ... %lld (%ld "
                   "frames, every %lld and the last), or 'last'",
                   path, frame_text, (long long)steps[0], (long long)steps[1], (long long)steps[rows - 1], rows,
                   every);
}

/* The output row whose step is `frame_text` (a frame index or "last"). */
static int find_frame_row(op_ctx *ctx, const char *path, const char *frame_text, long *row)
{
    int64_t *steps;
    long rows = 0;
    if (read_steps(ctx, path, &steps, &rows) != OP_OK)
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
        fail_unrecorded(ctx, path, frame_text, steps, rows);
    free(steps);
    return ctx->status;
}

/* The body's rest data and place in the series, with room for one frame of its state. */
int app_read_frame_body(op_ctx *ctx, const char *path, const char *body, int with_mesh, app_frame_state *f)
{
    memset(f, 0, sizeof *f);
    if (op_runfile_read_body(ctx, path, body, &f->graph, with_mesh ? &f->mesh : NULL,
                             with_mesh ? &f->skin : NULL) != OP_OK)
        return ctx->status;
    char object[128];
    snprintf(object, sizeof object, "/parameters/%s", body);
    int rank = 0;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    if (op_runfile_read_attribute_int(ctx, path, object, "particle_offset", &f->offset) != OP_OK ||
        op_runfile_dataset_shape(ctx, path, "/particles/position/value", &rank, dims) != OP_OK)
        return ctx->status;
    int n = f->graph.particle_count;
    if (rank != 3 || dims[2] != 3 || f->offset < 0 || f->offset + n > dims[1])
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: body %s (particles %lld to %lld) does not fit /particles/position/value "
                       "of %lld particles",
                       path, body, (long long)f->offset, (long long)f->offset + n - 1,
                       rank >= 2 ? (long long)dims[1] : 0LL);
    f->total = (long)dims[1];
    f->position = op_calloc(ctx, 3 * (size_t)n, sizeof *f->position);
    f->rotation = op_calloc(ctx, 9 * (size_t)n, sizeof *f->rotation);
    return ctx->status;
}

/* The body's particles at output row `row` (its frame index and time too). */
int app_read_frame_row(op_ctx *ctx, const char *path, long row, app_frame_state *f)
{
    long total = f->total;
    size_t n = (size_t)f->graph.particle_count;
    double *all_x = op_calloc(ctx, 3 * (size_t)total, sizeof *all_x);
    double *all_r = op_calloc(ctx, 9 * (size_t)total, sizeof *all_r);
    int64_t step = 0;
    if (ctx->status == OP_OK &&
        op_runfile_read_rows(ctx, path, "/particles/position/value", row, 1, all_x, 3 * total) == OP_OK &&
        op_runfile_read_rows(ctx, path, "/particles/orientation/value", row, 1, all_r, 9 * total) == OP_OK &&
        op_runfile_read_rows_int64(ctx, path, "/particles/position/step", row, 1, &step, 1) == OP_OK &&
        op_runfile_read_rows(ctx, path, "/particles/position/time", row, 1, &f->time, 1) == OP_OK) {
        memcpy(f->position, &all_x[3 * f->offset], 3 * n * sizeof(double));
        memcpy(f->rotation, &all_r[9 * f->offset], 9 * n * sizeof(double));
        f->frame = step;
    }
    free(all_x);
    free(all_r);
    return ctx->status;
}

int app_read_frame_state(op_ctx *ctx, const char *path, const char *body, const char *frame_text, int with_mesh,
                         app_frame_state *f)
{
    long row = 0;
    memset(f, 0, sizeof *f);
    if (find_frame_row(ctx, path, frame_text, &row) == OP_OK &&
        app_read_frame_body(ctx, path, body, with_mesh, f) == OP_OK)
        app_read_frame_row(ctx, path, row, f);
    return ctx->status;
}

/* The body's visual surface skinned by its particles at the frame read (Eq. 2). */
void app_skin_frame(const app_frame_state *f, double *vertices)
{
    op_state state = { .particle_count = f->graph.particle_count, .position = f->position, .rotation = f->rotation };
    op_skin_apply(&f->skin, &f->graph, &state, f->mesh.vertices, vertices);
}

/* The output rows `frames` names: "all", or a comma-separated list of frame indices and
 * 'last' (each checked by app_valid_frame_list), in the order given. */
int app_select_rows(op_ctx *ctx, const char *path, const char *frames, long **rows, long *count)
{
    int64_t *steps;
    long recorded = 0;
    *rows = NULL;
    *count = 0;
    if (read_steps(ctx, path, &steps, &recorded) != OP_OK)
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
        if (find_frame_row(ctx, path, text, &(*rows)[(*count)++]) != OP_OK || !item[length])
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
