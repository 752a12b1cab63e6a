/* opsim's library in one include: a program built against libopsim (`pkg-config --cflags --libs
 * opsim`) includes this. examples/step_scene.c loads a scene from its config, steps it and reads
 * the energies; docs/library.md says how to build against an installed opsim. */
#ifndef OPSIM_OPSIM_H
#define OPSIM_OPSIM_H

#include "opsim/ctx.h"
#include "opsim/energy.h"
#include "opsim/platform.h"
#include "opsim/scene.h"
#include "opsim/world.h"
#include "opsim/runfile.h"

#endif
