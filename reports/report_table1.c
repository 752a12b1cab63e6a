/* The paper's Table 1 beside our timings from bench_scenes' CSV (report_table1.h), on the
 * matched graphs and, where they differ, on the face rule's, with the machine, thread count and
 * compiler flags they were measured with. Each of our times carries its 95 % interval over the
 * repetitions and a mark when noisy (docs/timing.md), and each ratio the CPU it was measured on:
 * a ratio to the paper's laptop is a property of the machine as much as of the code. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/collide.h"
#include "opsim/ctx.h"
#include "report_input.h"
#include "report_table1.h"

/* A paper time cell: a missing one (empty, or "-" in a table of before the tidy format) as "–". */
static void print_paper_ms(FILE *out, const char *cell)
{
    fprintf(out, " %s |", !*cell || strcmp(cell, "-") == 0 ? "–" : cell);
}

/* A stage's median in milliseconds (bench_scenes' <stage>_ms). */
static double stage_median(const report_bench_row *row, const char *stage)
{
    char key[REPORT_BENCH_KEY_SIZE];
    snprintf(key, sizeof key, "%s_ms", stage);
    return strtod(report_bench_value(row, key), NULL);
}

/* A stage's median's 95 % interval (<stage>_lo_ms, <stage>_hi_ms) and whether it is noisy
 * (<stage>_noisy); 0 when the row has none (older benchmark files). */
static int stage_interval(const report_bench_row *row, const char *stage, double *lo, double *hi, int *noisy)
{
    char key[REPORT_BENCH_KEY_SIZE];
    snprintf(key, sizeof key, "%s_lo_ms", stage);
    const char *low = report_bench_value(row, key);
    snprintf(key, sizeof key, "%s_hi_ms", stage);
    const char *high = report_bench_value(row, key);
    snprintf(key, sizeof key, "%s_noisy", stage);
    const char *mark = report_bench_value(row, key);
    if (!low || !high)
        return 0;
    *lo = strtod(low, NULL);
    *hi = strtod(high, NULL);
    *noisy = mark && strcmp(mark, "1") == 0;
    return 1;
}

/* A time cell: the median to three places, its interval beside it when the row has one, and †
 * when the repetitions were noisy. */
static void print_time_cell(FILE *out, const report_bench_row *row, const char *stage)
{
    fprintf(out, " %.3f", stage_median(row, stage));
    double lo, hi;
    int noisy;
    if (stage_interval(row, stage, &lo, &hi, &noisy))
        fprintf(out, " (%.3f–%.3f)%s", lo, hi, noisy ? " †" : "");
    fprintf(out, " |");
}

/* The CPU a row was measured on (bench_scenes' cpu column; else this machine's), without the
 * vendors' trade marks. */
static void row_cpu(const report_bench_row *row, char *cpu, size_t size)
{
    const char *measured = report_bench_value(row, "cpu");
    if (measured)
        snprintf(cpu, size, "%s", measured);
    else
        report_cpu_model(cpu, size);
    static const char *const marks[] = { "(R)", "(TM)", "(tm)" };
    for (size_t m = 0; m < sizeof marks / sizeof marks[0]; ++m)
        for (char *at; (at = strstr(cpu, marks[m]));)
            memmove(at, at + strlen(marks[m]), strlen(at + strlen(marks[m])) + 1);
}

/* One measured row of Table 1, labelled `who`, with the paper's total over its own and the CPU. */
static void print_bench_row(FILE *out, const char *who, const report_bench_row *row, double paper_total)
{
    double total = strtod(report_bench_value(row, "total_ms"), NULL);
    fprintf(out, "| | | %s | %s | %s | %s | %s | %s × %s |", who, report_bench_value(row, "nodes"),
            report_bench_value(row, "edges"), report_bench_value(row, "vertices"), report_bench_value(row, "faces"),
            report_bench_value(row, "ns"), report_bench_value(row, "ni"));
    static const char *const stages[] = { "local", "global", "collision", "total" };
    for (size_t s = 0; s < sizeof stages / sizeof stages[0]; ++s)
        print_time_cell(out, row, stages[s]);
    char cpu[256];
    row_cpu(row, cpu, sizeof cpu);
    fprintf(out, " %.3f | %.1f× on %s |\n", strtod(report_bench_value(row, "skinning_ms"), NULL),
            total > 0 ? paper_total / total : 0.0, cpu);
}

/* Where each scene's contacts between bodies ran (bench_scenes' handoff_ns and
 * contacts_one_thread; absent from older benchmark files, and for scenes without such contacts). */
static void print_contact_threads(FILE *out, const report_bench_row *rows, int count)
{
    int printed = 0;
    for (int r = 0; r < count; ++r) {
        const char *handoff = report_bench_value(&rows[r], "handoff_ns");
        const char *share = report_bench_value(&rows[r], "contacts_one_thread");
        if (!handoff || !share)
            continue;
        if (!printed++)
            fprintf(out, "\nWhere the contacts between bodies ran (`[world] collision_threads = auto`, "
                         "`core/contact/collide.h`): the world times the contact cycles on the thread team and on "
                         "one thread in turn and keeps the faster, calibrating again every %d cycles; the cores' "
                         "cache-line hand-over is recorded beside it, and decides nothing. In this run:",
                    OP_COLLIDE_CHOICE_SETTLE);
        fprintf(out, "%s %s, hand-over %s ns (median), every contact call on one thread in %.1f %% of the frames",
                printed > 1 ? ";" : "", report_bench_value(&rows[r], "example"), handoff, 100 * strtod(share, NULL));
    }
    if (printed)
        fprintf(out, ".\n");
}

/* A time in milliseconds for an S column: the paper's "-" as {--}. */
static void print_tex_ms(FILE *out, const char *cell)
{
    fprintf(out, " & %s", !cell || !*cell || strcmp(cell, "-") == 0 ? "{--}" : cell);
}

/* The 95 % intervals of a measured row of the .tex Table 1, on a row of their own beneath its
 * medians (beside them the table would be some 150 pt wider than the page), in \scriptsize, each
 * as table1.md prints it, its † of zero width (\rlap) in the gap after the column; nothing when
 * the row has no intervals. */
static void print_tex_interval_row(FILE *out, const report_bench_row *row)
{
    static const char *const stages[] = { "local", "global", "collision", "total" };
    double lo[4], hi[4];
    int noisy[4];
    for (int s = 0; s < 4; ++s)
        if (!stage_interval(row, stages[s], &lo[s], &hi[s], &noisy[s]))
            return;
    fprintf(out, " & & & & &");
    for (int s = 0; s < 4; ++s)
        fprintf(out, " & {\\scriptsize %.3f--%.3f%s}", lo[s], hi[s], noisy[s] ? "\\rlap{$^\\dagger$}" : "");
    fprintf(out, " & \\\\\n");
}

/* One measured row of the .tex Table 1, its first cell `first` (the rest of the example's name,
 * or empty): the medians, then their intervals beneath. */
static void print_tex_bench_row(FILE *out, const char *first, const char *who, const report_bench_row *row,
                                double paper_total)
{
    double total = strtod(report_bench_value(row, "total_ms"), NULL);
    fprintf(out, "%s & & %s & %s & %s & $%s \\times %s$", first, who, report_bench_value(row, "nodes"),
            report_bench_value(row, "edges"), report_bench_value(row, "ns"), report_bench_value(row, "ni"));
    static const char *const stages[] = { "local", "global", "collision", "total" };
    for (size_t s = 0; s < sizeof stages / sizeof stages[0]; ++s)
        fprintf(out, " & %.3f", stage_median(row, stages[s]));
    if (total > 0)
        fprintf(out, " & %.1f \\\\\n", paper_total / total);
    else
        fprintf(out, " & {--} \\\\\n");
    print_tex_interval_row(out, row);
}

/* An example's name in the .tex table: one longer than EXAMPLE_LINE characters is split at its
 * last space, the head on the paper's row and the tail on ours, so the name column is no wider
 * than "manipulation" and the intervals' row has the width it needs. */
enum { EXAMPLE_LINE = 12 };
static const char *split_example(const char *name, char *head, size_t size)
{
    const char *space = strrchr(name, ' ');
    if (strlen(name) <= EXAMPLE_LINE || !space) {
        snprintf(head, size, "%s", name);
        return "";
    }
    snprintf(head, size, "%.*s", (int)(space - name), name);
    return space + 1;
}

/* Bar stiffness simulates three bars where the paper's row describes one: the total per bar. */
static void print_tex_per_body_row(FILE *out, const report_bench_row *ours, const char *example, double paper_total)
{
    const char *bodies = report_bench_value(ours, "bodies");
    double total = strtod(report_bench_value(ours, "total_ms"), NULL);
    if (!bodies || strtol(bodies, NULL, 10) <= 1 || strcmp(example, "Bar stiffness") != 0 || total <= 0)
        return;
    fprintf(out, " & & per bar & & & & & & & %.3f & %.1f \\\\\n", total / strtod(bodies, NULL),
            paper_total * strtod(bodies, NULL) / total);
}

int report_write_table1_tex(op_ctx *ctx, const char *paper_path, const char *bench_path, FILE *out)
{
    int count = 0, face_count = 0;
    report_table *paper = op_calloc(ctx, 1, sizeof *paper);
    report_bench_row *rows = op_calloc(ctx, REPORT_MAX_ROWS, sizeof *rows);
    report_bench_row *face_rows = op_calloc(ctx, REPORT_MAX_ROWS, sizeof *face_rows);
    if (!paper || !rows || !face_rows || report_read_table(ctx, paper_path, 13, paper) != OP_OK ||
        report_read_bench(ctx, bench_path, "catalogue", rows, &count) != OP_OK ||
        report_read_bench(ctx, bench_path, "faces", face_rows, &face_count) != OP_OK)
        goto done;
    fprintf(out, "%% generated by make table1 from %s and %s; do not edit\n", bench_path, paper_path);
    fprintf(out, "%% needs \\usepackage{booktabs,siunitx}; about 475 pt wide: wider than a column, set it in a "
                 "table* (both columns)\n");
    fprintf(out, "%% milliseconds per frame at h = 1/30 s, medians over the repetitions; beneath ours, small, "
                 "each median's 95 %% interval (order statistics), \\dagger where its half-width is over 5 %% "
                 "of the median: a noisy cell, not to be compared (docs/timing.md)\n");
    /* fixed formats with a digit to spare over this machine's largest cells: a slower machine's
     * times still align; 7 pt between the columns and none outside, as the other tables
     * (report_tsv.h), to make room for the intervals */
    fprintf(out, "\\begingroup\\setlength{\\tabcolsep}{3.5pt}\n");
    fprintf(out, "\\begin{tabular}{@{}lclS[table-format=5]S[table-format=6]cS[table-format=2.3]S[table-format=2.3]"
                 "S[table-format=2.3]S[table-format=3.3]S[table-format=2.1]@{}}\n\\toprule\n");
    fprintf(out, " & & & & & & \\multicolumn{4}{c}{time per frame (\\si{\\milli\\second})} & \\\\\n"
                 "\\cmidrule(lr){7-10}\n");
    fprintf(out, "example & {fig.} & graph & {nodes} & {edges} & $n_s \\times n_i$ & {local} & {global} & "
                 "{collision} & {total} & {\\begin{tabular}[b]{@{}c@{}}paper \\\\ / ours\\end{tabular}} "
                 "\\\\\n\\midrule\n");
    for (int r = 0; r < paper->rows; ++r) {
        const char(*cell)[REPORT_FIELD_SIZE] = paper->cell[r];
        const report_bench_row *ours = NULL;
        for (int b = 0; b < count && !ours; ++b)
            if (strcmp(report_bench_value(&rows[b], "example"), cell[0]) == 0)
                ours = &rows[b];
        if (r > 0)
            fprintf(out, "\\addlinespace\n");
        char head[REPORT_FIELD_SIZE];
        const char *tail = ours ? split_example(cell[0], head, sizeof head) : "";
        fprintf(out, "%s & %s & paper & %s & %s & $%s \\times %s$", ours ? head : cell[0], cell[1], cell[2], cell[3],
                cell[6], cell[7]);
        for (int c = 8; c < 12; ++c)
            print_tex_ms(out, cell[c]);
        fprintf(out, " & \\\\\n");
        if (!ours)
            continue;
        double paper_total = strtod(cell[11], NULL);
        print_tex_bench_row(out, tail, "ours", ours, paper_total);
        for (int b = 0; b < face_count; ++b)
            if (strcmp(report_bench_value(&face_rows[b], "example"), cell[0]) == 0 &&
                strcmp(report_bench_value(&face_rows[b], "edges"), report_bench_value(ours, "edges")) != 0)
                print_tex_bench_row(out, "", "face rule", &face_rows[b], paper_total);
        print_tex_per_body_row(out, ours, cell[0], paper_total);
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n\\endgroup\n");
done:
    free(paper);
    free(rows);
    free(face_rows);
    return ctx->status;
}

int report_write_table1(op_ctx *ctx, const char *paper_path, const char *bench_path, const char *flags_path,
                        FILE *out)
{
    int count = 0, face_count = 0;
    report_table *paper = op_calloc(ctx, 1, sizeof *paper), *flags = op_calloc(ctx, 1, sizeof *flags);
    report_bench_row *rows = op_calloc(ctx, REPORT_MAX_ROWS, sizeof *rows);
    report_bench_row *face_rows = op_calloc(ctx, REPORT_MAX_ROWS, sizeof *face_rows);
    if (!paper || !flags || !rows || !face_rows || report_read_table(ctx, paper_path, 13, paper) != OP_OK ||
        report_read_bench(ctx, bench_path, "catalogue", rows, &count) != OP_OK ||
        report_read_bench(ctx, bench_path, "faces", face_rows, &face_count) != OP_OK ||
        report_read_rows(ctx, flags_path, 1, flags) != OP_OK)
        goto done;
    char cpu[256];
    const report_bench_row *first = &rows[0];
    row_cpu(first, cpu, sizeof cpu);
    const char *simd = report_bench_value(first, "simd"); /* absent from older benchmark files */
    fprintf(out, "Ours: %s, %s thread(s)%s, `%s`; double precision. The paper: MacBook Pro, Intel Core i7 "
                 "2.9 GHz, 4 cores for the two Fig. 7 scenes, skinning on the GPU.\n\n",
            cpu, report_bench_value(first, "threads"),
            simd && strcmp(simd, "avx") == 0 ? ", AVX paths on (`core/kernels/simd.h`)" : "",
            flags->cell[0][0]);
    fprintf(out, "Milliseconds per frame (h = 1/30 s) by the timing protocol (`docs/timing.md`): each stage's "
                 "median over %s repetitions of its median over each scene's own frames after %s warm-up "
                 "frames, the repetitions interleaved across the scenes, energy logging off "
                 "(`bench/bench_scenes.c`); in brackets the median's 95 %% interval (order statistics; the "
                 "range below six repetitions), † where its half-width is over 5 %% of the median: a noisy "
                 "cell, not to be compared. Stage medians "
                 "are taken one by one, so they need not add up to the total. *skinning*: every visual "
                 "vertex of every body skinned on the CPU, timed apart from the frames (between them it "
                 "would evict the world's data from the caches; the paper skinned on the GPU), not in our "
                 "total. *ratio*: the "
                 "paper's total over ours, on the CPU named beside it: it moves three-fold between machines. Our meshes are the CGAL sample meshes, not the paper's (more "
                 "vertices).\n\n"
                 "Two graph sets (`reports/graphs.md`): *ours* runs the matched graphs, each model with its "
                 "catalogue edge rule, which bring every scene's edge count to the paper's; *ours, face rule* "
                 "runs the same scenes with every model joined by shared cell faces alone (`[run] edges = "
                 "faces`), fewer edges, where the two differ: %s run(s) of %s frames each after the same "
                 "warm-up, enough to show what the density costs, not to time it as closely.\n\n",
            report_bench_value(first, "repeats"), report_bench_value(first, "warmup"),
            report_bench_value(&face_rows[0], "repeats"), report_bench_value(&face_rows[0], "frames"));
    fprintf(out, "| example | fig. | | nodes | edges | vertices | faces | n_s × n_i | local | global | collision | "
                 "total | skinning | ratio |\n");
    fprintf(out, "|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
    for (int r = 0; r < paper->rows; ++r) {
        const char *example = paper->cell[r][0];
        const report_bench_row *ours = NULL;
        for (int b = 0; b < count && !ours; ++b)
            if (strcmp(report_bench_value(&rows[b], "example"), example) == 0)
                ours = &rows[b];
        fprintf(out, "| %s | %s | paper | %s | %s | %s | %s | %s × %s |", example, paper->cell[r][1],
                paper->cell[r][2], paper->cell[r][3], paper->cell[r][4], paper->cell[r][5], paper->cell[r][6],
                paper->cell[r][7]);
        for (int c = 8; c < 12; ++c)
            print_paper_ms(out, paper->cell[r][c]);
        fprintf(out, " GPU | |\n");
        if (!ours) {
            fprintf(out, "| | | ours | not measured | | | | | | | | | | |\n");
            continue;
        }
        double total = strtod(report_bench_value(ours, "total_ms"), NULL);
        double paper_total = strtod(paper->cell[r][11], NULL);
        print_bench_row(out, "ours", ours, paper_total);
        for (int b = 0; b < face_count; ++b)
            if (strcmp(report_bench_value(&face_rows[b], "example"), example) == 0 &&
                strcmp(report_bench_value(&face_rows[b], "edges"), report_bench_value(ours, "edges")) != 0)
                print_bench_row(out, "ours, face rule", &face_rows[b], paper_total);
        const char *bodies = report_bench_value(ours, "bodies");
        if (bodies && strtol(bodies, NULL, 10) > 1 && strcmp(example, "Bar stiffness") == 0)
        {
            char cpu[256];
            row_cpu(ours, cpu, sizeof cpu);
            fprintf(out, "| | | ours per bar | | | | | | | | | %.3f | | %.1f× on %s |\n", total / strtod(bodies, NULL),
                    paper_total * strtod(bodies, NULL) / total, cpu);
        }
    }
    fprintf(out, "\nBar stiffness simulates three bars; the paper's row describes one, so the time per bar is "
                 "given too. Times from one machine are noisy: compare ratios measured in one run.\n");
    print_contact_threads(out, rows, count);
done:
    free(paper);
    free(flags);
    free(rows);
    free(face_rows);
    return ctx->status;
}
