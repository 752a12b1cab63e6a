/* The parts of `opsim export` (app/cmd_export.c) that read a run's stored states, its output
 * frames (the group /particles) or with `--substeps` every sub-step's (/substeps): choosing
 * them ("last", "all", indices: app/frames.c), reading one body at one of them, and writing
 * the skinned surface as OBJ files (app/export_obj.c). */
#ifndef OPSIM_APP_EXPORT_H
#define OPSIM_APP_EXPORT_H

#include <stdint.h>

#include "geometry/skin.h"
#include "opsim/graph.h"
#include "opsim/mesh.h"

/* The groups of stored states: the output frames, and every sub-step's (`[run] output = substeps`) */
#define APP_FRAMES "/particles"
#define APP_SUBSTEPS "/substeps"

/* One body at one stored state of a run (an output frame or a sub-step, as `group` says): its
 * rest graph (and mesh and skin when asked for), its place in the shared particle series, and
 * its particles' centres and rotations in that state. */
typedef struct app_frame_state {
    const char *group; /* APP_FRAMES or APP_SUBSTEPS */
    op_graph graph;
    op_mesh mesh;
    op_skin skin;
    int64_t offset;   /* the body's first particle in /particles/.../value */
    long total;       /* particles of every body */
    double *position; /* [n][3] */
    double *rotation; /* [n][9] */
    long long frame;  /* the frame index, or the sub-step index for APP_SUBSTEPS */
    double time;
} app_frame_state;

void app_frame_state_free(app_frame_state *f);

/* "frame" for APP_FRAMES, "sub-step" for APP_SUBSTEPS: how messages and comments name a state. */
const char *app_state_word(const char *group);

/* A frame is a non-negative whole number or "last"; a frame list (--frames) is "all", or frames
 * separated by commas. 1 when `text` is one, else 0. */
int app_valid_frame_text(const char *text);
int app_valid_frame_list(const char *text);

/* The rows of `group` a checked frame list names, in the order given, into a new array. A
 * frame the run did not record fails naming the frames it has; APP_SUBSTEPS of a run that
 * stored none fails saying how to store them. */
int app_select_rows(op_ctx *ctx, const char *path, const char *group, const char *frames, long **rows, long *count);

/* The body's rest data and place in `group`'s series, with room for one state; then the body's
 * particles at row `row` of that group (its frame or sub-step index and time too). */
int app_read_frame_body(op_ctx *ctx, const char *path, const char *group, const char *body, int with_mesh,
                        app_frame_state *f);
int app_read_frame_row(op_ctx *ctx, const char *path, long row, app_frame_state *f);
/* Both, at the frame (or sub-step) `frame_text`: an index or "last". */
int app_read_frame_state(op_ctx *ctx, const char *path, const char *group, const char *body, const char *frame_text,
                         int with_mesh, app_frame_state *f);

/* The body's visual surface skinned by its particles at the frame read (Eq. 2). */
void app_skin_frame(const app_frame_state *f, double *vertices);

/* `--obj DIR`: the skinned surface of each body (or only `only_body`) at each frame of the
 * checked list `frames`, one OBJ file each, DIR/BODY-FFFFFF.obj (APP_SUBSTEPS: at each listed
 * sub-step, DIR/BODY-substep-SSSSSS.obj); prints each path written. */
int app_export_obj(op_ctx *ctx, const char *path, const char *group, const char *dir, const char *frames,
                   const char *only_body);

#endif
