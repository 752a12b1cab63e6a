# Fig. 2, measured: the steady tip deflection of a bar held at one end against its stiffness k
# (log k). Input: a table made by experiments/experiments.mk from the run files, one line per
# bar, tab-separated: run tag, body, k (/parameters/BODY stiffness), the last value of the
# bar's deflection observable (m), the last kinetic energy of its run (J, to show the state is
# steady) and the bar's index in its run (0, 1, 2: coloured as style.gp line types 1, 2, 3).
# Bars of the run tagged `highlight` (the paper's k, 2k, 4k) are drawn as large coloured
# points; all bars are joined in order of k. The dotted line is what a linear (small
# deflection) beam would do: deflection proportional to 1/k, through the softest highlighted
# bar. Writes OUT.png and OUT.pdf.
#
# usage: gnuplot -e "data='deflection.tsv'; out='reports/figures/fig2-deflection'" plots/deflection.gp
# options: highlight='fig2' (the run tag of the figure's bars), title='...'
if (!exists("data") || !exists("out")) {
    print "deflection.gp: give -e \"data='TABLE.tsv'; out='BASE'\" (writes BASE.png and BASE.pdf)"
    exit status 2
}
if (!exists("highlight")) highlight = "fig2"
if (!exists("title")) title = "Fig. 2: steady tip deflection of a held bar under gravity"
if (out[strlen(out)-3:] eq ".png" || out[strlen(out)-3:] eq ".pdf") out = out[1:strlen(out)-4]
set datafile separator tab
set datafile columnheaders

stats data using 3:4 nooutput
if (STATS_records < 1) { print "deflection.gp: no bars in ".data; exit status 1 }
k_lo = STATS_min_x; k_hi = STATS_max_x
d_hi = STATS_max_y
ke_max = 0
stats data using 5 nooutput
ke_max = STATS_max
# The softest highlighted bar anchors the 1/k line.
k0 = 1e300; d0 = 0
stats data using ((strcol(1) eq highlight && $3 < k0) ? (k0 = $3, d0 = $4) : 0, 0) nooutput
is_highlight(tag) = tag eq highlight

load "plots/style.gp"
set grid lc rgb "#e6e6e6"
set logscale x
set format x "10^{%T}"
set xrange [k_lo/1.6 : k_hi*1.6]
set yrange [0 : 1.12*d_hi]
set xlabel "stiffness k"
set ylabel "steady tip deflection (m)"
set key top right box opaque
# The PDF is the PNG at 96 dpi; fontscale 0.75 and linewidth 1.5 make its text and lines match
# the PNG's (checked by rasterising the PDF).
do for [ext in "png pdf"] {
    if (ext eq "png") {
        set terminal pngcairo enhanced size 900,620 font "sans,12"
    } else {
        set terminal pdfcairo enhanced size 900/96.0, 620/96.0 font "sans,12" fontscale 0.75 linewidth 1.5
    }
    set output out.".".ext
    set title title font ",14"
    set label 1 sprintf("largest kinetic energy at the end of any run: %.1e J", ke_max) at graph 0.02, graph 0.05 noenhanced
    plot data using 3:4 smooth unique with lines lt 7 lw 1 title "all runs of the scene (every k scaled), in order of k", \
         data using 3:4 with points pt 6 ps 1.1 lc rgb "#555555" notitle, \
         (d0 > 0 ? d0 * k0 / x : NaN) with lines dt 3 lw 1.5 lc rgb "#777777" title "linear beam: deflection ∝ 1/k", \
         data using (is_highlight(strcol(1)) ? $3 : NaN):4:($6 + 1) with points pt 7 ps 2.2 lc variable \
             title "the figure's bars (k, 2k, 4k)", \
         data using (is_highlight(strcol(1)) ? $3 : NaN):4:(sprintf(" %s\n %.3f m", strcol(2), $4)) \
             with labels left offset 0.8,0.2 font ",10" noenhanced notitle
    unset output
}
