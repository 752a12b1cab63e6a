/* Per-frame stage timings of the paper's Table 1 scenes, one config in experiments/ each,
 * beside the paper's own numbers (read from reports/paper_table1.tsv). `make bench` prints the
 * table; `make table1` writes its CSV lines for reports/table1.md (bin/opsim-report table1).
 *
 * The timing protocol (docs/timing.md): each scene is run R times (repetitions), each time loaded
 * afresh with world.log_energy=false (the energy is a harness measurement, not part of the
 * method), W warm-up frames, then F timed frames; by default F = frames − W, the rest of the
 * scene's own animation, so every repetition times the same frames and the spread between them
 * is the machine's noise alone. The repetitions go round everything compared (every scene under
 * every -c setting: A B A B …, then the second round, …), never one scene's back to back: the
 * shared machines this runs on have slow spells of seconds to minutes, and interleaving keeps one
 * spell from covering one side of a comparison. A repetition's value for a stage is the median
 * of its F frames' milliseconds; the row gives, per stage, the median of the R repetition values
 * with its order-statistic 95 % interval (core/base/timing_stats.h; the range below six
 * repetitions), and marks the stage noisy when the interval's half-width exceeds 5 % of the
 * median. Each repetition's wall time and the main thread's CPU time over its timed frames are
 * kept too (their medians in the CSV; -v prints each): CPU time well under the wall time on one
 * thread means another job had the core. The CSV names the CPU beside every row.
 *
 * Skinning (Eq. 2: every body's visual mesh from its particles, op_skin_apply) is not part of
 * the world's step: the paper skinned on the GPU and left it out of its timings. It is timed
 * here on the CPU, as a column of its own and not in the total: after each repeat's frames, F
 * times on the last state (its cost does not depend on the state). Not between the frames: the
 * 52-model scene's 690,000 vertices stream some 50 MB through the caches and evict the world's
 * data, which the next frame then reads from memory. A 64 MB sweep between frames made that
 * scene's frame 0.25–0.4 ms slower (4.0 → 4.3 ms, two threads, three interleaved runs), a cost
 * the paper's GPU skinning did not put on its CPU.
 *
 * Bar stiffness (Fig. 2) simulates three bars; the paper's row is one bar, so it is reported
 * both for the scene and per bar (every time and count divided by 3).
 *
 * Run from the project root (make bench does): the configs and the model catalogue are found
 * by relative path. Options: -w W, -r R, -f F, -s TEXT (only configs whose path contains TEXT;
 * repeatable, a config containing any of them runs), -e RULE (every model built with the edge
 * rule RULE instead of its catalogue one: run.edges=RULE, e.g. -e faces for the single-rule
 * graphs; the CSV's edge_rule column says which, "catalogue" without -e), -o FILE (the CSV to
 * FILE instead of standard output), -x SECTION.KEY=VALUE (a further config override, e.g.
 * -x solver.rotations=jacobi; repeatable), -i CONFIG (time this config too, or alone with no -s:
 * any scene, by the same protocol, its row named by the file and without the paper's; up to
 * MAX_EXTRA), -V LABEL:SECTION.KEY=VALUE[;SECTION.KEY=VALUE…] (a setting of several overrides
 * compared like -c's values, named LABEL in the CSV's setting column; repeatable, up to
 * MAX_SETTINGS: the variants matrix times its solver variants so, experiments/variants.sh),
 * -P PLAN (the runs compared listed one a line, each with its own scene and warm-up and timed
 * frames: "CONFIG<TAB>WARMUP<TAB>FRAMES<TAB>LABEL:SECTION.KEY=VALUE[;…]", '#' lines and empty
 * ones skipped; up to MAX_PLAN lines; instead of -s, -i, -c, -V, -w and -f: the variants matrix
 * times every scene's own variants so, in one run whose rounds go round every line, so that
 * each scene's repetitions are spread over the whole timed phase), -p FILE (the machine probe,
 * core/base/probe.h, timed at the start of every round, written to FILE: "phase round
 * started_s probe_ms", phase bench_scenes, started_s after the first round's start),
 * -n (print the run order, round by round, and run nothing), -v (each repetition's median, wall
 * and thread CPU time).
 * Threads: OpenMP's (OMP_NUM_THREADS, or every core), printed and written to the CSV.
 *
 * Where the contacts between bodies ran (core/contact/collide.h, `collision_threads`): with the
 * default auto the world times both options and keeps the faster; the row gives the median of
 * the cores' cache-line hand-over recorded at the timed frames' starts (handoff_ns, "cores"), and
 * the share of the timed frames whose every contact call ran on one thread (contacts_one_thread,
 * "1-thr"). To compare settings side by side, interleaved, give -c SECTION.KEY=V1,V2,…: every
 * scene runs under each value in turn (the CSV's setting column names it), e.g.
 * -c world.collision_threads=auto,one,all.
 *
 * The CSV: one header row naming the columns (CSV_COLUMNS), then one row per scene, setting and
 * unit (per = scene, or body for a per-body row); no value holds a comma; a cell the row has no
 * value for (the paper's, where it prints "-" or has no row; handoff_ns where nothing was
 * measured; contacts_one_thread for a scene without contacts between bodies) is empty. The last
 * column but one, peak_rss_kb, is the process's peak resident memory when the row was written; the
 * last, solve_bytes, the bytes the variant's states hold for their linear solves (solver.h's
 * solve_bytes, summed over the bodies; empty for a variant without it), for the scaling study's
 * memory per particle. */
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_median.h"
#include "opsim/ctx.h"
#include "opsim/platform.h"
#include "base/probe.h"
#include "base/timing_stats.h"
#include "kernels/simd.h"
#include "opsim/scene.h"
#include "base/timer.h"
#include "contact/collide.h"
#include "geometry/model.h"
#include "geometry/skin.h"
#include "io/labelled.h"

static int verbose; /* -v: each repeat's median on standard error */
/* world.log_energy=false, then any -x overrides */
enum { MAX_OVERRIDES = 16 };
static const char *overrides[MAX_OVERRIDES + 2] = { "world.log_energy=false" };
static int override_count = 1;
static const char *edge_rule = "catalogue"; /* -e */
/* The settings compared (-c or -V), each named by its label (the CSV's setting column) and
 * given as up to MAX_SETTING_OVERRIDES overrides; one unnamed setting without any when neither
 * option is given. -c's label is its one override. */
enum { MAX_SETTINGS = 24, MAX_SETTING_OVERRIDES = OP_LABELLED_MAX_OVERRIDES };
typedef op_labelled setting; /* core/io/labelled.h, the form -V shares with opsim converge --study */
static setting settings[MAX_SETTINGS];
static int setting_count = 1;
static char setting_option; /* 'c' or 'V' once either is given: the two do not mix */
static char cpu_model[128];
/* -P: every run its own scene, warm-up, frames and setting (file comment) */
enum { MAX_PLAN = 256, MAX_PLAN_SCENES = 16 };
static setting plan_settings[MAX_PLAN];

static const char *const PAPER_TABLE = "reports/paper_table1.tsv";

/* The Table 1 rows we can run, by the paper's example name, and their configs. */
typedef struct scene_def {
    const char *example;
    const char *config;
    int per_body; /* also report per body (the paper's row describes one of the scene's bodies) */
} scene_def;

static const scene_def SCENES[] = {
    { "Bar manipulation", "experiments/fig1.ini", 0 },
    { "Bar stiffness", "experiments/fig2.ini", 1 },
    { "Dinosaur inverted", "experiments/fig4.ini", 0 },
    { "Dinosaur falling", "experiments/fig5.ini", 0 },
    { "Sheet", "experiments/fig6-rod.ini", 0 },
    { "Bunny and sheet", "experiments/fig6-bunny.ini", 0 },
    { "52 models", "experiments/fig7-52.ini", 0 },
    { "180 models", "experiments/fig7-180.ini", 0 },
};
enum { SCENE_COUNT = sizeof SCENES / sizeof SCENES[0] };
/* -i CONFIG: scenes beyond Table 1's, named by their file */
enum { MAX_EXTRA = 8 };
static scene_def extra[MAX_EXTRA];
static int extra_count;
static scene_def plan_scenes[MAX_PLAN_SCENES]; /* -P's configs, each once */
static int plan_scene_count;

enum { STAGE_LOCAL, STAGE_GLOBAL, STAGE_COLLISION, STAGE_TOTAL, STAGE_COUNT }; /* CSV_COLUMNS names them */

/* One row of the paper's table; times in ms per frame, NAN where the paper prints "-". */
typedef struct paper_row {
    int found;
    int nodes, edges, substeps, iterations;
    double ms[STAGE_COUNT];
} paper_row;

/* A measured row, as printed: per scene, or per body when divided. */
typedef struct result {
    const char *example, *config, *setting;
    int warmup;  /* the warm-up frames of each repetition */
    int divisor; /* 1, or the body count for a per-body row */
    int bodies, nodes, edges, vertices, faces, substeps, iterations, frames;
    double ms[STAGE_COUNT];        /* medians over the repetitions of their per-frame medians */
    double lo[STAGE_COUNT], hi[STAGE_COUNT]; /* their 95 % intervals (timing_stats.h) */
    int noisy[STAGE_COUNT];
    double skinning_ms;            /* the same median for skinning, not in ms[STAGE_TOTAL] */
    double wall_s, cpu_s;          /* medians of the repetitions' wall and main-thread CPU seconds
                                      over their timed frames */
    /* Where the contacts between bodies ran (world.h's op_frame_stats): the median cache line's
     * hand-over between the cores recorded at the timed frames' starts (NAN when not measured:
     * collision_threads not auto, or no contact stage), and the share of the timed frames whose
     * every contact call ran on one thread (NAN without a contact stage) */
    double handoff_ns, contacts_one_thread;
    double solve_bytes; /* the variant's solve_bytes summed over bodies (solver.h), NAN without it */
    paper_row paper;
} result;

static double paper_number(const char *field)
{
    if (strcmp(field, "-") == 0)
        return NAN;
    char *end;
    double value = strtod(field, &end);
    return end != field && *end == '\0' ? value : NAN;
}

/* The row of reports/paper_table1.tsv whose first column is `example`:
 * example, fig, nodes, edges, vertices, faces, ns, ni, local, global, collision, total, ours. */
static int read_paper_row(const char *example, paper_row *row)
{
    memset(row, 0, sizeof *row);
    FILE *in = fopen(PAPER_TABLE, "r");
    if (!in) {
        fprintf(stderr, "bench_scenes: cannot open %s (run from the project root)\n", PAPER_TABLE);
        return -1;
    }
    char line[1024];
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\r\n")] = '\0';
        char *field[13];
        int count = 0;
        for (char *f = line; f && count < 13; ++count) { /* empty cells kept: a missing paper time */
            field[count] = f;
            f = strchr(f, '\t');
            if (f)
                *f++ = '\0';
        }
        if (count < 12 || strcmp(field[0], example) != 0)
            continue;
        row->found = 1;
        row->nodes = atoi(field[2]);
        row->edges = atoi(field[3]);
        row->substeps = atoi(field[6]);
        row->iterations = atoi(field[7]);
        for (int s = 0; s < STAGE_COUNT; ++s)
            row->ms[s] = paper_number(field[8 + s]);
        break;
    }
    fclose(in);
    return 0;
}

/* The scene's graph sizes and iteration counts into `out`. */
static void describe(const scene_def *def, const op_world *world, result *out)
{
    memset(out, 0, sizeof *out);
    out->example = def->example;
    out->config = def->config;
    out->divisor = 1;
    out->bodies = world->body_count;
    for (int b = 0; b < world->body_count; ++b) {
        const op_body *body = &world->bodies[b];
        out->nodes += body->graph->particle_count;
        out->edges += body->graph->edge_count;
        out->vertices += body->model->mesh.vertex_count;
        out->faces += body->model->mesh.polygon_count;
    }
    out->substeps = world->def.substeps;
    out->iterations = world->def.iterations;
    out->solve_bytes = world->solver->solve_bytes ? 0.0 : NAN;
    for (int b = 0; b < world->body_count && world->solver->solve_bytes; ++b)
        out->solve_bytes += (double)world->solver->solve_bytes(world->solver_state[b]);
}

/* Skins every body's visual mesh into skinned[b]; returns the milliseconds it took. */
static double skin_world(const op_world *world, double *const *skinned)
{
    double start = op_now();
    for (int b = 0; b < world->body_count; ++b) {
        const op_body *body = &world->bodies[b];
        op_skin_apply(&body->model->skin, body->graph, &body->state, body->model->mesh.vertices, skinned[b]);
    }
    return 1e3 * (op_now() - start);
}

/* skinned[b]: room for body b's skinned vertices; NULL when out of memory. */
static double **skin_buffers(const op_world *world)
{
    double **skinned = calloc((size_t)world->body_count, sizeof *skinned);
    for (int b = 0; skinned && b < world->body_count; ++b)
        if (!(skinned[b] = malloc(3 * (size_t)world->bodies[b].model->mesh.vertex_count * sizeof(double)))) {
            while (b > 0)
                free(skinned[--b]);
            free(skinned);
            skinned = NULL;
        }
    return skinned;
}

static void free_skin_buffers(double **skinned, int count)
{
    for (int b = 0; skinned && b < count; ++b)
        free(skinned[b]);
    free(skinned);
}

/* One scene's timings under one setting over the repetitions: per stage and for skinning,
 * [repeats][frames] samples (frames per repetition), and per repetition its wall and CPU time. */
typedef struct scene_run {
    const scene_def *def;
    const setting *setting; /* the compared setting (-c, -V, -P) */
    int warmup, frames_asked; /* -w and -f, or the plan line's */
    int frames;
    double *samples[STAGE_COUNT], *skinning;
    double *wall, *cpu;          /* [repeats] seconds over the timed frames */
    double *handoff;             /* the timed frames' finite hand-over measures, handoff_count of them */
    double *scratch;             /* room for one statistic's values */
    int handoff_count, one_thread_frames, contacts; /* contacts: the scene has a contact stage */
    result row; /* described at the first repetition, timed by finish_scene */
} scene_run;

static void scene_run_free(scene_run *run)
{
    for (int st = 0; st < STAGE_COUNT; ++st)
        free(run->samples[st]);
    free(run->skinning);
    free(run->wall);
    free(run->cpu);
    free(run->handoff);
    free(run->scratch);
}

/* Loads the scene under the overrides and the run's setting. */
static int load_scene(op_ctx *ctx, const scene_run *run, op_scene *scene)
{
    const char *with_setting[MAX_OVERRIDES + 2 + MAX_SETTING_OVERRIDES];
    int count = override_count;
    memcpy(with_setting, overrides, (size_t)count * sizeof *with_setting);
    for (int k = 0; k < run->setting->override_count; ++k)
        with_setting[count++] = run->setting->override[k];
    return op_scene_load(ctx, run->def->config, count, with_setting, scene);
}

/* The first repetition's sizing: the frames (frames ≤ 0 asks for the scene's own length less the
 * warm-up), the row's description and room for the samples. */
static int size_run(scene_run *run, const op_scene *scene, int repeats)
{
    int warmup = run->warmup, frames = run->frames_asked;
    run->frames = frames > 0 ? frames : scene->run.frames - warmup > 1 ? scene->run.frames - warmup : 1;
    describe(run->def, &scene->world, &run->row);
    run->row.setting = run->setting->label;
    run->row.warmup = warmup;
    run->row.frames = repeats * run->frames;
    size_t count = (size_t)repeats * (size_t)run->frames;
    int status = 0;
    for (int st = 0; st < STAGE_COUNT; ++st)
        if (!(run->samples[st] = calloc(count, sizeof(double))))
            status = -1;
    if (!(run->skinning = calloc(count, sizeof(double))) || !(run->handoff = calloc(count, sizeof(double))) ||
        !(run->wall = calloc((size_t)repeats, sizeof(double))) || !(run->cpu = calloc((size_t)repeats, sizeof(double))) ||
        !(run->scratch = calloc(count > (size_t)repeats ? count : (size_t)repeats, sizeof(double))))
        status = -1;
    run->contacts = op_world_collides(&scene->world);
    return status;
}

/* Repetition r of the scene into its slot; the first also describes it and sizes the samples.
 * Returns 0, or −1 after printing why. */
static int run_repeat(scene_run *run, int r, int repeats)
{
    int warmup = run->warmup;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_scene scene;
    if (load_scene(&ctx, run, &scene) != OP_OK) {
        fprintf(stderr, "bench_scenes: %s: %s\n", run->def->config, ctx.message);
        return -1;
    }
    int status = r == 0 ? size_run(run, &scene, repeats) : 0;
    double **skinned = status == 0 ? skin_buffers(&scene.world) : NULL;
    if (!skinned) {
        fprintf(stderr, "bench_scenes: out of memory\n");
        status = -1;
    }
    size_t first = (size_t)r * (size_t)run->frames;
    op_frame_stats stats = { .energy = NULL };
    double wall_start = 0.0, cpu_start = 0.0;
    for (int f = 0; f < warmup + run->frames && status == 0; ++f) {
        if (f == warmup) {
            wall_start = op_now();
            cpu_start = op_thread_cpu_seconds();
        }
        if (op_world_step(&ctx, &scene.world, &stats) != OP_OK) {
            fprintf(stderr, "bench_scenes: %s: %s\n", run->def->config, ctx.message);
            status = -1;
        } else if (f >= warmup) {
            size_t k = first + (size_t)(f - warmup);
            run->samples[STAGE_LOCAL][k] = stats.local_ms;
            run->samples[STAGE_GLOBAL][k] = stats.global_ms;
            run->samples[STAGE_COLLISION][k] = stats.collision_ms;
            run->samples[STAGE_TOTAL][k] = stats.total_ms;
            if (!isnan(stats.handoff_ns))
                run->handoff[run->handoff_count++] = stats.handoff_ns;
            run->one_thread_frames += stats.collision_threads == OP_CONTACT_THREADS_ONE;
        }
    }
    if (status == 0) {
        run->wall[r] = op_now() - wall_start;
        run->cpu[r] = op_thread_cpu_seconds() - cpu_start;
    }
    for (int f = 0; f < run->frames && status == 0; ++f)
        run->skinning[first + (size_t)f] = skin_world(&scene.world, skinned);
    free_skin_buffers(skinned, scene.world.body_count);
    op_scene_free(&scene);
    if (status == 0 && verbose) {
        memcpy(run->scratch, &run->samples[STAGE_TOTAL][first], (size_t)run->frames * sizeof(double));
        fprintf(stderr, "%s%s%s repetition %d: median total %.4f ms, wall %.4f s, thread CPU %.4f s\n",
                run->def->config, run->setting->label[0] ? " " : "", run->setting->label, r,
                bench_median(run->scratch, run->frames), run->wall[r], run->cpu[r]);
    }
    return status;
}

/* The median over the repetitions of each repetition's median of samples[r·frames ..] (sorts
 * those slices), with its interval. */
static op_timing_summary summarize_repeats(scene_run *run, double *samples, int repeats)
{
    for (int r = 0; r < repeats; ++r)
        run->scratch[r] = bench_median(&samples[(size_t)r * (size_t)run->frames], run->frames);
    return op_timing_summarize(run->scratch, repeats);
}

/* The scene row's statistics (file comment: the timing protocol). */
static void finish_scene(scene_run *run, int repeats)
{
    result *out = &run->row;
    int count = repeats * run->frames;
    for (int st = 0; st < STAGE_COUNT; ++st) {
        op_timing_summary s = summarize_repeats(run, run->samples[st], repeats);
        out->ms[st] = s.median;
        out->lo[st] = s.lo;
        out->hi[st] = s.hi;
        out->noisy[st] = s.noisy;
    }
    out->skinning_ms = summarize_repeats(run, run->skinning, repeats).median;
    out->wall_s = op_timing_summarize(run->wall, repeats).median;
    out->cpu_s = op_timing_summarize(run->cpu, repeats).median;
    out->handoff_ns = run->handoff_count > 0 ? bench_median(run->handoff, run->handoff_count) : NAN;
    out->contacts_one_thread = run->contacts ? (double)run->one_thread_frames / count : NAN;
}

/* The scene row divided among its bodies. */
static result per_body(const result *scene)
{
    result r = *scene;
    r.divisor = scene->bodies;
    r.nodes = scene->nodes / scene->bodies;
    r.edges = scene->edges / scene->bodies;
    r.vertices = scene->vertices / scene->bodies;
    r.faces = scene->faces / scene->bodies;
    for (int s = 0; s < STAGE_COUNT; ++s) {
        r.ms[s] = scene->ms[s] / scene->bodies;
        r.lo[s] = scene->lo[s] / scene->bodies;
        r.hi[s] = scene->hi[s] / scene->bodies;
    }
    r.skinning_ms = scene->skinning_ms / scene->bodies;
    r.solve_bytes = scene->solve_bytes / scene->bodies;
    return r;
}

static void print_ms(double ms)
{
    if (isnan(ms))
        printf(" %7s", "-");
    else
        printf(" %7.3f", ms);
}

static void print_row(const result *r, int show_paper)
{
    char name[64];
    if (r->divisor > 1)
        snprintf(name, sizeof name, "  per body (/%d)", r->divisor);
    else
        snprintf(name, sizeof name, "%s", r->example);
    printf("%-19s %6d %6d %3dx%-3d", name, r->nodes, r->edges, r->substeps, r->iterations);
    for (int s = 0; s < STAGE_COUNT; ++s)
        print_ms(r->ms[s]);
    printf(" %7.3f-%-7.3f%s", r->lo[STAGE_TOTAL], r->hi[STAGE_TOTAL], r->noisy[STAGE_TOTAL] ? "*" : " ");
    print_ms(r->skinning_ms);
    printf(" %8.2f", 1e3 * r->ms[STAGE_TOTAL] / (r->substeps * r->iterations));
    if (isnan(r->contacts_one_thread))
        printf(" %13s", "-");
    else if (isnan(r->handoff_ns))
        printf(" %7s %4.0f%%", "-", 100 * r->contacts_one_thread);
    else
        printf(" %5.0fns %4.0f%%", r->handoff_ns, 100 * r->contacts_one_thread);
    if (show_paper && r->paper.found) {
        printf("  |");
        for (int s = 0; s < STAGE_COUNT; ++s)
            print_ms(r->paper.ms[s]);
        printf(" %7.1fx", r->paper.ms[STAGE_TOTAL] / r->ms[STAGE_TOTAL]);
    }
    if (r->setting && r->setting[0])
        printf("  %s", r->setting);
    printf("\n");
}

/* The CSV's header row: write_csv writes the cells in this order. */
static const char CSV_COLUMNS[] =
    "edge_rule,example,config,per,bodies,nodes,edges,vertices,faces,ns,ni,warmup,repeats,frames,threads,simd,"
    "local_ms,global_ms,collision_ms,total_ms,skinning_ms,iteration_us,"
    "local_lo_ms,local_hi_ms,local_noisy,global_lo_ms,global_hi_ms,global_noisy,"
    "collision_lo_ms,collision_hi_ms,collision_noisy,total_lo_ms,total_hi_ms,total_noisy,"
    "repeat_wall_s,repeat_cpu_s,handoff_ns,contacts_one_thread,"
    "paper_nodes,paper_edges,paper_local_ms,paper_global_ms,paper_collision_ms,paper_total_ms,paper_over_ours,"
    "setting,cpu,peak_rss_kb,solve_bytes";

/* A cell after a comma: `value` to `decimals` places, or nothing when it is NAN (a value the row
 * does not have). */
static void write_cell(FILE *out, double value, int decimals)
{
    if (isnan(value))
        fprintf(out, ",");
    else
        fprintf(out, ",%.*f", decimals, value);
}

/* The process's peak resident set so far, kB (getrusage; Linux counts kB): the scaling study
 * runs one size per process, so a row's value is that size's memory (docs/performance.md). */
static long peak_rss_kb(void)
{
    struct rusage usage;
    return getrusage(RUSAGE_SELF, &usage) == 0 ? (long)usage.ru_maxrss : -1;
}

static void write_csv(FILE *out, const result *r, int show_paper, int repeats)
{
    fprintf(out, "%s,%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", edge_rule, r->example, r->config,
            r->divisor > 1 ? "body" : "scene", r->bodies, r->nodes, r->edges, r->vertices, r->faces, r->substeps,
            r->iterations, r->warmup, repeats, r->frames);
    fprintf(out, ",%d,%s", omp_get_max_threads(), op_simd_avx(-1) ? "avx" : "sse2");
    for (int s = 0; s < STAGE_COUNT; ++s)
        fprintf(out, ",%.4f", r->ms[s]);
    fprintf(out, ",%.4f", r->skinning_ms);
    fprintf(out, ",%.3f", 1e3 * r->ms[STAGE_TOTAL] / (r->substeps * r->iterations));
    for (int s = 0; s < STAGE_COUNT; ++s)
        fprintf(out, ",%.4f,%.4f,%d", r->lo[s], r->hi[s], r->noisy[s]);
    fprintf(out, ",%.6f,%.6f", r->wall_s, r->cpu_s);
    write_cell(out, r->handoff_ns, 0);
    write_cell(out, r->contacts_one_thread, 3);
    int paper = show_paper && r->paper.found;
    write_cell(out, paper ? r->paper.nodes : NAN, 0);
    write_cell(out, paper ? r->paper.edges : NAN, 0);
    for (int s = 0; s < STAGE_COUNT; ++s)
        write_cell(out, paper ? r->paper.ms[s] : NAN, 2);
    write_cell(out, paper ? r->paper.ms[STAGE_TOTAL] / r->ms[STAGE_TOTAL] : NAN, 2);
    fprintf(out, ",%s,%s,%ld", r->setting ? r->setting : "", cpu_model, peak_rss_kb());
    write_cell(out, r->solve_bytes, 0);
    fprintf(out, "\n");
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_scenes [-w WARMUP] [-r REPEATS] [-f FRAMES] [-s CONFIG_TEXT]... [-e EDGE_RULE] "
                    "[-o CSV_FILE] [-x SECTION.KEY=VALUE]... [-c SECTION.KEY=V1,V2,... | -V LABEL:KEY=V[;KEY=V...]...] "
                    "[-i CONFIG]... [-P PLAN] [-p PROBE_TSV] [-n] [-v]\n");
    return 64;
}

static int parse_count(const char *text, int lo, int *out)
{
    char *end;
    long value = strtol(text, &end, 10);
    if (end == text || *end || value < lo || value > 1000000)
        return -1;
    *out = (int)value;
    return 0;
}

/* −1 with the reason on standard error when a -c or -V setting was refused (then the usage) */
static int refused(const op_ctx *ctx)
{
    fprintf(stderr, "bench_scenes: %s\n", ctx->message);
    return -1;
}

/* Appends a setting named `label` whose overrides are `text` split at `separator`; −1 when
 * there is no room or an override is not KEY=VALUE. */
static int add_setting(const char *label, int label_length, const char *text, char separator)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (setting_count == MAX_SETTINGS)
        return -1;
    if (op_labelled_set(&ctx, &settings[setting_count], "-c", label, (size_t)label_length, text, separator) != OP_OK)
        return refused(&ctx);
    setting_count++;
    return 0;
}

/* -c SECTION.KEY=V1,V2,…: one setting per value, labelled by its override; −1 when malformed,
 * too many or mixed with -V. */
static int parse_compared_values(const char *text)
{
    const char *equals = strchr(text, '=');
    if (setting_option || !equals || equals == text)
        return -1;
    setting_option = 'c';
    int key_length = (int)(equals - text);
    setting_count = 0;
    for (const char *value = equals + 1;; ++value) {
        size_t length = strcspn(value, ",");
        char override[128];
        if (length == 0 || snprintf(override, sizeof override, "%.*s=%.*s", key_length, text, (int)length, value) >=
                               (int)sizeof override ||
            add_setting(override, (int)strlen(override), override, '\n'))
            return -1;
        value += length;
        if (!*value)
            return 0;
    }
}

/* -V LABEL:SECTION.KEY=VALUE[;SECTION.KEY=VALUE…]: one setting of several overrides (a solver
 * variant), repeatable; −1 when malformed (a label holding a comma would split its CSV cell),
 * too many or mixed with -c. */
static int parse_variant(const char *text)
{
    const char *colon = strchr(text, ':');
    if (setting_option == 'c' || (colon && memchr(text, ',', (size_t)(colon - text))))
        return -1;
    if (!setting_option)
        setting_count = 0;
    setting_option = 'V';
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (setting_count == MAX_SETTINGS)
        return -1;
    if (op_labelled_parse(&ctx, &settings[setting_count], "-V", text) != OP_OK)
        return refused(&ctx);
    setting_count++;
    return 0;
}

/* −1 after printing PATH:LINE and what is wrong with the plan's line. */
static int plan_error(const char *path, int line, const char *why)
{
    fprintf(stderr, "bench_scenes: %s:%d: %s\n", path, line, why);
    return -1;
}

/* The plan's scene for `config`, added when new (a copy of the text); NULL when there is no
 * room or no memory. */
static const scene_def *plan_scene(const char *config)
{
    for (int k = 0; k < plan_scene_count; ++k)
        if (strcmp(plan_scenes[k].config, config) == 0)
            return &plan_scenes[k];
    char *copy = plan_scene_count < MAX_PLAN_SCENES ? malloc(strlen(config) + 1) : NULL;
    if (!copy)
        return NULL;
    strcpy(copy, config);
    plan_scenes[plan_scene_count] = (scene_def){ copy, copy, 0 };
    return &plan_scenes[plan_scene_count++];
}

/* One line of -P's plan, its fields split at the tabs in place, as run *run with setting *s;
 * −1 after printing why not. */
static int plan_line(const char *path, int number, char *line, scene_run *run, setting *s)
{
    char *field[4];
    int count = 0;
    for (char *f = line; f && count < 4; ++count) {
        field[count] = f;
        if ((f = strchr(f, '\t')) != NULL)
            *f++ = '\0';
        if (count == 3 && f)
            return plan_error(path, number, "more than four fields");
    }
    int warmup, frames;
    if (count < 4 || parse_count(field[1], 0, &warmup) || parse_count(field[2], 1, &frames))
        return plan_error(path, number, "give CONFIG, WARMUP, FRAMES and LABEL:SECTION.KEY=VALUE[;...], tab-separated");
    const char *colon = strchr(field[3], ':');
    if (strchr(field[0], ',') || (colon && memchr(field[3], ',', (size_t)(colon - field[3]))))
        return plan_error(path, number, "a comma in the config or the label would split its CSV cell");
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_labelled_parse(&ctx, s, "-P", field[3]) != OP_OK)
        return plan_error(path, number, ctx.message);
    const scene_def *def = plan_scene(field[0]);
    if (!def)
        return plan_error(path, number, "more configs than the plan has room for (MAX_PLAN_SCENES)");
    *run = (scene_run){ .def = def, .setting = s, .warmup = warmup, .frames_asked = frames };
    return 0;
}

/* The plan's copies of its configs, which the rows name until the program ends (atexit). */
static void free_plan_scenes(void)
{
    for (int k = 0; k < plan_scene_count; ++k)
        free((char *)plan_scenes[k].config);
    plan_scene_count = 0;
}

/* -P PLAN: its lines as runs[0 …], *count of them (file comment); −1 after printing why not. */
static int read_plan(const char *path, scene_run *runs, int *count)
{
    atexit(free_plan_scenes);
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "bench_scenes: %s: cannot open\n", path);
        return -1;
    }
    char line[2048];
    int number = 0, status = 0;
    *count = 0;
    while (status == 0 && fgets(line, sizeof line, in)) {
        ++number;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        if (*count == MAX_PLAN)
            status = plan_error(path, number, "more lines than MAX_PLAN");
        else if ((status = plan_line(path, number, line, &runs[*count], &plan_settings[*count])) == 0)
            ++*count;
    }
    fclose(in);
    if (status == 0 && *count == 0)
        status = plan_error(path, number, "no runs in the plan");
    return status;
}

/* -p FILE: the machine probe of each round (file comment), written whole; −1 when it cannot be. */
static int write_probe(const char *path, const double *started, const double *probe_ms, int rounds)
{
    FILE *out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "bench_scenes: cannot write %s\n", path);
        return -1;
    }
    fprintf(out, "phase\tround\tstarted_s\tprobe_ms\n");
    for (int r = 0; r < rounds; ++r)
        fprintf(out, "bench_scenes\t%d\t%.3f\t%.4f\n", r + 1, started[r], probe_ms[r]);
    if (fclose(out) != 0) {
        fprintf(stderr, "bench_scenes: error writing %s\n", path);
        return -1;
    }
    return 0;
}

/* The timing loop's order (file comment): its step-th repetition (0-based, of repeats ·
 * run_count) is repetition *repeat of run *run, round by round: every run once, then again. */
static void run_order(int step, int run_count, int *repeat, int *run)
{
    *repeat = step / run_count;
    *run = step % run_count;
}

/* -n: the run order, one line per repetition of a scene under a setting (round, config, setting
 * label), as the timing loop takes them. */
static void list_order(const scene_run *runs, int run_count, int repeats)
{
    for (int step = 0, r, k; step < repeats * run_count; ++step) {
        run_order(step, run_count, &r, &k);
        printf("%d\t%s\t%s\n", r + 1, runs[k].def->config, runs[k].setting->label);
    }
}

int main(int argc, char **argv)
{
    op_platform_init();
    int warmup = 20, repeats = 7, frames = 0, opt;
    const char *only[SCENE_COUNT], *csv_path = NULL, *plan_path = NULL, *probe_path = NULL;
    int only_count = 0, list_only = 0, warmup_or_frames = 0;
    while ((opt = getopt(argc, argv, "w:r:f:s:e:o:x:c:V:i:P:p:nvh")) != -1) {
        warmup_or_frames |= opt == 'w' || opt == 'f';
        switch (opt) {
        case 'P': plan_path = optarg; break;
        case 'p': probe_path = optarg; break;
        case 'w':
            if (parse_count(optarg, 0, &warmup))
                return usage();
            break;
        case 'r':
            if (parse_count(optarg, 1, &repeats))
                return usage();
            break;
        case 'f':
            if (parse_count(optarg, 1, &frames))
                return usage();
            break;
        case 's':
            if (only_count == SCENE_COUNT)
                return usage();
            only[only_count++] = optarg;
            break;
        case 'e': {
            static char edges_override[64];
            if (strcmp(edge_rule, "catalogue") != 0 || snprintf(edges_override, sizeof edges_override,
                                                                "run.edges=%s", optarg) >= (int)sizeof edges_override)
                return usage();
            edge_rule = optarg;
            overrides[override_count++] = edges_override;
            break;
        }
        case 'o': csv_path = optarg; break;
        case 'i':
            if (extra_count == MAX_EXTRA)
                return usage();
            extra[extra_count++] = (scene_def){ optarg, optarg, 0 };
            break;
        case 'c':
            if (parse_compared_values(optarg))
                return usage();
            break;
        case 'V':
            if (parse_variant(optarg))
                return usage();
            break;
        case 'n': list_only = 1; break;
        case 'v': verbose = 1; break;
        case 'x':
            if (override_count == MAX_OVERRIDES + 1)
                return usage();
            overrides[override_count++] = optarg;
            break;
        default: return usage();
        }
    }
    if (optind != argc || (plan_path && (only_count || extra_count || setting_option || warmup_or_frames)))
        return usage();

    op_cpu_model(cpu_model, sizeof cpu_model);
    /* a scene's settings side by side, so that the rounds go A B A B (file comment) */
    scene_run runs[(SCENE_COUNT + MAX_EXTRA) * MAX_SETTINGS > MAX_PLAN ? (SCENE_COUNT + MAX_EXTRA) * MAX_SETTINGS
                                                                       : MAX_PLAN];
    int run_count = 0;
    if (plan_path && read_plan(plan_path, runs, &run_count))
        return 64;
    for (int d = 0; d < SCENE_COUNT && !plan_path; ++d) {
        int wanted = only_count == 0 && extra_count == 0;
        for (int k = 0; k < only_count; ++k)
            wanted |= strstr(SCENES[d].config, only[k]) != NULL;
        for (int c = 0; wanted && c < setting_count; ++c)
            runs[run_count++] =
                (scene_run){ .def = &SCENES[d], .setting = &settings[c], .warmup = warmup, .frames_asked = frames };
    }
    for (int d = 0; d < extra_count; ++d)
        for (int c = 0; c < setting_count; ++c)
            runs[run_count++] =
                (scene_run){ .def = &extra[d], .setting = &settings[c], .warmup = warmup, .frames_asked = frames };
    if (list_only) {
        list_order(runs, run_count, repeats);
        return 0;
    }
    int status = 0;
    double start = op_now();
    double *probe_started = calloc((size_t)repeats, sizeof(double)), *probe_ms = calloc((size_t)repeats, sizeof(double));
    if (!probe_started || !probe_ms) {
        fprintf(stderr, "bench_scenes: out of memory\n");
        status = -1;
    }
    /* round the scenes, repeat by repeat (file comment); the probe first in each round */
    for (int step = 0, r, k; step < repeats * run_count && status == 0; ++step) {
        run_order(step, run_count, &r, &k);
        if (k == 0 && probe_path) {
            probe_started[r] = op_now() - start;
            probe_ms[r] = op_probe_ms(NULL);
        }
        status = run_repeat(&runs[k], r, repeats);
    }
    result rows[2 * (SCENE_COUNT + MAX_EXTRA) * MAX_SETTINGS];
    int show_paper[2 * (SCENE_COUNT + MAX_EXTRA) * MAX_SETTINGS], row_count = 0;
    for (int k = 0; k < run_count && status == 0; ++k) {
        finish_scene(&runs[k], repeats);
        result scene = runs[k].row;
        const scene_def *def = runs[k].def;
        if (read_paper_row(def->example, &scene.paper)) {
            status = -1;
            break;
        }
        int extra_scene = def->example == def->config; /* -i's: named by its file */
        if (!scene.paper.found && !extra_scene)
            fprintf(stderr, "bench_scenes: no row '%s' in %s\n", def->example, PAPER_TABLE);
        else if (scene.paper.found && (scene.paper.substeps != scene.substeps || scene.paper.iterations != scene.iterations))
            fprintf(stderr, "bench_scenes: %s runs %dx%d, the paper %dx%d\n", def->config, scene.substeps,
                    scene.iterations, scene.paper.substeps, scene.paper.iterations);
        rows[row_count] = scene;
        show_paper[row_count++] = !def->per_body;
        if (def->per_body && scene.bodies > 1) {
            rows[row_count] = per_body(&scene);
            show_paper[row_count++] = 1;
        }
    }
    for (int k = 0; k < run_count; ++k)
        scene_run_free(&runs[k]);
    if (status == 0 && probe_path)
        status = write_probe(probe_path, probe_started, probe_ms, repeats);
    free(probe_started);
    free(probe_ms);
    if (status != 0)
        return 1;
    double seconds = op_now() - start;

    char warmup_text[32];
    if (plan_path)
        snprintf(warmup_text, sizeof warmup_text, "the plan's");
    else
        snprintf(warmup_text, sizeof warmup_text, "%d", warmup);
    printf("Table 1 scenes, ms per frame on %s, %d thread(s): the median over %d repetitions of each "
           "repetition's median frame (%s warm-up frames, then the timed ones), energy logging off\n",
           cpu_model, omp_get_max_threads(), repeats, warmup_text);
    printf("%-19s %6s %6s %7s %7s %7s %7s %7s %16s %7s %8s %13s  | %-31s %8s\n", "", "", "", "", "ours", "", "", "",
           "total 95% int.", "", "", "contacts", "the paper", "");
    printf("%-19s %6s %6s %7s %7s %7s %7s %7s %16s %7s %8s %13s  | %7s %7s %7s %7s %8s\n", "example", "nodes",
           "edges", "ns x ni", "local", "global", "collide", "total", "lo-hi", "skin", "us/iter", "cores 1-thr",
           "local", "global", "collide", "total", "ratio");
    for (int r = 0; r < row_count; ++r)
        print_row(&rows[r], show_paper[r]);
    printf("(paper: %s; MacBook Pro, Core i7 2.9 GHz. ratio = paper total / our total, ours on %s.\n"
           " lo-hi: the total's order-statistic 95%% interval over the repetitions (the range below six);\n"
           " * marks a half-width over 5%% of the median: noisy, do not compare. skin: skinning every\n"
           " visual vertex, on the CPU, not in our total (the paper skinned on the GPU). us/iter = total /\n"
           " (ns ni). Bar stiffness simulates three bars: the paper's row is compared with our time per bar.\n"
           " contacts: where the contacts between bodies ran, core/contact/collide.h: cores = a cache line's\n"
           " median time between the cores at the frames' starts (recorded, not used), 1-thr = the share of\n"
           " frames whose every contact call ran on one thread.)\n",
           PAPER_TABLE, cpu_model);
    FILE *csv = stdout;
    if (csv_path && !(csv = fopen(csv_path, "w"))) {
        fprintf(stderr, "bench_scenes: cannot write %s\n", csv_path);
        return 1;
    }
    fprintf(csv, "%s\n", CSV_COLUMNS);
    for (int r = 0; r < row_count; ++r)
        write_csv(csv, &rows[r], show_paper[r], repeats);
    if (csv != stdout && fclose(csv) != 0) {
        fprintf(stderr, "bench_scenes: error writing %s\n", csv_path);
        return 1;
    }
    printf("(%.1f s)\n", seconds);
    return 0;
}
