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
# then the next sub-step from that one state, its solver set by --solver or --study, so all
# variants solve one problem (one E_0, one E*). Under data/results/convergence/:
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
# milliseconds (bottom), one column per scene. Times by the timing protocol (docs/timing.md): one
# converge run a scene studies the four variants (--study each), solves the sub-step once
# untimed for each, then CONV_REPEATS = 7 rounds round them (A B C D, B C D A, …), the time to
# each iteration the median with its interval; the scenes' timed runs one at a time, each
# through tools/when-idle.sh, and under `make reproduce` in its timed phase (Makefile). The
# references and the ρ estimates are untimed and run as `make -j` runs them.

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

# $(call conv_study,ORDER,SCENE): the --study of ORDER's Chebyshev run, its ρ and ρ's source
# read from SCENE-rho-ORDER.txt (shell words: the recipe's variables rho_ORDER, source_ORDER).
conv_study = --study "$(1)-chebyshev:solver.rotations=$(1);solver.chebyshev=on;solver.chebyshev_rho=$$$$rho_$(1);solver.chebyshev_rho_source=$$$$source_$(1)"

# The rules of one scene. In the template $$ is make's $ after $(call), $$$$ the shell's $.
# The four variants are timed by one converge run, their repetitions interleaved (--study each;
# docs/timing.md), one scene at a time (an exclusive lock) and through tools/when-idle.sh; the
# tables are then renamed SCENE-VARIANT.tsv.
define conv_scene_rules
$(CONV_DIR)/$(1)-reference.tsv: $(CONV_CONFIG_$(1)) $$(RUN_DEPS) | data
	$$(call conv_converge,$(1),$(CONV_REFERENCE_ITERATIONS),--solver rotations=gs)
$(CONV_DIR)/$(1)-rho-%.txt: $(CONV_CONFIG_$(1)) $$(RUN_DEPS) | data
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  RHO     $$@")
	$$(Q)$(OPSIM_RUN) estimate-rho $(CONV_CONFIG_$(1)) --frame $(CONV_FRAME_$(1)) --set solver.rotations=$$* \
	    > $$@.tmp && mv $$@.tmp $$@ || { rm -f $$@.tmp; exit 1; }
$(foreach v,$(CONV_VARIANTS),$(CONV_DIR)/$(1)-$(v).tsv) &: $(foreach o,$(CONV_ORDERS),$(CONV_DIR)/$(1)-rho-$(o).txt) \
        $(CONV_CONFIG_$(1)) $$(RUN_DEPS) | data
	@$$(if $$(Q),echo "  TIME    $(CONV_DIR)/$(1)-*.tsv (the variants interleaved)")
	$$(Q)set -e; out=$(CONV_DIR)/$(1)-studies.$$$$$$$$.tmp; trap 'rm -rf $$$$out' EXIT; \
	$(foreach o,$(CONV_ORDERS),rho_$(o)=$$$$(sed -n 's/^chebyshev_rho = //p' $(CONV_DIR)/$(1)-rho-$(o).txt); \
	source_$(o)=$$$$(sed -n 's/^chebyshev_rho_source = //p' $(CONV_DIR)/$(1)-rho-$(o).txt); \
	[ -n "$$$$rho_$(o)" ] || { echo "$(CONV_DIR)/$(1)-rho-$(o).txt: no chebyshev_rho line" >&2; exit 1; }; ) \
	flock -x $(CONV_DIR)/.timing.lock env OMP_NUM_THREADS=$(RUN_THREADS) tools/when-idle.sh bin/opsim converge \
	    $(CONV_CONFIG_$(1)) --frame $(CONV_FRAME_$(1)) --iterations $(CONV_ITERATIONS) --repeats $(CONV_REPEATS) \
	    $(foreach o,$(CONV_ORDERS),--study $(o):solver.rotations=$(o)) $(foreach o,$(CONV_ORDERS),$(call conv_study,$(o))) \
	    --out $$$$out; \
	for v in $(CONV_VARIANTS); do mv $$$$out/$$$$v.tsv.meta $(CONV_DIR)/$(1)-$$$$v.tsv.meta; \
	    mv $$$$out/$$$$v.tsv $(CONV_DIR)/$(1)-$$$$v.tsv; done
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

# What `make reproduce` makes in its untimed phase and in its timed phase (Makefile).
CONV_UNTIMED := $(CONV_RHO) $(foreach s,$(CONV_SCENES),$(CONV_DIR)/$(s)-reference.tsv)
CONV_TIMED := $(foreach s,$(CONV_SCENES),$(foreach v,$(CONV_VARIANTS),$(CONV_DIR)/$(s)-$(v).tsv))
