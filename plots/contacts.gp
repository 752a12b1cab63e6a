# Contacts of many-body runs (Fig. 6 and 7), measured: per frame, the largest penetration left
# between the ellipsoids of different bodies after the contacts (/collision/max_penetration,
# solid) and below the floor (/collision/max_floor_penetration, dashed), in mm (top), and the
# pairs of particles that penetrated in some pass (/collision/contacts, summed over the frame's
# sub-steps, bottom). Time from the frame index and /parameters frame_time. Each run's key gives
# the largest penetration between bodies over the run and over its last 2 s, in mm and in % of the
# scene's smallest semi-axis (/collision smallest_semi_axis). A run whose floor penetration never
# exceeds FLOOR_ROUNDING_M (the floor projection leaves rounding, ~1e-17 m) draws no floor curve,
# which would lie on the axis: its key says so and gives the largest value. The keys sit above
# each panel, outside the curves. Writes OUT.png and OUT.pdf.
#
# usage: gnuplot -e "runs='a.h5 b.h5'; titles='\"52 models\" \"180 models\"'; out='BASE'" plots/contacts.gp
# options: titles (one per run, double-quoted words; default the file names), title='...',
#          opsim='bin/opsim'
if (!exists("runs") || !exists("out")) {
    print "contacts.gp: give -e \"runs='A.h5 B.h5'; out='BASE'\" (writes BASE.png and BASE.pdf)"
    exit status 2
}
if (!exists("opsim")) opsim = "bin/opsim"
if (!exists("titles")) titles = runs
if (!exists("title")) title = "contacts between bodies and with the floor"
if (out[strlen(out)-3:] eq ".png" || out[strlen(out)-3:] eq ".pdf") out = out[1:strlen(out)-4]
n = words(runs)
if (n < 1 || words(titles) != n) {
    print sprintf("contacts.gp: %d runs but %d titles", n, words(titles))
    exit status 2
}

# ---- inputs: run i's columns (pairs penetration, floor penetration, contacts) in tmp/i --------
tmp = system("mktemp -d")
ok = 1
array frame_time[n]
array semi_axis[n]
do for [i = 1:n] {
    run = word(runs, i)
    dummy = system(sprintf("%s export '%s' /collision/max_penetration > %s/a && %s export '%s' /collision/max_floor_penetration > %s/b && %s export '%s' /collision/contacts > %s/c && paste %s/a %s/b %s/c > %s/%d", \
                           opsim, run, tmp, opsim, run, tmp, opsim, run, tmp, tmp, tmp, tmp, tmp, i))
    ok = ok && GPVAL_SYSTEM_ERRNO == 0
    frame_time[i] = real(system(sprintf("%s export '%s' --attribute /parameters frame_time 2>/dev/null || echo 0", opsim, run)))
    ok = ok && frame_time[i] > 0
    semi_axis[i] = real(system(sprintf("%s export '%s' --attribute /collision smallest_semi_axis 2>/dev/null || echo 0", opsim, run)))
    ok = ok && semi_axis[i] > 0
}
if (!ok) {
    dummy = system("rm -rf ".tmp)
    print "contacts.gp: cannot read /collision/*, /parameters frame_time or /collision smallest_semi_axis of ".runs
    exit status 1
}

# ---- the largest penetration between bodies, over the run and over its last 2 s ---------------
FLOOR_ROUNDING_M = 1e-9
array key[n]
array floor_key[n]
array floor_drawn[n]
do for [i = 1:n] {
    file = sprintf("%s/%d", tmp, i)
    stats file using 1 nooutput
    largest = STATS_max
    from = STATS_records - int(2.0 / frame_time[i] + 0.5)
    stats file every ::(from > 0 ? from : 0) using 1 nooutput
    key[i] = sprintf("%s between bodies: largest %.1f mm (%.0f %% of the smallest semi-axis), last 2 s %.1f mm (%.0f %%)", \
                     word(titles, i), 1e3 * largest, 100 * largest / semi_axis[i], 1e3 * STATS_max, \
                     100 * STATS_max / semi_axis[i])
    stats file using 2 nooutput
    floor_drawn[i] = STATS_max > FLOOR_ROUNDING_M
    floor_key[i] = floor_drawn[i] ? word(titles, i)." below the floor" : \
                   sprintf("%s below the floor: none (largest %.1e mm, rounding; no curve)", word(titles, i), 1e3 * STATS_max)
}

# ---- drawing --------------------------------------------------------------------------------
load "plots/style.gp"
do for [format in "png pdf"] {
    if (format eq "png") { set terminal pngcairo size 1000,700 font "sans,11"; set output out.".png" }
    if (format eq "pdf") { set terminal pdfcairo size 7in,4.9in font "sans,9"; set output out.".pdf" }
    set multiplot layout 2,1 title title."\n" # the line below it keeps the key (above the panel) off the title
    set grid lc rgb "#dddddd"
    set key tmargin left Left reverse maxcols 1 samplen 3
    set xlabel "time (s)"
    set ylabel "penetration left (mm)"
    set yrange [0:*]
    # frame k (1-based row) ends at t = k h; an undrawn floor curve keeps its key line (NaN data)
    plot for [i = 1:n] sprintf("%s/%d", tmp, i) using (($0 + 1) * frame_time[i]):(1e3 * $1) with lines lt i \
             title key[i], \
         for [i = 1:n] sprintf("%s/%d", tmp, i) using (($0 + 1) * frame_time[i]):(floor_drawn[i] ? 1e3 * $2 : NaN) \
             with lines lt i dt 2 title floor_key[i]
    set key tmargin left Left reverse horizontal maxcols auto
    set ylabel "penetrating pairs per frame"
    plot for [i = 1:n] sprintf("%s/%d", tmp, i) using (($0 + 1) * frame_time[i]):3 with lines lt i \
             title word(titles, i)
    unset multiplot
    set output
}
dummy = system("rm -rf ".tmp)
