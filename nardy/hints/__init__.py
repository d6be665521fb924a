"""Hints and analysis: the legal plays of a roll ranked best-first, and a played game's mistakes.

- :func:`engine_for` gives the :class:`HintEngine` for a variant: GNU Backgammon for short
  nardy when it is installed, our own TD-trained network otherwise and for long nardy;
- :func:`analyse` reviews the turns of a recorded game or match and marks the blunders.

numpy is imported only when our own engine is first used.
"""

from nardy.hints.analysis import (
    AnalysisConfig,
    MatchReview,
    PlayReview,
    SideSummary,
    analyse,
    analyse_match,
    review_turn,
)
from nardy.hints.engine import Chances, FallbackEngine, Hint, HintEngine, RankedPlay, engine_for

__all__ = [
    "AnalysisConfig",
    "Chances",
    "FallbackEngine",
    "Hint",
    "HintEngine",
    "MatchReview",
    "PlayReview",
    "RankedPlay",
    "SideSummary",
    "analyse",
    "analyse_match",
    "engine_for",
    "review_turn",
]
