/* Run files follow H5MD 1.1 (docs/h5md.md): /h5md says version [1, 1], author and creator; each
 * body's particle group has its box, and position, orientation and velocity whose step, time
 * and value agree with one another and, row for row and bit for bit, with the /states series
 * they view; velocity is the solver's (x_n+1 - x_n)/h over the last sub-step where nothing
 * touched the state after the iterations; mass and species are the body's; /connectivity holds
 * the graph's edges and points at the particle group. With every sub-step stored, /substeps is a
 * second such structure whose velocities are (x_s - x_s-1)/h of its positions in free fall. And
 * the run file written before H5MD (tests/fixtures/run-before-h5md.h5, a fig2 run of 3 frames by
 * f472d58) still reads through every reader, with the same bits as the same command run now. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "opsim/runfile.h"
#include "test_util.h"

static const char *const FIXTURE = "tests/fixtures/run-before-h5md.h5";

/* Each raw read opens and closes the file itself: the library's readers close run files with
 * the strong degree, which would close the objects of a handle the test kept open. */
static hid_t open_run(const char *run)
{
    hid_t access = H5Pcreate(H5P_FILE_ACCESS);
    assert_true(H5Pset_fclose_degree(access, H5F_CLOSE_STRONG) >= 0);
    hid_t file = H5Fopen(run, H5F_ACC_RDONLY, access);
    H5Pclose(access);
    assert_true(file >= 0);
    return file;
}

static void read_ints(const char *run, const char *name, int64_t *out)
{
    hid_t file = open_run(run);
    hid_t set = H5Dopen2(file, name, H5P_DEFAULT);
    if (set < 0)
        fail_msg("no dataset %s", name);
    assert_true(H5Dread(set, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0);
    H5Dclose(set);
    H5Fclose(file);
}

static void read_doubles(const char *run, const char *name, double *out)
{
    hid_t file = open_run(run);
    hid_t set = H5Dopen2(file, name, H5P_DEFAULT);
    if (set < 0)
        fail_msg("no dataset %s", name);
    assert_true(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0);
    H5Dclose(set);
    H5Fclose(file);
}

/* The dataset's extents; its rank returned. */
static int extents(const char *run, const char *name, hsize_t *dims)
{
    hid_t file = open_run(run);
    hid_t set = H5Dopen2(file, name, H5P_DEFAULT);
    if (set < 0)
        fail_msg("no dataset %s", name);
    hid_t space = H5Dget_space(set);
    int rank = H5Sget_simple_extent_dims(space, dims, NULL);
    H5Sclose(space);
    H5Dclose(set);
    H5Fclose(file);
    return rank;
}

/* The object's address: two names of one object (hard links) have the same. */
static haddr_t address(const char *run, const char *name)
{
    hid_t file = open_run(run);
    H5O_info_t info;
    if (H5Oget_info_by_name(file, name, &info, H5P_DEFAULT) < 0)
        fail_msg("no object %s", name);
    H5Fclose(file);
    return info.addr;
}

static void assert_string_attribute(const char *run, const char *object, const char *name, int index, const char *expected)
{
    hid_t file = open_run(run);
    hid_t attribute = H5Aopen_by_name(file, object, name, H5P_DEFAULT, H5P_DEFAULT);
    if (attribute < 0)
        fail_msg("%s has no attribute %s", object, name);
    hid_t type = H5Aget_type(attribute), space = H5Aget_space(attribute);
    size_t size = H5Tget_size(type);
    hssize_t count = H5Sget_simple_extent_npoints(space);
    char *text = calloc((size_t)count * size + 1, 1);
    assert_true(H5Aread(attribute, type, text) >= 0);
    char value[256];
    snprintf(value, sizeof value, "%.*s", (int)size, text + (size_t)index * size);
    if (expected)
        assert_string_equal(value, expected);
    else
        assert_true(value[0] != '\0');
    free(text);
    H5Sclose(space);
    H5Tclose(type);
    H5Aclose(attribute);
    H5Fclose(file);
}

/* An H5MD structure of a run file: its root ("" the file's) and the series its views show. */
typedef struct layout {
    const char *root;
    const char *series;
} layout;
static const layout FRAMES = { "", "/states" }, SUBSTEPS = { "/substeps", "/substeps" };

static void check_metadata(const char *run, const char *root)
{
    char h5md[64], author[64], creator[64], units[64];
    snprintf(h5md, sizeof h5md, "%s/h5md", root);
    snprintf(author, sizeof author, "%s/h5md/author", root);
    snprintf(creator, sizeof creator, "%s/h5md/creator", root);
    snprintf(units, sizeof units, "%s/h5md/modules/units", root);
    hid_t file = open_run(run);
    int version[2] = { 0, 0 };
    hid_t attribute = H5Aopen_by_name(file, h5md, "version", H5P_DEFAULT, H5P_DEFAULT);
    assert_true(attribute >= 0);
    assert_true(H5Aread(attribute, H5T_NATIVE_INT, version) >= 0);
    H5Aclose(attribute);
    H5Fclose(file);
    assert_int_equal(version[0], 1);
    assert_int_equal(version[1], 1);
    assert_string_attribute(run, author, "name", 0, NULL);
    assert_string_attribute(run, creator, "name", 0, "opsim");
    assert_string_attribute(run, creator, "version", 0, NULL);
    assert_string_attribute(run, units, "system", 0, "SI");
}

/* Body `name`'s box, elements, mass, species and connectivity in the structure `at`; `offset`:
 * its first particle in the series' rows. Returns its particle count. */
static long check_body(const char *run, layout at, const char *name, long offset, long frames, long total)
{
    char path[256], other[256];
    snprintf(path, sizeof path, "%s/particles/%s/box", at.root, name);
    hid_t file = open_run(run);
    hid_t box = H5Gopen2(file, path, H5P_DEFAULT);
    assert_true(box >= 0);
    int dimension = 0;
    hid_t attribute = H5Aopen(box, "dimension", H5P_DEFAULT);
    assert_true(H5Aread(attribute, H5T_NATIVE_INT, &dimension) >= 0);
    H5Aclose(attribute);
    H5Gclose(box);
    H5Fclose(file);
    assert_int_equal(dimension, 3);
    for (int d = 0; d < 3; ++d)
        assert_string_attribute(run, path, "boundary", d, "none");

    hsize_t dims[4];
    snprintf(path, sizeof path, "%s/particles/%s/position/value", at.root, name);
    assert_int_equal(extents(run, path, dims), 3);
    long n = (long)dims[1];
    assert_int_equal(dims[0], frames);
    assert_int_equal(dims[2], 3);
    static const char *const elements[3] = { "position", "orientation", "velocity" };
    static const int widths[3] = { 3, 9, 3 };
    double *view = calloc((size_t)(frames * n * 9), sizeof *view);
    double *rows = calloc((size_t)(frames * total * 9), sizeof *rows);
    for (int e = 0; e < 3; ++e) {
        /* step and time: the series' own, shared by hard links */
        static const char *const shared[2] = { "step", "time" };
        for (int k = 0; k < 2; ++k) {
            snprintf(path, sizeof path, "%s/particles/%s/%s/%s", at.root, name, elements[e], shared[k]);
            snprintf(other, sizeof other, "%s/position/%s", at.series, shared[k]);
            if (e != 1)
                assert_true(address(run, path) == address(run, other));
            assert_int_equal(extents(run, path, dims), 1);
            assert_int_equal(dims[0], frames);
        }
        /* the value: the body's rows of the series, bit for bit */
        snprintf(path, sizeof path, "%s/particles/%s/%s/value", at.root, name, elements[e]);
        read_doubles(run, path, view);
        snprintf(other, sizeof other, "%s/%s/value", at.series, elements[e]);
        op_ctx ctx;
        op_ctx_init(&ctx);
        assert_int_equal(op_runfile_read_rows(&ctx, run, other, 0, frames, rows, frames * total * 9), OP_OK);
        for (long t = 0; t < frames; ++t)
            assert_memory_equal(&view[t * n * widths[e]], &rows[(t * total + offset) * widths[e]],
                                (size_t)(n * widths[e]) * sizeof(double));
    }
    free(view);
    free(rows);

    snprintf(path, sizeof path, "%s/particles/%s/mass", at.root, name);
    snprintf(other, sizeof other, "/graph/%s/mass", name);
    assert_true(address(run, path) == address(run, other));
    int64_t *species = calloc((size_t)n, sizeof *species);
    snprintf(path, sizeof path, "%s/particles/%s/species", at.root, name);
    read_ints(run, path, species);
    for (long i = 1; i < n; ++i)
        assert_int_equal(species[i], species[0]);
    free(species);

    /* the edges: the graph's, pointing at the particle group */
    snprintf(path, sizeof path, "%s/connectivity/%s", at.root, name);
    snprintf(other, sizeof other, "/graph/%s/edges", name);
    hsize_t edge_dims[2], graph_dims[2];
    assert_int_equal(extents(run, path, edge_dims), 2);
    assert_int_equal(extents(run, other, graph_dims), 2);
    assert_int_equal(edge_dims[0], graph_dims[0]);
    assert_int_equal(edge_dims[1], 2);
    assert_true(edge_dims[0] > 0);
    int64_t *edges = calloc(2 * edge_dims[0], sizeof *edges), *graph_edges = calloc(2 * edge_dims[0], sizeof *edges);
    read_ints(run, path, edges);
    read_ints(run, other, graph_edges);
    assert_memory_equal(edges, graph_edges, 2 * edge_dims[0] * sizeof *edges);
    for (hsize_t k = 0; k < edge_dims[0]; ++k)
        assert_true(edges[2 * k] >= 0 && edges[2 * k] < edges[2 * k + 1] && edges[2 * k + 1] < n);
    free(edges);
    free(graph_edges);
    hobj_ref_t reference;
    file = open_run(run);
    attribute = H5Aopen_by_name(file, path, "particles_group", H5P_DEFAULT, H5P_DEFAULT);
    assert_true(attribute >= 0);
    assert_true(H5Aread(attribute, H5T_STD_REF_OBJ, &reference) >= 0);
    H5Aclose(attribute);
    hid_t group = H5Rdereference2(file, H5P_DEFAULT, H5R_OBJECT, &reference);
    assert_true(group >= 0);
    char target[256];
    H5Iget_name(group, target, sizeof target);
    H5Oclose(group);
    H5Fclose(file);
    snprintf(path, sizeof path, "%s/particles/%s", at.root, name);
    assert_string_equal(target, path);
    return n;
}

/* Every body of `run` as H5MD wants it in the structure `at`, whose step s is at s times
 * `step_time` seconds; the particles over all bodies returned. */
static long check_structure(const char *run, layout at, double step_time)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    char names[16][OP_RUNFILE_NAME_SIZE];
    int count;
    assert_int_equal(op_runfile_body_names(&ctx, run, names, 16, &count), OP_OK);
    int rank;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    char series[64];
    snprintf(series, sizeof series, "%s/position/value", at.series);
    assert_int_equal(op_runfile_dataset_shape(&ctx, run, series, &rank, dims), OP_OK);
    long frames = (long)dims[0], total = (long)dims[1];
    check_metadata(run, at.root);
    /* time follows step: step s at s step times */
    double *time = calloc((size_t)frames, sizeof *time);
    int64_t *step = calloc((size_t)frames, sizeof *step);
    snprintf(series, sizeof series, "%s/position/step", at.series);
    read_ints(run, series, step);
    snprintf(series, sizeof series, "%s/position/time", at.series);
    read_doubles(run, series, time);
    for (long t = 0; t < frames; ++t) {
        assert_true(t == 0 || step[t] > step[t - 1]);
        assert_true(fabs(time[t] - (double)step[t] * step_time) <= 1e-12 * (1.0 + time[t]));
    }
    free(time);
    free(step);
    long offset = 0;
    for (int b = 0; b < count; ++b) {
        int64_t stored_offset;
        char parameters[128];
        snprintf(parameters, sizeof parameters, "/parameters/%s", names[b]);
        assert_int_equal(op_runfile_read_attribute_int(&ctx, run, parameters, "particle_offset", &stored_offset), OP_OK);
        assert_int_equal(stored_offset, offset);
        offset += check_body(run, at, names[b], offset, frames, total);
    }
    assert_int_equal(offset, total);
    return total;
}

/* The frames' structure at the file's root. */
static long check_run(const char *run)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    double frame_time;
    assert_int_equal(op_runfile_read_attribute_double(&ctx, run, "/parameters", "frame_time", &frame_time), OP_OK);
    return check_structure(run, FRAMES, frame_time);
}

/* The sub-steps' H5MD structure of a run of `frames` frames and `n` particles, and their
 * velocities read back from the file: after every sub-step of a frame the floor did not touch,
 * v equals (x_s - x_s-1)/h of the stored positions to round-off; and the frames' velocities are
 * the rows of their last sub-steps, bit for bit. */
static void check_substeps(const char *run, long n, long frames)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    double frame_time;
    int64_t substeps, contacts[64];
    assert_true(frames <= 64);
    assert_int_equal(op_runfile_read_attribute_double(&ctx, run, "/parameters", "frame_time", &frame_time), OP_OK);
    assert_int_equal(op_runfile_read_attribute_int(&ctx, run, "/parameters", "substeps", &substeps), OP_OK);
    assert_int_equal(op_runfile_read_rows_int64(&ctx, run, "/collision/floor_contacts", 0, frames, contacts, frames),
                     OP_OK);
    double h = frame_time / (double)substeps;
    assert_int_equal(check_structure(run, SUBSTEPS, h), n);
    long rows = frames * substeps + 1;
    hsize_t dims[3];
    assert_int_equal(extents(run, "/substeps/velocity/value", dims), 3);
    assert_int_equal(dims[0], rows);
    assert_int_equal(dims[1], n);
    double *x = calloc((size_t)(rows * n * 3), sizeof *x), *v = calloc((size_t)(rows * n * 3), sizeof *v);
    double *frame_v = calloc((size_t)(n * 3), sizeof *frame_v);
    read_doubles(run, "/substeps/position/value", x);
    read_doubles(run, "/substeps/velocity/value", v);
    double worst = 0.0, fastest = 0.0;
    long checked = 0;
    for (long f = 1; f <= frames; ++f) {
        assert_int_equal(op_runfile_read_rows(&ctx, run, "/states/velocity/value", f, 1, frame_v, n * 3), OP_OK);
        assert_memory_equal(frame_v, &v[f * substeps * n * 3], (size_t)(n * 3) * sizeof(double));
        if (contacts[f - 1] != 0)
            continue;
        for (long s = (f - 1) * substeps + 1; s <= f * substeps; ++s, ++checked)
            for (long k = 0; k < n * 3; ++k) {
                double expected = (x[s * n * 3 + k] - x[(s - 1) * n * 3 + k]) / h;
                worst = fmax(worst, fabs(v[s * n * 3 + k] - expected) / (1.0 + fabs(expected)));
                fastest = fmax(fastest, fabs(expected));
            }
    }
    print_message("substeps: %ld sub-steps in free fall (up to %.3f m/s); largest |v - (x_s - x_s-1)/h| / (1 + |v|) "
                  "= %.3g\n",
                  checked, fastest, worst);
    assert_true(checked >= 5 * substeps);
    assert_true(fastest > 1.0); /* the dinosaur has gathered speed: a zero velocity would not pass */
    assert_true(worst <= 1e-13); /* round-off: an ulp of a 1 m position over h = 1/90 s is 2e-14 m/s */
    free(x);
    free(v);
    free(frame_v);
}

/* Fig. 5's dinosaur, every sub-step stored: the frames' velocities against the positions of the
 * frame's last two sub-steps, where the floor touched nothing in the frame. */
static void test_fig5_run_is_h5md(void **state)
{
    (void)state;
    const char *run = test_tmp_path("-fig5.h5");
    assert_int_equal(test_shell("bin/opsim run experiments/fig5.ini --set run.frames=30 --set run.output_every=1 "
                                "--set run.output=substeps --no-surface --out '%s' > /dev/null 2>&1",
                                run),
                     0);
    long n = check_run(run);
    assert_int_equal(n, 100);
    op_ctx ctx;
    op_ctx_init(&ctx);
    double frame_time;
    int64_t substeps, contacts[30];
    assert_int_equal(op_runfile_read_attribute_double(&ctx, run, "/parameters", "frame_time", &frame_time), OP_OK);
    assert_int_equal(op_runfile_read_attribute_int(&ctx, run, "/parameters", "substeps", &substeps), OP_OK);
    assert_int_equal(op_runfile_read_rows_int64(&ctx, run, "/collision/floor_contacts", 0, 30, contacts, 30), OP_OK);
    double h = frame_time / (double)substeps, before[300], after[300], velocity[300], worst = 0.0;
    int free_frames = 0, touching = 0;
    for (long f = 1; f <= 30; ++f) {
        if (contacts[f - 1] != 0) {
            touching++;
            continue;
        }
        long last = f * substeps;
        assert_int_equal(op_runfile_read_rows(&ctx, run, "/substeps/position/value", last - 1, 1, before, 300), OP_OK);
        assert_int_equal(op_runfile_read_rows(&ctx, run, "/substeps/position/value", last, 1, after, 300), OP_OK);
        assert_int_equal(op_runfile_read_rows(&ctx, run, "/particles/dino/velocity/value", f, 1, velocity, 300), OP_OK);
        for (int k = 0; k < 300; ++k) {
            double expected = (after[k] - before[k]) / h;
            worst = fmax(worst, fabs(velocity[k] - expected) / (1.0 + fabs(expected)));
        }
        free_frames++;
    }
    print_message("fig5: %d frames in free fall, %d touching the floor; largest |v - dx/h| / (1 + |v|) = %.3g\n",
                  free_frames, touching, worst);
    assert_true(free_frames >= 5);
    assert_true(touching >= 1); /* the dinosaur lands within the run: the check covers only what it should */
    assert_true(worst <= 1e-12);
    check_substeps(run, n, 30);
    remove(run);
}

/* Three bars of one model: three particle groups over one graph, species shared. */
static void test_instances_have_their_own_groups(void **state)
{
    (void)state;
    const char *run = test_tmp_path("-fig2.h5");
    assert_int_equal(test_shell("bin/opsim run experiments/fig2.ini --set run.frames=3 --set run.output_every=1 "
                                "--no-surface --out '%s' > /dev/null 2>&1",
                                run),
                     0);
    assert_int_equal(check_run(run), 60);
    assert_true(address(run, "/particles/bar_k/species") == address(run, "/particles/bar_4k/species"));
    int64_t species[20];
    read_ints(run, "/particles/bar_2k/species", species);
    assert_int_equal(species[0], 0);
    remove(run);
}

/* The file written before H5MD reads through the library and every command, and holds the
 * bits the same command writes now (the physics did not change, only where it is stored). */
static void test_run_file_before_h5md_still_reads(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    char stored[128];
    assert_int_equal(op_runfile_stored_name(&ctx, FIXTURE, "/states/position/value", stored, sizeof stored), OP_OK);
    assert_string_equal(stored, "/particles/position/value");
    double old_rows[4 * 60 * 3], new_rows[4 * 60 * 3], by_new_name[4 * 60 * 3];
    int rank;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    assert_int_equal(op_runfile_dataset_shape(&ctx, FIXTURE, "/states/position/value", &rank, dims), OP_OK);
    assert_int_equal(rank, 3);
    assert_int_equal(dims[0], 4);
    assert_int_equal(dims[1], 60);
    assert_int_equal(op_runfile_read_rows(&ctx, FIXTURE, "/particles/position/value", 0, 4, old_rows, 720), OP_OK);
    assert_int_equal(op_runfile_read_rows(&ctx, FIXTURE, "/states/position/value", 0, 4, by_new_name, 720), OP_OK);
    assert_memory_equal(old_rows, by_new_name, sizeof old_rows);
    /* frame 3, bar_k's first particle, as `opsim export` printed it when the fixture was made */
    assert_true(old_rows[3 * 180 + 0] == -0.47395833333333315);
    assert_true(old_rows[3 * 180 + 2] == 0.29999999999999999);

    /* The same command now stores the same bits under the new name. Should the physics change
     * on purpose (make golden), this comparison is the one to drop: the fixture cannot be
     * written again in its layout, and the reads above still test it. */
    const char *run = test_tmp_path("-now.h5");
    assert_int_equal(test_shell("bin/opsim run experiments/fig2.ini --set run.frames=3 --set run.output_every=1 "
                                "--no-surface --out '%s' > /dev/null 2>&1",
                                run),
                     0);
    assert_int_equal(op_runfile_stored_name(&ctx, run, "/particles/position/value", stored, sizeof stored), OP_OK);
    assert_string_equal(stored, "/states/position/value");
    assert_int_equal(op_runfile_read_rows(&ctx, run, "/particles/position/value", 0, 4, new_rows, 720), OP_OK);
    assert_memory_equal(old_rows, new_rows, sizeof old_rows);
    remove(run);

    /* every command that reads run files, on a copy (xdmf writes beside it) */
    const char *copy = test_tmp_path("-before.h5");
    assert_int_equal(test_shell("cp '%s' '%s'", FIXTURE, copy), 0);
    static const char *const commands[] = {
        "info '%s'",
        "verify '%s'",
        "export '%s' /particles/orientation/value",
        "export '%s' /states/position/step",
        "export '%s' --skinned bar_2k --frame last",
        "export '%s' --particles bar_4k --frame 0",
        "xdmf '%s'",
        "overlap '%s'",
    };
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; ++c) {
        char command[1024];
        snprintf(command, sizeof command, commands[c], copy);
        if (test_shell("bin/opsim %s > /dev/null 2>&1", command) != 0)
            fail_msg("opsim %s fails on the run file written before H5MD", command);
    }
    char sidecar[512];
    snprintf(sidecar, sizeof sidecar, "%.*s.xmf", (int)strlen(copy) - 3, copy);
    char *text = test_read_file(sidecar);
    assert_non_null(text);
    assert_non_null(strstr(text, ":/particles/index</DataItem>"));
    free(text);
    remove(copy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig5_run_is_h5md),
        cmocka_unit_test(test_instances_have_their_own_groups),
        cmocka_unit_test(test_run_file_before_h5md_still_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
