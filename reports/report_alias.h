/* What the stored frames of a run hide between them (reports/report_alias.c), the `alias`
 * section of opsim-report: experiments/meshless.mk's alias.tsv for Fig. 5 with the meshless
 * variant at its defaults, whose undamped vibration (Eq. 9) has a period of whole frames. The
 * run must have stored every sub-step's state (`[run] output = substeps`).
 * Over the last 30 frames (30 × substeps sub-steps) of the run file's first body:
 *   kinetic_substep_J       /solver/energy_after_contacts/kinetic, Eq. 4's momentum term E^k
 *                           (m |x − y|² / 2h², not ½ m v²): mean, min, max
 *   kinetic_substep_K_J     the mean at the K-th sub-step of a frame only (K = substeps: stored)
 *   change_one_substep_J    the largest |E_s − E_{s−1}|; change_one_frame_J |E_s − E_{s−n}|
 *   kinetic_frames_J        ½ Σ m_i |Δx_i / T|² between consecutive stored frames (mean)
 *   motion_substep_mm       √(Σ m_i |x_i,s − x_i,s−1|² / M) between consecutive stored sub-steps (mean)
 *   motion_frame_mm         √(Σ m_i |Δx_i|² / M) between consecutive frames (mean), and
 *   motion_two_frames_mm    the same between frames two apart
 * and from the stored sub-step states (/substeps) over the same window:
 *   kinetic_states_J        ½ Σ m_i |x_i,s − x_i,s−1|² / h² between consecutive sub-steps, h = T / n
 *   kinetic_states_frames_J the same at the frames' sub-steps only (what a frame-rate log shows)
 *   swing_substeps_mm       the peak-to-peak displacement of the particle that moves most, along its
 *                           largest deviation from its mean position (min and max: the extremes)
 *   swing_frames_mm         the same seen at the stored frames only
 *   period_substeps         the smallest lag (up to 4 frames) after which every particle is back
 *                           within a tenth of the largest one-sub-step move; 0 when none
 * T the frame time, n the sub-steps a frame. Written as "quantity\tmean\tmin\tmax", then a
 * row per quantity (%.4g; min and max empty where they do not apply).
 *
 * report_alias_series (`opsim-report alias-series`), for the figure: every sub-step of the last
 * 9 frames, "substep time_s frame kinetic_logged_J kinetic_states_J swing_mm", frame 1 on the
 * stored frames' sub-steps, kinetic_logged_J the log's, kinetic_states_J and swing_mm as above. */
#ifndef OPSIM_REPORT_ALIAS_H
#define OPSIM_REPORT_ALIAS_H

#include <stdio.h>

#include "opsim/ctx.h"

int report_alias(op_ctx *ctx, const char *run, FILE *out);
int report_alias_series(op_ctx *ctx, const char *run, FILE *out);

#endif
