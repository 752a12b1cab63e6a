/* `opsim export RUN.h5 --obj DIR`: the skinned surface of each chosen body at each chosen frame
 * as OBJ files DIR/BODY-FFFFFF.obj (with --substeps at each chosen sub-step,
 * DIR/BODY-substep-SSSSSS.obj), all written into a temporary directory and moved into DIR
 * only when every one is complete (app/export.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <unistd.h>

#include "commands.h"
#include "export.h"
#include "io/atomic.h"
#include "opsim/runfile.h"


/* Moves every file of the complete temporary directory `temp` into `dir`: the whole directory
 * at once when `dir` does not exist yet, else file by file (each rename atomic, each file
 * already whole). */
static int move_directory_files(op_ctx *ctx, const char *temp, const char *dir)
{
    if (rename(temp, dir) == 0)
        return OP_OK;
    if (errno != EEXIST && errno != ENOTEMPTY)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot rename %s onto it: %s", dir, temp, strerror(errno));
    DIR *d = opendir(temp);
    if (!d)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot read %s: %s", dir, temp, strerror(errno));
    struct dirent *entry;
    while (ctx->status == OP_OK && (entry = readdir(d))) {
        char from[4200], to[4200];
        if (entry->d_name[0] == '.')
            continue;
        if ((size_t)snprintf(from, sizeof from, "%s/%s", temp, entry->d_name) >= sizeof from ||
            (size_t)snprintf(to, sizeof to, "%s/%s", dir, entry->d_name) >= sizeof to)
            OP_FAIL(ctx, OP_ERR_USAGE, "%.200s...: --obj directory name too long", dir);
        else if (rename(from, to) != 0)
            OP_FAIL(ctx, OP_ERR_IO, "%s: cannot rename %s onto it: %s", to, from, strerror(errno));
    }
    closedir(d);
    return ctx->status;
}

/* Removes the temporary directory of a failed export and what was written into it. */
static void remove_directory_files(const char *temp)
{
    DIR *d = opendir(temp);
    struct dirent *entry;
    while (d && (entry = readdir(d))) {
        char file[4200];
        if (entry->d_name[0] != '.' && (size_t)snprintf(file, sizeof file, "%s/%s", temp, entry->d_name) < sizeof file)
            unlink(file);
    }
    if (d)
        closedir(d);
    rmdir(temp);
}

/* What one export writes: the bodies and output rows chosen, the temporary directory, and the
 * final path of each file written so far. */
typedef struct obj_export {
    const char *path, *group, *dir;
    const char *infix; /* between the body's name and the index: "" for frames, "substep-" */
    char temp[4200];
    char (*names)[OP_RUNFILE_NAME_SIZE];
    int body_count;
    long *rows, row_count;
    char (*written)[4200];
    long written_count;
} obj_export;

/* Narrows the run's bodies to the one asked for, checked before DIR is made. */
static int keep_only_body(op_ctx *ctx, obj_export *e, const char *only_body)
{
    int found = 0;
    char list[1024] = "";
    for (int b = 0; b < e->body_count; ++b) {
        found |= strcmp(e->names[b], only_body) == 0;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", b ? ", " : "", e->names[b]);
    }
    if (!found)
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: no body %s (its bodies: %s)", e->path, only_body, list);
    snprintf(e->names[0], sizeof e->names[0], "%s", only_body);
    e->body_count = 1;
    return ctx->status;
}

/* The chosen bodies and rows, then DIR.PID.tmp made (a stale one of DIR removed first). */
static int begin_export(op_ctx *ctx, obj_export *e, const char *frames, const char *only_body)
{
    e->names = op_calloc(ctx, OP_RUNFILE_MAX_BODIES, sizeof *e->names);
    if (e->names && app_select_rows(ctx, e->path, e->group, frames, &e->rows, &e->row_count) == OP_OK &&
        op_runfile_body_names(ctx, e->path, e->names, OP_RUNFILE_MAX_BODIES, &e->body_count) == OP_OK && only_body)
        keep_only_body(ctx, e, only_body);
    if (ctx->status == OP_OK &&
        (size_t)snprintf(e->temp, sizeof e->temp, "%s.%ld.tmp", e->dir, (long)getpid()) >= sizeof e->temp)
        OP_FAIL(ctx, OP_ERR_USAGE, "%.200s...: --obj directory name too long", e->dir);
    if (ctx->status == OP_OK) {
        op_temp_remove_stale(e->dir);
        op_temp_track(e->temp);
    }
    if (ctx->status == OP_OK)
        app_make_directory(ctx, e->temp);
    return ctx->status;
}

/* The message without its leading "PATH: " (or whole, when it does not start so). */
static const char *reason_after(const char *message, const char *path)
{
    size_t length = strlen(path);
    return strncmp(message, path, length) == 0 && message[length] == ':' ? message + length + 1 + (message[length + 1] == ' ')
                                                                           : message;
}

/* Body b at every chosen row into the temporary directory; 1 when a held signal stopped it. */
static int write_body_frames(op_ctx *ctx, obj_export *e, int b)
{
    app_frame_state f;
    double *vertices = NULL;
    int interrupted = 0;
    if (app_read_frame_body(ctx, e->path, e->group, e->names[b], 1, &f) == OP_OK)
        vertices = op_calloc(ctx, 3 * (size_t)f.mesh.vertex_count, sizeof *vertices);
    /* the rest mesh's triangles around the skinned vertices */
    op_mesh surface = f.mesh;
    surface.vertices = vertices;
    for (long r = 0; r < e->row_count && ctx->status == OP_OK && !(interrupted = op_temp_signal_pending()); ++r) {
        char file[4200];
        if (app_read_frame_row(ctx, e->path, e->rows[r], &f) != OP_OK)
            break;
        app_skin_frame(&f, vertices);
        if ((size_t)snprintf(file, sizeof file, "%s/%s-%s%06lld.obj", e->temp, e->names[b], e->infix, f.frame) >=
            sizeof file) {
            OP_FAIL(ctx, OP_ERR_USAGE, "%.200s...: --obj directory name too long", e->dir);
            break;
        }
        op_ctx inner;
        op_ctx_init(&inner);
        if (op_mesh_write_obj(&inner, file, &surface) == OP_OK)
            snprintf(e->written[e->written_count++], sizeof *e->written, "%s/%s-%s%06lld.obj", e->dir, e->names[b],
                     e->infix, f.frame);
        else /* named by the run file and the final name: the temporary directory is gone by exit */
            OP_FAIL(ctx, inner.status, "%s: body %s, %s %lld: cannot write %s/%s-%s%06lld.obj: %s", e->path,
                    e->names[b], app_state_word(e->group), f.frame, e->dir, e->names[b], e->infix, f.frame,
                    reason_after(inner.message, file));
    }
    free(vertices);
    app_frame_state_free(&f);
    return interrupted;
}

/* `--obj DIR`: the skinned surface of each chosen body at each chosen frame, one OBJ file each
 * (DIR/BODY-FFFFFF.obj, F the frame index, six digits so names sort). All of them are written
 * into DIR.PID.tmp first and moved into DIR only when every one is complete, so a failure
 * midway (a damaged frame, a full disk) leaves none; the paths are printed once moved. SIGINT,
 * SIGTERM and SIGHUP are held meanwhile and looked for between files: one stops the export, the
 * directory is removed, and then the signal ends the process (core/io/atomic.h). */
int app_export_obj(op_ctx *ctx, const char *path, const char *group, const char *dir, const char *frames,
                   const char *only_body)
{
    obj_export e = { .path = path, .group = group, .dir = dir,
                     .infix = strcmp(group, APP_SUBSTEPS) == 0 ? "substep-" : "" };
    if (begin_export(ctx, &e, frames, only_body) != OP_OK) {
        op_temp_untrack(e.temp);
        free(e.names);
        free(e.rows);
        return ctx->status;
    }
    e.written = op_calloc(ctx, (size_t)(e.body_count * e.row_count) + 1, sizeof *e.written);
    int interrupted = 0;
    op_temp_hold_signals();
    for (int b = 0; b < e.body_count && ctx->status == OP_OK && !interrupted; ++b)
        interrupted = write_body_frames(ctx, &e, b);
    if (ctx->status == OP_OK && !interrupted && move_directory_files(ctx, e.temp, dir) == OP_OK)
        for (long w = 0; w < e.written_count; ++w)
            printf("%s\n", e.written[w]);
    remove_directory_files(e.temp);
    op_temp_untrack(e.temp);
    op_temp_release_signals();
    free(e.written);
    free(e.names);
    free(e.rows);
    return ctx->status;
}
