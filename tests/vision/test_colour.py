"""Telling the two checker colours apart: the colour stage alone, then on rendered boards."""

from __future__ import annotations

import dataclasses

import numpy as np

from nardy.vision.colour import agrees, colour_groups, group_distance, light_probabilities, remembered
from nardy.vision.config import ColourConfig, RecognizerConfig
from nardy.vision.count import Line
from nardy.vision.detect import Detector
from nardy.vision.layout import BoardLayout, Counts
from nardy.vision.recognizer import Recognizer
from nardy.vision.scene import Scene
from nardy.vision.style import CHECKER_SETS


def test_translucent_white_is_light_even_where_gold_is_as_light() -> None:
    rng = np.random.default_rng(5)
    white = np.array([172.0, 124.0, 123.0]) + rng.normal(0, 4, (6, 3))
    gold = np.array([178.0, 134.0, 180.0]) + rng.normal(0, 4, (6, 3))
    p = light_probabilities(ColourConfig(), np.vstack([white, gold]), np.ones(12))
    # light by paleness (the white is 10 Lab units nearer white than the gold), with the doubt a
    # difference this small leaves (``label_scale``): about 0.77
    assert (p[:6] > 0.7).all() and (p[6:] < 0.3).all()


def test_gold_lit_as_bright_as_the_whites_is_still_gold() -> None:
    # the stacks of a walnut board with gold and translucent white checkers, a lamp on one side
    # (Lab as the recognizer samples them): whites at lightness 166-232, gold at 131-151 in the
    # shade and 184-185 in the light; only the yellow (the third axis) tells the lit gold apart
    white = np.array(
        [
            [188.4, 126.7, 144.7],
            [186.8, 128.0, 141.7],
            [232.1, 127.0, 141.0],
            [198.3, 127.8, 143.2],
            [191.6, 126.6, 143.7],
            [166.0, 127.7, 140.9],
            [204.2, 126.5, 143.8],
            [199.5, 127.2, 140.3],
        ]
    )
    gold = np.array(
        [
            [185.3, 137.3, 178.9],
            [150.6, 139.6, 180.5],
            [135.7, 137.1, 170.7],
            [133.3, 136.8, 169.0],
            [130.6, 137.4, 171.1],
            [184.1, 133.8, 169.7],
        ]
    )
    weights = np.array([4, 2, 1, 2, 2, 1, 2, 1, 2, 1, 5, 1, 2, 3], dtype=np.float64)
    p = light_probabilities(ColourConfig(), np.vstack([white, gold]), weights)
    # split along the principal axis (mostly lightness) the two lit gold stacks went with the
    # whites, at P(light) 0.96 and 0.98
    assert (p[:8] > 0.9).all() and (p[8:] < 0.1).all()


def test_no_split_gives_a_colour_more_checkers_than_a_side_has() -> None:
    # the starting position on a walnut board with pearl and grey checkers, a warm lamp at the far
    # end (Lab as the recognizer samples them): the pearl stacks near the lamp clip to neutral
    # white, those in the warm shade are as yellow as the grey; a cut along the yellow axis parts
    # the two hues further in their own spreads than lightness parts pearl from grey -- and calls
    # 22 checkers grey
    pearl = np.array(
        [[235.1, 127.3, 129.4], [229.7, 127.2, 129.7], [290.2, 123.7, 142.9], [282.8, 123.5, 145.7]]
    )
    grey = np.array(
        [[192.0, 131.3, 145.8], [192.4, 131.1, 146.1], [203.8, 131.1, 147.0], [210.8, 131.6, 146.9]]
    )
    weights = np.array([5, 3, 2, 5, 2, 5, 5, 3], dtype=np.float64)
    colours = np.vstack([pearl, grey])
    p = light_probabilities(ColourConfig(), colours, weights)
    assert (p[:4] > 0.8).all() and (p[4:] < 0.2).all()
    # the same stacks, the sides' count not used: the two warm pearl stacks (7 checkers) go grey
    q = light_probabilities(ColourConfig(side_checkers=0.0), colours, weights)
    assert (q[2:4] < 0.5).all()


def test_pearl_and_grey_starts_on_walnut_keep_their_sides(detector: Detector) -> None:
    """The starting position on twelve walnut boards with pearl and grey checkers (random light and
    view), read with and without the sides' count kept in the colour split."""
    wrong = {15.0: 0, 0.0: 0}
    layout = BoardLayout.short_start()
    for seed in range(12):
        rng = np.random.default_rng(seed)
        scene = Scene.random(rng, size=(1280, 720), family="walnut", checker_set="pearl_grey")
        image = scene.render(layout, rng=rng).image
        for side in wrong:
            base = RecognizerConfig()
            config = dataclasses.replace(base, colour=dataclasses.replace(base.colour, side_checkers=side))
            obs = Recognizer(config, scene.corners(), detector=detector).read(image)
            for row in ("top", "bottom"):
                for truth, reading in zip(layout.row(row), obs.row(row), strict=True):
                    if truth.count:
                        wrong[side] += reading.most_likely().colour != truth.colour
    # of the 96 stacks: 1 in the wrong colour, 5 without the count
    assert wrong[15.0] <= 1
    assert wrong[0.0] >= wrong[15.0] + 3


def test_red_is_light_against_blue_even_where_blue_is_less_saturated() -> None:
    rng = np.random.default_rng(7)
    red = np.array([113.0, 182.0, 160.0]) + rng.normal(0, 3, (6, 3))
    blue = np.array([91.0, 124.0, 113.0]) + rng.normal(0, 3, (6, 3))
    p = light_probabilities(ColourConfig(), np.vstack([red, blue]), np.ones(12))
    # red is 22 lightness units lighter and 63 units of chroma away from grey, the blue 16: a
    # paleness that took off half the chroma called the blue light (a whole board swapped)
    assert (p[:6] > 0.5).all() and (p[6:] < 0.5).all()


def test_one_stray_stack_is_not_a_colour_of_its_own() -> None:
    rng = np.random.default_rng(6)
    light = np.array([200.0, 128.0, 130.0]) + rng.normal(0, 5, (5, 3))
    dark = np.array([160.0, 128.0, 130.0]) + rng.normal(0, 5, (5, 3))
    stray = np.array([[30.0, 165.0, 120.0]])  # a false detection on a dark point
    colours = np.vstack([light, dark, stray])
    p = light_probabilities(ColourConfig(), colours, np.array([2.0] * 10 + [1.0]))
    assert (p[:5] > 0.9).all() and (p[5:10] < 0.1).all()


def test_probabilities_keep_some_doubt() -> None:
    colours = np.array([[240.0, 128.0, 128.0], [30.0, 128.0, 128.0], [20.0, 128.0, 128.0]])
    p = light_probabilities(ColourConfig(), colours, np.ones(3))
    assert p[0] > 0.98 and p[0] < 1.0 and p[2] > 0.0


def test_colours_under_harsh_uneven_light(detector: Detector) -> None:
    """Gold against translucent white and pearl against grey, under strong gradients and glare."""
    wrong = stacks = 0
    for seed in range(64, 72):
        scene = Scene.random(
            np.random.default_rng(seed),
            size=(960, 540),
            checker_set="gold_translucent" if seed % 2 else "pearl_grey",
            tilt=(25.0, 25.0),
            harsh=2.0,
        )
        layout = BoardLayout.random(np.random.default_rng(seed), max_stack=5)
        sample = scene.render(layout)
        obs = Recognizer(RecognizerConfig(), sample.corners, detector=detector).read(sample.image)
        for row in ("top", "bottom"):
            for truth, reading in zip(layout.row(row), obs.row(row), strict=True):
                read = reading.most_likely()
                if truth.count and read.count == truth.count:
                    stacks += 1
                    wrong += read.colour != truth.colour
    assert stacks >= 60
    assert wrong <= 5


def test_a_disc_unlike_the_stack_below_it_is_doubted(detector: Detector) -> None:
    """A stack is one colour: a second 'disc' on a blue point past a white checker is not one more."""
    smooth = np.zeros((100, 40, 3), np.float32)
    smooth[:, :] = (230.0, 128.0, 130.0)  # a white checker ...
    smooth[25:, :] = (80.0, 140.0, 90.0)  # ... and past it, the point's own blue
    line = Line(np.array([0.05, 0.2, 0.75]), ((20.0, 10.0), (20.0, 29.0)), (12.0, 5.0))
    rec = Recognizer(RecognizerConfig(), np.array([[0, 0], [1, 0], [1, 1], [0, 1]]), detector=detector)
    checked = rec._consistent(line, rec._samples(smooth, line.centres))
    assert int(np.argmax(checked.probabilities)) == 1
    assert len(checked.centres) == 1
    # the same two discs in one colour keep their reading
    smooth[:, :] = (230.0, 128.0, 130.0)
    same = rec._consistent(line, rec._samples(smooth, line.centres))
    assert np.allclose(same.probabilities, line.probabilities)


def test_a_stack_unlike_both_checker_colours_is_far_from_the_groups() -> None:
    rng = np.random.default_rng(7)
    light = np.array([215.0, 128.0, 130.0]) + rng.normal(0, 3, (5, 3))
    dark = np.array([60.0, 128.0, 128.0]) + rng.normal(0, 3, (5, 3))
    blue = np.array([[90.0, 140.0, 80.0]])  # a blue point's base taken for a disc
    colours = np.vstack([light, dark, blue])
    groups = colour_groups(ColourConfig(), colours, np.ones(11))
    assert groups is not None
    far = group_distance(ColourConfig(), groups, colours)
    assert far[:10].max() < 3.0 < far[10]


def test_a_board_of_one_colour_is_called_by_its_paleness_against_mid_grey() -> None:
    # near the end of a game only one colour may be left on the board: no second group to compare
    rng = np.random.default_rng(8)
    config = ColourConfig()
    white = np.array([225.0, 128.0, 131.0]) + rng.normal(0, 3, (5, 3))
    black = np.array([40.0, 129.0, 127.0]) + rng.normal(0, 3, (5, 3))
    red = np.array([95.0, 170.0, 150.0]) + rng.normal(0, 3, (5, 3))
    # (the split of the five whites keeps a small share: 0.92-0.95, see the next test)
    assert (light_probabilities(config, white, np.ones(5)) > 0.9).all()
    assert (light_probabilities(config, black, np.ones(5)) < 0.05).all()
    assert (light_probabilities(config, red, np.ones(5)) < 0.15).all()


def test_two_close_pale_colours_are_not_all_called_light() -> None:
    # an ivory and a light grey set under a strong light on an oak board (long seed 4 at 45 s):
    # 14 Lab units apart, under ``min_separation``, but in two tight groups. Taken for one pale
    # colour, every stack was called light at 1.0 and black's checkers read as white's
    config = ColourConfig()
    ivory = np.array([[243.5, 126.7, 132.0], [251.9, 127.8, 128.4], [253.1, 126.3, 132.6]])
    grey = np.array([[237.5, 120.6, 137.5], [231.9, 120.5, 137.8]])
    colours = np.vstack([ivory, grey])
    assert colour_groups(config, colours, np.array([5.0, 2.0, 1.0, 0.6, 1.0])) is None
    p = light_probabilities(config, colours, np.array([5.0, 2.0, 1.0, 0.6, 1.0]))
    assert (p[:3] > 0.85).all() and (p[3:] < 0.7).all() and p[3:].max() < p[:3].min() - 0.2
    off = light_probabilities(
        ColourConfig(separation_scale=0.0), colours, np.array([5.0, 2.0, 1.0, 0.6, 1.0])
    )
    assert (off > 0.99).all()  # as it was


def _two_sides(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Stacks of an ivory and a black side (Lab) and their checkers: 8 stacks, 30 checkers."""
    ivory = np.array([225.0, 128.0, 131.0]) + rng.normal(0, 3, (4, 3))
    black = np.array([45.0, 129.0, 127.0]) + rng.normal(0, 3, (4, 3))
    return np.vstack([ivory, black]), np.array([5.0, 3.0, 5.0, 2.0, 2.0, 5.0, 3.0, 5.0])


def test_the_colours_remembered_come_from_frames_of_both_sides() -> None:
    config = ColourConfig()
    rng = np.random.default_rng(9)
    colours, weights = _two_sides(rng)
    groups = colour_groups(config, colours, weights)
    assert groups is not None
    memory = remembered(config, None, groups, colours, weights)
    assert memory is not None and agrees(config, memory, groups)
    # one side's fifteen alone, split in lit and shaded (the other side's all borne off): not
    # remembered first, and not the remembered two
    lit = np.array([232.0, 128.0, 131.0]) + rng.normal(0, 2, (3, 3))
    shaded = np.array([195.0, 128.0, 131.0]) + rng.normal(0, 2, (3, 3))
    one = np.vstack([lit, shaded])
    w = np.array([4.0, 2.0, 3.0, 2.0, 2.0, 2.0])
    split = colour_groups(config, one, w)
    assert split is not None  # the frame alone finds two colours in one side's checkers
    assert remembered(config, None, split, one, w) is None
    assert not agrees(config, memory, split)
    assert remembered(config, memory, split, one, w) is memory
    # the two swapped do not agree either
    assert not agrees(config, memory, (groups[1], groups[0], groups[2]))
    # a later frame of both sides, under a little more light, moves the memory a share towards it
    brighter = colours + np.array([8.0, 0.0, 0.0])
    later = colour_groups(config, brighter, weights)
    assert later is not None and agrees(config, memory, later)
    moved = remembered(config, memory, later, brighter, weights)
    assert moved is not None
    shift = moved[0][0] - memory[0][0]
    assert np.isclose(shift, config.remember_rate * (later[0][0] - memory[0][0]))
    # ... unless a colour has too few checkers to say (a side's last checker and a die)
    few = np.array([5.0, 3.0, 5.0, 2.0, 1.0, 1.0, 0.5, 0.5])
    assert remembered(config, memory, later, brighter, few) is memory
    # and nothing is remembered at all when asked so
    assert remembered(ColourConfig(remember_checkers=0), None, groups, colours, weights) is None


def _one_side(rng: np.random.Generator, colour: str) -> BoardLayout:
    """Eleven to fifteen checkers of ``colour`` on five random points; the other side all off."""
    where = rng.choice(24, size=5, replace=False)
    counts = rng.multinomial(10, [0.2] * 5) + 1
    left = 15 - int(counts.sum())
    points = {
        ("top" if i < 12 else "bottom", int(i % 12)): (colour, int(c))
        for i, c in zip(where, counts, strict=True)
    }
    off = Counts(left, 15) if colour == "light" else Counts(15, left)
    return BoardLayout.from_points(points, off=off)  # type: ignore[arg-type]


def test_a_board_of_one_colour_is_read_against_the_colours_remembered(detector: Detector) -> None:
    """The end of a game: one side has borne all its checkers off. Alone, the frame splits the other
    side's checkers in lit and shaded, or calls them by paleness; a recognizer that read the start
    position first reads them against the two colours it remembers."""
    wrong = {"alone": 0, "remembered": 0}
    for seed in range(40, 50):
        rng = np.random.default_rng(seed)
        scene = Scene.random(rng, size=(960, 540), checker_set=CHECKER_SETS[seed % len(CHECKER_SETS)])
        layout = _one_side(rng, "light" if seed % 2 else "dark")
        start, end = scene.render(BoardLayout.short_start()), scene.render(layout)
        alone = Recognizer(RecognizerConfig(), end.corners, detector=detector).read(end.image)
        rec = Recognizer(RecognizerConfig(), end.corners, detector=detector)
        rec.read(start.image)
        after = rec.read(end.image)
        for name, obs in (("alone", alone), ("remembered", after)):
            for row in ("top", "bottom"):
                for truth, reading in zip(layout.row(row), obs.row(row), strict=True):
                    if truth.count:
                        wrong[name] += reading.most_likely().colour != truth.colour
    # of 50 stacks: 21 in the wrong colour alone, 4 with the memory (one board's start frame was
    # not still enough to be remembered)
    assert wrong["remembered"] <= 6
    assert wrong["alone"] >= wrong["remembered"] + 12


def test_a_wrong_memory_is_put_right_by_a_board_of_both_sides(detector: Detector) -> None:
    """A frame with a hand over the board, called still, can be remembered with the hand as one of
    the two colours and both checker colours as the other (long seed 109: every checker was then
    read as one side's for the rest of the game). A still board holding both sides' thirty, split
    in two colours of its own, is read by them, and they are remembered instead."""
    config = RecognizerConfig()
    w = np.array([config.colour.lightness_weight, 1.0, 1.0])
    hand = np.array([71.0, 131.0, 116.0]) * w  # a sleeve's dark Lab colour, as the colour stage scales it
    wrong = {"before": 0, "after": 0}
    for seed in range(60, 66):
        rng = np.random.default_rng(seed)
        scene = Scene.random(rng, size=(960, 540), checker_set=CHECKER_SETS[seed % len(CHECKER_SETS)])
        layout = BoardLayout.long_start() if seed % 2 else BoardLayout.short_start()
        start = scene.render(layout)
        # the two colours the frame shows (remembered from it however few its lines count)
        first = dataclasses.replace(config, colour=dataclasses.replace(config.colour, remember_first=0.0))
        truth = Recognizer(first, start.corners, detector=detector)
        truth.read(start.image)
        assert truth.memory is not None
        rec = Recognizer(config, start.corners, detector=detector)
        both = (truth.memory[0] + truth.memory[1]) / 2
        rec.memory = (both, hand, truth.memory[2].copy())
        obs = rec.read(start.image)
        for row in ("top", "bottom"):
            for stack, reading in zip(layout.row(row), obs.row(row), strict=True):
                if stack.count:
                    wrong["after"] += reading.most_likely().colour != stack.colour
        assert rec.memory is not None and agrees(config.colour, truth.memory, rec.memory)
        before = Recognizer(config, start.corners, detector=detector)
        before.memory = (both, hand, truth.memory[2].copy())
        # the same memory kept, as it was before: every stack judged against it
        before.config = dataclasses.replace(
            config, colour=dataclasses.replace(config.colour, own_colours=99.0)
        )
        old = before.read(start.image)
        for row in ("top", "bottom"):
            for stack, reading in zip(layout.row(row), old.row(row), strict=True):
                if stack.count:
                    wrong["before"] += reading.most_likely().colour != stack.colour
    # of the 30 stacks (8 to a short start, 2 to a long one): none in the wrong colour, against 10
    # when the wrong memory is kept (black checkers stay nearer a sleeve than the mean of the two)
    assert wrong["after"] == 0
    assert wrong["before"] >= 8
