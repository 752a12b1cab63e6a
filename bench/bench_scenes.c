/* Per-frame stage timings of the paper's Table 1 scenes, one config in experiments/ each,
 * beside the paper's own numbers (read from reports/paper_table1.tsv). `make bench` prints the
 * table; `make table1` writes its CSV lines for reports/table1.md (bin/opsim-report table1).
 *
 * Each scene is run R times, each time loaded afresh with world.log_energy=false (the energy is
 * a harness measurement, not part of the method), W warm-up frames, then F timed frames; by
 * default F = frames − W, the rest of the scene's own animation, so every repeat times the same
 * frames and the spread between repeats is the machine's noise alone. The repeats go round the
 * scenes (every scene's first, then every scene's second, …), not one scene's back to back: the
 * shared machines this runs on have slow spells of seconds to minutes, and spacing a scene's
 * repeats out keeps one spell from covering them all. The world's per-frame
 * local, global, collision and total milliseconds are collected over all R·F frames and their
 * medians reported (each stage's median on its own, so the stage medians need not add up to the
 * total's), with the least and greatest of the R per-repeat total medians beside them.
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
 * -x solver.rotations=jacobi; repeatable), -v (each repeat's median).
 * Threads: OpenMP's (OMP_NUM_THREADS, or every core), printed and written to the CSV.
 *
 * Where the contacts between bodies ran (core/contact/collide.h, `collision_threads`): with the default
 * auto, each frame measures how long a cache line takes between the cores and runs its contacts
 * on one thread when they are far apart. The row gives the median of that measure over the timed
 * frames (handoff_ns; the column "cores") and the share of them whose contacts ran on one thread
 * (contacts_one_thread; "1-thr"): on this project's VMs the cores are near (about 40 ns) in some
 * spells and far (about 210 ns) in others, and a pile's frame differs by a quarter between them
 * (docs/performance.md, "The contact stage on one thread or on all"). The stage medians are also
 * taken over the repeats that ran in one spell throughout, each spell apart (near_runs repeats
 * with every frame's contacts on the team, cores near: near_*_ms; far_runs with every frame's on
 * one thread, cores far: far_*_ms), so that a row timed across both spells still shows each.
 * Whole repeats, not frames: a spell can last a tenth of a second, and a pile's frames differ by
 * three times between its impacts and its rest, so the frames of a spell that covered a
 * repeat's impacts alone would read the spell slower than it is; a repeat that changed spell
 * counts only in the row's own medians.
 *
 * The CSV: one header row naming the columns (CSV_COLUMNS), then one row per scene and unit
 * (per = scene, or body for a per-body row); no value holds a comma; a cell the row has no
 * value for (the paper's, where it prints "-" or has no row; handoff_ns where nothing was
 * measured; contacts_one_thread for a scene without contacts between bodies; a spell's medians
 * when no run stayed in it, and its count of runs as well when the frames did not choose) is
 * empty. */
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_median.h"
#include "opsim/ctx.h"
#include "base/platform.h"
#include "kernels/simd.h"
#include "opsim/scene.h"
#include "base/timer.h"
#include "contact/collide.h"
#include "geometry/model.h"
#include "geometry/skin.h"

static int verbose; /* -v: each repeat's median on standard error */
/* world.log_energy=false, then any -x overrides */
enum { MAX_OVERRIDES = 16 };
static const char *overrides[MAX_OVERRIDES + 2] = { "world.log_energy=false" };
static int override_count = 1;
static const char *edge_rule = "catalogue"; /* -e */

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

enum { STAGE_LOCAL, STAGE_GLOBAL, STAGE_COLLISION, STAGE_TOTAL, STAGE_COUNT }; /* CSV_COLUMNS names them */

/* One row of the paper's table; times in ms per frame, NAN where the paper prints "-". */
typedef struct paper_row {
    int found;
    int nodes, edges, substeps, iterations;
    double ms[STAGE_COUNT];
} paper_row;

/* A measured row, as printed: per scene, or per body when divided. */
typedef struct result {
    const char *example, *config;
    int divisor; /* 1, or the body count for a per-body row */
    int bodies, nodes, edges, vertices, faces, substeps, iterations, frames;
    double ms[STAGE_COUNT];        /* medians per frame */
    double skinning_ms;            /* median per frame, not in ms[STAGE_TOTAL] */
    double total_lo, total_hi;     /* least and greatest per-repeat median of the total */
    /* Where the contacts between bodies ran (world.h's op_frame_stats): the median cache line's
     * hand-over between the cores measured at the timed frames' starts (NAN when not measured:
     * collision_threads not auto, or no contact stage), and the share of the timed frames whose
     * contacts ran on one thread (NAN without a contact stage) */
    double handoff_ns, contacts_one_thread;
    /* The repeats whose every frame ran its contacts on the team (cores near) or on one thread
     * (cores far), when each frame chose (handoff measured; −1 otherwise), and the stage medians
     * over their frames (NAN without such repeats) */
    int near_runs, far_runs;
    double near_ms[STAGE_COUNT], far_ms[STAGE_COUNT];
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
        for (char *save = NULL, *f = strtok_r(line, "\t", &save); f && count < 13; f = strtok_r(NULL, "\t", &save))
            field[count++] = f;
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

/* One scene's timings over the repeats: per stage and for skinning, [repeats][frames] samples
 * (frames per repeat), and each repeat's median total. */
typedef struct scene_run {
    const scene_def *def;
    int frames;
    double *samples[STAGE_COUNT], *skinning, *repeat_total;
    double *handoff;             /* the timed frames' finite hand-over measures, handoff_count of them */
    int *repeat_on_one;          /* per repeat: how many of its frames ran their contacts on one thread */
    double *scratch;             /* room for every timed frame's sample, for the medians by spell */
    int handoff_count, contacts; /* contacts: the scene has a contact stage */
    result row; /* described at the first repeat, timed by finish_scene */
} scene_run;

static void scene_run_free(scene_run *run)
{
    for (int st = 0; st < STAGE_COUNT; ++st)
        free(run->samples[st]);
    free(run->skinning);
    free(run->repeat_total);
    free(run->handoff);
    free(run->repeat_on_one);
    free(run->scratch);
}

/* Repeat r of the scene into its slot; the first also describes it and sizes the samples
 * (frames ≤ 0 asks for the scene's own length less the warm-up). Returns 0, or −1 after
 * printing why. */
static int run_repeat(scene_run *run, int warmup, int r, int repeats, int frames)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_scene scene;
    if (op_scene_load(&ctx, run->def->config, override_count, overrides, &scene) != OP_OK) {
        fprintf(stderr, "bench_scenes: %s\n", ctx.message);
        return -1;
    }
    int status = 0;
    if (r == 0) {
        run->frames = frames > 0 ? frames : scene.run.frames - warmup > 1 ? scene.run.frames - warmup : 1;
        describe(run->def, &scene.world, &run->row);
        run->row.frames = repeats * run->frames;
        size_t count = (size_t)repeats * (size_t)run->frames;
        for (int st = 0; st < STAGE_COUNT; ++st)
            if (!(run->samples[st] = calloc(count, sizeof(double))))
                status = -1;
        if (!(run->skinning = calloc(count, sizeof(double))) || !(run->handoff = calloc(count, sizeof(double))) ||
            !(run->repeat_total = calloc((size_t)repeats, sizeof(double))) ||
            !(run->repeat_on_one = calloc((size_t)repeats, sizeof(int))) ||
            !(run->scratch = calloc(count, sizeof(double))))
            status = -1;
        run->contacts = op_world_collides(&scene.world);
    }
    double **skinned = status == 0 ? skin_buffers(&scene.world) : NULL;
    if (!skinned) {
        fprintf(stderr, "bench_scenes: out of memory\n");
        status = -1;
    }
    size_t first = (size_t)r * (size_t)run->frames;
    op_frame_stats stats = { .energy = NULL };
    for (int f = 0; f < warmup + run->frames && status == 0; ++f) {
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
            run->repeat_on_one[r] += stats.collision_threads == OP_CONTACT_THREADS_ONE;
        }
    }
    for (int f = 0; f < run->frames && status == 0; ++f)
        run->skinning[first + (size_t)f] = skin_world(&scene.world, skinned);
    free_skin_buffers(skinned, scene.world.body_count);
    op_scene_free(&scene);
    if (status == 0) {
        /* a copy: bench_median() sorts, and the samples are needed in order afterwards */
        double *copy = malloc((size_t)run->frames * sizeof(double));
        if (!copy) {
            fprintf(stderr, "bench_scenes: out of memory\n");
            return -1;
        }
        memcpy(copy, &run->samples[STAGE_TOTAL][first], (size_t)run->frames * sizeof(double));
        run->repeat_total[r] = bench_median(copy, run->frames);
        free(copy);
        if (verbose)
            fprintf(stderr, "%s repeat %d: median total %.4f ms\n", run->def->config, r, run->repeat_total[r]);
    }
    return status;
}

/* Repeat r's spell: 0 when every frame ran its contacts on the team, 1 when every one ran them
 * on one thread, −1 when it changed. */
static int spell_of_repeat(const scene_run *run, int r)
{
    int on_one = run->repeat_on_one[r];
    return on_one == 0 ? 0 : on_one == run->frames ? 1 : -1;
}

/* The median of the samples of the repeats in `spell` (spell_of_repeat); NAN without any. */
static double median_of_spell(scene_run *run, const double *samples, int repeats, int spell)
{
    int n = 0;
    for (int r = 0; r < repeats; ++r)
        if (spell_of_repeat(run, r) == spell)
            for (int f = 0; f < run->frames; ++f)
                run->scratch[n++] = samples[(size_t)r * (size_t)run->frames + (size_t)f];
    return n > 0 ? bench_median(run->scratch, n) : NAN;
}

/* The scene row's medians from all its repeats' frames, and by spell when the frames chose
 * where their contacts ran. */
static void finish_scene(scene_run *run, int repeats)
{
    result *out = &run->row;
    int count = repeats * run->frames;
    int split = run->contacts && run->handoff_count > 0, one_thread_frames = 0;
    for (int r = 0; r < repeats; ++r)
        one_thread_frames += run->repeat_on_one[r];
    out->near_runs = out->far_runs = split ? 0 : -1;
    for (int r = 0; split && r < repeats; ++r) {
        out->near_runs += spell_of_repeat(run, r) == 0;
        out->far_runs += spell_of_repeat(run, r) == 1;
    }
    /* before the medians of all frames: bench_median sorts the samples in place */
    for (int st = 0; st < STAGE_COUNT; ++st) {
        out->near_ms[st] = split ? median_of_spell(run, run->samples[st], repeats, 0) : NAN;
        out->far_ms[st] = split ? median_of_spell(run, run->samples[st], repeats, 1) : NAN;
    }
    for (int st = 0; st < STAGE_COUNT; ++st)
        out->ms[st] = bench_median(run->samples[st], count);
    out->skinning_ms = bench_median(run->skinning, count);
    qsort(run->repeat_total, (size_t)repeats, sizeof(double), bench_compare_double);
    out->total_lo = run->repeat_total[0];
    out->total_hi = run->repeat_total[repeats - 1];
    out->handoff_ns = run->handoff_count > 0 ? bench_median(run->handoff, run->handoff_count) : NAN;
    out->contacts_one_thread = run->contacts ? (double)one_thread_frames / count : NAN;
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
        r.near_ms[s] = scene->near_ms[s] / scene->bodies;
        r.far_ms[s] = scene->far_ms[s] / scene->bodies;
    }
    r.skinning_ms = scene->skinning_ms / scene->bodies;
    r.total_lo = scene->total_lo / scene->bodies;
    r.total_hi = scene->total_hi / scene->bodies;
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
    print_ms(r->skinning_ms);
    printf(" %8.2f %7.3f-%-7.3f", 1e3 * r->ms[STAGE_TOTAL] / (r->substeps * r->iterations), r->total_lo,
           r->total_hi);
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
    printf("\n");
}

/* Under a row some of whose frames ran their contacts on one thread (cores far): its medians
 * over the repeats of each spell, and the paper's total over each. */
static void print_spells(const result *r, int show_paper, int repeats)
{
    if (!(r->contacts_one_thread > 0.0))
        return;
    for (int far = 0; far < 2; ++far) {
        const double *ms = far ? r->far_ms : r->near_ms;
        char name[32];
        snprintf(name, sizeof name, "  cores %s %d/%d", far ? "far" : "near", far ? r->far_runs : r->near_runs,
                 repeats);
        printf("%-19s %6s %6s %7s", name, "", "", "");
        for (int s = 0; s < STAGE_COUNT; ++s)
            print_ms(ms[s]);
        if (show_paper && r->paper.found && !isnan(ms[STAGE_TOTAL]))
            printf(" %7s %8s %15s %13s  |%32s %7.1fx", "", "", "", "", "", r->paper.ms[STAGE_TOTAL] / ms[STAGE_TOTAL]);
        printf("\n");
    }
}

/* The CSV's header row: write_csv writes the cells in this order. */
static const char CSV_COLUMNS[] =
    "edge_rule,example,config,per,bodies,nodes,edges,vertices,faces,ns,ni,warmup,repeats,frames,threads,simd,"
    "local_ms,global_ms,collision_ms,total_ms,skinning_ms,iteration_us,total_repeat_lo_ms,total_repeat_hi_ms,"
    "handoff_ns,contacts_one_thread,near_runs,near_local_ms,near_global_ms,near_collision_ms,near_total_ms,"
    "far_runs,far_local_ms,far_global_ms,far_collision_ms,far_total_ms,"
    "paper_nodes,paper_edges,paper_local_ms,paper_global_ms,paper_collision_ms,paper_total_ms,paper_over_ours";

/* A cell after a comma: `value` to `decimals` places, or nothing when it is NAN (a value the row
 * does not have). */
static void write_cell(FILE *out, double value, int decimals)
{
    if (isnan(value))
        fprintf(out, ",");
    else
        fprintf(out, ",%.*f", decimals, value);
}

static void write_csv(FILE *out, const result *r, int show_paper, int warmup, int repeats)
{
    fprintf(out, "%s,%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", edge_rule, r->example, r->config,
            r->divisor > 1 ? "body" : "scene", r->bodies, r->nodes, r->edges, r->vertices, r->faces, r->substeps,
            r->iterations, warmup, repeats, r->frames);
    fprintf(out, ",%d,%s", omp_get_max_threads(), op_simd_avx(-1) ? "avx" : "sse2");
    for (int s = 0; s < STAGE_COUNT; ++s)
        fprintf(out, ",%.4f", r->ms[s]);
    fprintf(out, ",%.4f", r->skinning_ms);
    fprintf(out, ",%.3f,%.4f,%.4f", 1e3 * r->ms[STAGE_TOTAL] / (r->substeps * r->iterations), r->total_lo,
            r->total_hi);
    write_cell(out, r->handoff_ns, 0);
    write_cell(out, r->contacts_one_thread, 3);
    for (int far = 0; far < 2; ++far) {
        int runs = far ? r->far_runs : r->near_runs;
        write_cell(out, runs < 0 ? NAN : runs, 0);
        for (int s = 0; s < STAGE_COUNT; ++s)
            write_cell(out, far ? r->far_ms[s] : r->near_ms[s], 4);
    }
    int paper = show_paper && r->paper.found;
    write_cell(out, paper ? r->paper.nodes : NAN, 0);
    write_cell(out, paper ? r->paper.edges : NAN, 0);
    for (int s = 0; s < STAGE_COUNT; ++s)
        write_cell(out, paper ? r->paper.ms[s] : NAN, 2);
    write_cell(out, paper ? r->paper.ms[STAGE_TOTAL] / r->ms[STAGE_TOTAL] : NAN, 2);
    fprintf(out, "\n");
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_scenes [-w WARMUP] [-r REPEATS] [-f FRAMES] [-s CONFIG_TEXT]... [-e EDGE_RULE] "
                    "[-o CSV_FILE] [-x SECTION.KEY=VALUE]... [-v]\n");
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

int main(int argc, char **argv)
{
    op_platform_init();
    int warmup = 20, repeats = 7, frames = 0, opt;
    const char *only[SCENE_COUNT], *csv_path = NULL;
    int only_count = 0;
    while ((opt = getopt(argc, argv, "w:r:f:s:e:o:x:vh")) != -1) {
        switch (opt) {
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
        case 'v': verbose = 1; break;
        case 'x':
            if (override_count == MAX_OVERRIDES + 1)
                return usage();
            overrides[override_count++] = optarg;
            break;
        default: return usage();
        }
    }
    if (optind != argc)
        return usage();

    scene_run runs[SCENE_COUNT];
    int run_count = 0;
    for (int d = 0; d < SCENE_COUNT; ++d) {
        int wanted = only_count == 0;
        for (int k = 0; k < only_count; ++k)
            wanted |= strstr(SCENES[d].config, only[k]) != NULL;
        if (wanted)
            runs[run_count++] = (scene_run){ .def = &SCENES[d] };
    }
    int status = 0;
    double start = op_now();
    /* round the scenes, repeat by repeat (file comment) */
    for (int r = 0; r < repeats && status == 0; ++r)
        for (int k = 0; k < run_count && status == 0; ++k)
            status = run_repeat(&runs[k], warmup, r, repeats, frames);
    result rows[2 * SCENE_COUNT];
    int show_paper[2 * SCENE_COUNT], row_count = 0;
    for (int k = 0; k < run_count && status == 0; ++k) {
        finish_scene(&runs[k], repeats);
        result scene = runs[k].row;
        const scene_def *def = runs[k].def;
        if (read_paper_row(def->example, &scene.paper)) {
            status = -1;
            break;
        }
        if (!scene.paper.found)
            fprintf(stderr, "bench_scenes: no row '%s' in %s\n", def->example, PAPER_TABLE);
        else if (scene.paper.substeps != scene.substeps || scene.paper.iterations != scene.iterations)
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
    if (status != 0)
        return 1;
    double seconds = op_now() - start;

    printf("Table 1 scenes, ms per frame: median over %d runs of each scene (%d warm-up frames, then the timed "
           "ones), energy logging off, %d thread(s)\n",
           repeats, warmup, omp_get_max_threads());
    printf("%-19s %6s %6s %7s %7s %7s %7s %7s %7s %8s %15s %13s  | %-31s %8s\n", "", "", "", "", "ours", "", "",
           "", "", "", "run medians", "contacts", "the paper", "");
    printf("%-19s %6s %6s %7s %7s %7s %7s %7s %7s %8s %15s %13s  | %7s %7s %7s %7s %8s\n", "example", "nodes",
           "edges", "ns x ni", "local", "global", "collide", "total", "skin", "us/iter", "least-most", "cores 1-thr",
           "local", "global", "collide", "total", "ratio");
    for (int r = 0; r < row_count; ++r) {
        print_row(&rows[r], show_paper[r]);
        print_spells(&rows[r], show_paper[r], repeats);
    }
    printf("(paper: %s; MacBook Pro, Core i7 2.9 GHz. skin: skinning every visual vertex, on the CPU, not in\n"
           " our total (the paper skinned on the GPU). us/iter = total / (ns ni); ratio = paper total / our\n"
           " total. Bar stiffness simulates three bars: the paper's row is compared with our time per bar.\n"
           " contacts: where the contacts between bodies ran, core/contact/collide.h: cores = a cache line's median\n"
           " time between the cores at the frames' starts, 1-thr = the share of frames on one thread; where\n"
           " some ran on one thread, the rows beneath give the medians of the runs that stayed in one spell:\n"
           " cores near, every frame's contacts on the team, and cores far, every one on one thread.)\n",
           PAPER_TABLE);
    FILE *csv = stdout;
    if (csv_path && !(csv = fopen(csv_path, "w"))) {
        fprintf(stderr, "bench_scenes: cannot write %s\n", csv_path);
        return 1;
    }
    fprintf(csv, "%s\n", CSV_COLUMNS);
    for (int r = 0; r < row_count; ++r)
        write_csv(csv, &rows[r], show_paper[r], warmup, repeats);
    if (csv != stdout && fclose(csv) != 0) {
        fprintf(stderr, "bench_scenes: error writing %s\n", csv_path);
        return 1;
    }
    printf("(%.1f s)\n", seconds);
    return 0;
}
