"""The referee's settings: typed, frozen, with defaults a club can leave alone."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RefereeConfig:
    """How the referee settles readings and decides between candidate positions."""

    settle_seconds: float = 0.6
    """A reading counts once the board has looked the same, with no hand in view, this long."""
    min_settled_frames: int = 3
    """... and over at least this many frames."""
    tolerated_unsettled: int = 2
    """A reading that calls this few places unsettled (a die lying on a point, glare) still counts
    when what it means stays the same; more (a hand, an arm) is a disturbance."""
    patch_seconds: float = 2.0
    """Places called unsettled that have stayed inside one patch this long (no new place added)
    are no hand at work but something that stays (a lamp's reflection over checkers): the
    reading counts, with those places suspect (an alarm must hold without them). A place or two
    (``tolerated_unsettled``) called unsettled in every reading this long, while hands came and
    went (a pile the camera cannot make out), are suspect without their neighbours."""
    obscured_points: int = 18
    obscured_seconds: float = 10.0
    """A patch that stays over ``obscured_points`` of the 24 points or more for ``obscured_seconds``
    (a cloth, a reflection, a decoration the camera takes for something lying there) leaves every
    point suspect, so no play could be called illegal: the ``not-settled`` warning says so."""
    alarm_settle_seconds: float = 1.5
    """A board that says something is wrong (an illegal play, a changed board, checkers missing)
    must have looked the same this long: a player pausing mid-move is not an offence."""
    flicker_seconds: float = 0.5
    """A disturbance shorter than this (a frame or two that glare or noise calls unsettled)
    neither counts towards settling nor starts it again; a hand that stays longer does."""
    vague_log_probability: float = -0.7
    """A place is vague in a frame when the board a request to look stands for has a count there
    of log-probability under this (about one half). Two frames' doubtful boards that differ only
    at places vague in one of them are one board to settle on: a still board whose tall pile
    reads now 9 and now 10, with a checker that the count then puts on another point, is still
    one board (a checker still being moved changes places the camera is sure of)."""
    accept_margin: float = 4.0
    """Natural-log likelihood by which the best candidate must beat the next one (about 55:1)."""
    doubt_margin: float = 4.0
    """When the free reading explains the board this much better (log) than every legal
    candidate, the referee asks for a look instead of taking the closest candidate."""
    illegal_margin: float = 8.0
    """How much better (log) the free reading must explain the board than every legal candidate
    before the referee calls a play illegal (about 3000:1) ..."""
    own_margin: float = 7.0
    """... or, when what is wrong lies in the mover's own checkers alone (too many pips, a checker
    sent backwards, a second one off the head), this much (about 1100:1). A board that says the
    opponent's checkers moved needs ``illegal_margin``: a checker whose colour the camera mistakes
    draws just that picture, while a player moving the other side's checkers is the rarer
    offence."""
    finished_prior: float = 3.0
    """Once the opponent has thrown, how much likelier (log) it is that the mover had finished
    than that the play was left unfinished (an offence, and rare): a finished play then needs to
    beat the unfinished states only by ``accept_margin`` less this to be recorded without a
    request to check. It must still beat every other finished play by ``accept_margin``. The
    throw is an unfinished play only when the board shows the play unfinished by more than
    ``doubt_margin`` and this together."""
    ending_settle_seconds: float = 3.0
    """No throw follows the play that ends a game, so nothing else says when it is finished:
    when the camera cannot tell only whether it is (the last checkers off, or one still on its
    point), a board that has looked the same this long says so, as the opponent's throw does for
    any other play ..."""
    question_settle_seconds: float = 3.0
    """How long a board the camera cannot tell between two legal states of the turn (say, one
    checker moved or none) must stand before the referee asks which it is (``please-look``): a
    player setting checkers down one at a time pauses between them, and the opponent's throw
    settles the question anyway. With a throw waiting, it holds only ``settle_seconds``."""
    ending_prior: float = 4.0
    """... and the finished play then needs to beat the unfinished states only by
    ``accept_margin`` less this (as ``finished_prior``; a player bearing off the last checkers
    has nothing left to decide, so a still board all but says the play is over)."""
    count_margin: float = 20.0
    """How much better (log) the free reading must explain the board than any board that keeps
    every checker before the referee says checkers are missing or extra (more than one place
    the camera would have to be badly wrong about)."""
    bias_window: int = 15
    """Settled readings over which the referee learns how far this camera usually reads from the
    position that stands (the median gap, over the board and at each place); thresholds count
    from there, but a board is forgiven only the usual gap of the places where it departs from
    the reading: a checker one point off at a place the camera reads right counts in full."""
    max_bias: float = 4.0
    """The most of that usual gap the referee forgives (a camera worse than this needs looking at)."""
    misread_seconds: float = 10.0
    """A point the camera has read unlike the position that stands for this long (a reflection
    that clips the sensor over a pile, a mark on the board) ..."""
    misread_margin: float = 4.0
    """... by more than this (log, the median over that time) is taken as misread: the referee
    says so, and an alarm's reason that names it is given from the other places instead, until
    the camera reads it right again (the median under half this)."""
    unseen_share: float = 0.5
    """At the opening throw, a side whose checkers the camera does not see (none of them at even
    odds) on this share or more of that side's starting points (short nardy: two of its four; long
    nardy: its head), on a board that is the start but for them, is unseen: checkers of the board's
    own colour, say. The referee says so at once: its readings of that side's plays cannot be
    trusted."""
    max_misread: int = 1
    """The most points taken as misread at once (the worst). Only one, so that no board that
    differs from the record at two places (a play recorded wrongly) is ever explained away."""
    unreadable_log_likelihood: float = -60.0
    """Below this (log) even the free reading is too unlikely: the position is unreadable."""
    revise_beam: int = 24
    """When a doubtful record is weighed again against the next board, the other plays of that
    turn looked at (those nearest the board)."""
    resync_reach: int = 8
    """When a point has been misread that long, the records this far back that were doubtful
    (recorded uncertain) are weighed again: another play of one of them, with every record
    after it replayed as it stands, may explain the board (a checker the camera could not count
    in a tall pile when it was borne off, say)."""
    unfinished_grace: int = 1
    """Settled readings a partial play may still show after the opponent threw before the
    referee raises 'play not finished'."""
