"""Reading a finished (or growing) results folder: its manifest, what a report counts,
and the report itself; one read serves every command that shows results
(:func:`read_results`)."""

from harness.results.folder import FolderResults, read_results, results_folder

__all__ = ["FolderResults", "read_results", "results_folder"]
