# The comparison matrix (make variants): every solver variant and option of the registry on the
# bar of Fig. 2/3, the collapsed dinosaur of Fig. 4, the falling dinosaur of Fig. 5 and the bunny
# of Fig. 6, measured alike by the harness. experiments/variants.sh says what each measure is and
# how it is taken; it runs every cell (VARIANTS_JOBS at a time, one thread each) into
#
#   data/results/variants/matrix.tsv    the whole matrix: one row per variant and scene
#   data/results/variants/runs/         the converge tables and run files it is made from
#
# and this file derives from the matrix, for the report and for a paper:
#
#   data/results/variants/ms-per-frame.tsv, iterations-1e-4.tsv, ms-1e-4.tsv, ms-1e-6.tsv,
#       r-at-ni.tsv, own-iterations-1e-4.tsv, own-ms-1e-4.tsv (to 1e-4 of the variant's own
#       solution: every family)   one row per variant, one column per scene
#   data/results/variants/ms-per-frame-interval.tsv, ms-1e-4-interval.tsv, ms-1e-6-interval.tsv,
#       own-ms-1e-4-interval.tsv        the same for each ms with its 95 % interval,
#                                       "MEDIAN (LO–HI)", † when noisy (the report's)
#   data/results/variants/bar.tsv       stiffness spread, largest stable h and k (bar), recovery
#                                       (collapse)
#   data/results/variants/targets.tsv   the issue's targets: Anderson against plain on the Fig. 5
#                                       sub-step, arap-lbfgs against plain Gauss–Seidel to 1e-6
#   data/results/variants/matrix-keyed.tsv  the matrix with a first column VARIANT:SCENE, so that
#                                       the report can name one cell ({{tsv PATH ROW COLUMN}})
#   reports/tables/variants-*.tex       each of those as a LaTeX booktabs tabular (\input them)
#   reports/figures/variants-convergence.png/.pdf  r against ms, every variant a curve, a panel
#                                       per scene (log axes)
#   reports/figures/variants-cost.png/.pdf  ms per frame against the r reached at the scene's own
#                                       iteration count, a point per variant, a panel per scene
#   reports/figures/variants-measures.png/.pdf  the bar's stiffness spread and the collapse's
#                                       recovery, a bar per variant (the robustness columns are
#                                       tables only: every variant that runs the bar held over the
#                                       whole range)
#
# About 6 minutes with two jobs on this 2-core machine (the bunny's graph costs about 8 s a
# process; the 5,000-iteration references and the bar's 15 runs a variant are the rest).
# Timed commands run alone, the rest VARIANTS_JOBS at a time (variants.sh: a lock shared by the
# untimed, exclusive for the timed). ms per frame follows the timing protocol (docs/timing.md):
# after every cell, one bench_scenes call, 7 rounds each going round every scene's variants,
# the median with its 95 % interval and noisy flag (ms_per_frame, _lo, _hi, _noisy). ms to a
# tolerance is the median of 7 repeats after a warm-up with its interval (ms_1e-4_lo, _hi,
# _noisy, …; own_ms_1e-4_lo, … at the row's end): one opsim converge --batch run, a line a
# scene, its rounds going round every scene's variants. The machine probe of every round:
# runs/probe.tsv.

VARIANTS_DIR := $(RESULTS)/variants
VARIANTS_MATRIX := $(VARIANTS_DIR)/matrix.tsv
VARIANTS_JOBS ?= 2
VARIANTS_SCENES := bar collapse fall bunny
VARIANTS_DERIVED := $(addprefix $(VARIANTS_DIR)/,ms-per-frame.tsv iterations-1e-4.tsv ms-1e-4.tsv ms-1e-6.tsv \
    r-at-ni.tsv own-iterations-1e-4.tsv own-ms-1e-4.tsv bar.tsv targets.tsv)
VARIANTS_TEX := $(patsubst $(VARIANTS_DIR)/%.tsv,reports/tables/variants-%.tex,$(VARIANTS_DERIVED))
VARIANTS_KEYED := $(VARIANTS_DIR)/matrix-keyed.tsv
VARIANTS_FIGURES := $(FIGURES)/variants-convergence.png $(FIGURES)/variants-cost.png $(FIGURES)/variants-measures.png

.PHONY: variants
VARIANTS_INTERVALS := $(addprefix $(VARIANTS_DIR)/,ms-per-frame-interval.tsv ms-1e-4-interval.tsv \
    ms-1e-6-interval.tsv own-ms-1e-4-interval.tsv)

variants: $(VARIANTS_DERIVED) $(VARIANTS_INTERVALS) $(VARIANTS_KEYED) $(VARIANTS_TEX) \
    $(VARIANTS_FIGURES) $(VARIANTS_DIR)/long.tsv

$(VARIANTS_DIR)/long.tsv: $(VARIANTS_MATRIX) bin/opsim-report
	$(call long_table,variant scene)

# The runs are remade from scratch whenever bin/opsim or a config changes (the script reuses a
# run it finds, so that an interrupted matrix can be finished by hand: OUT_DIR/runs).
# VARIANTS_GATHERED=1 (make variants-gather, below) takes the matrix there as it is.
VARIANTS_MATRIX_DEPS := experiments/variants.sh experiments/fig3.ini experiments/fig4.ini experiments/fig5.ini \
    experiments/fig6-bunny.ini $(RUN_DEPS) bin/bench/bench_scenes bin/opsim-report
$(VARIANTS_MATRIX): $(if $(VARIANTS_GATHERED),,$(VARIANTS_MATRIX_DEPS)) | data
	@$(if $(Q),echo "  MATRIX  $@ (about 6 minutes)")
	$(Q)rm -rf $(VARIANTS_DIR)/runs && experiments/variants.sh $(VARIANTS_DIR) $(VARIANTS_JOBS)

# $(call variants_pivot,COLUMN): one row per variant, one column per scene, the matrix's COLUMN
# (opsim-report pivot, reports/report_tsv.h)
define variants_pivot
@$(if $(Q),echo "  TABLE   $@")
$(Q)bin/opsim-report pivot --in $< --column $(1) --keys '$(VARIANTS_SCENES)' --out $@
endef

$(VARIANTS_DIR)/ms-per-frame.tsv: $(VARIANTS_MATRIX) experiments/variants.mk bin/opsim-report
	$(call variants_pivot,ms_per_frame)
# the ms columns with their 95 % intervals, for the report: ms-per-frame-interval.tsv from
# ms_per_frame, ms-1e-4-interval.tsv from ms_1e-4, own-ms-1e-4-interval.tsv from own_ms_1e-4 …
$(VARIANTS_DIR)/%-interval.tsv: $(VARIANTS_MATRIX) experiments/variants.mk bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)bin/opsim-report pivot-interval --in $< --column $(subst 1e_,1e-,$(subst -,_,$*)) \
	    --keys '$(VARIANTS_SCENES)' --out $@
$(VARIANTS_DIR)/iterations-1e-4.tsv: $(VARIANTS_MATRIX) experiments/variants.mk bin/opsim-report
	$(call variants_pivot,iterations_1e-4)
$(VARIANTS_DIR)/ms-1e-4.tsv: $(VARIANTS_MATRIX) experiments/variants.mk bin/opsim-report
	$(call variants_pivot,ms_1e-4)
$(VARIANTS_DIR)/ms-1e-6.tsv: $(VARIANTS_MATRIX) experiments/variants.mk bin/opsim-report
	$(call variants_pivot,ms_1e-6)
$(VARIANTS_DIR)/r-at-ni.tsv: $(VARIANTS_MATRIX) experiments/variants.mk bin/opsim-report
	$(call variants_pivot,r_at_ni)
$(VARIANTS_DIR)/own-iterations-1e-4.tsv: $(VARIANTS_MATRIX) experiments/variants.mk bin/opsim-report
	$(call variants_pivot,own_iterations_1e-4)
$(VARIANTS_DIR)/own-ms-1e-4.tsv: $(VARIANTS_MATRIX) experiments/variants.mk bin/opsim-report
	$(call variants_pivot,own_ms_1e-4)

$(VARIANTS_DIR)/bar.tsv: $(VARIANTS_MATRIX) experiments/variants.mk bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)bin/opsim-report pick --in $< --column bar:stiffness_spread --column bar:max_h_s --column bar:max_k \
	    --column collapse:recovery_s --out $@

$(VARIANTS_KEYED): $(VARIANTS_MATRIX) experiments/variants.mk bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)bin/opsim-report keyed --in $< --out $@

# The targets: plain / accelerated, in iterations and ms, '–' where either never reaches it
# (opsim-report targets: NAME:PLAIN:ACCELERATED:SCENE:SUFFIX compares the columns
# iterations_SUFFIX and ms_SUFFIX).
VARIANTS_TARGETS := $(foreach o,gs jacobi,anderson-$(o)-fall-1e-4:arap-$(o):arap-$(o)-anderson:fall:1e-4) \
    $(foreach s,$(VARIANTS_SCENES),lbfgs-$(s)-1e-6:arap-gs:arap-lbfgs:$(s):1e-6)

$(VARIANTS_DIR)/targets.tsv: $(VARIANTS_MATRIX) experiments/variants.mk bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)bin/opsim-report targets --in $< $(VARIANTS_TARGETS:%=--target %) --out $@

# A TSV as a LaTeX booktabs tabular: the '#' line the header, first column left, others right.
reports/tables/variants-%.tex: $(VARIANTS_DIR)/%.tsv experiments/variants.mk bin/opsim-report
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LATEX   $@")
	$(Q)bin/opsim-report tex --in $< --source '$<' --out $@

VARIANTS_PLOT_ARGS = dir='$(VARIANTS_DIR)'; scenes='$(VARIANTS_SCENES)'; \
    variants='$(shell sed 1d $(VARIANTS_DIR)/ms-per-frame.tsv 2> /dev/null | cut -f1 | tr '\n' ' ')'

$(FIGURES)/variants-convergence.png $(FIGURES)/variants-convergence.pdf &: $(VARIANTS_DIR)/ms-per-frame.tsv \
        plots/variants-convergence.gp $(PLOT_DEPS)
	$(call plot_figure,plots/variants-convergence.gp,$(VARIANTS_PLOT_ARGS))

$(FIGURES)/variants-measures.png $(FIGURES)/variants-measures.pdf &: $(VARIANTS_DIR)/bar.tsv plots/variants-measures.gp \
        $(PLOT_DEPS)
	$(call plot_figure,plots/variants-measures.gp,table='$(VARIANTS_DIR)/bar.tsv')

$(FIGURES)/variants-cost.png $(FIGURES)/variants-cost.pdf &: $(VARIANTS_DIR)/ms-per-frame.tsv $(VARIANTS_DIR)/r-at-ni.tsv \
        plots/variants-cost.gp $(PLOT_DEPS)
	$(call plot_figure,plots/variants-cost.gp,$(VARIANTS_PLOT_ARGS))

.PRECIOUS: $(VARIANTS_MATRIX) $(VARIANTS_DIR)/%.tsv

# make variants-gather: the matrix of the Slurm route (tools/variants-slurm.sh; docs/experiments.md,
# *The matrix on Slurm*) gathered from what its tasks left in VARIANTS_DIR/runs (variants.sh
# --phase gather: every row, no run made again), then the tables and figures of make variants
# from it. The scenes as the tasks ran them: VARIANTS_SCENES on the command line, as submitted.
.PHONY: variants-gather
variants-gather: bin/opsim bin/opsim-report
	$(Q)experiments/variants.sh --phase gather $(VARIANTS_DIR) $(VARIANTS_JOBS)
	$(Q)$(MAKE) --no-print-directory variants VARIANTS_GATHERED=1

# make variants-stability: the matrix as last made against a second one made afresh right after
# it, compared by opsim-report stability (reports/report_stability.h, docs/timing.md): every ms
# cell within ±10 % of the first or noisy in both, and each scene's ranking of the variants by
# ms to 1e-4 reversed significantly (a pair ordered oppositely with disjoint intervals in both
# runs). Into VARIANTS_DIR: matrix-first.tsv and probe-first.tsv (the first run's matrix and
# machine probe), matrix.tsv (the second's), stability.tsv (cell by cell) and
# stability-ranks.tsv (the rankings); the totals are printed, each scene's median ratio beside
# the probe's.
# Fails when either does not hold. Meaningful on a quiet machine only.
.PHONY: variants-stability
variants-stability: $(VARIANTS_MATRIX) bin/opsim-report
	cp $(VARIANTS_MATRIX) $(VARIANTS_DIR)/matrix-first.tsv
	cp $(VARIANTS_DIR)/runs/probe.tsv $(VARIANTS_DIR)/probe-first.tsv
	rm -rf $(VARIANTS_DIR)/runs && experiments/variants.sh $(VARIANTS_DIR) $(VARIANTS_JOBS)
	@status=0; bin/opsim-report stability --in $(VARIANTS_DIR)/matrix-first.tsv --against $(VARIANTS_MATRIX) \
	    --probe $(VARIANTS_DIR)/probe-first.tsv --probe-against $(VARIANTS_DIR)/runs/probe.tsv \
	    --out $(VARIANTS_DIR)/stability.tsv || status=$$?; exit $$status
