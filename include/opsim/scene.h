/* Experiment configs: an INI file (inih) describing one run, turned into a world. Every key is
 * checked; an error names the file and line, or the --set option it came from. Lengths in m,
 * times in s, angles in degrees, stiffness k in kg/(m³ s²), density in kg/m³.
 *
 *   [run]        frames = 150            frames to simulate (0 or more)
 *                output_every = 1        frames between stored states (the first and last are kept)
 *                output = frames | substeps   substeps: also every sub-step's state, under
 *                                        /substeps (core/io/record.h), so that motion with
 *                                        the period of a frame shows
 *                models = data/models.tsv  the model catalogue
 *                edges = catalogue | faces | overlap:S   the edge rule of every model: each
 *                                        model's own from the catalogue (the default), or this
 *                                        one for all (docs/graph-construction.md §4)
 *   [world]      frame_time = 0.0333333333333333  substeps = 1  iterations = 10
 *                gravity = 0 -9.81 0     floor = off | HEIGHT    friction = 0.5 (floor and bodies)
 *                floor_contact = substep | iteration | solve   where the floor acts (include/opsim/world.h):
 *                                        at the end of each sub-step (the paper's, the default), by a
 *                                        projection after every iteration, or as a bound inside the
 *                                        global step (arap and arap-reference only)
 *                rotation_start = rigid | predicted | current   the rotations each sub-step's
 *                                        iterations start from (include/opsim/world.h; rigid: the default)
 *                collisions = on | off   contacts between the particles of different bodies
 *                                        (core/contact/collide.h); they run only with two bodies or more
 *                collision_passes = 8    passes of those contacts while a pair penetrates
 *                                        (1 to 1000)
 *                collision_passes_max = 64   in colour order, passes go on past those while a
 *                                        pair penetrates deeper than 5 % of its smaller
 *                                        semi-axis, up to this many in all (0 to 1000;
 *                                        core/contact/collide.h, "Passes")
 *                collision_rounds = 8    rounds of those passes, each over the pairs within
 *                                        reach of the state the last left, while one is
 *                                        deeper than 5 % (1 to 1000; 1: the passes once;
 *                                        core/contact/collide.h, "Rounds")
 *                collision_order = colours | jacobi   the passes' order (core/contact/collide.h,
 *                                        "Resolution"): pairs in colours, each from what the
 *                                        ones before it left (the default), or every pair from
 *                                        the pass's start
 *                collision_margin = 0    m added to the broad phase's reach (not negative)
 *                collision_threads = auto | all | one   the contact stage on OpenMP's threads
 *                                        or on the calling thread alone, the bodies' stages
 *                                        still on all; auto (the default) times both and
 *                                        keeps the faster; the same results
 *                                        either way (core/contact/collide.h)
 *                schedule_threads = auto | all | one   the bodies' sub-steps shared out on
 *                                        OpenMP's threads or on the calling thread alone;
 *                                        auto (the default) times both and keeps the faster;
 *                                        the same results either way (include/opsim/world.h)
 *                log_energy = true | false
 *   [solver]     name = arap, then the variant's options (opsim solvers lists them)
 *   [model NAME] particles = N  seed = S  voxels = R  density = RHO  edges = faces | overlap:S
 *                                        overrides of the catalogue build of model NAME
 *                                        (particles = 0: the catalogue's count); some body
 *                                        must use the model
 *   [body NAME]  model = MODEL           a model of the catalogue (required)
 *                stiffness = K           (required)
 *                position = X Y Z        placement of the model frame (default 0 0 0)
 *                rotation = AX AY AZ DEG placement rotation, axis and angle (default none)
 *                velocity = VX VY VZ     initial velocity of every particle (default 0 0 0)
 *                angular_velocity = WX WY WZ   initial spin in rad/s about the body's centre of
 *                                        mass, world frame (default 0 0 0): v_i += ω × (x_i − c),
 *                                        Ṙ_i = [ω]× R_i
 *                start = rest | collapsed | flattened   collapsed: every particle at the
 *                                        position of the body's first pin that holds a
 *                                        position (Fig. 4); flattened: every particle's height
 *                                        (y) at that pin's, the body squashed onto the
 *                                        horizontal plane through it; orientations stay at the
 *                                        placement, velocities 0 (a non-zero velocity or spin is
 *                                        an error; one copy only)
 *                copies = N              N instances of the model (default 1), named NAME-K,
 *                                        K = 0 .. N−1 zero-padded (NAME itself when N = 1);
 *                                        they share the model's graph, mesh and skinning
 *                spacing = DX DY DZ      copy K sits at position + K (DX, DY, DZ): a row
 *                                        (default 0 0 0)
 *                grid = NX NY NZ         or, with a grid of at least N cells, at position +
 *                                        (ix DX, iy DY, iz DZ), ix = K mod NX, iz = (K div NX)
 *                                        mod NZ, iy = K div (NX NZ): rows along x, then z, then
 *                                        layers up y
 *                random_rotation = SEED  each copy first turned by its own uniformly random
 *                                        rotation (one seeded stream per section), then by
 *                                        `rotation`
 *   [pin NAME]   body = BODY             a [body] section (every copy of it) or one copy (NAME-K)
 *                particle = centre | INDEX   centre: the particle nearest the body's rest centre of mass
 *                hold = position | orientation | both        (all three required)
 *   [constraint NAME]
 *                body = BODY  type = position | direction   (BODY as for pins: every copy or one)
 *                vertices = nearest X Y Z | box X0 Y0 Z0 X1 Y1 Z1   (model frame: one vertex,
 *                                        or every vertex in the box, bounds included, one
 *                                        constraint each; an empty box is an error)
 *                directions = DX DY DZ [; DX DY DZ ...]  direction constraints: one each, at
 *                                        each vertex; the key may repeat and adds directions
 *                weight = W              (body, type, vertices, weight required)
 *                script = SCRIPT         optional: targets follow the script
 *   [script NAME] pivot = X Y Z          (default 0 0 0)
 *                key = T  TX TY TZ  AX AY AZ DEG   (repeated, increasing T; at least one)
 *   [observable NAME]
 *                type = deflection | rest_shape_error | lowest_point | kinetic_energy | position_error
 *                       | angular_momentum (|L| about the centre of mass, ellipsoids' spin included)
 *                       | stretch_max | stretch_min | inverted_edges | height   (core/sim/observe.h)
 *                body = BODY             one body: a [body] section of one copy, or a copy NAME-K
 *                                        (optional for lowest_point, kinetic_energy and
 *                                        angular_momentum: whole world)
 *                vertex = nearest X Y Z  (deflection)
 *                constraint = NAME       (position_error: the constraint section's first vertex;
 *                                        a position constraint on the same body)
 *
 * Syntax: a section is "[TYPE]" or "[TYPE NAME]", NAME of letters, digits, '_' and '-' (at most
 * 63), each section once. Keys and headers start at the beginning of their line (inih reads an
 * indented line as a continuation, so indentation is an error); lines at most 197 characters.
 * Comments: a line starting with ';' or '#', or ';' after a blank, so a directions list is
 * written "1 0 0; 0 1 0" and a directions line takes no comment. Only `key` and `directions`
 * may repeat. A value the solver variant rejects is reported at the [solver] header.
 *
 * Overrides: "section.key=value" (e.g. "world.iterations=100", "body bar.stiffness=2e4",
 * "solver.rotations=jacobi") replace or add a key (and its section) before the file is
 * interpreted; of two overrides of one key the last wins, except that the first override of
 * `key` or `directions` replaces all of the file's values and later ones add to it. */
#ifndef OPSIM_SCENE_H
#define OPSIM_SCENE_H

#include "opsim/ctx.h"
#include "opsim/observable.h"
#include "opsim/world.h"

enum { OP_SCENE_MAX_OBSERVABLES = 32 };

typedef struct op_run_def {
    int frames;
    int output_every;
    int output_substeps; /* 1: every sub-step's state too, under /substeps (`output = substeps`) */
    char catalogue[256];
} op_run_def;

typedef struct op_scene {
    op_run_def run;
    op_world world;  /* bodies, pins, constraints, scripts added; op_world_start called */
    int observable_count;
    op_observable observables[OP_SCENE_MAX_OBSERVABLES];
    char *config_text; /* the file as read, overrides appended as comments, for provenance */
} op_scene;

/* Reads `path`, applies `overrides`, builds the models, the bodies and the solver states. */
int op_scene_load(op_ctx *ctx, const char *path, int override_count, const char *const *overrides, op_scene *scene);
void op_scene_free(op_scene *scene);

#endif
