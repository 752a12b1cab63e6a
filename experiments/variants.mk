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
#       r-at-ni.tsv   one row per variant, one column per scene
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
# Times are of single runs while another runs beside it.

VARIANTS_DIR := $(RESULTS)/variants
VARIANTS_MATRIX := $(VARIANTS_DIR)/matrix.tsv
VARIANTS_JOBS ?= 2
VARIANTS_SCENES := bar collapse fall bunny
VARIANTS_DERIVED := $(addprefix $(VARIANTS_DIR)/,ms-per-frame.tsv iterations-1e-4.tsv ms-1e-4.tsv ms-1e-6.tsv \
    r-at-ni.tsv bar.tsv targets.tsv)
VARIANTS_TEX := $(patsubst $(VARIANTS_DIR)/%.tsv,reports/tables/variants-%.tex,$(VARIANTS_DERIVED))
VARIANTS_KEYED := $(VARIANTS_DIR)/matrix-keyed.tsv
VARIANTS_FIGURES := $(FIGURES)/variants-convergence.png $(FIGURES)/variants-cost.png $(FIGURES)/variants-measures.png

.PHONY: variants
variants: $(VARIANTS_DERIVED) $(VARIANTS_KEYED) $(VARIANTS_TEX) $(VARIANTS_FIGURES)

# The runs are remade from scratch whenever bin/opsim or a config changes (the script reuses a
# run it finds, so that an interrupted matrix can be finished by hand: OUT_DIR/runs).
$(VARIANTS_MATRIX): experiments/variants.sh experiments/fig3.ini experiments/fig4.ini experiments/fig5.ini \
        experiments/fig6-bunny.ini $(RUN_DEPS) | data
	@$(if $(Q),echo "  MATRIX  $@ (about 6 minutes)")
	$(Q)rm -rf $(VARIANTS_DIR)/runs && experiments/variants.sh $(VARIANTS_DIR) $(VARIANTS_JOBS)

# $(call variants_pivot,COLUMN): one row per variant, one column per scene, the matrix's COLUMN
define variants_pivot
@$(if $(Q),echo "  TABLE   $@")
$(Q)awk -F'\t' -v want=$(1) -v scenes='$(VARIANTS_SCENES)' 'BEGIN { OFS = "\t"; ns = split(scenes, scene, " ") } \
    /^#/ { sub(/^# /, ""); for (c = 1; c <= NF; ++c) column[$$c] = c; next } \
    { if (!($$1 in seen)) { seen[$$1] = 1; order[++count] = $$1 } value[$$1, $$2] = $$column[want] } \
    END { printf "# variant"; for (s = 1; s <= ns; ++s) printf "\t%s", scene[s]; print ""; \
          for (v = 1; v <= count; ++v) { printf "%s", order[v]; for (s = 1; s <= ns; ++s) printf "\t%s", value[order[v], scene[s]]; print "" } }' \
    $< > $@.tmp && mv $@.tmp $@
endef

$(VARIANTS_DIR)/ms-per-frame.tsv: $(VARIANTS_MATRIX) experiments/variants.mk
	$(call variants_pivot,ms_per_frame)
$(VARIANTS_DIR)/iterations-1e-4.tsv: $(VARIANTS_MATRIX) experiments/variants.mk
	$(call variants_pivot,iterations_1e-4)
$(VARIANTS_DIR)/ms-1e-4.tsv: $(VARIANTS_MATRIX) experiments/variants.mk
	$(call variants_pivot,ms_1e-4)
$(VARIANTS_DIR)/ms-1e-6.tsv: $(VARIANTS_MATRIX) experiments/variants.mk
	$(call variants_pivot,ms_1e-6)
$(VARIANTS_DIR)/r-at-ni.tsv: $(VARIANTS_MATRIX) experiments/variants.mk
	$(call variants_pivot,r_at_ni)

$(VARIANTS_DIR)/bar.tsv: $(VARIANTS_MATRIX) experiments/variants.mk
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)awk -F'\t' 'BEGIN { OFS = "\t"; print "# variant\tstiffness_spread\tmax_h_s\tmax_k\trecovery_s" } \
	    /^#/ { sub(/^# /, ""); for (c = 1; c <= NF; ++c) column[$$c] = c; next } \
	    { if (!($$1 in seen)) { seen[$$1] = 1; order[++count] = $$1 } row[$$1, $$2] = $$0 } \
	    END { for (v = 1; v <= count; ++v) { split(row[order[v], "bar"], b, "\t"); split(row[order[v], "collapse"], d, "\t"); \
	          print order[v], b[column["stiffness_spread"]], b[column["max_h_s"]], b[column["max_k"]], d[column["recovery_s"]] } }' \
	    $< > $@.tmp && mv $@.tmp $@

$(VARIANTS_KEYED): $(VARIANTS_MATRIX) experiments/variants.mk
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)awk -F'\t' 'BEGIN { OFS = "\t" } /^#/ { sub(/^# /, ""); print "# case", $$0; next } { print $$1 ":" $$2, $$0 }' \
	    $< > $@.tmp && mv $@.tmp $@

# The targets: plain / accelerated, in iterations and ms, '–' where either never reaches it.
$(VARIANTS_DIR)/targets.tsv: $(VARIANTS_MATRIX) experiments/variants.mk
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)awk -F'\t' -v scenes='$(VARIANTS_SCENES)' 'BEGIN { OFS = "\t"; ns = split(scenes, scene, " ") } \
	    function ratio(a, b) { return (a == "–" || b == "–" || a !~ /^[0-9.]+$$/ || b !~ /^[0-9.]+$$/ || b + 0 == 0) ? "–" : sprintf("%.2f", a / b) } \
	    /^#/ { sub(/^# /, ""); for (c = 1; c <= NF; ++c) column[$$c] = c; next } \
	    { row[$$1, $$2] = $$0 } \
	    END { print "# target\tplain_iterations\taccelerated_iterations\titeration_ratio\tplain_ms\taccelerated_ms\tms_ratio"; \
	          for (o = 1; o <= 2; ++o) { order = o == 1 ? "gs" : "jacobi"; \
	              split(row["arap-" order, "fall"], p, "\t"); split(row["arap-" order "-anderson", "fall"], a, "\t"); \
	              i = column["iterations_1e-4"]; m = column["ms_1e-4"]; \
	              print "anderson-" order "-fall-1e-4", p[i], a[i], ratio(p[i], a[i]), p[m], a[m], ratio(p[m], a[m]) } \
	          for (s = 1; s <= ns; ++s) { split(row["arap-gs", scene[s]], p, "\t"); split(row["arap-lbfgs", scene[s]], q, "\t"); \
	              i = column["iterations_1e-6"]; m = column["ms_1e-6"]; \
	              print "lbfgs-" scene[s] "-1e-6", p[i], q[i], ratio(p[i], q[i]), p[m], q[m], ratio(p[m], q[m]) } }' \
	    $< > $@.tmp && mv $@.tmp $@

# A TSV as a LaTeX booktabs tabular: the '#' line the header, first column left, others right.
reports/tables/variants-%.tex: $(VARIANTS_DIR)/%.tsv experiments/variants.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LATEX   $@")
	$(Q)awk -F'\t' -v source='$<' 'function tex(s) { gsub(/\\/, "\\textbackslash{}", s); gsub(/_/, "\\_", s); gsub(/%/, "\\%", s); \
	        gsub(/&/, "\\&", s); gsub(/#/, "\\#", s); gsub(/–/, "--", s); gsub(/≥/, "$$\\geq$$", s); gsub(/×/, "$$\\times$$", s); return s } \
	    /^#/ { sub(/^# /, ""); n = NF; printf "%% generated by make variants from %s; do not edit\n\\begin{tabular}{l", source; \
	           for (c = 2; c <= n; ++c) printf "r"; print "}"; print "\\toprule"; \
	           for (c = 1; c <= n; ++c) printf "%s%s", tex($$c), c < n ? " & " : " \\\\\n"; print "\\midrule"; next } \
	    { for (c = 1; c <= n; ++c) printf "%s%s", tex($$c), c < n ? " & " : " \\\\\n" } \
	    END { print "\\bottomrule"; print "\\end{tabular}" }' $< > $@.tmp && mv $@.tmp $@

VARIANTS_PLOT_ARGS = dir='$(VARIANTS_DIR)'; scenes='$(VARIANTS_SCENES)'; \
    variants='$(shell cut -f1 $(VARIANTS_DIR)/ms-per-frame.tsv 2> /dev/null | grep -v '^\#' | tr '\n' ' ')'

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
