# opsim: build, data, tests, benchmarks, experiments and the report.
# `make reproduce` is the main job; `make test` runs the tests. Both install missing Debian
# packages first (tools/deps.sh), so a fresh Debian machine needs nothing else.

CC      ?= cc
VERSION := 0.1.0
GIT_REV := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)

# Bitwise-repeatable floating point: no contraction into FMA, no fast-math. Not -march=native:
# on a machine with FMA, GCC 12's vectoriser fuses a·b ± c·d patterns into vfmaddsub even under
# -ffp-contract=off (seen in tests/test_polar.c, whose rounding then changed), and the gain
# without FMA and AVX-512 was 3 % on the 52-model scene. -fno-math-errno changes no result (the
# math functions round as before; they only leave errno alone, which nothing here reads after
# them): it lets a sqrt be the instruction alone, where each carried a test and a branch to
# the library call that sets errno. On the 180-model pile, one thread, alternated: local 1.5 %,
# global 2.5 %, contacts 3.5 % faster (docs/performance.md).
OPT      ?= -O3
# OpenMP: the world's per-body stages (include/opsim/world.h) and the contact stage's broad phase and
# Jacobi passes (core/contact/collide.h), bitwise the same result for every thread count.
# `make SCALAR=1`: the plain-C build, no vector instructions (core/kernels/simd.h); bitwise the
# same results (tests/test_golden.c). `make test` builds and tests it in build/scalar.
SIMD_FLAGS := $(if $(filter 1,$(SCALAR)),-DOPSIM_NO_SIMD)
CFLAGS   := -std=c11 $(OPT) -g -Wall -Wextra -Werror -ffp-contract=off -fno-fast-math -fno-math-errno -fopenmp \
            -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -MMD -MP $(SIMD_FLAGS) $(SANITIZE_FLAGS)
LDFLAGS  := -fopenmp $(SANITIZE_FLAGS)
# Expanded when a recipe runs, i.e. after `deps` has installed pkg-config and HDF5.
CPPFLAGS = -Iinclude -Icore -Isolvers -I/usr/include/suitesparse $(shell pkg-config --cflags hdf5 2>/dev/null) \
           -DOPSIM_VERSION='"$(VERSION)"' -DOPSIM_GIT_REV='"$(GIT_REV)"' \
           -DOPSIM_CFLAGS='"$(strip $(CFLAGS))"'
LDLIBS   = $(shell pkg-config --libs hdf5 2>/dev/null) -lhdf5_hl -lcholmod -llapacke -lopenblas -linih -lnettle -lm

CORE_SRC    := $(wildcard core/*/*.c) $(wildcard solvers/*.c) $(wildcard solvers/*/*.c)
CORE_OBJ    := $(CORE_SRC:%.c=build/%.o)
TEST_SRC    := $(wildcard tests/test_*.c)
TEST_BIN    := $(TEST_SRC:tests/%.c=bin/tests/%)
# The tests `make test` runs again in the plain-C build (below, test).
SCALAR_TESTS := golden arap_reference arap arap_lbfgs polar sparse predict collide floor team energy \
                chebyshev anderson experiments arap_pcg
ifeq ($(SCALAR),1)
TEST_BIN    := $(SCALAR_TESTS:%=bin/tests/test_%)
endif
BENCH_SRC   := $(wildcard bench/bench_*.c)
BENCH_BIN   := $(BENCH_SRC:bench/%.c=bin/bench/%)
REPORT_SRC  := $(wildcard reports/*.c)
APP_SRC     := $(wildcard app/*.c)

# `make V=1` shows full command lines.
Q := $(if $(V),,@)

.PHONY: all deps data headers intrinsics test test-slurm test-paraview check-tables test-tex report-pdf golden \
        bench reproduce graphs table1 report clean distclean help FORCE install uninstall
.DEFAULT_GOAL := all

all: bin/opsim bin/opsim-report

help:
	@echo "make              build bin/opsim and bin/opsim-report"
	@echo "make reproduce    the main job: data, every experiment at its defaults, the report"
	@echo "make test         build and run every test (cmocka), the numerical ones again in plain C"
	@echo "make headers      check each public header (include/opsim/) compiles alone"
	@echo "make intrinsics   check no source outside core/kernels/ names an intrinsic"
	@echo "make golden       rewrite tests/golden/states.tsv after a change of results on purpose"
	@echo "make test-slurm   opt-in: the example sweep and a small variants matrix on a one-node Slurm here (root)"
	@echo "make test-paraview  opt-in: ParaView reads every run value right, and renders a run"
	@echo "make check-tables opt-in, after make reproduce: which result tables pandas would misread"
	@echo "make test-tex     opt-in, after make reproduce (or report): compile every reports/tables/*.tex"
	@echo "make report-pdf   reports/REPORT.pdf from the present reports/REPORT.md (pandoc, xelatex)"
	@echo "make data         extract and scale the meshes into data/meshes/"
	@echo "make graphs       build every Table 1 model's graph, write reports/graphs.md"
	@echo "make report       every experiment, figure and table, then reports/REPORT.md"
	@echo "make sweep-example  a 2x2 parameter sweep of Fig. 2 and its overlay figure"
	@echo "make variants-gather  the variants matrix from its Slurm jobs' runs (tools/variants-slurm.sh), its tables"
	@echo "make bench        per-stage timing tables (bench/)"
	@echo "make fuzz FUZZ_SECONDS=N  every libFuzzer target N seconds (tests/fuzz/)"
	@echo "make deps         install the Debian packages opsim needs"
	@echo "make install PREFIX=DIR  programs, headers, libraries, opsim.pc, man page, data"

deps:
	@tools/deps.sh

# Objects depend on the flags they were compiled with: changing OPT or CFLAGS rebuilds them.
build/flags: FORCE
	@mkdir -p build
	@echo '$(CC) $(CFLAGS)' | cmp -s - $@ || echo '$(CC) $(CFLAGS)' > $@

# The objects that print the git revision depend on it too, so that an incremental build after a
# commit does not stamp runs and reports with the revision they were first compiled at.
build/git-rev: FORCE
	@mkdir -p build
	@echo '$(GIT_REV)' | cmp -s - $@ || echo '$(GIT_REV)' > $@

build/app/main.o build/app/cmd_converge.o build/reports/report_main.o build/reports/report_graphs.o build/reports/report_md.o build/core/io/runfile_write.o: build/git-rev

build/%.o: %.c build/flags | deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(CPPFLAGS) -c $< -o $@

build/libopsim.a: $(CORE_OBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

# The shared library, for `make install`: the same sources compiled position-independent in
# build/pic (the static library and the programs keep their non-PIC objects and their speed).
SONAME  := libopsim.so.$(firstword $(subst ., ,$(VERSION)))
PIC_OBJ := $(CORE_SRC:%.c=build/pic/%.o)

build/pic/%.o: %.c build/flags | deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC PIC  $<")
	$(Q)$(CC) $(CFLAGS) -fPIC $(CPPFLAGS) -c $< -o $@

build/libopsim.so.$(VERSION): $(PIC_OBJ)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/opsim.pc: tools/opsim.pc.in FORCE
	@sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' $< | cmp -s - $@ || \
	    sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

# `make install PREFIX=DIR` (default /usr/local; DESTDIR for staging): the programs, the public
# headers (include/opsim), the static and shared libraries, opsim.pc, the man page, and the data
# an installed opsim finds beside itself (share/opsim laid out as a checkout: data/models.tsv,
# data/meshes, experiments/*.ini; docs/data.md). docs/library.md shows a program built against it.
PREFIX  ?= /usr/local
INSTALL_ROOT = $(DESTDIR)$(PREFIX)
install: bin/opsim bin/opsim-report build/libopsim.a build/libopsim.so.$(VERSION) build/opsim.pc | data
	install -d $(INSTALL_ROOT)/bin $(INSTALL_ROOT)/include/opsim $(INSTALL_ROOT)/lib/pkgconfig \
	    $(INSTALL_ROOT)/share/man/man1 $(INSTALL_ROOT)/share/opsim/data/meshes $(INSTALL_ROOT)/share/opsim/experiments
	install -m 755 bin/opsim bin/opsim-report $(INSTALL_ROOT)/bin/
	install -m 644 include/opsim/*.h $(INSTALL_ROOT)/include/opsim/
	install -m 644 build/libopsim.a $(INSTALL_ROOT)/lib/
	install -m 755 build/libopsim.so.$(VERSION) $(INSTALL_ROOT)/lib/
	ln -sf libopsim.so.$(VERSION) $(INSTALL_ROOT)/lib/$(SONAME)
	ln -sf $(SONAME) $(INSTALL_ROOT)/lib/libopsim.so
	install -m 644 build/opsim.pc $(INSTALL_ROOT)/lib/pkgconfig/
	install -m 644 docs/opsim.1 $(INSTALL_ROOT)/share/man/man1/
	install -m 644 data/models.tsv $(INSTALL_ROOT)/share/opsim/data/
	install -m 644 data/meshes/*.obj $(INSTALL_ROOT)/share/opsim/data/meshes/
	install -m 644 experiments/*.ini $(INSTALL_ROOT)/share/opsim/experiments/

uninstall:
	rm -f $(INSTALL_ROOT)/bin/opsim $(INSTALL_ROOT)/bin/opsim-report $(INSTALL_ROOT)/lib/libopsim.* \
	    $(INSTALL_ROOT)/lib/pkgconfig/opsim.pc $(INSTALL_ROOT)/share/man/man1/opsim.1
	rm -rf $(INSTALL_ROOT)/include/opsim $(INSTALL_ROOT)/share/opsim

bin/opsim: $(APP_SRC:%.c=build/%.o) build/libopsim.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/opsim-report: $(REPORT_SRC:%.c=build/%.o) build/libopsim.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/tests/%: build/tests/%.o build/libopsim.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

bin/bench/%: build/bench/%.o build/libopsim.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The public interface stands alone: each header of include/opsim/ compiles by itself with only
# include/ on the path (the library's own headers under core/ and solvers/ stay private).
# `make headers` checks it; `make test` runs it first.
PUBLIC_HEADERS := $(wildcard include/opsim/*.h)
build/headers/%.ok: include/opsim/%.h $(PUBLIC_HEADERS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HEADER  $<")
	$(Q)$(CC) -std=c11 -Wall -Wextra -Werror -Iinclude -fsyntax-only -x c $<
	@touch $@

headers: $(PUBLIC_HEADERS:include/opsim/%.h=build/headers/%.ok)

# Intrinsics only in core/kernels/ (the lane type and the kernels): no other source of the
# library, the programs or the tests names one. bench/ may (its machine-peak loops).
intrinsics:
	@! grep -rnE '_mm(256|512)?_[a-z]|__m(128|256|512)|[a-z]mmintrin' --include=*.c --include=*.h \
	    core solvers app reports tests | grep -v '^core/kernels/' || \
	    { echo 'intrinsics outside core/kernels/ (above)'; exit 1; }

include data/data.mk
include reports/reports.mk
include experiments/experiments.mk
include tests/fuzz/fuzz.mk

ifeq ($(SANITIZE),1)
# `make test SANITIZE=1`: every test against a build with AddressSanitizer and UBSan (any report
# stops the program), at -O1, in build/san: a tree of links to the sources with its own build/,
# bin/ and data/, so the normal build is left alone and the tests' relative paths (bin/opsim,
# data/meshes) name the sanitized programs. Leaks are not checked: libgomp, OpenBLAS and HDF5
# keep allocations to exit.
SAN_TREE := build/san
test: FORCE
	@tools/sanitize-tree.sh $(SAN_TREE)
	@ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:exitcode=86 UBSAN_OPTIONS=print_stacktrace=1 \
	    $(MAKE) --no-print-directory -C $(SAN_TREE) test SANITIZE=inner OPT=-O1 \
	    SANITIZE_FLAGS='-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer'
else
# Every test, then (from the top-level call only) again in build/scalar, a tree of links like
# build/san built with SCALAR=1: the tests of the code that has vector paths (the kernels, the
# prediction, the contacts, arap and the world's threads) and the golden hashes of the stored
# states (tests/test_golden.c), which the plain-C build must reproduce bit for bit. The other
# tests' code compiles the same in both builds.
SCALAR_TREE  := build/scalar
test: headers intrinsics $(TEST_BIN) bin/opsim bin/opsim-report bin/bench/bench_scenes | data
	@tools/run-tests.sh $(TEST_BIN)
ifeq ($(SANITIZE)$(SCALAR),)
	@tools/sanitize-tree.sh $(SCALAR_TREE)
	@RUN_TESTS_LABEL=scalar $(MAKE) --no-print-directory -C $(SCALAR_TREE) test SCALAR=1
	@tools/test-install.sh
endif

# After a change that moves the results on purpose: the golden hashes of the stored states.
golden: bin/tests/test_golden | data
	@OPSIM_GOLDEN_UPDATE=1 bin/tests/test_golden

# Opt-in, not in CI: ParaView's default reader opens a run's sidecar (and a sub-step run's
# sub-step sidecar), every value it reads is checked against the run file, and the run is
# rendered (tools/test-paraview.sh; installs paraview).
test-paraview: bin/opsim | data
	@tools/test-paraview.sh

# Opt-in, not in CI: a one-node Slurm on this machine runs the sweep of `make sweep-example` as an
# array job, each run file checked against make's, and a small variants matrix through
# tools/variants-slurm.sh against variants.sh's (tools/test-slurm.sh; root, installs slurm-wlm).
test-slurm: bin/opsim
	@tools/test-slurm.sh

# Opt-in, after `make reproduce`: every table under data/results/ and reports/ against the rules
# of a table pandas' read_csv reads with the right dtypes (tools/check-tables.py, docs/results.md).
check-tables:
	@tools/check-tables.py data/results reports

# Opt-in, after `make table1` and `make variants`: every LaTeX table compiled in a two-column article
# (tools/test-tex.sh; installs xelatex, booktabs and siunitx when missing).
test-tex:
	@tools/test-tex.sh

# The report as a PDF: pandoc with xelatex (Unicode: ρ, −, ×) and DejaVu fonts, from reports/
# so that the figures' paths resolve; installs its Debian packages when missing. It sets the
# REPORT.md that is there (make report writes it) and never remakes it: a PDF of the report
# must not start hours of experiments. tools/report-pdf.lua sizes the wide tables' columns,
# tools/report-pdf.tex supplies the characters DejaVu Serif lacks.
REPORT_PDF_PACKAGES := pandoc texlive-xetex texlive-latex-recommended texlive-latex-extra texlive-science \
    lmodern fonts-dejavu-core
report-pdf:
	@test -f reports/REPORT.md || { echo "report-pdf: no reports/REPORT.md (make report writes it)" >&2; exit 1; }
	@tools/deps.sh $(REPORT_PDF_PACKAGES)
	@$(if $(Q),echo "  PDF     reports/REPORT.pdf")
	$(Q)cd reports && pandoc REPORT.md --pdf-engine=xelatex -V mainfont='DejaVu Serif' \
	    -V sansfont='DejaVu Sans' -V monofont='DejaVu Sans Mono' -V geometry:margin=2cm -V papersize=a4 -V fontsize=10pt \
	    --lua-filter ../tools/report-pdf.lua -H ../tools/report-pdf.tex \
	    -o REPORT.pdf.tmp.pdf && mv REPORT.pdf.tmp.pdf REPORT.pdf && echo "report-pdf: wrote reports/REPORT.pdf"
endif

bench: $(BENCH_BIN)
	@for b in $(BENCH_BIN); do $$b || exit 1; done

# The main job in three phases, each a make of its own, so that nothing runs beside a timing:
# every experiment's untimed work in parallel; then the timed work one command at a time (the
# variants matrix, which runs its own untimed cells two at a time and times alone, then each
# benchmark and the convergence study's timed runs: docs/timing.md); then the tables, figures and
# report made from them. (One make with order-only edges from each benchmark to the experiments
# ordered the same, but GNU make 4.3 spent minutes of CPU re-walking those edges between jobs.)
REPRODUCE_UNTIMED = graphs $(FIGURE_TARGETS) freeflight stiffness $(CONV_UNTIMED) $(FLOOR_UNTIMED) \
    $(MESHLESS_UNTIMED) $(SPRINGS_UNTIMED)
REPRODUCE_TIMED = variants $(CONV_TIMED) $(SPRINGS_TIMED) $(MESHLESS_TIMED) $(FLOOR_TIMED) $(TABLE1_TIMED)
reproduce:
	$(Q)$(MAKE) --no-print-directory $(REPRODUCE_UNTIMED)
	$(Q)env MAKEFLAGS='$(filter-out -j% --jobserver%,$(MAKEFLAGS))' $(MAKE) --no-print-directory -j1 $(REPRODUCE_TIMED)
	$(Q)$(MAKE) --no-print-directory report

# The main job keeps every core busy unless told otherwise (-j given, or MAKEFLAGS): its runs take
# one OpenMP thread each (experiments/experiments.mk). Serially it took 17 CPU-minutes. Its
# phases' makes inherit the jobs (the timed one is given one job, without the jobserver).
ifeq ($(MAKELEVEL),0)
ifneq ($(filter reproduce report,$(MAKECMDGOALS)),)
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif
endif
endif

clean:
	rm -rf build bin

distclean: clean
	rm -rf data/cache data/meshes data/results reports/figures reports/graphs.md reports/table1.md \
	    reports/convergence.md reports/REPORT.md reports/REPORT.pdf reports/tables

.SECONDARY:
-include $(CORE_OBJ:.o=.d) $(TEST_SRC:%.c=build/%.d) $(BENCH_SRC:%.c=build/%.d) $(REPORT_SRC:%.c=build/%.d) $(APP_SRC:%.c=build/%.d)
