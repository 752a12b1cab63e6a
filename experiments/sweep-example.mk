# `make sweep-example`: a worked parameter sweep (docs/commands.md, "Sweeps"). `opsim sweep` expands
# Fig. 2's bars over world.iterations = 10, 100 x body bar_k.stiffness = 5e8, 1e9 (90 frames,
# 3 s, instead of 300) into four runs and writes their Makefile fragment; a sub-make runs it (so
# `make -j2 sweep-example` runs two at a time); plots/overlay.gp overlays the k-bar's tip
# deflection of all four. Run files and the sweep's table under data/results/sweep-example/,
# the figure reports/figures/sweep-example.png and .pdf.

SWEEP_EXAMPLE := $(RESULTS)/sweep-example
SWEEP_EXAMPLE_GRID := experiments/fig2.ini --set run.frames=90 --grid world.iterations=10,100 \
    --grid 'body bar_k.stiffness=5e8,1e9'
SWEEP_EXAMPLE_PLOT_ARGS = sweep='$(SWEEP_EXAMPLE)/sweep.tsv'; observable='tip_k'; ylabel='tip deflection of bar_k (m)'; \
    title='Sweep example: Fig. 2 over iterations and stiffness of bar_k'

.PHONY: sweep-example
sweep-example: $(FIGURES)/sweep-example.png

# The sweep's table and Makefile depend on what its runs depend on, so a new config or binary
# remakes them, and through them the figure.
$(SWEEP_EXAMPLE)/sweep.mk $(SWEEP_EXAMPLE)/sweep.tsv &: experiments/fig2.ini $(RUN_DEPS) | data
	@mkdir -p $(SWEEP_EXAMPLE)
	@$(if $(Q),echo "  SWEEP   $(SWEEP_EXAMPLE)")
	$(Q)bin/opsim sweep $(SWEEP_EXAMPLE_GRID) --out $(SWEEP_EXAMPLE) > /dev/null

# The sub-make remakes the runs that are out of date (each depends on the config and bin/opsim).
$(FIGURES)/sweep-example.png $(FIGURES)/sweep-example.pdf &: $(SWEEP_EXAMPLE)/sweep.mk plots/overlay.gp $(PLOT_DEPS)
	$(Q)$(MAKE) --no-print-directory $(if $(Q),-s) -f $(SWEEP_EXAMPLE)/sweep.mk sweep
	$(call plot_figure,plots/overlay.gp,$(SWEEP_EXAMPLE_PLOT_ARGS))
