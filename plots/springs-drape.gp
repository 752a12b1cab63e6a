# Experiment 2 of the springs variant (Vogiannou et al. 2010 Fig. 3): an 8 x 8 cloth held at its
# corners, draping under its own weight, with the exact Jacobian and with the paper's damped one
# (|b| and |d| at 99 %). Left: kinetic energy against time (log scale); right: the centre's
# downward displacement. Runs are named drape-rDENSITY-jDAMPING.h5 (experiments/springs.mk).
# usage: gnuplot -e "runs='a.h5 b.h5'; out='reports/figures/springs-drape'" plots/springs-drape.gp
if (!exists("runs") || !exists("out")) {
    print "springs-drape.gp: give -e \"runs='RUN.h5 ...'; out='BASE'\" (writes BASE.png and BASE.pdf)"
    exit status 2
}
if (!exists("opsim")) opsim = "bin/opsim"
load "plots/style.gp"
tmp = system("mktemp -d")
ok = 1
do for [k = 1:words(runs)] {
    dummy = system(sprintf("%s export '%s' /observables/kinetic/time > %s/time%d && %s export '%s' /observables/kinetic/value > %s/ke%d && %s export '%s' /observables/sag/value > %s/sag%d", \
        opsim, word(runs, k), tmp, k, opsim, word(runs, k), tmp, k, opsim, word(runs, k), tmp, k))
    ok = ok && GPVAL_SYSTEM_ERRNO == 0
}
if (!ok) {
    dummy = system("rm -rf ".tmp)
    print "springs-drape.gp: cannot read the observables of ".runs
    exit status 1
}
label(run) = system(sprintf("basename '%s' .h5 | sed 's/^drape-r\\([0-9.]*\\)-j\\(.*\\)$/density \\1, Jacobian damping \\2/'", run))
series(k, file) = sprintf("< paste %s/time%d %s/%s%d", tmp, k, tmp, file, k)
do for [format in "png pdf"] {
    if (format eq "png") { set terminal pngcairo size 1300,480 font "sans,11" } \
    else { set terminal pdfcairo size 11in,4in font "sans,9" }
    set output out.".".format
    set multiplot layout 1,2 title "Vogiannou et al. 2010 Fig. 3, ours: a cloth held at its corners, exact against damped Jacobian (full cubic, definite = off)"
    set grid
    set xlabel "time (s)"
    set ylabel "kinetic energy (J)"
    set logscale y
    set format y "10^{%T}"
    set key top right font ",9"
    plot for [k = 1:words(runs)] series(k, "ke") using 1:2 with lines lt (int((k + 1) / 2)) lw (k % 2 ? 3 : 1.5) title label(word(runs, k))
    unset logscale y
    set format y "%g"
    set ylabel "centre sag (m)"
    set key bottom right
    plot for [k = 1:words(runs)] series(k, "sag") using 1:2 with lines lt (int((k + 1) / 2)) lw (k % 2 ? 3 : 1.5) title label(word(runs, k))
    unset multiplot
}
dummy = system("rm -rf ".tmp)
