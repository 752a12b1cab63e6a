# The comparison matrix (experiments/variants.mk): cost against accuracy at the paper's settings,
# one point per variant, one panel per scene: x the milliseconds per frame (median over one
# run's frames, energy logging off), y the relative energy error r of the studied sub-step after
# the scene's own iteration count (DIR/r-at-ni.tsv), log axes. A variant that refused the scene
# or failed has no point. Writes OUT.png and OUT.pdf.
#
# usage: gnuplot -e "dir='data/results/variants'; scenes='bar collapse fall bunny'; \
#                    out='reports/figures/variants-cost'" plots/variants-cost.gp
if (!exists("out") || !exists("dir") || !exists("scenes")) {
    print "variants-cost.gp: give -e \"dir='...'; scenes='...'; out='BASE'\""
    exit status 2
}
if (out[strlen(out)-3:] eq ".png" || out[strlen(out)-3:] eq ".pdf") out = out[1:strlen(out)-4]
columns = words(scenes)
# variant, ms per frame, r for scene c: joined from the two tables
joined(c) = sprintf("< awk -F'\t' -v c=%d 'FNR == 1 { f++; next } f == 1 { ms[$1] = $(c + 1); next } ($1 in ms) { print $1 \"\\t\" ms[$1] \"\\t\" $(c + 1) }' '%s/ms-per-frame.tsv' '%s/r-at-ni.tsv'", c, dir, dir)
load "plots/style.gp"
set grid lc rgb "#e6e6e6"
set logscale xy
set format y "10^{%T}"
set xlabel "ms per frame"
set ylabel "r after the scene's iterations"
set datafile separator "\t"
set offsets graph 0.05, graph 0.25, graph 0.1, graph 0.1
do for [ext in "png pdf"] {
    if (ext eq "png") {
        set terminal pngcairo enhanced size 1400, 1000 font "sans,11"
    } else {
        set terminal pdfcairo enhanced size 1400/96.0, 1000/96.0 font "sans,11" fontscale 0.75 linewidth 1.5
    }
    set output out.".".ext
    set multiplot layout 2, (columns + 1) / 2 title "Cost against accuracy at the paper's iteration counts, one point per variant" font ",13"
    do for [c = 1:columns] {
        set title word(scenes, c)
        plot joined(c) using ($2 + 0 > 0 ? $2 : NaN):($3 + 0 > 0 ? $3 : NaN) with points pt 7 ps 1.2 lc 3 notitle, \
             '' using ($2 + 0 > 0 ? $2 : NaN):($3 + 0 > 0 ? $3 : NaN):1 with labels left offset 0.6, 0 font ",8" noenhanced notitle
    }
    unset multiplot
    unset output
}
