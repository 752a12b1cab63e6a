# Reports: the graphs of every model (data/models.tsv), their pictures, and reports/graphs.md;
# Table 1 (reports/table1.md); and reports/REPORT.md, the paper's claims beside our numbers.
# (read while make parses, before bin/opsim-report exists: grep and cut over the catalogue's rows)
CATALOGUE_ROWS = grep -v -e '^\#' -e '^$$' data/models.tsv
MODELS        := $(shell $(CATALOGUE_ROWS) | cut -f1)
GRAPH_RUNS    := $(MODELS:%=data/results/graphs/%.h5)
# the models whose catalogue edge rule is not the face rule, built once more with it (the
# single-rule graph set that reports/graphs.md and Table 1 show beside the matched one)
DENSE_MODELS  := $(shell $(CATALOGUE_ROWS) | cut -f1,6 | grep '[[:space:]].' | grep -v '[[:space:]]faces$$' | cut -f1)
FACE_RUNS     := $(DENSE_MODELS:%=data/results/graphs/faces/%.h5)
GRAPH_FIGURES := $(MODELS:%=reports/figures/graph-%.png)

# model field: $(call model_field,NAME,COLUMN)
model_field = $(shell grep '^$(1)[[:space:]]' data/models.tsv | cut -f$(2))
# a mesh source in the catalogue is relative to the catalogue's folder, data/ (docs/data.md)
model_input = $(if $(filter shape:%,$(1)),--shape $(patsubst shape:%,%,$(1)),--mesh data/$(1))
# a joined model (kind joined: two catalogue models in one graph, core/geometry/model.c) is built by name
model_build = $(if $(filter joined,$(call model_field,$(1),3)),--model $(1),$(call model_input,$(call model_field,$(1),2)) \
    --kind $(call model_field,$(1),3) --particles $(call model_field,$(1),4) --edges $(or $(call model_field,$(1),6),faces))

graphs: reports/graphs.md

data/results/graphs/%.h5: data/models.tsv bin/opsim | data
	@mkdir -p $(dir $@)
	bin/opsim graph $(call model_build,$*) --name $* --out $@

data/results/graphs/faces/%.h5: data/models.tsv bin/opsim | data
	@mkdir -p $(dir $@)
	bin/opsim graph $(call model_input,$(call model_field,$*,2)) --kind $(call model_field,$*,3) \
	    --particles $(call model_field,$*,4) --edges faces --name $* --out $@

reports/figures/graph-%.png: data/results/graphs/%.h5 plots/graph.gp plots/style.gp bin/opsim
	@mkdir -p $(dir $@)
	gnuplot -e "run='$<'; body='$*'; out='$@'; view='$(call model_field,$*,5)'; \
	    wire=$(if $(filter bunny% armadillo%,$*),0,1)" plots/graph.gp

reports/graphs.md: $(GRAPH_RUNS) $(FACE_RUNS) $(GRAPH_FIGURES) bin/opsim-report reports/paper_table1.tsv
	bin/opsim-report graphs --models data/models.tsv --paper reports/paper_table1.tsv \
	    --runs data/results/graphs --face-runs data/results/graphs/faces --figures figures --out $@

# Table 1: every row's scene timed by bench_scenes by the timing protocol (docs/timing.md):
# TABLE1_REPEATS repetitions of each scene's own frames after 20 warm-up frames, energy logging
# off, OpenMP's default thread count, the repetitions taken round the scenes; each stage's median
# with its 95 % interval and noisy mark, and the CPU; then the paper's table beside ours with the
# machine, threads and flags. bench.txt keeps the printed table. Each benchmark starts through
# tools/when-idle.sh and, under `make reproduce`, in its timed phase (Makefile): nothing else
# may run meanwhile. The scenes whose models have a denser edge rule than the face rule
# (data/models.tsv) are timed once more with the face rule's graphs (-e faces), briefly:
# FACE_REPEATS repetition(s) of the same frames (the scene's own after the warm-up, as the
# catalogue rows time them: the piles' first frames after the warm-up are their impacts, whose
# contacts cost twice the rest's, so a shorter window would make the face rule's collision column
# look dearer than the matched graphs'); below six repetitions a row is marked noisy.
# bench.csv: one header row, then a row per scene (and per body where the paper's row is one
# body's), edge_rule = catalogue or faces.
TABLE1_DIR     := data/results/table1
TABLE1_REPEATS := 7
TABLE1_FACE_REPEATS := 1
TABLE1_FACE_SCENES  := -s fig6-bunny -s fig7-52 -s fig7-180
TABLE1_CONFIGS := experiments/fig1.ini experiments/fig2.ini experiments/fig4.ini experiments/fig5.ini \
                  experiments/fig6-rod.ini experiments/fig6-bunny.ini experiments/fig7-52.ini experiments/fig7-180.ini

table1: reports/table1.md reports/tables/table1.tex

$(TABLE1_DIR)/bench.csv: bin/bench/bench_scenes $(TABLE1_CONFIGS) data/models.tsv reports/paper_table1.tsv | data
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  BENCH   $@")
	$(Q)set -e; trap 'rm -f $@.tmp $@.faces' EXIT; \
	tools/when-idle.sh bin/bench/bench_scenes -r $(TABLE1_REPEATS) -o $@.tmp > $(TABLE1_DIR)/bench.txt; \
	tools/when-idle.sh bin/bench/bench_scenes -r $(TABLE1_FACE_REPEATS) -e faces $(TABLE1_FACE_SCENES) \
	    -o $@.faces >> $(TABLE1_DIR)/bench.txt; \
	tail -n +2 $@.faces >> $@.tmp; mv $@.tmp $@

reports/table1.md: $(TABLE1_DIR)/bench.csv bin/opsim-report reports/paper_table1.tsv build/flags
	@$(if $(Q),echo "  REPORT  $@")
	$(Q)bin/opsim-report table1 --paper reports/paper_table1.tsv --bench $< --flags build/flags --out $@

reports/tables/table1.tex: $(TABLE1_DIR)/bench.csv bin/opsim-report reports/paper_table1.tsv
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEX     $@")
	$(Q)bin/opsim-report table1-tex --paper reports/paper_table1.tsv --bench $< --out $@

.PRECIOUS: $(TABLE1_DIR)/bench.csv

# The timed file: `make reproduce` makes it in its timed phase (Makefile).
TABLE1_TIMED := $(TABLE1_DIR)/bench.csv

# REPORT.md: reports/REPORT.md.in with every {{placeholder}} computed from the files under
# data/results/ (reports/report_md.c says how). Every experiment is made first (order-only, so
# that these phony targets do not force a rewrite); the report then depends on exactly the
# files it read, listed by opsim-report in build/report.d, which also names the template,
# reports/paper_table1.tsv and build/flags. Re-running rewrites it only when one of them, the
# template or bin/opsim-report changed. Each markdown table of the report is also written as
# reports/tables/report-HEADING-N.tex (reports/report_md_tex.h), the report-*.tex of an earlier
# report removed first.
REPORT_DEPFILE := build/report.d

report: reports/REPORT.md

reports/REPORT.md: reports/REPORT.md.in bin/opsim-report | graphs figures convergence fig6 fig7 table1 freeflight \
    stiffness floor meshless variants
	@$(if $(Q),echo "  REPORT  $@")
	$(Q)bin/opsim-report report --template $< --results $(RESULTS) --paper reports/paper_table1.tsv \
	    --flags build/flags --figures figures --depfile $(REPORT_DEPFILE) --tex-dir reports/tables --out $@

-include $(REPORT_DEPFILE)
