"""Shared fixtures: one detector loaded once for the whole module run."""

from __future__ import annotations

import pytest

from nardy.vision.detect import Detector


@pytest.fixture(scope="session")
def detector() -> Detector:
    return Detector.load()
