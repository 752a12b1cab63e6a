# The springs variant (Vogiannou et al. 2010, implicit Euler with CG: solvers/springs.c) on its
# paper's experiments and on Choi & Lee's scenes. Results under data/results/springs/, figures
# reports/figures/springs-*.png and .pdf, tables as TSV with a '#' header (the report quotes them
# through {{tsv ...}}). `make springs` makes all of it (one core: about a minute); the bar of
# Fig. 3 with springs is in experiments/fig3.mk's table.
#
#   experiment 1  curves.tsv, curve-points.tsv,  the paper's Fig. 1 and 2: g'(x) and g(x) of the
#                 springs-curves                 three laws from `opsim spring-curves`
#   experiment 2  drape-rRHO-jJ.h5, drape.tsv,   its Fig. 3: an 8 x 8 cloth held at its corners,
#                 springs-drape                  the exact Jacobian (j0) against the paper's damped
#                                                one (j0.01), at three cloth densities RHO (the
#                                                heavier, the more stretched); stretch-jJ.h5,
#                                                stretch.tsv: held along two edges and pulled to
#                                                1.5 times its width, as the paper does
#   experiment 3  ball-LAW.h5, ball.tsv          its Fig. 4: a 10 kg block (no sphere shape) into the
#                                                border-held 1,024-particle cloth, full cubic against
#                                                linear springs of the same K
#   experiment 4  hang-LAW.h5, hang.tsv          its Fig. 5: a 5 kg cube hanging from the 1,024-particle
#                                                cloth held along its top edge, each law (cloth and cube
#                                                are one joined model: no joint between bodies)
#   experiment 5  cube-LAW-sN.h5, cube.tsv       its Fig. 6: a 5 kg block on the 729-particle lattice
#                                                cube, each law, at N = 2 and 8 sub-steps a frame
#   experiment 6  time-SCENE-LAW-MATRIX.h5,      its Fig. 7: time per frame of the three laws, with
#                 timing-SCENE.csv, timing.tsv   assembled and matrix-free CG products, on the
#                                                hanging 1,024-particle cloth and Fig. 5's dinosaur
#                                                (timed by bench_scenes, the timing protocol)
#   experiment 7  fig5-LAW.h5, dino.tsv          Choi & Lee's Fig. 5 (the falling dinosaur) with
#                                                springs of each law (K from the body's k);
#                 fig4-collapsed.h5, collapsed.tsv   its Fig. 4 start (every particle at one point)
#
# Vogiannou's own scenes (experiments 2 to 5, and 6's cloth) run with the paper's Jacobian damping,
# jacobian_damping = 0.01 in their configs (experiment 2 also with 0); Choi & Lee's scenes
# (experiments 6's and 7's dinosaur, fig3.mk, make freeflight, make variants) with the variant's
# default, the exact Jacobian: the damped one gives every edge at rest a transverse stiffness that
# turns a free body's spin away (solvers/springs.c; measured in make freeflight's
# springs-newton.tsv).

SPRINGS := $(RESULTS)/springs
SPRINGS_LAWS := linear cubic2 cubic

$(SPRINGS)/curves.tsv: bin/opsim
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)bin/opsim spring-curves > $@.tmp && mv $@.tmp $@

# the same at x = 0.5, 0.6, ..., 1.5, for the report's table
$(SPRINGS)/curve-points.tsv: bin/opsim
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)bin/opsim spring-curves --from 0.5 --to 1.5 --samples 11 > $@.tmp && mv $@.tmp $@

$(FIGURES)/springs-curves.png $(FIGURES)/springs-curves.pdf &: $(SPRINGS)/curves.tsv plots/springs-curves.gp $(PLOT_DEPS)
	$(call plot_figure,plots/springs-curves.gp,table='$(SPRINGS)/curves.tsv')

# ---- experiment 2: drape-rRHO-jJ.h5 ---------------------------------------------------------
SPRINGS_DRAPE_DENSITIES := 100 1000 5000
SPRINGS_DRAPE_DAMPINGS := 0 0.01
SPRINGS_DRAPE_RUNS := $(foreach r,$(SPRINGS_DRAPE_DENSITIES),$(foreach j,$(SPRINGS_DRAPE_DAMPINGS),$(SPRINGS)/drape-r$(r)-j$(j).h5))
springs_field = $(patsubst $(2)%,%,$(filter $(2)%,$(subst -, ,$(1))))

$(SPRINGS)/drape-%.h5: experiments/springs-cloth-drape.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set 'model sheet256.density=$(call springs_field,$*,r)' \
	    --set solver.jacobian_damping=$(call springs_field,$*,j))

# density, Jacobian damping, final largest stretch, kinetic energy at 2, 5 and 10 s (J), and the
# centre's out-of-plane (vertical) swing over the last 2 s (m)
$(SPRINGS)/drape.tsv: $(SPRINGS_DRAPE_RUNS) bin/opsim bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'run\tdensity\tjacobian_damping\tstretch_max\tkinetic_2s_J\tkinetic_5s_J\tkinetic_10s_J\tswing_last_2s_m\n' > $$out; \
	for run in $(SPRINGS_DRAPE_RUNS); do \
	    name=$$(basename $$run .h5); rest=$${name#drape-r}; rho=$${rest%-j*}; jd=$${rest#*-j}; \
	    stretch=$$(bin/opsim export $$run /observables/stretch/value | tail -n 1); \
	    ke=$$(bin/opsim export $$run /observables/kinetic/value | bin/opsim-report series --of at:61 --of at:151 --of at:301); \
	    swing=$$(bin/opsim export $$run /observables/sag/value | bin/opsim-report series --rows 242: --of spread --format %.6g); \
	    printf '%s\t%s\t%s\t%s\t%s\t%s\n' $$name $$rho $$jd $$stretch "$$ke" $$swing >> $$out; \
	done; \
	mv $$out $@; trap - EXIT

SPRINGS_DRAPE_ARGS = runs='$(SPRINGS_DRAPE_RUNS)'

$(FIGURES)/springs-drape.png $(FIGURES)/springs-drape.pdf &: $(SPRINGS_DRAPE_RUNS) plots/springs-drape.gp $(PLOT_DEPS)
	$(call plot_figure,plots/springs-drape.gp,$(SPRINGS_DRAPE_ARGS))

# The same cloth held along two edges and pulled to 1.5 times its width (the paper's own set-up):
# stretch-jJ.h5
SPRINGS_STRETCH_RUNS := $(SPRINGS_DRAPE_DAMPINGS:%=$(SPRINGS)/stretch-j%.h5)

$(SPRINGS)/stretch-j%.h5: experiments/springs-cloth-stretch.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set solver.jacobian_damping=$*)

# Jacobian damping, final largest stretch, kinetic energy 1, 2 and 6 s after the pull ends (J),
# the centre's vertical swing over the last 2 s (m)
$(SPRINGS)/stretch.tsv: $(SPRINGS_STRETCH_RUNS) bin/opsim bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'run\tjacobian_damping\tstretch_max\tkinetic_7s_J\tkinetic_8s_J\tkinetic_12s_J\tswing_last_2s_m\n' > $$out; \
	for run in $(SPRINGS_STRETCH_RUNS); do name=$$(basename $$run .h5); \
	    stretch=$$(bin/opsim export $$run /observables/stretch/value | tail -n 1); \
	    ke=$$(bin/opsim export $$run /observables/kinetic/value | bin/opsim-report series --of at:211 --of at:241 --of at:361); \
	    swing=$$(bin/opsim export $$run /observables/sag/value | bin/opsim-report series --rows 302: --of spread --format %.6g); \
	    printf '%s\t%s\t%s\t%s\t%s\n' $$name $${name#stretch-j} $$stretch "$$ke" $$swing >> $$out; \
	done; \
	mv $$out $@; trap - EXIT

# ---- experiment 3: ball-LAW.h5 (a 10 kg block into the border-held cloth) -------------------
SPRINGS_BALL_RUNS := $(SPRINGS)/ball-linear.h5 $(SPRINGS)/ball-cubic.h5

$(SPRINGS)/ball-%.h5: experiments/springs-ball.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set solver.force=$*)

# law, the cloth's largest edge stretch over the run and at the end, the centre's largest and
# final sag (m)
$(SPRINGS)/ball.tsv: $(SPRINGS_BALL_RUNS) bin/opsim
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'law\tstretch_peak\tstretch_final\tsag_max_m\tsag_final_m\n' > $$out; \
	for run in $(SPRINGS_BALL_RUNS); do law=$$(basename $$run .h5); law=$${law#ball-}; \
	    printf '%s\t%s\t%s\t%s\t%s\n' $$law \
	        $$(bin/opsim export $$run /observables/stretch/value | sort -g | tail -n 1) \
	        $$(bin/opsim export $$run /observables/stretch/value | tail -n 1) \
	        $$(bin/opsim export $$run /observables/sag/value | sort -g | tail -n 1) \
	        $$(bin/opsim export $$run /observables/sag/value | tail -n 1) >> $$out; \
	done; \
	mv $$out $@; trap - EXIT

# ---- experiment 4: hang-LAW.h5 (a 5 kg cube hanging from the cloth) ---------------------------
SPRINGS_HANG_RUNS := $(SPRINGS_LAWS:%=$(SPRINGS)/hang-%.h5)

$(SPRINGS)/hang-%.h5: experiments/springs-hang.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set solver.force=$*)

# law, the cloth's and the cube's mass (kg: particles 0-1023 and 1024-1031 of the joined model),
# the largest edge stretch over the run and at the end (the cube's and joining edges are nearly
# rigid, so this is the cloth's), the cube's largest and final drop (m: the centre of its bottom
# face), the final kinetic energy (J)
$(SPRINGS)/hang.tsv: $(SPRINGS_HANG_RUNS) bin/opsim bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'law\tcloth_kg\tcube_kg\tstretch_peak\tstretch_final\tdrop_max_m\tdrop_final_m\tkinetic_final_J\n' > $$out; \
	for law in $(SPRINGS_LAWS); do run=$(SPRINGS)/hang-$$law.h5; \
	    printf '%s\t%s\t%s\t%s\t%s\t%s\n' $$law \
	        "$$(bin/opsim export $$run /graph/hang/mass | bin/opsim-report series --rows 1:1024 --of sum --format %.4f)	$$(bin/opsim export $$run /graph/hang/mass | bin/opsim-report series --rows 1025: --of sum --format %.4f)" \
	        "$$(bin/opsim export $$run /observables/stretch/value | sort -g | tail -n 1)	$$(bin/opsim export $$run /observables/stretch/value | tail -n 1)" \
	        $$(bin/opsim export $$run /observables/drop/value | sort -g | tail -n 1) \
	        $$(bin/opsim export $$run /observables/drop/value | tail -n 1) \
	        $$(bin/opsim export $$run /observables/kinetic/value | tail -n 1) >> $$out; \
	done; \
	mv $$out $@; trap - EXIT

# ---- experiment 5: cube-LAW-sN.h5 (a 5 kg block on the 729-particle lattice cube) ------------
SPRINGS_CUBE_RUNS := $(foreach n,2 8,$(foreach l,$(SPRINGS_LAWS),$(SPRINGS)/cube-$(l)-s$(n).h5))

$(SPRINGS)/cube-%.h5: experiments/springs-cube.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set solver.force=$(word 1,$(subst -, ,$*)) \
	    --set world.substeps=$(patsubst s%,%,$(word 2,$(subst -, ,$*))))

# run, law, sub-steps a frame, the soft cube's smallest and final height (m; 0.159 at rest), the
# most inverted edges at any output frame, the smallest edge length ratio
$(SPRINGS)/cube.tsv: $(SPRINGS_CUBE_RUNS) bin/opsim
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'run\tlaw\tsubsteps\theight_min_m\theight_final_m\tinverted_max\tstretch_min\n' > $$out; \
	for run in $(SPRINGS_CUBE_RUNS); do name=$$(basename $$run .h5); set -- $$(echo $${name#cube-} | tr '-' ' '); \
	    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $$name $$1 $${2#s} \
	        $$(bin/opsim export $$run /observables/height/value | sort -g | head -n 1) \
	        $$(bin/opsim export $$run /observables/height/value | tail -n 1) \
	        $$(bin/opsim export $$run /observables/inverted/value | sort -g | tail -n 1) \
	        $$(bin/opsim export $$run /observables/squeeze/value | sort -g | head -n 1) >> $$out; \
	done; \
	mv $$out $@; trap - EXIT

# ---- experiment 6: time-SCENE-LAW-MATRIX.h5 ---------------------------------------------------
SPRINGS_MATRICES := assembled free
SPRINGS_TIME_RUNS := $(foreach s,cloth dino,$(foreach l,$(SPRINGS_LAWS),$(foreach m,$(SPRINGS_MATRICES),$(SPRINGS)/time-$(s)-$(l)-$(m).h5)))
springs_config = $(if $(filter cloth,$(1)),experiments/springs-cloth-hang.ini,experiments/fig5.ini)

$(SPRINGS)/time-%.h5: experiments/springs-cloth-hang.ini experiments/fig5.ini $(RUN_DEPS) | data
	$(call run_figure,$(call springs_config,$(word 1,$(subst -, ,$*))),--no-surface --set solver.name=springs \
	    --set solver.force=$(word 2,$(subst -, ,$*)) --set solver.matrix=$(word 3,$(subst -, ,$*)) \
	    --set world.log_energy=false --set run.frames=60 --set run.output_every=60)

# ms per frame by the timing protocol (docs/timing.md): one bench_scenes call a scene, its six
# law-and-products settings interleaved (round 1: each once, …), 7 repetitions, each loaded
# afresh with energy logging off, SPRINGS_TIME_WARMUP untimed frames then SPRINGS_TIME_FRAMES
# timed (5 + 10: seven repetitions cost less than twice the one 60-frame run each setting also
# makes for its CG counts and shape), one thread, started through tools/when-idle.sh and, under
# `make reproduce`, in its timed phase (Makefile).
SPRINGS_TIME_WARMUP := 5
SPRINGS_TIME_FRAMES := 10
SPRINGS_TIME_BENCH := $(SPRINGS)/timing-cloth.csv $(SPRINGS)/timing-dino.csv
springs_variants = $(foreach l,$(SPRINGS_LAWS),$(foreach m,$(SPRINGS_MATRICES),-V '$(l)-$(m):solver.name=springs;solver.force=$(l);solver.matrix=$(m)'))

$(SPRINGS)/timing-%.csv: bin/bench/bench_scenes experiments/springs-cloth-hang.ini experiments/fig5.ini data/models.tsv | data
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  BENCH   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	OMP_NUM_THREADS=1 tools/when-idle.sh bin/bench/bench_scenes -w $(SPRINGS_TIME_WARMUP) -f $(SPRINGS_TIME_FRAMES) \
	    -r 7 -i $(call springs_config,$*) $(springs_variants) -o $$out > $(SPRINGS)/timing-$*.txt; \
	mv $$out $@; trap - EXIT


# scene, law, products, ms per frame (the median, its 95 % interval, noisy), mean CG iterations
# per sub-step over the timed frames (from the run of the setting), µs per CG iteration (the
# median frame's time over its share of the iterations), final stretch of the cloth's edges (the
# dinosaur's rest-shape error instead)
$(SPRINGS)/timing.tsv: $(SPRINGS_TIME_RUNS) $(SPRINGS_TIME_BENCH) bin/opsim bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'run\tscene\tlaw\tproducts\tms_per_frame\tms_per_frame_lo\tms_per_frame_hi\tms_per_frame_noisy\tcg_per_substep\tus_per_cg_iteration\tshape\n' > $$out; \
	for run in $(SPRINGS_TIME_RUNS); do \
	    name=$$(basename $$run .h5); set -- $$(echo $${name#time-} | tr '-' ' '); \
	    cell() { bin/opsim-report lookup --in $(SPRINGS)/timing-$$1.csv --separator , --where "setting=$$2-$$3" --column $$4; }; \
	    ms=$$(cell $$1 $$2 $$3 total_ms); \
	    substeps=$$(bin/opsim export $$run --attribute /parameters substeps); \
	    first=$$(($(SPRINGS_TIME_WARMUP) * substeps + 1)); last=$$((($(SPRINGS_TIME_WARMUP) + $(SPRINGS_TIME_FRAMES)) * substeps)); \
	    cg=$$(bin/opsim export $$run /solver/linear_iterations | bin/opsim-report series --rows $$first:$$last --of mean --format %.1f); \
	    if [ $$1 = cloth ]; then obs=stretch; else obs=shape_error; fi; \
	    shape=$$(bin/opsim export $$run /observables/$$obs/value | tail -n 1); \
	    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $$name $$1 $$2 $$3 $$ms "$$(cell $$1 $$2 $$3 total_lo_ms)" \
	        "$$(cell $$1 $$2 $$3 total_hi_ms)" "$$(cell $$1 $$2 $$3 total_noisy)" $$cg \
	        $$(bin/opsim-report calc --format %.3g "1e3 * $$ms / ($$cg * $$substeps)") $$shape >> $$out; \
	done; \
	mv $$out $@; trap - EXIT

# ---- experiment 7: Choi & Lee's Fig. 5 with springs -------------------------------------------
SPRINGS_DINO_RUNS := $(SPRINGS_LAWS:%=$(SPRINGS)/fig5-%.h5)

$(SPRINGS)/fig5-%.h5: experiments/fig5.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set solver.name=springs --set solver.force=$*)

# law, lowest point at the end (m), largest and final rest-shape error, final kinetic energy (J)
$(SPRINGS)/dino.tsv: $(SPRINGS_DINO_RUNS) bin/opsim bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'law\tlowest_m\tshape_error_max\tshape_error_final\tkinetic_final_J\tcg_per_substep\n' > $$out; \
	for law in $(SPRINGS_LAWS); do run=$(SPRINGS)/fig5-$$law.h5; \
	    printf '%s\t%s\t%s\t%s\t%s\t%s\n' $$law \
	        $$(bin/opsim export $$run /observables/lowest/value | tail -n 1) \
	        $$(bin/opsim export $$run /observables/shape_error/value | sort -g | tail -n 1) \
	        $$(bin/opsim export $$run /observables/shape_error/value | tail -n 1) \
	        $$(bin/opsim export $$run /observables/kinetic/value | tail -n 1) \
	        $$(bin/opsim export $$run /solver/linear_iterations | bin/opsim-report series --of mean --format %.1f) >> $$out; \
	done; \
	mv $$out $@; trap - EXIT

# Fig. 4's collapsed start with springs: every spring of zero length, without a direction
SPRINGS_COLLAPSED_RUN := $(SPRINGS)/fig4-collapsed.h5

$(SPRINGS_COLLAPSED_RUN): experiments/fig4.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set solver.name=springs --set run.frames=30 --set run.output_every=30)

# rest-shape error at the start and after 1 s, kinetic energy after 1 s
$(SPRINGS)/collapsed.tsv: $(SPRINGS_COLLAPSED_RUN) bin/opsim
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'run\tshape_error_start\tshape_error_1s\tkinetic_1s_J\n' > $$out; \
	printf 'fig4-collapsed\t%s\t%s\t%s\n' \
	    $$(bin/opsim export $(SPRINGS_COLLAPSED_RUN) /observables/shape_error/value | head -n 1) \
	    $$(bin/opsim export $(SPRINGS_COLLAPSED_RUN) /observables/shape_error/value | tail -n 1) \
	    $$(bin/opsim export $(SPRINGS_COLLAPSED_RUN) /observables/kinetic/value | tail -n 1) >> $$out; \
	mv $$out $@; trap - EXIT

# Every table of the study but the dense curves.tsv in one long form (table, case, measure,
# value; docs/results.md).
SPRINGS_TABLES := $(addprefix $(SPRINGS)/,curve-points.tsv drape.tsv stretch.tsv ball.tsv hang.tsv cube.tsv timing.tsv \
    dino.tsv collapsed.tsv)
$(SPRINGS)/long.tsv: $(SPRINGS_TABLES) bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)bin/opsim-report long $(SPRINGS_TABLES:%=--in %) --out $@

# What `make reproduce` makes in its untimed phase (all but the timing and the long table made
# with it) and in its timed phase (Makefile).
SPRINGS_UNTIMED := $(FIGURES)/springs-curves.png $(SPRINGS)/curve-points.tsv $(SPRINGS)/drape.tsv \
    $(FIGURES)/springs-drape.png $(SPRINGS)/stretch.tsv $(SPRINGS)/ball.tsv $(SPRINGS)/hang.tsv $(SPRINGS)/cube.tsv \
    $(SPRINGS)/dino.tsv $(SPRINGS)/collapsed.tsv $(SPRINGS_TIME_RUNS)
SPRINGS_TIMED := $(SPRINGS_TIME_BENCH)

.PHONY: springs
springs: $(SPRINGS_UNTIMED) $(SPRINGS)/timing.tsv $(SPRINGS)/long.tsv
figures: springs

.PRECIOUS: $(SPRINGS_COLLAPSED_RUN) $(SPRINGS_DRAPE_RUNS) $(SPRINGS_STRETCH_RUNS) $(SPRINGS)/stretch-j%.h5 $(SPRINGS_BALL_RUNS) $(SPRINGS_HANG_RUNS) $(SPRINGS_CUBE_RUNS) $(SPRINGS_TIME_RUNS) $(SPRINGS_TIME_BENCH) $(SPRINGS_DINO_RUNS) \
           $(SPRINGS)/drape-%.h5 $(SPRINGS)/ball-%.h5 $(SPRINGS)/hang-%.h5 $(SPRINGS)/cube-%.h5 $(SPRINGS)/time-%.h5 $(SPRINGS)/fig5-%.h5
