/* The frames' aliasing of a run's sub-step motion (report_alias.h): from the energy log and the
 * stored frames, and, when the run stored them, from every sub-step's state. */
#include "report_alias.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opsim/runfile.h"

enum { LAST_FRAMES = 30, SERIES_FRAMES = 9 };

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

/* The run's last `rows` sub-step states and what they show: the kinetic energy between
 * consecutive states, and the displacement of the particle that moves most from its mean. */
typedef struct substep_window {
    long first;         /* the sub-step index of row 0 of the window */
    long rows, particles;
    long n;             /* sub-steps a frame */
    double h;           /* the sub-step */
    double *x;          /* [rows][particles][3] */
    double *kinetic;    /* [rows]: ½ Σ m_i |x_s − x_{s−1}|² / h², 0 at row 0 */
    double *swing;      /* [rows]: the mover's (x_s − mean)·u, u its direction of largest deviation */
    long mover;         /* that particle */
} substep_window;

static void window_free(substep_window *w)
{
    free(w->x);
    free(w->kinetic);
    free(w->swing);
    memset(w, 0, sizeof *w);
}

/* The particle whose largest move between consecutive states is largest. */
static long largest_mover(const substep_window *w)
{
    long mover = 0;
    double most = -1.0;
    for (long s = 1; s < w->rows; ++s)
        for (long i = 0; i < w->particles; ++i) {
            const double *a = &w->x[3 * (s * w->particles + i)], *b = &w->x[3 * ((s - 1) * w->particles + i)];
            double d2 = (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]);
            if (d2 > most)
                most = d2, mover = i;
        }
    return mover;
}

/* The mover's signed displacement from its mean position, along its largest deviation. */
static void mover_swing(substep_window *w)
{
    double mean[3] = { 0 }, u[3] = { 0 }, far = -1.0;
    const long i = w->mover;
    for (long s = 0; s < w->rows; ++s)
        for (int k = 0; k < 3; ++k)
            mean[k] += w->x[3 * (s * w->particles + i) + k] / (double)w->rows;
    for (long s = 0; s < w->rows; ++s) {
        const double *p = &w->x[3 * (s * w->particles + i)];
        double d2 = 0.0;
        for (int k = 0; k < 3; ++k)
            d2 += (p[k] - mean[k]) * (p[k] - mean[k]);
        if (d2 > far) {
            far = d2;
            for (int k = 0; k < 3; ++k)
                u[k] = (p[k] - mean[k]) / (d2 > 0.0 ? sqrt(d2) : 1.0);
        }
    }
    for (long s = 0; s < w->rows; ++s) {
        const double *p = &w->x[3 * (s * w->particles + i)];
        w->swing[s] = (p[0] - mean[0]) * u[0] + (p[1] - mean[1]) * u[1] + (p[2] - mean[2]) * u[2];
    }
}

/* The last `frames` frames' sub-steps of /substeps (and the state before them), one body of
 * masses m. A run without /substeps fails naming the option that stores them. */
static int read_window(op_ctx *ctx, const char *run, const double *m, long particles, long n, double frame_time,
                       long frames, substep_window *w)
{
    memset(w, 0, sizeof *w);
    int rank;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    op_ctx probe;
    op_ctx_init(&probe);
    if (op_runfile_dataset_shape(&probe, run, "/substeps/position/value", &rank, dims) != OP_OK)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: stored no sub-steps: run it with --set run.output=substeps", run);
    if (rank != 3 || dims[1] != particles || dims[0] < frames * n + 1)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: /substeps/position/value needs %ld states of %ld particles", run,
                       frames * n + 1, particles);
    *w = (substep_window){ .rows = frames * n + 1, .particles = particles, .n = n, .h = frame_time / (double)n };
    w->first = (long)dims[0] - w->rows;
    w->x = op_calloc(ctx, 3 * (size_t)(w->rows * particles), sizeof *w->x);
    w->kinetic = op_calloc(ctx, (size_t)w->rows, sizeof *w->kinetic);
    w->swing = op_calloc(ctx, (size_t)w->rows, sizeof *w->swing);
    if (ctx->status != OP_OK || op_runfile_read_rows(ctx, run, "/substeps/position/value", w->first, w->rows, w->x,
                                                     3 * w->rows * particles) != OP_OK) {
        window_free(w);
        return ctx->status;
    }
    for (long s = 1; s < w->rows; ++s) {
        double e = 0.0;
        for (long c = 0; c < 3 * particles; ++c) {
            double d = w->x[s * 3 * particles + c] - w->x[(s - 1) * 3 * particles + c];
            e += 0.5 * m[c / 3] * d * d;
        }
        w->kinetic[s] = e / (w->h * w->h);
    }
    w->mover = largest_mover(w);
    mover_swing(w);
    return OP_OK;
}

/* The smallest lag (sub-steps, up to 4 frames) after which every particle is back within a tenth
 * of the largest distance any particle moves in one sub-step; 0 when there is none. */
static long period_substeps(const substep_window *w)
{
    double step = 0.0;
    for (long lag = 1; lag <= 4 * w->n && lag < w->rows; ++lag) {
        double most = 0.0;
        for (long s = lag; s < w->rows; ++s)
            for (long c = 0; c < w->particles; ++c) {
                const double *a = &w->x[3 * (s * w->particles + c)], *b = &w->x[3 * ((s - lag) * w->particles + c)];
                most = fmax(most, sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                                       (a[2] - b[2]) * (a[2] - b[2])));
            }
        if (lag == 1)
            step = most;
        else if (most < 0.1 * step)
            return lag;
    }
    return 0;
}

/* The rows of a sub-step run: the energy and the mover's swing seen by every sub-step against
 * by the frames' sub-steps only (the window's rows 0, n, 2n, ...: it ends on a frame). */
static void substep_rows(FILE *out, const substep_window *w)
{
    double sum = 0.0, lo = INFINITY, hi = -INFINITY, frame_sum = 0.0, frame_lo = INFINITY, frame_hi = -INFINITY;
    double swing_lo = INFINITY, swing_hi = -INFINITY, frame_swing_lo = INFINITY, frame_swing_hi = -INFINITY;
    long frames = 0;
    for (long s = 1; s < w->rows; ++s) {
        sum += w->kinetic[s];
        lo = fmin(lo, w->kinetic[s]);
        hi = fmax(hi, w->kinetic[s]);
        if (s % w->n == 0) {
            frame_sum += w->kinetic[s];
            frame_lo = fmin(frame_lo, w->kinetic[s]);
            frame_hi = fmax(frame_hi, w->kinetic[s]);
            ++frames;
        }
    }
    for (long s = 0; s < w->rows; ++s) {
        swing_lo = fmin(swing_lo, w->swing[s]);
        swing_hi = fmax(swing_hi, w->swing[s]);
        if (s % w->n == 0) {
            frame_swing_lo = fmin(frame_swing_lo, w->swing[s]);
            frame_swing_hi = fmax(frame_swing_hi, w->swing[s]);
        }
    }
    fprintf(out, "kinetic_states_J\t%.4g\t%.4g\t%.4g\n", sum / (double)(w->rows - 1), lo, hi);
    fprintf(out, "kinetic_states_frames_J\t%.4g\t%.4g\t%.4g\n", frame_sum / (double)frames, frame_lo, frame_hi);
    fprintf(out, "swing_substeps_mm\t%.4g\t%.4g\t%.4g\n", 1000 * (swing_hi - swing_lo), 1000 * swing_lo,
            1000 * swing_hi);
    fprintf(out, "swing_frames_mm\t%.4g\t%.4g\t%.4g\n", 1000 * (frame_swing_hi - frame_swing_lo),
            1000 * frame_swing_lo, 1000 * frame_swing_hi);
    fprintf(out, "period_substeps\t%ld\t\t\n", period_substeps(w));
}

/* The run's sub-steps a frame (1 to 64), frame time and the path of its first body's masses. */
static int read_setup(op_ctx *ctx, const char *run, int64_t *substeps, double *frame_time, char mass_path[128])
{
    char names[1][OP_RUNFILE_NAME_SIZE];
    int bodies = 0;
    if (op_runfile_read_attribute_int(ctx, run, "/parameters", "substeps", substeps) != OP_OK ||
        op_runfile_read_attribute_double(ctx, run, "/parameters", "frame_time", frame_time) != OP_OK ||
        op_runfile_body_names(ctx, run, names, 1, &bodies) != OP_OK)
        return ctx->status;
    if (*substeps < 1 || *substeps > 64)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %lld sub-steps a frame: 1 to 64 here", run, (long long)*substeps);
    snprintf(mass_path, 128, "/graph/%s/mass", names[0]);
    return OP_OK;
}

int report_alias(op_ctx *ctx, const char *run, FILE *out)
{
    int64_t substeps = 0;
    double frame_time = 0.0;
    char mass_path[128];
    if (read_setup(ctx, run, &substeps, &frame_time, mass_path) != OP_OK)
        return ctx->status;
    long n = (long)substeps, energies, one, particles, unit, frames, width;
    double *e = read_series(ctx, run, "/solver/energy_after_contacts/kinetic", &energies, &one);
    double *m = e ? read_series(ctx, run, mass_path, &particles, &unit) : NULL;
    double *x = m ? read_series(ctx, run, "/particles/position/value", &frames, &width) : NULL;
    if (x && (energies < LAST_FRAMES * n || frames < LAST_FRAMES + 2 || width != 3 * particles))
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: needs %d frames of one body's %ld particles (has %ld frames, %ld values)", run,
                LAST_FRAMES + 2, particles, frames, width);
    if (ctx->status == OP_OK) {
        double mass = 0.0, kinetic = 0.0, motion = 0.0, motion_two = 0.0;
        for (long i = 0; i < particles; ++i)
            mass += m[i];
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
        substep_window w;
        if (read_window(ctx, run, m, particles, n, frame_time, LAST_FRAMES, &w) == OP_OK) {
            /* the distance a particle moves in one sub-step, root mean square over the mass,
             * from the stored sub-step states: sqrt(2 K_s / M) h with K_s = ½ Σ m |Δx|² / h² */
            double motion_substep = 0.0;
            for (long r = 1; r < w.rows; ++r)
                motion_substep += sqrt(2 * w.kinetic[r] / mass) * w.h;
            fprintf(out, "quantity\tmean\tmin\tmax\n");
            energy_rows(out, e, energies, n);
            fprintf(out, "kinetic_frames_J\t%.4g\t\t\n", kinetic / LAST_FRAMES);
            fprintf(out, "motion_substep_mm\t%.4g\t\t\n", 1000 * motion_substep / (double)(w.rows - 1));
            fprintf(out, "motion_frame_mm\t%.4g\t\t\n", 1000 * motion / LAST_FRAMES);
            fprintf(out, "motion_two_frames_mm\t%.4g\t\t\n", 1000 * motion_two / LAST_FRAMES);
            substep_rows(out, &w);
        }
        window_free(&w);
    }
    free(e);
    free(m);
    free(x);
    return ctx->status;
}

int report_alias_series(op_ctx *ctx, const char *run, FILE *out)
{
    int64_t substeps = 0;
    double frame_time = 0.0;
    char mass_path[128];
    if (read_setup(ctx, run, &substeps, &frame_time, mass_path) != OP_OK)
        return ctx->status;
    long n = (long)substeps, particles, unit, energies, one;
    double *m = read_series(ctx, run, mass_path, &particles, &unit);
    double *e = m ? read_series(ctx, run, "/solver/energy_after_contacts/kinetic", &energies, &one) : NULL;
    substep_window w = { 0 };
    if (e && read_window(ctx, run, m, particles, n, frame_time, SERIES_FRAMES, &w) == OP_OK) {
        if (w.first + w.rows - 1 > energies)
            OP_FAIL(ctx, OP_ERR_INVALID, "%s: %ld sub-steps stored but %ld logged", run, w.first + w.rows - 1,
                    energies);
        else {
            fprintf(out, "substep\ttime_s\tframe\tkinetic_logged_J\tkinetic_states_J\tswing_mm\n");
            for (long s = 1; s < w.rows; ++s) {
                long index = w.first + s;
                fprintf(out, "%ld\t%.9g\t%d\t%.6g\t%.6g\t%.6g\n", index, (double)index * w.h, index % n == 0,
                        e[index - 1], w.kinetic[s], 1000 * w.swing[s]);
            }
        }
    }
    window_free(&w);
    free(m);
    free(e);
    return ctx->status;
}
