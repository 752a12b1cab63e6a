# The convergence study (experiments/convergence.mk): the relative energy error
# r_k = |E_k − E*| / (E_0 − E*) of one sub-step against iteration k (top row) and against the
# wall-clock milliseconds spent in the iterations (bottom row), one column per scene, four
# variants each: Gauss–Seidel and Jacobi rotations, plain and with Chebyshev. E* is the last
# energy of DIR/SCENE-reference.tsv (5,000 Gauss–Seidel iterations of the same sub-step), E_0
# each run's first (they are equal: every run starts from the same state). Grey lines: the
# tolerances 1e-2, 1e-4, 1e-6 of the table. Writes OUT.png and OUT.pdf.
#
# usage: gnuplot -e "dir='data/results/convergence'; scenes='dino bunny bar'; \
#                    labels='dinosaur|bunny|bar'; out='reports/figures/convergence'" plots/convergence.gp
# Files: DIR/SCENE-{reference,gs,jacobi,gs-chebyshev,jacobi-chebyshev}.tsv ("k seconds energy",
# '#' comments). labels: one per scene, '|'-separated (default: the scene names).
if (!exists("out") || !exists("dir") || !exists("scenes")) {
    print "convergence.gp: give -e \"dir='...'; scenes='a b c'; out='BASE'\""
    exit status 2
}
if (out[strlen(out)-3:] eq ".png" || out[strlen(out)-3:] eq ".pdf") out = out[1:strlen(out)-4]
if (!exists("labels")) labels = ""
if (!exists("title")) title = "Convergence of one sub-step: relative energy error of arap, Gauss-Seidel and Jacobi rotations, plain and with Chebyshev"
columns = words(scenes)
label(i) = (labels eq "") ? word(scenes, i) : system(sprintf("printf '%%s' '%s' | cut -d'|' -f%d", labels, i))
# the last energy of a converge file, exactly as printed
last_energy(file) = system(sprintf("awk '!/^#/ && $1 != \"k\" { e = $3 } END { if (e == \"\") exit 1; print e }' '%s'", file))
first_energy(file) = system(sprintf("awk '!/^#/ && $1 != \"k\" { print $3; exit }' '%s'", file))
ok = 1
array e_star[columns]
array e_zero[columns]
do for [c = 1:columns] {
    ref = dir."/".word(scenes, c)."-reference.tsv"
    text = last_energy(ref)
    ok = ok && GPVAL_SYSTEM_ERRNO == 0 && text ne ""
    if (ok) { e_star[c] = real(text); e_zero[c] = real(first_energy(ref)) }
}
if (!ok) { print "convergence.gp: cannot read the reference runs in ".dir; exit status 1 }

variants = "gs jacobi gs-chebyshev jacobi-chebyshev"
names = "Gauss-Seidel|Jacobi|Gauss-Seidel + Chebyshev|Jacobi + Chebyshev"
name(v) = system(sprintf("printf '%%s' '%s' | cut -d'|' -f%d", names, v))
array variant_name[4]
do for [v = 1:4] { variant_name[v] = name(v) }
# r_k, NaN where it is 0 (log scale)
r(e, c) = (abs(e - e_star[c]) > 0) ? abs(e - e_star[c]) / (e_zero[c] - e_star[c]) : NaN

load "plots/style.gp"
set datafile columnheaders
# one colour per variant; Jacobi dashed
set linetype 11 lc rgb "#0072B2" lw 2 dt 1
set linetype 12 lc rgb "#D55E00" lw 2 dt 2
set linetype 13 lc rgb "#009E73" lw 2 dt 1
set linetype 14 lc rgb "#CC79A7" lw 2 dt 2
set grid lc rgb "#e6e6e6"
set logscale y
set format y "10^{%T}"
set yrange [1e-10:1e2]
set ytics 1e-10, 100, 1e2
set mytics 10
set key top right box opaque font ",9" spacing 1.0
# PDF: the PNG at 96 dpi (fontscale and linewidth as in plots/iterations.gp)
do for [ext in "png pdf"] {
    if (ext eq "png") {
        set terminal pngcairo enhanced size 520*columns, 900 font "sans,11"
    } else {
        set terminal pdfcairo enhanced size 520*columns/96.0, 900/96.0 font "sans,11" fontscale 0.75 linewidth 1.5
    }
    set output out.".".ext
    set multiplot layout 2, columns title title font ",13" margins 0.06, 0.99, 0.07, 0.89 spacing 0.06, 0.09
    do for [row = 1:2] {
        do for [c = 1:columns] {
            scene = word(scenes, c)
            if (row == 1) {
                set title sprintf("%s\nE_0 = %.6g J, E* = %.6g J", label(c), e_zero[c], e_star[c]) font ",11" noenhanced
            } else {
                unset title
            }
            if (row == 1) { set xlabel "iteration k"; set xrange [0:*] } else { set xlabel "wall-clock time in the iterations (ms)"; set xrange [0:*] }
            set ylabel (c == 1 ? "relative energy error |E_k − E*| / (E_0 − E*)" : "")
            if (c == 1) { set key top right } else { unset key }
            set arrow 1 from graph 0, first 1e-2 to graph 1, first 1e-2 nohead lc rgb "#999999" dt 3 lw 1 back
            set arrow 2 from graph 0, first 1e-4 to graph 1, first 1e-4 nohead lc rgb "#999999" dt 3 lw 1 back
            set arrow 3 from graph 0, first 1e-6 to graph 1, first 1e-6 nohead lc rgb "#999999" dt 3 lw 1 back
            if (row == 1) {
                plot for [v = 1:4] dir."/".scene."-".word(variants, v).".tsv" using 1:(r($3, c)) with lines lt 10 + v title variant_name[v]
            } else {
                plot for [v = 1:4] dir."/".scene."-".word(variants, v).".tsv" using (1000 * $2):(r($3, c)) with lines lt 10 + v title variant_name[v]
            }
        }
    }
    unset multiplot
    unset output
}
