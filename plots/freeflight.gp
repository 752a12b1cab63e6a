# Free flight (experiments/freeflight.mk): |L| over its start against time for every variant,
# 3 sub-steps × 3 iterations, from each starting guess of the rotations (solid: rigid, the
# default; dotted: predicted; dashed: current, opsim's start before), beside the rigid reference
# (black). Inputs: the run files of `make freeflight` in `dir`, the variants in `variants`.
# usage: gnuplot -e "dir='data/results/freeflight'; variants='arap shape-matching'; out='freeflight'" plots/freeflight.gp
load "plots/style.gp"
starts = "rigid predicted current"
spin(run) = sprintf("< bin/opsim export '%s' /observables/spin/value | awk 'NR == 1 { l = $1 } { print (NR - 1) / 30, $1 / l }'", run)
kinetic(run) = sprintf("< bin/opsim export '%s' /observables/kinetic/value | awk 'NR == 1 { l = $1 } { print (NR - 1) / 30, $1 / l }'", run)
run(v, s) = sprintf("%s/%s-s3i3-%s.h5", dir, v, s)
dash(s) = s eq "rigid" ? 1 : (s eq "predicted" ? 3 : 2)
do for [format in "png pdf"] {
    if (format eq "png") { set terminal pngcairo size 1200,480 font "sans,11" } \
    else { set terminal pdfcairo size 10in,4in font "sans,9" }
    set output out.".".format
    set multiplot layout 1,2 title "A free spinning dinosaur (k = 1e8, no gravity, 3 sub-steps x 3 iterations)"
    set xlabel "time (s)"
    set grid
    set yrange [0:1.05]
    set key at graph 0.98, 0.62 right
    set ylabel "|L| / |L| at the start"
    plot spin(dir."/rigid-s3i3.h5") using 1:2 with lines lc rgb "black" lw 2 title "rigid reference", \
         for [i = 1:words(variants)] for [s in starts] spin(run(word(variants, i), s)) using 1:2 with lines \
            lt i + 1 dt dash(s) title word(variants, i).", ".s
    set ylabel "kinetic energy / at the start"
    unset key
    plot kinetic(dir."/rigid-s3i3.h5") using 1:2 with lines lc rgb "black" lw 2, \
         for [i = 1:words(variants)] for [s in starts] kinetic(run(word(variants, i), s)) using 1:2 with lines \
            lt i + 1 dt dash(s)
    unset multiplot
}
