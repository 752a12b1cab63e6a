/* What the stored frames of a run hide between them (reports/report_alias.c), the `alias`
 * section of opsim-report: experiments/meshless.mk's alias.tsv for Fig. 5 with the meshless
 * variant at its defaults, whose undamped vibration (Eq. 9) has a period of whole frames.
 * Over the last 30 frames (30 × substeps sub-steps) of the run file's first body:
 *   kinetic_substep_J       /solver/energy_after_contacts/kinetic: mean, min, max
 *   kinetic_substep_K_J     the mean at the K-th sub-step of a frame only (K = substeps: stored)
 *   change_one_substep_J    the largest |E_s − E_{s−1}|; change_one_frame_J |E_s − E_{s−n}|
 *   kinetic_frames_J        ½ Σ m_i |Δx_i / T|² between consecutive stored frames (mean)
 *   motion_substep_mm       √(2 Ē / M) T / n, Ē the mean logged kinetic energy, M the mass
 *   motion_frame_mm         √(Σ m_i |Δx_i|² / M) between consecutive frames (mean), and
 *   motion_two_frames_mm    the same between frames two apart
 * T the frame time, n the sub-steps a frame. Written as "quantity\tmean\tmin\tmax", then a
 * row per quantity (%.4g; min and max empty where they do not apply). */
#ifndef OPSIM_REPORT_ALIAS_H
#define OPSIM_REPORT_ALIAS_H

#include <stdio.h>

#include "opsim/ctx.h"

int report_alias(op_ctx *ctx, const char *run, FILE *out);

#endif
