"""Games the harness hosts, one sub-package each."""
