"""Trained network weights shipped with the package (see docs/hints.md for how they were made)."""
