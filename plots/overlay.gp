# One observable of several runs on one plot: /observables/NAME/value against
# /observables/NAME/time of each run file (read with opsim export), e.g. every run of a sweep.
# Writes OUT.png and OUT.pdf.
#
# usage: gnuplot -e "runs='a.h5 b.h5'; observable='tip'; out='overlay'" plots/overlay.gp
#        gnuplot -e "sweep='DIR/sweep.tsv'; observable='tip'; out='overlay'" plots/overlay.gp
#   runs   run files separated by blanks (their names hold no blanks)
#   sweep  the table of `opsim sweep`: its runs, each titled with its grid values
# options: titles (one per run, blank-separated words; quote a title with blanks in double
#          quotes: titles='"k = 1e9" "k = 2e9"'; default: the file names), title='...',
#          ylabel='...' (default: the observable's name), opsim='bin/opsim'
if (!exists("observable") || !exists("out") || (!exists("runs") && !exists("sweep"))) {
    print "overlay.gp: give -e \"runs='A.h5 B.h5' (or sweep='DIR/sweep.tsv'); observable='NAME'; out='BASE'\""
    exit status 2
}
if (!exists("opsim")) opsim = "bin/opsim"
if (!exists("ylabel")) ylabel = observable
if (out[strlen(out)-3:] eq ".png" || out[strlen(out)-3:] eq ".pdf") out = out[1:strlen(out)-4]
if (exists("sweep")) {
    # The first column of the data lines; titles "key=value, key=value" from the '# run' header.
    runs = system(sprintf("grep -v '^#' '%s' | cut -f1 | tr '\n' ' '", sweep))
    awk_titles = '/^# run\t/ { for (i = 2; i <= NF; i++) key[i] = $i; next } /^#/ { next } { t = ""; for (i = 2; i <= NF; i++) t = t (i > 2 ? ", " : "") key[i] "=" $i; printf "%c%s%c ", 34, t, 34 }'
    if (!exists("titles")) { titles = system(sprintf("awk -F'\t' '%s' '%s'", awk_titles, sweep)) }
    if (!exists("title")) { title = sprintf("%s: %s of each run", sweep, observable) }
}
if (!exists("titles")) titles = runs
if (!exists("title")) title = sprintf("%s of each run", observable)
n = words(runs)
if (n < 1 || words(titles) != n) {
    print sprintf("overlay.gp: %d runs but %d titles", n, words(titles))
    exit status 2
}

# ---- inputs: run i's time and value columns pasted into tmp/i --------------------------------
tmp = system("mktemp -d")
ok = 1
do for [i = 1:n] {
    run = word(runs, i)
    dummy = system(sprintf("%s export '%s' /observables/%s/time > %s/time && %s export '%s' /observables/%s/value > %s/value && paste %s/time %s/value > %s/%d", \
                           opsim, run, observable, tmp, opsim, run, observable, tmp, tmp, tmp, tmp, i))
    if (GPVAL_SYSTEM_ERRNO != 0) { ok = 0; print sprintf("overlay.gp: cannot read /observables/%s of %s", observable, run) }
}
if (!ok) {
    dummy = system("rm -rf ".tmp)
    exit status 1
}

# ---- drawing --------------------------------------------------------------------------------
load "plots/style.gp"
set grid lc rgb "#e6e6e6"
set key below box noenhanced height 1.5
set xlabel "time (s)"
set ylabel ylabel noenhanced
# The PDF is the PNG at 96 dpi; fontscale 0.75 and linewidth 1.5 make its text and lines match
# the PNG's, as in the other figures.
do for [ext in "png pdf"] {
    if (ext eq "png") {
        set terminal pngcairo enhanced size 1000,680 font "sans,12"
    } else {
        set terminal pdfcairo enhanced size 1000/96.0, 680/96.0 font "sans,12" fontscale 0.75 linewidth 1.5
    }
    set output out.".".ext
    set title title noenhanced font ",14"
    plot for [i = 1:n] sprintf("%s/%d", tmp, i) using 1:2 with lines lt i title word(titles, i)
    unset output
}
dummy = system("rm -rf ".tmp)
