# The comparison matrix (experiments/variants.mk): cost against accuracy at the paper's settings,
# one point per variant, one panel per scene: x the milliseconds per frame (median over one
# run's frames, energy logging off), y the relative energy error r of the studied sub-step after
# the scene's own iteration count (DIR/r-at-ni.tsv), log axes. A variant that refused the scene
# or failed has no point. Each variant has its own marker (colour and shape) named once in a key
# beside the panels: labels beside the points overlapped where variants cost and reach alike
# (fall, bunny). Writes OUT.png and OUT.pdf.
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
# the variants in the table's order; marker i: colour i of the cycle, shape by the row of seven
variants = system(sprintf("tail -n +2 '%s/ms-per-frame.tsv' | cut -f1 | tr '\\n' ' '", dir))
shapes = "7 5 9 11 13"
shape(i) = int(word(shapes, (i - 1) / 7 + 1))
load "plots/style.gp"
set grid lc rgb "#e6e6e6"
set logscale xy
set format y "10^{%T}"
set xlabel "ms per frame"
set ylabel "r after the scene's iterations"
set datafile separator "\t"
set autoscale fix
set offsets graph 0.08, graph 0.08, graph 0.1, graph 0.1
do for [ext in "png pdf"] {
    if (ext eq "png") {
        set terminal pngcairo enhanced size 1400, 1000 font "sans,11"
    } else {
        set terminal pdfcairo enhanced size 1400/96.0, 1000/96.0 font "sans,11" fontscale 0.75 linewidth 1.5
    }
    set output out.".".ext
    set multiplot layout 2, (columns + 1) / 2 margins 0.06, 0.80, 0.07, 0.92 spacing 0.07, 0.1 \
        title "Cost against accuracy at the paper's iteration counts, one point per variant" font ",13"
    do for [c = 1:columns] {
        set title word(scenes, c)
        if (c == 1) {
            set key at screen 0.82, 0.92 left top Left reverse noenhanced box opaque samplen 1 spacing 1.2 \
                maxcols 1 maxrows 40 width 2 \
                title "variant"
        } else {
            unset key
        }
        plot for [i = 1:words(variants)] joined(c) \
             using (strcol(1) eq word(variants, i) && $2 + 0 > 0 ? $2 : NaN):($3 + 0 > 0 ? $3 : NaN) \
             with points pt shape(i) ps 1.5 lc ((i - 1) % 7 + 1) lw 1.5 title word(variants, i)
    }
    unset multiplot
    unset output
}
