# Floor contacts: where the floor acts, measured side by side. Fig. 5's falling dinosaur (3 × 3)
# and Fig. 7's 52 models (6 × 2), each with the floor at the end of every sub-step (the paper's,
# world.floor_contact = substep), as a projection after every iteration (= iteration) and as a
# bound inside the global step (= solve, solvers/arap_floor.c).
#
#   runs    data/results/floor/SCENE-PLACE.h5        energies logged (the measures)
#   timing  bench_scenes on both scenes with both places, by the timing protocol (docs/timing.md:
#           7 repetitions after 20 warm-up frames, interleaved across the scenes and places, each
#           median with its interval, energy logging off, RUN_THREADS threads, alone): bench.csv,
#           bench_scenes' CSV (its config and setting columns name the scene and the place)
#   table   data/results/floor/table.tsv: per run, over the last 2 s (60 frames, 180 or 360
#           sub-steps): the median reach below the floor before the push-back (the resting
#           sink; with solve, the stored state's, there being no push-back) and the largest over
#           the run; the elastic energy of the iterations' result
#           (the last logged column) and of the state after contacts, medians; the rest-shape
#           error at the end (Fig. 5 only, the one scene that observes it); median ms per frame
#   variants data/results/floor/variants.tsv: the same two scenes with the paper's floor
#           (substep) solved by arap (the substep runs above) and by FLOOR_VARIANTS, whose floor
#           is the world's (they cannot hold it inside their iterations: floor_contact = solve is
#           arap's): runs data/results/floor/SCENE-substep-V.h5; per run the resting sink and
#           largest reach as above, the deepest body-body penetration over the run and over the
#           last 2 s, the kinetic energy's median over the last 2 s (at rest: near 0), the
#           rest-shape error at the end
#
# About a minute on one core, and as much again for the variants. `make reproduce` makes the
# benchmark in its timed phase (Makefile), as Table 1's.

FLOOR_DIR := $(RESULTS)/floor
FLOOR_SCENES := fig5 fig7-52
FLOOR_PLACES := substep iteration solve
FLOOR_RUNS := $(foreach s,$(FLOOR_SCENES),$(foreach p,$(FLOOR_PLACES),$(FLOOR_DIR)/$(s)-$(p).h5))
FLOOR_BENCH := $(FLOOR_DIR)/bench.csv
floor_comma := ,
floor_empty :=
floor_space := $(floor_empty) $(floor_empty)
floor_scene = $(firstword $(subst -substep, ,$(subst -iteration, ,$(subst -solve, ,$(1)))))
FLOOR_VARIANTS := xpbd vbd
FLOOR_VARIANT_RUNS := $(foreach v,$(FLOOR_VARIANTS),$(foreach s,$(FLOOR_SCENES),$(FLOOR_DIR)/$(s)-substep-$(v).h5))

.PHONY: floor
floor: $(FLOOR_DIR)/table.tsv $(FLOOR_DIR)/long.tsv $(FLOOR_DIR)/variants.tsv

$(FLOOR_DIR)/%.h5: $(RUN_DEPS) experiments/fig5.ini experiments/fig7-52.ini | data
	$(call run_figure,experiments/$(call floor_scene,$*).ini,--no-surface --set world.floor_contact=$(lastword $(subst -, ,$*)))

$(FLOOR_VARIANT_RUNS): $(FLOOR_DIR)/%.h5: $(RUN_DEPS) experiments/fig5.ini experiments/fig7-52.ini | data
	$(call run_figure,experiments/$(call floor_scene,$*).ini,--no-surface --set solver.name=$(lastword $(subst -, ,$*)))

$(FLOOR_BENCH): bin/bench/bench_scenes experiments/fig5.ini experiments/fig7-52.ini | data
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  BENCH   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	OMP_NUM_THREADS=$(RUN_THREADS) tools/when-idle.sh bin/bench/bench_scenes -r 7 $(FLOOR_SCENES:%=-s %) \
	    -c world.floor_contact=$(subst $(floor_space),$(floor_comma),$(FLOOR_PLACES)) -o $$out > /dev/null; \
	mv $$out $@; trap - EXIT

# What `make reproduce` makes in its untimed phase and in its timed phase (Makefile).
FLOOR_UNTIMED := $(FLOOR_RUNS) $(FLOOR_DIR)/variants.tsv
FLOOR_TIMED := $(FLOOR_BENCH)

$(FLOOR_DIR)/long.tsv: $(FLOOR_DIR)/table.tsv bin/opsim-report
	$(call long_table,scene floor_contact)

# scene, place, resting sink (m), largest reach (m), elastic energy after the iterations (J),
# after contacts (J), rest-shape error at the end (1, empty where not observed), ms per frame
$(FLOOR_DIR)/table.tsv: $(FLOOR_RUNS) $(FLOOR_BENCH) bin/opsim bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'scene\tfloor_contact\tresting_sink_mm\tlargest_reach_mm\telastic_iterated_J\telastic_after_contacts_J\trest_shape_error_pct\tms_per_frame\n' > $$out; \
	series() { bin/opsim-report series "$$@"; }; \
	for scene in $(FLOOR_SCENES); do for place in $(FLOOR_PLACES); do \
	    run=$(FLOOR_DIR)/$$scene-$$place.h5; \
	    substeps=$$(bin/opsim export $$run --attribute /parameters substeps); last=$$((60 * substeps)); \
	    sink=$$(bin/opsim export $$run /collision/max_floor_reach_before | series --rows -60: --of median); \
	    reach=$$(bin/opsim export $$run /collision/max_floor_reach_before | series --of max); \
	    iterated=$$(bin/opsim export $$run /solver/energy/elastic | series --column last --rows -$$last: --of median); \
	    after=$$(bin/opsim export $$run /solver/energy_after_contacts/elastic | series --rows -$$last: --of median); \
	    shape=; if final=$$(bin/opsim export $$run /observables/shape_error/value 2>/dev/null | series --of last 2>/dev/null); \
	        then shape=$$(bin/opsim-report calc --format %.3f "100 * $$final"); fi; \
	    ms=$$(bin/opsim-report lookup --in $(FLOOR_BENCH) --separator , --where config=experiments/$$scene.ini \
	        --where setting=world.floor_contact=$$place \
	        --where per=scene --column total_ms); \
	    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $$scene $$place "$$(bin/opsim-report calc --format %.2f "1e3 * $$sink")" \
	        "$$(bin/opsim-report calc --format %.2f "1e3 * $$reach")" "$$(bin/opsim-report calc --format %.4g $$iterated)" \
	        "$$(bin/opsim-report calc --format %.4g $$after)" "$$shape" "$$(bin/opsim-report calc --format %.3f $$ms)" >> $$out; \
	done; done; \
	mv $$out $@; trap - EXIT

# scene, solver, resting sink (mm), largest reach (mm), deepest body-body penetration over the run
# and over the last 2 s (mm), median kinetic energy over the last 2 s (J), rest-shape error at the
# end (%, – where not observed)
$(FLOOR_DIR)/variants.tsv: $(FLOOR_SCENES:%=$(FLOOR_DIR)/%-substep.h5) $(FLOOR_VARIANT_RUNS) bin/opsim bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'scene\tsolver\tresting_sink_mm\tlargest_reach_mm\tpenetration_mm\tpenetration_last_2s_mm\tkinetic_last_2s_J\trest_shape_error_pct\n' > $$out; \
	series() { bin/opsim-report series "$$@"; }; mm() { bin/opsim-report calc --format %.2f "1e3 * $$1"; }; \
	for scene in $(FLOOR_SCENES); do for solver in arap $(FLOOR_VARIANTS); do \
	    run=$(FLOOR_DIR)/$$scene-substep-$$solver.h5; [ $$solver = arap ] && run=$(FLOOR_DIR)/$$scene-substep.h5; \
	    sink=$$(bin/opsim export $$run /collision/max_floor_reach_before | series --rows -60: --of median); \
	    reach=$$(bin/opsim export $$run /collision/max_floor_reach_before | series --of max); \
	    deepest=$$(bin/opsim export $$run /collision/max_penetration | series --of max); \
	    late=$$(bin/opsim export $$run /collision/max_penetration | series --rows -60: --of max); \
	    kinetic=$$(bin/opsim export $$run /observables/kinetic/value | series --rows -60: --of median); \
	    shape=; if final=$$(bin/opsim export $$run /observables/shape_error/value 2>/dev/null | series --of last 2>/dev/null); \
	        then shape=$$(bin/opsim-report calc --format %.3f "100 * $$final"); fi; \
	    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $$scene $$solver "$$(mm $$sink)" "$$(mm $$reach)" "$$(mm $$deepest)" \
	        "$$(mm $$late)" "$$(bin/opsim-report calc --format %.4g $$kinetic)" "$$shape" >> $$out; \
	done; done; \
	mv $$out $@; trap - EXIT

.PRECIOUS: $(FLOOR_RUNS) $(FLOOR_BENCH) $(FLOOR_VARIANT_RUNS)
