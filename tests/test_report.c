/* Tests for `opsim-report report` (reports/report_md.c) on the real template,
 * reports/REPORT.md.in, over a small results tree the test makes: three-frame runs of the
 * paper's configs, two-body and three-body stand-ins for the Fig. 6 and 7 run files (short runs
 * of configs written here, with the body names the template reads), hand-written tables whose
 * numbers the report must carry through, and empty pictures under the names the template
 * promises. The report must hold every section, table and picture, carry the numbers, and fail
 * with the template line, the placeholder and the file named when an input is missing or the
 * template is wrong, writing nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_util.h"

static char dir[512];

static void make_dir(const char *sub)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    assert_int_equal(test_shell("mkdir -p '%s'", path), 0);
}

static void write_file(const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int exists(const char *name)
{
    char path[1024];
    struct stat info;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &info) == 0;
}

static char *read_in_dir(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = test_read_file(path);
    assert_non_null(text);
    return text;
}

static void run_config(const char *config, const char *extra, const char *out)
{
    assert_int_equal(test_shell("bin/opsim run %s --set run.frames=3 --set run.output_every=1 %s --no-surface "
                                "--out '%s/results/%s' > /dev/null",
                                config, extra, dir, out),
                     0);
}

/* Two columns side by side, overlapping by less than a start may (core/contact/overlap.h), just
 * above the floor: contacts between the bodies and with the floor within three frames. The names
 * are the ones the template reads. */
static const char FIG6_STANDIN[] = "[run]\nframes = 3\n[world]\nsubsteps = 2\niterations = 2\ngravity = 0 -9.81 0\n"
                                   "floor = 0\nfriction = 0.5\n[solver]\nname = arap\n"
                                   "[body sheet]\nmodel = column10\nstiffness = 1e7\nposition = 0 0.52 0\n"
                                   "[body bunny]\nmodel = column10\nstiffness = 2e7\nposition = 0.13 0.52 0\n"
                                   "[observable lowest]\ntype = lowest_point\n"
                                   "[observable kinetic]\ntype = kinetic_energy\n";
static const char FIG7_STANDIN[] = "[run]\nframes = 3\n[world]\nsubsteps = 2\niterations = 2\ngravity = 0 -9.81 0\n"
                                   "floor = 0\nfriction = 0.5\n[solver]\nname = arap\n"
                                   "[body a]\nmodel = column10\nstiffness = 1e7\nposition = 0 0.52 0\n"
                                   "[body b]\nmodel = column10\nstiffness = 1e7\nposition = 0.13 0.52 0\n"
                                   "[body c]\nmodel = torus12\nstiffness = 1e7\nposition = 1 0.2 0\n"
                                   "[observable lowest]\ntype = lowest_point\n"
                                   "[observable kinetic]\ntype = kinetic_energy\n";

/* The free-flight, floor and stiffness tables, as experiments/freeflight.mk, floor.mk and
 * stiffness.mk write them (one row or two each; the springs' Newton table whole). */
static const char FREEFLIGHT[] = "variant\tsubsteps\titerations\tstart\tL0\tL_1s_over_rigid\tL_3s_over_rigid\t"
                                 "KE_1s_over_rigid\tKE_3s_over_rigid\tnote\n"
                                 "arap\t3\t3\trigid\t4.412\t0.9782\t0.9357\t0.9667\t0.9005\t\n"
                                 "meshless\t3\t3\trigid\t4.412\t1.053\t1.162\t1.113\t1.367\t\n"
                                 "springs\t3\t3\trigid\t\t\t\t\t\trefused: no\n";
static const char FREEFLIGHT_NEWTON[] = "run\tjacobian_damping\tnewton_steps\tL_1frame_over_rigid\tL_1s_over_rigid\n"
                                        "j0-i1\t0\t1\t0.9967\t0.904\n"
                                        "j0.01-i1\t0.01\t1\t0.006426\t3.042e-05\n"
                                        "j0-i3\t0\t3\t1.001\t1.006\n"
                                        "j0.01-i3\t0.01\t3\t0.09051\t0.0001871\n"
                                        "j0-i10\t0\t10\t1.001\t1.006\n"
                                        "j0.01-i10\t0.01\t10\t0.427\t0.001626\n"
                                        "j0-i30\t0\t30\t1.001\t1.006\n"
                                        "j0.01-i30\t0.01\t30\t0.5873\t0.08275\n"
                                        "j0-i100\t0\t100\t1.001\t1.006\n"
                                        "j0.01-i100\t0.01\t100\t0.7675\t0.1832\n";
static const char FLOOR[] = "scene\tfloor_contact\tresting_sink_mm\tlargest_reach_mm\telastic_iterated_J\t"
                            "elastic_after_contacts_J\trest_shape_error_pct\tms_per_frame\n"
                            "fig5\tsubstep\t20.92\t107.32\t1.808\t308.4\t0.923\t0.092\n";
static const char STIFFNESS[] = "factor\tk\tit_5\tit_10\tit_200\tit_1000\tgrid_spread_pct\tgrid_min\tgrid_max\t"
                                "largest_swing_mm\n"
                                "1\t5e+08\t1.039\t0.992\t1.000\t1.000\t7.4\t0.965\t1.039\t145\n"
                                "2\t1e+09\t1.198\t1.055\t1.000\t1.000\t22.3\t0.971\t1.198\t31.4\n"
                                "8\t4e+09\t2.271\t1.571\t1.005\t1.000\t109.4\t0.971\t2.271\t2.01\n"
                                "64\t3.2e+10\t12.389\t6.545\t1.174\t1.006\t376.6\t1.000\t12.389\t1.3\n";
/* The other variants' stiffness summaries and the spreads side by side (stiffness.mk), and the
 * floor study's variants table (floor.mk). */
static const char STIFFNESS_VARIANT[] = "# factor\tk\tit_5\tit_1000\tgrid_spread_pct\tlargest_swing_mm\n"
                                        "1\t5e+08\t2.938\t1.897\t47.2\t1260\n"
                                        "64\t3.2e+10\t165.212\t62.756\t120.1\t255\n";
static const char STIFFNESS_SPREADS[] = "# factor\tk\tarap_spread_pct\tshape-matching_spread_pct\txpbd_spread_pct\t"
                                        "vbd_spread_pct\n"
                                        "1\t500000000\t4.7\t117.9\t47.2\t45.4\n"
                                        "64\t32000000000\t308.9\t117.9\t120.1\t192.4\n";
static const char FLOOR_VARIANTS[] = "# scene\tsolver\tresting_sink_mm\tlargest_reach_mm\tpenetration_mm\t"
                                     "penetration_last_2s_mm\tkinetic_last_2s_J\trest_shape_error_pct\n"
                                     "fig5\tarap\t20.92\t107.32\t0.00\t0.00\t0.0007423\t0.923\n"
                                     "fig5\tvbd\t25.66\t70.84\t0.00\t0.00\t0.8288\t4.259\n";

/* data/results/fig7/contacts.tsv (experiments/experiments.mk): the penetrations left per scene
 * and contact-pass order. */
static const char CONTACTS[] = "scene_order\tlargest_mm\tlargest_pct\tresting_mm\tresting_pct\tsmallest_semi_axis_mm\n"
                               "bunny-colours\t0.02\t0\t0.00\t0\t12.17\n"
                               "bunny-jacobi\t20.57\t169\t0.00\t0\t12.17\n"
                               "52-colours\t9.43\t78\t0.32\t3\t12.06\n"
                               "52-jacobi\t37.33\t309\t11.31\t94\t12.06\n"
                               "180-colours\t14.44\t83\t1.42\t8\t17.36\n"
                               "180-jacobi\t46.93\t270\t3.70\t21\t17.36\n"
                               "52-colours-fixed\t9.17\t76\t1.09\t9\t12.06\n"
                               "180-colours-fixed\t53.43\t308\t2.62\t15\t17.36\n"
                               "52-rounds1\t35.74\t296\t0.83\t7\t12.06\n"
                               "180-rounds1\t63.28\t364\t1.32\t8\t17.36\n";

/* The tables of make variants (experiments/variants.mk), two variants and two scenes each where
 * they pivot, a refused cell among them: numbers or empty cells, the words in the status
 * columns (KEY_status, COLUMN_status; convergence_status in the keyed matrix) and the bounds in
 * COLUMN_bound, as opsim-report pivot, pick and keyed write them. */
static const char *const VARIANTS_TABLES[][2] = {
    { "results/variants/ms-per-frame.tsv",
      "variant\tbar\tfall\tbar_status\tfall_status\narap-gs\t0.017\t0.094\tok\tok\nrigid\t\t0.044\trefused\tok\n" },
    { "results/variants/ms-per-frame-interval.tsv", "variant\tbar\tfall\narap-gs\t0.017 (0.016–0.018)\t"
                                                    "0.094 (0.081–0.12)†\nrigid\trefused\t0.044 (0.043–0.045)\n" },
    { "results/variants/iterations-1e-4.tsv",
      "variant\tbar\tfall\tbar_status\tfall_status\narap-gs\t25\t51\tok\tok\nrigid\t\t\trefused\tsingle update\n" },
    { "results/variants/ms-1e-4.tsv",
      "variant\tbar\tfall\tbar_status\tfall_status\narap-gs\t0.04\t0.48\tok\tok\nrigid\t\t\trefused\tsingle update\n" },
    { "results/variants/ms-1e-6.tsv",
      "variant\tbar\tfall\tbar_status\tfall_status\narap-gs\t0.4\t\tok\tok\nrigid\t\t\trefused\tsingle update\n" },
    { "results/variants/r-at-ni.tsv",
      "variant\tbar\tfall\tbar_status\tfall_status\narap-gs\t5e-4\t0.05\tok\tok\n"
      "rigid\t\t0.39\trefused\tsingle update\n" },
    { "results/variants/own-iterations-1e-4.tsv",
      "variant\tbar\tfall\tbar_status\tfall_status\narap-gs\t80\t230\tok\tok\n"
      "meshless\t\t\tsingle update\tsingle update\nshape-matching\t\t\tx* unsettled\tok\n" },
    { "results/variants/ms-1e-4-interval.tsv", "variant\tbar\tfall\narap-gs\t0.04 (0.039–0.041)\t"
                                               "0.48 (0.31–0.52)†\nrigid\trefused\tsingle update\n" },
    { "results/variants/ms-1e-6-interval.tsv",
      "variant\tbar\tfall\narap-gs\t0.4 (0.39–0.41)\t\nrigid\trefused\tsingle update\n" },
    { "results/variants/own-ms-1e-4-interval.tsv",
      "variant\tbar\tfall\narap-gs\t1.2 (1.19–1.23)\t3.6 (3.5–3.7)\n"
      "meshless\tsingle update\tsingle update\nshape-matching\tx* unsettled\t\n" },
    { "results/variants/own-ms-1e-4.tsv",
      "variant\tbar\tfall\tbar_status\tfall_status\narap-gs\t1.2\t3.6\tok\tok\n"
      "meshless\t\t\tsingle update\tsingle update\nshape-matching\t\t\tx* unsettled\tok\n" },
    { "results/variants/bar.tsv",
      "variant\tstiffness_spread\tmax_h_s\tmax_k\trecovery_s\tstiffness_spread_status\tmax_h_s_status\tmax_h_s_bound\t"
      "max_k_status\tmax_k_bound\trecovery_s_status\n"
      "arap-gs\t1.08\t0.1\t1e11\t1.567\tok\tok\tge\tok\tge\tok\n"
      "rigid\t\t\t\t\trefused\trefused\t\trefused\t\trefused\n"
      "xpbd\t1.74\t0.1\t1e11\t2.1\tok\tok\tge\tok\tge\tok\n"
      "vbd\t2.3\t0.03333333333333333\t1e9\t\tok\tok\t\tok\t\tnever in 5 s\n" },
    { "results/variants/targets.tsv",
      "target\tplain_iterations\taccelerated_iterations\titeration_ratio\tplain_ms\taccelerated_ms\tms_ratio\n"
      "anderson-gs-fall-1e-4\t51\t14\t3.64\t0.46\t0.58\t0.79\n"
      "anderson-jacobi-fall-1e-4\t65\t18\t3.61\t0.9\t0.87\t1.03\n"
      "lbfgs-bar-1e-6\t163\t60\t2.72\t0.42\t0.36\t1.17\nlbfgs-collapse-1e-6\t101\t56\t1.80\t0.91\t1.36\t0.67\n"
      "lbfgs-fall-1e-6\t120\t52\t2.31\t1.1\t1.4\t0.79\nlbfgs-bunny-1e-6\t53\t54\t0.98\t10.9\t8.5\t1.28\n" },
    { "results/variants/matrix-keyed.tsv",
      "case\tvariant\tscene\titerations_1e-6\tms_1e-6\titerations_1e-4\tr_at_ni\tconvergence_status\tnote\n"
      "arap-gs:fall\tarap-gs\tfall\t120\t1.3\t51\t0.05\tok\t\n"
      "arap-gs-anderson:fall\tarap-gs-anderson\tfall\t24\t1.5\t14\t0.01\tok\t\n"
      "arap-gs:bar\tarap-gs\tbar\t163\t0.31\t25\t5e-4\tok\t\n"
      "arap-gs-anderson:bar\tarap-gs-anderson\tbar\t20\t0.11\t9\t1e-5\tok\t\n"
      "arap-gs:collapse\tarap-gs\tcollapse\t101\t0.9\t40\t0.02\tok\t\n"
      "vbd:bar\tvbd\tbar\t\t\t291\t0.61\tok\t\nvbd:collapse\tvbd\tcollapse\t\t\t187\t0.3\tok\t\n"
      "vbd:fall\tvbd\tfall\t\t\t77\t0.2\tok\t\nvbd-chebyshev:bar\tvbd-chebyshev\tbar\t\t\t93\t0.5\tok\t\n"
      "vbd-chebyshev:collapse\tvbd-chebyshev\tcollapse\t\t\t64\t0.25\tok\t\n"
      "vbd-chebyshev:fall\tvbd-chebyshev\tfall\t\t\t35\t0.1\tok\t\n" },
};

/* Fig. 2's three bars, deflections halving as k doubles. */
static const char DEFLECTION[] = "run\tbody\tstiffness\ttip_deflection_m\tfinal_kinetic_J\tindex\n"
                                 "fig2\tbar_k\t500000000\t0.4\t0\t0\n"
                                 "fig2\tbar_2k\t1000000000\t0.2\t0\t1\n"
                                 "fig2\tbar_4k\t2000000000\t0.1\t0\t2\n";
/* arap across iterations: 0.20, 0.21, 0.22 (spread 0.02 / 0.21); across time steps at 10
 * iterations: 0.20, 0.19, 0.23. */
static const char STEADY[] = "method\titerations\tframe_time_s\tsteady_m\tswing_m\n"
                             "arap\t10\t0.033333333333333333\t0.20\t2e-6\n"
                             "arap\t100\t0.033333333333333333\t0.21\t2e-6\n"
                             "arap\t1000\t0.033333333333333333\t0.22\t2e-6\n"
                             "arap\t10\t0.016666666666666666\t0.19\t2e-6\n"
                             "arap\t10\t0.0083333333333333332\t0.23\t2e-6\n"
                             "shape-matching\t100\t0.033333333333333333\t0.9\t0.01\n"
                             "shape-matching\t1000\t0.033333333333333333\t0.6\t0.01\n"
                             "shape-matching\t10000\t0.033333333333333333\t0.3\t0.01\n"
                             "shape-matching\t1000\t0.016666666666666666\t0.4\t0.01\n"
                             "shape-matching\t1000\t0.0083333333333333332\t0.2\t0.01\n"
                             "meshless\t1\t0.033333333333333333\t0.016\t0.02\n"
                             "meshless\t10\t0.033333333333333333\t0.016\t0.02\n"
                             "meshless\t1\t0.016666666666666666\t0.004\t0.01\n"
                             "meshless\t1\t0.0083333333333333332\t0.001\t0.003\n"
                             "springs\t1\t0.033333333333333333\t0.07\t0.01\n"
                             "springs\t2\t0.033333333333333333\t0.13\t0.03\n"
                             "springs\t1\t0.016666666666666666\t0.13\t0.03\n"
                             "xpbd\t10\t0.033333333333333333\t1.03\t0.01\n"
                             "xpbd\t100\t0.033333333333333333\t0.90\t0.02\n"
                             "xpbd\t1000\t0.033333333333333333\t0.59\t0.01\n"
                             "xpbd\t10\t0.016666666666666666\t0.94\t0.06\n"
                             "xpbd\t10\t0.0083333333333333332\t0.85\t0.17\n"
                             "vbd\t10\t0.033333333333333333\t0.44\t1.2\n"
                             "vbd\t1000\t0.033333333333333333\t0.21\t0.06\n"
                             "vbd\t10\t0.016666666666666666\t0.31\t1.2\n"
                             "xpbd-small\t10\t0.033333333333333333\t0.87\t0.19\n"
                             "xpbd-small\t1000\t0.033333333333333333\t0.40\t0.74\n"
                             "xpbd-small\t10\t0.016666666666666666\t0.72\t0.34\n";
/* The tables of make meshless (experiments/meshless.mk), with their header lines. */
static const char *const MESHLESS_TABLES[][2] = {
    { "results/meshless/spring.tsv", "h_over_hcrit\th\talpha\texplicit\tstart\tpredicted\n"
                                     "0.5\t0.16\t1\t1\t1\t1e-10\n1.1\t0.35\t1\t3e15\t1.00001\t8e-11\n" },
    { "results/meshless/pull.tsv", "mode\terror\tspread\tlargest\nrigid\t0.004\t0.002\t0.006\n"
                                   "linear\t0.005\t0.002\t0.007\nquadratic\t0.006\t0.003\t0.008\n" },
    { "results/meshless/plastic.tsv", "run\tafter\tspread\tlargest\nstart-plastic\t0.1\t0.08\t0.2\n"
                                      "start-elastic\t0.08\t0.05\t0.2\npredicted-plastic\t0.064\t2e-6\t0.2\n"
                                      "predicted-elastic\t8e-6\t3e-6\t0.2\n" },
    { "results/meshless/stick.tsv", "clusters\ttip\tspread\n1\t0.05\t0.01\n2\t0.27\t0.19\n5\t0.31\t0.08\n" },
    { "results/meshless/collapse.tsv", "method\tf1\tf10\tf30\tf150\tkinetic\n"
                                       "arap\t0.12\t0.015\t0.01\t0.0015\t0.007\n"
                                       "meshless-start\t0.15\t0.15\t0.16\t0.157\t194\n"
                                       "meshless-predicted\t0.15\t0.05\t0.08\t0.061\t0.57\n"
                                       "flat-arap\t0.08\t0.02\t0.01\t0.0005\t0.002\n"
                                       "flat-meshless-start\t0.1\t0.08\t0.1\t0.12\t46\n"
                                       "flat-meshless-predicted\t0.1\t0.05\t0.06\t0.05\t0.14\n" },
    { "results/meshless/fall.tsv", "method\tlargest\tshape_error\tkinetic\narap\t0.05\t0.009\t6e-5\n"
                                   "meshless-start\t0.075\t0.041\t10.6\nmeshless-predicted\t0.08\t0.04\t0.012\n" },
    { "results/meshless/alias.tsv", "quantity\tmean\tmin\tmax\nkinetic_substep_J\t19.84\t18.62\t20.66\n"
                                    "kinetic_substep_1_J\t20.64\t\t\nkinetic_substep_2_J\t20.25\t\t\n"
                                    "kinetic_substep_3_J\t18.63\t\t\nchange_one_substep_J\t2.013\t\t\n"
                                    "change_one_frame_J\t0.01963\t\t\nkinetic_frames_J\t9.064\t\t\n"
                                    "motion_substep_mm\t10.78\t\t\nmotion_frame_mm\t21.85\t\t\n"
                                    "motion_two_frames_mm\t0.4248\t\t\nkinetic_states_J\t19.59\t18.38\t20.4\n"
                                    "kinetic_states_frames_J\t20\t19.99\t20\n"
                                    "swing_substeps_mm\t130.6\t-65\t65.56\nswing_frames_mm\t43.23\t-21.41\t21.81\n"
                                    "period_substeps\t6\t\t\n" },
    { "results/meshless/perf.tsv", "objects\tpoints\tframe_ms\tframe_ms_lo\tframe_ms_hi\tframe_ms_noisy\t"
                                   "frame_ms_per_object\tsolver_ms_per_object\tpaper_ms_per_object_min\t"
                                   "paper_ms_per_object_max\n"
                                   "100\t10000\t1.2\t1.1\t1.3\t1\t0.012\t0.0105\t0.2\t0.2\n"
                                   "384\t38400\t5.8\t5.7\t5.9\t0\t0.015\t0.0119\t0.008\t0.096\n" },
};
/* Stand-ins for experiments/springs.mk's tables, with the rows and columns the report names. */
static const char SPRINGS_CURVES[] = "length\tcubic2_stiffness\tcubic_k1_6_stiffness\n0.8\t0.46\t9\n1\t1\t1\n1.2\t1.66\t17\n";
static const char SPRINGS_DRAPE[] = "run\tkinetic_10s_J\ndrape-r100-j0\t1e-24\ndrape-r100-j0.01\t1e-8\n"
                                   "drape-r5000-j0\t1e-10\ndrape-r5000-j0.01\t1e-21\n";
static const char SPRINGS_STRETCH[] = "run\tkinetic_12s_J\nstretch-j0\t1e-29\nstretch-j0.01\t1e-29\n";
static const char SPRINGS_BALL[] = "law\tstretch_peak\tsag_final_m\nlinear\t1.8\t0.047\ncubic\t2.7\t0.013\n";
static const char SPRINGS_HANG[] = "law\tcloth_kg\tcube_kg\tstretch_peak\tstretch_final\tdrop_max_m\tdrop_final_m\n"
                                   "linear\t1.0\t5.0\t2.07\t1.49\t0.283\t0.169\ncubic2\t1.0\t5.0\t1.58\t1.28\t0.219\t0.137\n"
                                   "cubic\t1.0\t5.0\t1.18\t1.11\t0.068\t0.066\n";
static const char SPRINGS_CUBE[] = "run\theight_min_m\tinverted_max\ncube-linear-s2\t0.11\t165\n"
                                   "cube-cubic-s2\t0.007\t323\ncube-linear-s8\t0.152\t0\n"
                                   "cube-cubic2-s8\t0.156\t0\ncube-cubic-s8\t0.142\t28\n";
static const char SPRINGS_TIMING[] = "run\tcg_per_substep\ntime-cloth-linear-assembled\t499\n"
                                    "time-cloth-cubic2-assembled\t669\ntime-cloth-cubic-assembled\t237\n";
static const char SPRINGS_DINO[] = "law\tshape_error_final\nlinear\t0.093\ncubic\t0.069\n";
static const char SPRINGS_COLLAPSED[] = "run\tshape_error_start\tshape_error_1s\nfig4-collapsed\t0.19\t0.19\n";
static const char CONVERGENCE[] =
    "scene\tvariant\titerations_1e-2\tms_1e-2\titerations_1e-4\tms_1e-4\titerations_1e-6\tms_1e-6\trho\t"
    "final_relative_error\tE0_J\tEstar_J\titerations\tframe\th_s\tconfig\n"
    "dino\tgs\t8\t0.1\t50\t1.000\t120\t2.000\t\t1e-11\t500\t50\t300\t15\t0.0111\texperiments/fig5.ini\n"
    "dino\tjacobi\t9\t0.1\t60\t1.200\t150\t3.000\t\t1e-9\t500\t50\t300\t15\t0.0111\texperiments/fig5.ini\n"
    "dino\tgs-chebyshev\t9\t0.2\t20\t0.500\t40\t1.000\t0.97\t1e-17\t500\t50\t300\t15\t0.0111\texperiments/fig5.ini\n"
    "dino\tjacobi-chebyshev\t\t\t\t\t\t\t0.97\t32\t500\t50\t300\t15\t0.0111\texperiments/fig5.ini\n";

/* bench_scenes' CSV: a header, one per-scene row for each of the paper's Table 1 rows on the
 * matched graphs (25 ms a frame is 40 per second), and for the 52 models one on the face
 * rule's graphs, with fewer edges (4 edges, 20 ms: what Table 1 must show beside it). */
static void write_bench(void)
{
    static const char *const rows[][3] = {
        { "Bar manipulation", "fig1", "1" }, { "Bar stiffness", "fig2", "3" }, { "Dinosaur inverted", "fig4", "1" },
        { "Dinosaur falling", "fig5", "1" }, { "Sheet", "fig6-rod", "1" },     { "Bunny and sheet", "fig6-bunny", "2" },
        { "52 models", "fig7-52", "52" },    { "180 models", "fig7-180", "180" },
    };
    char text[8192] = "edge_rule,example,config,per,bodies,nodes,edges,vertices,faces,ns,ni,warmup,repeats,frames,"
                      "threads,local_ms,global_ms,collision_ms,total_ms,skinning_ms,paper_total_ms\n";
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r)
        snprintf(text + strlen(text), sizeof text - strlen(text),
                 "catalogue,%s,experiments/%s.ini,scene,%s,10,9,100,200,6,2,20,3,40,2,10.0000,5.0000,10.0000,"
                 "25.0000,15.0000,\n",
                 rows[r][0], rows[r][1], rows[r][2]);
    strcat(text, "faces,52 models,experiments/fig7-52.ini,scene,52,10,4,100,200,6,2,20,1,10,2,8.0000,4.0000,8.0000,"
                 "20.0000,15.0000,26.24\n");
    write_file("results/table1/bench.csv", text);
}

/* bench_scenes' CSV of a pile's rows with their intervals (the 180 models' collision noisy; the
 * face rule's one repetition: each interval the median, noisy), where their contacts ran and the
 * CPU. */
static const char PILE_BENCH[] =
    "edge_rule,example,config,per,bodies,nodes,edges,vertices,faces,ns,ni,warmup,repeats,"
    "frames,threads,local_ms,global_ms,collision_ms,total_ms,skinning_ms,local_lo_ms,"
    "local_hi_ms,local_noisy,global_lo_ms,global_hi_ms,global_noisy,collision_lo_ms,"
    "collision_hi_ms,collision_noisy,total_lo_ms,total_hi_ms,total_noisy,handoff_ns,"
    "contacts_one_thread,setting,cpu\n"
    "catalogue,52 models,experiments/fig7-52.ini,scene,52,4120,18088,1,1,6,2,20,7,10,2,1.0,"
    "0.5,1.0,3.0,9.0,0.99,1.01,0,0.49,0.51,0,0.98,1.02,0,2.95,3.05,0,212,0.600,,"
    "Intel(R) Xeon(R) Platinum 8480C\n"
    "catalogue,180 models,experiments/fig7-180.ini,scene,180,4404,17916,1,1,6,2,20,7,10,2,"
    "1.0,0.5,1.3,3.1,9.0,0.99,1.01,0,0.49,0.51,0,1.1,1.5,1,3.0,3.2,0,210,1.000,,"
    "Intel(R) Xeon(R) Platinum 8480C\n"
    "faces,52 models,experiments/fig7-52.ini,scene,52,4120,12278,1,1,6,2,20,1,10,2,0.7,"
    "0.4,1.0,2.5,9.0,0.7,0.7,1,0.4,0.4,1,1.0,1.0,1,2.5,2.5,1,41,0.000,,"
    "Intel(R) Xeon(R) Platinum 8480C\n";

/* Empty pictures under every name the template's {{figure NAME}} placeholders use. */
static int touch_figures(void)
{
    char *template = test_read_file("reports/REPORT.md.in");
    assert_non_null(template);
    int count = 0;
    for (const char *p = strstr(template, "{{figure "); p; p = strstr(p + 1, "{{figure ")) {
        char name[128], file[256];
        assert_int_equal(sscanf(p, "{{figure %127[^}]}}", name), 1);
        snprintf(file, sizeof file, "report/figures/%s.png", name);
        write_file(file, "");
        ++count;
    }
    free(template);
    return count;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-report"));
    static const char *const subs[] = { "results/fig1",        "results/fig2",      "results/fig3",
                                        "results/fig4",        "results/fig5",      "results/fig6",
                                        "results/fig7",        "results/convergence", "results/table1",
                                        "results/freeflight",  "results/floor",     "results/stiffness",
                                        "results/meshless",    "results/springs",   "results/variants",
                                        "results/stiffness/xpbd", "results/stiffness/vbd", "report/figures" };
    for (size_t s = 0; s < sizeof subs / sizeof subs[0]; ++s)
        make_dir(subs[s]);
    run_config("experiments/fig1.ini", "", "fig1/bar.h5");
    run_config("experiments/fig2.ini", "", "fig2/bars.h5");
    run_config("experiments/fig4.ini", "", "fig4/dino.h5");
    run_config("experiments/fig4.ini", "--set solver.rotations=jacobi", "fig4/dino-jacobi.h5");
    run_config("experiments/fig5.ini", "", "fig5/dino.h5");
    run_config("experiments/fig5.ini", "--set solver.rotations=jacobi", "fig5/dino-jacobi.h5");
    run_config("experiments/fig5.ini", "--set world.rotation_start=current", "fig5/dino-current.h5");
    run_config("experiments/fig5.ini", "--set world.iterations=30", "fig5/dino-converged.h5");
    run_config("experiments/freeflight.ini", "", "freeflight/arap-s3i3-rigid.h5");
    write_file("fig6.ini", FIG6_STANDIN);
    write_file("fig7.ini", FIG7_STANDIN);
    char config[600];
    snprintf(config, sizeof config, "'%s/fig6.ini'", dir);
    run_config(config, "", "fig6/bunny.h5");
    run_config(config, "", "fig6/rod.h5");
    snprintf(config, sizeof config, "'%s/fig7.ini'", dir);
    run_config(config, "", "fig7/models52.h5");
    run_config(config, "", "fig7/models180.h5");
    run_config(config, "--set world.rotation_start=current", "fig7/models52-current.h5");
    run_config(config, "--set world.rotation_start=current", "fig7/models180-current.h5");
    write_file("results/freeflight/table.tsv", FREEFLIGHT);
    write_file("results/freeflight/springs-newton.tsv", FREEFLIGHT_NEWTON);
    write_file("results/floor/table.tsv", FLOOR);
    write_file("results/stiffness/summary.tsv", STIFFNESS);
    write_file("results/stiffness/xpbd/summary.tsv", STIFFNESS_VARIANT);
    write_file("results/stiffness/vbd/summary.tsv", STIFFNESS_VARIANT);
    write_file("results/stiffness/variants.tsv", STIFFNESS_SPREADS);
    write_file("results/floor/variants.tsv", FLOOR_VARIANTS);
    write_file("results/fig2/deflection.tsv", DEFLECTION);
    write_file("results/fig3/steady.tsv", STEADY);
    write_file("results/convergence/table.tsv", CONVERGENCE);
    run_config("experiments/meshless-pull.ini", "--set solver.mode=rigid", "meshless/pull-rigid.h5");
    run_config("experiments/meshless-pull.ini", "--set solver.mode=quadratic", "meshless/pull-quadratic.h5");
    for (size_t t = 0; t < sizeof MESHLESS_TABLES / sizeof MESHLESS_TABLES[0]; ++t)
        write_file(MESHLESS_TABLES[t][0], MESHLESS_TABLES[t][1]);
    write_file("results/fig7/contacts.tsv", CONTACTS);
    write_file("results/springs/curve-points.tsv", SPRINGS_CURVES);
    write_file("results/springs/drape.tsv", SPRINGS_DRAPE);
    write_file("results/springs/stretch.tsv", SPRINGS_STRETCH);
    write_file("results/springs/ball.tsv", SPRINGS_BALL);
    write_file("results/springs/hang.tsv", SPRINGS_HANG);
    write_file("results/springs/cube.tsv", SPRINGS_CUBE);
    write_file("results/springs/timing.tsv", SPRINGS_TIMING);
    write_file("results/springs/dino.tsv", SPRINGS_DINO);
    write_file("results/springs/collapsed.tsv", SPRINGS_COLLAPSED);
    for (size_t t = 0; t < sizeof VARIANTS_TABLES / sizeof VARIANTS_TABLES[0]; ++t)
        write_file(VARIANTS_TABLES[t][0], VARIANTS_TABLES[t][1]);
    write_bench();
    write_file("flags", "cc " OPSIM_CFLAGS "\n");
    write_file("report/convergence.md", "");
    write_file("report/table1.md", "");
    write_file("report/graphs.md", "");
    assert_true(touch_figures() >= 16);
    return 0;
}

/* Runs the generator on `template` into report/OUT with its depfile, standard error into
 * report/OUT.err; the exit status. */
static int report(const char *template, const char *out)
{
    return test_shell("bin/opsim-report report --template '%s' --results '%s/results' --paper reports/paper_table1.tsv "
                      "--flags '%s/flags' --figures figures --depfile '%s/report/%s.d' --out '%s/report/%s' "
                      "2> '%s/report/%s.err'",
                      template, dir, dir, dir, out, dir, out, dir, out);
}

static void assert_contains(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("the report lacks \"%s\"", part);
}

static void test_report_has_every_section_table_and_picture(void **state)
{
    (void)state;
    assert_int_equal(report("reports/REPORT.md.in", "REPORT.md"), 0);
    char *text = read_in_dir("report/REPORT.md");
    assert_null(strstr(text, "{{"));
    assert_null(strstr(text, "}}"));

    static const char *const sections[] = { "## Provenance", "## Fig. 1:", "## Fig. 2:", "## Fig. 3:", "## Fig. 4:",
                                            "## Fig. 5:", "## Fig. 6:", "## Fig. 7:", "## The convergence study",
                                            "## Free flight", "## Floor contacts", "## The stiffness claim across k",
                                            "## Table 1", "## Meshless deformations based on shape matching",
                                            "## Springs: Vogiannou", "## The variants compared",
                                            "## XPBD: compliant constraints", "## Vertex Block Descent on arap's energy",
                                            "## Where we depart from the paper",
                                            "## What this report cannot show" };
    for (size_t s = 0; s < sizeof sections / sizeof sections[0]; ++s)
        assert_contains(text, sections[s]);
    static const char *const pictures[] = { "fig1-snapshots", "fig2-snapshots", "fig2-deflection", "fig3-stiffness",
                                            "fig4-snapshots", "fig4-recovery",  "fig5-snapshots",  "fig5-falling",
                                            "fig5-iterations", "fig6-rod-snapshots", "fig6-bunny-snapshots",
                                            "fig6-contacts", "fig7-52-snapshots", "fig7-180-snapshots",
                                            "fig7-contacts", "convergence", "meshless-spring", "meshless-stick",
                                            "meshless-collapse" };
    for (size_t p = 0; p < sizeof pictures / sizeof pictures[0]; ++p) {
        char link[128];
        snprintf(link, sizeof link, "](figures/%s.png)", pictures[p]);
        assert_contains(text, link);
    }
    assert_contains(text, "[`reports/convergence.md`](convergence.md)");
    assert_contains(text, "[`reports/table1.md`](table1.md)");

    /* Provenance: the version and revision (whichever the generator was built at), the flags,
     * every run file with its writer. */
    assert_contains(text, "| opsim | " OPSIM_VERSION ", report written by git revision ");
    assert_contains(text, "`cc " OPSIM_CFLAGS "`");
    assert_contains(text, "| input | written | opsim git revision | compiler flags |");
    char row[1024];
    snprintf(row, sizeof row, "| `%s/results/fig7/models180.h5` |", dir);
    assert_contains(text, row);
    assert_contains(text, " | as `build/flags` |");

    /* Fig. 1, 4 and 5 from three-frame runs: counts, finite frames, events not yet reached. */
    assert_contains(text, "The bar's graph has\n20 particles and 19 edges");
    assert_contains(text, "| output frames with every particle position and rotation finite | 4 of 4 |");
    assert_contains(text, "not within the run's 0.1 s");
    assert_contains(text, "| first floor contact | no floor contact within the run's 0.1 s |");
    /* Fig. 2 and 3 carry the hand-written tables' numbers. */
    assert_contains(text, "| `fig2` | bar_k | 5×10<sup>8</sup> | 400 | 2 | 1 |");
    assert_contains(text, "| `fig2` | bar_4k | 2×10<sup>9</sup> | 100 | – | 1 |");
    assert_contains(text, "| arap | 1000 | 1/30 | 220 | 0.002 |");
    assert_contains(text, "| meshless | single update | single update |"); /* the own-solution tables */
    /* the variants tables read their words from the status and bound columns, not the numbers */
    assert_contains(text, "| variant | bar | fall |\n|---|---:|---:|\n| arap-gs | 25 | 51 |\n"
                          "| rigid | refused | single update |");
    assert_contains(text, "| shape-matching | x* unsettled | – |");
    /* each ms to a tolerance with its interval, the own solution's too */
    assert_contains(text, "| arap-gs | 0.04 (0.039–0.041) | 0.48 (0.31–0.52)† |");
    assert_contains(text, "| arap-gs | 1.2 (1.19–1.23) | 3.6 (3.5–3.7) |");
    assert_contains(text, "| rigid | refused | 0.39 |");
    assert_contains(text, "| arap-gs | 0.4 (0.39–0.41) |  |");
    assert_contains(text, "| arap-gs | 1.08 | ≥0.1 | ≥1e11 | 1.57 |");
    assert_contains(text, "| rigid | refused | refused | refused | refused |");
    assert_contains(text, "| vbd | 2.3 | 0.0333 | 1×10<sup>9</sup> | never in 5 s |");
    assert_null(strstr(text, "_status"));
    assert_null(strstr(text, "_bound"));
    assert_contains(text, "| ours (`arap`) | 9.52 % (max / min 1.1) | 19.4 % (max / min 1.21) |");
    assert_contains(text, "| meshless (Eq. 9) | 0 % (max / min 1) |");
    /* Müller et al. 2005: the tables of make meshless, their cells in the prose. */
    assert_contains(text, "| 1.1 | 0.35 | 1 | 3×10<sup>15</sup> | 1 | 8×10<sup>-11</sup> |");
    assert_contains(text, "the explicit amplitude grows by\n3×10<sup>15</sup> in 60 steps");
    assert_contains(text, "a cube of 64 particles");
    assert_contains(text, "the tip moves 50 mm with one cluster");
    assert_contains(text, "| 384 | 38400 | 5.8 | 5.7 | 5.9 | 0 | 0.015 | 0.0119 | 0.008 | 0.096 |");
    /* the matrix's ms per frame with its interval, † when noisy */
    assert_contains(text, "| arap-gs | 0.017 (0.016–0.018) | 0.094 (0.081–0.12)† |");
    /* Fig. 6 and 7: bodies by model, finite frames, the timing table from bench.csv. */
    assert_contains(text, "| `fig6/bunny.h5` | 2: 2 × column10 | 20 | 18 | 3 (3) | 4 of 4 |");
    assert_contains(text, "| `fig7/models52.h5` | 3: 2 × column10, torus12 |");
    assert_contains(text, "| 20.6 mm (169 %); 0 mm (0 %) |"); /* Fig. 6's bunny, Jacobi order */
    assert_contains(text, "| 52-colours | 9.43 | 78 | 0.32 | 3 | 12.1 |");
    assert_contains(text, "| 52 models (`fig7-52.ini`) | 6 × 2 | 26.2 | 30 / 11 / 59 % | 25 | 40 / 20 / 40 % | 40 | 25 |");
    /* The convergence study's speed-ups, and one that never converges. */
    assert_contains(text, "| dino | Gauss–Seidel | 50 → 20 (2.50×) | 1.000 → 0.500 (2.00×) | 120 → 40 (3.00×) |");
    assert_contains(text, "| dino | Jacobi | 60 → – | 1.200 → – | 150 → – | 3.000 → – |");
    /* The free-flight, floor and stiffness sections carry their tables' numbers. */
    assert_contains(text, "| arap | 3 | 3 | rigid | 4.41 | 0.978 | 0.936 | 0.967 | 0.9 |  |");
    assert_contains(text, "| springs | 3 | 3 | rigid | – | – | – | – | – | refused: no |");
    assert_contains(text, "arap keeps 97.8 % of the reference's");
    assert_contains(text, "some: 1.16 times the reference's after 3.3 s");
    assert_contains(text, "| fig5 | substep | 20.9 | 107 | 1.81 | 308 | 0.923 | 0.092 |");
    assert_contains(text, "the bar hangs 2.27 times as low as it should at 8k");
    assert_contains(text, "| 64 | 3.2×10<sup>10</sup> | 309 | 118 | 120 | 192 |");
    assert_contains(text, "62.8 times at 64k");
    assert_contains(text, "| fig5 | vbd | 25.7 | 70.8 | 0 | 0 | 0.829 | 4.26 |");
    /* Table 1: the paper's eight rows, each with ours under it. */
    int ours = 0;
    for (const char *p = strstr(text, "| | | ours | 10 |"); p; p = strstr(p + 1, "| | | ours | 10 |"))
        ++ours;
    assert_int_equal(ours, 8);
    assert_contains(text, "| | | ours, face rule | 10 | 4 | 100 | 200 | 6 × 2 | 8.000 | 4.000 | 8.000 | 20.000 | 15.000 |");
    /* The deviations quote the runs' parameters and the paper's counts. */
    assert_contains(text, "with ρ = 1000 kg/m³");
    assert_contains(text, "g = (0, -9.81, 0) m/s²");
    assert_contains(text, "Fig. 6 sheet k = 1×10<sup>7</sup>, bunny k =\n  2×10<sup>7</sup>");
    assert_contains(text, "(the paper's:\n  100 and 261)");
    free(text);

    /* The depfile names the template and every input under their paths. */
    char *deps = read_in_dir("report/REPORT.md.d");
    assert_contains(deps, "/report/REPORT.md: \\\n  reports/REPORT.md.in \\\n");
    snprintf(row, sizeof row, "  %s/results/fig6/rod.h5 \\\n", dir);
    assert_contains(deps, row);
    snprintf(row, sizeof row, "  %s/report/figures/fig7-contacts.png \\\n", dir);
    assert_contains(deps, row);
    snprintf(row, sizeof row, "\n%s/results/table1/bench.csv:\n", dir);
    assert_contains(deps, row);
    free(deps);
}

/* Moves an input away, runs the report, checks that it failed naming the file and the make
 * target and wrote nothing, and puts the input back. */
static void assert_fails_without(const char *input, const char *placeholder, const char *target)
{
    char from[1024], to[1100];
    snprintf(from, sizeof from, "%s/%s", dir, input);
    snprintf(to, sizeof to, "%s.away", from);
    assert_int_equal(rename(from, to), 0);
    assert_int_equal(report("reports/REPORT.md.in", "missing.md"), 74);
    assert_int_equal(rename(to, from), 0);
    char *err = read_in_dir("report/missing.md.err");
    char expected[1200];
    snprintf(expected, sizeof expected, "opsim-report: reports/REPORT.md.in:");
    assert_contains(err, expected);
    assert_contains(err, placeholder);
    snprintf(expected, sizeof expected, "%s: no such file (`make %s` writes it)\n", from, target);
    assert_contains(err, expected);
    free(err);
    assert_false(exists("report/missing.md"));
    assert_false(exists("report/missing.md.d"));
    assert_int_equal(test_shell("ls '%s/report' | grep -q tmp", dir), 1);
}

/* Counts the markdown tables of `text`: a '|' line followed by a separator row. */
static int markdown_tables(const char *text)
{
    int count = 0;
    for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *next = strchr(line, '\n');
        if (line[0] == '|' && next && strncmp(next + 1, "|---", 4) == 0)
            ++count;
    }
    return count;
}

/* --tex-dir: every markdown table of the report as report-HEADING-N.tex, set by report_tex.h,
 * an earlier report's stale report-*.tex removed, the other .tex there kept. */
static void test_report_tables_as_tex(void **state)
{
    (void)state;
    make_dir("report/tables");
    write_file("report/tables/report-gone-1.tex", "stale\n");
    write_file("report/tables/table1.tex", "kept\n");
    assert_int_equal(test_shell("bin/opsim-report report --template reports/REPORT.md.in --results '%s/results' "
                                "--paper reports/paper_table1.tsv --flags '%s/flags' --figures figures "
                                "--tex-dir '%s/report/tables' --out '%s/report/TEX.md'",
                                dir, dir, dir, dir),
                     0);
    assert_false(exists("report/tables/report-gone-1.tex"));
    assert_true(exists("report/tables/table1.tex"));
    char *report_text = read_in_dir("report/TEX.md");
    int tables = markdown_tables(report_text);
    assert_true(tables > 40);
    assert_int_equal(test_shell("test $(ls '%s/report/tables' | grep -c '^report-.*\\.tex$') -eq %d", dir, tables), 0);
    /* Fig. 2's table: a code cell, an identifier with its underscore escaped, the stiffness
     * written 5×10<sup>8</sup> read as a number in an S column, the headers in words */
    char *fig2 = read_in_dir("report/tables/report-fig-2-stiffness-k-2k-4k-1.tex");
    assert_contains(fig2, "% generated by opsim-report report from ");
    assert_contains(fig2, "\\begin{tabular}{@{}llS[table-format=1e1]");
    assert_contains(fig2, "\\toprule\nrun & bar & {k} & ");
    assert_contains(fig2, "tip deflection \\\\ (mm)");
    assert_contains(fig2, "\\texttt{fig2} & bar\\_k & 5e8 & 400 & 2 & 1 \\\\\n");
    assert_contains(fig2, "\\texttt{fig2} & bar\\_4k & 2e9 & 100 & {--} & 1 \\\\\n");
    /* a superscript in a word cell stays a superscript: Fig. 4's "10<sup>-12</sup>" */
    char *fig4 = read_in_dir("report/tables/report-fig-4-the-dinosaur-returns-from-an-1.tex");
    assert_contains(fig4, "more than 10\\textsuperscript{-12} of the largest energy");
    assert_contains(fig4, "Gauss--Seidel rotations & 0 of 30 (");
    free(fig4);
    /* no raw markdown, and no Unicode outside the comments, left for pdflatex */
    assert_int_equal(test_shell("! grep -l -e '<sup>' -e '\\*\\*' -e '`' '%s'/report/tables/report-*.tex", dir), 0);
    assert_int_equal(test_shell("! cat '%s'/report/tables/report-*.tex | grep -v '^%%' | LC_ALL=C grep -P '[^\\x00-\\x7F]'", dir), 0);
    /* a word table: the Provenance table's keys left, its words escaped */
    char *provenance = read_in_dir("report/tables/report-provenance-1.tex");
    assert_contains(provenance, "\\begin{tabular}{@{}l");
    assert_contains(provenance, "\nopsim & ");
    free(provenance);
    free(fig2);
    free(report_text);
}

static void test_missing_input_fails_naming_placeholder_and_file(void **state)
{
    (void)state;
    assert_fails_without("results/fig6/bunny.h5", ": {{run fig6/bunny substeps}}: ", "fig6");
    assert_fails_without("results/fig7/models180.h5", ": {{run fig7/models180 models}}: ", "fig7");
    assert_fails_without("results/table1/bench.csv", ": {{bench fig1 threads}}: ", "table1");
    assert_fails_without("results/fig3/steady.tsv", ": {{steady.table}}: ", "fig3");
    assert_fails_without("results/meshless/spring.tsv", ": {{tsv.table meshless/spring.tsv}}: ", "meshless");
    assert_fails_without("report/figures/fig7-contacts.png", ": {{figure fig7-contacts}}: ", "fig7");
    assert_fails_without("report/convergence.md", ": {{link convergence.md}}: ", "convergence");
}

/* A template error names the template's line and the placeholder; an existing report is left
 * as it was. */
static void assert_template_fails(const char *template_text, const char *message)
{
    write_file("bad.md.in", template_text);
    write_file("report/old.md", "the previous report\n");
    char template[600];
    snprintf(template, sizeof template, "%s/bad.md.in", dir);
    assert_int_equal(report(template, "old.md"), 65);
    char *err = read_in_dir("report/old.md.err"), *old = read_in_dir("report/old.md");
    assert_contains(err, message);
    assert_string_equal(old, "the previous report\n");
    free(err);
    free(old);
}

static void test_template_errors_name_line_and_placeholder(void **state)
{
    (void)state;
    assert_template_fails("# title\n\n{{no_such_number fig1/bar}}\n",
                          "bad.md.in:3: {{no_such_number fig1/bar}}: unknown placeholder 'no_such_number'");
    assert_template_fails("{{version}}\n{{run fig1/bar}}\n", "bad.md.in:2: {{run fig1/bar}}: usage: {{run RUN FIELD [UNIT]}}");
    assert_template_fails("{{run fig1/bar colour}}\n", "bad.md.in:1: {{run fig1/bar colour}}: no run field 'colour'");
    assert_template_fails("{{run fig1/bar min_radius inch}}\n", "unknown unit 'inch'");
    assert_template_fails("{{observable fig1/bar no_such max}}\n", "no dataset /observables/no_such/value");
    assert_template_fails("a\nb {{run fig1/bar\nparticles}}\n", "bad.md.in:2: '{{' without '}}' on the same line");
}

/* {{tsv.table}} and {{tsv}}: any experiment's table, its columns named by its '#' line, numbers
 * formatted as the report's, text as it is; a missing row or column is named. */
/* The cell of `column` (by the header's names) in a CSV row; both split in place by commas. */
static const char *csv_cell(char *const *header, int columns, char *const *cells, const char *column)
{
    for (int c = 0; c < columns; ++c)
        if (strcmp(header[c], column) == 0)
            return cells[c];
    fail_msg("no column %s", column);
    return NULL;
}

static int csv_split(char *line, char **cells, int max)
{
    int count = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *cell = line; cell && count < max; ++count) {
        cells[count] = cell;
        char *comma = strchr(cell, ',');
        if (comma)
            *comma = '\0';
        cell = comma ? comma + 1 : NULL;
    }
    return count;
}

/* The CSV `name` in the test's directory, open after its header row: the row into header_line
 * (4096 bytes), split into header[64], *columns cells. */
static FILE *open_csv(const char *name, char *header_line, char **header, int *columns)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(header_line, 4096, f));
    *columns = csv_split(header_line, header, 64);
    return f;
}

/* bench_scenes' real CSV (two short runs, the second on the face rule's graphs) read back by its
 * header: every row as many cells as the header, each value where its column says, and Table 1
 * written from it. */
/* The number of cells in a LaTeX row: its '&' outside braces, plus one. */
static int tex_row_cells(const char *row)
{
    int cells = 1, depth = 0;
    for (; *row && *row != '\n'; ++row) {
        depth += *row == '{' ? 1 : *row == '}' ? -1 : 0;
        cells += *row == '&' && depth == 0;
    }
    return cells;
}

/* Table 1 as LaTeX from the stand-in bench.csv: eleven columns in the spec and in every row,
 * the paper's row from paper_table1.tsv, ours with the ratio of the paper's total over ours
 * (26.24 / 25 ms), the face rule's row where its edges differ, and the time per bar. */
static void test_table1_tex_has_its_columns_and_rows(void **state)
{
    (void)state;
    assert_int_equal(test_shell("bin/opsim-report table1-tex --paper reports/paper_table1.tsv --bench "
                                "'%s/results/table1/bench.csv' --out '%s/table1.tex'",
                                dir, dir),
                     0);
    char *text = read_in_dir("table1.tex");
    assert_contains(text, "table* (both columns)");
    assert_contains(text, "\\begingroup\\setlength{\\tabcolsep}{3.5pt}\n"
                          "\\begin{tabular}{@{}lclS[table-format=5]S[table-format=6]cS[table-format=2.3]"
                          "S[table-format=2.3]S[table-format=2.3]S[table-format=3.3]S[table-format=2.1]@{}}");
    assert_contains(text, "52 models & 7 & paper & 4120 & 18574 & $6 \\times 2$ & 7.86 & 2.91 & 15.46 & 26.24 & \\\\\n"
                          " & & ours & 10 & 9 & $6 \\times 2$ & 10.000 & 5.000 & 10.000 & 25.000 & 1.0 \\\\\n"
                          " & & face rule & 10 & 4 & $6 \\times 2$ & 8.000 & 4.000 & 8.000 & 20.000 & 1.3 \\\\\n");
    /* a name over 12 characters split between the paper's row and ours */
    assert_contains(text, "Bar & 1 & paper & 20 & 19 & $1 \\times 10$ & 0.27 & 0.07 & {--} & 0.34 & \\\\\n"
                          "manipulation & & ours & 10 & 9 & $6 \\times 2$");
    assert_contains(text, "\\bottomrule\n\\end{tabular}\n\\endgroup\n");
    assert_null(strstr(text, "scriptsize")); /* no intervals in this bench file: no row for them */
    assert_contains(text, " & & per bar & & & & & & & 8.333 & 0.0 \\\\\n");
    int rows = 0;
    for (const char *line = strstr(text, "\\midrule\n") + 9; strncmp(line, "\\bottomrule", 11) != 0;
         line = strchr(line, '\n') + 1) {
        if (strncmp(line, "\\addlinespace", 13) == 0)
            continue;
        assert_int_equal(tex_row_cells(line), 11);
        ++rows;
    }
    assert_int_equal(rows, 8 + 8 + 1 + 1); /* paper and ours per example, one face rule, one per bar */
    free(text);
}

/* The .tex Table 1 from bench rows with intervals: beneath each of our rows its four medians'
 * 95 % intervals as table1.md prints them (three places), a dagger on the noisy ones (the 180
 * models' collision; every cell of the face rule's one repetition), in the time columns. */
static void test_table1_tex_has_the_intervals(void **state)
{
    (void)state;
    write_file("pile-tex.csv", PILE_BENCH);
    assert_int_equal(test_shell("bin/opsim-report table1-tex --paper reports/paper_table1.tsv --bench "
                                "'%s/pile-tex.csv' --out '%s/pile.tex'",
                                dir, dir),
                     0);
    char *text = read_in_dir("pile.tex");
    assert_contains(text, "\\dagger where its half-width is over 5 % of the median");
    assert_contains(text, "52 models & 7 & paper & 4120 & 18574 & $6 \\times 2$ & 7.86 & 2.91 & 15.46 & 26.24 & \\\\\n"
                          " & & ours & 4120 & 18088 & $6 \\times 2$ & 1.000 & 0.500 & 1.000 & 3.000 & 8.7 \\\\\n"
                          " & & & & & & {\\scriptsize 0.990--1.010} & {\\scriptsize 0.490--0.510} & "
                          "{\\scriptsize 0.980--1.020} & {\\scriptsize 2.950--3.050} & \\\\\n"
                          " & & face rule & 4120 & 12278 & $6 \\times 2$ & 0.700 & 0.400 & 1.000 & 2.500 & 10.5 \\\\\n"
                          " & & & & & & {\\scriptsize 0.700--0.700\\rlap{$^\\dagger$}} & "
                          "{\\scriptsize 0.400--0.400\\rlap{$^\\dagger$}} & {\\scriptsize 1.000--1.000\\rlap{$^\\dagger$}} & "
                          "{\\scriptsize 2.500--2.500\\rlap{$^\\dagger$}} & \\\\\n");
    assert_contains(text, " & & ours & 4404 & 17916 & $6 \\times 2$ & 1.000 & 0.500 & 1.300 & 3.100 & 8.8 \\\\\n"
                          " & & & & & & {\\scriptsize 0.990--1.010} & {\\scriptsize 0.490--0.510} & "
                          "{\\scriptsize 1.100--1.500\\rlap{$^\\dagger$}} & {\\scriptsize 3.000--3.200} & \\\\\n");
    /* every row of the body eleven cells, the intervals' rows included */
    int rows = 0, interval_rows = 0;
    for (const char *line = strstr(text, "\\midrule\n") + 9; strncmp(line, "\\bottomrule", 11) != 0;
         line = strchr(line, '\n') + 1) {
        if (strncmp(line, "\\addlinespace", 13) == 0)
            continue;
        assert_int_equal(tex_row_cells(line), 11);
        interval_rows += strstr(line, "scriptsize") != NULL && strstr(line, "scriptsize") < strchr(line, '\n');
        ++rows;
    }
    assert_int_equal(interval_rows, 3);
    assert_int_equal(rows, 8 + 3 + 3); /* the paper's eight, our three rows and their intervals */
    free(text);
}

static void test_bench_csv_parses_by_its_header(void **state)
{
    (void)state;
    assert_int_equal(test_shell("OMP_NUM_THREADS=1 bin/bench/bench_scenes -w 1 -r 1 -f 2 -s fig1 -s fig2 -o '%s/b.csv' "
                                "> /dev/null && OMP_NUM_THREADS=1 bin/bench/bench_scenes -w 1 -r 1 -f 2 -s fig1 "
                                "-e faces -o '%s/f.csv' > /dev/null && tail -n +2 '%s/f.csv' >> '%s/b.csv'",
                                dir, dir, dir, dir),
                     0);
    char header_line[4096], line[4096], *header[64], *cells[64];
    int columns, rows = 0;
    FILE *f = open_csv("b.csv", header_line, header, &columns);
    assert_true(columns > 20);
    static const char *const want[][5] = { /* edge_rule, example, per, nodes, edges */
        { "catalogue", "Bar manipulation", "scene", "20", "19" }, { "catalogue", "Bar stiffness", "scene", "60", "57" },
        { "catalogue", "Bar stiffness", "body", "20", "19" },     { "faces", "Bar manipulation", "scene", "20", "19" }
    };
    while (fgets(line, sizeof line, f)) {
        assert_true(rows < 4);
        assert_int_equal(csv_split(line, cells, 64), columns);
        assert_string_equal(csv_cell(header, columns, cells, "edge_rule"), want[rows][0]);
        assert_string_equal(csv_cell(header, columns, cells, "example"), want[rows][1]);
        assert_string_equal(csv_cell(header, columns, cells, "per"), want[rows][2]);
        assert_string_equal(csv_cell(header, columns, cells, "nodes"), want[rows][3]);
        assert_string_equal(csv_cell(header, columns, cells, "edges"), want[rows][4]);
        char *end;
        double total = strtod(csv_cell(header, columns, cells, "total_ms"), &end);
        assert_true(*end == '\0' && total > 0.0);
        assert_string_equal(csv_cell(header, columns, cells, "frames"), "2");
        /* the paper's collision time of the bar is "-": an empty cell. One thread measures no
         * cores; Fig. 2's three bars have a contact stage, on the (one-thread) team in every frame,
         * Fig. 1's one bar none. */
        assert_string_equal(csv_cell(header, columns, cells, "paper_collision_ms"), "");
        assert_string_equal(csv_cell(header, columns, cells, "handoff_ns"), "");
        assert_string_equal(csv_cell(header, columns, cells, "contacts_one_thread"),
                            strcmp(want[rows][1], "Bar stiffness") == 0 ? "0.000" : "");
        /* one repetition: its interval is the median itself, and noisy (too few to tell);
         * the machine named, no setting compared */
        assert_string_equal(csv_cell(header, columns, cells, "total_lo_ms"), csv_cell(header, columns, cells, "total_ms"));
        assert_string_equal(csv_cell(header, columns, cells, "total_hi_ms"), csv_cell(header, columns, cells, "total_ms"));
        assert_string_equal(csv_cell(header, columns, cells, "total_noisy"), "1");
        assert_true(strtod(csv_cell(header, columns, cells, "repeat_wall_s"), NULL) > 0.0);
        assert_string_not_equal(csv_cell(header, columns, cells, "cpu"), "");
        assert_string_equal(csv_cell(header, columns, cells, "setting"), "");
        ++rows;
    }
    fclose(f);
    assert_int_equal(rows, 4);
    assert_int_equal(test_shell("bin/opsim-report table1 --paper reports/paper_table1.tsv --bench '%s/b.csv' "
                                "--flags build/flags --out '%s/t1.md'",
                                dir, dir),
                     0);
    char *table = read_in_dir("t1.md");
    assert_contains(table, "| | | ours | 20 | 19 | 674 | 672 | 1 × 10 |");
    assert_contains(table, "1 run(s) of 2 frames each");
    assert_null(strstr(table, "| | | ours, face rule |")); /* the bar's graphs are the same under both */
    assert_null(strstr(table, "Where the contacts between bodies ran"));
    free(table);

    /* a pile's row: each time with its interval (the 180 models' collision noisy), the ratio with
     * the CPU it was measured on, trade marks dropped, and where its contacts ran */
    write_file("pile.csv", PILE_BENCH);
    assert_int_equal(test_shell("bin/opsim-report table1 --paper reports/paper_table1.tsv --bench '%s/pile.csv' "
                                "--flags build/flags --out '%s/t2.md'",
                                dir, dir),
                     0);
    table = read_in_dir("t2.md");
    assert_contains(table, "Ours: Intel Xeon Platinum 8480C, 2 thread(s)");
    /* the paper's 26.24 ms over 3.0, 27.14 over 3.1 */
    assert_contains(table, "| | | ours | 4120 | 18088 | 1 | 1 | 6 × 2 | 1.000 (0.990–1.010) | 0.500 (0.490–0.510) | "
                           "1.000 (0.980–1.020) | 3.000 (2.950–3.050) | 9.000 | 8.7× on Intel Xeon Platinum 8480C |\n");
    assert_contains(table, "| 1.300 (1.100–1.500) † | 3.100 (3.000–3.200) | 9.000 | 8.8× on Intel Xeon Platinum "
                           "8480C |\n");
    assert_contains(table, "| | | ours, face rule | 4120 | 12278 |");
    assert_contains(table, "In this run: 52 models, hand-over 212 ns (median), every contact call on one thread in "
                           "60.0 % of the frames; 180 models, hand-over 210 ns (median), every contact call on one "
                           "thread in 100.0 % of the frames.");
    free(table);
}

/* -c compares settings interleaved: a row per setting, the repetitions in turn (one, all, one,
 * all, as -v prints them), each row's contacts where its setting put them. */
static void test_bench_compares_settings_interleaved(void **state)
{
    (void)state;
    assert_int_equal(test_shell("OMP_NUM_THREADS=2 bin/bench/bench_scenes -w 1 -r 2 -f 3 -s fig2 -v "
                                "-c world.collision_threads=one,all -o '%s/s.csv' > /dev/null 2> '%s/s.log'",
                                dir, dir),
                     0);
    char *log = read_in_dir("s.log");
    const char *order[] = { "collision_threads=one repetition 0", "collision_threads=all repetition 0",
                            "collision_threads=one repetition 1", "collision_threads=all repetition 1" };
    const char *at = log;
    for (int k = 0; k < 4; ++k) {
        const char *next = strstr(at, order[k]);
        if (!next)
            fail_msg("no \"%s\" after the earlier repetitions in:\n%s", order[k], log);
        at = next + 1;
    }
    free(log);
    char header_line[4096], line[4096], *header[64], *cells[64];
    int columns, rows = 0;
    FILE *f = open_csv("s.csv", header_line, header, &columns);
    while (fgets(line, sizeof line, f)) {
        assert_int_equal(csv_split(line, cells, 64), columns);
        if (strcmp(csv_cell(header, columns, cells, "per"), "scene") != 0)
            continue;
        const char *setting = csv_cell(header, columns, cells, "setting");
        assert_string_equal(setting, rows == 0 ? "world.collision_threads=one" : "world.collision_threads=all");
        assert_string_equal(csv_cell(header, columns, cells, "contacts_one_thread"), rows == 0 ? "1.000" : "0.000");
        assert_string_equal(csv_cell(header, columns, cells, "handoff_ns"), "");
        ++rows;
    }
    fclose(f);
    assert_int_equal(rows, 2);
    assert_int_not_equal(test_shell("bin/bench/bench_scenes -c world.collision_threads= > /dev/null 2>&1"), 0);
}

static void test_tsv_placeholders_read_any_table(void **state)
{
    (void)state;
    make_dir("results/anything");
    write_file("results/anything/table.tsv", "# scene\tmethod\tsink_m\n# a comment line\n"
                                             "dino\tgs\t0.0215\nbunny\tjacobi\t1.5e-7\n");
    write_file("tsv.md.in", "{{tsv.table anything/table.tsv}}\nsink {{tsv anything/table.tsv dino sink_m mm}} mm, "
                            "{{tsv anything/table.tsv bunny method}}\n");
    char template[600];
    snprintf(template, sizeof template, "%s/tsv.md.in", dir);
    assert_int_equal(report(template, "tsv.md"), 0);
    char *text = read_in_dir("report/tsv.md");
    assert_string_equal(text, "| scene | method | sink_m |\n|---|---:|---:|\n| dino | gs | 0.0215 |\n"
                              "| bunny | jacobi | 1.5×10<sup>-7</sup> |\nsink 21.5 mm, jacobi\n");
    free(text);
    /* the tidy format: a plain header line; a missing number set as "–", an empty word left empty */
    write_file("results/anything/tidy.tsv", "scene\tmethod\tsink_m\tnote\ndino\tgs\t\tnone seen\n"
                                            "bunny\tjacobi\t1.5e-7\t\n");
    write_file("tidy.md.in", "{{tsv.table anything/tidy.tsv}}\n{{tsv anything/tidy.tsv bunny sink_m mm}}\n");
    snprintf(template, sizeof template, "%s/tidy.md.in", dir);
    assert_int_equal(report(template, "tidy.md"), 0);
    text = read_in_dir("report/tidy.md");
    assert_string_equal(text, "| scene | method | sink_m | note |\n|---|---:|---:|---:|\n| dino | gs | – | none seen |\n"
                              "| bunny | jacobi | 1.5×10<sup>-7</sup> |  |\n1.5×10<sup>-4</sup>\n");
    free(text);
    assert_template_fails("{{tsv anything/table.tsv horse sink_m}}\n", "anything/table.tsv: no row starts with 'horse'");
    assert_template_fails("{{tsv anything/table.tsv dino depth}}\n", "no column 'depth' in row 'dino'");
}

/* opsim-report scaling: series by config and setting, sorted by size, the log-log slopes of
 * values made to follow known powers, bodies as the size where the body count varies, the linear
 * solves' bytes per particle where the CSV has them ("–" where its cell is empty), and the
 * gnuplot blocks */
static void test_scaling_table_fits_slopes(void **state)
{
    (void)state;
    static const char header[] = "edge_rule,example,config,per,bodies,nodes,edges,vertices,faces,ns,ni,warmup,repeats,"
                                 "frames,threads,local_ms,global_ms,collision_ms,total_ms,skinning_ms,peak_rss_kb,"
                                 "setting,solve_bytes\n";
#define SCALING_ROW(config, bodies, nodes, total, rss, setting, solve)                                                \
    "catalogue,x," config ",scene," bodies "," nodes ",1,1,1,1,1,1,1,1,1,0,0,0," total ",0," rss "," setting "," solve "\n"
    char text[3][1024];
    /* ms = 1e-3 n² (slope 2), µs per particle-iteration = 1e3 ms / n = n (slope 1), RSS flat,
     * solve bytes per particle 100, 200, 400 (slope log 2 / log 10 = 0.30); written largest first
     * to see the sort */
    snprintf(text[0], sizeof text[0], "%s" SCALING_ROW("experiments/fig5.ini", "1", "10000", "100000", "2048",
                                                       "solver.name=arap", "4000000"),
             header);
    snprintf(text[1], sizeof text[1],
             "%s" SCALING_ROW("experiments/fig5.ini", "1", "100", "10", "2048", "solver.name=arap", "10000")
                 SCALING_ROW("experiments/fig5.ini", "1", "1000", "1000", "2048", "solver.name=arap", "200000"),
             header);
    /* 10 and 100 bodies of 30 particles: ms 1 and 20 (slope 1.30), µs 1e3/300 and 2e4/3000
     * (slope 0.30), RSS 1 and 10 MB (slope 1.00) */
    snprintf(text[2], sizeof text[2],
             "%s" SCALING_ROW("experiments/pile-10000.ini", "100", "3000", "20", "10240", "solver.name=rigid", "")
                 SCALING_ROW("experiments/pile-10000.ini", "10", "300", "1", "1024", "solver.name=rigid", ""),
             header);
#undef SCALING_ROW
    write_file("s0.csv", text[0]);
    write_file("s1.csv", text[1]);
    write_file("s2.csv", text[2]);
    assert_int_equal(test_shell("bin/opsim-report scaling --out '%s/scaling.md' --data '%s/sc' '%s/s0.csv' "
                                "'%s/s1.csv' '%s/s2.csv'",
                                dir, dir, dir, dir, dir),
                     0);
    char *table = read_in_dir("scaling.md");
    assert_contains(table, "**experiments/fig5.ini solver.name=arap** against particles");
    assert_contains(table, "| 100 | 1 | 10.000 | 100.0000 | 2.0 | 100 |\n| 1000 | 1 | 1000.000 | 1000.0000 | 2.0 | 200 |\n"
                           "| 10000 | 1 | 100000.000 | 10000.0000 | 2.0 | 400 |\n"
                           "| log-log slope | | 2.00 | 1.00 | 0.00 | 0.30 |");
    assert_contains(table, "**experiments/pile-10000.ini solver.name=rigid** against bodies");
    assert_contains(table, "| 300 | 10 | 1.000 | 3.3333 | 1.0 | – |");
    assert_contains(table, "| log-log slope | | 1.30 | 0.30 | 1.00 | – |");
    free(table);
    char *bodies = read_in_dir("sc-bodies.dat"), *particles = read_in_dir("sc-particles.dat");
    assert_string_equal(bodies, "\"experiments/pile-10000.ini solver.name=rigid\"\tms\tus\tMB\tsolve_B_per_particle\n"
                                "10\t1\t3.33333\t1\tNaN\n100\t20\t6.66667\t10\tNaN\n");
    assert_contains(particles, "10000\t100000\t10000\t2\t400\n");
    free(bodies);
    free(particles);
    /* a CSV without the size columns is refused, nothing written */
    write_file("bad.csv", "edge_rule,config,per,total_ms\ncatalogue,x,scene,1\n");
    assert_int_not_equal(test_shell("bin/opsim-report scaling --out '%s/bad.md' --data '%s/bad' '%s/bad.csv' 2>/dev/null",
                                    dir, dir, dir),
                         0);
    assert_false(exists("bad.md"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_has_every_section_table_and_picture),
        cmocka_unit_test(test_report_tables_as_tex),
        cmocka_unit_test(test_missing_input_fails_naming_placeholder_and_file),
        cmocka_unit_test(test_template_errors_name_line_and_placeholder),
        cmocka_unit_test(test_tsv_placeholders_read_any_table),
        cmocka_unit_test(test_table1_tex_has_its_columns_and_rows),
        cmocka_unit_test(test_table1_tex_has_the_intervals),
        cmocka_unit_test(test_bench_csv_parses_by_its_header),
        cmocka_unit_test(test_bench_compares_settings_interleaved),
        cmocka_unit_test(test_scaling_table_fits_slopes),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
