# Meshes: the three scanned models come from Debian's libcgal-demo (nothing third-party is
# committed); data/meshes.tsv lists each file's SHA-256 and the size it is scaled to.
CGAL_DATA   := /usr/share/doc/libcgal-dev/data.tar.gz
MODEL_NAMES := dino bunny armadillo
MODEL_MESHES := $(MODEL_NAMES:%=data/meshes/%.obj)

data: $(MODEL_MESHES)

data/cache/%.off: data/meshes.tsv | deps
	@mkdir -p data/cache
	@tools/extract-mesh.sh $(CGAL_DATA) data/meshes.tsv $* $@

mesh_field = $$(bin/opsim-report lookup --in data/meshes.tsv --where name=$(1) --column $(2))

data/meshes/%.obj: data/cache/%.off data/meshes.tsv bin/opsim | bin/opsim-report
	@mkdir -p data/meshes
	bin/opsim mesh $< --fit $(call mesh_field,$*,size_m) --up $(call mesh_field,$*,up) --out $@
