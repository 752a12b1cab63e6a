# The scaling study (experiments/scaling.mk): ms per frame, µs per particle-iteration and peak
# resident memory against size, log-log, a curve per series (config and variant): the top row
# against particles (DATA-particles.dat), the bottom against bodies (DATA-bodies.dat), both
# written by opsim-report scaling (reports/report_scaling.h): a block per series headed by its
# name, columns size, ms, µs, MB. Writes OUT.png and OUT.pdf.
#
# usage: gnuplot -e "data='data/results/scaling/scaling'; out='reports/figures/scaling'" plots/scaling.gp
if (!exists("out") || !exists("data")) {
    print "scaling.gp: give -e \"data='PREFIX'; out='BASE'\""
    exit status 2
}
if (out[strlen(out)-3:] eq ".png" || out[strlen(out)-3:] eq ".pdf") out = out[1:strlen(out)-4]
load "plots/style.gp"
set grid lc rgb "#e6e6e6"
set logscale xy
set datafile separator "\t"
set key top left font ",8" noautotitle
kinds = "particles bodies"
ylabels = "\"ms per frame\" \"µs per particle-iteration\" \"peak RSS, MB\""
do for [ext in "png pdf"] {
    if (ext eq "png") {
        set terminal pngcairo enhanced size 1500, 900 font "sans,11"
    } else {
        set terminal pdfcairo enhanced size 1500/96.0, 900/96.0 font "sans,11" fontscale 0.75 linewidth 1.5
    }
    set output out.".".ext
    set multiplot layout 2, 3 title "Scaling: every variant against size (experiments/scaling.mk)"
    do for [k = 1:2] {
        file = data."-".word(kinds, k).".dat"
        # an empty series (SCALING_BODIES= for one) leaves STATS_blocks unset: "no data"
        undefine STATS_*
        stats file using 1 nooutput
        blocks = exists("STATS_blocks") ? STATS_blocks : 0
        set xlabel word(kinds, k)
        do for [c = 2:4] {
            set ylabel word(ylabels, c - 1)
            if (blocks > 0) {
                plot for [b = 0:blocks - 1] file index b using 1:c with linespoints title columnheader(1)
            } else {
                # fixed ranges: a log-scale plot of nothing cannot autoscale
                set label 1 "no data" at graph 0.5, 0.5 center
                plot [1:10] [1:10] NaN notitle
                unset label 1
            }
        }
    }
    unset multiplot
}
