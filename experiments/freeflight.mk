# Free flight: does a free spinning body keep its spin? The dinosaur of experiments/freeflight.ini
# (no gravity, no floor, ω = (0.4, 2, −1) rad/s, k = 1e8) for 100 frames (3.3 s) with every
# variant of the registry (`opsim solvers --names`, so a new variant joins without a line here),
# at Fig. 5's 3 sub-steps × 3 iterations and Fig. 7's 6 × 2, from each starting guess of the
# rotations (world.rotation_start: rigid, the default; predicted; current, opsim's start before
# November 2026). The variant `rigid` is the reference: the same implicit Euler step on one rigid
# body, whose own damping of a turning body is the floor the others are measured against.
#
#   runs    data/results/freeflight/VARIANT-sNiI-START.h5
#   table   data/results/freeflight/table.tsv: per run |L| and kinetic energy after 1 s and 3.3 s
#           over the reference's at the same settings; a variant that refuses the scene gets a row
#           saying so, with the reason
#   figure  reports/figures/freeflight.png: |L| over its start against time, 3 × 3
#   springs data/results/freeflight/springs-newton.tsv: where the springs' spin goes. The same
#           flight (30 frames, 3 sub-steps) with the exact Jacobian (jacobian_damping = 0, the
#           default) and the paper's damped one (0.01), at 1, 3, 10, 30 and 100 Newton steps a
#           sub-step: |L| after one frame and after 1 s over the rigid reference's at the same
#           settings. Newton steps alone would lose less spin the more of them there are; the
#           damped Jacobian's transverse stiffness at rest (solvers/springs.c) is what takes it.
#
# The runs are made inside the table's rule (the variants are known only once bin/opsim is
# built); about 10 s on one core.

FREEFLIGHT_DIR := $(RESULTS)/freeflight
FREEFLIGHT_SETTINGS := 3x3 6x2
FREEFLIGHT_STARTS := rigid predicted current

FREEFLIGHT_NEWTON_STEPS := 1 3 10 30 100
FREEFLIGHT_JACOBIAN_DAMPINGS := 0 0.01

.PHONY: freeflight
freeflight: $(FIGURES)/freeflight.png $(FREEFLIGHT_DIR)/springs-newton.tsv $(FREEFLIGHT_DIR)/long.tsv

$(FREEFLIGHT_DIR)/long.tsv: $(FREEFLIGHT_DIR)/table.tsv bin/opsim-report
	$(call long_table,variant substeps iterations start)

# variant, sub-steps, iterations, start, |L| at 0, |L| after 1 s and 3.3 s over the reference's,
# kinetic energy after 1 s and 3.3 s over the reference's (empty where the variant refused),
# note ("refused: REASON")
$(FREEFLIGHT_DIR)/table.tsv: experiments/freeflight.ini $(RUN_DEPS) | data bin/opsim-report
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'variant\tsubsteps\titerations\tstart\tL0\tL_1s_over_rigid\tL_3s_over_rigid\tKE_1s_over_rigid\tKE_3s_over_rigid\tnote\n' > $$out; \
	value() { bin/opsim export $$1 /observables/$$2/value | sed -n "$$3p"; }; \
	for setting in $(FREEFLIGHT_SETTINGS); do \
	    ns=$${setting%x*}; ni=$${setting#*x}; \
	    reference=$(FREEFLIGHT_DIR)/rigid-s$${ns}i$${ni}.h5; \
	    $(OPSIM_RUN) run $< --set solver.name=rigid --set world.substeps=$$ns --set world.iterations=$$ni \
	        --set run.frames=100 --no-surface --out $$reference > /dev/null; \
	    for variant in $$(bin/opsim solvers --names); do \
	        [ $$variant != rigid ] || continue; \
	        for start in $(FREEFLIGHT_STARTS); do \
	            run=$(FREEFLIGHT_DIR)/$$variant-s$${ns}i$${ni}-$$start.h5; \
	            if ! $(OPSIM_RUN) run $< --set solver.name=$$variant --set world.substeps=$$ns --set world.iterations=$$ni \
	                    --set world.rotation_start=$$start --set run.frames=100 --no-surface --out $$run \
	                    > /dev/null 2> $$run.err; then \
	                printf '%s\t%s\t%s\t%s\t\t\t\t\t\trefused: %s\n' $$variant $$ns $$ni $$start \
	                    "$$(head -n 1 $$run.err | tr '\t' ' ')" >> $$out; rm -f $$run.err; continue; \
	            fi; rm -f $$run.err; \
	            printf '%s\t%s\t%s\t%s\t%.4g\t%.4g\t%.4g\t%.4g\t%.4g\t\n' $$variant $$ns $$ni $$start \
	                $$(value $$run spin 1) \
	                $$(bin/opsim-report calc --format %.6g "$$(value $$run spin 31) / $$(value $$reference spin 31)") \
	                $$(bin/opsim-report calc --format %.6g "$$(value $$run spin 101) / $$(value $$reference spin 101)") \
	                $$(bin/opsim-report calc --format %.6g "$$(value $$run kinetic 31) / $$(value $$reference kinetic 31)") \
	                $$(bin/opsim-report calc --format %.6g "$$(value $$run kinetic 101) / $$(value $$reference kinetic 101)") >> $$out; \
	        done; \
	    done; \
	done; \
	mv $$out $@; trap - EXIT

$(FIGURES)/freeflight.png $(FIGURES)/freeflight.pdf &: $(FREEFLIGHT_DIR)/table.tsv plots/freeflight.gp $(PLOT_DEPS)
	$(call plot_figure,plots/freeflight.gp,dir='$(FREEFLIGHT_DIR)'; variants='$(shell bin/opsim solvers --names | grep -vx rigid | tr '\n' ' ')')

# run (jJ-iN), jacobian_damping, Newton steps a sub-step, |L| after one frame and after 1 s over
# the rigid reference's at the same sub-steps and iterations
$(FREEFLIGHT_DIR)/springs-newton.tsv: experiments/freeflight.ini $(RUN_DEPS) | data bin/opsim-report
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'run\tjacobian_damping\tnewton_steps\tL_1frame_over_rigid\tL_1s_over_rigid\n' > $$out; \
	value() { bin/opsim export $$1 /observables/spin/value | sed -n "$$2p"; }; \
	for steps in $(FREEFLIGHT_NEWTON_STEPS); do \
	    reference=$(FREEFLIGHT_DIR)/newton-rigid-i$$steps.h5; \
	    $(OPSIM_RUN) run $< --set solver.name=rigid --set world.iterations=$$steps --set run.frames=30 \
	        --no-surface --out $$reference > /dev/null; \
	    for damping in $(FREEFLIGHT_JACOBIAN_DAMPINGS); do \
	        run=$(FREEFLIGHT_DIR)/newton-springs-j$$damping-i$$steps.h5; \
	        $(OPSIM_RUN) run $< --set solver.name=springs --set solver.jacobian_damping=$$damping \
	            --set world.iterations=$$steps --set run.frames=30 --no-surface --out $$run > /dev/null; \
	        printf 'j%s-i%s\t%s\t%s\t%.4g\t%.4g\n' $$damping $$steps $$damping $$steps \
	            $$(bin/opsim-report calc "$$(value $$run 2) / $$(value $$reference 2)") \
	            $$(bin/opsim-report calc "$$(value $$run 31) / $$(value $$reference 31)") >> $$out; \
	    done; \
	done; \
	mv $$out $@; trap - EXIT
