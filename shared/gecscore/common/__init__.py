"""The common layer every metric and entry point stands on: results, statistics, bootstrap, P/R/F, M2 files, edits,
encoders, input checks and signatures. It imports no metric package."""
