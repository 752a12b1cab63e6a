/* Experiment configs: an INI file (inih) describing one run, turned into a world. Every key is
 * checked; an error names the file and line, or the --set option it came from. Lengths in m,
 * times in s, angles in degrees, stiffness k in kg/(m³ s²), density in kg/m³.
 *
 *   [run]        frames = 150            frames to simulate
 *                output_every = 1        frames between stored states (the first and last are kept)
 *                models = data/models.tsv  the model catalogue
 *   [world]      frame_time = 0.0333333333333333  substeps = 1  iterations = 10
 *                gravity = 0 -9.81 0     floor = off | HEIGHT    friction = 0.5
 *                log_energy = true | false
 *   [solver]     name = arap, then the variant's options (opsim solvers lists them)
 *   [model NAME] particles = N  seed = S  voxels = R  density = RHO
 *                                        overrides of the catalogue build of model NAME
 *   [body NAME]  model = MODEL           a model of the catalogue
 *                stiffness = K
 *                position = X Y Z        placement of the model frame (default 0 0 0)
 *                rotation = AX AY AZ DEG placement rotation, axis and angle (default none)
 *                velocity = VX VY VZ     initial velocity of every particle
 *                start = rest | collapsed   collapsed: every particle at the first pinned
 *                                        particle's position (Fig. 4)
 *   [pin NAME]   body = BODY
 *                particle = centre | INDEX   centre: the particle nearest the body's rest centre of mass
 *                hold = position | orientation | both
 *   [constraint NAME]
 *                body = BODY  type = position | direction
 *                vertices = nearest X Y Z | box X0 Y0 Z0 X1 Y1 Z1   (model frame: one vertex,
 *                                        or every vertex in the box, one constraint each)
 *                directions = DX DY DZ [; DX DY DZ ...]  direction constraints: one each
 *                weight = W
 *                script = SCRIPT         optional: targets follow the script
 *   [script NAME] pivot = X Y Z
 *                key = T  TX TY TZ  AX AY AZ DEG   (repeated, increasing T)
 *   [observable NAME]
 *                type = deflection | rest_shape_error | lowest_point | kinetic_energy | position_error
 *                body = BODY             (optional for lowest_point and kinetic_energy: whole world)
 *                vertex = nearest X Y Z  (deflection)
 *                constraint = NAME       (position_error: the constraint section's first vertex)
 *
 * Overrides: "section.key=value" (e.g. "world.iterations=100", "body bar.stiffness=2e4",
 * "solver.rotations=jacobi") replace or add a key before the file is interpreted. */
#ifndef OPSIM_SCENE_H
#define OPSIM_SCENE_H

#include "ctx.h"
#include "observe.h"
#include "world.h"

enum { OP_SCENE_MAX_OBSERVABLES = 32 };

typedef struct op_run_def {
    int frames;
    int output_every;
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
