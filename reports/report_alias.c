/* The frames' aliasing of a run's sub-step motion (report_alias.h). */
#include "report_alias.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "opsim/runfile.h"

enum { LAST_FRAMES = 30 };

/* Row r of a series of `width` values a row, read whole into rows[]. */
static double *read_series(op_ctx *ctx, const char *run, const char *dataset, long *rows, long *width)
{
    int rank;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    if (op_runfile_dataset_shape(ctx, run, dataset, &rank, dims) != OP_OK)
        return NULL;
    *rows = (long)dims[0];
    *width = 1;
    for (int d = 1; d < rank; ++d)
        *width *= (long)dims[d];
    double *values = op_calloc(ctx, (size_t)(*rows * *width) + 1, sizeof *values);
    if (values && op_runfile_read_rows(ctx, run, dataset, 0, *rows, values, *rows * *width) != OP_OK) {
        free(values);
        return NULL;
    }
    return values;
}

/* The sub-step energies: every quantity of the first four rows. */
static void energy_rows(FILE *out, const double *e, long count, long n)
{
    long first = count - LAST_FRAMES * n;
    double sum = 0.0, lo = INFINITY, hi = -INFINITY, one = 0.0, frame = 0.0, by_k[64] = { 0 };
    long per_k[64] = { 0 };
    for (long s = first; s < count; ++s) {
        sum += e[s];
        lo = fmin(lo, e[s]);
        hi = fmax(hi, e[s]);
        by_k[s % n] += e[s];
        per_k[s % n]++;
        if (s >= 1)
            one = fmax(one, fabs(e[s] - e[s - 1]));
        if (s >= n)
            frame = fmax(frame, fabs(e[s] - e[s - n]));
    }
    fprintf(out, "kinetic_substep_J\t%.4g\t%.4g\t%.4g\n", sum / (double)(LAST_FRAMES * n), lo, hi);
    for (long k = 0; k < n; ++k)
        fprintf(out, "kinetic_substep_%ld_J\t%.4g\t\t\n", k + 1, by_k[k] / (double)per_k[k]);
    fprintf(out, "change_one_substep_J\t%.4g\t\t\nchange_one_frame_J\t%.4g\t\t\n", one, frame);
}

int report_alias(op_ctx *ctx, const char *run, FILE *out)
{
    int64_t substeps = 0;
    double frame_time = 0.0;
    char names[1][OP_RUNFILE_NAME_SIZE];
    int bodies = 0;
    if (op_runfile_read_attribute_int(ctx, run, "/parameters", "substeps", &substeps) != OP_OK ||
        op_runfile_read_attribute_double(ctx, run, "/parameters", "frame_time", &frame_time) != OP_OK ||
        op_runfile_body_names(ctx, run, names, 1, &bodies) != OP_OK)
        return ctx->status;
    if (substeps < 1 || substeps > 64)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %lld sub-steps a frame: 1 to 64 here", run, (long long)substeps);
    char mass_path[128];
    snprintf(mass_path, sizeof mass_path, "/graph/%s/mass", names[0]);
    long n = (long)substeps, energies, one, particles, unit, frames, width;
    double *e = read_series(ctx, run, "/solver/energy_after_contacts/kinetic", &energies, &one);
    double *m = e ? read_series(ctx, run, mass_path, &particles, &unit) : NULL;
    double *x = m ? read_series(ctx, run, "/particles/position/value", &frames, &width) : NULL;
    if (x && (energies < LAST_FRAMES * n || frames < LAST_FRAMES + 2 || width != 3 * particles))
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: needs %d frames of one body's %ld particles (has %ld frames, %ld values)", run,
                LAST_FRAMES + 2, particles, frames, width);
    if (ctx->status == OP_OK) {
        double mass = 0.0, mean_energy = 0.0, kinetic = 0.0, motion = 0.0, motion_two = 0.0;
        for (long i = 0; i < particles; ++i)
            mass += m[i];
        for (long s = energies - LAST_FRAMES * n; s < energies; ++s)
            mean_energy += e[s];
        mean_energy /= (double)(LAST_FRAMES * n);
        for (long f = frames - LAST_FRAMES; f < frames; ++f) {
            double d2 = 0.0, e2 = 0.0;
            for (long c = 0; c < width; ++c) {
                double d = x[f * width + c] - x[(f - 1) * width + c], d_two = x[f * width + c] - x[(f - 2) * width + c];
                d2 += m[c / 3] * d * d;
                e2 += m[c / 3] * d_two * d_two;
            }
            kinetic += 0.5 * d2 / (frame_time * frame_time);
            motion += sqrt(d2 / mass);
            motion_two += sqrt(e2 / mass);
        }
        fprintf(out, "quantity\tmean\tmin\tmax\n");
        energy_rows(out, e, energies, n);
        fprintf(out, "kinetic_frames_J\t%.4g\t\t\n", kinetic / LAST_FRAMES);
        fprintf(out, "motion_substep_mm\t%.4g\t\t\n", 1000 * sqrt(2 * mean_energy / mass) * frame_time / (double)n);
        fprintf(out, "motion_frame_mm\t%.4g\t\t\n", 1000 * motion / LAST_FRAMES);
        fprintf(out, "motion_two_frames_mm\t%.4g\t\t\n", 1000 * motion_two / LAST_FRAMES);
    }
    free(e);
    free(m);
    free(x);
    return ctx->status;
}
