# The README's two commands:
#   make run     set up, build, and simulate the bundled demo scene
#   make check   set up, then build and run the whole suite twice: Release, and ASan+UBSan;
#                then the fuzz targets for a short time
#   make bench   the comparison with MuJoCo, ODE and Bullet (bench/run.sh, bench/RESULTS.md)
JOBS ?= $(shell nproc)
BUILD ?= build
DEMO ?= examples/stack13.xml
OUT ?= out/demo
FUZZ_SECONDS ?= 10

.PHONY: all setup release asan check run bench install clean fuzz

all: release

setup:
	@tools/setup.sh

release: setup
	@cmake -S . -B $(BUILD)/release -DCMAKE_BUILD_TYPE=Release -DTCH_WERROR=ON >/dev/null
	@cmake --build $(BUILD)/release -j $(JOBS)

asan: setup
	@cmake -S . -B $(BUILD)/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
	  -DTCH_SANITIZE=ON -DTCH_WERROR=ON -DTCH_BUILD_FUZZ=ON >/dev/null
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

install: release
	@cmake --install $(BUILD)/release $(if $(PREFIX),--prefix $(PREFIX))

clean:
	rm -rf $(BUILD) out
