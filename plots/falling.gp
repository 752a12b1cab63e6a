# Fig. 5, measured: the dinosaur falling onto the floor. Top: the lowest ellipsoid point above
# the floor plane (/observables/<lowest>) against time, with free fall from the start height
# (h0 - g t^2/2) for reference; a value below zero would be penetration. Bottom: the kinetic
# energy (/observables/<kinetic>, log scale) with the free-fall energy m g (g t^2/2) the body
# would have gained by then without contact. Writes OUT.png and OUT.pdf.
#
# usage: gnuplot -e "run='fig5.h5'; out='reports/figures/fig5-falling'" plots/falling.gp
# options: lowest='lowest' kinetic='kinetic' (observable names), title='...', opsim='bin/opsim'
if (!exists("run") || !exists("out")) {
    print "falling.gp: give -e \"run='RUN.h5'; out='BASE'\" (writes BASE.png and BASE.pdf)"
    exit status 2
}
if (!exists("opsim")) opsim = "bin/opsim"
if (!exists("lowest")) lowest = "lowest"
if (!exists("kinetic")) kinetic = "kinetic"
if (!exists("title")) title = "Fig. 5: the dinosaur falling onto the floor"
if (out[strlen(out)-3:] eq ".png" || out[strlen(out)-3:] eq ".pdf") out = out[1:strlen(out)-4]

# ---- inputs ---------------------------------------------------------------------------------
tmp = system("mktemp -d")
export(dataset, file) = system(sprintf("%s export '%s' %s > %s/%s", opsim, run, dataset, tmp, file))
dummy = export("/observables/".lowest."/time", "time")
ok = GPVAL_SYSTEM_ERRNO == 0
dummy = export("/observables/".lowest."/value", "lowest")
ok = ok && GPVAL_SYSTEM_ERRNO == 0
dummy = export("/observables/".kinetic."/value", "kinetic")
ok = ok && GPVAL_SYSTEM_ERRNO == 0
bodies = system(sprintf("%s info '%s' | sed -n 's/^  bodies = \\[\\(.*\\)\\]$/\\1/p' | tr -d ','", opsim, run))
ok = ok && GPVAL_SYSTEM_ERRNO == 0 && strlen(bodies) > 0
do for [b in bodies] {
    dummy = system(sprintf("%s export '%s' /graph/%s/mass >> %s/mass", opsim, run, b, tmp))
    ok = ok && GPVAL_SYSTEM_ERRNO == 0
}
if (!ok) {
    dummy = system("rm -rf ".tmp)
    print "falling.gp: cannot read the observables or masses of ".run
    exit status 1
}
# |g| from /parameters gravity ("gx gy gz")
g = real(system(sprintf("%s info '%s' | awk '$1 == \"gravity\" && $2 == \"=\" { print sqrt($3*$3 + $4*$4 + $5*$5); exit }'", opsim, run)))
if (g <= 0) { g = 9.81; print "falling.gp: no gravity in /parameters, assuming 9.81 m/s^2" }
dummy = system(sprintf("cd %s && paste time lowest kinetic > table", tmp))
table = tmp."/table"

stats tmp."/mass" using 1 nooutput
mass = STATS_sum
stats table using 1:2 nooutput
n = STATS_records
t_end = STATS_max_x
h_max = STATS_max_y
lowest_min = STATS_min_y
stats table using 2 every ::0::0 nooutput
h0 = STATS_min
stats table using 2 every ::(n-1)::(n-1) nooutput
h_end = STATS_min
# First frame touching the floor (within 1 mm).
contact = -1
array h[n]
stats table using (h[int($0)+1] = $2) nooutput
do for [i = 1:n] { if (contact < 0 && h[i] <= 1e-3) { contact = i - 1 } }
stats table using 1 every ::1::1 nooutput
dt = STATS_min
t_hit = sqrt(2 * h0 / g)
free(t) = t < t_hit ? h0 - g * t**2 / 2 : NaN
free_energy(t) = t < t_hit ? mass * g * g * t**2 / 2 : NaN
stats table using 3 nooutput
ke_max = STATS_max

# ---- drawing --------------------------------------------------------------------------------
load "plots/style.gp"
set grid lc rgb "#e6e6e6"
set key top right box opaque
set samples 400
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
    set xrange [0:t_end]
    set ylabel "lowest point above floor (m)"
    set xlabel ""
    set format x ""
    set yrange [-0.05*h_max:1.08*h_max]
    unset label; unset arrow
    if (contact >= 0) {
        set arrow from contact*dt, graph 0 to contact*dt, graph 1 nohead dt 3 lc rgb "#777777"
        set label sprintf("floor reached at frame %d (t = %.2f s)", contact, contact*dt) at contact*dt, graph 0.55 offset 0.8,0 noenhanced
    }
    set label sprintf("at frame %d: %.3g m;  lowest over the run: %.3g m", n-1, h_end, lowest_min) at graph 0.98, graph 0.3 right noenhanced
    plot table using 1:2 with linespoints lt 1 pt 7 ps 0.4 title "lowest ellipsoid point", \
         free(x) with lines dt 2 lt 3 title "free fall from the start height", \
         0 with lines lc rgb "#444444" lw 1 title "floor"
    unset label; unset arrow
    set ylabel "kinetic energy (J)"
    set xlabel "time (s)"
    set format x "%g"
    set logscale y
    set format y "10^{%T}"
    set yrange [1e-5:*]
    plot table using 1:3 with lines lt 1 title "kinetic energy", \
         free_energy(x) with lines dt 2 lt 3 title sprintf("free fall: m g^2 t^2/2 (m = %.1f kg)", mass)
    unset logscale y
    set format y "% h"
    unset multiplot
    unset output
}
dummy = system("rm -rf ".tmp)
