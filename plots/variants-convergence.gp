# The comparison matrix (experiments/variants.mk): the relative energy error
# r_k = |E_k − E*| / (E_0 − E*) of one sub-step against the wall-clock milliseconds spent in its
# iterations, every variant one curve, one panel per scene, log axes. E* is the last energy of
# DIR/runs/reference-SCENE.tsv (5,000 Gauss–Seidel iterations), E_0 its first (every run starts
# from the same state); a variant's run is DIR/runs/converge-SCENE/VARIANT.tsv (the scene's one
# converge --study run). A variant that refused the scene has no curve. Writes OUT.png and OUT.pdf.
#
# usage: gnuplot -e "dir='data/results/variants'; scenes='bar collapse fall bunny'; \
#                    variants='arap-gs ...'; out='reports/figures/variants-convergence'" \
#                    plots/variants-convergence.gp
if (!exists("out") || !exists("dir") || !exists("scenes") || !exists("variants")) {
    print "variants-convergence.gp: give -e \"dir='...'; scenes='...'; variants='...'; out='BASE'\""
    exit status 2
}
if (out[strlen(out)-3:] eq ".png" || out[strlen(out)-3:] eq ".pdf") out = out[1:strlen(out)-4]
columns = words(scenes)
count = words(variants)
last_energy(file) = system(sprintf("awk '!/^#/ && $1 != \"k\" { e = $3 } END { if (e == \"\") exit 1; print e }' '%s'", file))
first_energy(file) = system(sprintf("awk '!/^#/ && $1 != \"k\" { print $3; exit }' '%s'", file))
exists_file(file) = system(sprintf("[ -s '%s' ] && echo 1 || echo 0", file)) eq "1"
array e_star[columns]
array e_zero[columns]
do for [c = 1:columns] {
    ref = dir."/runs/reference-".word(scenes, c).".tsv"
    text = last_energy(ref)
    if (GPVAL_SYSTEM_ERRNO != 0 || text eq "") { print "variants-convergence.gp: cannot read ".ref; exit status 1 }
    e_star[c] = real(text)
    e_zero[c] = real(first_energy(ref))
}
r(e, c) = (abs(e - e_star[c]) > 0) ? abs(e - e_star[c]) / (e_zero[c] - e_star[c]) : NaN
run(v, c) = dir."/runs/converge-".word(scenes, c)."/".word(variants, v).".tsv"

load "plots/style.gp"
set datafile columnheaders
# ten distinguishable lines: colours cycle, the second round dashed
do for [v = 1:20] {
    if (v > 7) { set linetype 20 + v lw 2 dt 2 } else { set linetype 20 + v lw 2 dt 1 }
}
set grid lc rgb "#e6e6e6"
set logscale xy
set format y "10^{%T}"
set yrange [1e-12:1e1]
set ytics 1e-12, 100, 1e0
set xlabel "wall-clock time in the iterations (ms)"
set key font ",9" noenhanced box opaque
do for [ext in "png pdf"] {
    if (ext eq "png") {
        set terminal pngcairo enhanced size 1500, 900 font "sans,11"
    } else {
        set terminal pdfcairo enhanced size 1500/96.0, 900/96.0 font "sans,11" fontscale 0.75 linewidth 1.5
    }
    set output out.".".ext
    set multiplot layout 2, (columns + 1) / 2 title "Every variant on one sub-step of each scene: relative energy error against time" font ",13" \
        margins 0.06, 0.84, 0.08, 0.91 spacing 0.08, 0.12
    do for [c = 1:columns] {
        set title sprintf("%s: E_0 = %.6g J, E* = %.6g J", word(scenes, c), e_zero[c], e_star[c]) noenhanced
        set ylabel (c % 2 == 1 ? "|E_k − E*| / (E_0 − E*)" : "")
        # the key once, in the right margin, from the panel where every variant that runs at all has a curve
        if (c == 3) { set key at screen 0.995, 0.9 right top } else { unset key }
        # the variants that ran the scene (a refused one has no run file, and no empty plot)
        ran = ""
        do for [v = 1:count] { if (exists_file(run(v, c))) { ran = ran." ".v } }
        plot for [i = 1:words(ran)] run(int(word(ran, i)), c) \
            using (1000 * $2):(r($3, c)) with lines lt 20 + int(word(ran, i)) lc int(word(ran, i)) \
            title word(variants, int(word(ran, i)))
    }
    unset multiplot
    unset output
}
