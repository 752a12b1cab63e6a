# Fig. 5's dinosaur with `meshless` at its defaults (experiments/meshless.mk, meshless-alias): the
# kinetic energy after every sub-step's contacts (/solver/energy_after_contacts/kinetic) over the
# last 0.3 s, the stored frames' sub-steps marked, and the mass-weighted root-mean-square distance
# of each stored frame from the one before and from the one two before. Eq. 9 is undamped; its
# energy swings with a period of one frame, so the frames sample it in one phase, and the shape
# with a period of two, so the stored frames alternate between two shapes.
# usage: gnuplot -e "run='data/results/meshless/alias-defaults.h5'; out='meshless-alias'" plots/meshless-alias.gp
load "plots/style.gp"
substeps = int(system(sprintf("bin/opsim export '%s' --attribute /parameters substeps", run)))
frame_time = real(system(sprintf("bin/opsim export '%s' --attribute /parameters frame_time", run)))
steps = int(system(sprintf("bin/opsim export '%s' /solver/energy_after_contacts/kinetic | wc -l", run)))
last = 9 * substeps
kinetic = sprintf("< bin/opsim export '%s' /solver/energy_after_contacts/kinetic | awk -v first=%d -v h=%.17g '\
NR >= first { print NR * h, $1 }'", run, steps - last + 1, frame_time / substeps)
stored = sprintf("< bin/opsim export '%s' /solver/energy_after_contacts/kinetic | awk -v first=%d -v h=%.17g -v n=%d '\
NR >= first && NR %% n == 0 { print NR * h, $1 }'", run, steps - last + 1, frame_time / substeps, substeps)
mass = sprintf("bin/opsim export '%s' /graph/dino/mass", run)
motion = sprintf("< bin/opsim export '%s' /particles/position/value | awk -v T=%.17g -v frames=%d '\
BEGIN { cmd = \"%s\"; while ((cmd | getline v) > 0) { m[++p] = v; M += v } } \
{ for (c = 1; c <= NF; ++c) x[NR, c] = $c; rows = NR } \
END { for (f = rows - frames + 1; f <= rows; ++f) { d1 = 0; d2 = 0; for (c = 1; c <= 3 * p; ++c) { w = m[int((c + 2) / 3)]; \
d = x[f, c] - x[f - 1, c]; d1 += w * d * d; d = x[f, c] - x[f - 2, c]; d2 += w * d * d } \
print (f - 1) * T, 1000 * sqrt(d1 / M), 1000 * sqrt(d2 / M) } }'", run, frame_time, last / substeps, mass)
do for [format in "png pdf"] {
    if (format eq "png") { set terminal pngcairo size 1200,480 font "sans,11" } \
    else { set terminal pdfcairo size 10in,4in font "sans,9" }
    set output out.".".format
    set multiplot layout 1,2 title "Fig. 5 with meshless at its defaults (Eq. 9, goals = start): the last 0.3 s"
    set xlabel "time (s)"
    set grid
    set ylabel "kinetic energy (J)"
    set key top center
    set offsets 0, 0, graph 0.25, graph 0.05
    plot kinetic using 1:2 with linespoints lc rgb "#1f77b4" pt 7 ps 0.5 title "after every sub-step", \
         stored using 1:2 with points lc rgb "black" pt 6 ps 1.5 title "the stored frames' sub-steps"
    set ylabel "rms distance between stored frames (mm)"
    set offsets 0, 0, graph 0.05, 0
    set yrange [0:*]
    set key center right
    plot motion using 1:2 with linespoints lc rgb "#d62728" pt 7 ps 0.6 title "from the frame before", \
         motion using 1:3 with linespoints lc rgb "#2ca02c" pt 5 ps 0.6 title "from the frame two before"
    unset multiplot
    unset output
}
