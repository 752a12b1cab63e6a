# The scaling study (make scaling; opt-in, not part of make reproduce): how every variant's cost
# grows with the problem. Two series, each cell (size, variant) one bench_scenes
# process, so its CSV's peak_rss_kb is that size's memory:
#
#   particles  Fig. 5's falling dinosaur, its model rebuilt with N particles
#              (-x 'model dino100.particles=N'), N in SCALING_PARTICLES
#   bodies     experiments/pile-10000.ini cut to N dinosaurs of 30 particles
#              (-x 'body dino.copies=N'; the first N cells of its grid), N in SCALING_BODIES
#   global     arap's global step on the particle series' bodies, G in SCALING_GLOBAL_SOLVES, a
#              series each: cholesky and pcg ([solver] global = G, -c solver.global=G), and
#              pcg-P (global = pcg with global_preconditioner = P, ic0, dic or amg: -V pcg-P:...); N
#              in SCALING_GLOBAL_PARTICLES
#
# into data/results/scaling/particles-N_VARIANT.csv, bodies-N_VARIANT.csv and global-N_G.csv, then
#
#   data/results/scaling/table.md      a table per series with log-log slopes (opsim-report
#                                      scaling, reports/report_scaling.h); the report includes it
#   data/results/scaling/scaling-{particles,bodies}.dat   the same for plots/scaling.gp
#   reports/figures/scaling.png/.pdf   ms per frame, µs per particle-iteration, peak RSS against size
#
# Larger sizes by variable: make scaling SCALING_PARTICLES='1000 16000 100000'
# SCALING_GLOBAL_PARTICLES='1000 16000 100000' (docs/scaling.md's sizes; the 100,000-particle
# dinosaur's graph took 22 s to build on a shared 2-core machine, once: the graph cache keeps it). A cell is a file target of
# its own, so cells run in parallel (make -j) or one per cluster task (docs/experiments.md). The
# timings are only worth reading from a quiet machine (docs/timing.md).

SCALING_DIR := $(RESULTS)/scaling
SCALING_PARTICLES ?= 100 300 1000 3000 10000 30000
SCALING_BODIES ?= 1 10 100 1000 10000
SCALING_VARIANTS ?= arap arap-reference shape-matching rigid meshless springs arap-lbfgs xpbd vbd
SCALING_GLOBAL_PARTICLES ?= 1000 16000
SCALING_GLOBAL_SOLVES ?= cholesky pcg pcg-ic0 pcg-dic pcg-amg
# the particle series: 20 warm-up frames (as the timing protocol's, docs/timing.md: the world's
# timed choices, such as sweep_threads = auto, calibrate in them) and 10 timed frames, 3
# repetitions; the piles: the first 12 frames (the models falling apart) as warm-up, so the 3
# timed frames have contacts, 1 repetition
SCALING_PARTICLE_BENCH ?= -w 20 -f 10 -r 3
SCALING_BODY_BENCH ?= -w 12 -f 3 -r 1

scaling_cell = $(word $(1),$(subst _, ,$*))
# a global series' bench_scenes setting: pcg-P is two options, so named by -V
scaling_global_setting = $(if $(filter pcg-%,$(1)),\
    -V '$(1):solver.global=pcg;solver.global_preconditioner=$(patsubst pcg-%,%,$(1))',-c solver.global=$(1))
SCALING_CSVS := $(foreach v,$(SCALING_VARIANTS),$(foreach n,$(SCALING_PARTICLES),$(SCALING_DIR)/particles-$(n)_$(v).csv) \
                  $(foreach n,$(SCALING_BODIES),$(SCALING_DIR)/bodies-$(n)_$(v).csv)) \
                $(foreach g,$(SCALING_GLOBAL_SOLVES),$(foreach n,$(SCALING_GLOBAL_PARTICLES),$(SCALING_DIR)/global-$(n)_$(g).csv))

$(SCALING_DIR)/particles-%.csv: bin/bench/bench_scenes experiments/fig5.ini data/models.tsv | data
	@mkdir -p $(@D)
	bin/bench/bench_scenes -s fig5 $(SCALING_PARTICLE_BENCH) -x 'model dino100.particles=$(call scaling_cell,1)' \
	    -c solver.name=$(call scaling_cell,2) -o $@.tmp
	@mv $@.tmp $@

$(SCALING_DIR)/bodies-%.csv: bin/bench/bench_scenes experiments/pile-10000.ini data/models.tsv | data
	@mkdir -p $(@D)
	bin/bench/bench_scenes -i experiments/pile-10000.ini $(SCALING_BODY_BENCH) \
	    -x 'body dino.copies=$(call scaling_cell,1)' -c solver.name=$(call scaling_cell,2) -o $@.tmp
	@mv $@.tmp $@

$(SCALING_DIR)/global-%.csv: bin/bench/bench_scenes experiments/fig5.ini data/models.tsv | data
	@mkdir -p $(@D)
	bin/bench/bench_scenes -s fig5 $(SCALING_PARTICLE_BENCH) -x 'model dino100.particles=$(call scaling_cell,1)' \
	    $(call scaling_global_setting,$(call scaling_cell,2)) -o $@.tmp
	@mv $@.tmp $@

# The cells asked for, one path a line: rewritten when that list changes or one of its cells is
# missing, so that the table is remade from exactly those cells. The list is needed because the
# Makefile's `.SECONDARY:` makes every file secondary, and GNU make does not remake a missing
# secondary prerequisite of a target that is newer than that prerequisite's own prerequisites:
# a table made from other sizes was "up to date" and the new cells were never made.
SCALING_CELLS_LIST := $(SCALING_DIR)/cells.txt
$(SCALING_CELLS_LIST): FORCE
	@mkdir -p $(@D)
	@printf '%s\n' $(SCALING_CSVS) | cmp -s - $@ && [ -z '$(filter-out $(wildcard $(SCALING_CSVS)),$(SCALING_CSVS))' ] || \
	    printf '%s\n' $(SCALING_CSVS) > $@

$(SCALING_DIR)/table.md: $(SCALING_CSVS) $(SCALING_CELLS_LIST) bin/opsim-report
	bin/opsim-report scaling --out $@ --data $(SCALING_DIR)/scaling $(SCALING_CSVS)

$(FIGURES)/scaling.png $(FIGURES)/scaling.pdf &: $(SCALING_DIR)/table.md plots/scaling.gp $(PLOT_DEPS)
	$(call plot_figure,plots/scaling.gp,data='$(SCALING_DIR)/scaling')

scaling: $(SCALING_DIR)/table.md $(FIGURES)/scaling.png

.PHONY: scaling
.PRECIOUS: $(SCALING_DIR)/particles-%.csv $(SCALING_DIR)/bodies-%.csv $(SCALING_DIR)/global-%.csv
