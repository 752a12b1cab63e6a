/* Tests for what `opsim export` and `opsim run` hand to other tools: OBJ files of the skinned
 * surface (read back by core/geometry/mesh.c, equal bit for bit to skinning the stored state, and to the
 * stored /surface rows; with --substeps, one per stored sub-step), the time series as
 * tab-separated text, the errors and signals that leave no file, and the progress line that
 * only a terminal gets. */
#include <dirent.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "opsim/mesh.h"
#include "opsim/runfile.h"
#include "geometry/skin.h"
#include "test_util.h"

/* fig2's three bars, 4 frames, output frames 0, 2, 4 */
static const char *small_run(void)
{
    static char run[600];
    snprintf(run, sizeof run, "%s", test_tmp_path("-run.h5"));
    assert_int_equal(test_shell("bin/opsim run experiments/fig2.ini --set run.frames=4 --set run.output_every=2 "
                                "--out '%s' 2>/dev/null",
                                run),
                     0);
    return run;
}

static int files_in(const char *dir)
{
    DIR *listing = opendir(dir);
    if (!listing)
        return -1;
    int count = 0;
    for (struct dirent *entry; (entry = readdir(listing));)
        count += entry->d_name[0] != '.';
    closedir(listing);
    return count;
}

/* Lines of a command's standard output. */
static int output_lines(const char *command)
{
    FILE *pipe = popen(command, "r");
    assert_non_null(pipe);
    int lines = 0, c;
    while ((c = fgetc(pipe)) != EOF)
        lines += c == '\n';
    assert_int_equal(pclose(pipe), 0);
    return lines;
}

/* The body's rest mesh into *mesh, and its particles at row `row` of `group` (/particles, or
 * /substeps) skinned with the stored skin (a new array): what the OBJ must hold. For the frames,
 * also checks that /surface/position/value holds the same vertices at the body's vertex_offset. */
static double *expected_state_surface(const char *run, const char *group, const char *body, long row, op_mesh *mesh)
{
    char position[64], orientation[64];
    snprintf(position, sizeof position, "%s/position/value", group);
    snprintf(orientation, sizeof orientation, "%s/orientation/value", group);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_graph graph = { 0 };
    op_skin skin = { 0 };
    if (op_runfile_read_body(&ctx, run, body, &graph, mesh, &skin) != OP_OK)
        fail_msg("%s", ctx.message);
    char object[128];
    snprintf(object, sizeof object, "/parameters/%s", body);
    int64_t offset = 0, vertex_offset = 0, dims[OP_RUNFILE_MAX_RANK];
    int rank = 0;
    assert_int_equal(op_runfile_read_attribute_int(&ctx, run, object, "particle_offset", &offset), OP_OK);
    assert_int_equal(op_runfile_read_attribute_int(&ctx, run, object, "vertex_offset", &vertex_offset), OP_OK);
    assert_int_equal(op_runfile_dataset_shape(&ctx, run, position, &rank, dims), OP_OK);
    long total = (long)dims[1];
    double *x = calloc(3 * (size_t)total, sizeof *x), *R = calloc(9 * (size_t)total, sizeof *R);
    assert_int_equal(op_runfile_read_rows(&ctx, run, position, row, 1, x, 3 * total), OP_OK);
    assert_int_equal(op_runfile_read_rows(&ctx, run, orientation, row, 1, R, 9 * total), OP_OK);
    op_state state = { .particle_count = graph.particle_count, .position = &x[3 * offset], .rotation = &R[9 * offset] };
    double *vertices = calloc(3 * (size_t)mesh->vertex_count, sizeof *vertices);
    assert_non_null(vertices);
    op_skin_apply(&skin, &graph, &state, mesh->vertices, vertices);
    free(x);
    free(R);
    op_graph_free(&graph);
    op_skin_free(&skin);
    if (strcmp(group, "/particles") != 0)
        return vertices;

    assert_int_equal(op_runfile_dataset_shape(&ctx, run, "/surface/position/value", &rank, dims), OP_OK);
    long stored_count = 3 * (long)dims[1];
    double *stored = calloc((size_t)stored_count, sizeof *stored);
    assert_int_equal(op_runfile_read_rows(&ctx, run, "/surface/position/value", row, 1, stored, stored_count), OP_OK);
    assert_memory_equal(&stored[3 * vertex_offset], vertices, 3 * (size_t)mesh->vertex_count * sizeof(double));
    free(stored);
    return vertices;
}

static double *expected_surface(const char *run, const char *body, long row, op_mesh *mesh)
{
    return expected_state_surface(run, "/particles", body, row, mesh);
}

static void test_obj_equals_the_skinned_state(void **state)
{
    (void)state;
    const char *run = small_run();
    char dir[600];
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-obj"));
    char command[1400];
    snprintf(command, sizeof command, "bin/opsim export '%s' --obj '%s' --frames 0,last --body bar_2k", run, dir);
    assert_int_equal(output_lines(command), 2);
    assert_int_equal(files_in(dir), 2);
    const struct { long row; const char *name; } frames[] = { { 0, "bar_2k-000000.obj" }, { 2, "bar_2k-000004.obj" } };
    for (int f = 0; f < 2; ++f) {
        char path[700];
        snprintf(path, sizeof path, "%s/%s", dir, frames[f].name);
        op_ctx ctx;
        op_ctx_init(&ctx);
        op_mesh back = { 0 }, rest = { 0 };
        if (op_mesh_read(&ctx, path, &back) != OP_OK)
            fail_msg("%s", ctx.message);
        /* the rest mesh fixes the counts; its skinning by the stored state fixes the vertices */
        double *vertices = expected_surface(run, "bar_2k", frames[f].row, &rest);
        assert_int_equal(back.vertex_count, rest.vertex_count);
        assert_int_equal(back.face_count, rest.face_count);
        assert_memory_equal(back.faces, rest.faces, 3 * (size_t)rest.face_count * sizeof(int));
        assert_memory_equal(back.vertices, vertices, 3 * (size_t)rest.vertex_count * sizeof(double));
        if (f == 1) /* the bar has sagged: the surface is not the rest surface */
            assert_true(memcmp(back.vertices, rest.vertices, 3 * (size_t)rest.vertex_count * sizeof(double)) != 0);
        free(vertices);
        op_mesh_free(&back);
        op_mesh_free(&rest);
    }
}

static void test_obj_every_body_and_frame(void **state)
{
    (void)state;
    const char *run = small_run();
    char dir[600], command[1400];
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-obj"));
    snprintf(command, sizeof command, "bin/opsim export '%s' --obj '%s'", run, dir);
    assert_int_equal(output_lines(command), 3 * 3);
    assert_int_equal(files_in(dir), 3 * 3);
    snprintf(command, sizeof command, "%s/bar_4k-000002.obj", dir);
    assert_int_equal(access(command, R_OK), 0);
}

/* fig2's bars at 3 sub-steps a frame with every sub-step stored (13 states, frames 0, 2, 4):
 * --obj --substeps writes one file per body and sub-step, BODY-substep-SSSSSS.obj, whose
 * vertices are bit for bit the skinning of that sub-step's stored state; --frames picks
 * sub-steps; --skinned --substeps says which sub-step it prints. A run without sub-steps, or
 * --substeps with a form that reads no state, is refused and writes nothing. */
static void test_obj_of_every_substep(void **state)
{
    (void)state;
    static char run[600];
    snprintf(run, sizeof run, "%s", test_tmp_path("-substeps.h5"));
    assert_int_equal(test_shell("bin/opsim run experiments/fig2.ini --set run.frames=4 --set run.output_every=2 "
                                "--set world.substeps=3 --set run.output=substeps --out '%s' 2>/dev/null",
                                run),
                     0);
    char dir[600], command[1400];
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-obj"));
    snprintf(command, sizeof command, "bin/opsim export '%s' --obj '%s' --substeps --body bar_2k", run, dir);
    assert_int_equal(output_lines(command), 13);
    assert_int_equal(files_in(dir), 13);
    int moved = 0;
    double *previous = NULL;
    for (long s = 0; s < 13; ++s) {
        char path[700];
        snprintf(path, sizeof path, "%s/bar_2k-substep-%06ld.obj", dir, s);
        op_ctx ctx;
        op_ctx_init(&ctx);
        op_mesh back = { 0 }, rest = { 0 };
        if (op_mesh_read(&ctx, path, &back) != OP_OK)
            fail_msg("%s", ctx.message);
        double *vertices = expected_state_surface(run, "/substeps", "bar_2k", s, &rest);
        assert_int_equal(back.vertex_count, rest.vertex_count);
        assert_int_equal(back.face_count, rest.face_count);
        assert_memory_equal(back.faces, rest.faces, 3 * (size_t)rest.face_count * sizeof(int));
        assert_memory_equal(back.vertices, vertices, 3 * (size_t)rest.vertex_count * sizeof(double));
        moved += previous && memcmp(back.vertices, previous, 3 * (size_t)rest.vertex_count * sizeof(double)) != 0;
        if (s % 6 == 0) { /* sub-step 6k is output frame 2k, its /surface row k */
            op_mesh frame_rest = { 0 };
            double *frame = expected_surface(run, "bar_2k", s / 6, &frame_rest);
            assert_memory_equal(back.vertices, frame, 3 * (size_t)rest.vertex_count * sizeof(double));
            free(frame);
            op_mesh_free(&frame_rest);
        }
        free(previous);
        previous = vertices;
        op_mesh_free(&back);
        op_mesh_free(&rest);
    }
    free(previous);
    assert_int_equal(moved, 12); /* the bar moves every sub-step: no two files alike */

    snprintf(dir, sizeof dir, "%s", test_tmp_path("-obj"));
    snprintf(command, sizeof command, "bin/opsim export '%s' --substeps --obj '%s' --frames 1,5,last", run, dir);
    assert_int_equal(output_lines(command), 3 * 3);
    snprintf(command, sizeof command, "%s/bar_4k-substep-000005.obj", dir);
    assert_int_equal(access(command, R_OK), 0);
    snprintf(command, sizeof command, "bin/opsim export '%s' --skinned bar_k --frame 7 --substeps | head -1", run);
    FILE *pipe = popen(command, "r");
    char line[200] = "";
    assert_non_null(pipe);
    assert_non_null(fgets(line, sizeof line, pipe));
    pclose(pipe);
    assert_non_null(strstr(line, "# bar_k sub-step 7 time 0.0777777"));

    /* the frames' run stored no sub-steps: refused (65), naming the option that stores them */
    const char *frames_only = small_run();
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-obj"));
    assert_int_equal(test_shell("bin/opsim export '%s' --obj '%s' --substeps > /dev/null 2>&1", frames_only, dir), 65);
    assert_int_equal(files_in(dir), -1);
    char errors[600];
    snprintf(errors, sizeof errors, "%s", test_tmp_path("-errors.txt"));
    assert_int_equal(test_shell("bin/opsim export '%s' --particles bar_k --frame 0 --substeps 2> '%s'", frames_only,
                                errors),
                     65);
    char *message = test_read_file(errors);
    assert_non_null(message);
    assert_non_null(strstr(message, "run.output=substeps"));
    free(message);
    assert_int_equal(test_shell("bin/opsim export '%s' --substeps /particles/index > /dev/null 2>&1", run), 64);
    assert_int_equal(test_shell("bin/opsim export '%s' --obj '%s' --substeps --frames 13 > /dev/null 2>&1", run, dir),
                     65);
    assert_int_equal(files_in(dir), -1);
}

/* Usage errors (64) and frames or bodies the run lacks (65) write nothing, not even DIR. */
static void test_obj_errors_write_nothing(void **state)
{
    (void)state;
    const char *run = small_run();
    char dir[600];
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-obj"));
    struct {
        const char *options;
        int status;
    } bad[] = {
        { "--obj '%s' --frames 3", 65 },          /* frame 3 was not recorded */
        { "--obj '%s' --frames 0,,2", 64 },       /* an empty item */
        { "--obj '%s' --frames first", 64 },
        { "--obj '%s' --body bar_k --body bar_2k", 64 },
        { "--obj '%s' --body nobody", 65 },
        { "--frames 0 --body bar_k", 64 },        /* no --obj */
    };
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; ++c) {
        char options[800];
        snprintf(options, sizeof options, bad[c].options, dir);
        int status = test_shell("bin/opsim export '%s' %s > /dev/null 2>&1", run, options);
        if (status != bad[c].status)
            fail_msg("opsim export %s: exit %d, expected %d", options, status, bad[c].status);
        assert_int_equal(files_in(dir), -1); /* not even DIR */
    }
}

/* Energies and timings need no option of their own: a DATASET is one line per row. */
static void test_series_as_text(void **state)
{
    (void)state;
    const char *run = small_run();
    char command[800];
    snprintf(command, sizeof command, "bin/opsim export '%s' /timing/total", run);
    assert_int_equal(output_lines(command), 4); /* one per frame */
    snprintf(command, sizeof command, "bin/opsim export '%s' /observables/tip_k/time", run);
    assert_int_equal(output_lines(command), 5); /* frame 0 too */
    snprintf(command, sizeof command, "bin/opsim export '%s' /solver/energy/total | awk -F'\\t' '{ print NF }' | sort -u",
             run);
    FILE *pipe = popen(command, "r");
    assert_non_null(pipe);
    int columns = 0;
    assert_int_equal(fscanf(pipe, "%d", &columns), 1);
    assert_int_equal(pclose(pipe), 0);
    assert_int_equal(columns, 11); /* E before and after each of 10 iterations */
}

/* stderr redirected to a file: no progress text; on a terminal (script(1) gives one): a line
 * per frame. */
static void test_progress_only_on_a_terminal(void **state)
{
    (void)state;
    char run[600], log[600];
    snprintf(run, sizeof run, "%s", test_tmp_path("-run.h5"));
    snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
    assert_int_equal(test_shell("bin/opsim run experiments/fig2.ini --set run.frames=3 --out '%s' 2> '%s'", run, log), 0);
    struct stat st;
    assert_int_equal(stat(log, &st), 0);
    assert_int_equal(st.st_size, 0);
    if (test_shell("command -v script > /dev/null") != 0)
        skip();
    assert_int_equal(test_shell("script -qec \"bin/opsim run experiments/fig2.ini --set run.frames=3 --out '%s'\" "
                                "/dev/null > '%s'",
                                run, log),
                     0);
    char *text = test_read_file(log);
    assert_non_null(text);
    assert_non_null(strstr(text, "frame 3/3"));
    free(text);
}

/* Files matching a glob pattern. */
static size_t matches(const char *pattern)
{
    glob_t found;
    size_t count = glob(pattern, 0, NULL, &found) == 0 ? found.gl_pathc : 0;
    globfree(&found);
    return count;
}

/* SIGINT, SIGTERM or SIGHUP to `opsim export --obj` while it writes: it dies of the signal and
 * leaves neither DIR nor DIR.PID.tmp with the files already written (issue 23: the signal once
 * removed only the file in flight, and `kill` reached the parent alone while the child reading
 * the run file went on to finish the export). */
static void test_obj_signal_leaves_nothing(void **state)
{
    (void)state;
    char run[600];
    snprintf(run, sizeof run, "%s", test_tmp_path("-bunny.h5"));
    assert_int_equal(test_shell("printf '[run]\\nframes = 200\\n[world]\\ngravity = 0 0 0\\n[solver]\\nname = arap\\n"
                                "[body b]\\nmodel = bunny30\\nstiffness = 1e6\\n' > '%s.ini' && bin/opsim run '%s.ini' "
                                "--out '%s' 2>/dev/null",
                                run, run, run),
                     0);
    static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
    for (size_t s = 0; s < 3; ++s) {
        char dir[600], pattern[700];
        snprintf(dir, sizeof dir, "%s", test_tmp_path("-objs"));
        snprintf(pattern, sizeof pattern, "%s.*.tmp/*.obj", dir);
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
            freopen("/dev/null", "w", stdout);
            execl("bin/opsim", "opsim", "export", run, "--obj", dir, (char *)NULL);
            _exit(127);
        }
        for (int tries = 0; matches(pattern) < 2; ++tries) {
            if (tries > 3000)
                fail_msg("%s never held two files", pattern);
            struct timespec pause = { 0, 10000000 };
            nanosleep(&pause, NULL);
        }
        kill(child, signals[s]);
        int status = 0;
        assert_int_equal(waitpid(child, &status, 0), child);
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), signals[s]);
        snprintf(pattern, sizeof pattern, "%s*", dir);
        if (matches(pattern) != 0)
            fail_msg("signal %d left %s", signals[s], pattern);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_obj_equals_the_skinned_state),
        cmocka_unit_test(test_obj_every_body_and_frame),
        cmocka_unit_test(test_obj_errors_write_nothing),
        cmocka_unit_test(test_obj_of_every_substep),
        cmocka_unit_test(test_obj_signal_leaves_nothing),
        cmocka_unit_test(test_series_as_text),
        cmocka_unit_test(test_progress_only_on_a_terminal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
