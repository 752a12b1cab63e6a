/* The energy terms every run logs (docs/design.md §1, E = E^k + E^e + E^c, in J), as the world
 * hands them out per sub-step and iteration (op_frame_stats, world.h). The yardstick that
 * computes them is core/sim/energy.h. */
#ifndef OPSIM_ENERGY_TERMS_H
#define OPSIM_ENERGY_TERMS_H

typedef struct op_energy {
    double kinetic, elastic, constraint, total;
} op_energy;

#endif
