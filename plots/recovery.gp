# Fig. 4, measured: the dinosaur returning to its rest shape from the collapsed start.
# Top: the rest-shape error (mass-weighted RMS distance of the particle centres to the best
# rigid fit of the rest shape, over the rest bounding-box diagonal; /observables/<error>) on a
# log scale, with the threshold line and the first frame below it. Bottom: the energy of the
# motion against time: kinetic (/observables/<kinetic>), elastic E^e at the end of each frame
# (last column of /solver/energy/elastic; the scene has no gravity and no constraints, the
# pinned centre particle adds none) and their sum. Writes OUT.png and OUT.pdf.
#
# usage: gnuplot -e "run='fig4.h5'; out='reports/figures/fig4-recovery'" plots/recovery.gp
# options: error='shape_error' kinetic='kinetic' (observable names), threshold=0.02,
#          title='...', opsim='bin/opsim'
if (!exists("run") || !exists("out")) {
    print "recovery.gp: give -e \"run='RUN.h5'; out='BASE'\" (writes BASE.png and BASE.pdf)"
    exit status 2
}
if (!exists("opsim")) opsim = "bin/opsim"
if (!exists("error")) error = "shape_error"
if (!exists("kinetic")) kinetic = "kinetic"
if (!exists("threshold")) threshold = 0.02
if (!exists("title")) title = "Fig. 4: the dinosaur returns to its rest shape from the collapsed start"
if (out[strlen(out)-3:] eq ".png" || out[strlen(out)-3:] eq ".pdf") out = out[1:strlen(out)-4]

# ---- inputs: one scratch file per column, pasted into one table -------------------------------
tmp = system("mktemp -d")
export(dataset, file) = system(sprintf("%s export '%s' %s > %s/%s", opsim, run, dataset, tmp, file))
dummy = export("/observables/".error."/value", "error")
ok = GPVAL_SYSTEM_ERRNO == 0
dummy = export("/observables/".error."/time", "time")
ok = ok && GPVAL_SYSTEM_ERRNO == 0
dummy = export("/observables/".kinetic."/value", "kinetic")
ok = ok && GPVAL_SYSTEM_ERRNO == 0
dummy = export("/solver/energy/elastic", "elastic_rows")
ok = ok && GPVAL_SYSTEM_ERRNO == 0
if (!ok) {
    dummy = system("rm -rf ".tmp)
    print "recovery.gp: cannot read the observables or energies of ".run
    exit status 1
}
substeps = int(system(sprintf("%s export '%s' --attribute /parameters substeps", opsim, run)))
# Elastic energy at the end of frame f = the last column of the last sub-step row of frame f;
# frame 0 has none (the energy is logged while solving), so its cell is "-" (missing).
dummy = system(sprintf("awk -v s=%d 'NR %% s == 0 { print $NF }' %s/elastic_rows > %s/elastic_tail; (echo -; cat %s/elastic_tail) > %s/elastic", substeps, tmp, tmp, tmp, tmp))
table = tmp."/table"
dummy = system(sprintf("cd %s && paste time error kinetic elastic > table", tmp))
set datafile missing "-"

# The first frame below the threshold, and the frame from which it stays below.
first_below = -1; stays_below = -1; n = 0
stats table using 1:2 nooutput
n = STATS_records
t_end = STATS_max_x
array below[n]
do for [i = 1:n] { below[i] = 0 }
stats table using (below[int($0)+1] = ($2 < threshold), $2) nooutput
do for [i = 1:n] { if (first_below < 0 && below[i]) { first_below = i - 1 } }
do for [i = n:1:-1] { if (below[i]) { stays_below = i - 1 } else { break } }
stats table using 1 every ::1::1 nooutput
dt = STATS_min
final_error = 0
stats table using 2 every ::(n-1)::(n-1) nooutput
final_error = STATS_min

# ---- drawing --------------------------------------------------------------------------------
load "plots/style.gp"
set grid lc rgb "#e6e6e6"
set key top right box opaque
# The PDF is the PNG at 96 dpi; fontscale 0.75 and linewidth 1.5 make its text and lines match
# the PNG's (checked by rasterising the PDF).
do for [ext in "png pdf"] {
    if (ext eq "png") {
        set terminal pngcairo enhanced size 1000,760 font "sans,12"
    } else {
        set terminal pdfcairo enhanced size 1000/96.0, 760/96.0 font "sans,12" fontscale 0.75 linewidth 1.5
    }
    set output out.".".ext
    set multiplot layout 2,1 title title font ",14"
    set lmargin 12; set rmargin 3
    set logscale y
    set format y "10^{%T}"
    set ylabel "rest-shape error" noenhanced
    set xlabel ""
    set format x ""
    set xrange [0:t_end]
    unset arrow; unset label
    if (first_below >= 0) {
        set arrow from first_below*dt, graph 0 to first_below*dt, graph 1 nohead dt 3 lc rgb "#777777"
        set label sprintf("below %g%% at frame %d (t = %.2f s)", 100*threshold, first_below, first_below*dt) at first_below*dt, graph 0.92 offset 0.8,0 noenhanced
    }
    if (stays_below >= 0 && stays_below != first_below) {
        set arrow from stays_below*dt, graph 0 to stays_below*dt, graph 1 nohead dt 3 lc rgb "#777777"
        set label sprintf("stays below from frame %d (t = %.2f s)", stays_below, stays_below*dt) at stays_below*dt, graph 0.78 offset 0.8,0 noenhanced
    }
    set label sprintf("at frame %d (t = %.2f s): %.2g%%", n-1, t_end, 100*final_error) at graph 0.98, graph 0.06 right noenhanced
    plot table using 1:2 with linespoints lt 1 pt 7 ps 0.45 title "rest-shape error (RMS / rest diagonal)", \
         threshold with lines dt 2 lw 1.5 lc rgb "#777777" title sprintf("%g%%", 100*threshold)
    unset arrow; unset label
    set ylabel "energy (J)"
    set xlabel "time (s)"
    set format x "%g"
    set format y "10^{%T}"
    plot table using 1:3 with lines lt 3 title "kinetic", \
         table using 1:4 with lines lt 2 title "elastic E^e (end of frame)", \
         table using 1:($3+$4) with lines lt 7 lw 1.2 title "kinetic + elastic"
    unset multiplot
    unset logscale y
    unset output
}
dummy = system("rm -rf ".tmp)
