# Fig. 3: steady tip deflection of the pinned bar (experiments/fig3.ini) against the iteration
# count and the time step, arap against shape-matching, and springs (solvers/springs.c: its
# iterations are Newton steps of implicit Euler, 1 as in its paper, 2 and 4; K from the body's
# k), xpbd and vbd (solvers/xpbd.c, solvers/vbd.c) at arap's counts and time steps, and xpbd in
# small steps (Macklin et al. 2019: xpbd-small-iN is N sub-steps a frame of one iteration each,
# so N iterations a frame as for the others). Each run is named METHOD-iITERATIONS-fFRAMES_PER_SECOND.h5 and simulates 10 s; its steady deflection is the mean
# of the tip deflection over the last 2 s (shape matching at few iterations is still swinging
# slowly at 10 s; the spread over those 2 s is tabulated beside the mean).

FIG3_RUNS := $(addprefix $(RESULTS)/fig3/, \
    arap-i10-f30.h5 arap-i100-f30.h5 arap-i1000-f30.h5 arap-i10-f60.h5 arap-i10-f120.h5 \
    shape-matching-i100-f30.h5 shape-matching-i1000-f30.h5 shape-matching-i10000-f30.h5 \
    shape-matching-i1000-f60.h5 shape-matching-i1000-f120.h5 \
    meshless-i1-f30.h5 meshless-i10-f30.h5 meshless-i1-f60.h5 meshless-i1-f120.h5 \
    springs-i1-f30.h5 springs-i2-f30.h5 springs-i4-f30.h5 springs-i1-f60.h5 springs-i1-f120.h5 \
    $(foreach m,xpbd vbd,$(m)-i10-f30.h5 $(m)-i100-f30.h5 $(m)-i1000-f30.h5 $(m)-i10-f60.h5 $(m)-i10-f120.h5) \
    xpbd-small-i10-f30.h5 xpbd-small-i100-f30.h5 xpbd-small-i1000-f30.h5 xpbd-small-i10-f60.h5 \
    xpbd-small-i10-f120.h5)
FIG3_TABLE := $(RESULTS)/fig3/steady.tsv

# $* = METHOD-iN-fF; the method name may itself contain '-'
fig3_method = $(patsubst %-i$(call fig3_iterations,$1)-f$(call fig3_fps,$1),%,$1)
fig3_words = $(subst -, ,$(patsubst xpbd-small-%,xpbd_small-%,$(patsubst shape-matching-%,shape_matching-%,$1)))
fig3_iterations = $(patsubst i%,%,$(word 2,$(call fig3_words,$1)))
fig3_fps = $(patsubst f%,%,$(word 3,$(call fig3_words,$1)))
# xpbd-small-iN: xpbd with N sub-steps of one iteration; every other method: N iterations
fig3_steps = $(if $(filter xpbd-small,$(call fig3_method,$1)), \
    --set solver.name=xpbd --set world.substeps=$(call fig3_iterations,$1) --set world.iterations=1, \
    --set solver.name=$(call fig3_method,$1) --set world.iterations=$(call fig3_iterations,$1))

$(RESULTS)/fig3/%.h5: experiments/fig3.ini $(RUN_DEPS) | data bin/opsim-report
	$(call run_figure,$<,$(call fig3_steps,$*) \
	    --set world.frame_time=$$(bin/opsim-report calc '1 / $(call fig3_fps,$*)') \
	    --set run.frames=$$((10 * $(call fig3_fps,$*))) --set run.output_every=$$((10 * $(call fig3_fps,$*))))

# meshless (Müller et al. 2005; solvers/meshless.c, its defaults: rigid, one cluster, Eq. 9):
# a point model has no orientation for the pin to hold, so one pinned particle is a pivot; these
# runs also pin the position of particle 1, which with particle 0 clamps the bar's line.
$(RESULTS)/fig3/meshless-%.h5: experiments/fig3.ini $(RUN_DEPS) | data bin/opsim-report
	$(call run_figure,$<,--set solver.name=meshless --set world.iterations=$(patsubst i%,%,$(word 1,$(subst -, ,$*))) \
	    --set 'pin hold2.body=bar' --set 'pin hold2.particle=1' --set 'pin hold2.hold=position' \
	    --set world.frame_time=$$(bin/opsim-report calc '1 / $(patsubst f%,%,$(word 2,$(subst -, ,$*)))') \
	    --set run.frames=$$((10 * $(patsubst f%,%,$(word 2,$(subst -, ,$*))))) \
	    --set run.output_every=$$((10 * $(patsubst f%,%,$(word 2,$(subst -, ,$*))))))

# method, iterations, frame time (s), steady deflection (m), its spread over the last 2 s (m)
$(FIG3_TABLE): $(FIG3_RUNS) bin/opsim bin/opsim-report
	@$(if $(Q),echo "  TABLE   $@")
	$(Q){ printf 'method\titerations\tframe_time_s\tsteady_m\tswing_m\n'; \
	for run in $(FIG3_RUNS); do \
	    name=$$(basename $$run .h5); fps=$${name##*-f}; rest=$${name%-f*}; it=$${rest##*-i}; method=$${rest%-i*}; \
	    steady=$$(bin/opsim export $$run /observables/tip/value | \
	        bin/opsim-report series --rows -$$((2 * fps)): --of mean --of spread) || exit 1; \
	    printf '%s\t%d\t%s\t%s\n' $$method $$it "$$(bin/opsim-report calc "1 / $$fps")" "$$steady"; \
	done; } > $@.tmp && mv $@.tmp $@

$(FIGURES)/fig3-stiffness.png $(FIGURES)/fig3-stiffness.pdf &: $(FIG3_TABLE) plots/fig3.gp $(PLOT_DEPS)
	$(call plot_figure,plots/fig3.gp,table='$(FIG3_TABLE)')

$(RESULTS)/fig3/long.tsv: $(FIG3_TABLE) bin/opsim-report
	$(call long_table,method iterations frame_time_s)

fig3: $(FIGURES)/fig3-stiffness.png $(RESULTS)/fig3/long.tsv

.PRECIOUS: $(FIG3_RUNS) $(RESULTS)/fig3/%.h5
