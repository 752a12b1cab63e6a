/* Experiment configs (scene.h): the INI text becomes a list of (section, key, value, line)
 * entries, the --set overrides edit that list, and only then is it interpreted into a world.
 *
 * Line numbers: inih does not pass them to the handler, so the file is fed to
 * ini_parse_stream through our own line reader. inih reads one line, then calls the handler
 * for it before it reads the next, so the reader's line count is the handler's line; the
 * reader also sees every section header (inih reports none for a section without keys), and
 * rejects indented lines, which inih would silently read as continuations of the previous
 * key. */
#include "opsim/scene.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"
#include "base/nearest.h"
#include "base/paths.h"
#include "base/rng.h"
#include "geometry/build.h"
#include "geometry/model.h"
#include "sim/observe.h"
#include "sim/script.h"
#include "contact/overlap.h"
#include "io/input.h"

enum { NAME_SIZE = 64, MAX_DIRECTIONS = 16 };

typedef struct section_kind {
    const char *type;
    int named;
    const char *const *keys; /* NULL: the solver variant's options, checked once it is known */
} section_kind;

static const char *const run_keys[] = { "frames", "output_every", "output", "models", "edges", NULL };
static const char *const world_keys[] = { "frame_time", "substeps",   "iterations",       "gravity",
                                          "floor",      "friction",   "collisions",       "collision_passes",
                                          "collision_margin",         "log_energy",       "floor_contact",
                                          "rotation_start",           "collision_order",  "collision_passes_max",
                                          "collision_threads",        "collision_rounds", "schedule_threads", NULL };
static const char *const model_keys[] = { "particles", "seed", "voxels", "density", "edges", NULL };
static const char *const body_keys[] = { "model",  "stiffness", "position", "rotation",        "velocity",
                                         "angular_velocity", "start",  "copies",    "grid",     "spacing",         "random_rotation",
                                         NULL };
static const char *const pin_keys[] = { "body", "particle", "hold", NULL };
static const char *const constraint_keys[] = { "body", "type", "vertices", "directions", "weight", "script", NULL };
static const char *const script_keys[] = { "pivot", "key", NULL };
static const char *const observable_keys[] = { "type", "body", "vertex", "constraint", NULL };

static const section_kind section_kinds[] = {
    { "run", 0, run_keys },       { "world", 0, world_keys },           { "solver", 0, NULL },
    { "model", 1, model_keys },   { "body", 1, body_keys },             { "pin", 1, pin_keys },
    { "constraint", 1, constraint_keys }, { "script", 1, script_keys }, { "observable", 1, observable_keys },
};
enum { SECTION_KIND_COUNT = sizeof section_kinds / sizeof section_kinds[0] };

typedef struct section {
    const section_kind *kind;
    char name[NAME_SIZE];     /* "" for run, world and solver */
    char label[NAME_SIZE + 16]; /* "body bar", as messages print it */
    int line;                 /* header line, or 0 when an override made the section */
    const char *override;
} section;

typedef struct entry {
    int section;
    char key[NAME_SIZE];
    char *value;
    int line;             /* 0 for an override */
    const char *override; /* the --set text that gave the value, or NULL */
} entry;

typedef struct config {
    const char *path;
    int section_count, entry_count;
    section *sections;
    entry *entries;
} config;

static void config_free(config *c)
{
    for (int e = 0; e < c->entry_count; ++e)
        free(c->entries[e].value);
    OP_FREE(c->entries);
    OP_FREE(c->sections);
    c->entry_count = c->section_count = 0;
}

/* ---- error messages: "FILE:LINE: ..." or "--set SECTION.KEY=VALUE: ..." ---- */

__attribute__((format(printf, 6, 7))) static int fail_at(op_ctx *ctx, const config *c, int line,
                                                          const char *override, op_status status,
                                                          const char *format, ...)
{
    char message[768];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    if (override)
        return OP_FAIL(ctx, status, "--set %s: %s", override, message);
    return OP_FAIL(ctx, status, "%s:%d: %s", c->path, line, message);
}

__attribute__((format(printf, 5, 6))) static int entry_fail(op_ctx *ctx, const config *c, const entry *e,
                                                             op_status status, const char *format, ...)
{
    char message[768];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    if (e->override)
        return OP_FAIL(ctx, status, "--set %s: %s", e->override, message);
    return OP_FAIL(ctx, status, "%s:%d: [%s] %s = '%s': %s", c->path, e->line, c->sections[e->section].label, e->key,
                   e->value, message);
}

__attribute__((format(printf, 5, 6))) static int section_fail(op_ctx *ctx, const config *c, int s, op_status status,
                                                               const char *format, ...)
{
    char message[768];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    const section *sec = &c->sections[s];
    return fail_at(ctx, c, sec->line, sec->override, status, "[%s]: %s", sec->label, message);
}

/* Takes over the failure of a call made with its own context (when ctx has none yet). */
static int adopt(op_ctx *ctx, const op_ctx *inner)
{
    if (ctx->status == OP_OK)
        *ctx = *inner;
    return inner->status;
}

/* ---- the entry list ---- */

static int is_blank(char ch)
{
    return isspace((unsigned char)ch);
}

static void trim(const char **text, size_t *length)
{
    while (*length && is_blank(**text))
        ++*text, --*length;
    while (*length && is_blank((*text)[*length - 1]))
        --*length;
}

static int section_add(op_ctx *ctx, config *c, const char *text, size_t length, int line, const char *override,
                       int *index)
{
    trim(&text, &length);
    size_t type_length = 0;
    while (type_length < length && !is_blank(text[type_length]))
        ++type_length;
    const char *name = text + type_length;
    size_t name_length = length - type_length;
    trim(&name, &name_length);
    const section_kind *kind = NULL;
    for (int k = 0; k < SECTION_KIND_COUNT && !kind; ++k)
        if (strlen(section_kinds[k].type) == type_length && strncmp(section_kinds[k].type, text, type_length) == 0)
            kind = &section_kinds[k];
    if (!kind)
        return fail_at(ctx, c, line, override, OP_ERR_PARSE,
                       "unknown section [%.*s] (sections: run, world, solver, model NAME, body NAME, pin NAME, "
                       "constraint NAME, script NAME, observable NAME)",
                       (int)length, text);
    if (kind->named && name_length == 0)
        return fail_at(ctx, c, line, override, OP_ERR_PARSE, "section [%s] needs a name: [%s NAME]", kind->type,
                       kind->type);
    if (!kind->named && name_length)
        return fail_at(ctx, c, line, override, OP_ERR_PARSE, "section [%s] takes no name", kind->type);
    if (name_length >= NAME_SIZE)
        return fail_at(ctx, c, line, override, OP_ERR_PARSE, "section name '%.*s' is longer than %d characters",
                       (int)name_length, name, NAME_SIZE - 1);
    for (size_t k = 0; k < name_length; ++k)
        if (!isalnum((unsigned char)name[k]) && name[k] != '_' && name[k] != '-')
            return fail_at(ctx, c, line, override, OP_ERR_PARSE,
                           "section name '%.*s': names are letters, digits, '_' and '-'", (int)name_length, name);
    section added = { .kind = kind, .line = line, .override = override };
    memcpy(added.name, name, name_length);
    strcpy(added.label, kind->type);
    if (name_length) {
        strcat(added.label, " ");
        strcat(added.label, added.name);
    }
    for (int s = 0; s < c->section_count; ++s)
        if (strcmp(c->sections[s].label, added.label) == 0) {
            if (line > 0)
                return fail_at(ctx, c, line, NULL, OP_ERR_PARSE, "section [%s] repeats the one at line %d",
                               added.label, c->sections[s].line);
            *index = s;
            return OP_OK;
        }
    section *grown = realloc(c->sections, ((size_t)c->section_count + 1) * sizeof *grown);
    if (!grown)
        return OP_FAIL(ctx, OP_ERR_NOMEM, "%s: out of memory reading the config", c->path);
    c->sections = grown;
    grown[c->section_count] = added;
    *index = c->section_count++;
    return OP_OK;
}

/* `key` in [script] lists keyframes and `directions` in [constraint] lists directions: both
 * may repeat, every other key may not. */
static int repeatable(const section *sec, const char *key)
{
    return (strcmp(sec->kind->type, "script") == 0 && strcmp(key, "key") == 0) ||
           (strcmp(sec->kind->type, "constraint") == 0 && strcmp(key, "directions") == 0);
}

static int key_check(op_ctx *ctx, const config *c, int s, const char *key, size_t key_length, int line,
                     const char *override)
{
    const section *sec = &c->sections[s];
    if (key_length == 0 || key_length >= NAME_SIZE)
        return fail_at(ctx, c, line, override, OP_ERR_PARSE, "[%s]: a key must have 1 to %d characters", sec->label,
                       NAME_SIZE - 1);
    if (!sec->kind->keys)
        return OP_OK;
    for (const char *const *k = sec->kind->keys; *k; ++k)
        if (strlen(*k) == key_length && strncmp(*k, key, key_length) == 0)
            return OP_OK;
    char valid[256] = "";
    int count = 0;
    for (const char *const *k = sec->kind->keys; *k; ++k, ++count) {
        strncat(valid, valid[0] ? ", " : "", sizeof valid - strlen(valid) - 1);
        strncat(valid, *k, sizeof valid - strlen(valid) - 1);
    }
    const char *near = op_nearest_name(key, key_length, sec->kind->keys, count);
    if (near)
        return fail_at(ctx, c, line, override, OP_ERR_PARSE, "[%s] has no key '%.*s'; did you mean '%s'? (keys: %s)",
                       sec->label, (int)key_length, key, near, valid);
    return fail_at(ctx, c, line, override, OP_ERR_PARSE, "[%s] has no key '%.*s' (keys: %s)", sec->label,
                   (int)key_length, key, valid);
}

static int find_entry(const config *c, int s, const char *key, int from)
{
    for (int e = from; e < c->entry_count; ++e)
        if (c->entries[e].section == s && strcmp(c->entries[e].key, key) == 0)
            return e;
    return -1;
}

static int entry_append(op_ctx *ctx, config *c, int s, const char *key, size_t key_length, const char *value,
                        size_t value_length, int line, const char *override)
{
    entry *grown = realloc(c->entries, ((size_t)c->entry_count + 1) * sizeof *grown);
    if (!grown)
        return OP_FAIL(ctx, OP_ERR_NOMEM, "%s: out of memory reading the config", c->path);
    c->entries = grown;
    entry *e = &grown[c->entry_count];
    memset(e, 0, sizeof *e);
    e->value = malloc(value_length + 1);
    if (!e->value)
        return OP_FAIL(ctx, OP_ERR_NOMEM, "%s: out of memory reading the config", c->path);
    memcpy(e->key, key, key_length);
    memcpy(e->value, value, value_length);
    e->value[value_length] = '\0';
    e->section = s;
    e->line = line;
    e->override = override;
    c->entry_count++;
    return OP_OK;
}

/* ---- reading the file through inih ---- */

typedef struct reader {
    config *config;
    const char *text;
    size_t length, offset;
    int line;          /* lines handed to inih so far: the line inih is working on */
    const char *raw;   /* that line as it stands in the file */
    size_t raw_length;
    int section;       /* the current section, −1 before the first header */
    op_ctx error;      /* the first error the reader or the handler found */
    int error_line;
} reader;

__attribute__((format(printf, 3, 4))) static void reader_fail(reader *r, op_status status, const char *format, ...)
{
    char message[768];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    fail_at(&r->error, r->config, r->line, NULL, status, "%s", message);
    r->error_line = r->line;
}

/* Section headers are recorded here; key lines are left to inih and the handler. */
static void classify_line(reader *r, const char *line)
{
    if (r->line == 1 && strncmp(line, "\xEF\xBB\xBF", 3) == 0)
        line += 3;
    const char *start = line;
    while (*start && is_blank(*start))
        ++start;
    if (*start == '\0' || *start == ';' || *start == '#')
        return;
    if (start != line) {
        reader_fail(r, OP_ERR_PARSE,
                    "indented line (inih reads an indented line as a continuation of the previous key): "
                    "start keys and section headers at the beginning of the line");
        return;
    }
    if (*start != '[')
        return;
    const char *close = strchr(start, ']');
    if (!close) {
        reader_fail(r, OP_ERR_PARSE, "a section header needs a closing ']'");
        return;
    }
    const char *rest = close + 1;
    while (*rest && is_blank(*rest))
        ++rest;
    if (*rest && *rest != ';' && *rest != '#') {
        reader_fail(r, OP_ERR_PARSE, "text after the section header's ']'");
        return;
    }
    op_ctx inner;
    op_ctx_init(&inner);
    if (section_add(&inner, r->config, start + 1, (size_t)(close - start - 1), r->line, NULL, &r->section) != OP_OK) {
        adopt(&r->error, &inner);
        r->error_line = r->line;
    }
}

/* fgets-like: one line per call, the whole line or an error. */
static char *read_line(char *buffer, int size, void *stream)
{
    reader *r = stream;
    if (r->error.status != OP_OK || r->offset >= r->length)
        return NULL;
    const char *start = r->text + r->offset;
    const char *newline = memchr(start, '\n', r->length - r->offset);
    size_t length = newline ? (size_t)(newline - start) + 1 : r->length - r->offset;
    r->offset += length;
    r->line++;
    r->raw = start;
    r->raw_length = length;
    if (memchr(start, '\0', length)) {
        reader_fail(r, OP_ERR_PARSE, "a NUL byte: not a text file");
        return NULL;
    }
    if (length + 1 > (size_t)size) {
        reader_fail(r, OP_ERR_PARSE, "line longer than %d characters (inih's limit)", size - 3);
        return NULL;
    }
    memcpy(buffer, start, length);
    buffer[length] = '\0';
    classify_line(r, buffer);
    return r->error.status == OP_OK ? buffer : NULL;
}

/* inih strips an inline comment (';' after a blank) from the value: in `directions` that
 * would silently drop every direction after a " ; ". */
static int comment_stripped(const reader *r, const char *value)
{
    const char *raw = r->raw;
    size_t length = r->raw_length, separator = strcspn(raw, "=:");
    if (separator >= length)
        return 0;
    raw += separator + 1;
    length -= separator + 1;
    trim(&raw, &length);
    return length != strlen(value) || strncmp(raw, value, length) != 0;
}

static int on_entry(void *user, const char *section_text, const char *key, const char *value)
{
    reader *r = user;
    (void)section_text; /* r->section holds the same section, without inih's length limit */
    op_ctx *error = &r->error;
    size_t key_length = strlen(key);
    int s = r->section;
    if (s < 0)
        fail_at(error, r->config, r->line, NULL, OP_ERR_PARSE, "key '%s' before the first [section]", key);
    else if (key_check(error, r->config, s, key, key_length, r->line, NULL) == OP_OK) {
        int first = find_entry(r->config, s, key, 0);
        if (first >= 0 && !repeatable(&r->config->sections[s], key))
            fail_at(error, r->config, r->line, NULL, OP_ERR_PARSE, "[%s]: duplicate key '%s' (first at line %d)",
                    r->config->sections[s].label, key, r->config->entries[first].line);
        else if (strcmp(key, "directions") == 0 && comment_stripped(r, value))
            fail_at(error, r->config, r->line, NULL, OP_ERR_PARSE,
                    "[%s]: ' ;' starts an INI comment: separate directions as '1 0 0; 0 1 0' or give one "
                    "directions key per line", r->config->sections[s].label);
        else
            entry_append(error, r->config, s, key, key_length, value, strlen(value), r->line, NULL);
    }
    if (error->status != OP_OK) {
        r->error_line = r->line;
        return 0;
    }
    return 1;
}

static int parse_text(op_ctx *ctx, config *c, const char *text, size_t length)
{
    reader r = { .config = c, .text = text, .length = length, .section = -1 };
    op_ctx_init(&r.error);
    int result = ini_parse_stream(read_line, &r, on_entry, &r);
    /* inih goes on after a syntax error, so a line it rejected may precede ours */
    if (result > 0 && (r.error.status == OP_OK || result < r.error_line))
        return fail_at(ctx, c, result, NULL, OP_ERR_PARSE, "expected [section], key = value, or a comment");
    if (r.error.status != OP_OK)
        return adopt(ctx, &r.error);
    if (result < 0)
        return OP_FAIL(ctx, OP_ERR_NOMEM, "%s: inih ran out of memory", c->path);
    return OP_OK;
}

/* An override naming a body the config does not have (section s, just added by it): a typo far
 * more often than a new body, which an override makes only by giving its model first. */
static int no_such_body(op_ctx *ctx, const config *c, int s, const char *override)
{
    const char *names[64];
    int count = 0;
    char list[256] = "";
    for (int k = 0; k < s && count < 64; ++k)
        if (strcmp(c->sections[k].kind->type, "body") == 0) {
            names[count++] = c->sections[k].name;
            strncat(list, list[0] ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, c->sections[k].name, sizeof list - strlen(list) - 1);
        }
    const char *name = c->sections[s].name, *near = op_nearest_name(name, strlen(name), names, count);
    return OP_FAIL(ctx, OP_ERR_INVALID, "--set %s: the config has no [body %s]%s%s%s (bodies: %s; a new body is "
                   "made by giving its model first: body %s.model=MODEL)",
                   override, name, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "",
                   list[0] ? list : "none", name);
}

/* "SECTION.KEY=VALUE": replaces the key, or adds it (and the section). The first override of
 * a repeatable key replaces all of the file's values; later ones add to it. */
static int apply_override(op_ctx *ctx, config *c, const char *text)
{
    const char *equals = strchr(text, '='), *dot = NULL;
    for (const char *p = text; equals && p < equals; ++p)
        if (*p == '.')
            dot = p;
    const char *key = dot ? dot + 1 : NULL, *value = equals ? equals + 1 : NULL;
    size_t key_length = equals && dot ? (size_t)(equals - key) : 0, value_length = value ? strlen(value) : 0;
    if (key)
        trim(&key, &key_length);
    if (value)
        trim(&value, &value_length);
    if (!dot || key_length == 0 || dot == text || strpbrk(text, "\r\n"))
        return OP_FAIL(ctx, OP_ERR_USAGE, "--set %s: expected SECTION.KEY=VALUE (e.g. world.iterations=100)", text);
    int s, sections_before = c->section_count;
    if (section_add(ctx, c, text, (size_t)(dot - text), 0, text, &s) != OP_OK)
        return ctx->status;
    if (s >= sections_before && strcmp(c->sections[s].kind->type, "body") == 0 &&
        !(key_length == 5 && strncmp(key, "model", 5) == 0))
        return no_such_body(ctx, c, s, text);
    if (key_check(ctx, c, s, key, key_length, 0, text) != OP_OK)
        return ctx->status;
    char name[NAME_SIZE] = "";
    memcpy(name, key, key_length);
    if (repeatable(&c->sections[s], name)) {
        int overridden = 0;
        for (int e = find_entry(c, s, name, 0); e >= 0; e = find_entry(c, s, name, e + 1))
            overridden |= c->entries[e].override != NULL;
        for (int e = overridden ? -1 : find_entry(c, s, name, 0); e >= 0; e = find_entry(c, s, name, e)) {
            free(c->entries[e].value);
            memmove(&c->entries[e], &c->entries[e + 1], (size_t)(c->entry_count - e - 1) * sizeof *c->entries);
            c->entry_count--;
        }
    } else {
        int e = find_entry(c, s, name, 0);
        if (e >= 0) {
            char *copy = malloc(value_length + 1);
            if (!copy)
                return OP_FAIL(ctx, OP_ERR_NOMEM, "out of memory applying --set %s", text);
            memcpy(copy, value, value_length);
            copy[value_length] = '\0';
            free(c->entries[e].value);
            c->entries[e].value = copy;
            c->entries[e].line = 0;
            c->entries[e].override = text;
            return OP_OK;
        }
    }
    return entry_append(ctx, c, s, key, key_length, value, value_length, 0, text);
}

static int read_file(op_ctx *ctx, const char *path, char **text, size_t *length)
{
    FILE *f = op_input_open(ctx, path, OP_INPUT_MAX_CONFIG_BYTES, "config");
    if (!f)
        return ctx->status;
    size_t capacity = 4096, used = 0;
    char *buffer = malloc(capacity);
    while (buffer) {
        used += fread(buffer + used, 1, capacity - used - 1, f);
        if (used < capacity - 1)
            break;
        char *grown = realloc(buffer, 2 * capacity);
        if (!grown)
            free(buffer);
        buffer = grown;
        capacity *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (!buffer)
        return OP_FAIL(ctx, OP_ERR_NOMEM, "%s: out of memory reading it", path);
    if (failed) {
        free(buffer);
        return OP_FAIL(ctx, OP_ERR_IO, "%s: read error", path);
    }
    buffer[used] = '\0';
    *text = buffer;
    *length = used;
    return OP_OK;
}

/* The file as read, then one "# --set ..." line per override. */
static int provenance(op_ctx *ctx, const char *text, size_t length, int override_count,
                      const char *const *overrides, char **out)
{
    size_t size = length + 2;
    for (int k = 0; k < override_count; ++k)
        size += strlen(overrides[k]) + 9;
    char *all = op_calloc(ctx, size, 1);
    if (!all)
        return ctx->status;
    memcpy(all, text, length);
    size_t used = length;
    if (override_count && length && text[length - 1] != '\n')
        all[used++] = '\n';
    for (int k = 0; k < override_count; ++k)
        used += (size_t)sprintf(all + used, "# --set %s\n", overrides[k]);
    *out = all;
    return OP_OK;
}

/* ---- values ---- */

static int find_section(const config *c, const char *type, const char *name)
{
    for (int s = 0; s < c->section_count; ++s)
        if (strcmp(c->sections[s].kind->type, type) == 0 && strcmp(c->sections[s].name, name) == 0)
            return s;
    return -1;
}

static const entry *lookup(const config *c, int s, const char *key)
{
    int e = s >= 0 ? find_entry(c, s, key, 0) : -1;
    return e >= 0 ? &c->entries[e] : NULL;
}

static const entry *required(op_ctx *ctx, const config *c, int s, const char *key)
{
    const entry *e = lookup(c, s, key);
    if (!e)
        section_fail(ctx, c, s, OP_ERR_PARSE, "missing key '%s'", key);
    return e;
}

static int is_type(const config *c, int s, const char *type)
{
    return strcmp(c->sections[s].kind->type, type) == 0;
}

static void names_of(const config *c, const char *type, char *out, size_t size)
{
    out[0] = '\0';
    for (int s = 0; s < c->section_count; ++s)
        if (is_type(c, s, type)) {
            strncat(out, out[0] ? ", " : "", size - strlen(out) - 1);
            strncat(out, c->sections[s].name, size - strlen(out) - 1);
        }
    if (!out[0])
        snprintf(out, size, "none");
}

/* Exactly `count` finite numbers in text[0, length) (`form` names them for the message). */
static int parse_numbers(op_ctx *ctx, const config *c, const entry *e, const char *text, size_t length, int count,
                         const char *form, double *out)
{
    const char *p = text, *end = text + length;
    for (int k = 0; k < count; ++k) {
        while (p < end && is_blank(*p))
            ++p;
        char *after;
        double value = strtod(p, &after);
        if (after == p || after > end || (after < end && !is_blank(*after)))
            return entry_fail(ctx, c, e, OP_ERR_INVALID, "expected %s", form);
        if (!isfinite(value))
            return entry_fail(ctx, c, e, OP_ERR_INVALID, "'%.*s' is not a finite number", (int)(after - p), p);
        out[k] = value;
        p = after;
    }
    while (p < end && is_blank(*p))
        ++p;
    if (p != end)
        return entry_fail(ctx, c, e, OP_ERR_INVALID, "expected %s", form);
    return OP_OK;
}

static int entry_numbers(op_ctx *ctx, const config *c, const entry *e, int count, const char *form, double *out)
{
    return parse_numbers(ctx, c, e, e->value, strlen(e->value), count, form, out);
}

/* One finite number, not negative. */
static int entry_not_negative(op_ctx *ctx, const config *c, const entry *e, const char *form, double *out)
{
    if (entry_numbers(ctx, c, e, 1, form, out) != OP_OK)
        return ctx->status;
    if (*out < 0)
        return entry_fail(ctx, c, e, OP_ERR_INVALID, "must not be negative");
    return OP_OK;
}

static int entry_int(op_ctx *ctx, const config *c, const entry *e, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long value = strtol(e->value, &end, 10);
    if (errno || end == e->value || *end || value < lo || value > hi)
        return entry_fail(ctx, c, e, OP_ERR_INVALID, "must be a whole number in [%ld, %ld]", lo, hi);
    *out = (int)value;
    return OP_OK;
}

/* A seed: a whole number in [0, 2^64 − 1]. */
static int entry_seed(op_ctx *ctx, const config *c, const entry *e, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(e->value, &end, 10);
    if (errno || end == e->value || *end || strchr(e->value, '-'))
        return entry_fail(ctx, c, e, OP_ERR_INVALID, "must be a whole number in [0, %llu]",
                          (unsigned long long)UINT64_MAX);
    *out = (uint64_t)seed;
    return OP_OK;
}

/* One of the '|'-separated words of `choices`; *out is its position. */
static int entry_choice(op_ctx *ctx, const config *c, const entry *e, const char *choices, int *out)
{
    size_t length = strlen(e->value);
    int index = 0;
    for (const char *word = choices; *word; ++index) {
        size_t word_length = strcspn(word, "|");
        if (word_length == length && strncmp(word, e->value, length) == 0) {
            *out = index;
            return OP_OK;
        }
        word += word_length + (word[word_length] == '|');
    }
    return entry_fail(ctx, c, e, OP_ERR_INVALID, "must be one of %s", choices);
}

/* The length of the value's first word; *rest is what follows it. */
static int entry_word(const entry *e, const char **rest)
{
    size_t length = strcspn(e->value, " \t");
    *rest = e->value + length;
    return (int)length;
}

/* "nearest X Y Z": the vertex of the body's model nearest to the point (model frame). `form`
 * is what the key accepts, for the message. */
static int nearest_vertex(op_ctx *ctx, const config *c, const entry *e, const op_body *body, const char *form,
                          int *vertex)
{
    const char *rest;
    int length = entry_word(e, &rest);
    double p[3];
    if (length != 7 || strncmp(e->value, "nearest", 7) != 0)
        return entry_fail(ctx, c, e, OP_ERR_INVALID, "expected %s", form);
    if (parse_numbers(ctx, c, e, rest, strlen(rest), 3, form, p) != OP_OK)
        return ctx->status;
    *vertex = op_body_nearest_vertex(body, p);
    if (*vertex < 0)
        return entry_fail(ctx, c, e, OP_ERR_INVALID, "model %s has no vertices", body->model->name);
    return OP_OK;
}

/* ---- interpretation, in the order of scene.h ---- */

typedef struct loader {
    op_ctx *ctx;
    const config *c;
    op_scene *scene;
    int *index;          /* [section] the (first) body, the script or the first constraint it made; −1 */
    int *copies;         /* [section] the bodies a [body] section made, consecutive from index */
    op_build_def *build; /* [section] the build of a [model] section */
    double edges;        /* [run] edges: −1 for each model's catalogue rule, else the overlap
                            scale every model is built with (op_edge_rule_parse) */
    const op_solver_type *solver;
    op_solver_settings settings;
} loader;

/* The bodies `e` names: every copy of a [body NAME] section (*count of them from *first), or
 * one copy by its own name (NAME-K). */
static int bodies_of(op_ctx *ctx, const loader *l, const entry *e, int *first, int *count)
{
    const config *c = l->c;
    int s = find_section(c, "body", e->value);
    if (s >= 0) {
        *first = l->index[s];
        *count = l->copies[s];
        return OP_OK;
    }
    const op_world *world = &l->scene->world;
    for (int b = 0; b < world->body_count; ++b)
        if (strcmp(world->bodies[b].name, e->value) == 0) {
            *first = b;
            *count = 1;
            return OP_OK;
        }
    char names[256];
    names_of(c, "body", names, sizeof names);
    return entry_fail(ctx, c, e, OP_ERR_INVALID, "no [body %s] and no copy of that name (bodies: %s)", e->value,
                      names);
}

/* The one body `e` names; a section of several copies is an error. */
static int body_of(op_ctx *ctx, const loader *l, const entry *e, int *body)
{
    int count;
    if (bodies_of(ctx, l, e, body, &count) != OP_OK)
        return ctx->status;
    if (count != 1)
        return entry_fail(ctx, l->c, e, OP_ERR_INVALID, "[body %s] makes %d copies; name one of them (%s)", e->value,
                          count, l->scene->world.bodies[*body].name);
    return OP_OK;
}

static int load_run(loader *l)
{
    op_ctx *ctx = l->ctx;
    const config *c = l->c;
    op_run_def *run = &l->scene->run;
    *run = (op_run_def){ .frames = 150, .output_every = 1 };
    int s = find_section(c, "run", "");
    const entry *e;
    if ((e = lookup(c, s, "frames")) && entry_int(ctx, c, e, 0, 100000000, &run->frames) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "output_every")) && entry_int(ctx, c, e, 1, 100000000, &run->output_every) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "output")) && entry_choice(ctx, c, e, "frames|substeps", &run->output_substeps) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "models"))) {
        /* In the config: beside it; from --set: as given, from the working directory. */
        const char *base = e->override ? "" : c->path;
        if (!e->value[0] || op_path_beside(ctx, base, e->value, run->catalogue, sizeof run->catalogue) != OP_OK)
            return entry_fail(ctx, c, e, OP_ERR_INVALID, "the catalogue path must have 1 to %zu characters",
                              sizeof run->catalogue - 1);
    } else if (op_default_catalogue(ctx, c->path, run->catalogue, sizeof run->catalogue) != OP_OK) {
        char reason[sizeof ctx->message];
        snprintf(reason, sizeof reason, "%s", ctx->message);
        return OP_FAIL(ctx, ctx->status, "%s: %s", c->path, reason);
    }
    l->edges = -1.0;
    if ((e = lookup(c, s, "edges")) && strcmp(e->value, "catalogue") != 0 && op_edge_rule_parse(e->value, &l->edges))
        return entry_fail(ctx, c, e, OP_ERR_INVALID, "must be catalogue, faces or overlap:S with S in (0, 10]");
    return OP_OK;
}

static int load_world(loader *l)
{
    op_ctx *ctx = l->ctx;
    const config *c = l->c;
    op_world_def def = op_default_world_def();
    int s = find_section(c, "world", "");
    const entry *e;
    if ((e = lookup(c, s, "frame_time"))) {
        if (entry_numbers(ctx, c, e, 1, "a time in s", &def.frame_time) != OP_OK)
            return ctx->status;
        if (!(def.frame_time > 0))
            return entry_fail(ctx, c, e, OP_ERR_INVALID, "must be positive");
    }
    if ((e = lookup(c, s, "substeps")) && entry_int(ctx, c, e, 1, 1000000, &def.substeps) != OP_OK)
        return ctx->status;
    /* The solvers divide by h^2 (the inertia term m/h^2): a sub-step whose square underflows
     * made a sparse matrix entry inf, reported with no word of the key. */
    double h = def.frame_time / def.substeps;
    if (!(h * h > 0 && isfinite(1.0 / (h * h))) && (e = lookup(c, s, "frame_time")))
        return entry_fail(ctx, c, e, OP_ERR_INVALID,
                          "gives sub-steps of %g s (frame_time / substeps), too short: 1/h^2 overflows (at least 1e-150 s)",
                          h);
    if ((e = lookup(c, s, "iterations")) && entry_int(ctx, c, e, 0, 100000000, &def.iterations) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "gravity")) && entry_numbers(ctx, c, e, 3, "GX GY GZ", def.gravity) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "floor"))) {
        def.floor = strcmp(e->value, "off") != 0;
        if (def.floor && entry_numbers(ctx, c, e, 1, "off or a height in m", &def.floor_height) != OP_OK)
            return ctx->status;
    }
    if ((e = lookup(c, s, "floor_contact")) && entry_choice(ctx, c, e, "substep|iteration|solve", &def.floor_contact) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "rotation_start")) &&
        entry_choice(ctx, c, e, "rigid|predicted|current", &def.rotation_start) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "friction")) &&
        entry_not_negative(ctx, c, e, "a friction coefficient", &def.friction) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "collisions")) && entry_choice(ctx, c, e, "off|on", &def.collisions) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "collision_passes")) && entry_int(ctx, c, e, 1, 1000, &def.collision_passes) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "collision_passes_max")) &&
        entry_int(ctx, c, e, 0, 1000, &def.collision_passes_max) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "collision_rounds")) && entry_int(ctx, c, e, 1, 1000, &def.collision_rounds) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "collision_order")) &&
        entry_choice(ctx, c, e, "colours|jacobi", &def.collision_order) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "collision_threads")) &&
        entry_choice(ctx, c, e, "all|one|auto", &def.collision_threads) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "schedule_threads")) &&
        entry_choice(ctx, c, e, "all|one|auto", &def.schedule_threads) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "collision_margin")) &&
        entry_not_negative(ctx, c, e, "a distance in m", &def.collision_margin) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "log_energy"))) {
        int choice = 0;
        if (entry_choice(ctx, c, e, "false|true", &choice) != OP_OK)
            return ctx->status;
        def.log_energy = choice;
    }
    return op_world_init(ctx, &l->scene->world, &def);
}

/* The variant and its options; each option is checked alone so the error names its line. */
static int load_solver(loader *l)
{
    op_ctx *ctx = l->ctx;
    const config *c = l->c;
    int s = find_section(c, "solver", "");
    const entry *name = lookup(c, s, "name");
    l->solver = op_solver_find(name ? name->value : "arap");
    if (!l->solver) {
        char names[256] = "";
        for (int k = 0; op_solver_registry[k]; ++k) {
            strncat(names, k ? ", " : "", sizeof names - strlen(names) - 1);
            strncat(names, op_solver_registry[k]->name, sizeof names - strlen(names) - 1);
        }
        return entry_fail(ctx, c, name, OP_ERR_INVALID, "unknown solver (solvers: %s)", names);
    }
    op_solver_settings *settings = &l->settings;
    for (int k = 0; k < c->entry_count; ++k) {
        const entry *e = &c->entries[k];
        if (e->section != s || strcmp(e->key, "name") == 0)
            continue;
        if (settings->count == OP_SOLVER_MAX_SETTINGS || strlen(e->value) >= sizeof settings->value[0])
            return entry_fail(ctx, c, e, OP_ERR_INVALID, "at most %d options of at most %zu characters",
                              OP_SOLVER_MAX_SETTINGS, sizeof settings->value[0] - 1);
        op_solver_settings one = { .count = 1 };
        strcpy(one.key[0], e->key);
        strcpy(one.value[0], e->value);
        op_ctx inner;
        op_ctx_init(&inner);
        if (op_solver_settings_validate(&inner, l->solver, &one) != OP_OK)
            return entry_fail(ctx, c, e, OP_ERR_PARSE, "%s", inner.message);
        strcpy(settings->key[settings->count], e->key);
        strcpy(settings->value[settings->count], e->value);
        settings->count++;
    }
    return OP_OK;
}

static int load_model(loader *l, int s)
{
    op_ctx *ctx = l->ctx;
    const config *c = l->c;
    op_build_def *def = &l->build[s];
    *def = op_default_build_def();
    def->particles = 0;           /* the catalogue's count */
    def->overlap_scale = l->edges; /* [run] edges: the catalogue's rule, or the one for all */
    const entry *e;
    if ((e = lookup(c, s, "particles")) && entry_int(ctx, c, e, 0, 1000000, &def->particles) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "seed")) && entry_seed(ctx, c, e, &def->seed) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "voxels")) && entry_int(ctx, c, e, 4, 2048, &def->voxel_resolution) != OP_OK)
        return ctx->status;
    if ((e = lookup(c, s, "edges")) && op_edge_rule_parse(e->value, &def->overlap_scale))
        return entry_fail(ctx, c, e, OP_ERR_INVALID, "must be faces or overlap:S with S in (0, 10]");
    if ((e = lookup(c, s, "density"))) {
        if (entry_numbers(ctx, c, e, 1, "a density in kg/m³", &def->density) != OP_OK)
            return ctx->status;
        if (!(def->density > 0))
            return entry_fail(ctx, c, e, OP_ERR_INVALID, "must be positive");
    }
    return OP_OK;
}

/* "AX AY AZ DEG" into a rotation matrix. */
static int axis_angle(op_ctx *ctx, const config *c, const entry *e, double axis[3], double *radians)
{
    double v[4];
    if (entry_numbers(ctx, c, e, 4, "AX AY AZ DEG", v) != OP_OK)
        return ctx->status;
    double norm = v3_norm(v);
    if (v[3] != 0.0 && !(norm > 0.0))
        return entry_fail(ctx, c, e, OP_ERR_INVALID, "a turn of %g degrees about a zero axis", v[3]);
    if (norm > 0.0)
        v3_scale(axis, v, 1.0 / norm);
    else
        v3_set(axis, 0.0, 0.0, 0.0);
    *radians = v[3] * (M_PI / 180.0);
    return OP_OK;
}

static int load_script(loader *l, int s)
{
    op_ctx *ctx = l->ctx;
    const config *c = l->c;
    op_world *world = &l->scene->world;
    if (world->script_count == OP_WORLD_MAX_SCRIPTS)
        return section_fail(ctx, c, s, OP_ERR_INVALID, "more than %d scripts", OP_WORLD_MAX_SCRIPTS);
    op_script *script = &world->scripts[world->script_count];
    memset(script, 0, sizeof *script);
    strcpy(script->name, c->sections[s].name);
    const entry *e;
    if ((e = lookup(c, s, "pivot")) && entry_numbers(ctx, c, e, 3, "X Y Z", script->pivot) != OP_OK)
        return ctx->status;
    for (int k = find_entry(c, s, "key", 0); k >= 0; k = find_entry(c, s, "key", k + 1)) {
        e = &c->entries[k];
        int n = script->key_count;
        if (n == OP_SCRIPT_MAX_KEYS)
            return entry_fail(ctx, c, e, OP_ERR_INVALID, "more than %d keys", OP_SCRIPT_MAX_KEYS);
        double v[8];
        if (entry_numbers(ctx, c, e, 8, "T  TX TY TZ  AX AY AZ DEG", v) != OP_OK)
            return ctx->status;
        if (n > 0 && !(v[0] > script->time[n - 1]))
            return entry_fail(ctx, c, e, OP_ERR_INVALID, "key times must increase (the previous key is at %g s)",
                              script->time[n - 1]);
        double norm = v3_norm(&v[4]);
        if (v[7] != 0.0 && !(norm > 0.0))
            return entry_fail(ctx, c, e, OP_ERR_INVALID, "a turn of %g degrees about a zero axis", v[7]);
        script->time[n] = v[0];
        v3_copy(script->translation[n], &v[1]);
        if (norm > 0.0)
            v3_scale(script->axis[n], &v[4], 1.0 / norm);
        script->angle[n] = v[7] * (M_PI / 180.0);
        script->key_count++;
    }
    if (script->key_count == 0)
        return section_fail(ctx, c, s, OP_ERR_PARSE, "missing key 'key' (a script needs at least one keyframe)");
    op_ctx inner;
    op_ctx_init(&inner);
    if (op_script_check(&inner, script) != OP_OK)
        return section_fail(ctx, c, s, inner.status, "%s", inner.message);
    l->index[s] = world->script_count++;
    return OP_OK;
}

/* A uniformly distributed rotation (Shoemake's unit quaternion from three uniform numbers). */
static void random_rotation(op_rng *rng, double rotation[9])
{
    double u1 = op_rng_uniform(rng), u2 = 2.0 * M_PI * op_rng_uniform(rng), u3 = 2.0 * M_PI * op_rng_uniform(rng);
    double w = sqrt(u1) * cos(u3), axis[3] = { sqrt(1.0 - u1) * sin(u2), sqrt(1.0 - u1) * cos(u2), sqrt(u1) * sin(u3) };
    double length = v3_norm(axis);
    m3_identity(rotation);
    if (length > 0.0) {
        v3_scale(axis, axis, 1.0 / length);
        op_axis_angle_matrix(axis, 2.0 * atan2(length, w), rotation);
    }
}

/* A [body] section makes `copies` bodies NAME-K (K zero-padded to the width of copies − 1; just
 * NAME when there is one), copy K placed at position + K (dx, dy, dz), or with a grid at
 * position + (ix dx, iy dy, iz dz), ix = K mod NX, iz = (K div NX) mod NZ, iy = K div (NX NZ):
 * rows along x, then along z, then layers up y. With random_rotation = SEED each copy is first turned by its own uniformly random
 * rotation (one seeded stream for the section, in copy order), then by `rotation`. */
static int load_body(loader *l, int s)
{
    op_ctx *ctx = l->ctx;
    const config *c = l->c;
    op_world *world = &l->scene->world;
    const entry *model_entry = required(ctx, c, s, "model"), *e;
    if (!model_entry || !(e = required(ctx, c, s, "stiffness")))
        return ctx->status;
    double stiffness, position[3] = { 0, 0, 0 }, velocity[3] = { 0, 0, 0 }, spin[3] = { 0, 0, 0 }, rotation[9],
           spacing[3] = { 0, 0, 0 };
    if (entry_numbers(ctx, c, e, 1, "a stiffness in kg/(m³ s²)", &stiffness) != OP_OK)
        return ctx->status;
    if (stiffness < 0)
        return entry_fail(ctx, c, e, OP_ERR_INVALID, "must not be negative");
    if ((e = lookup(c, s, "position")) && entry_numbers(ctx, c, e, 3, "X Y Z", position) != OP_OK)
        return ctx->status;
    m3_identity(rotation);
    if ((e = lookup(c, s, "rotation"))) {
        double axis[3], radians = 0.0;
        if (axis_angle(ctx, c, e, axis, &radians) != OP_OK)
            return ctx->status;
        if (radians != 0.0)
            op_axis_angle_matrix(axis, radians, rotation);
    }
    const entry *velocity_entry = lookup(c, s, "velocity"), *spin_entry = lookup(c, s, "angular_velocity");
    if (velocity_entry && entry_numbers(ctx, c, velocity_entry, 3, "VX VY VZ", velocity) != OP_OK)
        return ctx->status;
    if (spin_entry && entry_numbers(ctx, c, spin_entry, 3, "WX WY WZ in rad/s", spin) != OP_OK)
        return ctx->status;
    int collapsed = 0;
    if ((e = lookup(c, s, "start")) && entry_choice(ctx, c, e, "rest|collapsed|flattened", &collapsed) != OP_OK)
        return ctx->status;
    if (collapsed && (v3_norm(velocity) != 0.0 || v3_norm(spin) != 0.0))
        return entry_fail(ctx, c, v3_norm(velocity) != 0.0 ? velocity_entry : spin_entry, OP_ERR_INVALID,
                          "a collapsed start begins at rest");
    int copies = 1, grid[3] = { 1, 1, 1 };
    const entry *copies_entry = lookup(c, s, "copies");
    if (copies_entry && entry_int(ctx, c, copies_entry, 1, OP_WORLD_MAX_BODIES, &copies) != OP_OK)
        return ctx->status;
    const entry *grid_entry = lookup(c, s, "grid");
    if ((e = grid_entry)) {
        double cells[3];
        if (entry_numbers(ctx, c, e, 3, "NX NY NZ", cells) != OP_OK)
            return ctx->status;
        for (int d = 0; d < 3; ++d) {
            if (!(cells[d] >= 1 && cells[d] <= OP_WORLD_MAX_BODIES && cells[d] == floor(cells[d])))
                return entry_fail(ctx, c, e, OP_ERR_INVALID, "NX NY NZ must be whole numbers in [1, %d]",
                                  OP_WORLD_MAX_BODIES);
            grid[d] = (int)cells[d];
        }
        if ((long)grid[0] * grid[1] * grid[2] < copies)
            return entry_fail(ctx, c, e, OP_ERR_INVALID, "%d cells for %d copies", grid[0] * grid[1] * grid[2],
                              copies);
    }
    if ((e = lookup(c, s, "spacing")) && entry_numbers(ctx, c, e, 3, "DX DY DZ", spacing) != OP_OK)
        return ctx->status;
    op_rng rng = op_rng_seeded(0);
    const entry *random_entry = lookup(c, s, "random_rotation");
    if (random_entry) {
        uint64_t seed;
        if (entry_seed(ctx, c, random_entry, &seed) != OP_OK)
            return ctx->status;
        rng = op_rng_seeded(seed);
    }
    if (collapsed && copies > 1)
        return entry_fail(ctx, c, copies_entry, OP_ERR_INVALID, "a collapsed start takes one copy");
    int model_section = find_section(c, "model", model_entry->value);
    op_build_def build = op_default_build_def();
    build.particles = 0;
    build.overlap_scale = l->edges;
    if (model_section >= 0)
        build = l->build[model_section];
    const op_model *model;
    op_ctx inner;
    op_ctx_init(&inner);
    if (op_world_model(&inner, world, l->scene->run.catalogue, model_entry->value, &build, &model) != OP_OK)
        return entry_fail(ctx, c, model_entry, inner.status, "%s", inner.message);
    int width = snprintf(NULL, 0, "%d", copies - 1);
    l->index[s] = world->body_count;
    for (int k = 0; k < copies; ++k) {
        char name[sizeof world->bodies[0].name];
        if (copies == 1)
            snprintf(name, sizeof name, "%s", c->sections[s].name);
        else if (snprintf(name, sizeof name, "%s-%0*d", c->sections[s].name, width, k) >= (int)sizeof name)
            return entry_fail(ctx, c, copies_entry, OP_ERR_INVALID, "copy names would exceed %zu characters",
                              sizeof name - 1);
        double placed[3], turn[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, turned[9];
        int cell[3] = { k, k, k }; /* without a grid, a row: copy K at position + K spacing */
        if (grid_entry) {
            cell[0] = k % grid[0];
            cell[1] = k / (grid[0] * grid[2]);
            cell[2] = k / grid[0] % grid[2];
        }
        for (int d = 0; d < 3; ++d)
            placed[d] = position[d] + cell[d] * spacing[d];
        if (random_entry)
            random_rotation(&rng, turn);
        m3_mul(turned, rotation, turn);
        op_body *body;
        if (op_world_add_body(&inner, world, name, model, stiffness, turned, placed, &body) != OP_OK)
            return section_fail(ctx, c, s, inner.status, "%s", inner.message);
        op_body_set_rigid_velocity(body, velocity, spin);
    }
    l->copies[s] = copies;
    return OP_OK;
}

static int load_pin(loader *l, int s)
{
    op_ctx *ctx = l->ctx;
    const config *c = l->c;
    const entry *body_entry = required(ctx, c, s, "body"), *particle = required(ctx, c, s, "particle"),
                *hold = required(ctx, c, s, "hold");
    int first = 0, count = 0, held = 0;
    if (!body_entry || !particle || !hold || bodies_of(ctx, l, body_entry, &first, &count) != OP_OK ||
        entry_choice(ctx, c, hold, "position|orientation|both", &held) != OP_OK)
        return ctx->status;
    for (int b = first; b < first + count; ++b) {
        op_body *body = &l->scene->world.bodies[b];
        int index = 0;
        if (strcmp(particle->value, "centre") == 0)
            index = op_body_centre_particle(body);
        else if (entry_int(ctx, c, particle, 0, body->graph->particle_count - 1, &index) != OP_OK)
            return ctx->status;
        op_ctx inner;
        op_ctx_init(&inner);
        if (op_body_add_pin(&inner, body, index, held != 1, held != 0) != OP_OK)
            return section_fail(ctx, c, s, inner.status, "%s", inner.message);
    }
    return OP_OK;
}

/* Fig. 4: every particle at the first position pin's particle, which the pin already holds
 * there (collapsed), or only its height at the pin's, in the horizontal plane through it
 * (flattened); orientations stay at the placement, velocities zero. */
static int collapse(loader *l, int s)
{
    const entry *start = lookup(l->c, s, "start");
    if (!start || strcmp(start->value, "rest") == 0)
        return OP_OK;
    int flattened = strcmp(start->value, "flattened") == 0;
    op_body *body = &l->scene->world.bodies[l->index[s]];
    const op_pin *pin = NULL;
    for (int p = 0; p < body->pin_count && !pin; ++p)
        if (body->pins[p].hold_position)
            pin = &body->pins[p];
    if (!pin)
        return entry_fail(l->ctx, l->c, start, OP_ERR_INVALID, "needs a [pin] holding a position of body %s",
                          body->name);
    int n = body->state.particle_count;
    for (int i = 0; i < n; ++i)
        if (flattened)
            body->state.position[3 * i + 1] = pin->position[1];
        else
            v3_copy(&body->state.position[3 * i], pin->position);
    /* the work arrays start from the state, as op_body_init leaves them */
    memcpy(body->start_position, body->state.position, 3 * (size_t)n * sizeof(double));
    memcpy(body->inertial_position, body->state.position, 3 * (size_t)n * sizeof(double));
    return OP_OK;
}

/* The constraints of one [constraint] section on one body: one per selected vertex and
 * direction (a position constraint is one pass with a direction that is not used). */
static int add_constraints(loader *l, int s, op_body *body, int kind, int direction_count,
                           double directions[][3], double weight, int script)
{
    op_ctx *ctx = l->ctx;
    const config *c = l->c;
    const entry *vertices = lookup(c, s, "vertices");
    const char *rest;
    int word = entry_word(vertices, &rest), selected = 0;
    op_ctx inner;
    op_ctx_init(&inner);
    if (word == 3 && strncmp(vertices->value, "box", 3) == 0) {
        double box[6], lo[3], hi[3];
        if (parse_numbers(ctx, c, vertices, rest, strlen(rest), 6, "box X0 Y0 Z0 X1 Y1 Z1", box) != OP_OK)
            return ctx->status;
        for (int d = 0; d < 3; ++d) {
            lo[d] = fmin(box[d], box[3 + d]);
            hi[d] = fmax(box[d], box[3 + d]);
        }
        const op_mesh *mesh = &body->model->mesh;
        for (int v = 0; v < mesh->vertex_count; ++v) {
            const double *p = &mesh->vertices[3 * v];
            if (p[0] < lo[0] || p[0] > hi[0] || p[1] < lo[1] || p[1] > hi[1] || p[2] < lo[2] || p[2] > hi[2])
                continue;
            ++selected;
            for (int k = 0; k < direction_count; ++k)
                if (op_body_add_constraint(&inner, body, (op_constraint_kind)kind, v, directions[k], weight, script) !=
                    OP_OK)
                    return section_fail(ctx, c, s, inner.status, "%s", inner.message);
        }
        if (!selected)
            return entry_fail(ctx, c, vertices, OP_ERR_INVALID, "the box holds no vertex of model %s",
                              body->model->name);
    } else {
        int v;
        if (nearest_vertex(ctx, c, vertices, body, "nearest X Y Z or box X0 Y0 Z0 X1 Y1 Z1", &v) != OP_OK)
            return ctx->status;
        for (int k = 0; k < direction_count; ++k)
            if (op_body_add_constraint(&inner, body, (op_constraint_kind)kind, v, directions[k], weight, script) !=
                OP_OK)
                return section_fail(ctx, c, s, inner.status, "%s", inner.message);
    }
    return OP_OK;
}

static int load_constraint(loader *l, int s)
{
    op_ctx *ctx = l->ctx;
    const config *c = l->c;
    const entry *body_entry = required(ctx, c, s, "body"), *type = required(ctx, c, s, "type"),
                *vertices = required(ctx, c, s, "vertices"), *weight_entry = required(ctx, c, s, "weight"), *e;
    int first = 0, count = 0, kind = 0, script = -1;
    double weight;
    if (!body_entry || !type || !vertices || !weight_entry || bodies_of(ctx, l, body_entry, &first, &count) != OP_OK ||
        entry_choice(ctx, c, type, "position|direction", &kind) != OP_OK ||
        entry_numbers(ctx, c, weight_entry, 1, "a weight", &weight) != OP_OK)
        return ctx->status;
    if (!(weight > 0))
        return entry_fail(ctx, c, weight_entry, OP_ERR_INVALID, "must be positive");
    if ((e = lookup(c, s, "script"))) {
        int ss = find_section(c, "script", e->value);
        if (ss < 0) {
            char names[256];
            names_of(c, "script", names, sizeof names);
            return entry_fail(ctx, c, e, OP_ERR_INVALID, "no [script %s] (scripts: %s)", e->value, names);
        }
        script = l->index[ss];
    }
    /* a position constraint is one pass over the vertices with a direction that is not used */
    double directions[MAX_DIRECTIONS][3] = { { 0, 0, 0 } };
    int direction_count = kind == OP_CONSTRAINT_POSITION ? 1 : 0;
    const char *form = "DX DY DZ[; DX DY DZ ...]";
    for (int k = find_entry(c, s, "directions", 0); k >= 0; k = find_entry(c, s, "directions", k + 1)) {
        e = &c->entries[k];
        if (kind == OP_CONSTRAINT_POSITION)
            return entry_fail(ctx, c, e, OP_ERR_INVALID, "only type = direction takes directions");
        for (const char *p = e->value;; ++p) {
            size_t length = strcspn(p, ";");
            if (direction_count == MAX_DIRECTIONS)
                return entry_fail(ctx, c, e, OP_ERR_INVALID, "more than %d directions", MAX_DIRECTIONS);
            double *d = directions[direction_count++];
            if (parse_numbers(ctx, c, e, p, length, 3, form, d) != OP_OK)
                return ctx->status;
            if (!(v3_norm(d) > 0))
                return entry_fail(ctx, c, e, OP_ERR_INVALID, "a zero direction");
            p += length;
            if (!*p)
                break;
        }
    }
    if (direction_count == 0)
        return section_fail(ctx, c, s, OP_ERR_PARSE, "missing key 'directions' (type = direction)");
    /* an observable reads this index only for a section on one body (position_error) */
    l->index[s] = l->scene->world.bodies[first].constraint_count;
    for (int b = first; b < first + count; ++b)
        if (add_constraints(l, s, &l->scene->world.bodies[b], kind, direction_count, directions, weight, script) !=
            OP_OK)
            return ctx->status;
    return OP_OK;
}

static int load_observable(loader *l, int s)
{
    op_ctx *ctx = l->ctx;
    const config *c = l->c;
    op_scene *scene = l->scene;
    if (scene->observable_count == OP_SCENE_MAX_OBSERVABLES)
        return section_fail(ctx, c, s, OP_ERR_INVALID, "more than %d observables", OP_SCENE_MAX_OBSERVABLES);
    op_observable *o = &scene->observables[scene->observable_count];
    *o = (op_observable){ .body = -1, .vertex = -1, .constraint = -1 };
    strcpy(o->name, c->sections[s].name);
    const entry *type = required(ctx, c, s, "type"), *e;
    if (!type)
        return ctx->status;
    if (op_observable_kind_parse(type->value, &o->kind) != 0)
        return entry_fail(ctx, c, type, OP_ERR_INVALID,
                          "must be one of deflection|rest_shape_error|lowest_point|kinetic_energy|position_error|"
                          "angular_momentum|stretch_max|stretch_min|inverted_edges|height");
    int whole_world = o->kind == OP_OBSERVE_LOWEST_POINT || o->kind == OP_OBSERVE_KINETIC_ENERGY ||
                      o->kind == OP_OBSERVE_ANGULAR_MOMENTUM;
    if (!(e = lookup(c, s, "body")) && !whole_world)
        return section_fail(ctx, c, s, OP_ERR_PARSE, "missing key 'body'");
    if (e && body_of(ctx, l, e, &o->body) != OP_OK)
        return ctx->status;
    const entry *vertex = lookup(c, s, "vertex"), *constraint = lookup(c, s, "constraint");
    if (o->kind != OP_OBSERVE_DEFLECTION && vertex)
        return entry_fail(ctx, c, vertex, OP_ERR_INVALID, "only type = deflection takes a vertex");
    if (o->kind != OP_OBSERVE_POSITION_ERROR && constraint)
        return entry_fail(ctx, c, constraint, OP_ERR_INVALID, "only type = position_error takes a constraint");
    const op_body *body = o->body >= 0 ? &scene->world.bodies[o->body] : NULL;
    /* an extreme over no edges would be ±infinity in the run file */
    if ((o->kind == OP_OBSERVE_STRETCH_MAX || o->kind == OP_OBSERVE_STRETCH_MIN) && body->graph->edge_count == 0)
        return entry_fail(ctx, c, e, OP_ERR_INVALID, "body %s (model %s, %d particle%s) has no edges to stretch",
                          body->name, body->model->name, body->graph->particle_count,
                          body->graph->particle_count == 1 ? "" : "s");
    if (o->kind == OP_OBSERVE_DEFLECTION) {
        if (!(vertex = required(ctx, c, s, "vertex")) ||
            nearest_vertex(ctx, c, vertex, body, "nearest X Y Z", &o->vertex) != OP_OK)
            return ctx->status;
    }
    if (o->kind == OP_OBSERVE_POSITION_ERROR) {
        if (!(constraint = required(ctx, c, s, "constraint")))
            return ctx->status;
        int cs = find_section(c, "constraint", constraint->value);
        if (cs < 0) {
            char names[256];
            names_of(c, "constraint", names, sizeof names);
            return entry_fail(ctx, c, constraint, OP_ERR_INVALID, "no [constraint %s] (constraints: %s)",
                              constraint->value, names);
        }
        const entry *on = lookup(c, cs, "body");
        if (strcmp(on->value, body->name) != 0)
            return entry_fail(ctx, c, constraint, OP_ERR_INVALID, "constraint %s is on body %s, not %s",
                              constraint->value, on->value, body->name);
        o->constraint = l->index[cs];
        if (body->constraints[o->constraint].kind != OP_CONSTRAINT_POSITION)
            return entry_fail(ctx, c, constraint, OP_ERR_INVALID, "constraint %s is not a position constraint",
                              constraint->value);
    }
    scene->observable_count++;
    return OP_OK;
}

/* The [body] section that made body b */
static int section_of_body(const loader *l, int b)
{
    for (int s = 0; s < l->c->section_count; ++s)
        if (is_type(l->c, s, "body") && l->index[s] >= 0 && b >= l->index[s] && b < l->index[s] + l->copies[s])
            return s;
    return -1;
}

/* A body starting inside the floor or another body is refused (core/contact/overlap.h,
 * op_overlap_start), at its section's `position` (or the section when it has none). */
static int check_starts(loader *l)
{
    const op_world *w = &l->scene->world;
    op_start_fault f;
    if (op_overlap_start(l->ctx, w->bodies, w->body_count, w->def.floor, w->def.floor_height, &f) != OP_OK ||
        f.body < 0)
        return l->ctx->status;
    int s = section_of_body(l, f.body);
    char where[160];
    if (f.other < 0)
        snprintf(where, sizeof where, "the floor y = %g", w->def.floor_height);
    else
        snprintf(where, sizeof where, "body %s (its particle %d)", w->bodies[f.other].name, f.other_particle);
    const char *format = "body %s starts inside %s: its particle %d overlaps it by %.3g m, more than %.3g m (20 %% of "
                         "the smallest semi-axis); move it with `position`";
    const entry *e = s >= 0 ? lookup(l->c, s, "position") : NULL;
    if (e)
        return entry_fail(l->ctx, l->c, e, OP_ERR_INVALID, format, w->bodies[f.body].name, where, f.particle, f.depth,
                          f.allowed);
    if (s >= 0)
        return section_fail(l->ctx, l->c, s, OP_ERR_INVALID, format, w->bodies[f.body].name, where, f.particle,
                            f.depth, f.allowed);
    return OP_FAIL(l->ctx, OP_ERR_INVALID, format, w->bodies[f.body].name, where, f.particle, f.depth, f.allowed);
}

/* A solver option whose value the variant rejects is reported at the [solver] section. */
static int start(loader *l)
{
    op_ctx inner;
    op_ctx_init(&inner);
    if (op_world_start(&inner, &l->scene->world, l->solver, &l->settings) == OP_OK)
        return OP_OK;
    int s = find_section(l->c, "solver", "");
    if (inner.status == OP_ERR_USAGE && s >= 0)
        return section_fail(l->ctx, l->c, s, OP_ERR_INVALID, "%s", inner.message);
    return OP_FAIL(l->ctx, inner.status, "%s: %s", l->c->path, inner.message);
}

static int for_each(loader *l, const char *type, int (*load)(loader *, int))
{
    for (int s = 0; s < l->c->section_count; ++s)
        if (is_type(l->c, s, type) && load(l, s) != OP_OK)
            return l->ctx->status;
    return OP_OK;
}

/* A [model] section no body uses is most likely a misspelt model name. */
static int check_model_used(loader *l, int s)
{
    const op_world *world = &l->scene->world;
    for (int m = 0; m < world->model_count; ++m)
        if (strcmp(world->models[m].name, l->c->sections[s].name) == 0)
            return OP_OK;
    return section_fail(l->ctx, l->c, s, OP_ERR_INVALID, "no body uses model %s", l->c->sections[s].name);
}

static int interpret(op_ctx *ctx, const config *c, op_scene *scene)
{
    loader l = { .ctx = ctx, .c = c, .scene = scene };
    l.index = op_calloc(ctx, (size_t)c->section_count, sizeof *l.index);
    l.copies = op_calloc(ctx, (size_t)c->section_count, sizeof *l.copies);
    l.build = op_calloc(ctx, (size_t)c->section_count, sizeof *l.build);
    if (ctx->status == OP_OK) {
        for (int s = 0; s < c->section_count; ++s)
            l.index[s] = -1;
        if (load_run(&l) == OP_OK && load_world(&l) == OP_OK && load_solver(&l) == OP_OK &&
            for_each(&l, "model", load_model) == OP_OK && for_each(&l, "script", load_script) == OP_OK &&
            for_each(&l, "body", load_body) == OP_OK && for_each(&l, "model", check_model_used) == OP_OK &&
            for_each(&l, "pin", load_pin) == OP_OK && for_each(&l, "body", collapse) == OP_OK &&
            for_each(&l, "constraint", load_constraint) == OP_OK &&
            for_each(&l, "observable", load_observable) == OP_OK) {
            if (scene->world.body_count == 0)
                OP_FAIL(ctx, OP_ERR_INVALID, "%s: no [body NAME] section: a run needs at least one body", c->path);
            else if (check_starts(&l) == OP_OK)
                start(&l);
        }
    }
    free(l.index);
    free(l.copies);
    free(l.build);
    return ctx->status;
}

int op_scene_load(op_ctx *ctx, const char *path, int override_count, const char *const *overrides, op_scene *scene)
{
    memset(scene, 0, sizeof *scene);
    config c = { .path = path };
    char *text = NULL;
    size_t length = 0;
    int status = read_file(ctx, path, &text, &length);
    if (status == OP_OK)
        status = parse_text(ctx, &c, text, length);
    for (int k = 0; k < override_count && status == OP_OK; ++k)
        status = apply_override(ctx, &c, overrides[k]);
    if (status == OP_OK)
        status = provenance(ctx, text, length, override_count, overrides, &scene->config_text);
    if (status == OP_OK)
        status = interpret(ctx, &c, scene);
    free(text);
    config_free(&c);
    if (status != OP_OK)
        op_scene_free(scene);
    return status;
}

void op_scene_free(op_scene *scene)
{
    op_world_free(&scene->world);
    free(scene->config_text);
    memset(scene, 0, sizeof *scene);
}
