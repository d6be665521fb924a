"""Scripted games at a rendered table: the referee's end-to-end benchmark and the demo recording.

A :class:`TableScript` is a seeded random game (or several) as a camera and a dice tower would see
it: checkers moved one at a time with a hand over the board between steps, checkers mid-slide,
dice lying on the board, and now and then an illegal play that stands for a while, is taken
back checker by checker and replaced by a legal one. It holds the frames to draw (what is on the
board at each moment, hands, sliding checkers, dice), the dice events with their times, and the
truth: every turn as it should be recorded and every illegal play that should be caught.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nardy.calibration.orientation import Orientation
from nardy.rules import Color, Play, Position, Roll, Step, find_variant
from nardy.rules.board import white_point
from nardy.rules.sample import random_roll
from nardy.vision.layout import Colour
from nardy.vision.render import Die, Hand
from nardy.vision.scene import Loose, Sample, Scene


@dataclass(frozen=True, slots=True)
class SimConfig:
    """Pace and mischief of a scripted game."""

    fps: float = 5.0
    """Frames per second of the recording."""
    think_seconds: float = 0.8
    """Still board between a throw and the first checker moving."""
    hold_seconds: float = 1.6
    """Still board after a play, before the opponent throws."""
    illegal_hold_seconds: float = 2.4
    """How long an illegal play stands before it is taken back."""
    pause_seconds: float = 0.8
    """A still board between two steps of a play (when the player pauses)."""
    pause_chance: float = 0.35
    """How often a player pauses between steps."""
    hand_frames: int = 2
    slide_frames: int = 2
    illegal_rate: float = 0.05
    """Share of plays made illegally first."""
    max_turns: int = 400
    """A game that lasts longer is cut (random play can wander)."""
    illegal_at: tuple[int, ...] = ()
    """Turn numbers (from 1, counted over the whole script) made illegally first, besides ``illegal_rate``."""
    player: str = "random"
    """``random``: any legal play; ``runner``: a plausible player who hits, makes points and races
    (shorter, more natural games for a demo)."""


@dataclass(frozen=True, slots=True)
class Frame:
    """What the camera sees at time ``t``."""

    t: float
    position: Position
    hands: tuple[Hand, ...] = ()
    loose: tuple[Loose, ...] = ()
    dice: tuple[Die, ...] = ()

    @property
    def settled(self) -> bool:
        return not self.hands and not self.loose


@dataclass(frozen=True, slots=True)
class ScriptedTurn:
    """A turn as the referee should record it."""

    game: int
    mover: Color
    roll: Roll
    play: str
    after: Position
    illegal_first: str | None = None
    """The illegal play made (and taken back) before the legal one, if any."""


@dataclass
class TableScript:
    """Frames, dice events and the truth of one or more scripted games."""

    variant: str
    orientation: Orientation
    frames: list[Frame] = field(default_factory=list)
    dice: list[dict[str, Any]] = field(default_factory=list)
    """Dice-log entries: ``{"t": ..., "type": "roll", "dice": [a, b], "seq": n, "device": ...}``."""
    turns: list[ScriptedTurn] = field(default_factory=list)
    illegal: list[tuple[float, float]] = field(default_factory=list)
    """(from, to) times during which an illegal play stands on the board."""
    games: int = 0

    @property
    def duration(self) -> float:
        return self.frames[-1].t if self.frames else 0.0


class _Builder:
    def __init__(
        self, variant: str, scene: Scene, orientation: Orientation, config: SimConfig, seed: int
    ) -> None:
        self.v = find_variant(variant)
        self.scene = scene
        self.orientation = orientation
        self.config = config
        self.rng = random.Random(seed)
        self.nprng = np.random.default_rng(seed)
        self.script = TableScript(self.v.name, orientation)
        self.t = 0.0
        self.seq = 0
        self.dice: tuple[Die, ...] = ()

    # ------------------------------------------------------------------ frames
    def _frame(self, position: Position, hands: tuple[Hand, ...] = (), loose: tuple[Loose, ...] = ()) -> None:
        self.script.frames.append(Frame(self.t, position, hands, loose, self.dice))
        self.t += 1.0 / self.config.fps

    def hold(self, position: Position, seconds: float) -> None:
        for _ in range(max(1, math.ceil(seconds * self.config.fps))):
            self._frame(position)

    def throw(self, dice: tuple[int, int], position: Position) -> None:
        self.seq += 1
        self.script.dice.append({"t": round(self.t, 3), "type": "rolling", "device": "replay-tower"})
        self.hold(position, 0.4)  # the dice tumble; time passes only with frames, as in a video
        self.script.dice.append(
            {
                "t": round(self.t, 3),
                "type": "roll",
                "dice": [dice[0], dice[1]],
                "seq": self.seq,
                "device": "replay-tower",
            }
        )
        layout = self.orientation.from_position(position)
        side = self.scene.geometry.checker_radius * 2.6
        self.dice = tuple(
            Die(
                *self.scene.free_spot(layout, self.nprng, side), value=d, yaw=float(self.nprng.uniform(0, 90))
            )
            for d in dice
        )

    # ------------------------------------------------------------------ where checkers are
    def _spot(self, position: Position, color: Color, point: int, leaving: bool) -> tuple[float, float]:
        """Board (x, y) of the top checker of ``color`` at ``point`` (white's numbering; 0 off, 25 bar)."""
        g = self.scene.geometry
        if point == 25:
            return g.bar_x, g.height * (0.35 if color is Color.WHITE else 0.65)
        if point == 0:
            x0, y0, x1, y1 = g.tray_rect()
            return (x0 + x1) / 2, (y0 + y1) / 2
        row, index = self.orientation.place(point)
        count = position.count(color, point)
        k = max(count - 1, 0) if leaving else count
        return g.slot(row, index, float(min(k, 4)))

    def animate(self, position: Position, steps: tuple[Step, ...], mover: Color) -> Position:
        """Make ``steps`` one checker at a time (a hand, a slide, sometimes a pause)."""
        cfg = self.config
        colour: Colour = self.orientation.colour_of(mover)
        for i, step in enumerate(steps):
            src = 25 if step.src == 25 else white_point(self.v.name, mover, step.src)
            dst = 0 if step.dst == 0 else white_point(self.v.name, mover, step.dst)
            x0, y0 = self._spot(position, mover, src, leaving=True)
            after = position.apply(Play([step])).with_turn(mover)
            x1, y1 = self._spot(after, mover, dst, leaving=False)
            arm = float(self.nprng.uniform(-40, 40))
            for _ in range(cfg.hand_frames):
                self._frame(position, hands=(Hand(x0, y0, from_deg=arm),))
            lifted = _without(position, mover, src)
            for k in range(1, cfg.slide_frames + 1):
                f = k / (cfg.slide_frames + 1)
                self._frame(
                    lifted,
                    hands=(Hand(x0 + (x1 - x0) * f, y0 + (y1 - y0) * f, from_deg=arm),),
                    loose=(Loose(colour, x0 + (x1 - x0) * f, y0 + (y1 - y0) * f, lift=0.02),),
                )
            position = after
            if i + 1 < len(steps) and self.rng.random() < cfg.pause_chance:
                self.hold(position, cfg.pause_seconds)
        return position

    # ------------------------------------------------------------------ a game
    def game(self, number: int) -> None:
        cfg = self.config
        position = Position.initial(self.v.name)
        self.dice = ()
        self.hold(position, 1.5)
        while True:
            a, b = self.rng.randint(1, 6), self.rng.randint(1, 6)
            self.throw((a, b), position)
            self.hold(position, 0.8)
            if a != b:
                break
        mover = Color.WHITE if a > b else Color.BLACK
        roll = Roll(a, b)
        played: set[Color] = set()
        for _ in range(cfg.max_turns):
            position = position.with_turn(mover)
            first = mover not in played
            legal = self.v.legal_plays(position, roll, first)
            self.hold(position, cfg.think_seconds)
            illegal_text = None
            turn_number = len(self.script.turns) + 1
            if legal and (self.rng.random() < cfg.illegal_rate or turn_number in cfg.illegal_at):
                attempt = self._illegal(position, roll, first)
                if attempt is not None:
                    illegal_text, steps = attempt
                    start = self.t
                    shown = self.animate(position, steps, mover)
                    self.hold(shown, cfg.illegal_hold_seconds)
                    self.script.illegal.append((start, self.t))
                    self.animate_back(shown, steps, mover)
                    self.hold(position, cfg.think_seconds)
            if legal:
                play, after = self._choose(list(legal.items()), mover)
                self.animate(position, play.steps, mover)
                after = after.with_turn(mover.other)
            else:
                play, after = Play(), position.with_turn(mover.other)
            self.script.turns.append(ScriptedTurn(number, mover, roll, play.text(), after, illegal_text))
            played.add(mover)
            position = after
            self.hold(position, cfg.hold_seconds)
            if self.v.result(position) is not None:
                break
            mover = mover.other
            roll = random_roll(self.rng)
            self.throw((roll.high, roll.low), position)
        self.dice = ()
        self.hold(position, 2.0)
        self.script.games += 1

    def _choose(self, options: list[tuple[Play, Position]], mover: Color) -> tuple[Play, Position]:
        if self.config.player == "random":
            return self.rng.choice(options)
        return max(options, key=lambda item: _runner_score(item[1], mover) + self.rng.random() * 0.5)

    def animate_back(self, shown: Position, steps: tuple[Step, ...], mover: Color) -> None:
        """Take an illegal play back: each checker returns, last moved first."""
        position = shown
        for step in reversed(steps):
            src = 25 if step.src == 25 else white_point(self.v.name, mover, step.src)
            dst = 0 if step.dst == 0 else white_point(self.v.name, mover, step.dst)
            x0, y0 = self._spot(position, mover, dst, leaving=True)
            lifted = _without(position, mover, dst)
            back = _with(lifted, mover, src)
            x1, y1 = self._spot(back, mover, src, leaving=False)
            for _ in range(self.config.hand_frames):
                self._frame(position, hands=(Hand(x0, y0),))
            colour: Colour = self.orientation.colour_of(mover)
            self._frame(
                lifted,
                hands=(Hand((x0 + x1) / 2, (y0 + y1) / 2),),
                loose=(Loose(colour, (x0 + x1) / 2, (y0 + y1) / 2, 0.02),),
            )
            position = back

    def _illegal(self, position: Position, roll: Roll, first: bool) -> tuple[str, tuple[Step, ...]] | None:
        """A wrong play a player might make: one checker a point too far or too short (no hits, no
        bearing off, so that taking it back is simple)."""
        legal = self.v.legal_plays(position, roll, first)
        options = list(legal.items())
        self.rng.shuffle(options)
        for play, _ in options[:12]:
            steps = list(play.steps)
            if any(s.hit or s.dst == 0 for s in steps):
                continue
            last = steps[-1]
            for shift in self.rng.sample([-1, 1], 2):
                dst = last.dst + shift
                if last.dst == 0 or not 1 <= dst < last.src:
                    continue
                candidate = (*steps[:-1], Step(last.src, dst))
                try:
                    after = position.apply(Play(candidate))
                except ValueError:
                    continue
                if legal.find(after) is not None:
                    continue
                verdict = self.v.judge(position, after, roll, first)
                if verdict.legal or "count" in verdict.codes:
                    continue
                return Play(candidate).text(), candidate
        return None


def _runner_score(after: Position, mover: Color) -> float:
    """A plain player's taste: race home, hit, keep few blots, make points."""
    opp = mover.other
    pips = 0
    blots = points_made = 0
    for p in range(1, 25):
        n = after.count(mover, p)
        if not n:
            continue
        own = p if mover is Color.WHITE else (25 - p if after.variant == "short" else (p + 11) % 24 + 1)
        pips += own * n
        blots += n == 1
        points_made += n >= 2
    hits = after.bar(opp)
    return -pips / 8.0 + 3.0 * hits - 1.0 * blots + 0.5 * points_made + 2.0 * after.off(mover)


def _without(position: Position, color: Color, point: int) -> Position:
    """``position`` with one checker of ``color`` lifted from ``point`` (25: the bar)."""
    pts = list(position.points)
    bw, bb = position.bar_white, position.bar_black
    if point == 25:
        if color is Color.WHITE:
            bw -= 1
        else:
            bb -= 1
    else:
        pts[point - 1] -= 1 if color is Color.WHITE else -1
    return Position(
        position.variant, tuple(pts), bw, bb, position.off_white, position.off_black, position.turn
    )


def _with(position: Position, color: Color, point: int) -> Position:
    pts = list(position.points)
    bw, bb = position.bar_white, position.bar_black
    if point == 25:
        if color is Color.WHITE:
            bw += 1
        else:
            bb += 1
    else:
        pts[point - 1] += 1 if color is Color.WHITE else -1
    return Position(
        position.variant, tuple(pts), bw, bb, position.off_white, position.off_black, position.turn
    )


def script_games(
    variant: str,
    scene: Scene,
    orientation: Orientation,
    *,
    games: int = 1,
    seed: int = 0,
    config: SimConfig | None = None,
) -> TableScript:
    """A seeded script of ``games`` random games at ``scene``."""
    builder = _Builder(variant, scene, orientation, config or SimConfig(), seed)
    for number in range(1, games + 1):
        builder.game(number)
    return builder.script


def render_frames(script: TableScript, scene: Scene) -> Iterator[tuple[Frame, Sample]]:
    """Draw every frame of ``script`` on ``scene``."""
    for frame in script.frames:
        layout = script.orientation.from_position(frame.position)
        yield frame, scene.render(layout, dice=frame.dice, hands=frame.hands, loose=frame.loose)
