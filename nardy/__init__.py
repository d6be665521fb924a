"""Nardy companion: a camera and electronic-dice referee for physical nardy boards.

The packages, with dependencies pointing one way:

- ``nardy.rules`` -- pure game logic for short and long nardy (standard library only).
- ``nardy.vision`` -- camera frames to board observations.
- ``nardy.calibration`` -- board profiles, corner finding, colour models, lens.
- ``nardy.device`` -- dice sources: serial hubs, an emulator, manual entry, replay.
- ``nardy.referee`` -- the live session that joins dice and observations under the rules.
- ``nardy.hints`` -- engines that rank legal plays.
- ``nardy.web`` -- the Flask dashboard.
- ``nardy.cli`` -- the ``nardy`` command, which wires them together.
"""

__version__ = "0.1.0"
