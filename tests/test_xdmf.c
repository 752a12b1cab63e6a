/* Tests for the XDMF sidecars (core/io/xdmf.c) as `opsim run` and `opsim xdmf` write them: the
 * sidecar is well-formed XML; every heavy-data item names a dataset of the run file beside it
 * by a relative name, with the dataset's own shape; every hyperslab selects inside its dataset
 * and declares the count it selects; grids and attributes have the sizes their topology says;
 * the times are /particles/position/time bit for bit; and a file that is no simulation run gets
 * no sidecar. A run that stored its sub-steps gets the sub-step sidecar too, held to the same
 * checks against /substeps: every sub-step listed at its time, every view its row. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opsim/runfile.h"
#include "test_util.h"
#include "io/xdmf.h"

/* ---- a small XML reader: elements, their attribute text and their own text ------------------ */

typedef struct element {
    char name[32];
    char attributes[512];
    char text[256]; /* trimmed, for leaf elements */
    int parent;     /* -1 for the root */
} element;

typedef struct document {
    element *elements;
    int count;
} document;

/* Reads the whole sidecar, failing the test on anything that is not well-formed as far as
 * opsim's output goes: matched tags, no stray '>'. Comments, <?...?> and <!...> are skipped. */
static document parse_xml(const char *text)
{
    document d = { calloc(100000, sizeof(element)), 0 };
    assert_non_null(d.elements);
    int stack[64], depth = 0;
    const char *p = text;
    while (*p) {
        if (*p != '<') {
            const char *end = strchr(p, '<');
            size_t length = end ? (size_t)(end - p) : strlen(p);
            if (depth > 0) {
                element *e = &d.elements[stack[depth - 1]];
                const char *a = p, *b = p + length;
                while (a < b && strchr(" \n\t", *a))
                    ++a;
                while (b > a && strchr(" \n\t", b[-1]))
                    --b;
                if (b > a) {
                    assert_true((size_t)(b - a) < sizeof e->text);
                    memcpy(e->text, a, (size_t)(b - a));
                }
            } else
                for (size_t i = 0; i < length; ++i)
                    assert_non_null(strchr(" \n\t", p[i]));
            p += length;
            continue;
        }
        if (strncmp(p, "<!--", 4) == 0) {
            p = strstr(p, "-->");
            assert_non_null(p);
            p += 3;
        } else if (p[1] == '?' || p[1] == '!') {
            p = strchr(p, '>');
            assert_non_null(p);
            ++p;
        } else if (p[1] == '/') {
            size_t length = strcspn(p + 2, ">");
            assert_true(depth > 0);
            element *open = &d.elements[stack[--depth]];
            if (strlen(open->name) != length || strncmp(open->name, p + 2, length) != 0)
                fail_msg("</%.*s> closes <%s>", (int)length, p + 2, open->name);
            p += 2 + length + 1;
        } else {
            const char *end = strchr(p, '>');
            assert_non_null(end);
            int self_closing = end[-1] == '/';
            assert_true(d.count < 100000);
            element *e = &d.elements[d.count];
            size_t name_length = strcspn(p + 1, " />");
            assert_true(name_length < sizeof e->name);
            memcpy(e->name, p + 1, name_length);
            const char *attributes = p + 1 + name_length, *attributes_end = end - self_closing;
            assert_true((size_t)(attributes_end - attributes) < sizeof e->attributes);
            memcpy(e->attributes, attributes, (size_t)(attributes_end - attributes));
            e->parent = depth ? stack[depth - 1] : -1;
            if (!self_closing) {
                assert_true(depth < 64);
                stack[depth++] = d.count;
            }
            d.count++;
            p = end + 1;
        }
    }
    assert_int_equal(depth, 0);
    return d;
}

/* The value of attribute `name`, or NULL. */
static const char *attribute(const element *e, const char *name, char *value, size_t size)
{
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *at = strstr(e->attributes, key);
    if (!at)
        return NULL;
    at += strlen(key);
    size_t length = strcspn(at, "\"");
    snprintf(value, size, "%.*s", (int)length, at);
    return value;
}

/* Whole numbers separated by blanks; returns how many. */
static int numbers(const char *text, int64_t *out, int capacity)
{
    int count = 0;
    char *end;
    for (long long v = strtoll(text, &end, 10); end != text; v = strtoll(text, &end, 10)) {
        assert_true(count < capacity);
        out[count++] = v;
        text = end;
    }
    return count;
}

static int child(const document *d, int parent, int which)
{
    for (int i = parent + 1, seen = 0; i < d->count; ++i)
        if (d->elements[i].parent == parent && seen++ == which)
            return i;
    return -1;
}

static int64_t product(const int64_t *dims, int rank)
{
    int64_t p = 1;
    for (int i = 0; i < rank; ++i)
        p *= dims[i];
    return p;
}

/* ---- the checks -------------------------------------------------------------------------- */

typedef struct tally {
    int substeps; /* checking the sub-step sidecar (RUN.substeps.xmf) */
    int hdf, times, surfaces, particles;
} tally;

/* The companion of the sidecar checked: RUN.views.h5, or RUN.substeps.views.h5. */
static void views_path(const char *run, int substeps, char *out, size_t size)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    int status = substeps ? op_xdmf_substeps_views_path(&ctx, run, out, size)
                          : op_xdmf_views_path(&ctx, run, out, size);
    assert_int_equal(status, OP_OK);
}

/* An HDF item: "NAME:/path", NAME the run file's name or its companion's (RUN.views.h5), without
 * the directory, and Dimensions the dataset's shape. Returns the rank and fills dims. */
static int check_hdf_item(const element *e, const char *run, int substeps, int64_t *dims)
{
    const char *base = strrchr(run, '/') ? strrchr(run, '/') + 1 : run;
    char value[256], views[600], views_base[600];
    op_ctx ctx;
    op_ctx_init(&ctx);
    views_path(run, substeps, views, sizeof views);
    snprintf(views_base, sizeof views_base, "%s", strrchr(views, '/') ? strrchr(views, '/') + 1 : views);
    const char *file = NULL, *dataset = NULL;
    if (strncmp(e->text, base, strlen(base)) == 0 && e->text[strlen(base)] == ':')
        file = run, dataset = e->text + strlen(base) + 1;
    else if (strncmp(e->text, views_base, strlen(views_base)) == 0 && e->text[strlen(views_base)] == ':')
        file = views, dataset = e->text + strlen(views_base) + 1;
    if (!file || dataset[0] != '/')
        fail_msg("HDF item '%s' names neither %s:/... nor %s:/...", e->text, base, views_base);
    int rank = 0;
    int64_t shape[OP_RUNFILE_MAX_RANK];
    if (op_runfile_dataset_shape(&ctx, file, dataset, &rank, shape) != OP_OK)
        fail_msg("%s", ctx.message);
    assert_non_null(attribute(e, "Dimensions", value, sizeof value));
    int given = numbers(value, dims, OP_RUNFILE_MAX_RANK);
    assert_int_equal(given, rank);
    for (int i = 0; i < rank; ++i)
        if (dims[i] != shape[i])
            fail_msg("%s: Dimensions \"%s\" but the dataset's extent %d is %lld", dataset, value, i,
                     (long long)shape[i]);
    assert_non_null(attribute(e, "NumberType", value, sizeof value));
    assert_non_null(attribute(e, "Precision", value, sizeof value));
    return rank;
}

/* A DataItem as a whole: a whole dataset (ParaView's default XDMF reader reads no HyperSlab);
 * its extents into `count` (the rank returned). */
static int check_item(const document *d, int index, const char *run, int64_t *count, tally *t)
{
    const element *e = &d->elements[index];
    char value[256];
    assert_string_equal(e->name, "DataItem");
    if (attribute(e, "ItemType", value, sizeof value))
        fail_msg("a DataItem of ItemType %s: ParaView's XDMF 3 reader reads whole datasets only", value);
    assert_non_null(attribute(e, "Format", value, sizeof value));
    assert_string_equal(value, "HDF");
    t->hdf++;
    return check_hdf_item(e, run, t->substeps, count);
}

/* The only DataItem directly under element `index`, checked; returns its value count. */
static int64_t item_values(const document *d, int index, const char *run, tally *t)
{
    int item = child(d, index, 0);
    assert_true(item > 0 && child(d, index, 1) < 0);
    int64_t count[OP_RUNFILE_MAX_RANK];
    int rank = check_item(d, item, run, count, t);
    return product(count, rank);
}

/* A uniform grid: its topology's element count, the points of its geometry, and each
 * attribute's values per point. */
static void check_grid(const document *d, int grid, const char *run, tally *t)
{
    char value[64];
    int topology = child(d, grid, 0), geometry = child(d, grid, 1);
    assert_string_equal(d->elements[topology].name, "Topology");
    assert_string_equal(d->elements[geometry].name, "Geometry");
    assert_non_null(attribute(&d->elements[topology], "TopologyType", value, sizeof value));
    int triangles = strcmp(value, "Triangle") == 0;
    assert_true(triangles || strcmp(value, "Polyvertex") == 0);
    t->surfaces += triangles;
    t->particles += !triangles;
    assert_non_null(attribute(&d->elements[topology], "NumberOfElements", value, sizeof value));
    int64_t cells = strtoll(value, NULL, 10);
    assert_int_equal(item_values(d, topology, run, t), cells * (triangles ? 3 : 1));
    int64_t points = item_values(d, geometry, run, t) / 3;
    if (!triangles)
        assert_int_equal(points, cells);
    for (int a = 2; child(d, grid, a) > 0; ++a) {
        int attr = child(d, grid, a);
        assert_string_equal(d->elements[attr].name, "Attribute");
        assert_non_null(attribute(&d->elements[attr], "AttributeType", value, sizeof value));
        int64_t components = strcmp(value, "Tensor") == 0 ? 9 : strcmp(value, "Vector") == 0 ? 3 : 1;
        assert_int_equal(item_values(d, attr, run, t), points * components);
    }
}

/* Every check above over the whole sidecar of `run` (with `substeps`, its sub-step sidecar
 * against /substeps); returns what it counted. */
static tally check_sidecar(const char *run, int substeps)
{
    char path[600];
    const char *times = substeps ? "/substeps/position/time" : "/particles/position/time";
    op_ctx ctx;
    op_ctx_init(&ctx);
    int status = substeps ? op_xdmf_substeps_path(&ctx, run, path, sizeof path)
                          : op_xdmf_path(&ctx, run, path, sizeof path);
    assert_int_equal(status, OP_OK);
    char *text = test_read_file(path);
    if (!text)
        fail_msg("%s: no sidecar", path);
    document d = parse_xml(text);
    assert_string_equal(d.elements[0].name, "Xdmf");
    int rank = 0;
    int64_t frames[OP_RUNFILE_MAX_RANK];
    assert_int_equal(op_runfile_dataset_shape(&ctx, run, times, &rank, frames), OP_OK);
    double *time = calloc((size_t)frames[0], sizeof *time);
    assert_int_equal(op_runfile_read_rows(&ctx, run, times, 0, frames[0], time, frames[0]), OP_OK);
    tally t = { .substeps = substeps };
    int temporal = -1;
    for (int i = 0; i < d.count; ++i) {
        const element *e = &d.elements[i];
        char value[64];
        if (strcmp(e->name, "Grid") == 0 && attribute(e, "CollectionType", value, sizeof value) &&
            strcmp(value, "Temporal") == 0)
            temporal = i;
        else if (strcmp(e->name, "Time") == 0) {
            /* the Time of the t-th frame grid, which is the t-th child of the temporal collection */
            assert_int_equal(d.elements[e->parent].parent, temporal);
            assert_int_equal(child(&d, temporal, t.times), e->parent);
            assert_non_null(attribute(e, "Value", value, sizeof value));
            assert_true(t.times < frames[0]);
            double v = strtod(value, NULL);
            assert_memory_equal(&v, &time[t.times], sizeof v);
            t.times++;
        } else if (strcmp(e->name, "Grid") == 0 && attribute(e, "GridType", value, sizeof value) &&
                   strcmp(value, "Uniform") == 0)
            check_grid(&d, i, run, &t);
    }
    assert_int_equal(t.times, frames[0]);
    free(time);
    free(d.elements);
    free(text);
    return t;
}

/* No "*.tmp" left in the directory of `path`. */
static void assert_no_temporaries(const char *path)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    DIR *listing = opendir(dir);
    assert_non_null(listing);
    for (struct dirent *entry; (entry = readdir(listing));) {
        size_t length = strlen(entry->d_name);
        if (length > 4 && strcmp(entry->d_name + length - 4, ".tmp") == 0)
            fail_msg("%s/%s left behind", dir, entry->d_name);
    }
    closedir(listing);
}

/* The companion's frame t datasets hold the run file's rows of frame t bit for bit (read
 * through HDF5's virtual-dataset mapping), the static arrays the bodies' data in body order;
 * with `ellipsoids`, the tensors are R·Ē·diag(r) column after column to 1e-15. With
 * `substeps`, the sub-step companion's /substeps/<s> against row s of /substeps. */
static void assert_views_are_the_states(const char *run, int ellipsoids, int substeps)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    char views[600];
    views_path(run, substeps, views, sizeof views);
    const char *group = substeps ? "/substeps" : "/particles", *view_group = substeps ? "/substeps" : "/frames";
    char position[64], orientation[64];
    snprintf(position, sizeof position, "%s/position/value", group);
    snprintf(orientation, sizeof orientation, "%s/orientation/value", group);
    int rank;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    assert_int_equal(op_runfile_dataset_shape(&ctx, run, position, &rank, dims), OP_OK);
    long frames = (long)dims[0], n = (long)dims[1];
    double *want = calloc(9 * (size_t)n, sizeof *want), *got = calloc(9 * (size_t)n, sizeof *got);
    double *radii = calloc(3 * (size_t)n, sizeof *radii), *axes = calloc(9 * (size_t)n, sizeof *axes);
    /* fig2's bars in order, each bar20 of 20 particles */
    assert_int_equal(op_runfile_read_rows(&ctx, views, "/static/radii", 0, n, radii, 3 * n), OP_OK);
    for (int b = 0; b < 3; ++b) {
        static const char *const names[] = { "bar_k", "bar_2k", "bar_4k" };
        char path[64];
        snprintf(path, sizeof path, "/graph/%s/radii", names[b]);
        assert_int_equal(op_runfile_read_rows(&ctx, run, path, 0, 20, want, 60), OP_OK);
        assert_memory_equal(want, &radii[60 * b], 60 * sizeof(double));
        snprintf(path, sizeof path, "/graph/%s/rest_axes", names[b]);
        assert_int_equal(op_runfile_read_rows(&ctx, run, path, 0, 20, &axes[180 * b], 180), OP_OK);
    }
    for (long t = 0; t < frames; ++t) {
        const char *const series[][2] = { { "position", position }, { "orientation", orientation } };
        for (int k = 0; k < 2; ++k) {
            char view[64];
            long width = k ? 9 : 3;
            snprintf(view, sizeof view, "%s/%ld/%s", view_group, t, series[k][0]);
            assert_int_equal(op_runfile_read_rows(&ctx, run, series[k][1], t, 1, want, width * n), OP_OK);
            assert_int_equal(op_runfile_read_rows(&ctx, views, view, 0, n, got, width * n), OP_OK);
            assert_memory_equal(want, got, (size_t)(width * n) * sizeof(double));
        }
        if (!ellipsoids)
            continue;
        char view[64];
        snprintf(view, sizeof view, "%s/%ld/ellipsoid", view_group, t);
        assert_int_equal(op_runfile_read_rows(&ctx, views, view, 0, n, got, 9 * n), OP_OK);
        for (long i = 0; i < n; ++i)
            for (int k = 0; k < 3; ++k)
                for (int row = 0; row < 3; ++row) {
                    double axis = 0.0;
                    for (int j = 0; j < 3; ++j)
                        axis += want[9 * i + 3 * row + j] * axes[9 * i + 3 * j + k];
                    assert_true(fabs(got[9 * i + 3 * k + row] - axis * radii[3 * i + k]) <= 1e-15);
                }
    }
    free(want);
    free(got);
    free(radii);
    free(axes);
}

/* fig2's three bars, frames 0, 2, 4 */
static const char *small_run(const char *extra)
{
    static char run[600];
    snprintf(run, sizeof run, "%s", test_tmp_path("-run.h5"));
    assert_int_equal(test_shell("bin/opsim run experiments/fig2.ini --set run.frames=4 --set run.output_every=2 %s "
                                "--out '%s' 2>/dev/null",
                                extra, run),
                     0);
    return run;
}

static void test_run_writes_a_matching_sidecar(void **state)
{
    (void)state;
    const char *run = small_run("");
    tally t = check_sidecar(run, 0);
    print_message("%d frames, %d surface and %d particle grids, %d HDF items\n", t.times, t.surfaces, t.particles,
                  t.hdf);
    assert_int_equal(t.surfaces, 3);
    assert_int_equal(t.particles, 3);
    assert_views_are_the_states(run, 0, 0);
    assert_no_temporaries(run);
}

/* With --ellipsoids: each particle's tensor, column k, is its current axis k (R·Ē) times
 * radius k, stored column after column as VTK's Tensor Glyph reads it. */
static void test_ellipsoids_are_the_scaled_current_axes(void **state)
{
    (void)state;
    const char *run = small_run("");
    assert_int_equal(test_shell("bin/opsim xdmf '%s' --ellipsoids > /dev/null", run), 0);
    tally t = check_sidecar(run, 0);
    assert_int_equal(t.particles, 3);
    assert_views_are_the_states(run, 1, 0);
}

static void test_sidecar_without_surface(void **state)
{
    (void)state;
    const char *run = small_run("--no-surface");
    tally t = check_sidecar(run, 0);
    assert_int_equal(t.surfaces, 0);
    assert_int_equal(t.particles, 3);
    op_ctx ctx;
    op_ctx_init(&ctx);
    int64_t stored = -1, dims[OP_RUNFILE_MAX_RANK];
    int rank;
    assert_int_equal(op_runfile_read_attribute_int(&ctx, run, "/parameters", "store_surface", &stored), OP_OK);
    assert_int_equal(stored, 0);
    assert_int_equal(op_runfile_dataset_shape(&ctx, run, "/surface/position/value", &rank, dims), OP_ERR_INVALID);
}

/* `opsim xdmf` writes the same bytes `opsim run` did. */
static void test_xdmf_command_rewrites_the_sidecar(void **state)
{
    (void)state;
    const char *run = small_run("");
    char sidecar[600];
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_xdmf_path(&ctx, run, sidecar, sizeof sidecar), OP_OK);
    char *first = test_read_file(sidecar);
    assert_non_null(first);
    assert_int_equal(remove(sidecar), 0);
    assert_int_equal(test_shell("bin/opsim xdmf '%s' > /dev/null", run), 0);
    char *second = test_read_file(sidecar);
    assert_non_null(second);
    assert_string_equal(first, second);
    free(first);
    free(second);
}

/* fig2's bars at 3 sub-steps a frame, frames 0, 2, 4 and every sub-step stored: the sub-step
 * sidecar lists sub-steps 0 to 12, in order, at times s·T/3 (to rounding; bit for bit those of
 * /substeps), its particles grids over /substeps' rows and no surface; the frames' sidecar is
 * unchanged by it. `opsim xdmf --ellipsoids` writes the tensors of every sub-step; a run
 * written again without sub-steps at the same path loses the stale sub-step pair. */
static void test_substep_sidecar_lists_every_substep(void **state)
{
    (void)state;
    const char *run = small_run("--set world.substeps=3 --set run.output=substeps");
    tally frames = check_sidecar(run, 0), t = check_sidecar(run, 1);
    print_message("sub-step sidecar: %d sub-steps, %d particle grids, %d surface grids, %d HDF items\n", t.times,
                  t.particles, t.surfaces, t.hdf);
    assert_int_equal(frames.times, 3);
    assert_int_equal(frames.surfaces, 3);
    assert_int_equal(t.times, 13);
    assert_int_equal(t.particles, 13);
    assert_int_equal(t.surfaces, 0);
    assert_views_are_the_states(run, 0, 1);
    op_ctx ctx;
    op_ctx_init(&ctx);
    double time[13], frame_time = 0.0;
    assert_int_equal(op_runfile_read_rows(&ctx, run, "/substeps/position/time", 0, 13, time, 13), OP_OK);
    assert_int_equal(op_runfile_read_attribute_double(&ctx, run, "/parameters", "frame_time", &frame_time), OP_OK);
    for (int s = 0; s < 13; ++s)
        assert_true(fabs(time[s] - s * frame_time / 3) <= 1e-15);
    /* the grids are named by sub-step, in order */
    char sidecar[600];
    assert_int_equal(op_xdmf_substeps_path(&ctx, run, sidecar, sizeof sidecar), OP_OK);
    char *text = test_read_file(sidecar);
    assert_non_null(text);
    const char *at = text;
    for (int s = 0; s < 13; ++s) {
        char name[64];
        snprintf(name, sizeof name, "<Grid Name=\"substep %d\"", s);
        at = strstr(at, name);
        if (!at)
            fail_msg("%s: no grid 'substep %d' after substep %d", sidecar, s, s - 1);
    }
    free(text);
    assert_int_equal(test_shell("bin/opsim xdmf '%s' --ellipsoids > /dev/null", run), 0);
    assert_views_are_the_states(run, 1, 1);
    assert_no_temporaries(run);
    char views[600];
    views_path(run, 1, views, sizeof views);
    assert_int_equal(test_shell("bin/opsim run experiments/fig2.ini --set run.frames=2 --set run.output_every=1 "
                                "--out '%s' 2>/dev/null",
                                run),
                     0);
    assert_int_not_equal(access(sidecar, F_OK), 0);
    assert_int_not_equal(access(views, F_OK), 0);
    assert_int_equal(check_sidecar(run, 0).times, 3);
}

static void test_xdmf_refuses_what_is_no_run(void **state)
{
    (void)state;
    char graph[600], sidecar[600];
    snprintf(graph, sizeof graph, "%s", test_tmp_path("-graph.h5"));
    assert_int_equal(test_shell("bin/opsim graph --shape bar --kind rod --particles 5 --out '%s' > /dev/null", graph),
                     0);
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_xdmf_path(&ctx, graph, sidecar, sizeof sidecar), OP_OK);
    assert_int_equal(test_shell("bin/opsim xdmf '%s' 2>/dev/null", graph), 65);
    assert_int_not_equal(access(sidecar, F_OK), 0);
    assert_int_equal(test_shell("bin/opsim xdmf build/test-tmp/no-such-run.h5 2>/dev/null"), 74);
    assert_int_equal(test_shell("bin/opsim xdmf 2>/dev/null"), 64);
    assert_int_equal(op_xdmf_write(&ctx, graph, 0), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "not a simulation run"));
    assert_no_temporaries(graph);
}

static void test_sidecar_path(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    char path[16];
    assert_int_equal(op_xdmf_path(&ctx, "a/run.h5", path, sizeof path), OP_OK);
    assert_string_equal(path, "a/run.xmf");
    assert_int_equal(op_xdmf_path(&ctx, "run.hdf5", path, sizeof path), OP_OK);
    assert_string_equal(path, "run.hdf5.xmf");
    char longer[32];
    assert_int_equal(op_xdmf_substeps_path(&ctx, "a/run.h5", longer, sizeof longer), OP_OK);
    assert_string_equal(longer, "a/run.substeps.xmf");
    assert_int_equal(op_xdmf_substeps_views_path(&ctx, "a/run.h5", longer, sizeof longer), OP_OK);
    assert_string_equal(longer, "a/run.substeps.views.h5");
    assert_int_equal(op_xdmf_path(&ctx, "a-long-run-name.h5", path, sizeof path), OP_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_writes_a_matching_sidecar),
        cmocka_unit_test(test_ellipsoids_are_the_scaled_current_axes),
        cmocka_unit_test(test_sidecar_without_surface),
        cmocka_unit_test(test_xdmf_command_rewrites_the_sidecar),
        cmocka_unit_test(test_substep_sidecar_lists_every_substep),
        cmocka_unit_test(test_xdmf_refuses_what_is_no_run),
        cmocka_unit_test(test_sidecar_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
