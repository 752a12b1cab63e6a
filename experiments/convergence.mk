# The convergence study: for one sub-step of three scenes, the relative energy error
# r_k = |E_k − E*| / (E_0 − E*) against iteration and against wall-clock time, for arap with
# Gauss–Seidel and Jacobi rotations, each plain and with Chebyshev acceleration (Wang 2015).
#
#   scene  config                      frame  the sub-step studied
#   dino   experiments/fig5.ini        15     the first of frame 16: on the floor (it lands in
#                                             frame 10); Fig. 5's own 3 sub-steps, h = 1/90 s
#   bunny  experiments/bunny_fall.ini  12     the first of frame 13: on the floor (lands in
#                                             frame 10); 3 sub-steps, h = 1/90 s
#   bar    experiments/fig1.ini        60     the one of frame 61 (t = 2 s: the half turn just
#                                             done, the lift starting); h = 1/30 s
#
# Every run is `opsim converge CONFIG --frame F`: F frames as configured (Gauss–Seidel, plain),
# then the next sub-step from that one state, its solver set by --solver, so all variants
# solve one problem (one E_0, one E*). Under data/results/convergence/:
#   SCENE-reference.tsv   5,000 Gauss–Seidel iterations; E* is its last energy
#   SCENE-VARIANT.tsv     CONV_ITERATIONS iterations, VARIANT = gs, jacobi, gs-chebyshev,
#                         jacobi-chebyshev (k, seconds in iterations, energy)
#   SCENE-rho-ORDER.txt   `opsim estimate-rho CONFIG --frame F` with rotations = ORDER (its
#                         frames run with that order too): chebyshev_rho and
#                         chebyshev_rho_source of the -chebyshev runs, passed through --solver
#   table.tsv             per scene and variant: iterations and ms to reach 1e-2, 1e-4, 1e-6
#                         (the first k after which r stays below, '-' if never within the run),
#                         ρ, r at the end, E_0, E*, …, then each ms's 95 % interval and noisy
#                         flag (ms_TOL_lo, ms_TOL_hi, ms_TOL_noisy)
#   long.tsv              every run's energy and relative error per iteration in long form
# and reports/convergence.md (generated from table.tsv and the ρ files) and the figure
# reports/figures/convergence.png/.pdf (plots/convergence.gp): r against iteration (top) and
# milliseconds (bottom), one column per scene. Times by the timing protocol as far as one
# process allows (docs/timing.md): each variant's run solves the sub-step once untimed, then
# CONV_REPEATS = 7 times (opsim converge --repeats), the time to each iteration the median with
# its interval; the variants' repetitions are not interleaved with each other's (a converge run
# holds one solver), and the runs go as `make -j` runs them, beside other jobs.

CONV_DIR := $(RESULTS)/convergence
CONV_SCENES := dino bunny bar
CONV_CONFIG_dino := experiments/fig5.ini
CONV_FRAME_dino := 15
CONV_CONFIG_bunny := experiments/bunny_fall.ini
CONV_FRAME_bunny := 12
CONV_CONFIG_bar := experiments/fig1.ini
CONV_FRAME_bar := 60
CONV_ITERATIONS := 300
CONV_REFERENCE_ITERATIONS := 5000
CONV_REPEATS := 7
CONV_VARIANTS := gs jacobi gs-chebyshev jacobi-chebyshev
CONV_ORDERS := gs jacobi

CONV_RUNS := $(foreach s,$(CONV_SCENES),$(foreach v,reference $(CONV_VARIANTS),$(CONV_DIR)/$(s)-$(v).tsv))
CONV_RHO := $(foreach s,$(CONV_SCENES),$(foreach o,$(CONV_ORDERS),$(CONV_DIR)/$(s)-rho-$(o).txt))
CONV_TABLE := $(CONV_DIR)/table.tsv
CONV_LONG := $(CONV_DIR)/long.tsv
CONV_REPORT := reports/convergence.md

.PHONY: convergence
convergence: $(CONV_REPORT) $(CONV_LONG) $(FIGURES)/convergence.png

# $(call conv_converge,SCENE,ITERATIONS,--solver OPTIONS): one converge run into $@ (written
# under a temporary name by opsim and renamed when complete).
define conv_converge
@mkdir -p $(dir $@)
@$(if $(Q),echo "  RUN     $@")
$(Q)$(OPSIM_RUN) converge $(CONV_CONFIG_$(1)) --frame $(CONV_FRAME_$(1)) --iterations $(2) $(3) --out $@
endef

# The rules of one scene. In the template $$ is make's $ after $(call), $$$$ the shell's $.
define conv_scene_rules
$(CONV_DIR)/$(1)-reference.tsv: $(CONV_CONFIG_$(1)) $$(RUN_DEPS) | data
	$$(call conv_converge,$(1),$(CONV_REFERENCE_ITERATIONS),--solver rotations=gs)
$(CONV_DIR)/$(1)-gs.tsv: $(CONV_CONFIG_$(1)) $$(RUN_DEPS) | data
	$$(call conv_converge,$(1),$(CONV_ITERATIONS),--repeats $(CONV_REPEATS) --solver rotations=gs)
$(CONV_DIR)/$(1)-jacobi.tsv: $(CONV_CONFIG_$(1)) $$(RUN_DEPS) | data
	$$(call conv_converge,$(1),$(CONV_ITERATIONS),--repeats $(CONV_REPEATS) --solver rotations=jacobi)
$(CONV_DIR)/$(1)-rho-%.txt: $(CONV_CONFIG_$(1)) $$(RUN_DEPS) | data
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  RHO     $$@")
	$$(Q)$(OPSIM_RUN) estimate-rho $(CONV_CONFIG_$(1)) --frame $(CONV_FRAME_$(1)) --set solver.rotations=$$* \
	    > $$@.tmp && mv $$@.tmp $$@ || { rm -f $$@.tmp; exit 1; }
$(CONV_DIR)/$(1)-%-chebyshev.tsv: $(CONV_DIR)/$(1)-rho-%.txt $(CONV_CONFIG_$(1)) $$(RUN_DEPS) | data
	@$$(if $$(Q),echo "  RUN     $$@")
	$$(Q)rho=$$$$(sed -n 's/^chebyshev_rho = //p' $$<); source=$$$$(sed -n 's/^chebyshev_rho_source = //p' $$<); \
	[ -n "$$$$rho" ] || { echo "$$<: no chebyshev_rho line" >&2; exit 1; }; \
	$(OPSIM_RUN) converge $(CONV_CONFIG_$(1)) --frame $(CONV_FRAME_$(1)) --iterations $(CONV_ITERATIONS) \
	    --repeats $(CONV_REPEATS) --solver rotations=$$* --solver chebyshev=on --solver "chebyshev_rho=$$$$rho" \
	    --solver "chebyshev_rho_source=$$$$source" --out $$@
endef
$(foreach s,$(CONV_SCENES),$(eval $(call conv_scene_rules,$(s))))

# One line per scene and variant. A run must start from the reference's E_0 (bitwise: the
# same state), and E_0 > E*.
$(CONV_TABLE): $(CONV_RUNS) $(CONV_RHO) bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'scene\tvariant\titerations_1e-2\tms_1e-2\titerations_1e-4\tms_1e-4\titerations_1e-6\tms_1e-6\trho\tfinal_relative_error\tE0_J\tEstar_J\titerations\tframe\th_s\tconfig\tms_1e-2_lo\tms_1e-2_hi\tms_1e-2_noisy\tms_1e-4_lo\tms_1e-4_hi\tms_1e-4_noisy\tms_1e-6_lo\tms_1e-6_hi\tms_1e-6_noisy\n' > $$out; \
	for scene in $(CONV_SCENES); do for variant in $(CONV_VARIANTS); do \
	    case $$variant in *-chebyshev) rho=$$(sed -n 's/^chebyshev_rho = //p' $(CONV_DIR)/$$scene-rho-$${variant%-chebyshev}.txt);; *) rho=-;; esac; \
	    bin/opsim-report convergence-row --scene $$scene --variant $$variant --rho $$rho \
	        --reference $(CONV_DIR)/$$scene-reference.tsv --run $(CONV_DIR)/$$scene-$$variant.tsv >> $$out; \
	done; done; \
	mv $$out $@; trap - EXIT

# The report: the table, the speed-ups of Chebyshev over plain (plain / Chebyshev, in
# iterations and in ms, per tolerance), the ρ estimates with their sources
# (opsim-report convergence-report, reports/report_convergence.h).
$(CONV_REPORT): $(CONV_TABLE) $(CONV_RHO) bin/opsim-report
	@$(if $(Q),echo "  REPORT  $@")
	$(Q)bin/opsim-report convergence-report --table $(CONV_TABLE) --reference-iterations $(CONV_REFERENCE_ITERATIONS) \
	    --figure figures/convergence.png $(CONV_RHO:%=--rho %) --out $@

# The study in long form (variant, scene, repetition, iteration, seconds, measure, value), one
# table a notebook pivots (opsim-report convergence-long, docs/results.md).
$(CONV_LONG): $(CONV_RUNS) bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)bin/opsim-report convergence-long $(foreach s,$(CONV_SCENES),--reference $(s)=$(CONV_DIR)/$(s)-reference.tsv \
	    $(foreach v,$(CONV_VARIANTS),--run $(s):$(v)=$(CONV_DIR)/$(s)-$(v).tsv)) --out $@

CONV_PLOT_ARGS = dir='$(CONV_DIR)'; scenes='$(CONV_SCENES)'; \
    labels='dinosaur (fig5.ini) frame $(CONV_FRAME_dino)|bunny (bunny_fall.ini) frame $(CONV_FRAME_bunny)|bar (fig1.ini) frame $(CONV_FRAME_bar)'

$(FIGURES)/convergence.png $(FIGURES)/convergence.pdf &: $(CONV_RUNS) plots/convergence.gp $(PLOT_DEPS)
	$(call plot_figure,plots/convergence.gp,$(CONV_PLOT_ARGS))

.PRECIOUS: $(CONV_RUNS) $(CONV_RHO) $(CONV_DIR)/%.tsv $(CONV_DIR)/%.txt
