# Shared style for opsim's figures: line types 0..2 are the particle axes a, b, c; the
# default colour cycle is colour-blind safe (Okabe–Ito).
set linetype 1 lc rgb "#D55E00" lw 2
set linetype 2 lc rgb "#009E73" lw 2
set linetype 3 lc rgb "#0072B2" lw 2
set linetype 4 lc rgb "#E69F00" lw 2
set linetype 5 lc rgb "#56B4E9" lw 2
set linetype 6 lc rgb "#CC79A7" lw 2
set linetype 7 lc rgb "#000000" lw 2
set linetype cycle 7
