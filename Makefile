# The README's two commands:
#   make run     set up, build, and simulate the bundled demo scene
#   make check   set up, then build and run the whole suite twice: Release, and ASan+UBSan;
#                then the fuzz targets for a short time
#   make bench   the comparison with MuJoCo, ODE and Bullet (bench/run.sh, bench/RESULTS.md)
#   make python  the Python module, built with the Release build and installed for PYTHON
#                (a touche.pth in its user site-packages pointing at the build)
JOBS ?= $(shell nproc)
BUILD ?= build
DEMO ?= examples/stack13.xml
OUT ?= out/demo
FUZZ_SECONDS ?= 10
PYTHON ?= /usr/bin/python3

.PHONY: all setup release asan check run bench install clean fuzz python

all: release

setup:
	@tools/setup.sh

release: setup
	@cmake -S . -B $(BUILD)/release -DCMAKE_BUILD_TYPE=Release -DTCH_WERROR=ON \
	  -DTCH_NPM_CACHE=$(abspath $(BUILD))/npm-cache >/dev/null
	@cmake --build $(BUILD)/release -j $(JOBS)

asan: setup
	@cmake -S . -B $(BUILD)/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
	  -DTCH_SANITIZE=ON -DTCH_WERROR=ON -DTCH_BUILD_FUZZ=ON \
	  -DTCH_NPM_CACHE=$(abspath $(BUILD))/npm-cache >/dev/null
	@cmake --build $(BUILD)/asan -j $(JOBS)

check: release asan
	@tools/check-layers.sh
	cd $(BUILD)/release && ctest --output-on-failure -j $(JOBS)
	cd $(BUILD)/asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory fuzz

fuzz: asan
	@tools/run-fuzzers.sh $(BUILD)/asan $(FUZZ_SECONDS)

run: release
	@$(BUILD)/release/cli/touche run $(DEMO) --out $(OUT)

bench: setup
	@tools/setup.sh bench
	@cmake -S . -B $(BUILD)/bench -DCMAKE_BUILD_TYPE=Release -DTCH_BUILD_BENCH=ON >/dev/null
	@cmake --build $(BUILD)/bench -j $(JOBS)
	@BUILD=$(abspath $(BUILD))/bench bench/run.sh

python: release
	@test -n "$$(ls $(BUILD)/release/python/lib/touche*.so 2>/dev/null)" || \
	  { echo "make python: the module was not built (see cmake's 'touche Python module' line)"; exit 1; }
	@$(PYTHON) -c "import os, site, sys; d = site.getusersitepackages(); os.makedirs(d, exist_ok=True); \
	  open(os.path.join(d, 'touche.pth'), 'w').write(sys.argv[1] + '\\n'); print('make python:', d + '/touche.pth ->', sys.argv[1])" \
	  $(abspath $(BUILD))/release/python/lib
	@$(PYTHON) -c "import touche; print('make python: import touche', touche.__version__, 'from', touche.__file__)"

install: release
	@cmake --install $(BUILD)/release $(if $(PREFIX),--prefix $(PREFIX))

clean:
	rm -rf $(BUILD) out
