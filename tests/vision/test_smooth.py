"""A smooth painted board: its edges are measured against its strong edges, not only its grain."""

from __future__ import annotations

import dataclasses

import numpy as np

from nardy.vision.config import EvidenceConfig, RecognizerConfig
from nardy.vision.detect import Detector
from nardy.vision.evidence import edge_scale
from nardy.vision.layout import BoardLayout, layout_errors
from nardy.vision.recognizer import Recognizer
from nardy.vision.scene import Scene


def test_the_scale_is_the_median_plus_the_floor_unless_the_strong_edges_call_for_more() -> None:
    rng = np.random.default_rng(3)
    grainy = rng.uniform(0, 200, (60, 80)).astype(np.float32)  # strong edges only 1.9x the median
    config = EvidenceConfig()
    median = float(np.median(grainy))
    assert abs(edge_scale(grainy, config) - (median + config.gradient_floor)) < 1e-3 * median
    # a smooth field (squared gradients about 1) with 10% of its pixels on sharp edges (20000)
    smooth = rng.uniform(0.5, 1.5, (60, 80)).astype(np.float32)
    smooth.reshape(-1)[rng.permutation(smooth.size)[: smooth.size // 10]] = 20000.0
    assert edge_scale(smooth, config) == 20000.0 / config.strong_edge_ratio
    off = dataclasses.replace(config, strong_edge_ratio=0.0)
    assert edge_scale(smooth, off) < 1.5 + off.gradient_floor


def test_a_smooth_painted_board_reads_no_phantoms_on_its_bare_points(detector: Detector) -> None:
    # cream field, white and red points, pearl and black checkers, clean light: the median squared
    # gradient is about 2.6, below any training board's (5.5 the least); measured against it alone,
    # the bases of bare white points scored as pearl singles, and the long start read 3 points wrong
    # (the end-to-end long game on this scene followed none of its 97 plays)
    scene = Scene.random(np.random.default_rng(29), size=(1280, 720))
    assert scene.style.family == "painted"
    sample = scene.render(BoardLayout.long_start())
    unbounded = dataclasses.replace(RecognizerConfig(), evidence=EvidenceConfig(strong_edge_ratio=0.0))
    before = Recognizer(unbounded, sample.corners, detector=detector).read(sample.image)
    assert layout_errors(sample.layout, before.layout())  # the cause: without the bound it fails
    seen = Recognizer(RecognizerConfig(), sample.corners, detector=detector).read(sample.image)
    assert layout_errors(sample.layout, seen.layout()) == []
