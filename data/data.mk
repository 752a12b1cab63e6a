# Meshes: the three scanned models come from Debian's libcgal-demo (nothing third-party is
# committed); data/meshes.tsv lists each file's SHA-256 and the size it is scaled to.
CGAL_DATA   := /usr/share/doc/libcgal-dev/data.tar.gz
MODEL_NAMES := dino bunny armadillo
MODEL_MESHES := $(MODEL_NAMES:%=data/meshes/%.obj)

data: $(MODEL_MESHES)

data/cache/%.off: data/meshes.tsv | deps
	@mkdir -p data/cache
	@tools/extract-mesh.sh $(CGAL_DATA) data/meshes.tsv $* $@

data/meshes/%.obj: data/cache/%.off data/meshes.tsv bin/opsim
	@mkdir -p data/meshes
	bin/opsim mesh $< $$(awk -F'\t' -v n=$* '$$1 == n { print "--fit " $$4 " --up " $$5 }' data/meshes.tsv) --out $@
