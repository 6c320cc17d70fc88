"""Reports over a tournament's results: statistics and tables."""
