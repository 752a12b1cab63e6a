/* Running a loaded scene and recording it into a run file (docs/design.md §5, docs/h5md.md): the bodies' graphs and
 * meshes, the parameters, and per frame the energies, stage timings, states and observables.
 * The file is flushed every frame and renamed to its final name only when the run completes.
 *
 * Written beyond the bodies (runfile.h):
 *   /parameters                       attributes: frames, output_every, frame_time, substeps,
 *                                     iterations, gravity, floor, floor_height, friction,
 *                                     floor_contact ("substep" or "iteration"), rotation_start
 *                                     ("rigid", "predicted" or "current"),
 *                                     collisions (0/1), collision_passes,
 *                                     collision_passes_max, collision_rounds, collision_order
 *                                     ("colours" or "jacobi"), collision_threads and
 *                                     schedule_threads ("auto", "one" or "all"),
 *                                     collision_margin (m),
 *                                     log_energy, solver, solver_<option> (strings as given,
 *                                     defaults filled in, the common chebyshev* options
 *                                     included); typed copies of the Chebyshev settings
 *                                     (solvers/accel/chebyshev.h): chebyshev, chebyshev_delay,
 *                                     chebyshev_rotations (0/1 ints), chebyshev_rho (NaN when
 *                                     not given), chebyshev_gamma, chebyshev_rho_source ("given",
 *                                     "none", or the text of the option); anderson, anderson_m
 *                                     (ints: the Anderson settings, solvers/accel/anderson.h)
 *   /parameters/<body>                attributes: model, stiffness, particle_offset
 *   /states/{position,orientation,velocity}/value [T][N][3], [T][N][3][3] (R_i, row-major)
 *                                     and [T][N][3] (m/s, the solver's velocities), step [T]
 *                                     (frame index), time [T] (s): every output frame (frame 0,
 *                                     each output_every-th and the last); N runs over the bodies
 *                                     in order, body b from its particle_offset; velocity's step
 *                                     and time are hard links to position's
 *   /h5md, /particles/<body>, /connectivity/<body>: the H5MD 1.1 elements (io/h5md.h,
 *                                     docs/h5md.md), each body's position, orientation and
 *                                     velocity views of its /states rows
 *   /substeps/{position,orientation,velocity}/value, step, time: the states after every
 *                                     sub-step (step: the sub-step index, row 0 the start;
 *                                     velocity's step and time links to position's), only with
 *                                     `[run] output = substeps`; and then /substeps/h5md,
 *                                     /substeps/particles/<body>, /substeps/connectivity/<body>:
 *                                     a second H5MD structure whose views show /substeps
 *   /solver/energy/{kinetic,elastic,constraint,total} [S][I+1] (J): every sub-step S; column 0
 *                                     before the first iteration, column k after the k-th
 *                                     (only when log_energy)
 *   /solver/energy_after_contacts/{kinetic,elastic,constraint,total} [S] (J): every sub-step, the
 *                                     same energy (the sub-step's h, y and Y) of the state the
 *                                     sub-step ends in, after its floor and body contacts: what
 *                                     the contacts did to the state the iterations left (the
 *                                     last column of /solver/energy) (only when log_energy)
 *   /solver/<counter> [S] (int64):    every sub-step, summed over bodies, each counter a
 *                                     registered variant publishes (op_solver_counter, solver.h),
 *                                     0 for the variants that do not: linear_iterations, the
 *                                     inner linear-solver iterations (springs: conjugate
 *                                     gradients)
 *   /timing/{local,global,collision,chebyshev,anderson,total} [F] (ms): every frame; one
 *                                     column per accelerator of solvers/accel/accel.h's registry
 *                                     (chebyshev: the extrapolation after each iteration,
 *                                     anderson: the mixing and its energy evaluations), each 0
 *                                     when off
 *   /timing/{contacts,units}_on_one_thread [F] (int64): every frame, 1 when every contact call
 *                                     (every sub-step's units) ran on one thread, the fixed
 *                                     option's or auto's timed choice (include/opsim/world.h)
 *   /timing/sweeps_on_team [F] (int64): every frame, 1 when every sub-step offered the bodies'
 *                                     sweeps a team under a variant's sweep_threads = auto
 *   /solver/anderson_rejections [S] (int64): every sub-step, the accelerator's counter
 *                                     (op_accel_type.counter_name): the accelerated iterates the
 *                                     Anderson safeguard refused (solvers/accel/anderson.h), summed
 *                                     over the bodies; 0 when anderson = off
 *   /collision/{floor_contacts,pairs,contacts} [F] (int64): every frame, summed over its
 *                                     sub-steps: particles pushed out of the floor, candidate
 *                                     pairs of particles of different bodies (broad phase), and
 *                                     those that penetrated (core/contact/collide.h; 0 with one body or
 *                                     collisions = off)
 *   /collision/{max_penetration,max_floor_penetration} [F] (m): every frame, the largest over
 *                                     its sub-steps of what is left at the end of COLLIDE: the
 *                                     deepest ellipsoid-ellipsoid penetration between bodies in
 *                                     the state the sub-step ends in, over every pair within reach
 *                                     (core/contact/collide.h, "Rounds"), and the deepest reach
 *                                     below the floor (0 without one)
 *   /collision/penetration [S] (m): every sub-step, that penetration between bodies
 *   /collision/max_floor_reach_before [F] (m): every frame, the largest over its sub-steps of how
 *                                     far any particle reached below the floor before the floor
 *                                     pushed it back (the iterations' result with floor_contact =
 *                                     substep, any iteration's with = iteration; 0 without a floor)
 *   /collision/floor_reach_before [S] (m): the same per sub-step
 *   /collision                        attribute smallest_semi_axis (m): the smallest semi-axis of
 *                                     any particle, the yardstick for the penetrations (the
 *                                     contact targets are shares of it)
 *   /observables/<name>/{value,step,time} [F+1]: frame 0 and every frame
 *   /states/index [N] int64           0 .. N-1: the first n entries list the particles of any
 *                                     body of n (the XDMF sidecar's polyvertex cells, xdmf.h)
 *   /parameters                       store_surface (0/1); /parameters/<body>: vertex_offset
 *   /surface/position/value [T][V][3] (only when store_surface) every body's visual mesh
 *                                     skinned by its particles (Eq. 2) at each output frame,
 *                                     as `opsim export --skinned` computes it; V runs over the
 *                                     bodies in order, body b from its vertex_offset; step [T]
 *                                     and time [T] as for the particles. Size: 24 bytes per
 *                                     vertex per output frame (fig4's dinosaur, 4,334 vertices
 *                                     and 151 frames: 15.7 MB, ten times the particle states;
 *                                     Fig. 7's 180 models, 704K vertices: 17 MB a frame), hence
 *                                     the opt-out (`opsim run --no-surface`) */
#ifndef OPSIM_RECORD_H
#define OPSIM_RECORD_H

#include <stdio.h>

#include "opsim/runfile.h"
#include "opsim/scene.h"

/* How a run is recorded, beyond what the scene fixes. */
typedef struct op_record_def {
    FILE *progress;    /* a carriage-return progress line per frame, or NULL (the command line
                          passes stderr when it is a terminal) */
    int store_surface; /* 1: write /surface/position (the skinned vertices) */
    const op_runfile_companion *companion; /* published with the run file (the XDMF sidecar), or NULL */
} op_record_def;

/* No progress line; the surface stored. */
op_record_def op_default_record_def(void);

/* Runs scene->run.frames frames and writes `path`. On failure nothing is left under `path`. */
int op_record_run_def(op_ctx *ctx, op_scene *scene, const char *path, const op_provenance *provenance,
                      const op_record_def *def);
/* op_record_run_def with the defaults and `progress`. */
int op_record_run(op_ctx *ctx, op_scene *scene, const char *path, const op_provenance *provenance, FILE *progress);

#endif
