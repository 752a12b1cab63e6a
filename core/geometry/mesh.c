/* Triangle meshes: the OFF and OBJ readers (line-oriented, every error located at path:line),
 * the atomic OBJ writer, validation, bounds and the closed-surface test. */
#include "opsim/mesh.h"

#include "io/atomic.h"
#include "io/input.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/math3.h"

/* Far beyond any mesh opsim simulates, yet small enough that 3 * count still fits an int,
 * so face and vertex arrays can be indexed with plain ints. It also stops a corrupt header
 * from asking for gigabytes. */
#define MESH_COUNT_LIMIT 100000000

/* Tokens quoted in messages are clipped so a megabyte of junk cannot flood the message. */
#define QUOTE_WIDTH 40

/* One reader's state: the line stream being tokenized and the mesh growing from it. */
typedef struct mesh_parser {
    op_ctx *ctx;
    const char *path;
    FILE *file;
    char *line;
    size_t line_capacity;
    long line_number;
    char **tokens;
    int token_count;
    int token_capacity;

    double *vertices;
    int vertex_count;
    int vertex_capacity;
    /* stamps[v] == polygon_count + 1 while v is already a corner of the polygon being read:
     * an O(1) repeated-vertex test that needs no clearing between polygons. */
    int *stamps;
    int stamp_capacity;
    int *faces;
    int face_count;
    int face_capacity;
    int polygon_count;
    /* fan triangulation state of the polygon being read */
    int corner_count;
    int first_corner;
    int previous_corner;
} mesh_parser;

static int parse_fail(mesh_parser *parser, op_status status, long line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static int parse_fail(mesh_parser *parser, op_status status, long line, const char *format, ...)
{
    char reason[768];
    va_list args;
    va_start(args, format);
    vsnprintf(reason, sizeof reason, format, args);
    va_end(args);
    return OP_FAIL(parser->ctx, status, "%s:%ld: %s", parser->path, line, reason);
}

/* Messages about a missing continuation point just past the last line read. */
static long end_of_file_line(const mesh_parser *parser)
{
    return parser->line_number + 1;
}

static int open_parser(mesh_parser *parser, op_ctx *ctx, const char *path)
{
    memset(parser, 0, sizeof *parser);
    parser->ctx = ctx;
    parser->path = path;
    parser->file = op_input_open(ctx, path, OP_INPUT_MAX_MESH_BYTES, "mesh");
    if (!parser->file)
        return ctx->status;
    return OP_OK;
}

static void close_parser(mesh_parser *parser)
{
    if (parser->file)
        fclose(parser->file);
    free(parser->line);
    free(parser->tokens);
    free(parser->vertices);
    free(parser->stamps);
    free(parser->faces);
    memset(parser, 0, sizeof *parser);
}

/* Grows an array of `element_size`-byte elements to hold `needed` elements. Returns the new
 * block, or NULL with the old block untouched so the caller can still free it. */
static void *grow_array(op_ctx *ctx, void *array, int *capacity, int needed, size_t element_size)
{
    if (needed <= *capacity)
        return array;
    int new_capacity = *capacity > 0 ? 2 * *capacity : 256;
    if (new_capacity < needed)
        new_capacity = needed;
    void *grown = realloc(array, (size_t)new_capacity * element_size);
    if (!grown) {
        OP_FAIL(ctx, OP_ERR_NOMEM, "out of memory growing an array to %d x %zu bytes", new_capacity,
                element_size);
        return NULL;
    }
    *capacity = new_capacity;
    return grown;
}

/* Text files hold printable bytes and whitespace; anything else below 0x20 (NUL above all)
 * means the file is not what its extension claims. Bytes >= 0x80 pass: UTF-8 comments are
 * legitimate, and in a number they fail the numeric parse anyway. */
static int is_binary_byte(unsigned char byte)
{
    if (byte == '\t' || byte == '\n' || byte == '\r' || byte == '\v' || byte == '\f')
        return 0;
    return byte < 0x20 || byte == 0x7f;
}

static int is_separator(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Splits the current line in place into whitespace-separated tokens, dropping a `#` comment. */
static int tokenize_line(mesh_parser *parser)
{
    char *comment = strchr(parser->line, '#');
    if (comment)
        *comment = '\0';
    parser->token_count = 0;
    char *cursor = parser->line;
    for (;;) {
        while (is_separator(*cursor))
            ++cursor;
        if (*cursor == '\0')
            return OP_OK;
        char **tokens = grow_array(parser->ctx, parser->tokens, &parser->token_capacity,
                                   parser->token_count + 1, sizeof *tokens);
        if (!tokens)
            return OP_ERR_NOMEM;
        parser->tokens = tokens;
        parser->tokens[parser->token_count++] = cursor;
        while (*cursor != '\0' && !is_separator(*cursor))
            ++cursor;
        if (*cursor != '\0')
            *cursor++ = '\0';
    }
}

/* Reads up to the next line holding data, skipping blank and comment-only lines.
 * Returns 1 with parser->tokens filled, 0 at the end of the file, or a negative status. */
static int next_data_line(mesh_parser *parser)
{
    for (;;) {
        errno = 0;
        ssize_t length = getline(&parser->line, &parser->line_capacity, parser->file);
        if (length < 0) {
            if (ferror(parser->file) || !feof(parser->file)) {
                op_status status = errno == ENOMEM ? OP_ERR_NOMEM : OP_ERR_IO;
                return parse_fail(parser, status, end_of_file_line(parser), "read error: %s",
                                  strerror(errno));
            }
            if (parser->line_number == 0)
                return parse_fail(parser, OP_ERR_PARSE, 1, "empty file");
            return 0;
        }
        ++parser->line_number;
        for (ssize_t i = 0; i < length; ++i)
            if (is_binary_byte((unsigned char)parser->line[i]))
                return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                                  "binary data (byte 0x%02x at column %zd): not a text mesh file",
                                  (unsigned char)parser->line[i], i + 1);
        int status = tokenize_line(parser);
        if (status != OP_OK)
            return status;
        if (parser->token_count > 0)
            return 1;
    }
}

/* An integer too long for a long saturates (strtol's ERANGE result) and so still fails the
 * caller's range check; messages quote the token, not the saturated value. */
static int parse_integer(const char *token, long *value)
{
    char *end;
    *value = strtol(token, &end, 10);
    return end != token && *end == '\0';
}

static int parse_coordinate(mesh_parser *parser, const char *token, double *value)
{
    char *end;
    *value = strtod(token, &end);
    if (end == token || *end != '\0')
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number, "bad coordinate '%.*s': not a number",
                          QUOTE_WIDTH, token);
    /* strtod accepts "nan" and "inf", and overflows to inf: none of them is a position */
    if (!isfinite(*value))
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                          "coordinate '%.*s' is not a finite number", QUOTE_WIDTH, token);
    return OP_OK;
}

/* Appends the vertex whose x y z are tokens[first..first+2]. */
static int add_vertex(mesh_parser *parser, int first)
{
    if (parser->token_count < first + 3)
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                          "vertex has %d coordinate(s), expected x y z", parser->token_count - first);
    if (parser->vertex_count == MESH_COUNT_LIMIT)
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number, "more than %d vertices",
                          MESH_COUNT_LIMIT);
    double xyz[3];
    for (int d = 0; d < 3; ++d) {
        int status = parse_coordinate(parser, parser->tokens[first + d], &xyz[d]);
        if (status != OP_OK)
            return status;
    }
    int needed = parser->vertex_count + 1;
    double *vertices = grow_array(parser->ctx, parser->vertices, &parser->vertex_capacity, needed,
                                  3 * sizeof *vertices);
    if (!vertices)
        return OP_ERR_NOMEM;
    parser->vertices = vertices;
    int *stamps = grow_array(parser->ctx, parser->stamps, &parser->stamp_capacity, needed, sizeof *stamps);
    if (!stamps)
        return OP_ERR_NOMEM;
    parser->stamps = stamps;
    parser->stamps[parser->vertex_count] = 0;
    memcpy(&parser->vertices[3 * parser->vertex_count], xyz, sizeof xyz);
    parser->vertex_count = needed;
    return OP_OK;
}

/* Every polygon yields at least one triangle, so the triangle limit in add_corner also
 * bounds polygon_count. */
static void begin_polygon(mesh_parser *parser)
{
    parser->corner_count = 0;
}

/* Adds a validated zero-based vertex to the current polygon, emitting the fan triangle
 * (first, previous, vertex) once three corners are known. `written` is the index as the file
 * spells it, for the message. */
static int add_corner(mesh_parser *parser, int vertex, long written)
{
    int polygon_stamp = parser->polygon_count + 1;
    if (parser->stamps[vertex] == polygon_stamp)
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                          "face repeats vertex %ld (a degenerate triangle)", written);
    parser->stamps[vertex] = polygon_stamp;
    if (parser->corner_count >= 2) {
        if (parser->face_count == MESH_COUNT_LIMIT)
            return parse_fail(parser, OP_ERR_PARSE, parser->line_number, "more than %d triangles",
                              MESH_COUNT_LIMIT);
        int *faces = grow_array(parser->ctx, parser->faces, &parser->face_capacity, parser->face_count + 1,
                                3 * sizeof *faces);
        if (!faces)
            return OP_ERR_NOMEM;
        parser->faces = faces;
        int *triangle = &parser->faces[3 * parser->face_count++];
        triangle[0] = parser->first_corner;
        triangle[1] = parser->previous_corner;
        triangle[2] = vertex;
    } else if (parser->corner_count == 0) {
        parser->first_corner = vertex;
    }
    parser->previous_corner = vertex;
    ++parser->corner_count;
    return OP_OK;
}

static void end_polygon(mesh_parser *parser)
{
    ++parser->polygon_count;
}

/* Hands the arrays over to *mesh, trimmed to size: growth by doubling can leave half unused. */
static void finish_mesh(mesh_parser *parser, op_mesh *mesh)
{
    double *vertices = realloc(parser->vertices, (size_t)parser->vertex_count * 3 * sizeof *vertices);
    if (vertices)
        parser->vertices = vertices;
    int *faces = realloc(parser->faces, (size_t)parser->face_count * 3 * sizeof *faces);
    if (faces)
        parser->faces = faces;
    mesh->vertices = parser->vertices;
    mesh->faces = parser->faces;
    mesh->vertex_count = parser->vertex_count;
    mesh->face_count = parser->face_count;
    mesh->polygon_count = parser->polygon_count;
    parser->vertices = NULL;
    parser->faces = NULL;
}

static int is_off_header(const char *token)
{
    return strcmp(token, "OFF") == 0 || strcmp(token, "COFF") == 0 || strcmp(token, "NOFF") == 0 ||
           strcmp(token, "CNOFF") == 0;
}

static int parse_count(mesh_parser *parser, const char *token, const char *what, int *count)
{
    long value;
    if (!parse_integer(token, &value))
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number, "bad %s count '%.*s': not an integer",
                          what, QUOTE_WIDTH, token);
    if (value < 0)
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number, "negative %s count %.*s", what,
                          QUOTE_WIDTH, token);
    if (value > MESH_COUNT_LIMIT)
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number, "%s count %.*s exceeds the limit of %d",
                          what, QUOTE_WIDTH, token, MESH_COUNT_LIMIT);
    *count = (int)value;
    return OP_OK;
}

/* The counts are tokens[first..]: vertices, faces and the (unused, optional) edge count. */
static int parse_off_counts(mesh_parser *parser, int first, int *vertex_count, int *face_count)
{
    int given = parser->token_count - first;
    if (given < 2 || given > 3)
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                          "bad counts line: expected 'vertices faces [edges]', found %d value(s)", given);
    int edge_count;
    int status = parse_count(parser, parser->tokens[first], "vertex", vertex_count);
    if (status == OP_OK)
        status = parse_count(parser, parser->tokens[first + 1], "face", face_count);
    if (status == OP_OK && given == 3)
        status = parse_count(parser, parser->tokens[first + 2], "edge", &edge_count);
    if (status == OP_OK && *face_count == 0)
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number, "the file announces no faces");
    return status;
}

static int read_off_face(mesh_parser *parser, int announced_vertices)
{
    long corners;
    if (!parse_integer(parser->tokens[0], &corners))
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                          "bad face vertex count '%.*s': not an integer", QUOTE_WIDTH, parser->tokens[0]);
    if (corners < 3)
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                          "face has %.*s vertices, at least 3 needed", QUOTE_WIDTH, parser->tokens[0]);
    if (corners > parser->token_count - 1)
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                          "face announces %.*s vertices but lists only %d indices", QUOTE_WIDTH,
                          parser->tokens[0], parser->token_count - 1);
    begin_polygon(parser);
    int status = OP_OK;
    /* tokens after the indices are the face's colour: skipped */
    for (long c = 1; status == OP_OK && c <= corners; ++c) {
        const char *token = parser->tokens[c];
        long index;
        if (!parse_integer(token, &index))
            return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                              "bad vertex index '%.*s': not an integer", QUOTE_WIDTH, token);
        if (index < 0 || index >= announced_vertices)
            return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                              "vertex index %.*s out of range: the file has %d vertices (0..%d)",
                              QUOTE_WIDTH, token, announced_vertices, announced_vertices - 1);
        status = add_corner(parser, (int)index, index);
    }
    if (status == OP_OK)
        end_polygon(parser);
    return status;
}

static int read_off_body(mesh_parser *parser)
{
    int found = next_data_line(parser);
    if (found < 0)
        return found;
    if (found == 0)
        return parse_fail(parser, OP_ERR_PARSE, end_of_file_line(parser),
                          "missing OFF header: the file holds no data");
    if (!is_off_header(parser->tokens[0]))
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                          "bad header '%.*s': expected OFF, COFF, NOFF or CNOFF", QUOTE_WIDTH, parser->tokens[0]);
    /* the counts may share the header's line ("OFF 8 6 0") */
    int first_count = 1;
    if (parser->token_count == 1) {
        found = next_data_line(parser);
        if (found < 0)
            return found;
        if (found == 0)
            return parse_fail(parser, OP_ERR_PARSE, end_of_file_line(parser),
                              "unexpected end of file: missing the counts line");
        first_count = 0;
    }
    int vertex_count, face_count;
    int status = parse_off_counts(parser, first_count, &vertex_count, &face_count);
    if (status != OP_OK)
        return status;

    for (int v = 0; v < vertex_count; ++v) {
        found = next_data_line(parser);
        if (found < 0)
            return found;
        if (found == 0)
            return parse_fail(parser, OP_ERR_PARSE, end_of_file_line(parser),
                              "unexpected end of file: read %d of %d vertices", v, vertex_count);
        /* values after x y z are colours or normals (COFF, NOFF): skipped */
        status = add_vertex(parser, 0);
        if (status != OP_OK)
            return status;
    }
    for (int f = 0; f < face_count; ++f) {
        found = next_data_line(parser);
        if (found < 0)
            return found;
        if (found == 0)
            return parse_fail(parser, OP_ERR_PARSE, end_of_file_line(parser),
                              "unexpected end of file: read %d of %d faces", f, face_count);
        status = read_off_face(parser, vertex_count);
        if (status != OP_OK)
            return status;
    }
    found = next_data_line(parser);
    if (found < 0)
        return found;
    if (found > 0)
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                          "unexpected data after the %d announced faces", face_count);
    return OP_OK;
}

/* Parses an OBJ vertex reference: i, i/t, i//n or i/t/n. Only i is kept; the texture and
 * normal parts must still be integers so a mangled token is reported, not half-read. */
static int parse_obj_reference(const char *token, long *vertex)
{
    char *end;
    *vertex = strtol(token, &end, 10);
    if (end == token)
        return 0;
    if (*end == '\0')
        return 1;
    if (*end != '/')
        return 0;
    const char *rest = end + 1;
    if (*rest != '/') {
        strtol(rest, &end, 10);
        if (end == rest)
            return 0;
        if (*end == '\0')
            return 1;
        if (*end != '/')
            return 0;
        rest = end;
    }
    ++rest;
    strtol(rest, &end, 10);
    return end != rest && *end == '\0';
}

static int read_obj_face(mesh_parser *parser)
{
    int corners = parser->token_count - 1;
    if (corners < 3)
        return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                          "face has %d vertices, at least 3 needed", corners);
    begin_polygon(parser);
    int status = OP_OK;
    for (int c = 1; status == OP_OK && c <= corners; ++c) {
        const char *token = parser->tokens[c];
        long written;
        if (!parse_obj_reference(token, &written))
            return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                              "bad vertex reference '%.*s': expected i, i/t, i//n or i/t/n", QUOTE_WIDTH,
                              token);
        if (written == 0)
            return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                              "vertex index 0: OBJ indices start at 1 (negative ones count back)");
        /* Positive indices may only name vertices already defined: OBJ writers always emit
         * vertices first, and it lets the error point at the offending face. */
        long index = written > 0 ? written - 1 : parser->vertex_count + written;
        if (index < 0 || index >= parser->vertex_count)
            return parse_fail(parser, OP_ERR_PARSE, parser->line_number,
                              "vertex index '%.*s' out of range: %d vertices defined so far", QUOTE_WIDTH,
                              token, parser->vertex_count);
        status = add_corner(parser, (int)index, index + 1);
    }
    if (status == OP_OK)
        end_polygon(parser);
    return status;
}

static int read_obj_body(mesh_parser *parser)
{
    int found;
    while ((found = next_data_line(parser)) > 0) {
        const char *record = parser->tokens[0];
        int status = OP_OK;
        /* values after x y z (w, or vertex colours some writers add) are skipped; every other
         * record (vn, vt, o, g, s, usemtl, mtllib, l, p ...) carries nothing a surface needs */
        if (strcmp(record, "v") == 0)
            status = add_vertex(parser, 1);
        else if (strcmp(record, "f") == 0)
            status = read_obj_face(parser);
        if (status != OP_OK)
            return status;
    }
    if (found < 0)
        return found;
    if (parser->polygon_count == 0)
        return parse_fail(parser, OP_ERR_PARSE, end_of_file_line(parser), "no faces in the file");
    return OP_OK;
}

static int read_mesh(op_ctx *ctx, const char *path, op_mesh *mesh, int (*read_body)(mesh_parser *))
{
    memset(mesh, 0, sizeof *mesh);
    mesh_parser parser;
    int status = open_parser(&parser, ctx, path);
    if (status == OP_OK)
        status = read_body(&parser);
    if (status == OP_OK)
        finish_mesh(&parser, mesh);
    close_parser(&parser);
    return status;
}

int op_mesh_read_off(op_ctx *ctx, const char *path, op_mesh *mesh)
{
    return read_mesh(ctx, path, mesh, read_off_body);
}

int op_mesh_read_obj(op_ctx *ctx, const char *path, op_mesh *mesh)
{
    return read_mesh(ctx, path, mesh, read_obj_body);
}

int op_mesh_read(op_ctx *ctx, const char *path, op_mesh *mesh)
{
    memset(mesh, 0, sizeof *mesh);
    const char *base = strrchr(path, '/');
    const char *extension = strrchr(base ? base : path, '.');
    if (extension && strcasecmp(extension, ".off") == 0)
        return op_mesh_read_off(ctx, path, mesh);
    if (extension && strcasecmp(extension, ".obj") == 0)
        return op_mesh_read_obj(ctx, path, mesh);
    return OP_FAIL(ctx, OP_ERR_USAGE, "%s: unknown mesh format '%s': expected a .off or .obj file", path,
                   extension ? extension : "(no extension)");
}

/* A failed fprintf sets the stream's error flag, which op_atomic_commit reports. */
static void write_obj_lines(FILE *file, const op_mesh *mesh)
{
    fprintf(file, "# opsim mesh: %d vertices, %d triangles\n", mesh->vertex_count, mesh->face_count);
    /* %.17g: every double survives the text round trip bit for bit */
    for (int v = 0; v < mesh->vertex_count; ++v) {
        const double *p = &mesh->vertices[3 * v];
        fprintf(file, "v %.17g %.17g %.17g\n", p[0], p[1], p[2]);
    }
    for (int f = 0; f < mesh->face_count; ++f) {
        const int *t = &mesh->faces[3 * f];
        fprintf(file, "f %d %d %d\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
}

int op_mesh_write_obj(op_ctx *ctx, const char *path, const op_mesh *mesh)
{
    /* the reader would reject what an invalid mesh writes, so refuse it here, where the
     * cause is still known */
    int status = op_mesh_check(ctx, mesh, path);
    if (status != OP_OK)
        return status;
    op_atomic_file out;
    if (op_atomic_open(ctx, &out, path) != OP_OK)
        return ctx->status;
    write_obj_lines(out.file, mesh);
    return op_atomic_commit(ctx, &out);
}

int op_mesh_check(op_ctx *ctx, const op_mesh *mesh, const char *name)
{
    if (mesh->vertex_count < 0 || mesh->face_count < 0 || mesh->polygon_count < 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: negative count (%d vertices, %d triangles, %d polygons)", name,
                       mesh->vertex_count, mesh->face_count, mesh->polygon_count);
    if ((mesh->vertex_count > 0 && !mesh->vertices) || (mesh->face_count > 0 && !mesh->faces))
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: counts without storage", name);
    for (int v = 0; v < mesh->vertex_count; ++v) {
        const double *p = &mesh->vertices[3 * v];
        if (!(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2])))
            return OP_FAIL(ctx, OP_ERR_INVALID, "%s: vertex %d is not finite (%g, %g, %g)", name, v, p[0], p[1],
                           p[2]);
    }
    for (int f = 0; f < mesh->face_count; ++f) {
        const int *t = &mesh->faces[3 * f];
        for (int c = 0; c < 3; ++c)
            if (t[c] < 0 || t[c] >= mesh->vertex_count)
                return OP_FAIL(ctx, OP_ERR_INVALID,
                               "%s: triangle %d has vertex index %d out of range (%d vertices)", name, f, t[c],
                               mesh->vertex_count);
        if (t[0] == t[1] || t[1] == t[2] || t[2] == t[0])
            return OP_FAIL(ctx, OP_ERR_INVALID, "%s: triangle %d (%d %d %d) repeats a vertex", name, f, t[0],
                           t[1], t[2]);
    }
    return OP_OK;
}

void op_mesh_print(FILE *out, const op_mesh *mesh, const char *name)
{
    double lo[3], hi[3];
    op_mesh_bounds(mesh, lo, hi);
    fprintf(out, "%s: %d vertices, %d triangles from %d polygons\n", name, mesh->vertex_count, mesh->face_count,
            mesh->polygon_count);
    fprintf(out, "%s: bounds [%.6g, %.6g, %.6g] .. [%.6g, %.6g, %.6g]\n", name, lo[0], lo[1], lo[2], hi[0],
            hi[1], hi[2]);
}

int op_mesh_alloc(op_ctx *ctx, op_mesh *mesh, int vertex_count, int face_count)
{
    memset(mesh, 0, sizeof *mesh);
    if (vertex_count < 0 || face_count < 0 || vertex_count > MESH_COUNT_LIMIT || face_count > MESH_COUNT_LIMIT)
        return OP_FAIL(ctx, OP_ERR_INVALID, "mesh: %d vertices and %d triangles is outside 0..%d", vertex_count,
                       face_count, MESH_COUNT_LIMIT);
    double *vertices = op_calloc(ctx, 3 * (size_t)vertex_count, sizeof *vertices);
    int *faces = op_calloc(ctx, 3 * (size_t)face_count, sizeof *faces);
    if (!vertices || !faces) {
        free(vertices);
        free(faces);
        return OP_ERR_NOMEM;
    }
    mesh->vertices = vertices;
    mesh->faces = faces;
    mesh->vertex_count = vertex_count;
    mesh->face_count = face_count;
    mesh->polygon_count = face_count;
    return OP_OK;
}

void op_mesh_free(op_mesh *mesh)
{
    free(mesh->vertices);
    free(mesh->faces);
    memset(mesh, 0, sizeof *mesh);
}

/* An empty mesh gets a zero box rather than inverted infinities, so callers printing or
 * scaling by it never see non-finite numbers. */
void op_mesh_bounds(const op_mesh *mesh, double lo[3], double hi[3])
{
    for (int d = 0; d < 3; ++d)
        lo[d] = hi[d] = mesh->vertex_count > 0 ? mesh->vertices[d] : 0.0;
    for (int v = 1; v < mesh->vertex_count; ++v)
        for (int d = 0; d < 3; ++d) {
            double x = mesh->vertices[3 * v + d];
            if (x < lo[d])
                lo[d] = x;
            if (x > hi[d])
                hi[d] = x;
        }
}

static uint64_t directed_edge_key(int from, int to)
{
    return (uint64_t)(uint32_t)from << 32 | (uint32_t)to;
}

static int compare_keys(const void *a, const void *b)
{
    uint64_t ka = *(const uint64_t *)a, kb = *(const uint64_t *)b;
    return (ka > kb) - (ka < kb);
}

/* With every directed edge unique, finding each one's reverse means each undirected edge
 * is used exactly once in each direction, i.e. by exactly two consistently oriented
 * triangles. Answers 0 (not shown closed) for an empty mesh and when the edge list cannot
 * be allocated: callers use this as a precondition, so doubt must not pass. */
int op_mesh_is_closed(const op_mesh *mesh)
{
    if (mesh->face_count <= 0)
        return 0;
    size_t edge_count = 3 * (size_t)mesh->face_count;
    uint64_t *keys = malloc(edge_count * sizeof *keys);
    if (!keys)
        return 0;
    for (int f = 0; f < mesh->face_count; ++f) {
        const int *t = &mesh->faces[3 * f];
        for (int c = 0; c < 3; ++c)
            keys[3 * (size_t)f + c] = directed_edge_key(t[c], t[(c + 1) % 3]);
    }
    qsort(keys, edge_count, sizeof *keys, compare_keys);
    int closed = 1;
    for (size_t e = 0; closed && e < edge_count; ++e) {
        uint64_t reverse = keys[e] << 32 | keys[e] >> 32;
        closed = (e == 0 || keys[e] != keys[e - 1]) &&
                 bsearch(&reverse, keys, edge_count, sizeof *keys, compare_keys) != NULL;
    }
    free(keys);
    return closed;
}

/* ---- coarse surfaces for pictures ---- */

typedef struct cluster_item {
    uint64_t key;
    int vertex;
} cluster_item;

static int compare_cluster_item(const void *x, const void *y)
{
    const cluster_item *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->vertex > b->vertex) - (a->vertex < b->vertex);
}

/* Clusters the vertices on a grid of cells `cell` wide from `lo` and writes the surviving
 * triangles into faces (room for the mesh's); returns their number. */
static int cluster_with_cell(const op_mesh *mesh, const double lo[3], double cell, cluster_item *items, int *rep,
                             int *faces)
{
    int n = mesh->vertex_count;
    for (int v = 0; v < n; ++v) {
        uint64_t key = 0;
        for (int d = 0; d < 3; ++d) {
            double c = floor((mesh->vertices[3 * v + d] - lo[d]) / cell);
            key = key << 21 | (uint64_t)fmin(fmax(c, 0.0), (double)((1 << 21) - 1));
        }
        items[v] = (cluster_item){ key, v };
    }
    qsort(items, (size_t)n, sizeof *items, compare_cluster_item);
    for (int first = 0, last; first < n; first = last) {
        double mean[3] = { 0, 0, 0 };
        for (last = first; last < n && items[last].key == items[first].key; ++last)
            for (int d = 0; d < 3; ++d)
                mean[d] += mesh->vertices[3 * items[last].vertex + d];
        for (int d = 0; d < 3; ++d)
            mean[d] /= last - first;
        int best = items[first].vertex;
        double best_distance = INFINITY;
        for (int k = first; k < last; ++k) {
            const double *p = &mesh->vertices[3 * items[k].vertex];
            double distance = 0.0;
            for (int d = 0; d < 3; ++d)
                distance += (p[d] - mean[d]) * (p[d] - mean[d]);
            if (distance < best_distance) /* ascending vertex order: ties keep the lowest index */
                best_distance = distance, best = items[k].vertex;
        }
        for (int k = first; k < last; ++k)
            rep[items[k].vertex] = best;
    }
    int count = 0;
    for (int t = 0; t < mesh->face_count; ++t) {
        int a = rep[mesh->faces[3 * t]], b = rep[mesh->faces[3 * t + 1]], c = rep[mesh->faces[3 * t + 2]];
        if (a != b && b != c && a != c) {
            faces[3 * count] = a, faces[3 * count + 1] = b, faces[3 * count + 2] = c;
            ++count;
        }
    }
    return count;
}

int op_mesh_cluster_faces(op_ctx *ctx, const op_mesh *mesh, int max_faces, int **faces, int *count)
{
    *faces = NULL;
    *count = 0;
    if (max_faces < 1)
        return OP_FAIL(ctx, OP_ERR_USAGE, "a coarse surface needs at least one face, not %d", max_faces);
    int *best = op_calloc(ctx, 3 * (size_t)(mesh->face_count > 0 ? mesh->face_count : 1), sizeof(int));
    if (!best)
        return ctx->status;
    if (mesh->face_count <= max_faces) {
        memcpy(best, mesh->faces, 3 * (size_t)mesh->face_count * sizeof(int));
        *faces = best;
        *count = mesh->face_count;
        return OP_OK;
    }
    cluster_item *items = op_calloc(ctx, (size_t)mesh->vertex_count, sizeof *items);
    int *rep = op_calloc(ctx, (size_t)mesh->vertex_count, sizeof(int));
    int *trial = op_calloc(ctx, 3 * (size_t)mesh->face_count, sizeof(int));
    if (ctx->status == OP_OK) {
        double lo[3], hi[3];
        op_mesh_bounds(mesh, lo, hi);
        double extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
        /* bisection on log(cell): the fine end keeps nearly every triangle, the coarse end (the
         * whole box, at most 8 clusters) keeps at most a handful */
        double fine = log(extent * 0x1p-20), coarse = log(extent > 0 ? extent : 1.0);
        for (int step = 0; step < 24; ++step) {
            double middle = 0.5 * (fine + coarse);
            int kept = cluster_with_cell(mesh, lo, exp(middle), items, rep, trial);
            if (kept <= max_faces) {
                coarse = middle;
                if (kept > *count || !*count) {
                    *count = kept;
                    memcpy(best, trial, 3 * (size_t)kept * sizeof(int));
                }
            } else
                fine = middle;
        }
        *faces = best;
    }
    free(items);
    free(rep);
    free(trial);
    if (ctx->status != OP_OK) {
        free(best);
        *faces = NULL;
        *count = 0;
    }
    return ctx->status;
}

double op_mesh_volume(const op_mesh *mesh)
{
    if (mesh->vertex_count == 0)
        return 0.0;
    const double *origin = mesh->vertices;
    double sum = 0.0;
    for (int f = 0; f < mesh->face_count; ++f) {
        double p[3][3], cross[3];
        for (int c = 0; c < 3; ++c)
            v3_sub(p[c], &mesh->vertices[3 * mesh->faces[3 * f + c]], origin);
        v3_cross(cross, p[1], p[2]);
        sum += v3_dot(p[0], cross);
    }
    return sum / 6.0;
}
