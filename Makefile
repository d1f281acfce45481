# Tide -- top-level convenience targets.
#   make demo    install missing packages, build, run the default scene
#   make test    install missing packages, build, run all tests (ctest)
#   make bench   build and run the benchmarks
#   make figures build and regenerate the paper figures (out/figures/, docs/figures.md);
#                FIGURES='name ...' for some, FIGURES_FLAGS=--quick for the small versions
BUILD ?= build
JOBS  ?= $(shell nproc)
CMAKE_FLAGS ?=
FIGURES ?=
FIGURES_FLAGS ?=
FIGURE_THREADS ?= 2

.PHONY: all setup build demo test bench figures clean format

all: build

setup:
	@bash scripts/setup.sh

# Order-only on setup: with make -j the configure step must not run before the packages are in.
$(BUILD)/CMakeCache.txt: | setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: setup $(BUILD)/CMakeCache.txt
	@bash scripts/native-stamp.sh $(BUILD)
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/tide scenes/dam_break.lua
	@echo "demo: frames are in out/dam_break/ (PNG), the run manifest in out/dam_break/run.json"

test: build
	cd $(BUILD) && ctest --output-on-failure -j 2 --timeout 900

bench: build
	cmake --build $(BUILD) --target benchmarks -j $(JOBS)
	@for b in $(BUILD)/bench_*; do echo "== $$b"; $$b; done
	@for s in bench/*.lua; do [ -f "$$s" ] && { echo "== $$s"; $(BUILD)/tide $$s; }; done; true

figures: build
	$(BUILD)/tide --threads $(FIGURE_THREADS) scripts/figures.lua $(FIGURES) $(FIGURES_FLAGS)

format:
	clang-format -i runtime/*.c runtime/*.h modules/*/*.c modules/*/*.h tests/c/*.c

clean:
	rm -rf $(BUILD)
