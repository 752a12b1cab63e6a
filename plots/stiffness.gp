# The stiffness study (experiments/stiffness.mk): the Fig. 3 bar's steady tip deflection over its
# static one against the iteration count at h = 1/30 s (left) and against the time step (right,
# 5, 20 and 200 iterations), one curve per stiffness k × 1 ... 64. A stiffness independent of the
# iteration count and the time step keeps every point at 1.
# usage: gnuplot -e "table='table.tsv'; out='stiffness'" plots/stiffness.gp
load "plots/style.gp"
set datafile separator "\t"
factors = "1 2 4 8 16 32 64"
do for [format in "png pdf"] {
    if (format eq "png") { set terminal pngcairo size 1200,480 font "sans,11" } \
    else { set terminal pdfcairo size 10in,4in font "sans,9" }
    set output out.".".format
    set multiplot layout 1,2 title "Stiffness study: steady tip deflection over the static one (Fig. 3 bar, k = 5e8 × factor)"
    set logscale x
    set logscale y
    set yrange [0.8:15]
    set grid
    set key top right title "k ×"
    set xlabel "iterations per frame (h = 1/30 s)"
    set ylabel "steady / static deflection"
    series(f, extra) = sprintf("< awk -F'\t' '$1 == %s %s' '%s' | sort -g -k3 -k4", f, extra, table)
    plot for [i = 1:words(factors)] series(word(factors, i), "&& $4 > 0.03") using 3:8 with linespoints lt i pt 7 \
        title word(factors, i)
    set xlabel "time step h (s)"
    set xrange [0.006:0.045]
    set key outside right top title "k ×, iterations"
    plot for [i = 1:words(factors)] series(word(factors, i), "&& $3 == 5") using 4:8 with linespoints lt i pt 7 dt 1 \
            title word(factors, i).", 5", \
         for [i = 1:words(factors)] series(word(factors, i), "&& $3 == 200") using 4:8 with linespoints lt i pt 5 dt 2 \
            title word(factors, i).", 200"
    unset xrange
    unset multiplot
}
