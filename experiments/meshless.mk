# The experiments of Müller, Heidelberger, Teschner, Gross 2005 (the `meshless` variant,
# solvers/meshless.c): run files and tables under data/results/meshless/, figures under
# reports/figures/meshless-*. `make meshless` makes all of them (about a minute on one core);
# the Choi & Lee Fig. 3 runs of this variant are in experiments/fig3.mk.
#
#   meshless-spring    Fig. 2 / Eq. 11: one spring, explicit Eq. 1 against Eq. 9 (both goal
#                      readings) over h; spring.tsv: the amplitude's growth     (meshless-spring.ini)
#   meshless-pull      Fig. 4: a cube pulled at a corner, rigid/linear/quadratic; pull.tsv
#                                                                                 (meshless-pull.ini)
#   meshless-plastic   Fig. 6: a cube of 8 clusters thrown onto the floor, plasticity on and off,
#                      both goal readings; plastic.tsv                         (meshless-plastic.ini)
#   meshless-stick     Fig. 7: a 60-particle stick pulled at its tip, 1, 2, 5 clusters; stick.tsv,
#                      figure meshless-stick                                     (meshless-stick.ini)
#   meshless-collapse  Fig. 11 on Choi & Lee's Fig. 4 scene: the dinosaur collapsed onto its
#                      centre particle, and squashed onto a plane, beside arap; collapse.tsv,
#                      figure meshless-collapse                                         (fig4.ini)
#   meshless-fall      Choi & Lee's Fig. 5 scene (the dinosaur falling onto the floor) beside arap's
#                      fig5 run; fall.tsv                                                (fig5.ini)
#   meshless-alias     Fig. 5's scene at the variant's defaults (rigid goals, one cluster, Eq. 9 with
#                      goals = start, 3 sub-steps x 3 iterations): the permanent oscillation whose
#                      period is one frame, from the per-sub-step energy log and the stored
#                      sub-step states against what the stored frames show; alias.tsv,
#                      alias-series.tsv, figure meshless-alias                           (fig5.ini)
#   meshless-perf      Sec. 5: 100 and 384 objects of 100 points, 8 clusters, quadratic; ms per
#                      frame and object beside the paper's; perf.tsv             (meshless-perf.ini)
#
# Tables are tab-separated with one plain header line naming the columns (docs/results.md); the
# first column names the row. long.tsv holds all of them in long form.

MESHLESS := $(RESULTS)/meshless
MESHLESS_TARGETS := meshless-spring meshless-pull meshless-plastic meshless-stick meshless-collapse meshless-fall \
    meshless-alias meshless-perf

MESHLESS_TABLES := $(addprefix $(MESHLESS)/,spring.tsv pull.tsv plastic.tsv stick.tsv collapse.tsv fall.tsv \
    alias.tsv perf.tsv)

.PHONY: meshless $(MESHLESS_TARGETS)
meshless: $(MESHLESS_TARGETS) $(MESHLESS)/long.tsv

# Every table of the study in one long form (table, case, measure, value; docs/results.md).
$(MESHLESS)/long.tsv: $(MESHLESS_TABLES) bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)bin/opsim-report long $(MESHLESS_TABLES:%=--in %) --out $@

# mean and spread (max − min) of an observable's last values: "$(call meshless_last,RUN,N,NAME)"
# prints "mean<TAB>spread" of the last N values of /observables/NAME/value; meshless_max its largest
meshless_last = bin/opsim export $(1) /observables/$(3)/value | \
    bin/opsim-report series --rows -$(2): --of mean --of spread --format %.6g
meshless_max = bin/opsim export $(1) /observables/$(2)/value | bin/opsim-report series --of max --format %.6g
meshless_final = bin/opsim export $(1) /observables/$(2)/value | bin/opsim-report series --of last --format %.6g

# ---- Fig. 2: the spring --------------------------------------------------------------------
# A 1 Hz spring, k/m = (2 pi)^2; the explicit scheme is unstable above h_crit = 2 sqrt(m/k) =
# 1/pi s. Eq. 9 at alpha = min(1, h^2 k/m) is the explicit scheme while alpha < 1 (the pinned
# particle weighs 1e6 times its mass in the matching, so the free one is pulled the whole way
# to the rest length) and one full projection beyond.
SPRING_FACTORS := 0.1 0.5 0.9 1.1 2 4 8
SPRING_RUNS := $(foreach g,start predicted,$(SPRING_FACTORS:%=$(MESHLESS)/spring-$(g)-f%.h5))
spring_h = $$(bin/opsim-report calc '$(1) * 2 / (2 * pi)')
spring_alpha = $$(bin/opsim-report calc 'min($(1) * 2 / (2 * pi) * ($(1) * 2 / (2 * pi)) * (2 * pi)^2, 1)')

$(MESHLESS)/spring-%.h5: experiments/meshless-spring.ini $(RUN_DEPS) | bin/opsim-report
	$(call run_figure,$<,--no-surface --set solver.goals=$(word 1,$(subst -f, ,$*)) \
	    --set world.frame_time=$(call spring_h,$(word 2,$(subst -f, ,$*))) \
	    --set solver.alpha=$(call spring_alpha,$(word 2,$(subst -f, ,$*))))

# growth = the largest |stretch| over the last 20 of 60 steps / the largest over the first 20;
# the stretch is the free particle's y from its start (column 5 of the positions)
spring_stretch = bin/opsim export $(1) /particles/position/value | \
    bin/opsim-report series --column 5 --from-first --rows $(2) --of absmax
spring_growth = bin/opsim-report calc --format %.6g \
    "$$($(call spring_stretch,$(1),42:)) / $$($(call spring_stretch,$(1),1:21))"

$(MESHLESS)/spring.tsv: $(SPRING_RUNS) bin/opsim bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; { printf 'h_over_hcrit\th\talpha\texplicit\tstart\tpredicted\n'; \
	for f in $(SPRING_FACTORS); do \
	    printf '%s\t%s\t%s\n' "$$(bin/opsim-report explicit-spring --factor $$f --steps 60)" \
	        "$$($(call spring_growth,$(MESHLESS)/spring-start-f$$f.h5))" \
	        "$$($(call spring_growth,$(MESHLESS)/spring-predicted-f$$f.h5))"; \
	done; } > $@.tmp && mv $@.tmp $@

$(FIGURES)/meshless-spring.png $(FIGURES)/meshless-spring.pdf &: $(MESHLESS)/spring.tsv plots/meshless-spring.gp $(PLOT_DEPS)
	$(call plot_figure,plots/meshless-spring.gp,table='$<')

meshless-spring: $(FIGURES)/meshless-spring.png

# ---- Fig. 4: the pulled cube ----------------------------------------------------------------
PULL_MODES := rigid linear quadratic
PULL_RUNS := $(PULL_MODES:%=$(MESHLESS)/pull-%.h5)

$(MESHLESS)/pull-%.h5: experiments/meshless-pull.ini $(RUN_DEPS)
	$(call run_figure,$<,--no-surface --set solver.mode=$*)

# the rest-shape error under load: its mean and spread over the last second, and its largest
$(MESHLESS)/pull.tsv: $(PULL_RUNS) bin/opsim bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q){ printf 'mode\terror\tspread\tlargest\n'; \
	for m in $(PULL_MODES); do \
	    printf '%s\t%s\t%s\n' $$m "$$($(call meshless_last,$(MESHLESS)/pull-$$m.h5,30,shape_error))" \
	        "$$($(call meshless_max,$(MESHLESS)/pull-$$m.h5,shape_error))"; \
	done; } > $@.tmp && mv $@.tmp $@

meshless-pull: $(MESHLESS)/pull.tsv

# ---- Fig. 6: plasticity ----------------------------------------------------------------------
# RUN = GOALS-plastic (yield 0.05) or GOALS-elastic (yield 10, above any strain)
PLASTIC_NAMES := start-plastic start-elastic predicted-plastic predicted-elastic
PLASTIC_RUNS := $(PLASTIC_NAMES:%=$(MESHLESS)/plastic-%.h5)
plastic_yield = $(if $(filter plastic,$(1)),0.05,10)

$(MESHLESS)/plastic-%.h5: experiments/meshless-plastic.ini $(RUN_DEPS)
	$(call run_figure,$<,--no-surface --set solver.goals=$(word 1,$(subst -, ,$*)) \
	    --set solver.yield=$(call plastic_yield,$(word 2,$(subst -, ,$*))))

$(MESHLESS)/plastic.tsv: $(PLASTIC_RUNS) bin/opsim bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q){ printf 'run\tafter\tspread\tlargest\n'; \
	for r in $(PLASTIC_NAMES); do \
	    printf '%s\t%s\t%s\n' $$r "$$($(call meshless_last,$(MESHLESS)/plastic-$$r.h5,30,shape_error))" \
	        "$$($(call meshless_max,$(MESHLESS)/plastic-$$r.h5,shape_error))"; \
	done; } > $@.tmp && mv $@.tmp $@

meshless-plastic: $(MESHLESS)/plastic.tsv

# ---- Fig. 7: the stick -----------------------------------------------------------------------
STICK_CLUSTERS := 1 2 5
STICK_RUNS := $(STICK_CLUSTERS:%=$(MESHLESS)/stick-c%.h5)

$(MESHLESS)/stick-c%.h5: experiments/meshless-stick.ini $(RUN_DEPS)
	$(call run_figure,$<,--no-surface --set solver.clusters=$*)

# the tip's displacement: mean and spread over the last second
$(MESHLESS)/stick.tsv: $(STICK_RUNS) bin/opsim bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q){ printf 'clusters\ttip\tspread\n'; \
	for c in $(STICK_CLUSTERS); do \
	    printf '%s\t%s\n' $$c "$$($(call meshless_last,$(MESHLESS)/stick-c$$c.h5,30,tip))"; \
	done; } > $@.tmp && mv $@.tmp $@

MESHLESS_STICK_ARGS = runs='$(STICK_RUNS)'; observable='tip'; titles='\"1 cluster\" \"2 clusters\" \"5 clusters\"'; \
    ylabel='tip displacement (m)'; \
    title='Müller et al. 2005 Fig. 7: a 60-particle stick pulled at its tip, quadratic goals'

$(FIGURES)/meshless-stick.png $(FIGURES)/meshless-stick.pdf &: $(STICK_RUNS) plots/overlay.gp $(PLOT_DEPS)
	$(call plot_figure,plots/overlay.gp,$(MESHLESS_STICK_ARGS))

meshless-stick: $(MESHLESS)/stick.tsv $(FIGURES)/meshless-stick.png

# ---- Fig. 11: recovery from a point and from a plane -------------------------------------------
# Choi & Lee's Fig. 4 scene (fig4.ini), quadratic goals, 8 clusters, one iteration a sub-step,
# both goal readings, beside arap's run of make fig4; and the same three from the dinosaur
# squashed onto the horizontal plane through its centre particle (start = flattened).
COLLAPSE_GOALS := start predicted
COLLAPSE_RUNS := $(COLLAPSE_GOALS:%=$(MESHLESS)/collapse-%.h5)
FLAT_RUNS := $(MESHLESS)/flat-arap.h5 $(COLLAPSE_GOALS:%=$(MESHLESS)/flat-%.h5)
COLLAPSE_FRAMES := 1 10 30 150
MESHLESS_COLLAPSE_SET = --no-surface --set solver.name=meshless --set world.iterations=1 \
    --set solver.mode=quadratic --set solver.clusters=8 --set solver.goals=$(1)

$(MESHLESS)/collapse-%.h5: experiments/fig4.ini $(RUN_DEPS) | data
	$(call run_figure,$<,$(call MESHLESS_COLLAPSE_SET,$*))

$(MESHLESS)/flat-arap.h5: experiments/fig4.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set 'body dino.start=flattened')

$(MESHLESS)/flat-%.h5: experiments/fig4.ini $(RUN_DEPS) | data
	$(call run_figure,$<,$(call MESHLESS_COLLAPSE_SET,$*) --set 'body dino.start=flattened')

# the rest-shape error at frames 1, 10, 30, 150 (t = 0.033, 0.33, 1, 5 s), and the kinetic
# energy (J) at the last frame: a body held at one point by a position pin may spin about it
collapse_row = printf '%s\t%s\t%s\n' $(1) \
    "$$(bin/opsim export $(2) /observables/shape_error/value | \
        bin/opsim-report series $(foreach f,$(COLLAPSE_FRAMES),--of at:$(shell echo $$(($(f) + 1)))) --format %.6g)" \
    "$$($(call meshless_final,$(2),kinetic))"

$(MESHLESS)/collapse.tsv: $(COLLAPSE_RUNS) $(FLAT_RUNS) $(FIG4_RUN) bin/opsim bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q){ printf 'method'; for f in $(COLLAPSE_FRAMES); do printf '\tf%s' $$f; done; printf '\tkinetic\n'; \
	$(call collapse_row,arap,$(FIG4_RUN)); \
	$(foreach g,$(COLLAPSE_GOALS),$(call collapse_row,meshless-$(g),$(MESHLESS)/collapse-$(g).h5);) \
	$(call collapse_row,flat-arap,$(MESHLESS)/flat-arap.h5); \
	$(foreach g,$(COLLAPSE_GOALS),$(call collapse_row,flat-meshless-$(g),$(MESHLESS)/flat-$(g).h5);) \
	} > $@.tmp && mv $@.tmp $@

MESHLESS_COLLAPSE_ARGS = runs='$(FIG4_RUN) $(COLLAPSE_RUNS)'; observable='shape_error'; \
    titles='\"arap (10 iterations)\" \"meshless, goals = start (Eq. 9)\" \"meshless, goals = predicted\"'; \
    ylabel='rest-shape error'; \
    title='The dinosaur collapsed onto its pinned centre particle (Choi & Lee Fig. 4; Müller et al. Fig. 11)'

$(FIGURES)/meshless-collapse.png $(FIGURES)/meshless-collapse.pdf &: $(COLLAPSE_RUNS) $(FIG4_RUN) plots/overlay.gp $(PLOT_DEPS)
	$(call plot_figure,plots/overlay.gp,$(MESHLESS_COLLAPSE_ARGS))

meshless-collapse: $(MESHLESS)/collapse.tsv $(FIGURES)/meshless-collapse.png

# ---- Choi & Lee's Fig. 5 with this variant -----------------------------------------------------
# The dinosaur falling onto the floor (fig5.ini: 3 sub-steps), quadratic goals, 8 clusters, one
# iteration a sub-step, both goal readings, beside arap's run of make fig5: the largest rest-shape
# error (on landing), and the rest-shape error and the kinetic energy (J) at the end (5 s).
FALL_RUNS := $(COLLAPSE_GOALS:%=$(MESHLESS)/fall-%.h5)

$(MESHLESS)/fall-%.h5: experiments/fig5.ini $(RUN_DEPS) | data
	$(call run_figure,$<,$(call MESHLESS_COLLAPSE_SET,$*))

fall_row = printf '%s\t%s\t%s\t%s\n' $(1) \
    "$$($(call meshless_max,$(2),shape_error))" \
    "$$($(call meshless_final,$(2),shape_error))" \
    "$$($(call meshless_final,$(2),kinetic))"

$(MESHLESS)/fall.tsv: $(FALL_RUNS) $(FIG5_RUN) bin/opsim bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q){ printf 'method\tlargest\tshape_error\tkinetic\n'; \
	$(call fall_row,arap,$(FIG5_RUN)); \
	$(foreach g,$(COLLAPSE_GOALS),$(call fall_row,meshless-$(g),$(MESHLESS)/fall-$(g).h5);) \
	} > $@.tmp && mv $@.tmp $@

meshless-fall: $(MESHLESS)/fall.tsv

# ---- Choi & Lee's Fig. 5 at the variant's defaults: what the frames do not show -----------------
# Eq. 9 has no damping, and the landed dinosaur keeps oscillating with a period of exactly one
# frame, so every stored frame catches it in the same phase. The run stores every sub-step's
# state (run.output=substeps). Over the last second (the last 30 frames, 90 sub-steps), from the
# run file (`opsim-report alias`, reports/report_alias.h, which also says the rows below):
#   kinetic_substep_J        Eq. 4's momentum term E^k after each sub-step's contacts
#                            (/solver/energy_after_contacts/kinetic, m|x − y|²/2h²): mean, min, max
#   kinetic_substep_k_J      the same at the k-th sub-step of a frame only (k = 3: the stored one)
#   change_one_substep_J     largest |E_s − E_{s−1}| of that series, and change_one_frame_J the
#                            largest |E_s − E_{s−3}|: much smaller when the period is one frame
#   kinetic_frames_J         the kinetic energy the stored frames show: ½ Σ m_i |Δx_i / T|², Δx_i
#                            between consecutive stored positions, T the frame time (mean)
#   motion_substep_mm        √(Σ m_i |Δx_i|² / M), the root-mean-square distance a particle moves
#                            in one sub-step, between consecutive stored sub-steps (mean)
#   motion_frame_mm          √(Σ m_i |Δx_i|² / M) between consecutive stored frames (mean), and
#                            motion_two_frames_mm the same between frames two apart: Eq. 9 at
#                            α = 1 turns a deviation d from the goals as (d, h v) ↦ (h v, h v − d),
#                            eigenvalues e^{±iπ/3}, a period of 6 sub-steps (two frames), so the
#                            positions alternate frame by frame and the energy (∝ v²) has period 3
#   kinetic_states_J, kinetic_states_frames_J, swing_substeps_mm, swing_frames_mm, period_substeps
#                            the same seen in the stored sub-step states, against the frames' only
# alias-series.tsv: every sub-step of the last 9 frames, for the figure (`opsim-report alias-series`)
ALIAS_RUN := $(MESHLESS)/alias-defaults.h5

$(ALIAS_RUN): experiments/fig5.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set solver.name=meshless --set run.output=substeps)

$(MESHLESS)/alias.tsv: $(ALIAS_RUN) bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)bin/opsim-report alias --run $< --out $@

$(MESHLESS)/alias-series.tsv: $(ALIAS_RUN) bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)bin/opsim-report alias-series --run $< --out $@

$(FIGURES)/meshless-alias.png $(FIGURES)/meshless-alias.pdf &: $(MESHLESS)/alias-series.tsv plots/meshless-alias.gp \
		$(PLOT_DEPS)
	$(call plot_figure,plots/meshless-alias.gp,series='$<')

meshless-alias: $(MESHLESS)/alias.tsv $(FIGURES)/meshless-alias.png

# ---- Sec. 5: performance ----------------------------------------------------------------------
# By the timing protocol (docs/timing.md): one bench_scenes call, both sizes interleaved (100,
# 384, 100, 384, …), 7 repetitions, each loaded afresh, 5 warm-up frames then 35 timed (the
# config's 40), one thread, started through tools/when-idle.sh; under `make reproduce` in its
# timed phase (Makefile). perf.tsv: the whole frame's median with its 95 % interval and
# noisy flag, per object, and the solver's (the local and global stages' medians added), per
# object. The paper: 100 objects at 50 frames per second (20 ms a frame, 0.2 ms per object,
# everything included); 384 objects, 0.008 to 0.096 ms of shape matching per frame and object.
PERF_COUNTS := 100 384
PERF_BENCH := $(MESHLESS)/perf.csv
meshless_comma := ,
meshless_empty :=
meshless_space := $(meshless_empty) $(meshless_empty)

$(PERF_BENCH): bin/bench/bench_scenes experiments/meshless-perf.ini data/models.tsv | data
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  BENCH   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	OMP_NUM_THREADS=1 tools/when-idle.sh bin/bench/bench_scenes -w 5 -f 35 -r 7 -i experiments/meshless-perf.ini \
	    -x 'body dino.grid=20 20 20' -c 'body dino.copies=$(subst $(meshless_space),$(meshless_comma),$(PERF_COUNTS))' \
	    -o $$out > $(MESHLESS)/perf.txt; \
	mv $$out $@; trap - EXIT

# What `make reproduce` makes in its untimed phase and in its timed phase (Makefile).
MESHLESS_UNTIMED := $(filter-out meshless-perf,$(MESHLESS_TARGETS))
MESHLESS_TIMED := $(PERF_BENCH)

$(MESHLESS)/perf.tsv: $(PERF_BENCH) bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'objects\tpoints\tframe_ms\tframe_ms_lo\tframe_ms_hi\tframe_ms_noisy\tframe_ms_per_object\tsolver_ms_per_object\tpaper_ms_per_object_min\tpaper_ms_per_object_max\n' > $$out; \
	for c in $(PERF_COUNTS); do \
	    cell() { bin/opsim-report lookup --in $< --separator , --where "setting=body dino.copies=$$c" --column $$1; }; \
	    low=0.008; high=0.096; [ $$c != 100 ] || { low=0.2; high=0.2; }; \
	    printf '%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $$c $$((100 * c)) "$$(cell total_ms)" "$$(cell total_lo_ms)" \
	        "$$(cell total_hi_ms)" "$$(cell total_noisy)" \
	        "$$(bin/opsim-report calc --format %.4g "$$(cell total_ms) / $$c")" \
	        "$$(bin/opsim-report calc --format %.4g "($$(cell local_ms) + $$(cell global_ms)) / $$c")" $$low $$high >> $$out; \
	done; \
	mv $$out $@; trap - EXIT

meshless-perf: $(MESHLESS)/perf.tsv

.PRECIOUS: $(SPRING_RUNS) $(PULL_RUNS) $(PLASTIC_RUNS) $(STICK_RUNS) $(COLLAPSE_RUNS) $(FLAT_RUNS) $(FALL_RUNS) $(PERF_BENCH) \
    $(MESHLESS)/%.h5
