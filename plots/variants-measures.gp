# make variants (experiments/variants.mk): the matrix's measures that are one number per variant,
# one bar each. Left: Fig. 3's stiffness spread on the bar (the largest steady tip deflection over
# the smallest across iterations and time steps; 1 means independent of both). Right: Fig. 4's
# recovery (the time until the collapsed dinosaur's rest-shape error stays below 2 %; a grey bar
# at the run's length where it never did). A refused cell has no bar. Input: bar.tsv (variant,
# stiffness_spread, max_h_s, max_k, recovery_s, numbers or empty, then their status and bound
# columns: recovery_s_status "never in 5 s" marks the grey bar).
# usage: gnuplot -e "table='bar.tsv'; out='variants-measures'" plots/variants-measures.gp
load "plots/style.gp"
set datafile separator "\t"
set datafile columnheaders
number(s) = s eq "" ? NaN : real(s)
never(s) = strstrt(s, "never") > 0
never_recovered = 'never(strcol("recovery_s_status"))'
do for [format in "png pdf"] {
    if (format eq "png") { set terminal pngcairo size 1200,480 font "sans,11" } \
    else { set terminal pdfcairo size 10in,4in font "sans,9" }
    set output out.".".format
    set multiplot layout 1,2 title "The variants compared: stiffness and recovery (make variants)"
    set style fill solid 0.8 border -1
    set boxwidth 0.7
    set xtics rotate by -40 left nomirror
    set grid y
    set key off
    set yrange [0.9:*]
    set ylabel "stiffness spread on the bar (max / min)"
    plot table using 0:(number(strcol(2))):xtic(1) with boxes lt 1
    set yrange [0:5.5]
    set ylabel "recovery of the collapsed dinosaur (s)"
    plot table using 0:(@never_recovered ? NaN : number(strcol(5))):xtic(1) with boxes lt 2, \
         table using 0:(@never_recovered ? 5 : NaN) with boxes lc rgb "#bbbbbb"
    unset multiplot
}
