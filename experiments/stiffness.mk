# The stiffness study: does arap's stiffness stay independent of the iteration count and the time
# step for every k, or only for Fig. 3's bar? The Fig. 3 bar (experiments/fig3.ini, end particle
# pinned) at k = 5e8 (Fig. 2's k) times 1 to 64, each against its converged static solution.
#
#   runs   data/results/stiffness/kF-iN-fR.h5   stiffness F × 5e8, N iterations, R frames a
#                                                second, 10 s (the steady deflection: the mean tip
#                                                deflection over the last 2 s, the swing its range)
#          data/results/stiffness/static-kF.h5   the static equilibrium: one step of h = 1000 s
#                                                solved with 20,000 iterations (the inertia then
#                                                weighs 1e-6 of gravity's work; 10,000 and 100,000
#                                                iterations agree to 1e-9 at k × 64)
#   tables data/results/stiffness/table.tsv      every run: steady deflection over static
#          data/results/stiffness/summary.tsv    per k: the ratio at each iteration count (h =
#                                                1/30), the spread over the 3 × 3 grid (iterations
#                                                5, 20, 200 × h = 1/30, 1/60, 1/120) and the largest
#                                                swing left
#   figure reports/figures/stiffness.png         steady over static against the iteration count,
#                                                one curve per k
#
# The other variants on the same grid (STIFFNESS_VARIANTS), each in its own directory:
#   runs   data/results/stiffness/V/kF-iN-fR.h5    as above with solver.name = V
#   tables data/results/stiffness/V/table.tsv,    steady over arap's static solution (Eq. 4's
#          data/results/stiffness/V/summary.tsv   equilibrium at k): vbd minimises that energy;
#                                                 xpbd's and shape matching's laws differ, so their
#                                                 ratio says how stiff they are against Eq. 4 at k
#          data/results/stiffness/variants.tsv    per k: the grid spread of arap and of each variant
#                                                 (the spread needs no reference: Fig. 3's claim)
#
# `make stiffness` runs 7 static solves and 84 runs per variant (arap and the three above), a few
# minutes on one core.

STIFFNESS_DIR := $(RESULTS)/stiffness
STIFFNESS_BASE := 5e8
STIFFNESS_FACTORS := 1 2 4 8 16 32 64
STIFFNESS_ITERATIONS := 5 10 20 50 200 1000
STIFFNESS_GRID_ITERATIONS := 5 20 200
STIFFNESS_GRID_FPS := 60 120
STIFFNESS_RUNS := $(foreach f,$(STIFFNESS_FACTORS), \
    $(foreach n,$(STIFFNESS_ITERATIONS),$(STIFFNESS_DIR)/k$(f)-i$(n)-f30.h5) \
    $(foreach n,$(STIFFNESS_GRID_ITERATIONS),$(foreach r,$(STIFFNESS_GRID_FPS),$(STIFFNESS_DIR)/k$(f)-i$(n)-f$(r).h5)))
STIFFNESS_STATIC := $(STIFFNESS_FACTORS:%=$(STIFFNESS_DIR)/static-k%.h5)

STIFFNESS_VARIANTS := shape-matching xpbd vbd
stiffness_empty :=
stiffness_space := $(stiffness_empty) $(stiffness_empty)
STIFFNESS_NAMES := $(notdir $(STIFFNESS_RUNS))

.PHONY: stiffness
stiffness: $(FIGURES)/stiffness.png $(STIFFNESS_DIR)/summary.tsv $(STIFFNESS_DIR)/long.tsv $(STIFFNESS_DIR)/variants.tsv

$(STIFFNESS_DIR)/long.tsv: $(STIFFNESS_DIR)/table.tsv bin/opsim-report
	$(call long_table,factor stiffness iterations frame_time)

stiffness_k = $$(bin/opsim-report calc '$(STIFFNESS_BASE) * $(1)')
# word N of kF-iN-fR without its letter
stiffness_part = $(patsubst $(2)%,%,$(word $(1),$(subst -, ,$*)))

$(STIFFNESS_DIR)/k%.h5: experiments/fig3.ini $(RUN_DEPS) | data bin/opsim-report
	$(call run_figure,$<,--set "body bar.stiffness=$(call stiffness_k,$(call stiffness_part,1,k))" \
	    --set world.iterations=$(call stiffness_part,2,i) \
	    --set world.frame_time=$$(bin/opsim-report calc '1 / $(call stiffness_part,3,f)') \
	    --set run.frames=$$((10 * $(call stiffness_part,3,f))) --set run.output_every=1000000)

# $(call stiffness_variant,V): variant V's runs, each the arap run's arguments plus its name.
define stiffness_variant
$(addprefix $(STIFFNESS_DIR)/$(1)/,$(STIFFNESS_NAMES)): $(STIFFNESS_DIR)/$(1)/k%.h5: experiments/fig3.ini $$(RUN_DEPS) | data bin/opsim-report
	$$(call run_figure,$$<,--set solver.name=$(1) \
	    --set "body bar.stiffness=$$(call stiffness_k,$$(call stiffness_part,1,k))" \
	    --set world.iterations=$$(call stiffness_part,2,i) \
	    --set world.frame_time=$$$$(bin/opsim-report calc '1 / $$(call stiffness_part,3,f)') \
	    --set run.frames=$$$$((10 * $$(call stiffness_part,3,f))) --set run.output_every=1000000)
$(STIFFNESS_DIR)/$(1)/table.tsv: $(addprefix $(STIFFNESS_DIR)/$(1)/,$(STIFFNESS_NAMES)) $(STIFFNESS_STATIC) \
    bin/opsim bin/opsim-report
endef
$(foreach v,$(STIFFNESS_VARIANTS),$(eval $(call stiffness_variant,$(v))))

$(STIFFNESS_DIR)/static-k%.h5: experiments/fig3.ini $(RUN_DEPS) | data bin/opsim-report
	$(call run_figure,$<,--set "body bar.stiffness=$(call stiffness_k,$*)" --set world.frame_time=1000 \
	    --set world.iterations=20000 --set run.frames=1 --set run.output_every=1)

# factor, stiffness (kg/(m³ s²)), iterations, frame time (s), steady deflection (m), swing over
# the last 2 s (m), static deflection (m), steady over static
# (Variant V's table.tsv: the same from its runs, against arap's static solves.)
$(STIFFNESS_DIR)/table.tsv: $(STIFFNESS_RUNS) $(STIFFNESS_STATIC) bin/opsim bin/opsim-report
$(STIFFNESS_DIR)/table.tsv $(STIFFNESS_VARIANTS:%=$(STIFFNESS_DIR)/%/table.tsv):
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'factor\tstiffness\titerations\tframe_time\tsteady_m\tswing_m\tstatic_m\tsteady_over_static\n' > $$out; \
	for run in $(addprefix $(dir $@),$(STIFFNESS_NAMES)); do \
	    name=$$(basename $$run .h5); fps=$${name##*-f}; rest=$${name%-f*}; it=$${rest##*-i}; factor=$${rest%-i*}; factor=$${factor#k}; \
	    static=$$(bin/opsim export $(STIFFNESS_DIR)/static-k$$factor.h5 /observables/tip/value | tail -n 1); \
	    set -- $$(bin/opsim export $$run /observables/tip/value | \
	        bin/opsim-report series --rows -$$((2 * fps)): --of mean --of spread); \
	    printf '%d\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n' $$factor "$$(bin/opsim-report calc "$$factor * $(STIFFNESS_BASE)")" $$it \
	        "$$(bin/opsim-report calc "1 / $$fps")" $$1 $$2 $$static \
	        "$$(bin/opsim-report calc --format %.6f "$$1 / $$static")" >> $$out; \
	done; \
	mv $$out $@; trap - EXIT

# One row per factor (the columns: factor, k, it_N the ratio at N iterations and h = 1/30 s,
# grid_spread_pct the spread (max − min)/mean of the steady deflections over the 3 × 3 grid,
# grid_min and grid_max its ratios, largest_swing_mm over every run of k; opsim-report
# stiffness, reports/report_tsv.h).
$(STIFFNESS_DIR)/summary.tsv $(STIFFNESS_VARIANTS:%=$(STIFFNESS_DIR)/%/summary.tsv): %/summary.tsv: \
    %/table.tsv bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)bin/opsim-report stiffness --in $< --iterations '$(STIFFNESS_ITERATIONS)' --grid '$(STIFFNESS_GRID_ITERATIONS)' \
	    --out $@

# factor, k, then each variant's grid_spread_pct (%): arap's, then STIFFNESS_VARIANTS' in order.
$(STIFFNESS_DIR)/variants.tsv: $(STIFFNESS_DIR)/summary.tsv $(STIFFNESS_VARIANTS:%=$(STIFFNESS_DIR)/%/summary.tsv) \
    bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'factor\tk\tarap_spread_pct$(subst $(stiffness_space),,$(STIFFNESS_VARIANTS:%=\t%_spread_pct))\n' > $$out; \
	for factor in $(STIFFNESS_FACTORS); do \
	    printf '%s\t%s' $$factor "$$(bin/opsim-report calc "$$factor * $(STIFFNESS_BASE)")" >> $$out; \
	    for summary in $(STIFFNESS_DIR)/summary.tsv $(STIFFNESS_VARIANTS:%=$(STIFFNESS_DIR)/%/summary.tsv); do \
	        printf '\t%s' "$$(bin/opsim-report lookup --in $$summary --where factor=$$factor --column grid_spread_pct)" \
	            >> $$out; \
	    done; \
	    printf '\n' >> $$out; \
	done; \
	mv $$out $@; trap - EXIT

$(FIGURES)/stiffness.png $(FIGURES)/stiffness.pdf &: $(STIFFNESS_DIR)/table.tsv plots/stiffness.gp $(PLOT_DEPS)
	$(call plot_figure,plots/stiffness.gp,table='$(STIFFNESS_DIR)/table.tsv')

.PRECIOUS: $(STIFFNESS_RUNS) $(STIFFNESS_STATIC) $(STIFFNESS_DIR)/%.h5 \
    $(foreach v,$(STIFFNESS_VARIANTS),$(addprefix $(STIFFNESS_DIR)/$(v)/,$(STIFFNESS_NAMES)))
