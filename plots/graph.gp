# The particles of one body over its rest surface: each ellipsoid's principal axes (a red,
# b green, c blue, scaled by the radii) through its centre, the mesh in grey (as a wireframe,
# or as vertex dots when wire=0 for dense meshes). y is up.
# usage: gnuplot -e "run='R.h5'; body='dino'; out='F.png'; wire=1; view='60,30'" plots/graph.gp
if (!exists("wire")) wire = 1
if (!exists("view")) view = "70,20"
if (!exists("opsim")) opsim = "bin/opsim"
load "plots/style.gp"
set terminal pngcairo size 900,700 font "sans,11"
set output out
set view equal xyz
eval "set view ".view
unset border; unset tics; unset key
set title body." — particle axes over the rest surface" 
mesh_cmd = wire ? sprintf("< %s export %s --triangles %s", opsim, run, body) \
                : sprintf("< %s export %s /mesh/%s/rest_vertices", opsim, run, body)
axes_cmd = sprintf("< %s export %s --axes %s", opsim, run, body)
# plot coordinates (x, -z, y): y up
mesh_style = wire ? "lines lc rgb '#c8c8c8' lw 0.5" : "dots lc rgb '#a0a0a0'"
splot mesh_cmd using 1:(-$3):2 with @mesh_style , \
      axes_cmd using 1:(-$3):2:($5+1) with lines lc variable lw 2.2 
