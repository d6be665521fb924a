"""The bar's count: checkers the candidates miss must stay possible."""

from __future__ import annotations

import numpy as np

from nardy.vision.count import count_distribution, with_misses
from nardy.vision.detect import Detector
from tests.vision.bar_scene import AFTER, two_on_the_bar


def test_with_misses_keeps_a_share_for_each_checker_more() -> None:
    found = count_distribution([6.0], 15)  # one sure candidate
    assert found[2] == 0.0
    p = with_misses(found, 0.01)
    assert np.isclose(p.sum(), 1.0)
    assert np.isclose(p[2] / p[1], 0.01, rtol=0.02)  # one more checker: about ``miss`` as likely
    assert np.isclose(p[3] / p[2], 0.01, rtol=0.02)
    assert np.isclose(p[1], found[1], rtol=0.02)  # what was found barely moves
    assert np.array_equal(with_misses(found, 0.0), found)


def test_a_second_checker_on_the_bar_the_candidates_miss_stays_possible(detector: Detector) -> None:
    seen = two_on_the_bar(detector=detector)
    assert AFTER.bar_black == 2 and seen.bar.most_likely().dark == 1  # the detector saw one
    assert seen.bar.dark[2] >= 0.002
    # a product of detections alone left no room for it
    assert two_on_the_bar(0.0, detector).bar.dark[2] == 0.0
