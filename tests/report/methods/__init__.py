"""Tests of harness.report.methods."""
