# Fig. 5's dinosaur with `meshless` at its defaults (experiments/meshless.mk, meshless-alias),
# from a run that stored every sub-step's state: over the last 9 frames, per sub-step
# (`opsim-report alias-series`, reports/report_alias.h, computed from the run file in C), the
# log's momentum term E^k (Eq. 4, m|x − y|²/2h²) and the kinetic energy ½mv² between
# consecutive stored states, and the swing of
# the particle that moves most, each with the stored frames' sub-steps marked. Eq. 9 is
# undamped: its energy swings with a period of one frame, so the frames sample it in one phase,
# and the shape with a period of two frames (6 sub-steps), of which the frames see two phases.
# usage: gnuplot -e "series='data/results/meshless/alias-series.tsv'; out='meshless-alias'" plots/meshless-alias.gp
load "plots/style.gp"
set datafile separator "\t"
set datafile columnheaders
do for [format in "png pdf"] {
    if (format eq "png") { set terminal pngcairo size 1200,480 font "sans,11" } \
    else { set terminal pdfcairo size 10in,4in font "sans,9" }
    set output out.".".format
    set multiplot layout 1,2 title "Fig. 5 with meshless at its defaults (Eq. 9, goals = start): the last 0.3 s, every sub-step stored"
    set xlabel "time (s)"
    set grid
    set ylabel "energy (J)"
    set key top center
    set offsets 0, 0, graph 0.25, graph 0.05
    plot series using 2:4 with linespoints lc rgb "#1f77b4" pt 7 ps 0.5 title "E^k logged after every sub-step", \
         series using 2:5 with linespoints lc rgb "#E69F00" pt 5 ps 0.5 title "½mv² between stored sub-step states", \
         series using 2:($3 == 1 ? $5 : 1/0) with points lc rgb "black" pt 6 ps 1.5 title "at the stored frames"
    set ylabel "swing of the particle moving most (mm)"
    set offsets 0, 0, graph 0.2, graph 0.05
    plot series using 2:6 with linespoints lc rgb "#d62728" pt 7 ps 0.6 title "every sub-step", \
         series using 2:($3 == 1 ? $6 : 1/0) with linespoints lc rgb "black" pt 6 ps 1.5 title "the stored frames only"
    unset multiplot
    unset output
}
