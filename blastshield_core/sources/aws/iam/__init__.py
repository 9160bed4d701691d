"""The IAM policy evaluator: policies, conditions, callers and requests, as AWS documents them.

Pure: no I/O, no store, and nothing from the graph build (`build/`) or the collector."""
