-- Runs the paper figures in figures/ (tide.figures): every figure, or the
-- named ones, at the paper's sizes or --quick; writes out/figures/NAME/
-- (CSV, PNG, manifest.json) and docs/figures.md (a figure that was not run
-- keeps its section there).  `make figures` runs it; --help lists the options.
--
--   build/tide scripts/figures.lua [NAME ...] [--quick] [--force] [--list]
local failed = require("tide.figures").main(arg)
os.exit(failed == 0 and 0 or 1)
