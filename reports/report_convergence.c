/* The convergence study's table row and markdown report (report_convergence.h): the converge
 * runs read, the tolerances found from the end of each run backwards, and the report's four
 * tables written from table.tsv in the order its scenes first appear. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_convergence.h"

enum { CELL = 256, MAX_ROWS = 64, MAX_CELLS = 32, TOLERANCES = 3 };
static const double TOLERANCE[TOLERANCES] = { 1e-2, 1e-4, 1e-6 };

/* One `opsim converge` output: its rows and the settings its '#' lines name. */
typedef struct converge_run {
    long *k;
    double *seconds, *energy;
    /* the time's 95 % interval and noisy flag per row (converge --repeats), text as written; the
     * run has them when every row does */
    char (*interval)[3][32];
    int count, capacity, has_interval;
    char first_energy[CELL], zero_energy[CELL], config[CELL], frame[CELL], h[CELL];
    /* the meta's own_fields (converge --fixed-point): per tolerance the iterations reached (or
     * the word that stands for them) and the ms; has_own when the meta has the line */
    char own[2 * TOLERANCES][CELL];
    int has_own;
} converge_run;

static void free_run(converge_run *r)
{
    free(r->k);
    free(r->seconds);
    free(r->energy);
    free(r->interval);
}

static int grow(op_ctx *ctx, converge_run *r, const char *path)
{
    int capacity = r->capacity ? 2 * r->capacity : 512;
    long *k = realloc(r->k, (size_t)capacity * sizeof *k);
    r->k = k ? k : r->k;
    double *s = k ? realloc(r->seconds, (size_t)capacity * sizeof *s) : NULL;
    r->seconds = s ? s : r->seconds;
    double *e = s ? realloc(r->energy, (size_t)capacity * sizeof *e) : NULL;
    r->energy = e ? e : r->energy;
    char(*interval)[3][32] = e ? realloc(r->interval, (size_t)capacity * sizeof *interval) : NULL;
    r->interval = interval ? interval : r->interval;
    if (!interval)
        return OP_FAIL(ctx, OP_ERR_NOMEM, "%s: out of memory", path);
    r->capacity = capacity;
    return OP_OK;
}

/* The first word of VALUE in "KEY = VALUE ..." (a line of FILE.tsv.meta, or "# KEY = ..." in a
 * converge file of before the sidecar) into `value` when the line names `key` (the converge
 * output explains the frame and h after their number). */
static void setting(const char *line, const char *key, char *value)
{
    size_t length = strlen(key);
    if (strncmp(line, "# ", 2) == 0)
        line += 2;
    if (strncmp(line, key, length) != 0 || strncmp(line + length, " = ", 3) != 0)
        return;
    const char *word = line + 3 + length;
    word += strspn(word, " \t");
    snprintf(value, CELL, "%.*s", (int)(strcspn(word, " \t") < CELL ? strcspn(word, " \t") : CELL - 1), word);
}

static int read_row(op_ctx *ctx, converge_run *r, const char *path, int number, char *line)
{
    char *k = strtok(line, " \t"), *s = strtok(NULL, " \t"), *e = strtok(NULL, " \t"), *end;
    if (!e)
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: expected k, seconds and energy", path, number);
    if (r->count == r->capacity && grow(ctx, r, path) != OP_OK)
        return ctx->status;
    r->k[r->count] = strtol(k, &end, 10);
    int bad = *end != '\0';
    r->seconds[r->count] = strtod(s, &end);
    bad |= *end != '\0';
    r->energy[r->count] = strtod(e, &end);
    if (bad || *end != '\0')
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: expected k, seconds and energy as numbers", path, number);
    int cells = 0;
    for (char *cell; cells < 3 && (cell = strtok(NULL, " \t")); ++cells)
        snprintf(r->interval[r->count][cells], sizeof r->interval[0][0], "%s", cell);
    r->has_interval = (r->count == 0 || r->has_interval) && cells == 3;
    if (r->count == 0)
        snprintf(r->first_energy, CELL, "%.255s", e);
    if (r->k[r->count] == 0)
        snprintf(r->zero_energy, CELL, "%.255s", e);
    r->count++;
    return OP_OK;
}

static void read_settings(const char *line, converge_run *r)
{
    setting(line, "config", r->config);
    setting(line, "frame", r->frame);
    setting(line, "h", r->h);
}

/* "own_fields = " and its tab-separated cells into r->own. */
static void read_own_fields(const char *line, converge_run *r)
{
    static const char key[] = "own_fields = ";
    if (strncmp(line, key, sizeof key - 1) != 0)
        return;
    const char *cell = line + sizeof key - 1;
    for (int c = 0; c < 2 * TOLERANCES; ++c) {
        size_t length = strcspn(cell, "\t");
        snprintf(r->own[c], CELL, "%.*s", (int)(length < CELL ? length : CELL - 1), cell);
        cell += length + (cell[length] == '\t');
    }
    r->has_own = 1;
}

/* The settings from PATH.meta, when the run has one. */
static void read_meta(const char *path, converge_run *r)
{
    char meta[4096], line[4096];
    if (snprintf(meta, sizeof meta, "%s.meta", path) >= (int)sizeof meta)
        return;
    FILE *f = fopen(meta, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        read_settings(line, r);
        read_own_fields(line, r);
    }
    fclose(f);
}

/* A plain header line ("k<TAB>seconds..."), which names the columns read by position. */
static int is_header(const char *line)
{
    return strncmp(line, "k\t", 2) == 0;
}

static int read_run(op_ctx *ctx, const char *path, converge_run *r)
{
    read_meta(path, r);
    FILE *f = fopen(path, "r");
    if (!f)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char line[4096];
    for (int number = 1; fgets(line, sizeof line, f) && ctx->status == OP_OK; ++number) {
        line[strcspn(line, "\r\n")] = '\0';
        read_settings(line, r);
        if (line[0] != '#' && !is_header(line) && line[strspn(line, " \t")] != '\0')
            read_row(ctx, r, path, number, line);
    }
    fclose(f);
    if (ctx->status == OP_OK && r->count == 0)
        OP_FAIL(ctx, OP_ERR_PARSE, "%s: no iterations", path);
    return ctx->status;
}

/* The first row after which r stays at or below `tolerance`, -1 if the last is above it. */
static int reached(const converge_run *run, double estar, double tolerance)
{
    int first = -1;
    for (int i = run->count - 1; i >= 0; --i) {
        if (fabs(run->energy[i] - estar) / (run->energy[0] - estar) > tolerance)
            break;
        first = i;
    }
    return first;
}

/* A missing value: an empty cell ("-" in a table of before the tidy format). */
static int missing(const char *cell)
{
    return cell[0] == '\0' || strcmp(cell, "-") == 0;
}

static int write_row(op_ctx *ctx, const report_convergence_row_def *def, const converge_run *reference,
                     const converge_run *run, FILE *out)
{
    double estar = reference->energy[reference->count - 1], e0 = run->energy[0];
    if (strtod(run->first_energy, NULL) != strtod(reference->zero_energy, NULL))
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s %s: E_0 %s differs from the reference's %s", def->scene, def->variant,
                       run->first_energy, reference->zero_energy);
    if (!(e0 > estar))
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s %s: E_0 %s not above E* %.17g", def->scene, def->variant,
                       run->first_energy, estar);
    fprintf(out, "%s\t%s", def->scene, def->variant);
    int first[TOLERANCES];
    for (int t = 0; t < TOLERANCES; ++t) {
        int r = first[t] = reached(run, estar, TOLERANCE[t]);
        if (r < 0)
            fputs("\t\t", out);
        else
            fprintf(out, "\t%ld\t%.3f", run->k[r], 1000 * run->seconds[r]);
    }
    double end = fabs(run->energy[run->count - 1] - estar) / (e0 - estar);
    fprintf(out, "\t%s\t%.3e\t%.17g\t%.17g\t%ld\t%s\t%s\t%s", def->rho && !missing(def->rho) ? def->rho : "", end, e0, estar,
            run->k[run->count - 1], run->frame, run->h, run->config);
    for (int t = 0; t < TOLERANCES; ++t) {
        int r = first[t];
        if (r < 0 || !run->has_interval)
            fputs("\t\t\t", out);
        else
            fprintf(out, "\t%.3f\t%.3f\t%s", 1000 * strtod(run->interval[r][0], NULL),
                    1000 * strtod(run->interval[r][1], NULL), run->interval[r][2]);
    }
    fputc('\n', out);
    return OP_OK;
}

int report_convergence_row(op_ctx *ctx, const report_convergence_row_def *def, FILE *out)
{
    converge_run reference = { 0 }, run = { 0 };
    if (read_run(ctx, def->reference, &reference) == OP_OK && read_run(ctx, def->run, &run) == OP_OK) {
        if (!reference.zero_energy[0])
            OP_FAIL(ctx, OP_ERR_PARSE, "%s: no iteration 0", def->reference);
        else
            write_row(ctx, def, &reference, &run, out);
    }
    free_run(&reference);
    free_run(&run);
    return ctx->status;
}

/* The first row after which r stays at or below `tolerance`, as reached() but with a NaN r
 * counted as above (a run that blew up reaches nothing). */
static int reached_finite(const converge_run *run, double estar, double tolerance)
{
    int first = -1;
    for (int i = run->count - 1; i >= 0; --i) {
        if (!(fabs(run->energy[i] - estar) / (run->energy[0] - estar) <= tolerance))
            break;
        first = i;
    }
    return first;
}

/* "\tLO\tHI\tNOISY" of row r (ms, %.3f, the flag as written), or `none` three times where r < 0
 * or the run has no interval columns. */
static void write_interval(const converge_run *run, int r, const char *none, FILE *out)
{
    if (r < 0 || !run->has_interval)
        fprintf(out, "\t%s\t%s\t%s", none, none, none);
    else
        fprintf(out, "\t%.3f\t%.3f\t%s", 1000 * strtod(run->interval[r][0], NULL),
                1000 * strtod(run->interval[r][1], NULL), run->interval[r][2]);
}

/* own_ms's interval of tolerance t: the interval of the row own_fields says it reached, the
 * word three times where own_fields holds a word ("x* unsettled", "single update", "–"). */
static void write_own_interval(const converge_run *run, int t, FILE *out)
{
    const char *reached = run->has_own && run->own[2 * t][0] ? run->own[2 * t] : "–";
    char *end;
    long k = strtol(reached, &end, 10);
    int number = end != reached && *end == '\0', row = -1;
    for (int i = 0; number && i < run->count; ++i)
        if (run->k[i] == k)
            row = i;
    write_interval(run, row, number ? "–" : reached, out);
}

int report_convergence_cells(op_ctx *ctx, const report_convergence_cells_def *def, FILE *out)
{
    converge_run reference = { 0 }, run = { 0 };
    if (read_run(ctx, def->reference, &reference) == OP_OK && read_run(ctx, def->run, &run) == OP_OK) {
        if (def->at < 0 || def->at >= run.count)
            OP_FAIL(ctx, OP_ERR_USAGE, "--at %d: %s has rows 0 to %d", def->at, def->run, run.count - 1);
    }
    if (ctx->status == OP_OK) {
        double estar = reference.energy[reference.count - 1], scale = run.energy[0] - estar;
        int first[TOLERANCES];
        for (int t = 0; t < TOLERANCES; ++t) {
            int r = first[t] = reached_finite(&run, estar, TOLERANCE[t]);
            if (r < 0)
                fprintf(out, "%s–\t–", t ? "\t" : "");
            else
                fprintf(out, "%s%ld\t%.3f", t ? "\t" : "", run.k[r], 1000 * run.seconds[r]);
        }
        fprintf(out, "\t%.2e\t%.2e", fabs(run.energy[run.count - 1] - estar) / scale,
                fabs(run.energy[def->at] - estar) / scale);
        for (int t = 0; t < TOLERANCES; ++t)
            write_interval(&run, first[t], "–", out);
        for (int t = 0; t < TOLERANCES; ++t)
            write_own_interval(&run, t, out);
        fputc('\n', out);
    }
    free_run(&reference);
    free_run(&run);
    return ctx->status;
}

/* ---- the report ------------------------------------------------------------------------- */

typedef struct table_row {
    char text[4096];
    const char *cell[MAX_CELLS];
    int count;
} table_row;

typedef struct study {
    table_row row[MAX_ROWS];
    int rows;
    const char *scene[MAX_ROWS];
    int scenes;
    char source[REPORT_CONVERGENCE_MAX_RHO][3][CELL]; /* scene, order, chebyshev_rho_source */
    int sources;
} study;

static const char *const VARIANT[4] = { "gs", "jacobi", "gs-chebyshev", "jacobi-chebyshev" };
static const char *const VARIANT_NAME[4] = { "Gauss–Seidel", "Jacobi", "Gauss–Seidel + Chebyshev",
                                             "Jacobi + Chebyshev" };

static void split_row(table_row *r)
{
    char *cell = r->text;
    for (r->count = 0; r->count < MAX_CELLS;) {
        r->cell[r->count++] = cell;
        char *tab = strchr(cell, '\t');
        if (!tab)
            break;
        *tab = '\0';
        cell = tab + 1;
    }
}

static int read_table(op_ctx *ctx, const char *path, study *s)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    table_row *r = &s->row[0];
    for (int number = 1; s->rows < MAX_ROWS && fgets(r->text, sizeof r->text, f); ++number) {
        r->text[strcspn(r->text, "\r\n")] = '\0';
        if (r->text[0] == '#' || r->text[0] == '\0' || strncmp(r->text, "scene\t", 6) == 0)
            continue;
        split_row(r);
        if (r->count < 16) {
            fclose(f);
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: %d cells, expected 16", path, number, r->count);
        }
        int known = 0;
        for (int c = 0; c < s->scenes; ++c)
            known |= strcmp(s->scene[c], r->cell[0]) == 0;
        if (!known)
            s->scene[s->scenes++] = r->cell[0];
        r = &s->row[++s->rows];
    }
    fclose(f);
    return OP_OK;
}

/* The last row of (scene, variant); NULL if none. */
static const table_row *find(const study *s, const char *scene, const char *variant)
{
    for (int r = s->rows - 1; r >= 0; --r)
        if (strcmp(s->row[r].cell[0], scene) == 0 && strcmp(s->row[r].cell[1], variant) == 0)
            return &s->row[r];
    return NULL;
}

static const char *cell(const table_row *r, int c)
{
    if (!r || c >= r->count)
        return "";
    return missing(r->cell[c]) ? "–" : r->cell[c];
}

static void write_ratio(const table_row *plain, const table_row *fast, int c, FILE *out)
{
    const char *a = plain ? plain->cell[c] : "", *b = fast ? fast->cell[c] : "";
    if (missing(a) || missing(b) || strtod(b, NULL) == 0)
        fputs(" – |", out);
    else
        fprintf(out, " %.2f× |", strtod(a, NULL) / strtod(b, NULL));
}

/* SCENE-rho-ORDER.txt's chebyshev_rho_source line. */
static int read_source(op_ctx *ctx, const char *path, study *s)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path, *mark = strstr(base, "-rho-");
    if (!mark || s->sources == REPORT_CONVERGENCE_MAX_RHO)
        return OP_FAIL(ctx, OP_ERR_USAGE, "--rho '%s': expected SCENE-rho-ORDER.txt", path);
    char (*entry)[CELL] = s->source[s->sources++];
    snprintf(entry[0], CELL, "%.*s", (int)(mark - base), base);
    snprintf(entry[1], CELL, "%.*s", (int)strcspn(mark + 5, "."), mark + 5);
    entry[2][0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char line[CELL + 64];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "chebyshev_rho_source = ", 23) == 0)
            snprintf(entry[2], CELL, "%.*s", (int)strcspn(line + 23, "\r\n"), line + 23);
    fclose(f);
    return OP_OK;
}

static const char *source_of(const study *s, const char *scene, const char *order)
{
    for (int k = 0; k < s->sources; ++k)
        if (strcmp(s->source[k][0], scene) == 0 && strcmp(s->source[k][1], order) == 0)
            return s->source[k][2];
    return "";
}

static void write_introduction(const report_convergence_def *def, FILE *out)
{
    fprintf(out, "# Convergence of one sub-step: Gauss–Seidel and Jacobi rotations, plain and with Chebyshev\n\n"
                 "Generated by `make convergence` (`experiments/convergence.mk`) from `%s` and the ρ estimates "
                 "beside it; do not edit.\n\n",
            def->table);
    fprintf(out, "Each scene runs to the end of a frame as configured (Gauss–Seidel, plain); the next sub-step is then "
                 "solved by each variant from that one state (`opsim converge --solver ...`, `core/sim/converge.h`). "
                 "The relative energy error is r_k = |E_k − E\\*| / (E_0 − E\\*), E the energy of docs/design.md §1 "
                 "summed over the bodies, E\\* the energy after %s Gauss–Seidel iterations of the same sub-step. "
                 "*Reached*: the first iteration k after which r stays below the tolerance to the end of the run; – "
                 "if never. Milliseconds are the wall-clock time spent in the iterations up to k (the Chebyshev "
                 "extrapolation included, energy evaluation excluded): the median over seven solves after an "
                 "untimed one (`opsim converge --repeats 7`), in brackets its order-statistic 95 %% interval, † "
                 "when the interval's half-width exceeds 5 %% of the median (noisy: not to be compared; "
                 "`docs/timing.md`). The variants' solves are separate runs, not interleaved, made while "
                 "`make -j` ran others.\n\n",
            def->reference_iterations);
    fprintf(out, "![relative energy error against iteration and time](%s)\n\n", def->figure);
}

static void write_scenes(const study *s, FILE *out)
{
    fputs("| scene | config | frame | h (s) | E_0 (J) | E* (J) | iterations |\n|---|---|---:|---:|---:|---:|---:|\n",
          out);
    for (int c = 0; c < s->scenes; ++c) {
        const table_row *r = find(s, s->scene[c], "gs");
        if (!r)
            fprintf(out, "| %s | `` |  | 0 | 0 | 0 |  |\n", s->scene[c]);
        else
            fprintf(out, "| %s | `%s` | %s | %.6g | %.10g | %.10g | %s |\n", s->scene[c], r->cell[15], r->cell[13],
                    strtod(r->cell[14], NULL), strtod(r->cell[10], NULL), strtod(r->cell[11], NULL), r->cell[12]);
    }
}

/* The ms cell of tolerance t (table column 3 + 2t) with its interval, "MS (LO–HI)" and † when
 * noisy, where the row has the interval columns (16 + 3t …, report_convergence.h). */
static void write_ms(const table_row *r, int t, FILE *out)
{
    int lo = 16 + 3 * t;
    if (!r || r->count <= lo + 2 || missing(r->cell[lo]))
        fprintf(out, " %s |", cell(r, 3 + 2 * t));
    else
        fprintf(out, " %s (%s–%s)%s |", r->cell[3 + 2 * t], r->cell[lo], r->cell[lo + 1],
                strcmp(r->cell[lo + 2], "1") == 0 ? "†" : "");
}

static void write_reached(const study *s, FILE *out)
{
    fputs("\n## Iterations and milliseconds to reach a relative energy error\n\n"
          "| scene | variant | ρ | 1e-2 it. | 1e-2 ms | 1e-4 it. | 1e-4 ms | 1e-6 it. | 1e-6 ms | r at the end |\n"
          "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
          out);
    for (int c = 0; c < s->scenes; ++c)
        for (int v = 0; v < 4; ++v) {
            const table_row *r = find(s, s->scene[c], VARIANT[v]);
            fprintf(out, "| %s | %s | %s |", s->scene[c], VARIANT_NAME[v], cell(r, 8));
            for (int t = 0; t < TOLERANCES; ++t) {
                fprintf(out, " %s |", cell(r, 2 + 2 * t));
                write_ms(r, t, out);
            }
            fprintf(out, " %s |\n", r ? r->cell[9] : "");
        }
}

static void write_speedups(const study *s, FILE *out)
{
    fputs("\n## Speed-up of Chebyshev over plain\n\n"
          "Plain / Chebyshev, same rotation order: iterations and milliseconds to reach each tolerance (– where "
          "either never reaches it).\n\n"
          "| scene | rotations | 1e-2 it. | 1e-2 ms | 1e-4 it. | 1e-4 ms | 1e-6 it. | 1e-6 ms |\n"
          "|---|---|---:|---:|---:|---:|---:|---:|\n",
          out);
    for (int c = 0; c < s->scenes; ++c)
        for (int o = 0; o < 2; ++o) {
            const table_row *plain = find(s, s->scene[c], VARIANT[o]), *fast = find(s, s->scene[c], VARIANT[o + 2]);
            fprintf(out, "| %s | %s |", s->scene[c], VARIANT_NAME[o]);
            for (int k = 2; k < 8; ++k)
                write_ratio(plain, fast, k, out);
            fputc('\n', out);
        }
}

static void write_escaped(const char *text, FILE *out)
{
    for (; *text; ++text)
        fputs(*text == '|' ? "\\|" : (char[]){ *text, '\0' }, out);
}

static void write_estimates(const study *s, FILE *out)
{
    fputs("\n## ρ estimates\n\n"
          "`opsim estimate-rho CONFIG --frame F --set solver.rotations=ORDER` (its frames before the sub-step run "
          "with that order, so the Jacobi estimate comes from the Jacobi run's state at that frame, not quite the "
          "state the study starts from); the Chebyshev runs take the printed ρ and record its source.\n\n"
          "| scene | rotations | ρ | source |\n|---|---|---:|---|\n",
          out);
    for (int c = 0; c < s->scenes; ++c)
        for (int o = 0; o < 2; ++o) {
            const table_row *fast = find(s, s->scene[c], VARIANT[o + 2]);
            fprintf(out, "| %s | %s | %s | ", s->scene[c], VARIANT_NAME[o], fast ? fast->cell[8] : "");
            write_escaped(source_of(s, s->scene[c], VARIANT[o]), out);
            fputs(" |\n", out);
        }
}

static void write_unconverged(const study *s, FILE *out)
{
    int any = 0;
    for (int c = 0; c < s->scenes; ++c)
        for (int v = 0; v < 4; ++v) {
            const table_row *r = find(s, s->scene[c], VARIANT[v]);
            if (!r || !missing(r->cell[2]))
                continue;
            if (!any++)
                fputs("\n## Runs that do not converge\n\n", out);
            fprintf(out, "- %s, %s: does not reach 1e-2 within %ld iterations; r at the end %s.\n", s->scene[c],
                    VARIANT_NAME[v], strtol(r->cell[12], NULL, 10), r->cell[9]);
        }
}

int report_convergence(op_ctx *ctx, const report_convergence_def *def, FILE *out)
{
    study *s = op_calloc(ctx, 1, sizeof *s);
    if (!s)
        return ctx->status;
    for (int k = 0; k < def->rho_count && ctx->status == OP_OK; ++k)
        read_source(ctx, def->rho[k], s);
    if (ctx->status == OP_OK && read_table(ctx, def->table, s) == OP_OK) {
        write_introduction(def, out);
        write_scenes(s, out);
        write_reached(s, out);
        write_speedups(s, out);
        write_estimates(s, out);
        write_unconverged(s, out);
    }
    free(s);
    return ctx->status;
}

/* ---- the long table ---------------------------------------------------------------------- */

/* "KEY=PATH" split at its first '='. */
static int split_assignment(op_ctx *ctx, const char *text, char *key, size_t size, const char **path)
{
    const char *equals = strchr(text, '=');
    if (!equals || equals == text || !equals[1] || (size_t)(equals - text) >= size)
        return OP_FAIL(ctx, OP_ERR_USAGE, "'%s': expected NAME=FILE", text);
    snprintf(key, size, "%.*s", (int)(equals - text), text);
    *path = equals + 1;
    return OP_OK;
}

/* E* of `scene`: the last energy of its --reference. */
static int reference_energy(op_ctx *ctx, const report_convergence_long_def *def, const char *scene, double *estar)
{
    for (int r = 0; r < def->reference_count; ++r) {
        char key[CELL];
        const char *path = NULL;
        if (split_assignment(ctx, def->reference[r], key, sizeof key, &path) != OP_OK)
            return ctx->status;
        if (strcmp(key, scene) != 0)
            continue;
        converge_run reference = { 0 };
        if (read_run(ctx, path, &reference) == OP_OK)
            *estar = reference.energy[reference.count - 1];
        free_run(&reference);
        return ctx->status;
    }
    return OP_FAIL(ctx, OP_ERR_USAGE, "no --reference %s=FILE", scene);
}

static int write_long_run(op_ctx *ctx, const report_convergence_long_def *def, const char *spec, FILE *out)
{
    char key[CELL];
    const char *path = NULL;
    if (split_assignment(ctx, spec, key, sizeof key, &path) != OP_OK)
        return ctx->status;
    char *colon = strchr(key, ':');
    if (!colon)
        return OP_FAIL(ctx, OP_ERR_USAGE, "--run '%s': expected SCENE:VARIANT=FILE", spec);
    *colon = '\0';
    double estar = 0;
    if (reference_energy(ctx, def, key, &estar) != OP_OK)
        return ctx->status;
    converge_run run = { 0 };
    if (read_run(ctx, path, &run) == OP_OK)
        for (int i = 0; i < run.count; ++i) {
            double r = fabs(run.energy[i] - estar) / (run.energy[0] - estar);
            fprintf(out, "%s\t%s\t1\t%ld\t%.17g\tenergy_J\t%.17g\n", colon + 1, key, run.k[i], run.seconds[i],
                    run.energy[i]);
            fprintf(out, "%s\t%s\t1\t%ld\t%.17g\trelative_error\t%.17g\n", colon + 1, key, run.k[i], run.seconds[i],
                    r);
        }
    free_run(&run);
    return ctx->status;
}

int report_convergence_long(op_ctx *ctx, const report_convergence_long_def *def, FILE *out)
{
    fputs("variant\tscene\trepetition\titeration\tseconds\tmeasure\tvalue\n", out);
    for (int r = 0; r < def->run_count && write_long_run(ctx, def, def->run[r], out) == OP_OK; ++r)
        ;
    return ctx->status;
}
