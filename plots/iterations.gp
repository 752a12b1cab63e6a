# Local/global iterations with Gauss-Seidel against Jacobi rotation updates: the energy E of
# docs/design.md §1 (/solver/energy/total: per sub-step, column 0 before the first iteration, column k
# after the k-th) against the iteration within one frame, log scale. Writes OUT.png, OUT.pdf.
#
# Panels (each only when its runs are given):
#  (a) gs4long/jac4long: the Fig. 4 scene run for one frame with many iterations. Both solves
#      start from the same collapsed state, so their curves compare directly: E_k - E*, with
#      E* the lowest energy either reached (a converged reference; the last few iterations
#      are not shown, where E_k - E* is dominated by the error of E* itself).
#  (b) gs4/jac4: the Fig. 4 scene as configured, frame `frame4` (default 5).
#  (c) gs5/jac5: the Fig. 5 scene as configured, frame `frame5` (default 30, the dinosaur on
#      the floor), its sub-steps side by side (each sub-step minimises its own E).
#  In (b) and (c) each run continues from its own state at the start of that frame (the runs
#  differ after frame 1), so the curves show rates within the frame, not a race from one start.
# Every panel notes in how many sub-steps of the whole run E ever rose between iterations
# (Gauss-Seidel is a descent method: it must be 0; Jacobi need not be).
#
# usage: gnuplot -e "gs4='a.h5'; jac4='b.h5'; gs5='c.h5'; jac5='d.h5'; gs4long='e.h5'; \
#                    jac4long='f.h5'; out='reports/figures/fig5-iterations'" plots/iterations.gp
# options: frame4=5, frame5=30, long_max=200 (iterations shown in (a)), opsim='bin/opsim'
if (!exists("out")) {
    print "iterations.gp: give -e \"gs4=...; jac4=...; gs5=...; jac5=...; out='BASE'\""
    exit status 2
}
if (!exists("opsim")) opsim = "bin/opsim"
if (!exists("frame4")) frame4 = 5
if (!exists("frame5")) frame5 = 30
if (!exists("long_max")) long_max = 200
if (!exists("title")) title = "Energy against local/global iteration: Gauss-Seidel vs Jacobi rotation updates"
if (out[strlen(out)-3:] eq ".png" || out[strlen(out)-3:] eq ".pdf") out = out[1:strlen(out)-4]
have_a = exists("gs4long") && exists("jac4long")
have_b = exists("gs4") && exists("jac4")
have_c = exists("gs5") && exists("jac5")
panels = have_a + have_b + have_c
if (panels == 0) { print "iterations.gp: no pair of runs given"; exit status 2 }

tmp = system("mktemp -d")
ok = 1
substeps(run) = int(system(sprintf("%s export '%s' --attribute /parameters substeps", opsim, run)))
# The sub-steps of one frame, transposed: "x E substep" lines, each sub-step its own block; x
# runs on across sub-steps with a gap of one iteration.
frame_rows(run, frame, file) = system(sprintf("%s export '%s' /solver/energy/total | awk -v first=%d -v S=%d 'NR > first && NR <= first + S { s = NR - first - 1; for (i = 1; i <= NF; i++) print s * (NF + 1) + i - 1, $i, s + 1; print \"\"; print \"\" } END { if (NR < first + S) exit 3 }' > %s/%s", opsim, run, (frame - 1) * substeps(run), substeps(run), tmp, file))
# Sub-steps of the whole run in which E rose between consecutive iterations (beyond 1e-9 J).
rises(run) = int(system(sprintf("%s export '%s' /solver/energy/total | awk '{ up = 0; for (i = 2; i <= NF; i++) if ($i - $(i-1) > 1e-9 + 1e-12 * ($(i-1) < 0 ? -$(i-1) : $(i-1))) up = 1; n += up } END { print n + 0 }'", opsim, run)))
rows(run) = int(system(sprintf("%s export '%s' /solver/energy/total | wc -l", opsim, run)))
rise_text(gs, jac) = sprintf("E rose between iterations in %d of %d sub-steps (GS), %d of %d (Jacobi)", rises(gs), rows(gs), rises(jac), rows(jac))

if (have_a) {
    dummy = frame_rows(gs4long, 1, "a_gs"); ok = ok && GPVAL_SYSTEM_ERRNO == 0
    dummy = frame_rows(jac4long, 1, "a_jac"); ok = ok && GPVAL_SYSTEM_ERRNO == 0
    iters_a = int(system(sprintf("wc -l < %s/a_gs", tmp))) - 3
}
if (have_b) {
    dummy = frame_rows(gs4, frame4, "b_gs"); ok = ok && GPVAL_SYSTEM_ERRNO == 0
    dummy = frame_rows(jac4, frame4, "b_jac"); ok = ok && GPVAL_SYSTEM_ERRNO == 0
}
if (have_c) {
    dummy = frame_rows(gs5, frame5, "c_gs"); ok = ok && GPVAL_SYSTEM_ERRNO == 0
    dummy = frame_rows(jac5, frame5, "c_jac"); ok = ok && GPVAL_SYSTEM_ERRNO == 0
}
if (!ok) {
    dummy = system("rm -rf ".tmp)
    print "iterations.gp: cannot read /solver/energy/total at the frames asked for (was log_energy off, or the frame past the end?)"
    exit status 1
}
if (have_a) {
    stats tmp."/a_gs" using 2 nooutput
    e_star = STATS_min
    stats tmp."/a_jac" using 2 nooutput
    e_star = STATS_min < e_star ? STATS_min : e_star
    rise_a = rise_text(gs4long, jac4long)
    # the runs' iteration count, and how many of them the axis shows
    long_text = iters_a > long_max ? sprintf("the first %d of %d iterations", long_max, iters_a) \
                                   : sprintf("%d iterations", iters_a)
}
if (have_b) { rise_b = rise_text(gs4, jac4) }
if (have_c) {
    rise_c = rise_text(gs5, jac5)
    s5 = substeps(gs5)
    stats tmp."/c_gs" using 1 nooutput
    c_xmax = STATS_max
    c_iters = int(system(sprintf("%s export '%s' /solver/energy/total | awk 'NR == 1 { n = NF - 1 } END { print n }'", opsim, gs5)))
}

load "plots/style.gp"
set grid lc rgb "#e6e6e6"
set logscale y
set format y "10^{%T}"
set key top right box opaque
# Labelled ticks at 1, 2, 3, 5 x 10^n: a narrow log range would otherwise show one label.
fine_ytics = 'set ytics (); do for [e = -3:6] { do for [m in "1 2 3 5"] { set ytics add (sprintf("%g", real(m) * 10**e) real(m) * 10**e) } }'
gs_style = "linespoints lt 3 pt 7 ps 0.7"
jac_style = "linespoints lt 1 pt 5 ps 0.7 dt 2"
# The PDF is the PNG at 96 dpi; fontscale 0.75 and linewidth 1.5 make its text and lines match
# the PNG's (checked by rasterising the PDF).
do for [ext in "png pdf"] {
    if (ext eq "png") {
        set terminal pngcairo enhanced size 560*panels, 560 font "sans,11"
    } else {
        set terminal pdfcairo enhanced size 560*panels/96.0, 560/96.0 font "sans,11" fontscale 0.75 linewidth 1.5
    }
    set output out.".".ext
    set multiplot layout 1, panels title title font ",13" margins 0.06, 0.99, 0.13, 0.86 spacing 0.07, 0
    if (have_a) {
        set title sprintf("(a) Fig. 4 scene, frame 1, same start state\n%s; E* = %.6g J", long_text, e_star) font ",11"
        set xlabel "iteration k"
        set ylabel "E_k − E* (J)"
        set xrange [0:long_max]
        set label 1 rise_a at graph 0.02, graph 0.04 font ",8" noenhanced
        plot tmp."/a_gs" using 1:($2 - e_star > 0 ? $2 - e_star : NaN) with lines lt 3 lw 2 title "Gauss-Seidel", \
             tmp."/a_jac" using 1:($2 - e_star > 0 ? $2 - e_star : NaN) with lines lt 1 lw 2 dt 2 title "Jacobi"
        unset label 1
    }
    if (have_b) {
        set title sprintf("(b) Fig. 4 scene (dinosaur inverted), frame %d\neach run from its own state", frame4) font ",11"
        set xlabel "iteration k"
        set ylabel "E_k (J)"
        set xrange [-0.3:*]
        set autoscale yfix
        set offsets 0, 0, graph 0.08, graph 0.08
        @fine_ytics
        set label 1 rise_b at graph 0.02, graph 0.04 font ",8" noenhanced
        plot tmp."/b_gs" using 1:2 with @gs_style title "Gauss-Seidel", \
             tmp."/b_jac" using 1:2 with @jac_style title "Jacobi"
        unset label 1
        set autoscale y
        set offsets 0, 0, 0, 0
        set ytics autofreq
    }
    if (have_c) {
        set title sprintf("(c) Fig. 5 scene (dinosaur on the floor), frame %d\n%d sub-steps side by side; each run from its own state", frame5, s5) font ",11"
        set xlabel "iteration k within sub-step 1, 2, 3 ..."
        set ylabel "E_k (J)"
        set xrange [-0.3:c_xmax + 0.3]
        set autoscale yfix
        set offsets 0, 0, graph 0.45, graph 0.12
        set key at graph 0.99, graph 0.90 top right
        @fine_ytics
        set xtics ()
        do for [sub = 0:s5-1] {
            do for [k = 0:c_iters] { set xtics add (sprintf("%d", k) sub*(c_iters + 2) + k) }
            set label 10 + sub sprintf("sub-step %d", sub + 1) at sub*(c_iters + 2) + c_iters/2.0, graph 0.96 center font ",9"
        }
        set label 1 rise_c at graph 0.02, graph 0.04 font ",8" noenhanced
        plot tmp."/c_gs" using 1:2 with @gs_style title "Gauss-Seidel", \
             tmp."/c_jac" using 1:2 with @jac_style title "Jacobi"
        unset label
        set key top right
        set xtics autofreq
        set autoscale y
        set offsets 0, 0, 0, 0
        set ytics autofreq
    }
    unset multiplot
    unset output
}
dummy = system("rm -rf ".tmp)
