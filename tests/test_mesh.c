/* Tests for core/geometry/mesh.c: OFF and OBJ reading (good files and every malformed case, each
 * located at its exact line), the atomic OBJ writer, validation, bounds and closedness. */
#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "opsim/mesh.h"
#include "geometry/shapes.h"

/* test_tmp_path reuses its buffer, so each test keeps its own copy. */
typedef struct temp_file {
    char path[512];
} temp_file;

static temp_file write_bytes(const char *suffix, const char *bytes, size_t length)
{
    temp_file file;
    snprintf(file.path, sizeof file.path, "%s", test_tmp_path(suffix));
    FILE *out = fopen(file.path, "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(bytes, 1, length, out), length);
    assert_int_equal(fclose(out), 0);
    return file;
}

static temp_file write_text(const char *suffix, const char *text)
{
    return write_bytes(suffix, text, strlen(text));
}

static void assert_mesh_empty(const op_mesh *mesh)
{
    assert_int_equal(mesh->vertex_count, 0);
    assert_int_equal(mesh->face_count, 0);
    assert_int_equal(mesh->polygon_count, 0);
    assert_null(mesh->vertices);
    assert_null(mesh->faces);
}

static void assert_vertex(const op_mesh *mesh, int v, double x, double y, double z)
{
    assert_close(mesh->vertices[3 * v], x, 0.0);
    assert_close(mesh->vertices[3 * v + 1], y, 0.0);
    assert_close(mesh->vertices[3 * v + 2], z, 0.0);
}

static void assert_triangle(const op_mesh *mesh, int f, int a, int b, int c)
{
    assert_int_equal(mesh->faces[3 * f], a);
    assert_int_equal(mesh->faces[3 * f + 1], b);
    assert_int_equal(mesh->faces[3 * f + 2], c);
}

static void read_good(const temp_file *file, op_mesh *mesh)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    int status = op_mesh_read(&ctx, file->path, mesh);
    if (status != OP_OK)
        fail_msg("reading %s failed: %s", file->path, ctx.message);
    assert_int_equal(ctx.status, OP_OK);
    assert_int_equal(op_mesh_check(&ctx, mesh, file->path), OP_OK);
}

/* Reads `length` bytes as a file with `suffix` and expects failure `status` with a message
 * that starts "path:line: " and mentions `reason`. */
static void expect_bytes_failure(const char *suffix, const char *bytes, size_t length, int status, int line,
                                 const char *reason)
{
    temp_file file = write_bytes(suffix, bytes, length);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh mesh = { 0 };
    assert_int_equal(op_mesh_read(&ctx, file.path, &mesh), status);
    assert_int_equal(ctx.status, status);
    char prefix[600];
    snprintf(prefix, sizeof prefix, "%s:%d: ", file.path, line);
    if (strncmp(ctx.message, prefix, strlen(prefix)) != 0 || !strstr(ctx.message, reason))
        fail_msg("expected \"%s...%s...\", got \"%s\"", prefix, reason, ctx.message);
    assert_mesh_empty(&mesh);
    assert_int_equal(remove(file.path), 0);
}

static void expect_failure(const char *suffix, const char *text, int line, const char *reason)
{
    expect_bytes_failure(suffix, text, strlen(text), OP_ERR_PARSE, line, reason);
}

/* A cube as six quads, listed in OFF with comments and blank lines everywhere. */
static void test_off_comments_and_blank_lines(void **state)
{
    (void)state;
    temp_file file = write_text(".off", "# a cube\n"
                                        "\n"
                                        "OFF # header\n"
                                        "   # counts follow\n"
                                        "8 6 0\n"
                                        "\n"
                                        "-1 -1 -1\n"
                                        " 1 -1 -1 # trailing comment\n"
                                        " 1  1 -1\n"
                                        "-1  1 -1\n"
                                        "\n"
                                        "-1 -1  1\n"
                                        "\t1 -1  1\n"
                                        " 1  1  1\n"
                                        "-1  1  1\n"
                                        "# faces\n"
                                        "4 0 3 2 1\n"
                                        "4 4 5 6 7\n"
                                        "4 0 1 5 4\n"
                                        "\n"
                                        "4 1 2 6 5 # right\n"
                                        "4 2 3 7 6\n"
                                        "4 3 0 4 7\n"
                                        "\n"
                                        "# end\n");
    op_mesh mesh = { 0 };
    read_good(&file, &mesh);
    assert_int_equal(mesh.vertex_count, 8);
    assert_int_equal(mesh.polygon_count, 6);
    assert_int_equal(mesh.face_count, 12);
    assert_vertex(&mesh, 0, -1, -1, -1);
    assert_vertex(&mesh, 1, 1, -1, -1);
    assert_vertex(&mesh, 5, 1, -1, 1);
    assert_vertex(&mesh, 7, -1, 1, 1);
    assert_triangle(&mesh, 0, 0, 3, 2);
    assert_triangle(&mesh, 1, 0, 2, 1);
    assert_triangle(&mesh, 6, 1, 2, 6);
    assert_triangle(&mesh, 7, 1, 6, 5);
    assert_true(op_mesh_is_closed(&mesh));
    op_mesh_free(&mesh);
    remove(file.path);
}

static void test_coff_with_colours(void **state)
{
    (void)state;
    temp_file file = write_text(".off", "COFF\n"
                                        "4 4 6\n"
                                        "0 0 0 255 0 0 255\n"
                                        "1 0 0 0 255 0 255\n"
                                        "0 1 0 0 0 255 255 \n"
                                        "0 0 1 0.5 0.5 0.5 1.0\n"
                                        "3 0 2 1 255 0 0\n"
                                        "3 0 1 3 0.1 0.2 0.3 0.4\n"
                                        "3 0 3 2\n"
                                        "3 1 2 3 9 9 9\n");
    op_mesh mesh = { 0 };
    read_good(&file, &mesh);
    assert_int_equal(mesh.vertex_count, 4);
    assert_int_equal(mesh.face_count, 4);
    assert_int_equal(mesh.polygon_count, 4);
    assert_vertex(&mesh, 2, 0, 1, 0);
    assert_vertex(&mesh, 3, 0, 0, 1);
    assert_triangle(&mesh, 0, 0, 2, 1);
    assert_triangle(&mesh, 3, 1, 2, 3);
    assert_true(op_mesh_is_closed(&mesh));
    op_mesh_free(&mesh);
    remove(file.path);
}

static void test_off_header_and_counts_on_one_line(void **state)
{
    (void)state;
    temp_file file = write_text(".off", "OFF 3 1 0\n0 0 0\n2.5 0 0\n0 -0.25 1e-3\n3 0 1 2\n");
    op_mesh mesh = { 0 };
    read_good(&file, &mesh);
    assert_int_equal(mesh.vertex_count, 3);
    assert_int_equal(mesh.face_count, 1);
    assert_vertex(&mesh, 1, 2.5, 0, 0);
    assert_vertex(&mesh, 2, 0, -0.25, 1e-3);
    assert_triangle(&mesh, 0, 0, 1, 2);
    op_mesh_free(&mesh);
    remove(file.path);
}

/* NOFF and CNOFF vertices carry normals (and colours) after x y z; counts may omit edges. */
static void test_noff_and_cnoff_headers(void **state)
{
    (void)state;
    temp_file noff = write_text(".off", "NOFF\n3 1\n0 0 0 0 0 1\n1 0 0 0 0 1\n0 1 0 0 0 1\n3 2 0 1\n");
    temp_file cnoff = write_text(".OFF", "CNOFF 3 1 3\n7 8 9 1 0 0 0 0 1 1\n1 0 0 1 0 0 0 0 1 1\n"
                                         "0 1 0 1 0 0 0 0 1 1\n3 0 1 2\n");
    op_mesh mesh = { 0 };
    read_good(&noff, &mesh);
    assert_int_equal(mesh.vertex_count, 3);
    assert_triangle(&mesh, 0, 2, 0, 1);
    assert_vertex(&mesh, 2, 0, 1, 0);
    op_mesh_free(&mesh);
    read_good(&cnoff, &mesh);
    assert_int_equal(mesh.face_count, 1);
    assert_vertex(&mesh, 0, 7, 8, 9);
    op_mesh_free(&mesh);
    remove(noff.path);
    remove(cnoff.path);
}

static void test_off_quad_and_pentagon_fan_triangulated(void **state)
{
    (void)state;
    temp_file file = write_text(".off", "OFF\n"
                                        "7 2 0\n"
                                        "0 0 0\n1 0 0\n1 1 0\n0 1 0\n"
                                        "2 0 0\n3 0 0\n3 1 0\n"
                                        "4 0 1 2 3\n"
                                        "5 1 4 5 6 2\n");
    op_mesh mesh = { 0 };
    read_good(&file, &mesh);
    assert_int_equal(mesh.polygon_count, 2);
    assert_int_equal(mesh.face_count, 2 + 3);
    assert_triangle(&mesh, 0, 0, 1, 2);
    assert_triangle(&mesh, 1, 0, 2, 3);
    assert_triangle(&mesh, 2, 1, 4, 5);
    assert_triangle(&mesh, 3, 1, 5, 6);
    assert_triangle(&mesh, 4, 1, 6, 2);
    op_mesh_free(&mesh);
    remove(file.path);
}

/* One polygon with 3000 corners: its face line is ~17 kB, far past any fixed line buffer. */
static void test_off_long_polygon_line(void **state)
{
    (void)state;
    enum { corners = 3000 };
    size_t capacity = 64 + (size_t)corners * 64;
    char *text = malloc(capacity);
    assert_non_null(text);
    size_t used = (size_t)snprintf(text, capacity, "OFF\n%d 1 0\n", corners);
    for (int v = 0; v < corners; ++v)
        used += (size_t)snprintf(text + used, capacity - used, "%.17g %.17g 0\n", cos(v * 2 * M_PI / corners),
                                 sin(v * 2 * M_PI / corners));
    used += (size_t)snprintf(text + used, capacity - used, "%d", corners);
    for (int v = 0; v < corners; ++v)
        used += (size_t)snprintf(text + used, capacity - used, " %d", v);
    snprintf(text + used, capacity - used, "\n");
    temp_file file = write_text(".off", text);
    free(text);
    op_mesh mesh = { 0 };
    read_good(&file, &mesh);
    assert_int_equal(mesh.vertex_count, corners);
    assert_int_equal(mesh.polygon_count, 1);
    assert_int_equal(mesh.face_count, corners - 2);
    assert_triangle(&mesh, corners - 3, 0, corners - 2, corners - 1);
    op_mesh_free(&mesh);
    remove(file.path);
}

static void test_obj_index_forms_and_ignored_records(void **state)
{
    (void)state;
    temp_file file = write_text(".obj", "# exported\r\n"
                                        "mtllib scene.mtl\r\n"
                                        "o body\r\n"
                                        "v 0 0 0\r\n"
                                        "v 1 0 0 1.0\r\n"
                                        "v 1 1 0\r\n"
                                        "v 0 1 0\r\n"
                                        "v 0 0 1 # apex\r\n"
                                        "vt 0 0\r\n"
                                        "vt 1 0\r\n"
                                        "vn 0 0 1\r\n"
                                        "g part\r\n"
                                        "s off\r\n"
                                        "usemtl skin\r\n"
                                        "\r\n"
                                        "f 1 2 3\r\n"
                                        "f 1/1 3/2 4/1\r\n"
                                        "f 1//1 2//1 5//1\r\n"
                                        "f 2/1/1 3/2/1 5/1/1\r\n"
                                        "f -4 -3 -2 -1\r\n"
                                        "v 2 2 2\r\n"
                                        "f -1 -6/1 -5//1\r\n"
                                        "l 1 2\r\n"
                                        "p 1\r\n");
    op_mesh mesh = { 0 };
    read_good(&file, &mesh);
    assert_int_equal(mesh.vertex_count, 6);
    assert_int_equal(mesh.polygon_count, 6);
    assert_int_equal(mesh.face_count, 7);
    assert_vertex(&mesh, 1, 1, 0, 0);
    assert_vertex(&mesh, 4, 0, 0, 1);
    assert_vertex(&mesh, 5, 2, 2, 2);
    assert_triangle(&mesh, 0, 0, 1, 2);
    assert_triangle(&mesh, 1, 0, 2, 3);
    assert_triangle(&mesh, 2, 0, 1, 4);
    assert_triangle(&mesh, 3, 1, 2, 4);
    assert_triangle(&mesh, 4, 1, 2, 3);
    assert_triangle(&mesh, 5, 1, 3, 4);
    assert_triangle(&mesh, 6, 5, 0, 1);
    op_mesh_free(&mesh);
    remove(file.path);
}

static void test_read_extension_is_case_insensitive(void **state)
{
    (void)state;
    temp_file obj = write_text(".Obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    op_mesh mesh = { 0 };
    read_good(&obj, &mesh);
    assert_int_equal(mesh.face_count, 1);
    op_mesh_free(&mesh);
    remove(obj.path);
}

static void test_off_bad_header(void **state)
{
    (void)state;
    expect_failure(".off", "# comment\nOFFX\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", 2, "bad header 'OFFX'");
}

static void test_off_missing_header(void **state)
{
    (void)state;
    expect_failure(".off", "3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", 1, "bad header '3'");
    expect_failure(".off", "# only a comment\n\n", 3, "missing OFF header");
}

static void test_off_missing_counts(void **state)
{
    (void)state;
    expect_failure(".off", "OFF\n# nothing else\n", 3, "missing the counts line");
}

static void test_off_bad_counts(void **state)
{
    (void)state;
    expect_failure(".off", "OFF\n\nfour 1 0\n", 3, "bad vertex count 'four'");
    expect_failure(".off", "OFF 3 1.5 0\n", 1, "bad face count '1.5'");
    expect_failure(".off", "OFF\n3\n", 2, "found 1 value(s)");
    expect_failure(".off", "OFF\n3 1 0 7\n", 2, "found 4 value(s)");
    expect_failure(".off", "OFF\n3 0 0\n", 2, "announces no faces");
}

static void test_off_negative_count(void **state)
{
    (void)state;
    expect_failure(".off", "OFF\n3 -1 0\n", 2, "negative face count -1");
    expect_failure(".off", "OFF\n-3 1 0\n", 2, "negative vertex count -3");
}

static void test_off_absurd_count(void **state)
{
    (void)state;
    expect_failure(".off", "OFF\n200000000 1 0\n", 2, "vertex count 200000000 exceeds the limit");
    expect_failure(".off", "OFF\n3 99999999999999999999999 0\n", 2,
                   "face count 99999999999999999999999 exceeds the limit");
    expect_failure(".off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n99999999999999999999 0 1 2\n", 6,
                   "face announces 99999999999999999999 vertices");
}

static void test_off_truncated_vertices(void **state)
{
    (void)state;
    expect_failure(".off", "OFF\n4 4 0\n0 0 0\n1 0 0\n", 5, "read 2 of 4 vertices");
    /* no newline after the last line: the data still ends after line 4 */
    expect_failure(".off", "OFF\n4 4 0\n0 0 0\n1 0 0", 5, "read 2 of 4 vertices");
}

static void test_off_truncated_faces(void **state)
{
    (void)state;
    expect_failure(".off", "OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n\n# cut\n", 11,
                   "read 2 of 4 faces");
}

static void test_off_index_out_of_range(void **state)
{
    (void)state;
    expect_failure(".off", "OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 4\n", 8,
                   "vertex index 4 out of range");
    expect_failure(".off", "OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 -1 1\n", 7, "vertex index -1 out of range");
}

static void test_obj_index_out_of_range(void **state)
{
    (void)state;
    expect_failure(".obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 5\n", 6,
                   "vertex index '5' out of range");
    expect_failure(".obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf -4 1 2\n", 5, "vertex index '-4' out of range");
    expect_failure(".obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -99999999999999999999\n", 4,
                   "vertex index '-99999999999999999999' out of range");
    /* a positive index may only name a vertex defined above the face */
    expect_failure(".obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n", 3, "vertex index '3' out of range");
}

static void test_obj_index_zero(void **state)
{
    (void)state;
    expect_failure(".obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", 4, "vertex index 0");
    expect_failure(".obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1 2/1 0/1\n", 4, "vertex index 0");
}

static void test_obj_bad_reference_and_vertex(void **state)
{
    (void)state;
    expect_failure(".obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2/x 3\n", 4, "bad vertex reference '2/x'");
    expect_failure(".obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2// 3\n", 4, "bad vertex reference '2//'");
    expect_failure(".obj", "v 0 0 0\nv 1 0\n", 2, "vertex has 2 coordinate(s)");
    expect_failure(".obj", "# nothing but vertices\nv 0 0 0\n", 3, "no faces");
}

static void test_face_with_two_vertices(void **state)
{
    (void)state;
    expect_failure(".off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n", 6, "face has 2 vertices");
    expect_failure(".obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 # 3\n", 4, "face has 2 vertices");
}

static void test_off_face_missing_index(void **state)
{
    (void)state;
    expect_failure(".off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1\n", 6,
                   "face announces 3 vertices but lists only 2");
}

static void test_nan_coordinate(void **state)
{
    (void)state;
    expect_failure(".off", "OFF\n3 1 0\n0 0 0\n1 nan 0\n0 1 0\n3 0 1 2\n", 4, "'nan' is not a finite number");
    expect_failure(".obj", "v 0 0 0\nv 1 0 NAN\n", 2, "'NAN' is not a finite number");
}

static void test_inf_coordinate(void **state)
{
    (void)state;
    expect_failure(".off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 -inf\n3 0 1 2\n", 5, "'-inf' is not a finite number");
    expect_failure(".obj", "v Infinity 0 0\n", 1, "'Infinity' is not a finite number");
    expect_failure(".obj", "v 0 0 0\nv 1e999 0 0\n", 2, "'1e999' is not a finite number");
}

static void test_non_numeric_coordinate(void **state)
{
    (void)state;
    expect_failure(".off", "OFF\n3 1 0\n0 0 0\n1.0 abc 2\n0 1 0\n3 0 1 2\n", 4, "bad coordinate 'abc'");
    expect_failure(".obj", "v 0 0 0\nv 1,5 0 0\n", 2, "bad coordinate '1,5'");
    expect_failure(".off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 x\n", 6, "bad vertex index 'x'");
}

static void test_empty_file(void **state)
{
    (void)state;
    expect_failure(".off", "", 1, "empty file");
    expect_failure(".obj", "", 1, "empty file");
}

static void test_binary_junk(void **state)
{
    (void)state;
    static const char junk[] = "OFF\n3 1 0\n\x7f" "ELF\x02\x01\x01\x00\x00\x00 0 0\n1 0 0\n";
    expect_bytes_failure(".off", junk, sizeof junk - 1, OP_ERR_PARSE, 3, "binary data");
    static const char nul_in_obj[] = "v 0 0 0\nv 1 0 0\n# x\x00y\nf 1 2 3\n";
    expect_bytes_failure(".obj", nul_in_obj, sizeof nul_in_obj - 1, OP_ERR_PARSE, 3, "byte 0x00");
}

static void test_off_extra_data_after_faces(void **state)
{
    (void)state;
    expect_failure(".off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n# fine\n\n3 0 2 1\n", 9,
                   "unexpected data after the 1 announced faces");
}

static void test_repeated_vertex_in_face(void **state)
{
    (void)state;
    expect_failure(".off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 0\n", 6, "face repeats vertex 0");
    expect_failure(".off", "OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n5 0 1 2 3 1\n", 7, "face repeats vertex 1");
    /* -3 resolves to vertex 1, as does the first reference */
    expect_failure(".obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -3\n", 4, "face repeats vertex 1");
}

static void test_unknown_extension(void **state)
{
    (void)state;
    temp_file file = write_text(".stl", "solid x\nendsolid x\n");
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh mesh = { 0 };
    assert_int_equal(op_mesh_read(&ctx, file.path, &mesh), OP_ERR_USAGE);
    char expected[600];
    snprintf(expected, sizeof expected, "%s: unknown mesh format '.stl'", file.path);
    assert_true(strncmp(ctx.message, expected, strlen(expected)) == 0);
    assert_mesh_empty(&mesh);
    remove(file.path);
}

static void test_nonexistent_file(void **state)
{
    (void)state;
    char path[600];
    snprintf(path, sizeof path, "%s", test_tmp_path("-missing.off"));
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh mesh = { 0 };
    assert_int_equal(op_mesh_read(&ctx, path, &mesh), OP_ERR_IO);
    assert_int_equal(ctx.status, OP_ERR_IO);
    char expected[700];
    snprintf(expected, sizeof expected, "%s: cannot open: %s", path, strerror(ENOENT));
    assert_string_equal(ctx.message, expected);
    assert_mesh_empty(&mesh);
}

static void test_directory_is_a_read_error(void **state)
{
    (void)state;
    char path[600];
    snprintf(path, sizeof path, "%s", test_tmp_path("-dir.off"));
    assert_int_equal(mkdir(path, 0777), 0);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh mesh = { 0 };
    assert_int_equal(op_mesh_read(&ctx, path, &mesh), OP_ERR_IO);
    char expected[700];
    /* refused before a byte is read, as every input that is not a regular file (core/io/input.h) */
    snprintf(expected, sizeof expected, "%s: cannot read it as a mesh: it is a directory, not a regular file", path);
    assert_string_equal(ctx.message, expected);
    assert_mesh_empty(&mesh);
    assert_int_equal(rmdir(path), 0);
}

/* A tetrahedron, outward counter-clockwise faces. */
static void make_tetrahedron(op_mesh *mesh)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_mesh_alloc(&ctx, mesh, 4, 4), OP_OK);
    static const double vertices[12] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    static const int faces[12] = { 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3 };
    memcpy(mesh->vertices, vertices, sizeof vertices);
    memcpy(mesh->faces, faces, sizeof faces);
}

static int file_exists(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0;
}

static void test_write_obj_round_trip_is_bitwise(void **state)
{
    (void)state;
    op_mesh mesh = { 0 };
    make_tetrahedron(&mesh);
    /* values whose shortest decimal form needs all 17 digits, signed zero, extremes */
    const double awkward[12] = { 0.1, 1.0 / 3.0, -0.0, M_PI, -2.0 / 7.0, 1e-300,
                                 4.9406564584124654e-324, DBL_MAX, -DBL_MIN, 123456789.123456789, 1 + DBL_EPSILON, -1e22 };
    memcpy(mesh.vertices, awkward, sizeof awkward);
    mesh.polygon_count = 3;
    char path[600];
    snprintf(path, sizeof path, "%s", test_tmp_path(".obj"));
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_mesh_write_obj(&ctx, path, &mesh), OP_OK);
    char temporary[700];
    snprintf(temporary, sizeof temporary, "%s.%ld.tmp", path, (long)getpid());
    assert_false(file_exists(temporary));

    op_mesh back = { 0 };
    assert_int_equal(op_mesh_read(&ctx, path, &back), OP_OK);
    assert_int_equal(back.vertex_count, 4);
    assert_int_equal(back.face_count, 4);
    assert_int_equal(back.polygon_count, 4);
    assert_memory_equal(back.vertices, mesh.vertices, sizeof awkward);
    assert_memory_equal(back.faces, mesh.faces, 12 * sizeof(int));
    assert_true(signbit(back.vertices[2]));

    FILE *in = fopen(path, "r");
    assert_non_null(in);
    char first[128];
    assert_non_null(fgets(first, sizeof first, in));
    assert_string_equal(first, "# opsim mesh: 4 vertices, 4 triangles\n");
    assert_non_null(fgets(first, sizeof first, in));
    assert_string_equal(first, "v 0.10000000000000001 0.33333333333333331 -0\n");
    fclose(in);

    op_mesh_free(&back);
    op_mesh_free(&mesh);
    remove(path);
}

static void test_write_obj_replaces_existing_file(void **state)
{
    (void)state;
    temp_file file = write_text(".obj", "old contents that are not a mesh\n");
    op_mesh mesh = { 0 };
    make_tetrahedron(&mesh);
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_mesh_write_obj(&ctx, file.path, &mesh), OP_OK);
    op_mesh back = { 0 };
    assert_int_equal(op_mesh_read(&ctx, file.path, &back), OP_OK);
    assert_int_equal(back.face_count, 4);
    assert_true(op_mesh_is_closed(&back));
    op_mesh_free(&back);
    op_mesh_free(&mesh);
    remove(file.path);
}

static void test_write_obj_into_missing_directory_fails(void **state)
{
    (void)state;
    op_mesh mesh = { 0 };
    make_tetrahedron(&mesh);
    char path[700];
    snprintf(path, sizeof path, "%s/mesh.obj", test_tmp_path("-no-such-dir"));
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_mesh_write_obj(&ctx, path, &mesh), OP_ERR_IO);
    assert_int_equal(ctx.status, OP_ERR_IO);
    assert_true(strncmp(ctx.message, path, strlen(path)) == 0);
    assert_non_null(strstr(ctx.message, strerror(ENOENT)));
    assert_false(file_exists(path));
    op_mesh_free(&mesh);
}

/* The temporary file is written, then rename() onto a directory fails: the temporary must
 * not survive. */
static void test_write_obj_failed_rename_removes_temporary(void **state)
{
    (void)state;
    char path[600];
    snprintf(path, sizeof path, "%s", test_tmp_path("-dir.obj"));
    assert_int_equal(mkdir(path, 0777), 0);
    op_mesh mesh = { 0 };
    make_tetrahedron(&mesh);
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_mesh_write_obj(&ctx, path, &mesh), OP_ERR_IO);
    char expected[700];
    snprintf(expected, sizeof expected, "%s: cannot write: %s", path, strerror(EISDIR));
    assert_string_equal(ctx.message, expected);
    char temporary[700];
    snprintf(temporary, sizeof temporary, "%s.%ld.tmp", path, (long)getpid());
    assert_false(file_exists(temporary));
    assert_int_equal(rmdir(path), 0);
    op_mesh_free(&mesh);
}

static void test_write_obj_refuses_invalid_mesh(void **state)
{
    (void)state;
    op_mesh mesh = { 0 };
    make_tetrahedron(&mesh);
    mesh.faces[5] = 4;
    char path[600];
    snprintf(path, sizeof path, "%s", test_tmp_path(".obj"));
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_mesh_write_obj(&ctx, path, &mesh), OP_ERR_INVALID);
    assert_false(file_exists(path));
    op_mesh_free(&mesh);
}

static void test_is_closed(void **state)
{
    (void)state;
    op_mesh mesh = { 0 };
    make_tetrahedron(&mesh);
    assert_int_equal(op_mesh_is_closed(&mesh), 1);

    /* one face flipped: its edges now run the same way as their neighbours' */
    int flipped = mesh.faces[1];
    mesh.faces[1] = mesh.faces[2];
    mesh.faces[2] = flipped;
    assert_int_equal(op_mesh_is_closed(&mesh), 0);
    mesh.faces[2] = mesh.faces[1];
    mesh.faces[1] = flipped;
    assert_int_equal(op_mesh_is_closed(&mesh), 1);

    /* one face removed: three edges become borders */
    mesh.face_count = 3;
    assert_int_equal(op_mesh_is_closed(&mesh), 0);

    /* a face listed twice: its edges are used twice in one direction */
    mesh.face_count = 4;
    for (int c = 0; c < 3; ++c)
        mesh.faces[9 + c] = mesh.faces[c];
    assert_int_equal(op_mesh_is_closed(&mesh), 0);
    op_mesh_free(&mesh);

    assert_int_equal(op_mesh_is_closed(&mesh), 0);
}

static void test_bounds(void **state)
{
    (void)state;
    op_mesh mesh = { 0 };
    make_tetrahedron(&mesh);
    const double vertices[12] = { 0.5, -2, 3, -1.5, 4, 0.25, 2, 1, -7, 0, 0, 8 };
    memcpy(mesh.vertices, vertices, sizeof vertices);
    double lo[3], hi[3];
    op_mesh_bounds(&mesh, lo, hi);
    assert_close(lo[0], -1.5, 0.0);
    assert_close(lo[1], -2, 0.0);
    assert_close(lo[2], -7, 0.0);
    assert_close(hi[0], 2, 0.0);
    assert_close(hi[1], 4, 0.0);
    assert_close(hi[2], 8, 0.0);
    op_mesh_free(&mesh);

    op_mesh_bounds(&mesh, lo, hi);
    for (int d = 0; d < 3; ++d) {
        assert_close(lo[d], 0.0, 0.0);
        assert_close(hi[d], 0.0, 0.0);
    }
}

/* The coarse stand-in of a torus (2,304 triangles): at most the faces asked for and more than
 * a third of them, corners that are distinct vertices of the mesh, and the winding kept: all
 * but 2% of the faces still face away from the tube's core circle (clustering can fold a few;
 * at a few dozen faces for the whole torus, half fold). A mesh within the budget comes back
 * whole. */
/* The enclosed volume: the bar is a 1 × 0.05 × 0.05 m box wherever it is placed (each triangle is
 * taken relative to the first vertex, so a placement 10⁶ m away loses no digits); the shapes'
 * volumes are checked in tests/test_build.c. */
static void test_volume(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh bar;
    assert_int_equal(op_shape_mesh(&ctx, "bar", &bar), OP_OK);
    assert_close(op_mesh_volume(&bar), 1.0 * 0.05 * 0.05, 1e-14);
    for (int v = 0; v < bar.vertex_count; ++v)
        bar.vertices[3 * v] += 1e6;
    assert_close(op_mesh_volume(&bar), 1.0 * 0.05 * 0.05, 1e-12);
    op_mesh_free(&bar);
}

static void test_cluster_faces(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh torus;
    assert_int_equal(op_shape_mesh(&ctx, "torus", &torus), OP_OK);
    for (int budget = 120; budget <= 1920; budget *= 2) {
        int *faces = NULL, count = 0, inward = 0;
        assert_int_equal(op_mesh_cluster_faces(&ctx, &torus, budget, &faces, &count), OP_OK);
        assert_true(count <= budget && 3 * count > budget);
        for (int t = 0; t < count; ++t) {
            const int *f = &faces[3 * t];
            double p[3][3], centre[3] = { 0, 0, 0 }, normal[3], u[3], v[3];
            for (int k = 0; k < 3; ++k) {
                assert_true(f[k] >= 0 && f[k] < torus.vertex_count);
                for (int d = 0; d < 3; ++d) {
                    p[k][d] = torus.vertices[3 * f[k] + d];
                    centre[d] += p[k][d] / 3;
                }
            }
            assert_true(f[0] != f[1] && f[1] != f[2] && f[0] != f[2]);
            for (int d = 0; d < 3; ++d)
                u[d] = p[1][d] - p[0][d], v[d] = p[2][d] - p[0][d];
            normal[0] = u[1] * v[2] - u[2] * v[1];
            normal[1] = u[2] * v[0] - u[0] * v[2];
            normal[2] = u[0] * v[1] - u[1] * v[0];
            /* the core circle of radius 0.3 in the xz-plane */
            double ring = sqrt(centre[0] * centre[0] + centre[2] * centre[2]);
            double out[3] = { centre[0] - 0.3 * centre[0] / ring, centre[1], centre[2] - 0.3 * centre[2] / ring };
            inward += !(normal[0] * out[0] + normal[1] * out[1] + normal[2] * out[2] > 0);
        }
        print_message("budget %4d: %4d faces, %d facing inward\n", budget, count, inward);
        assert_true(50 * inward <= count);
        free(faces);
    }
    int *faces = NULL, count = 0;
    assert_int_equal(op_mesh_cluster_faces(&ctx, &torus, torus.face_count, &faces, &count), OP_OK);
    assert_int_equal(count, torus.face_count);
    assert_memory_equal(faces, torus.faces, 3 * sizeof(int) * (size_t)count);
    free(faces);
    assert_int_equal(op_mesh_cluster_faces(&ctx, &torus, 0, &faces, &count), OP_ERR_USAGE);
    assert_null(faces);
    op_mesh_free(&torus);
}

static void test_check_rejects_bad_meshes(void **state)
{
    (void)state;
    op_mesh mesh = { 0 };
    make_tetrahedron(&mesh);
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_mesh_check(&ctx, &mesh, "tet"), OP_OK);

    mesh.vertices[4] = NAN;
    assert_int_equal(op_mesh_check(&ctx, &mesh, "tet"), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "tet: vertex 1 is not finite"));
    mesh.vertices[4] = 0;

    op_ctx_init(&ctx);
    mesh.faces[7] = -1;
    assert_int_equal(op_mesh_check(&ctx, &mesh, "tet"), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "tet: triangle 2 has vertex index -1 out of range"));
    mesh.faces[7] = 3;

    op_ctx_init(&ctx);
    mesh.faces[11] = 1;
    assert_int_equal(op_mesh_check(&ctx, &mesh, "tet"), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "tet: triangle 3 (1 2 1) repeats a vertex"));
    op_mesh_free(&mesh);
}

static void test_alloc_and_free(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh mesh = { 0 };
    assert_int_equal(op_mesh_alloc(&ctx, &mesh, 5, 7), OP_OK);
    assert_int_equal(mesh.vertex_count, 5);
    assert_int_equal(mesh.face_count, 7);
    assert_int_equal(mesh.polygon_count, 7);
    assert_non_null(mesh.vertices);
    assert_non_null(mesh.faces);
    for (int k = 0; k < 15; ++k)
        assert_close(mesh.vertices[k], 0.0, 0.0);
    for (int k = 0; k < 21; ++k)
        assert_int_equal(mesh.faces[k], 0);
    op_mesh_free(&mesh);
    assert_mesh_empty(&mesh);
    op_mesh_free(&mesh);
    assert_mesh_empty(&mesh);

    assert_int_equal(op_mesh_alloc(&ctx, &mesh, -1, 2), OP_ERR_INVALID);
    assert_int_equal(ctx.status, OP_ERR_INVALID);
    assert_mesh_empty(&mesh);
}

static void test_print(void **state)
{
    (void)state;
    op_mesh mesh = { 0 };
    make_tetrahedron(&mesh);
    mesh.vertices[0] = -0.5;
    FILE *out = tmpfile();
    assert_non_null(out);
    op_mesh_print(out, &mesh, "tet");
    rewind(out);
    char text[256] = { 0 };
    size_t length = fread(text, 1, sizeof text - 1, out);
    fclose(out);
    assert_true(length > 0);
    assert_string_equal(text, "tet: 4 vertices, 4 triangles from 4 polygons\n"
                              "tet: bounds [-0.5, 0, 0] .. [1, 1, 1]\n");
    op_mesh_free(&mesh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_off_comments_and_blank_lines),
        cmocka_unit_test(test_coff_with_colours),
        cmocka_unit_test(test_off_header_and_counts_on_one_line),
        cmocka_unit_test(test_noff_and_cnoff_headers),
        cmocka_unit_test(test_off_quad_and_pentagon_fan_triangulated),
        cmocka_unit_test(test_off_long_polygon_line),
        cmocka_unit_test(test_obj_index_forms_and_ignored_records),
        cmocka_unit_test(test_read_extension_is_case_insensitive),
        cmocka_unit_test(test_off_bad_header),
        cmocka_unit_test(test_off_missing_header),
        cmocka_unit_test(test_off_missing_counts),
        cmocka_unit_test(test_off_bad_counts),
        cmocka_unit_test(test_off_negative_count),
        cmocka_unit_test(test_off_absurd_count),
        cmocka_unit_test(test_off_truncated_vertices),
        cmocka_unit_test(test_off_truncated_faces),
        cmocka_unit_test(test_off_index_out_of_range),
        cmocka_unit_test(test_obj_index_out_of_range),
        cmocka_unit_test(test_obj_index_zero),
        cmocka_unit_test(test_obj_bad_reference_and_vertex),
        cmocka_unit_test(test_face_with_two_vertices),
        cmocka_unit_test(test_off_face_missing_index),
        cmocka_unit_test(test_nan_coordinate),
        cmocka_unit_test(test_inf_coordinate),
        cmocka_unit_test(test_non_numeric_coordinate),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_binary_junk),
        cmocka_unit_test(test_off_extra_data_after_faces),
        cmocka_unit_test(test_repeated_vertex_in_face),
        cmocka_unit_test(test_unknown_extension),
        cmocka_unit_test(test_nonexistent_file),
        cmocka_unit_test(test_directory_is_a_read_error),
        cmocka_unit_test(test_write_obj_round_trip_is_bitwise),
        cmocka_unit_test(test_write_obj_replaces_existing_file),
        cmocka_unit_test(test_write_obj_into_missing_directory_fails),
        cmocka_unit_test(test_write_obj_failed_rename_removes_temporary),
        cmocka_unit_test(test_write_obj_refuses_invalid_mesh),
        cmocka_unit_test(test_is_closed),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_volume),
        cmocka_unit_test(test_cluster_faces),
        cmocka_unit_test(test_check_rejects_bad_meshes),
        cmocka_unit_test(test_alloc_and_free),
        cmocka_unit_test(test_print),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
