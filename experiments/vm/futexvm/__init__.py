"""experiments/vm/run's pieces, one job per file (docs/vm.md)."""
