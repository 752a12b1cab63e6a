# Müller et al. 2005, Fig. 2 and Eq. 11: one linear spring, the amplitude's growth over 60 steps
# (the largest |stretch| of the last 20 steps over that of the first 20) against the time step,
# the explicit scheme of Eq. 1 against Eq. 9 with goals from x(t) (the paper) and from the
# prediction (Voigt's reading). Input: the table of make meshless-spring (h/h_crit, h, alpha,
# explicit, start, predicted).
# usage: gnuplot -e "table='spring.tsv'; out='meshless-spring'" plots/meshless-spring.gp
load "plots/style.gp"
set datafile separator "\t"
set datafile columnheaders
do for [format in "png pdf"] {
    if (format eq "png") { set terminal pngcairo size 800,520 font "sans,11" } \
    else { set terminal pdfcairo size 6in,4in font "sans,9" }
    set output out.".".format
    set title "Müller et al. 2005 Fig. 2: a 1 Hz spring, 60 steps of h"
    set logscale xy
    set format y "10^{%L}"
    set xlabel "h / h_{crit}   (h_{crit} = 2 sqrt(m/k), the explicit scheme's limit)"
    set ylabel "amplitude growth (last 20 steps / first 20)"
    set key top left
    set grid
    plot table using 1:4 with linespoints lt 1 pt 7 title "explicit (Eq. 1)", \
         table using 1:5 with linespoints lt 2 pt 5 title "shape matching, goals from x(t) (Eq. 9)", \
         table using 1:($6 > 1e-300 ? $6 : 1e-300) with linespoints lt 3 pt 9 title "shape matching, goals from the prediction"
    unset output
}
