# Snapshots of a run: the skinned visual surface (Eq. 2) of every body at a list of output
# frames, one panel per frame, all panels with the same view and the same axis ranges (so
# sizes and positions compare across panels); y is up; the panel title gives the frame and its
# time. When the run has a floor (/parameters floor = 1) the floor plane is drawn. Writes
# OUT.png (pngcairo) and OUT.pdf (pdfcairo) in one run.
#
# usage: gnuplot -e "run='R.h5'; out='reports/figures/fig4-snapshots'" plots/snapshots.gp
# options (-e, all optional):
#   frames='0 30 last'   output frames to show (frame indices of /particles/position/step, or last)
#   bodies='bar_k bar_2k' bodies to draw (default: all, in the run's order)
#   layout='2,3'         rows,columns of panels (default: one row)
#   view='75,20'         gnuplot "rot_x,rot_z" (columns are x, -z, y so y is vertical)
#   ghost='0'            also draw this frame's surfaces as a thin grey outline in every panel
#   style='wire'         light wireframe instead of shaded surfaces
#   colors='#D55E00 ...' one colour per body (default: the style.gp colours in order)
#   title='...'          a title above the panels
#   tone=1               shade faces by their direction in the rest shape (shows twist)
#   key=1                a key naming each body with its stiffness (/parameters/BODY stiffness)
#   room=1.0             zoom out: the x and z ranges are widened by this factor
#   panel=380            panel size in PNG pixels;  pad=0.05  margin around the bodies (fraction)
#   light=0.35           share of directional light in the shading (0 flat, 1 strongest)
#   groups=1             one colour per group of bodies (a name up to its first '-' or '_':
#                        the copies of one [body] section)
#   faces=N              draw each body's coarse stand-in of at most N triangles (opsim export
#                        --faces: vertex clustering), for scenes too big to draw whole
#   opsim='bin/opsim'
if (!exists("run") || !exists("out")) {
    print "snapshots.gp: give -e \"run='RUN.h5'; out='BASE'\" (writes BASE.png and BASE.pdf)"
    exit status 2
}
if (!exists("opsim")) opsim = "bin/opsim"
if (!exists("frames")) frames = "0 last"
if (!exists("view")) view = "75,20"
if (!exists("style")) style = "solid"
if (!exists("title")) title = ""
if (!exists("panel")) panel = 380
if (!exists("pad")) pad = 0.05
if (!exists("light")) light = 0.35
if (!exists("key")) key = 0
if (!exists("tone")) tone = 0
if (!exists("room")) room = 1.0
if (!exists("colors")) colors = "#D55E00 #009E73 #0072B2 #E69F00 #56B4E9 #CC79A7 #000000"
# out may be given with an extension; both files are written either way.
if (out[strlen(out)-3:] eq ".png" || out[strlen(out)-3:] eq ".pdf") out = out[1:strlen(out)-4]

# ---- inputs ---------------------------------------------------------------------------------
fail(msg) = sprintf("print \"snapshots.gp: %s\"; exit status 1", msg)
shell(cmd) = system(cmd)
if (!exists("bodies")) {
    bodies = shell(sprintf("%s info '%s' | sed -n 's/^  bodies = \\[\\(.*\\)\\]$/\\1/p' | tr -d ','", opsim, run))
    if (GPVAL_SYSTEM_ERRNO != 0 || strlen(bodies) == 0) { eval fail("cannot list the bodies of ".run) }
}
has_floor = 0 + shell(sprintf("%s export '%s' --attribute /parameters floor 2>/dev/null || echo 0", opsim, run))
floor_y = has_floor ? 0.0 + shell(sprintf("%s export '%s' --attribute /parameters floor_height", opsim, run)) : 0
nf = words(frames)
nb = words(bodies)
if (!exists("layout")) layout = sprintf("1,%d", nf)
rows = int(word(system("echo ".layout." | tr ',' ' '"), 1))
cols = int(word(system("echo ".layout." | tr ',' ' '"), 2))
if (rows * cols < nf) { eval fail(sprintf("layout %s has fewer than %d panels", layout, nf)) }

# Each body at each frame is exported once into a scratch directory: the raw triangle outlines
# (first line "# BODY frame F time T") and, for the shaded style, one pm3d quad per triangle
# (scan 1: p0 p1, scan 2: m p2 with m the midpoint of p0 p2 -- a planar quad without a zero
# edge, so its lighting normal is the triangle's), in plot coordinates, with its colour as a
# fourth column. pm3d sorts quads by their mean depth only, which lets the far side of a thin
# bar poke through the near side, so triangles facing away from the viewer are dropped (the
# surfaces are closed and wound counter-clockwise outside; the projection is orthographic, so
# one view direction serves every triangle). With tone=1 each triangle's shade follows its
# normal in the rest shape (read from --triangles, same order): faces along z lighter, along x
# darker, so a twist shows as the tones spiral along a bar.
tmp = system("mktemp -d")
rot_x = real(word(system("echo ".view." | tr ',' ' '"), 1)) * pi / 180
rot_z = real(word(system("echo ".view." | tr ',' ' '"), 2)) * pi / 180
eye = sprintf("-v ex=%.9g -v ey=%.9g -v ez=%.9g", sin(rot_x)*sin(rot_z), -sin(rot_x)*cos(rot_z), cos(rot_x))
quads_awk = 'function abs(v) { return v < 0 ? -v : v } function mix(c, f, w,   r, g, b) { r = int(c / 65536); g = int(c / 256) % 256; b = c % 256; return int(r * f + w) * 65536 + int(g * f + w) * 256 + int(b * f + w) } BEGIN { n = 0 } /^#/ { next } { if (rest != "") { if ((getline line < rest) > 0) split(line, r); else { r[1] = 0; r[2] = 0; r[3] = 0 } } } NF { x[n] = $1; y[n] = -$3; z[n] = $2; rx[n] = r[1]; ry[n] = r[2]; rz[n] = r[3]; n++; next } n == 4 { ax = x[1]-x[0]; ay = y[1]-y[0]; az = z[1]-z[0]; bx = x[2]-x[0]; by = y[2]-y[0]; bz = z[2]-z[0]; if ((ay*bz-az*by)*ex + (az*bx-ax*bz)*ey + (ax*by-ay*bx)*ez > 0) { c = col; if (rest != "") { ax = rx[1]-rx[0]; ay = ry[1]-ry[0]; az = rz[1]-rz[0]; bx = rx[2]-rx[0]; by = ry[2]-ry[0]; bz = rz[2]-rz[0]; nx = abs(ay*bz-az*by); ny = abs(az*bx-ax*bz); nz = abs(ax*by-ay*bx); if (nx >= ny && nx >= nz) c = mix(col, 0.7, 0); else if (nz > ny) c = mix(col, 0.55, 0.45 * 255) } printf "%.9g %.9g %.9g %d\n%.9g %.9g %.9g %d\n\n", x[0], y[0], z[0], c, x[1], y[1], z[1], c; printf "%.9g %.9g %.9g %d\n%.9g %.9g %.9g %d\n\n\n", (x[0]+x[2])/2, (y[0]+y[2])/2, (z[0]+z[2])/2, c, x[2], y[2], z[2], c } } { n = 0 }'
raw(f, b) = sprintf("%s/%s-%s.txt", tmp, word(bodies, b), word(frames, f))
quad(f, b) = sprintf("%s/%s-%s.quads", tmp, word(bodies, b), word(frames, f))
rest_raw(b) = sprintf("%s/%s-rest.txt", tmp, word(bodies, b))
ghost_raw(b) = sprintf("%s/%s-ghost.txt", tmp, word(bodies, b))
if (exists("faces") && tone) { eval fail("tone=1 shades by the whole rest surface; it does not go with faces=N") }
coarse = exists("faces") ? sprintf(" --faces %d", faces) : ""
export(b, fr, file) = system(sprintf("%s export '%s' --skinned %s --frame %s%s > %s", opsim, run, b, fr, coarse, file))
# groups=1: one colour per group of bodies, the group being a body name up to its first '-' or
# '_' (the copies dino-00, dino-01 ... of one [body dino] section; fence_north-0, fence_west-1).
group_name(s) = (d_ = strstrt(s, "-"), u_ = strstrt(s, "_"), \
                 c_ = (d_ > 0 && (u_ == 0 || d_ < u_)) ? d_ : u_, c_ > 1 ? s[1:c_-1] : s)
array colour_slot[nb]
group_list = ""
do for [b = 1:nb] {
    colour_slot[b] = b
    if (exists("groups") && groups) {
        g_ = group_name(word(bodies, b))
        if (strstrt(" ".group_list." ", " ".g_." ") == 0) { group_list = group_list." ".g_ }
        do for [k = 1:words(group_list)] { if (word(group_list, k) eq g_) { colour_slot[b] = k } }
    }
}
color(b) = word(colors, (colour_slot[b] - 1) % words(colors) + 1)
# "#RRGGBB" as an integer, for awk.
color_int(b) = (c_ = color(b), 65536 * hex2(c_[2:3]) + 256 * hex2(c_[4:5]) + hex2(c_[6:7]))
hexdigit(h) = strstrt("0123456789abcdef", system("echo ".h." | tr A-F a-f")) - 1
hex2(h) = 16 * hexdigit(h[1:1]) + hexdigit(h[2:2])
if (tone) {
    do for [b = 1:nb] {
        dummy = system(sprintf("%s export '%s' --triangles %s > %s", opsim, run, word(bodies, b), rest_raw(b)))
        if (GPVAL_SYSTEM_ERRNO != 0) { dummy = system("rm -rf ".tmp); eval fail("cannot export the rest surface of ".word(bodies, b)) }
    }
}
to_quads(f, b) = system(sprintf("awk %s -v col=%d -v rest=%s '%s' < %s > %s", eye, color_int(b), tone ? rest_raw(b) : "", quads_awk, raw(f, b), quad(f, b)))

xmin = ymin = zmin = 1e300; xmax = ymax = zmax = -1e300
do for [f = 1:nf] {
    do for [b = 1:nb] {
        dummy = export(word(bodies, b), word(frames, f), raw(f, b))
        if (GPVAL_SYSTEM_ERRNO != 0) { dummy = system("rm -rf ".tmp); eval fail(sprintf("export of %s at frame %s failed", word(bodies, b), word(frames, f))) }
        dummy = to_quads(f, b)
        # plot coordinates: X = x, Y = -z, Z = y
        stats raw(f, b) using 1:(-$3) nooutput
        xmin = STATS_min_x < xmin ? STATS_min_x : xmin; xmax = STATS_max_x > xmax ? STATS_max_x : xmax
        ymin = STATS_min_y < ymin ? STATS_min_y : ymin; ymax = STATS_max_y > ymax ? STATS_max_y : ymax
        stats raw(f, b) using 2 nooutput
        zmin = STATS_min < zmin ? STATS_min : zmin; zmax = STATS_max > zmax ? STATS_max : zmax
    }
}
if (exists("ghost")) {
    do for [b = 1:nb] {
        dummy = export(word(bodies, b), ghost, ghost_raw(b))
        if (GPVAL_SYSTEM_ERRNO != 0) { dummy = system("rm -rf ".tmp); eval fail(sprintf("export of %s at frame %s failed", word(bodies, b), ghost)) }
        stats ghost_raw(b) using 1:(-$3) nooutput
        xmin = STATS_min_x < xmin ? STATS_min_x : xmin; xmax = STATS_max_x > xmax ? STATS_max_x : xmax
        ymin = STATS_min_y < ymin ? STATS_min_y : ymin; ymax = STATS_max_y > ymax ? STATS_max_y : ymax
        stats ghost_raw(b) using 2 nooutput
        zmin = STATS_min < zmin ? STATS_min : zmin; zmax = STATS_max > zmax ? STATS_max : zmax
    }
}
if (has_floor) { zmin = floor_y < zmin ? floor_y : zmin }
# The same padded, cubic-enough box in every panel.
span = xmax - xmin; span = ymax - ymin > span ? ymax - ymin : span; span = zmax - zmin > span ? zmax - zmin : span
m = pad * span
# The floor: the bodies' footprint over all panels, with a margin.
set urange [xmin - 3*m : xmax + 3*m]
set vrange [ymin - 3*m : ymax + 3*m]
# A room of `room` x the span around the middle zooms out (gnuplot's view scale did not shrink
# these multiplot panels with equal axes).
cx = (xmin + xmax) / 2; cy = (ymin + ymax) / 2
hw = (xmax - xmin) / 2 + m; hh = (ymax - ymin) / 2 + m
if (has_floor) { hw = hw + 3*m; hh = hh + 3*m }
set xrange [cx - room * hw : cx + room * hw]
set yrange [cy - room * hh : cy + room * hh]
set zrange [(has_floor ? floor_y : zmin - m) : zmax + m]
set xyplane at (has_floor ? floor_y : zmin - m)

# Panel titles: frame and time from the export's first line.
header(f) = system(sprintf("head -n 1 %s", raw(f, 1)))
frame_of(f) = int(word(header(f), 4))
time_of(f) = real(word(header(f), 6))

# ---- drawing --------------------------------------------------------------------------------
load "plots/style.gp"
set view equal xyz
eval "set view ".view
unset border; unset tics; unset colorbox
set cbrange [0:1]   # colours come as rgb values; this only silences the autoscaling
if (key) { set key bottom right samplen 1.5 spacing 1.3 noenhanced } else { unset key }
stiffness(b) = real(system(sprintf("%s export '%s' --attribute /parameters/%s stiffness", opsim, run, word(bodies, b))))
key_title(b) = key ? sprintf("%s  (k = %.3g)", word(bodies, b), stiffness(b)) : ""
set pm3d depthorder
set pm3d lighting primary light specular 0.0
set isosamples 24, 24
set samples 24, 24
solid = style ne "wire"
ghost_style = "lines lc rgb '#b0b0b0' lw 0.4"

# The PDF is the PNG at 96 dpi; fontscale 0.75 and linewidth 1.5 make its text and lines match
# the PNG's (checked by rasterising the PDF).
do for [ext in "png pdf"] {
    if (ext eq "png") {
        set terminal pngcairo noenhanced size cols*panel, rows*panel + (title ne "" ? 40 : 0) font "sans,13"
    } else {
        set terminal pdfcairo noenhanced size cols*panel/96.0, (rows*panel + (title ne "" ? 40 : 0))/96.0 font "sans,13" fontscale 0.75 linewidth 1.5
    }
    set output out.".".ext
    set multiplot layout rows, cols title title font ",15" margins 0.01, 0.99, 0.02, (title ne "" ? 0.9 : 0.95) spacing 0.01, 0.06
    do for [f = 1:nf] {
        set title sprintf("frame %d,  t = %.2f s", frame_of(f), time_of(f)) offset 0, -1
        # Built as a string: an empty `for` clause in a plot command still runs once.
        if (solid) {
            cmd = "splot for [b = 1:nb] quad(f, b) using 1:2:3:4 with pm3d fc rgb variable notitle"
        } else {
            cmd = "splot for [b = 1:nb] raw(f, b) using 1:(-$3):2 with lines lc rgb color(b) lw 0.3 notitle"
        }
        # Key entries as thick line samples (pm3d surfaces have none).
        if (key) { cmd = cmd.", for [b = 1:nb] NaN with lines lc rgb color(b) lw 8 title key_title(b)" }
        if (exists("ghost")) { cmd = cmd.", for [b = 1:nb] ghost_raw(b) using 1:(-$3):2 with ".ghost_style." title (key && b == 1 ? sprintf(\"frame %s (outline)\", ghost) : \"\")" }
        if (has_floor) { cmd = cmd.(solid ? ", '++' using 1:2:(floor_y) with pm3d fc rgb '#d0d0d0' notitle" : ", '++' using 1:2:(floor_y) with lines lc rgb '#c0c0c0' lw 0.5 notitle") }
        eval cmd
    }
    unset multiplot
    unset output
}
dummy = system("rm -rf ".tmp)
