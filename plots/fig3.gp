# Fig. 3: steady tip deflection of the pinned bar against the iteration count (left) and the
# time step (right), arap (Choi & Lee 2017) against shape matching with oriented particles
# (Müller & Chentanez 2011), meshless shape matching (Müller et al. 2005), xpbd (also in small
# steps) and vbd. Input: the table
# made by `make fig3` (method, iterations, frame time, steady deflection, spread).
# usage: gnuplot -e "table='steady.tsv'; out='fig3-stiffness'" plots/fig3.gp
load "plots/style.gp"
set datafile separator "\t"
do for [format in "png pdf"] {
    if (format eq "png") { set terminal pngcairo size 1200,480 font "sans,11" } \
    else { set terminal pdfcairo size 10in,4in font "sans,9" }
    set output out.".".format
    set multiplot layout 1,2 title "Fig. 3: steady tip deflection of a pinned bar (k = 1e9; shape matching alpha = 1)"
    set logscale x
    set xlabel "iterations per frame (h = 1/30 s)"
    set ylabel "steady tip deflection (m)"
    set yrange [0:*]
    set key top right
    set grid
    series(method, extra) = sprintf("< awk -F'\t' '$1 == \"%s\" %s' '%s' | sort -g -k2 -k3", method, extra, table)
    plot series("arap", "&& $3 > 0.03") using 2:4:5 with yerrorlines lt 1 pt 7 title "arap (ours)", \
         series("shape-matching", "&& $3 > 0.03") using 2:4:5 with yerrorlines lt 2 pt 5 title "shape matching", \
         series("meshless", "&& $3 > 0.03") using 2:4:5 with yerrorlines lt 3 pt 9 title "meshless (Eq. 9)", \
         series("xpbd", "&& $3 > 0.03") using 2:4:5 with yerrorlines lt 4 pt 11 title "xpbd", \
         series("xpbd-small", "&& $3 > 0.03") using 2:4:5 with yerrorlines lt 5 pt 13 title "xpbd, N sub-steps x 1", \
         series("vbd", "&& $3 > 0.03") using 2:4:5 with yerrorlines lt 6 pt 4 title "vbd"
    set xlabel "time step h (s)"
    set xrange [0.006:0.045]
    # the time steps studied, as fractions: a log axis this short has one decade tick (0.01)
    set xtics ("1/120" 1/120., "1/60" 1/60., "1/30" 1/30.)
    set key top left
    set title "arap, xpbd, vbd at 10 iterations;\nshape matching at 1000, meshless at 1"
    plot series("arap", "&& $2 == 10") using 3:4:5 with yerrorlines lt 1 pt 7 title "arap, 10 iterations", \
         series("shape-matching", "&& $2 == 1000") using 3:4:5 with yerrorlines lt 2 pt 5 title "shape matching, 1000 iterations", \
         series("meshless", "&& $2 == 1") using 3:4:5 with yerrorlines lt 3 pt 9 title "meshless, 1 iteration", \
         series("xpbd", "&& $2 == 10") using 3:4:5 with yerrorlines lt 4 pt 11 title "xpbd, 10 iterations", \
         series("xpbd-small", "&& $2 == 10") using 3:4:5 with yerrorlines lt 5 pt 13 title "xpbd, 10 sub-steps x 1", \
         series("vbd", "&& $2 == 10") using 3:4:5 with yerrorlines lt 6 pt 4 title "vbd, 10 iterations"
    unset title
    unset xrange
    set xtics autofreq
    set key top right
    unset multiplot
}
