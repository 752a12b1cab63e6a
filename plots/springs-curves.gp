# Experiment 1 of the springs variant: Vogiannou et al. 2010 Fig. 1 (the stiffness g'(x) of the
# linear spring, the two-term StVK cubic and the full cubic, 0.8 <= x <= 1.2) and Fig. 2 (the
# force magnitude g(x), whole range and zoom), at L = 1, K = 1, a1 = 1.1, a2 = 0.9, K2 = 2K,
# K1 = 2K, 4K, 6K. Input: the table of `opsim spring-curves` (the solver's own force code).
# usage: gnuplot -e "table='curves.tsv'; out='reports/figures/springs-curves'" plots/springs-curves.gp
if (!exists("table") || !exists("out")) {
    print "springs-curves.gp: give -e \"table='curves.tsv'; out='BASE'\" (writes BASE.png and BASE.pdf)"
    exit status 2
}
load "plots/style.gp"
set datafile separator "\t"
set datafile columnheaders
do for [format in "png pdf"] {
    if (format eq "png") { set terminal pngcairo size 1500,460 font "sans,11" } \
    else { set terminal pdfcairo size 12.5in,3.8in font "sans,9" }
    set output out.".".format
    set multiplot layout 1,3 title "Vogiannou et al. 2010 Fig. 1 and 2 from the springs variant's force code (L = 1, K = 1, a1 = 1.1, a2 = 0.9, K2 = 2K)"
    set grid
    set key top left
    set xlabel "length x"
    set title "Fig. 1: stiffness g'(x)"
    set xrange [0.8:1.2]
    set yrange [-2:5]
    plot table using 1:3 with lines lt 7 title "spring", \
         table using 1:5 with lines lt 1 title "St Venant-Kirchhoff (two-term)", \
         table using 1:11 with lines lt 3 title "full cubic, K1 = 6K"
    set title "Fig. 2 (left): force magnitude g(x)"
    set xrange [0:2]
    set yrange [-2:2]
    plot table using 1:2 with lines lt 7 title "spring", \
         table using 1:4 with lines lt 1 title "St Venant-Kirchhoff", \
         table using 1:6 with lines lt 6 title "full cubic, K1 = 2K", \
         table using 1:8 with lines lt 4 title "full cubic, K1 = 4K", \
         table using 1:10 with lines lt 3 title "full cubic, K1 = 6K"
    set title "Fig. 2 (right): zoom"
    set xrange [0.8:1.2]
    set yrange [-0.5:0.5]
    replot
    unset multiplot
}
