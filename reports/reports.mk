# Reports: the graphs of every model (data/models.tsv), their pictures, and reports/graphs.md.
MODELS        := $(shell awk -F'\t' '!/^#/ && NF { print $$1 }' data/models.tsv)
GRAPH_RUNS    := $(MODELS:%=data/results/graphs/%.h5)
GRAPH_FIGURES := $(MODELS:%=reports/figures/graph-%.png)

# model field: $(call model_field,NAME,COLUMN)
model_field = $(shell awk -F'\t' -v n=$(1) '$$1 == n { print $$$(2) }' data/models.tsv)
model_input = $(if $(filter shape:%,$(1)),--shape $(patsubst shape:%,%,$(1)),--mesh $(1))

graphs: reports/graphs.md

data/results/graphs/%.h5: data/models.tsv bin/opsim | data
	@mkdir -p $(dir $@)
	bin/opsim graph $(call model_input,$(call model_field,$*,2)) --kind $(call model_field,$*,3) \
	    --particles $(call model_field,$*,4) --name $* --out $@

reports/figures/graph-%.png: data/results/graphs/%.h5 plots/graph.gp plots/style.gp bin/opsim
	@mkdir -p $(dir $@)
	gnuplot -e "run='$<'; body='$*'; out='$@'; view='$(call model_field,$*,5)'; \
	    wire=$(if $(filter bunny% armadillo%,$*),0,1)" plots/graph.gp

reports/graphs.md: $(GRAPH_RUNS) $(GRAPH_FIGURES) bin/opsim-report reports/paper_table1.tsv
	bin/opsim-report graphs --models data/models.tsv --paper reports/paper_table1.tsv \
	    --runs data/results/graphs --figures figures --out $@
