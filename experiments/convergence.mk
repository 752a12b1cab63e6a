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
# then the next sub-step from that one state, its solver set by --solver, so all variants
# solve one problem (one E_0, one E*). Under data/results/convergence/:
#   SCENE-reference.tsv   5,000 Gauss–Seidel iterations; E* is its last energy
#   SCENE-VARIANT.tsv     CONV_ITERATIONS iterations, VARIANT = gs, jacobi, gs-chebyshev,
#                         jacobi-chebyshev (k, seconds in iterations, energy)
#   SCENE-rho-ORDER.txt   `opsim estimate-rho CONFIG --frame F` with rotations = ORDER (its
#                         frames run with that order too): chebyshev_rho and
#                         chebyshev_rho_source of the -chebyshev runs, passed through --solver
#   table.tsv             per scene and variant: iterations and ms to reach 1e-2, 1e-4, 1e-6
#                         (the first k after which r stays below, '-' if never within the run),
#                         ρ, r at the end, E_0, E*
# and reports/convergence.md (generated from table.tsv and the ρ files) and the figure
# reports/figures/convergence.png/.pdf (plots/convergence.gp): r against iteration (top) and
# milliseconds (bottom), one column per scene. Times are of single runs, as `make -j` runs them.

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
CONV_VARIANTS := gs jacobi gs-chebyshev jacobi-chebyshev
CONV_ORDERS := gs jacobi

CONV_RUNS := $(foreach s,$(CONV_SCENES),$(foreach v,reference $(CONV_VARIANTS),$(CONV_DIR)/$(s)-$(v).tsv))
CONV_RHO := $(foreach s,$(CONV_SCENES),$(foreach o,$(CONV_ORDERS),$(CONV_DIR)/$(s)-rho-$(o).txt))
CONV_TABLE := $(CONV_DIR)/table.tsv
CONV_REPORT := reports/convergence.md

.PHONY: convergence
convergence: $(CONV_REPORT) $(FIGURES)/convergence.png

# $(call conv_converge,SCENE,ITERATIONS,--solver OPTIONS): one converge run into $@ (written
# under a temporary name by opsim and renamed when complete).
define conv_converge
@mkdir -p $(dir $@)
@$(if $(Q),echo "  RUN     $@")
$(Q)$(OPSIM_RUN) converge $(CONV_CONFIG_$(1)) --frame $(CONV_FRAME_$(1)) --iterations $(2) $(3) --out $@
endef

# The rules of one scene. In the template $$ is make's $ after $(call), $$$$ the shell's $.
define conv_scene_rules
$(CONV_DIR)/$(1)-reference.tsv: $(CONV_CONFIG_$(1)) $$(RUN_DEPS) | data
	$$(call conv_converge,$(1),$(CONV_REFERENCE_ITERATIONS),--solver rotations=gs)
$(CONV_DIR)/$(1)-gs.tsv: $(CONV_CONFIG_$(1)) $$(RUN_DEPS) | data
	$$(call conv_converge,$(1),$(CONV_ITERATIONS),--solver rotations=gs)
$(CONV_DIR)/$(1)-jacobi.tsv: $(CONV_CONFIG_$(1)) $$(RUN_DEPS) | data
	$$(call conv_converge,$(1),$(CONV_ITERATIONS),--solver rotations=jacobi)
$(CONV_DIR)/$(1)-rho-%.txt: $(CONV_CONFIG_$(1)) $$(RUN_DEPS) | data
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  RHO     $$@")
	$$(Q)$(OPSIM_RUN) estimate-rho $(CONV_CONFIG_$(1)) --frame $(CONV_FRAME_$(1)) --set solver.rotations=$$* \
	    > $$@.tmp && mv $$@.tmp $$@ || { rm -f $$@.tmp; exit 1; }
$(CONV_DIR)/$(1)-%-chebyshev.tsv: $(CONV_DIR)/$(1)-rho-%.txt $(CONV_CONFIG_$(1)) $$(RUN_DEPS) | data
	@$$(if $$(Q),echo "  RUN     $$@")
	$$(Q)rho=$$$$(sed -n 's/^chebyshev_rho = //p' $$<); source=$$$$(sed -n 's/^chebyshev_rho_source = //p' $$<); \
	[ -n "$$$$rho" ] || { echo "$$<: no chebyshev_rho line" >&2; exit 1; }; \
	$(OPSIM_RUN) converge $(CONV_CONFIG_$(1)) --frame $(CONV_FRAME_$(1)) --iterations $(CONV_ITERATIONS) \
	    --solver rotations=$$* --solver chebyshev=on --solver "chebyshev_rho=$$$$rho" \
	    --solver "chebyshev_rho_source=$$$$source" --out $$@
endef
$(foreach s,$(CONV_SCENES),$(eval $(call conv_scene_rules,$(s))))

# One line per scene and variant. A run must start from the reference's E_0 (bitwise: the
# same state), and E_0 > E*.
$(CONV_TABLE): $(CONV_RUNS) $(CONV_RHO)
	@$(if $(Q),echo "  TABLE   $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	printf '# scene\tvariant\titerations_1e-2\tms_1e-2\titerations_1e-4\tms_1e-4\titerations_1e-6\tms_1e-6\trho\tfinal_relative_error\tE0_J\tEstar_J\titerations\tframe\th_s\tconfig\n' > $$out; \
	for scene in $(CONV_SCENES); do for variant in $(CONV_VARIANTS); do \
	    case $$variant in *-chebyshev) rho=$$(sed -n 's/^chebyshev_rho = //p' $(CONV_DIR)/$$scene-rho-$${variant%-chebyshev}.txt);; *) rho=-;; esac; \
	    awk -v scene=$$scene -v variant=$$variant -v rho=$$rho 'BEGIN { n = 0 } FNR == 1 { file++ } \
	        file == 2 && /^# config = / { config = $$4 } file == 2 && /^# frame = / { frame = $$4 } \
	        file == 2 && /^# h = / { h = $$4 } /^#/ { next } \
	        file == 1 { if ($$1 == 0) e0_reference = $$3; estar = $$3; next } \
	        { k[n] = $$1; s[n] = $$2; e[n] = $$3; text[n] = $$3; n++ } \
	        END { if (text[0] != e0_reference) { printf "%s %s: E_0 %s differs from the reference'\''s %s\n", scene, variant, text[0], e0_reference > "/dev/stderr"; exit 1 } \
	              if (!(e[0] > estar)) { printf "%s %s: E_0 %s not above E* %s\n", scene, variant, text[0], estar > "/dev/stderr"; exit 1 } \
	              line = scene "\t" variant; split("1e-2 1e-4 1e-6", tolerance, " "); \
	              for (t = 1; t <= 3; ++t) { r = -1; \
	                  for (i = n - 1; i >= 0; --i) { d = e[i] - estar; if (d < 0) d = -d; if (d / (e[0] - estar) > tolerance[t] + 0) break; r = i } \
	                  line = line (r < 0 ? "\t-\t-" : sprintf("\t%d\t%.3f", k[r], 1000 * s[r])) } \
	              d = e[n - 1] - estar; if (d < 0) d = -d; \
	              printf "%s\t%s\t%.3e\t%.17g\t%.17g\t%d\t%s\t%s\t%s\n", line, rho, d / (e[0] - estar), e[0], estar, k[n - 1], frame, h, config }' \
	        $(CONV_DIR)/$$scene-reference.tsv $(CONV_DIR)/$$scene-$$variant.tsv >> $$out; \
	done; done; \
	mv $$out $@; trap - EXIT

# The report: the table, the speed-ups of Chebyshev over plain (plain / Chebyshev, in
# iterations and in ms, per tolerance), the ρ estimates with their sources.
$(CONV_REPORT): $(CONV_TABLE) $(CONV_RHO) experiments/convergence.mk
	@$(if $(Q),echo "  REPORT  $@")
	$(Q)set -e; out=$@.$$$$.tmp; trap 'rm -f $$out' EXIT; \
	for f in $(CONV_RHO); do b=$$(basename $$f .txt); printf '%s\t%s\t%s\n' "$${b%-rho-*}" "$${b##*-rho-}" \
	    "$$(sed -n 's/^chebyshev_rho_source = //p' $$f)"; done > $$out.rho; \
	awk -F'\t' -v n_ref=$(CONV_REFERENCE_ITERATIONS) -v figure=figures/convergence.png -v table=$(CONV_TABLE) \
	    -v scenes='$(foreach s,$(CONV_SCENES),$(s)=$(CONV_CONFIG_$(s)))' ' \
	    function cell(x) { return x == "-" ? "–" : x } \
	    function ratio(a, b) { return (a == "-" || b == "-" || b + 0 == 0) ? "–" : sprintf("%.2f×", a / b) } \
	    FNR == 1 { file++ } \
	    file == 1 { source[$$1 "\t" $$2] = $$3; next } \
	    /^#/ { next } \
	    { row[$$1 "\t" $$2] = $$0; if (!($$1 in seen)) { seen[$$1] = 1; order[++count] = $$1 } } \
	    END { \
	        name["gs"] = "Gauss–Seidel"; name["jacobi"] = "Jacobi"; name["gs-chebyshev"] = "Gauss–Seidel + Chebyshev"; name["jacobi-chebyshev"] = "Jacobi + Chebyshev"; split("gs jacobi gs-chebyshev jacobi-chebyshev", variants, " "); \
	        print "# Convergence of one sub-step: Gauss–Seidel and Jacobi rotations, plain and with Chebyshev"; print ""; \
	        print "Generated by `make convergence` (`experiments/convergence.mk`) from `" table "` and the ρ estimates beside it; do not edit."; print ""; \
	        print "Each scene runs to the end of a frame as configured (Gauss–Seidel, plain); the next sub-step is then solved by each variant from that one state (`opsim converge --solver ...`, `core/sim/converge.h`). The relative energy error is r_k = |E_k − E\\*| / (E_0 − E\\*), E the energy of docs/design.md §1 summed over the bodies, E\\* the energy after " n_ref " Gauss–Seidel iterations of the same sub-step. *Reached*: the first iteration k after which r stays below the tolerance to the end of the run; – if never. Milliseconds are the wall-clock time spent in the iterations up to k (the Chebyshev extrapolation included, energy evaluation excluded), from one run each while `make -j` ran others."; print ""; \
	        print "![relative energy error against iteration and time](" figure ")"; print ""; \
	        print "| scene | config | frame | h (s) | E_0 (J) | E* (J) | iterations |"; print "|---|---|---:|---:|---:|---:|---:|"; \
	        for (c = 1; c <= count; ++c) { split(row[order[c] "\tgs"], f, "\t"); \
	            printf "| %s | `%s` | %s | %.6g | %.10g | %.10g | %s |\n", order[c], f[16], f[14], f[15], f[11], f[12], f[13] } \
	        print ""; print "## Iterations and milliseconds to reach a relative energy error"; print ""; \
	        print "| scene | variant | ρ | 1e-2 it. | 1e-2 ms | 1e-4 it. | 1e-4 ms | 1e-6 it. | 1e-6 ms | r at the end |"; \
	        print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"; \
	        for (c = 1; c <= count; ++c) for (v = 1; v <= 4; ++v) { variant = variants[v]; \
	            split(row[order[c] "\t" variant], f, "\t"); \
	            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", order[c], name[variant], cell(f[9]), cell(f[3]), cell(f[4]), cell(f[5]), cell(f[6]), cell(f[7]), cell(f[8]), f[10] } \
	        print ""; print "## Speed-up of Chebyshev over plain"; print ""; \
	        print "Plain / Chebyshev, same rotation order: iterations and milliseconds to reach each tolerance (– where either never reaches it)."; print ""; \
	        print "| scene | rotations | 1e-2 it. | 1e-2 ms | 1e-4 it. | 1e-4 ms | 1e-6 it. | 1e-6 ms |"; print "|---|---|---:|---:|---:|---:|---:|---:|"; \
	        for (c = 1; c <= count; ++c) for (o = 1; o <= 2; ++o) { rot = o == 1 ? "gs" : "jacobi"; \
	            split(row[order[c] "\t" rot], p, "\t"); split(row[order[c] "\t" rot "-chebyshev"], q, "\t"); \
	            printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", order[c], name[rot], ratio(p[3], q[3]), ratio(p[4], q[4]), ratio(p[5], q[5]), ratio(p[6], q[6]), ratio(p[7], q[7]), ratio(p[8], q[8]) } \
	        print ""; print "## ρ estimates"; print ""; \
	        print "`opsim estimate-rho CONFIG --frame F --set solver.rotations=ORDER` (its frames before the sub-step run with that order, so the Jacobi estimate comes from the Jacobi run'\''s state at that frame, not quite the state the study starts from); the Chebyshev runs take the printed ρ and record its source."; print ""; \
	        print "| scene | rotations | ρ | source |"; print "|---|---|---:|---|"; \
	        for (c = 1; c <= count; ++c) for (o = 1; o <= 2; ++o) { rot = o == 1 ? "gs" : "jacobi"; split(row[order[c] "\t" rot "-chebyshev"], q, "\t"); \
	            text = source[order[c] "\t" rot]; gsub(/\|/, "\\|", text); \
	            printf "| %s | %s | %s | %s |\n", order[c], name[rot], q[9], text } \
	        for (c = 1; c <= count; ++c) for (v = 1; v <= 4; ++v) { variant = variants[v]; \
	            split(row[order[c] "\t" variant], f, "\t"); \
	            if (f[3] == "-") notes = notes sprintf("- %s, %s: does not reach 1e-2 within %d iterations; r at the end %s.\n", order[c], name[variant], f[13], f[10]) } \
	        if (notes != "") { print ""; print "## Runs that do not converge"; print ""; printf "%s", notes } \
	    }' $$out.rho $(CONV_TABLE) > $$out; \
	rm -f $$out.rho; mv $$out $@; trap - EXIT

CONV_PLOT_ARGS = dir='$(CONV_DIR)'; scenes='$(CONV_SCENES)'; \
    labels='dinosaur (fig5.ini) frame $(CONV_FRAME_dino)|bunny (bunny_fall.ini) frame $(CONV_FRAME_bunny)|bar (fig1.ini) frame $(CONV_FRAME_bar)'

$(FIGURES)/convergence.png $(FIGURES)/convergence.pdf &: $(CONV_RUNS) plots/convergence.gp $(PLOT_DEPS)
	$(call plot_figure,plots/convergence.gp,$(CONV_PLOT_ARGS))

.PRECIOUS: $(CONV_RUNS) $(CONV_RHO) $(CONV_DIR)/%.tsv $(CONV_DIR)/%.txt
