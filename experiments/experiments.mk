# The paper's Figures 1, 2 and 4 to 7: run files under data/results/figN/ (bin/opsim run on
# experiments/figN*.ini, variants through --set) and pictures under reports/figures/figN-*.png
# and .pdf (plots/*.gp, one gnuplot run writes both). `make figures` makes all of them and
# Fig. 3 (experiments/fig3.mk).
#
#   fig1  fig1-snapshots          the bar twisted and moved, 8 frames       (fig1.ini)
#   fig2  fig2-snapshots          the three bars k, 2k, 4k at the last frame (fig2.ini)
#         fig2-deflection         steady tip deflection against k: the three bars and the
#                                 same scene with every stiffness x1/8 and x8 (9 values of k)
#   fig4  fig4-snapshots          the dinosaur at frames 0, 2, 5, 10, 30, 150 (fig4.ini)
#         fig4-recovery           rest-shape error and energy against time
#   fig5  fig5-snapshots          the dinosaur falling onto the floor         (fig5.ini)
#         fig5-falling            lowest point and kinetic energy against time
#         (dino-current.h5, dino-converged.h5: the rotation start before November 2026 and 30
#         iterations a sub-step, for the report)
#         fig5-iterations         energy against iteration, Gauss-Seidel vs Jacobi rotations:
#                                 fig4 frame 1 (1000 iterations, same start), fig4 frame 5,
#                                 fig5 frame 30 (solver.rotations=jacobi variants of both)
#   fig6  fig6-rod-snapshots      the sheet on the spinning rod                (fig6-rod.ini)
#         fig6-bunny-snapshots    the bunny falling onto the held sheet        (fig6-bunny.ini)
#         fig6-contacts           penetration left and penetrating pairs per frame
#   fig7  fig7-52-snapshots       52 models into the fenced floor              (fig7-52.ini)
#         fig7-180-snapshots      180 models                                   (fig7-180.ini)
#         fig7-contacts           penetration left and penetrating pairs, both scenes
#         data/results/fig7/contacts.tsv   per scene (Fig. 6's bunny and sheet, both Fig. 7
#                                 scenes) and pass order (world.collision_order colours, the
#                                 default, and jacobi, every pair from the passes' start): the deepest
#                                 penetration left between bodies over the run and over the
#                                 last 2 s (60 frames), in mm and in % of the scene's smallest
#                                 semi-axis (/collision smallest_semi_axis; the overlaps of the
#                                 stored states, every sub-step: collide.h, "Rounds"); rounds1
#                                 rows: one round of passes (collision_rounds = 1); and both piles
#                                 in colour order with the 8 passes only (models*-fixed.h5,
#                                 world.collision_passes_max = 0: none past them for deep pairs)
#         (models52-current.h5, models180-current.h5: the rotation start before November 2026)
#
# Run files depend on bin/opsim, their config and data/models.tsv (and need the meshes: `| data`);
# figures on their run files, their plot script and plots/style.gp. Run files are precious.

RESULTS := data/results
FIGURES := reports/figures
# Runs under make take one OpenMP thread each (RUN_THREADS): make -j already runs them side by
# side, and two runs with a team of two threads each on two cores wait on each other at every
# barrier (a frame of the 180 models took a second rather than 25 ms). Results are bitwise the
# same for any thread count (tests/test_experiments.c); Table 1's benchmark runs alone, after
# every experiment, with OpenMP's default team (reports/reports.mk).
RUN_THREADS ?= 1
OPSIM_RUN := OMP_NUM_THREADS=$(RUN_THREADS) bin/opsim
FIGURE_TARGETS := fig1 fig2 fig3 fig4 fig5 fig6 fig7

.PHONY: figures $(FIGURE_TARGETS)
figures: $(FIGURE_TARGETS)

# $(call run_figure,CONFIG,EXTRA ARGUMENTS): one run of the config into $@ (opsim writes it
# under a temporary name and renames it when complete, so a failed run leaves nothing).
define run_figure
@mkdir -p $(dir $@)
@$(if $(Q),echo "  RUN     $@")
$(Q)$(OPSIM_RUN) run $(1) $(2) --out $@
endef

# $(call plot_figure,SCRIPT,GNUPLOT ASSIGNMENTS): writes $(basename $@).png and .pdf. The
# assignments hold commas, so they are passed in a variable (FIGn_..._ARGS below).
define plot_figure
@mkdir -p $(dir $@)
@$(if $(Q),echo "  PLOT    $(basename $@).png .pdf")
$(Q)gnuplot -e "out='$(basename $@)'; $(2)" $(1)
endef

# $(call long_table,KEY COLUMNS): $@, the study's table $< in long form (KEYS, measure, value;
# opsim-report long, docs/results.md), for a notebook to pivot.
define long_table
@$(if $(Q),echo "  TABLE   $@")
$(Q)bin/opsim-report long --in $< --keys '$(1)' --out $@
endef

RUN_DEPS := bin/opsim data/models.tsv
PLOT_DEPS := plots/style.gp bin/opsim

# ---- Fig. 1 -----------------------------------------------------------------------------------
FIG1_RUN := $(RESULTS)/fig1/bar.h5

$(FIG1_RUN): experiments/fig1.ini $(RUN_DEPS) | data
	$(call run_figure,$<)

FIG1_SNAPSHOTS_ARGS = run='$(FIG1_RUN)'; frames='0 30 60 90 120 150 180 last'; layout='2,4'; \
    view='70,20'; panel=400; tone=1; \
    title='Fig. 1: a bar twisted and moved by one end (position and direction constraints), the other end held'

$(FIGURES)/fig1-snapshots.png $(FIGURES)/fig1-snapshots.pdf &: $(FIG1_RUN) plots/snapshots.gp $(PLOT_DEPS)
	$(call plot_figure,plots/snapshots.gp,$(FIG1_SNAPSHOTS_ARGS))

fig1: $(FIGURES)/fig1-snapshots.png

# ---- Fig. 2 -----------------------------------------------------------------------------------
# The figure's run and the same scene with every body's stiffness scaled (bars-xF.h5: x F).
FIG2_RUN := $(RESULTS)/fig2/bars.h5
FIG2_SCALES := 0.125 8
FIG2_SWEEP := $(FIG2_SCALES:%=$(RESULTS)/fig2/bars-x%.h5)

$(FIG2_RUN): experiments/fig2.ini $(RUN_DEPS) | data
	$(call run_figure,$<)

# Every `stiffness = K` of a [body NAME] section becomes --set 'body NAME.stiffness=K*F'.
$(RESULTS)/fig2/bars-x%.h5: experiments/fig2.ini $(RUN_DEPS) | data bin/opsim-report
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  RUN     $@")
	$(Q)bin/opsim-report scale-key --in $< --section body --key stiffness --factor $* | \
	{ set --; while IFS= read -r s; do set -- "$$@" --set "$$s"; done; \
	  [ $$# -gt 0 ] || { echo "$<: no stiffness in any [body] section" >&2; exit 1; }; \
	  $(if $(Q),,set -x;) $(OPSIM_RUN) run $< "$$@" --out $@; }

# One line per bar: tag, body, k, last tip deflection, last kinetic energy of its run, index in
# its run. The deflection observable of body bar_X is tip_X (fig2.ini's naming).
$(RESULTS)/fig2/deflection.tsv: $(FIG2_RUN) $(FIG2_SWEEP) bin/opsim
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'run\tbody\tstiffness\ttip_deflection_m\tfinal_kinetic_J\tindex\n' > $$out; \
	for run in $(FIG2_RUN) $(FIG2_SWEEP); do \
	    case $$run in $(FIG2_RUN)) tag=fig2;; *) tag=$$(basename $$run .h5 | sed 's/^bars-//');; esac; \
	    ke=$$(bin/opsim export $$run /observables/kinetic/value | tail -n 1); \
	    i=0; for body in $$(bin/opsim info $$run | sed -n 's/^  bodies = \[\(.*\)\]$$/\1/p' | tr -d ,); do \
	        k=$$(bin/opsim export $$run --attribute /parameters/$$body stiffness); \
	        d=$$(bin/opsim export $$run /observables/tip_$${body#bar_}/value | tail -n 1); \
	        printf '%s\t%s\t%s\t%s\t%s\t%d\n' $$tag $$body $$k $$d $$ke $$i >> $$out; i=$$((i + 1)); \
	    done; \
	done; \
	mv $$out $@; trap - EXIT

FIG2_SNAPSHOTS_ARGS = run='$(FIG2_RUN)'; frames='last'; ghost='0'; key=1; tone=1; view='70,30'; \
    panel=760; room=1.08; \
    title='Fig. 2: bars under gravity, one end held, stiffness k, 2k, 4k (grey: the start)'
FIG2_DEFLECTION_ARGS = data='$(RESULTS)/fig2/deflection.tsv'; highlight='fig2'

$(FIGURES)/fig2-snapshots.png $(FIGURES)/fig2-snapshots.pdf &: $(FIG2_RUN) plots/snapshots.gp $(PLOT_DEPS)
	$(call plot_figure,plots/snapshots.gp,$(FIG2_SNAPSHOTS_ARGS))

$(FIGURES)/fig2-deflection.png $(FIGURES)/fig2-deflection.pdf &: $(RESULTS)/fig2/deflection.tsv plots/deflection.gp $(PLOT_DEPS)
	$(call plot_figure,plots/deflection.gp,$(FIG2_DEFLECTION_ARGS))

$(RESULTS)/fig2/long.tsv: $(RESULTS)/fig2/deflection.tsv bin/opsim-report
	$(call long_table,run body)

fig2: $(FIGURES)/fig2-snapshots.png $(FIGURES)/fig2-deflection.png $(RESULTS)/fig2/long.tsv

# ---- Fig. 4 -----------------------------------------------------------------------------------
FIG4_RUN := $(RESULTS)/fig4/dino.h5
FIG4_JACOBI := $(RESULTS)/fig4/dino-jacobi.h5
# Frame 1 solved to convergence from the one collapsed start, for the iteration figure.
FIG4_LONG := $(RESULTS)/fig4/frame1-gs.h5 $(RESULTS)/fig4/frame1-jacobi.h5

$(FIG4_RUN): experiments/fig4.ini $(RUN_DEPS) | data
	$(call run_figure,$<)

$(FIG4_JACOBI): experiments/fig4.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--set solver.rotations=jacobi)

$(RESULTS)/fig4/frame1-%.h5: experiments/fig4.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--set run.frames=1 --set world.iterations=1000 --set solver.rotations=$*)

FIG4_SNAPSHOTS_ARGS = run='$(FIG4_RUN)'; frames='0 2 5 10 30 150'; layout='2,3'; view='80,70'; \
    panel=420; \
    title='Fig. 4: every particle starts at the pinned centre particle; the dinosaur returns to its rest shape'

$(FIGURES)/fig4-snapshots.png $(FIGURES)/fig4-snapshots.pdf &: $(FIG4_RUN) plots/snapshots.gp $(PLOT_DEPS)
	$(call plot_figure,plots/snapshots.gp,$(FIG4_SNAPSHOTS_ARGS))

$(FIGURES)/fig4-recovery.png $(FIGURES)/fig4-recovery.pdf &: $(FIG4_RUN) plots/recovery.gp $(PLOT_DEPS)
	$(call plot_figure,plots/recovery.gp,run='$(FIG4_RUN)')

fig4: $(FIGURES)/fig4-snapshots.png $(FIGURES)/fig4-recovery.png

# ---- Fig. 5 -----------------------------------------------------------------------------------
FIG5_RUN := $(RESULTS)/fig5/dino.h5
FIG5_JACOBI := $(RESULTS)/fig5/dino-jacobi.h5
# The same scene from opsim's rotation start before November 2026 (world.rotation_start), for
# the report's "what changed", and solved to convergence (30 iterations a sub-step), the
# reference both are measured against.
FIG5_BEFORE := $(RESULTS)/fig5/dino-current.h5
FIG5_CONVERGED := $(RESULTS)/fig5/dino-converged.h5

$(FIG5_RUN): experiments/fig5.ini $(RUN_DEPS) | data
	$(call run_figure,$<)

$(FIG5_JACOBI): experiments/fig5.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--set solver.rotations=jacobi)

$(FIG5_BEFORE): experiments/fig5.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set world.rotation_start=current)

$(FIG5_CONVERGED): experiments/fig5.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set world.iterations=30)

FIG5_SNAPSHOTS_ARGS = run='$(FIG5_RUN)'; frames='0 8 11 13 16 22 40 last'; layout='2,4'; \
    view='72,30'; panel=400; room=1.3; \
    title='Fig. 5: the dinosaur falling onto the floor (3 sub-steps x 3 iterations, friction)'
FIG5_ITERATIONS_ARGS = gs5='$(FIG5_RUN)'; jac5='$(FIG5_JACOBI)'; frame5=30; \
    gs4='$(FIG4_RUN)'; jac4='$(FIG4_JACOBI)'; frame4=5; \
    gs4long='$(word 1,$(FIG4_LONG))'; jac4long='$(word 2,$(FIG4_LONG))'; long_max=200

$(FIGURES)/fig5-snapshots.png $(FIGURES)/fig5-snapshots.pdf &: $(FIG5_RUN) plots/snapshots.gp $(PLOT_DEPS)
	$(call plot_figure,plots/snapshots.gp,$(FIG5_SNAPSHOTS_ARGS))

$(FIGURES)/fig5-falling.png $(FIGURES)/fig5-falling.pdf &: $(FIG5_RUN) plots/falling.gp $(PLOT_DEPS)
	$(call plot_figure,plots/falling.gp,run='$(FIG5_RUN)')

$(FIGURES)/fig5-iterations.png $(FIGURES)/fig5-iterations.pdf &: $(FIG5_RUN) $(FIG5_JACOBI) $(FIG4_RUN) $(FIG4_JACOBI) \
        $(FIG4_LONG) plots/iterations.gp $(PLOT_DEPS)
	$(call plot_figure,plots/iterations.gp,$(FIG5_ITERATIONS_ARGS))

fig5: $(FIGURES)/fig5-snapshots.png $(FIGURES)/fig5-falling.png $(FIGURES)/fig5-iterations.png $(FIG5_BEFORE) \
    $(FIG5_CONVERGED)

# ---- Fig. 6 -----------------------------------------------------------------------------------
FIG6_ROD := $(RESULTS)/fig6/rod.h5
FIG6_BUNNY := $(RESULTS)/fig6/bunny.h5

$(FIG6_ROD): experiments/fig6-rod.ini $(RUN_DEPS) | data
	$(call run_figure,$<)

$(FIG6_BUNNY): experiments/fig6-bunny.ini $(RUN_DEPS) | data
	$(call run_figure,$<)

FIG6_ROD_SNAPSHOTS_ARGS = run='$(FIG6_ROD)'; frames='0 30 46 60 76 90 120 last'; layout='2,4'; \
    view='70,20'; panel=400; \
    title='Fig. 6 (left): a sheet tied by its top corners to a rod (not drawn) that spins about the vertical'
FIG6_BUNNY_SNAPSHOTS_ARGS = run='$(FIG6_BUNNY)'; frames='0 8 12 16 20 30 50 last'; layout='2,4'; \
    view='70,20'; panel=400; \
    title='Fig. 6 (right): a bunny falls onto a sheet held at its four corners (6 sub-steps x 2 iterations)'

$(FIGURES)/fig6-rod-snapshots.png $(FIGURES)/fig6-rod-snapshots.pdf &: $(FIG6_ROD) plots/snapshots.gp $(PLOT_DEPS)
	$(call plot_figure,plots/snapshots.gp,$(FIG6_ROD_SNAPSHOTS_ARGS))

$(FIGURES)/fig6-bunny-snapshots.png $(FIGURES)/fig6-bunny-snapshots.pdf &: $(FIG6_BUNNY) plots/snapshots.gp $(PLOT_DEPS)
	$(call plot_figure,plots/snapshots.gp,$(FIG6_BUNNY_SNAPSHOTS_ARGS))

# (the titles' double quotes are inside the shell's double-quoted -e, hence \")
FIG6_CONTACTS_ARGS = runs='$(FIG6_BUNNY)'; titles='\"bunny and sheet\"'; \
    title='Fig. 6 (right), measured: contacts between the bunny and the sheet'

$(FIGURES)/fig6-contacts.png $(FIGURES)/fig6-contacts.pdf &: $(FIG6_BUNNY) plots/contacts.gp $(PLOT_DEPS)
	$(call plot_figure,plots/contacts.gp,$(FIG6_CONTACTS_ARGS))

fig6: $(FIGURES)/fig6-rod-snapshots.png $(FIGURES)/fig6-bunny-snapshots.png $(FIGURES)/fig6-contacts.png \
      $(RESULTS)/fig6/bunny-jacobi.h5

# the contact passes in Jacobi order, every pair from the passes' start (core/contact/collide.h, "Resolution")
$(RESULTS)/fig6/bunny-jacobi.h5: experiments/fig6-bunny.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set world.collision_order=jacobi --set world.collision_rounds=1)

# ---- Fig. 7 -----------------------------------------------------------------------------------
# The skinned surfaces are not stored (--no-surface: 16 MB a frame for the 52 models); the
# snapshots skin a coarse stand-in of each mesh from the particles (snapshots.gp faces=N).
FIG7_52 := $(RESULTS)/fig7/models52.h5
FIG7_180 := $(RESULTS)/fig7/models180.h5
# Both from opsim's rotation start before November 2026 (world.rotation_start = current)
FIG7_BEFORE := $(RESULTS)/fig7/models52-current.h5 $(RESULTS)/fig7/models180-current.h5

$(FIG7_52): experiments/fig7-52.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface)

$(FIG7_180): experiments/fig7-180.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface)

$(RESULTS)/fig7/models%-current.h5: experiments/fig7-%.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set world.rotation_start=current)

# the contact passes in Jacobi order, every pair from the passes' start (core/contact/collide.h, "Resolution")
FIG7_JACOBI := $(RESULTS)/fig7/models52-jacobi.h5 $(RESULTS)/fig7/models180-jacobi.h5
$(RESULTS)/fig7/models%-jacobi.h5: experiments/fig7-%.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set world.collision_order=jacobi --set world.collision_rounds=1)

# colour order with its 8 passes only, none past them for deep pairs (world.collision_passes_max
# = 0): opsim's colour order before the passes went on while a pair stays deep (core/contact/collide.h,
# "Passes")
FIG7_FIXED := $(RESULTS)/fig7/models52-fixed.h5 $(RESULTS)/fig7/models180-fixed.h5
$(RESULTS)/fig7/models%-fixed.h5: experiments/fig7-%.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set world.collision_passes_max=0 --set world.collision_rounds=1)

# one round of passes (world.collision_rounds = 1): the resolution before the pairs were found
# again in the state the passes left, measured in that state (core/contact/collide.h, "Rounds")
FIG7_ROUNDS1 := $(RESULTS)/fig7/models52-rounds1.h5 $(RESULTS)/fig7/models180-rounds1.h5
$(RESULTS)/fig7/models%-rounds1.h5: experiments/fig7-%.ini $(RUN_DEPS) | data
	$(call run_figure,$<,--no-surface --set world.collision_rounds=1)

# scene-order key and run of each row of contacts.tsv
FIG7_CONTACT_ROWS := bunny-colours:$(FIG6_BUNNY) bunny-jacobi:$(RESULTS)/fig6/bunny-jacobi.h5 \
    52-colours:$(FIG7_52) 52-jacobi:$(RESULTS)/fig7/models52-jacobi.h5 \
    52-colours-fixed:$(RESULTS)/fig7/models52-fixed.h5 52-rounds1:$(RESULTS)/fig7/models52-rounds1.h5 \
    180-colours:$(FIG7_180) 180-jacobi:$(RESULTS)/fig7/models180-jacobi.h5 \
    180-colours-fixed:$(RESULTS)/fig7/models180-fixed.h5 180-rounds1:$(RESULTS)/fig7/models180-rounds1.h5

$(RESULTS)/fig7/contacts.tsv: $(foreach r,$(FIG7_CONTACT_ROWS),$(lastword $(subst :, ,$(r)))) bin/opsim bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf 'scene_order\tlargest_mm\tlargest_pct\tresting_mm\tresting_pct\tsmallest_semi_axis_mm\n' > $$out; \
	calc() { bin/opsim-report calc --format $$1 "$$2"; }; \
	for row in $(FIG7_CONTACT_ROWS); do \
	    key=$${row%%:*}; run=$${row#*:}; \
	    axis=$$(bin/opsim export $$run --attribute /collision smallest_semi_axis); \
	    most=$$(bin/opsim export $$run /collision/max_penetration | bin/opsim-report series --of max); \
	    rest=$$(bin/opsim export $$run /collision/max_penetration | bin/opsim-report series --rows -60: --of max); \
	    printf '%s\t%s\t%s\t%s\t%s\t%s\n' $$key "$$(calc %.2f "1e3 * $$most")" "$$(calc %.0f "100 * $$most / $$axis")" \
	        "$$(calc %.2f "1e3 * $$rest")" "$$(calc %.0f "100 * $$rest / $$axis")" "$$(calc %.2f "1e3 * $$axis")" >> $$out; \
	done; \
	mv $$out $@; trap - EXIT

FIG7_52_SNAPSHOTS_ARGS = run='$(FIG7_52)'; frames='0 20 40 last'; layout='2,2'; view='60,30'; \
    panel=600; faces=1500; groups=1; \
    title='Fig. 7 (left): 52 models (100 particles each; columns 10) fall into a fenced floor'
FIG7_180_SNAPSHOTS_ARGS = run='$(FIG7_180)'; frames='0 last'; layout='1,2'; view='60,30'; \
    panel=700; faces=600; groups=1; \
    title='Fig. 7 (right): 180 models (30 particles each, tori 12; columns 10)'

$(FIGURES)/fig7-52-snapshots.png $(FIGURES)/fig7-52-snapshots.pdf &: $(FIG7_52) plots/snapshots.gp $(PLOT_DEPS)
	$(call plot_figure,plots/snapshots.gp,$(FIG7_52_SNAPSHOTS_ARGS))

$(FIGURES)/fig7-180-snapshots.png $(FIGURES)/fig7-180-snapshots.pdf &: $(FIG7_180) plots/snapshots.gp $(PLOT_DEPS)
	$(call plot_figure,plots/snapshots.gp,$(FIG7_180_SNAPSHOTS_ARGS))

FIG7_CONTACTS_ARGS = runs='$(FIG7_52) $(FIG7_180)'; titles='\"52 models\" \"180 models\"'; \
    title='Fig. 7, measured: contacts between the models and with the floor'

$(FIGURES)/fig7-contacts.png $(FIGURES)/fig7-contacts.pdf &: $(FIG7_52) $(FIG7_180) plots/contacts.gp $(PLOT_DEPS)
	$(call plot_figure,plots/contacts.gp,$(FIG7_CONTACTS_ARGS))

$(RESULTS)/fig7/long.tsv: $(RESULTS)/fig7/contacts.tsv bin/opsim-report
	$(call long_table,scene_order)

fig7: $(FIGURES)/fig7-52-snapshots.png $(FIGURES)/fig7-180-snapshots.png $(FIGURES)/fig7-contacts.png $(FIG7_BEFORE) \
      $(RESULTS)/fig7/contacts.tsv $(RESULTS)/fig7/long.tsv

.PRECIOUS: $(FIG1_RUN) $(FIG2_RUN) $(FIG2_SWEEP) $(FIG4_RUN) $(FIG4_JACOBI) $(FIG4_LONG) \
           $(FIG5_RUN) $(FIG5_JACOBI) $(RESULTS)/fig2/bars-x%.h5 $(RESULTS)/fig4/frame1-%.h5 \
           $(FIG5_BEFORE) $(FIG5_CONVERGED) $(FIG6_ROD) $(FIG6_BUNNY) $(FIG7_52) $(FIG7_180) $(FIG7_BEFORE) \
           $(RESULTS)/fig6/bunny-jacobi.h5 $(FIG7_JACOBI) $(FIG7_FIXED) $(FIG7_ROUNDS1)

include experiments/fig3.mk
include experiments/convergence.mk
include experiments/stiffness.mk
include experiments/freeflight.mk
include experiments/floor.mk
include experiments/sweep-example.mk
include experiments/meshless.mk
include experiments/springs.mk
include experiments/variants.mk
include experiments/scaling.mk
