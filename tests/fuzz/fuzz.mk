# Fuzzing (issue 23): libFuzzer targets in tests/fuzz/, their seed and fuzz-regression inputs in
# tests/fuzz/<target>/, docs/make-targets.md, "Fuzzing".
#   make fuzz FUZZ_SECONDS=N   builds every target with clang (-fsanitize=fuzzer,address,undefined)
#                              in build/fuzz, a tree of links to the sources like `make test
#                              SANITIZE=1`'s, runs each for N seconds (tools/fuzz.sh) and prints
#                              executions, crashes and hangs per target; findings are saved in
#                              build/fuzz-runs/<target>/findings/ and make then fails.
#   make test                  replays every saved input through each target once, built with
#                              the normal compiler (bin/fuzz-replay/, tests/test_fuzz_corpus.c).
# The OFF and OBJ targets are one source (fuzz_mesh.c) compiled twice.
FUZZ_TARGETS   := off obj build config catalogue runfile cache
FUZZ_SECONDS   ?= 60
FUZZ_TREE      := build/fuzz
FUZZ_PACKAGES  := clang libclang-rt-14-dev libomp-dev
FUZZ_REPLAY    := $(FUZZ_TARGETS:%=bin/fuzz-replay/%)
FUZZ_OBJ       := $(FUZZ_TARGETS:%=build/tests/fuzz/%.o) build/tests/fuzz/replay.o

.PHONY: fuzz

build/tests/fuzz/off.o: tests/fuzz/fuzz_mesh.c build/flags | deps
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(CPPFLAGS) -c $< -o $@

build/tests/fuzz/obj.o: tests/fuzz/fuzz_mesh.c build/flags | deps
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(CPPFLAGS) -DFUZZ_MESH_OBJ -c $< -o $@

build/tests/fuzz/%.o: tests/fuzz/fuzz_%.c build/flags | deps
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(CPPFLAGS) -c $< -o $@

bin/fuzz-replay/%: build/tests/fuzz/%.o build/tests/fuzz/replay.o build/libopsim.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/tests/test_fuzz_corpus: | $(FUZZ_REPLAY)

# Only inside $(FUZZ_TREE), whose objects carry -fsanitize=fuzzer-no-link.
bin/fuzz/%: build/tests/fuzz/%.o build/libopsim.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

fuzz: FORCE
	@tools/deps.sh $(FUZZ_PACKAGES)
	@tools/sanitize-tree.sh $(FUZZ_TREE)
	@$(MAKE) --no-print-directory -C $(FUZZ_TREE) $(FUZZ_TARGETS:%=bin/fuzz/%) CC=clang OPT=-O1 \
	    SANITIZE_FLAGS='-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer'
	@tools/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TREE)/bin/fuzz build/fuzz-runs $(FUZZ_TARGETS)

-include $(FUZZ_OBJ:.o=.d)
