/* Tests of core/io/scene.c and core/sim/observe.c: a full config loads into the right world,
 * overrides replace and add keys, every kind of mistake is reported at its line (or its
 * --set), a collapsed start puts every particle on the pinned one, and the observables have
 * their defining values at rest, under rigid motions and under known displacements. Uses the
 * small generated models bar20 and column10 of data/models.tsv; run from the project root. */
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"
#include "opsim/scene.h"
#include "sim/script.h"
#include "test_util.h"
#include "contact/collide.h"
#include "geometry/model.h"
#include "sim/observe.h"

/* Rounding-level agreement for quantities of order one. */
#define TIGHT 1e-12

/* Writes `text` to a fresh .ini file; the path stays valid until the next call. */
static const char *write_ini(const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s", test_tmp_path(".ini"));
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    return path;
}

static void load_ok(const char *text, int override_count, const char *const *overrides, op_scene *scene)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    const char *path = write_ini(text);
    if (op_scene_load(&ctx, path, override_count, overrides, scene) != OP_OK)
        fail_msg("loading %s failed: %s", path, ctx.message);
}

static const char full_scene[] =
    "; two bars, one held by a pin, one by constraints\n" /* 1 */
    "[run]\n"                                              /* 2 */
    "frames = 30\n"                                        /* 3 */
    "output_every = 2\n"                                   /* 4 */
    "\n"                                                   /* 5 */
    "[world]\n"                                            /* 6 */
    "iterations = 5\n"                                     /* 7 */
    "gravity = 0 -9.81 0\n"                                /* 8 */
    "floor = -1\n"                                         /* 9 */
    "friction = 0.25\n"                                    /* 10 */
    "log_energy = false\n"                                 /* 11 */
    "\n"
    "[solver]\n"
    "name = arap\n"
    "rotations = jacobi\n"
    "\n"
    "[body bar_k1]\n"
    "model = bar20\n"
    "stiffness = 1e4\n"
    "position = 0 1 0\n"
    "\n"
    "[body bar_k2]\n"
    "model = bar20\n"
    "stiffness = 2e4\n"
    "position = 0 2 0.5\n"
    "rotation = 0 1 0 90\n"
    "\n"
    "[pin hold]\n"
    "body = bar_k1\n"
    "particle = 0\n"
    "hold = both\n"
    "\n"
    "[constraint left]\n"
    "body = bar_k2\n"
    "type = position\n"
    "vertices = box -0.51 -1 -1 -0.49 1 1\n"
    "weight = 1000 ; stiff\n"
    "\n"
    "[script twist]\n"
    "pivot = 0 2 0\n"
    "key = 0   0 0 0   1 0 0 0\n"
    "key = 2   0 0.1 0 1 0 0 180\n"
    "\n"
    "[constraint grab]\n"
    "body = bar_k2\n"
    "type = direction\n"
    "vertices = nearest 0.5 0 0\n"
    "directions = 1 0 0; 0 1 0\n"
    "directions = 0 0 1\n"
    "weight = 100\n"
    "script = twist\n"
    "\n"
    "[observable tip]\n"
    "type = deflection\n"
    "body = bar_k1\n"
    "vertex = nearest 0.5 0 0\n"
    "\n"
    "[observable shape]\n"
    "type = rest_shape_error\n"
    "body = bar_k2\n"
    "\n"
    "[observable low]\n"
    "type = lowest_point\n"
    "\n"
    "[observable energy]\n"
    "type = kinetic_energy\n"
    "body = bar_k1\n"
    "\n"
    "[observable miss]\n"
    "type = position_error\n"
    "body = bar_k2\n"
    "constraint = left\n";

static void test_full_scene(void **state)
{
    (void)state;
    op_scene scene;
    load_ok(full_scene, 0, NULL, &scene);
    const op_world *w = &scene.world;
    assert_int_equal(scene.run.frames, 30);
    assert_int_equal(scene.run.output_every, 2);
    assert_string_equal(scene.run.catalogue, "data/models.tsv");
    assert_close(w->def.frame_time, 1.0 / 30.0, 0);
    assert_int_equal(w->def.substeps, 1);
    assert_int_equal(w->def.iterations, 5);
    assert_close(w->def.gravity[1], -9.81, 0);
    assert_int_equal(w->def.floor, 1);
    assert_close(w->def.floor_height, -1.0, 0);
    assert_close(w->def.friction, 0.25, 0);
    assert_int_equal(w->def.collisions, 1); /* the defaults */
    assert_int_equal(w->def.collision_passes, OP_COLLIDE_DEFAULT_PASSES);
    assert_int_equal(w->def.collision_passes_max, OP_COLLIDE_DEFAULT_PASSES_MAX);
    assert_int_equal(w->def.collision_rounds, OP_COLLIDE_DEFAULT_ROUNDS);
    assert_int_equal(w->def.collision_order, OP_CONTACT_ORDER_COLOURS);
    assert_int_equal(w->def.collision_threads, OP_CONTACT_THREADS_AUTO);
    assert_int_equal(w->def.schedule_threads, OP_SCHEDULE_THREADS_AUTO);
    assert_close(w->def.collision_margin, 0.0, 0);
    assert_int_equal(w->def.log_energy, 0);
    assert_string_equal(w->solver->name, "arap");
    assert_string_equal(op_solver_setting(&w->solver_settings, "rotations"), "jacobi");
    assert_non_null(w->solver_state);

    /* both bars share one model */
    assert_int_equal(w->model_count, 1);
    assert_int_equal(w->body_count, 2);
    const op_body *k1 = &w->bodies[0], *k2 = &w->bodies[1];
    assert_string_equal(k1->name, "bar_k1");
    assert_string_equal(k2->name, "bar_k2");
    assert_ptr_equal(k1->model, k2->model);
    assert_int_equal(k1->graph->particle_count, 20);
    assert_close(k1->stiffness, 1e4, 0);
    assert_close(k2->stiffness, 2e4, 0);
    assert_close(k1->placement_translation[1], 1.0, 0);
    assert_close(k2->placement_translation[2], 0.5, 0);
    /* 90° about y takes the model's +x to world −z */
    const double *P = k2->placement_rotation;
    assert_close(P[0], 0.0, TIGHT);
    assert_close(P[6], -1.0, TIGHT);
    assert_close(P[4], 1.0, TIGHT);
    for (int i = 0; i < 20; ++i) {
        double placed[3];
        m3_mul_v(placed, P, &k2->graph->rest_position[3 * i]);
        for (int d = 0; d < 3; ++d)
            assert_close(k2->state.position[3 * i + d], placed[d] + k2->placement_translation[d], TIGHT);
    }

    assert_int_equal(k1->pin_count, 1);
    assert_int_equal(k1->pins[0].particle, 0);
    assert_true(k1->pins[0].hold_position && k1->pins[0].hold_rotation);
    assert_int_equal(k2->pin_count, 0);

    /* the bar's x = −0.5 end is a 5 x 5 lattice of vertices; then 3 directions at one vertex */
    assert_int_equal(k1->constraint_count, 0);
    assert_int_equal(k2->constraint_count, 25 + 3);
    for (int c = 0; c < 25; ++c) {
        assert_int_equal(k2->constraints[c].kind, OP_CONSTRAINT_POSITION);
        assert_close(k2->constraints[c].rest_point[0], -0.5, 0);
        assert_close(k2->constraints[c].weight, 1000.0, 0);
        assert_int_equal(k2->constraints[c].script, -1);
    }
    int tip = k2->constraints[25].vertex;
    assert_close(k2->model->mesh.vertices[3 * tip], 0.5, 0);
    for (int c = 25; c < 28; ++c) {
        assert_int_equal(k2->constraints[c].kind, OP_CONSTRAINT_DIRECTION);
        assert_int_equal(k2->constraints[c].vertex, tip);
        assert_int_equal(k2->constraints[c].script, 0);
        assert_close(k2->constraints[c].rest_direction[c - 25], 1.0, 0);
    }
    assert_int_equal(w->script_count, 1);
    assert_string_equal(w->scripts[0].name, "twist");
    assert_int_equal(w->scripts[0].key_count, 2);
    assert_close(w->scripts[0].angle[1], M_PI, TIGHT);
    assert_close(w->scripts[0].translation[1][1], 0.1, 0);

    assert_int_equal(scene.observable_count, 5);
    const op_observable *o = scene.observables;
    assert_string_equal(o[0].name, "tip");
    assert_int_equal(o[0].kind, OP_OBSERVE_DEFLECTION);
    assert_int_equal(o[0].body, 0);
    assert_close(k1->model->mesh.vertices[3 * o[0].vertex], 0.5, 0);
    assert_int_equal(o[1].kind, OP_OBSERVE_REST_SHAPE_ERROR);
    assert_int_equal(o[1].body, 1);
    assert_int_equal(o[2].kind, OP_OBSERVE_LOWEST_POINT);
    assert_int_equal(o[2].body, -1);
    assert_int_equal(o[3].kind, OP_OBSERVE_KINETIC_ENERGY);
    assert_int_equal(o[4].kind, OP_OBSERVE_POSITION_ERROR);
    assert_int_equal(o[4].constraint, 0);

    /* at rest */
    assert_close(op_observe(w, &o[0]), 0.0, TIGHT);
    assert_close(op_observe(w, &o[1]), 0.0, TIGHT);
    assert_close(op_observe(w, &o[3]), 0.0, 0);
    assert_close(op_observe(w, &o[4]), 0.0, TIGHT);
    double low = op_observe(w, &o[2]); /* bar_k1 at y = 1, 0.05 thick, floor at −1 */
    assert_true(low > 1.9 && low < 2.0);

    /* the provenance copy is the file itself */
    assert_string_equal(scene.config_text, full_scene);

    /* and the scene runs */
    op_frame_stats stats = { 0 };
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_world_step(&ctx, &scene.world, &stats) != OP_OK)
        fail_msg("step: %s", ctx.message);
    assert_true(op_observe(w, &o[0]) > 0.0);
    op_scene_free(&scene);
    assert_null(scene.world.bodies);
    assert_null(scene.config_text);
}

static const char small_scene[] = "[world]\n"
                                  "iterations = 10\n"
                                  "[body bar]\n"
                                  "model = bar20\n"
                                  "stiffness = 1e4\n"
                                  "[script s]\n"
                                  "key = 0 0 0 0 1 0 0 0\n"
                                  "key = 1 0 0 0 1 0 0 0\n"
                                  "key = 2 0 0 0 1 0 0 0\n";

static void test_overrides_replace_and_add(void **state)
{
    (void)state;
    const char *const overrides[] = {
        "world.iterations=100",          /* replaces */
        "body bar.stiffness = 2e4",      /* replaces, blanks trimmed */
        "body bar.position=0 3 0",       /* adds a key */
        "solver.rotations=jacobi",       /* adds a section */
        "model bar20.particles=10",      /* adds a [model] section that changes the build */
        "run.frames=7",
        "world.iterations=50",           /* the last override of a key wins */
        "script s.key=0 0 0 0 0 0 1 0",  /* replaces every keyframe of the file ... */
        "script s.key=5 1 0 0 0 0 1 90", /* ... and the next one adds */
    };
    int count = (int)(sizeof overrides / sizeof overrides[0]);
    op_scene scene;
    load_ok(small_scene, count, overrides, &scene);
    const op_world *w = &scene.world;
    assert_int_equal(w->def.iterations, 50);
    assert_close(w->bodies[0].stiffness, 2e4, 0);
    assert_close(w->bodies[0].placement_translation[1], 3.0, 0);
    assert_string_equal(op_solver_setting(&w->solver_settings, "rotations"), "jacobi");
    assert_int_equal(w->bodies[0].graph->particle_count, 10);
    assert_int_equal(scene.run.frames, 7);
    assert_int_equal(w->scripts[0].key_count, 2);
    assert_close(w->scripts[0].time[1], 5.0, 0);
    assert_close(w->scripts[0].angle[1], M_PI / 2, TIGHT);
    assert_close(w->scripts[0].axis[0][2], 1.0, 0);

    /* the file, then one comment line per override */
    size_t base = strlen(small_scene);
    assert_memory_equal(scene.config_text, small_scene, base);
    const char *tail = scene.config_text + base;
    for (int k = 0; k < count; ++k) {
        char line[256];
        snprintf(line, sizeof line, "# --set %s\n", overrides[k]);
        assert_memory_equal(tail, line, strlen(line));
        tail += strlen(line);
    }
    assert_string_equal(tail, "");
    op_scene_free(&scene);
}

typedef struct error_case {
    const char *what;
    const char *text;
    const char *override; /* NULL: none */
    op_status status;
    int line;             /* the line the message must name; 0: the override */
} error_case;

#define BAR "[body bar]\nmodel = bar20\nstiffness = 1e4\n" /* lines 1-3 */
#define X50 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

static const error_case error_cases[] = {
    { "unknown section", "[run]\nframes = 1\n[wrld]\ngravity = 0 0 0\n", NULL, OP_ERR_PARSE, 3 },
    { "unknown key", "[world]\n\niteration = 5\n", NULL, OP_ERR_PARSE, 3 },
    { "duplicate key", "[world]\niterations = 5\nsubsteps = 2\niterations = 6\n", NULL, OP_ERR_PARSE, 4 },
    { "duplicate section", "[world]\niterations = 5\n[run]\nframes = 2\n[world]\n", NULL, OP_ERR_PARSE, 5 },
    { "key before any section", "; comment\niterations = 5\n[world]\n", NULL, OP_ERR_PARSE, 2 },
    { "line without '='", "[world]\niterations 5\n[run]\nframe = 1\n", NULL, OP_ERR_PARSE, 2 },
    { "indented key", "[world]\niterations = 5\n  substeps = 2\n", NULL, OP_ERR_PARSE, 3 },
    { "unnamed body", "[body]\nmodel = bar20\n", NULL, OP_ERR_PARSE, 1 },
    { "bad name", "[body bar.2]\nmodel = bar20\n", NULL, OP_ERR_PARSE, 1 },
    { "line too long for inih", "[world]\n; " X50 X50 X50 X50 "\n", NULL, OP_ERR_PARSE, 2 },
    { "empty section", BAR "[pin p]\n", NULL, OP_ERR_PARSE, 4 },
    { "error in a CRLF file", "[world]\r\n\r\nsubsteps = x\r\n", NULL, OP_ERR_INVALID, 3 },
    { "bad number", "[world]\nfriction = abc\n", NULL, OP_ERR_INVALID, 2 },
    { "trailing text", "[world]\ngravity = 0 -9.81 0 1\n", NULL, OP_ERR_INVALID, 2 },
    { "NaN", "[world]\ngravity = 0 nan 0\n", NULL, OP_ERR_INVALID, 2 },
    { "infinite time", "[world]\nframe_time = inf\n", NULL, OP_ERR_INVALID, 2 },
    { "negative frames", "[run]\noutput_every = 1\nframes = -5\n", NULL, OP_ERR_INVALID, 3 },
    { "zero substeps", "[world]\nsubsteps = 0\n", NULL, OP_ERR_INVALID, 2 },
    { "bad boolean", "[world]\nlog_energy = maybe\n", NULL, OP_ERR_INVALID, 2 },
    { "bad collisions switch", "[world]\nfloor = 0\ncollisions = yes\n", NULL, OP_ERR_INVALID, 3 },
    { "zero collision passes", "[world]\ncollision_passes = 0\n", NULL, OP_ERR_INVALID, 2 },
    { "bad collision order", "[world]\ncollision_order = gauss\n", NULL, OP_ERR_INVALID, 2 },
    { "bad collision threads", "[world]\nfloor = 0\ncollision_threads = two\n", NULL, OP_ERR_INVALID, 3 },
    { "bad schedule threads", "[world]\nschedule_threads = team\n", NULL, OP_ERR_INVALID, 2 },
    { "negative collision passes cap", "[world]\ncollision_passes_max = -1\n", NULL, OP_ERR_INVALID, 2 },
    { "zero collision rounds", "[world]\ncollision_rounds = 0\n", NULL, OP_ERR_INVALID, 2 },
    { "bad output", "[run]\noutput = iterations\n", NULL, OP_ERR_INVALID, 2 },
    { "collision passes cap by --set", BAR, "world.collision_passes_max=1001", OP_ERR_INVALID, 0 },
    { "negative collision margin", "[world]\n\ncollision_margin = -0.01\n", NULL, OP_ERR_INVALID, 3 },
    { "collision passes by --set", BAR, "world.collision_passes=1001", OP_ERR_INVALID, 0 },
    { "unknown model", "[run]\nframes = 1\n[body bar]\nstiffness = 1\nmodel = bar99\n", NULL, OP_ERR_INVALID, 5 },
    { "missing model", "[body bar]\nstiffness = 1\n", NULL, OP_ERR_PARSE, 1 },
    { "negative stiffness", "[body bar]\nmodel = bar20\nstiffness = -1\n", NULL, OP_ERR_INVALID, 3 },
    { "zero rotation axis", BAR "rotation = 0 0 0 30\n", NULL, OP_ERR_INVALID, 4 },
    { "unused model section", BAR "[model bar2O]\nparticles = 5\n", NULL, OP_ERR_INVALID, 4 },
    { "unknown body in a pin", BAR "[pin p]\nparticle = 0\nbody = bra\nhold = both\n", NULL, OP_ERR_INVALID, 6 },
    { "pin particle out of range", BAR "[pin p]\nbody = bar\nparticle = 20\nhold = both\n", NULL, OP_ERR_INVALID, 6 },
    { "collapsed without a pin", BAR "start = collapsed\n", NULL, OP_ERR_INVALID, 4 },
    { "collapsed and moving",
      BAR "velocity = 0 1 0\nstart = collapsed\n[pin p]\nbody = bar\nparticle = 0\nhold = both\n", NULL,
      OP_ERR_INVALID, 4 },
    { "box selecting no vertex",
      BAR "[constraint c]\nbody = bar\ntype = position\nweight = 1\nvertices = box 2 2 2 3 3 3\n", NULL,
      OP_ERR_INVALID, 8 },
    { "unknown script",
      BAR "[constraint c]\nbody = bar\ntype = position\nvertices = nearest 0 0 0\nweight = 1\nscript = twirl\n",
      NULL, OP_ERR_INVALID, 9 },
    { "directions on a position constraint",
      BAR "[constraint c]\nbody = bar\ntype = position\nvertices = nearest 0 0 0\nweight = 1\ndirections = 1 0 0\n",
      NULL, OP_ERR_INVALID, 9 },
    { "directions cut by an INI comment",
      BAR "[constraint c]\nbody = bar\ntype = direction\nvertices = nearest 0 0 0\nweight = 1\n"
          "directions = 1 0 0 ; 0 1 0\n",
      NULL, OP_ERR_PARSE, 9 },
    { "script times not increasing", "[script s]\nkey = 1 0 0 0 1 0 0 0\nkey = 1 0 0 0 1 0 0 0\n", NULL,
      OP_ERR_INVALID, 3 },
    { "zero copies", BAR "copies = 0\n", NULL, OP_ERR_INVALID, 4 },
    { "grid too small for the copies", BAR "copies = 5\ngrid = 2 1 2\n", NULL, OP_ERR_INVALID, 5 },
    { "fractional grid", BAR "copies = 2\ngrid = 1.5 1 2\n", NULL, OP_ERR_INVALID, 5 },
    { "negative seed", BAR "copies = 2\nrandom_rotation = -3\n", NULL, OP_ERR_INVALID, 5 },
    { "collapsed copies", BAR "copies = 2\nstart = collapsed\n[pin p]\nbody = bar\nparticle = 0\nhold = both\n",
      NULL, OP_ERR_INVALID, 4 },
    { "observable of several copies", BAR "copies = 3\n[observable o]\ntype = rest_shape_error\nbody = bar\n", NULL,
      OP_ERR_INVALID, 7 },
    { "unknown copy", BAR "copies = 3\n[pin p]\nbody = bar-3\nparticle = 0\nhold = both\n", NULL, OP_ERR_INVALID,
      6 },
    { "unknown observable type", BAR "[observable o]\ntype = speed\n", NULL, OP_ERR_INVALID, 5 },
    { "deflection without a vertex", BAR "[observable o]\ntype = deflection\nbody = bar\n", NULL, OP_ERR_PARSE, 4 },
    { "unknown solver", "[world]\niterations = 1\n[solver]\nname = newton\n", NULL, OP_ERR_INVALID, 4 },
    { "unknown solver option", "[solver]\nname = arap\nsmoothing = 3\n", NULL, OP_ERR_PARSE, 3 },
    { "bad solver option value", BAR "[solver]\nrotations = sideways\n", NULL, OP_ERR_INVALID, 4 },
    { "malformed override", "[run]\nframes = 1\n", "world.frames", OP_ERR_USAGE, 0 },
    { "override without a key", "[run]\nframes = 1\n", "world=3", OP_ERR_USAGE, 0 },
    { "override of an unknown key", "[run]\nframes = 1\n", "world.iteration=3", OP_ERR_PARSE, 0 },
    { "override with a bad value", "[run]\nframes = 1\n", "world.iterations=-1", OP_ERR_INVALID, 0 },
};

static void test_errors_name_their_line(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof error_cases / sizeof error_cases[0]; ++k) {
        const error_case *t = &error_cases[k];
        const char *path = write_ini(t->text);
        op_ctx ctx;
        op_ctx_init(&ctx);
        op_scene scene;
        int status = op_scene_load(&ctx, path, t->override ? 1 : 0, &t->override, &scene);
        char prefix[600];
        if (t->override)
            snprintf(prefix, sizeof prefix, "--set %s: ", t->override);
        else
            snprintf(prefix, sizeof prefix, "%s:%d: ", path, t->line);
        print_message("%-36s %s\n", t->what, ctx.message);
        if (status != (int)t->status || strncmp(ctx.message, prefix, strlen(prefix)) != 0)
            fail_msg("%s: expected status %s and a message starting '%s', got %s: %s", t->what,
                     op_status_name(t->status), prefix, op_status_name(ctx.status), ctx.message);
        assert_null(scene.world.bodies);
        assert_null(scene.config_text);
        op_scene_free(&scene);
    }
}

static void test_bom_and_crlf(void **state)
{
    (void)state;
    op_scene scene;
    load_ok("\xEF\xBB\xBF[world]\r\niterations = 7\r\n[body b]\r\nmodel = bar20 ; comment\r\nstiffness = 5\r\n", 0,
            NULL, &scene);
    assert_int_equal(scene.world.def.iterations, 7);
    assert_close(scene.world.bodies[0].stiffness, 5.0, 0);
    op_scene_free(&scene);
}

static void test_missing_file(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_scene scene;
    assert_int_equal(op_scene_load(&ctx, "build/test-tmp/no-such-scene.ini", 0, NULL, &scene), OP_ERR_IO);
    assert_non_null(strstr(ctx.message, "no-such-scene.ini"));
    op_scene_free(&scene);
}

/* Fig. 4's start: every particle on the pinned centre particle, which the pin holds where it
 * was placed; orientations stay at the placement. */
static void test_collapsed_start(void **state)
{
    (void)state;
    op_scene scene;
    load_ok("[body b]\nmodel = column10\nstiffness = 1e4\nposition = 1 2 3\nrotation = 1 0 0 30\n"
            "start = collapsed\n"
            "[pin p]\nbody = b\nparticle = centre\nhold = both\n",
            0, NULL, &scene);
    const op_body *b = &scene.world.bodies[0];
    const op_graph *g = b->graph;
    int n = g->particle_count, pinned = b->pins[0].particle;
    assert_int_equal(n, 10);
    /* the centre particle is nearest the rest centre of mass */
    double total = 0.0, centre[3] = { 0, 0, 0 };
    for (int i = 0; i < n; ++i) {
        total += g->mass[i];
        v3_axpy(centre, g->mass[i], &g->rest_position[3 * i]);
    }
    v3_scale(centre, centre, 1.0 / total);
    for (int i = 0; i < n; ++i)
        assert_le(v3_dist2(&g->rest_position[3 * pinned], centre), v3_dist2(&g->rest_position[3 * i], centre));
    double placed[3];
    m3_mul_v(placed, b->placement_rotation, &g->rest_position[3 * pinned]);
    v3_add(placed, placed, b->placement_translation);
    for (int d = 0; d < 3; ++d)
        assert_close(b->pins[0].position[d], placed[d], 0);
    for (int i = 0; i < n; ++i) {
        for (int d = 0; d < 3; ++d) {
            assert_close(b->state.position[3 * i + d], b->pins[0].position[d], 0);
            assert_close(b->state.velocity[3 * i + d], 0.0, 0);
        }
        for (int k = 0; k < 9; ++k)
            assert_close(b->state.rotation[9 * i + k], b->placement_rotation[k], 0);
    }
    op_scene_free(&scene);
}

/* The flattened start: every particle's height at the pinned particle's, x and z as placed. */
static void test_flattened_start(void **state)
{
    (void)state;
    op_scene scene;
    load_ok("[body b]\nmodel = column10\nstiffness = 1e4\nposition = 1 2 3\nrotation = 1 0 0 30\n"
            "start = flattened\n"
            "[pin p]\nbody = b\nparticle = 0\nhold = position\n",
            0, NULL, &scene);
    const op_body *b = &scene.world.bodies[0];
    const op_graph *g = b->graph;
    double spread = 0.0;
    for (int i = 0; i < g->particle_count; ++i) {
        double placed[3];
        m3_mul_v(placed, b->placement_rotation, &g->rest_position[3 * i]);
        v3_add(placed, placed, b->placement_translation);
        assert_close(b->state.position[3 * i], placed[0], 0);
        assert_close(b->state.position[3 * i + 1], b->pins[0].position[1], 0);
        assert_close(b->state.position[3 * i + 2], placed[2], 0);
        assert_close(b->start_position[3 * i + 1], b->pins[0].position[1], 0);
        spread = fmax(spread, fabs(placed[1] - b->pins[0].position[1]));
    }
    assert_true(spread > 0.5); /* the standing column was squashed */
    op_scene_free(&scene);
}

static const char column_scene[] = "[body c]\nmodel = column10\nstiffness = 1e4\nposition = 0.3 0.5 -0.2\n"
                                   "rotation = 1 2 3 40\n"
                                   "[observable shape]\ntype = rest_shape_error\nbody = c\n";

static void test_rest_shape_error(void **state)
{
    (void)state;
    op_scene scene;
    load_ok(column_scene, 0, NULL, &scene);
    op_body *b = &scene.world.bodies[0];
    const op_observable *shape = &scene.observables[0];
    int n = b->graph->particle_count;
    assert_close(op_observe(&scene.world, shape), 0.0, TIGHT);

    /* a rigid motion of the whole state changes nothing; the fit finds it */
    double Q[9], s[3] = { -4.0, 7.5, 2.25 };
    op_axis_angle_matrix((const double[3]){ 0.6, 0.0, 0.8 }, 2.5, Q);
    for (int i = 0; i < n; ++i) {
        double *x = &b->state.position[3 * i];
        m3_mul_v(x, Q, x);
        v3_add(x, x, s);
        m3_mul(&b->state.rotation[9 * i], Q, &b->state.rotation[9 * i]);
    }
    assert_close(op_observe(&scene.world, shape), 0.0, TIGHT);
    /* the column's centres lie on a line, so the fit is fixed up to a turn about it: compare
     * where it takes the line, and where it takes every centre */
    double R[9], t[3], axis[3], fitted[3], expected[3];
    assert_close(op_rest_shape_fit(b, R, t), 0.0, TIGHT);
    const double *rest = b->graph->rest_position;
    v3_sub(axis, &rest[3 * (n - 1)], &rest[0]);
    m3_mul_v(fitted, R, axis);
    m3_mul_v(expected, b->placement_rotation, axis);
    m3_mul_v(expected, Q, expected);
    for (int d = 0; d < 3; ++d)
        assert_close(fitted[d], expected[d], 1e-9);
    for (int i = 0; i < n; ++i) {
        m3_mul_v(fitted, R, &rest[3 * i]);
        v3_add(fitted, fitted, t);
        for (int d = 0; d < 3; ++d)
            assert_close(fitted[d], b->state.position[3 * i + d], 1e-9);
    }

    /* stretching the column is not rigid */
    for (int i = 0; i < n; ++i)
        b->state.position[3 * i + 1] *= 1.1;
    double stretched = op_observe(&scene.world, shape);
    print_message("rest-shape error after a 10%% stretch of a displaced column: %g\n", stretched);
    assert_true(stretched > 1e-3);
    op_scene_free(&scene);
}

static void test_deflection_lowest_point_energy(void **state)
{
    (void)state;
    op_scene scene;
    load_ok("[world]\nfloor = -0.5\n"
            "[body bar]\nmodel = bar20\nstiffness = 1e4\nposition = 0 1 0\nrotation = 0 1 0 20\n"
            "[observable tip]\ntype = deflection\nbody = bar\nvertex = nearest 0.5 0 0\n"
            "[observable low]\ntype = lowest_point\nbody = bar\n"
            "[observable energy]\ntype = kinetic_energy\n",
            0, NULL, &scene);
    op_body *b = &scene.world.bodies[0];
    const op_observable *tip = &scene.observables[0], *low = &scene.observables[1], *energy = &scene.observables[2];
    int n = b->graph->particle_count;
    assert_close(op_observe(&scene.world, tip), 0.0, TIGHT);
    double low0 = op_observe(&scene.world, low);
    assert_true(low0 > 1.45 && low0 < 1.5);
    assert_close(op_observe(&scene.world, energy), 0.0, 0);

    const double d = 0.037, v = 0.2;
    double mass = 0.0;
    for (int i = 0; i < n; ++i) {
        b->state.position[3 * i + 1] -= d;
        b->state.velocity[3 * i + 2] = v;
        mass += b->graph->mass[i];
    }
    assert_close(op_observe(&scene.world, tip), d, TIGHT);
    assert_close(op_observe(&scene.world, low), low0 - d, TIGHT);
    assert_close(op_observe(&scene.world, energy), 0.5 * mass * v * v, TIGHT);
    op_scene_free(&scene);
}

/* A load that fails after models and bodies exist leaves nothing allocated (valgrind). */
/* A [body] section of copies: names NAME-K, placements on the grid or the row, the seeded
 * random turns (rotations, distinct, the same on every load), one shared model, and pins and
 * constraints that name the section reaching every copy while a copy's own name reaches one. */
static void test_copies(void **state)
{
    (void)state;
    static const char text[] = "[body col]\nmodel = column10\nstiffness = 1e4\ncopies = 12\ngrid = 2 3 2\n"
                               "spacing = 1 2 3\nposition = 10 20 30\nrandom_rotation = 7\n"
                               "[body row]\nmodel = column10\nstiffness = 1e4\ncopies = 3\nspacing = 0 0 -2\n"
                               "[pin feet]\nbody = col\nparticle = 0\nhold = position\n"
                               "[pin one]\nbody = row-1\nparticle = 3\nhold = both\n"
                               "[constraint c]\nbody = row\ntype = position\nvertices = nearest 0 0.5 0\nweight = 1\n";
    op_scene scene, again;
    load_ok(text, 0, NULL, &scene);
    load_ok(text, 0, NULL, &again);
    const op_world *w = &scene.world;
    assert_int_equal(w->body_count, 15);
    assert_int_equal(w->model_count, 1);
    assert_string_equal(w->bodies[0].name, "col-00");
    assert_string_equal(w->bodies[11].name, "col-11");
    assert_string_equal(w->bodies[12].name, "row-0");
    for (int k = 0; k < 12; ++k) {
        const op_body *b = &w->bodies[k];
        /* rows along x (2), then z (2), then layers up y (3) */
        double expected[3] = { 10 + 1.0 * (k % 2), 20 + 2.0 * (k / 4), 30 + 3.0 * (k / 2 % 2) };
        for (int d = 0; d < 3; ++d)
            assert_close(b->placement_translation[d], expected[d], 0);
        assert_true(b->model == w->bodies[0].model);
        assert_le(m3_orthonormality_error(b->placement_rotation), 1e-14);
        assert_close(m3_det(b->placement_rotation), 1.0, 1e-14);
        assert_memory_equal(b->placement_rotation, again.world.bodies[k].placement_rotation, sizeof(double[9]));
        for (int j = 0; j < k; ++j) /* each copy its own turn */
            assert_true(memcmp(b->placement_rotation, w->bodies[j].placement_rotation, sizeof(double[9])) != 0);
        assert_int_equal(b->pin_count, 1);
        assert_true(b->position_pinned[0] && !b->rotation_pinned[0]);
        assert_int_equal(b->constraint_count, 0);
    }
    for (int k = 0; k < 3; ++k) {
        const op_body *b = &w->bodies[12 + k];
        double expected[3] = { 0, 0, -2.0 * k };
        for (int d = 0; d < 3; ++d)
            assert_close(b->placement_translation[d], expected[d], 0);
        static const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
        assert_memory_equal(b->placement_rotation, identity, sizeof identity);
        assert_int_equal(b->pin_count, k == 1);
        assert_int_equal(b->constraint_count, 1);
    }
    op_scene_free(&scene);
    op_scene_free(&again);
}

static void test_free_after_failure(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_scene scene;
    const char *path = write_ini(BAR "[observable o]\ntype = position_error\nbody = bar\nconstraint = none\n");
    assert_int_equal(op_scene_load(&ctx, path, 0, NULL, &scene), OP_ERR_INVALID);
    assert_int_equal(scene.world.model_count, 0);
    op_scene_free(&scene);
    op_scene_free(&scene);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_scene),
        cmocka_unit_test(test_overrides_replace_and_add),
        cmocka_unit_test(test_errors_name_their_line),
        cmocka_unit_test(test_bom_and_crlf),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_collapsed_start),
        cmocka_unit_test(test_flattened_start),
        cmocka_unit_test(test_rest_shape_error),
        cmocka_unit_test(test_deflection_lowest_point_energy),
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_free_after_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
