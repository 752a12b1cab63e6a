/* Scene metrics logged every output frame under /observables/<name>/value (docs/design.md §5). The
 * harness computes them from the state, whatever the solver. */
#ifndef OPSIM_OBSERVE_H
#define OPSIM_OBSERVE_H

#include "opsim/ctx.h"
#include "opsim/observable.h"
#include "opsim/world.h"

double op_observe(const op_world *world, const op_observable *observable);

const char *op_observable_kind_name(op_observable_kind kind);
/* The unit its values are in, as a UDUNITS string ("1": a ratio or a count). */
const char *op_observable_kind_unit(op_observable_kind kind);
int op_observable_kind_parse(const char *name, op_observable_kind *kind);

/* The rotation and translation of the best rigid fit of the rest centres to the current ones,
 * weighted by mass (Kabsch through the polar rotation), and the RMS residual. */
double op_rest_shape_fit(const op_body *body, double rotation[9], double translation[3]);

#endif
