"""Exceptions of the rules package: narrow subclasses of :class:`ValueError`.

Each message carries its context, so that a caller can print it as it is.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base class of every error raised by :mod:`nardy.rules`."""


class VariantError(RulesError):
    """An unknown variant name or an invalid rule option."""


class PositionError(RulesError):
    """A position that cannot exist: wrong shape, too many checkers, a bar in long nardy, ..."""


class RollError(RulesError):
    """A roll that is not two dice from 1 to 6."""


class PlayParseError(RulesError):
    """Text that is not a play in our notation (``24/18 13/8``, ``bar/22*``, ``6/off``, ``13/7(2)``)."""


class IllegalPlayError(RulesError):
    """A play that cannot be made from a position (no checker there, a closed point, ...)."""


class NotationError(RulesError):
    """A position text (JSON, XGID, GNU Backgammon position ID) that cannot be read."""
