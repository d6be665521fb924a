"""A small numpy evaluation network: inputs -> tanh hidden layer -> five sigmoid outputs.

The outputs are the side on roll's chances, in GNU Backgammon's order::

    win, win gammon (mars), win backgammon (koks), lose gammon, lose backgammon

each "gammon" chance counting the backgammons too. Weights are saved as a ``.npz`` file with
the variant, the feature width and a JSON ``info`` text (how it was trained).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nardy.hints.blas import matmul, one_thread

FloatArray = NDArray[np.float32]

OUTPUTS = 5
WIN, WIN_GAMMON, WIN_BACKGAMMON, LOSE_GAMMON, LOSE_BACKGAMMON = range(OUTPUTS)


def _sigmoid(z: FloatArray) -> FloatArray:
    out: FloatArray = (1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))).astype(np.float32, copy=False)
    return out


@dataclass
class Network:
    """Weights of the evaluation network for one variant."""

    variant: str
    """``"short"`` or ``"long"``."""
    w1: FloatArray
    """``(inputs, hidden)``."""
    b1: FloatArray
    """``(hidden,)``."""
    w2: FloatArray
    """``(hidden, 5)``."""
    b2: FloatArray
    """``(5,)``."""
    info: dict[str, Any] = field(default_factory=dict)
    """How the weights were made (games, seed, script); saved with them."""

    @classmethod
    def create(cls, variant: str, inputs: int, hidden: int, rng: np.random.Generator) -> Network:
        """Fresh small random weights."""
        w1 = rng.normal(0.0, 1.0 / np.sqrt(inputs), (inputs, hidden)).astype(np.float32)
        w2 = rng.normal(0.0, 1.0 / np.sqrt(hidden), (hidden, OUTPUTS)).astype(np.float32)
        return cls(variant, w1, np.zeros(hidden, np.float32), w2, np.zeros(OUTPUTS, np.float32))

    @property
    def inputs(self) -> int:
        return int(self.w1.shape[0])

    @property
    def hidden(self) -> int:
        return int(self.w1.shape[1])

    def params(self) -> list[FloatArray]:
        return [self.w1, self.b1, self.w2, self.b2]

    def forward(self, x: FloatArray) -> FloatArray:
        """The five chances for each row of ``x`` ``(n, inputs)``: ``(n, 5)``."""
        with one_thread() as single:
            h = np.tanh(matmul(x, self.w1, single) + self.b1)
            return _sigmoid(matmul(h, self.w2, single) + self.b2)

    def gradients(self, x: FloatArray, target: FloatArray) -> tuple[float, list[FloatArray]]:
        """Mean cross-entropy of the outputs against ``target`` ``(n, 5)`` and its gradients."""
        h = np.tanh(x @ self.w1 + self.b1)
        p = _sigmoid(h @ self.w2 + self.b2)
        n = x.shape[0]
        eps = 1e-7
        loss = -float(np.mean(target * np.log(p + eps) + (1 - target) * np.log(1 - p + eps))) * OUTPUTS
        dz2 = (p - target) / n
        dh = (dz2 @ self.w2.T) * (1.0 - h * h)
        grads = [x.T @ dh, dh.sum(axis=0), h.T @ dz2, dz2.sum(axis=0)]
        return loss, [g.astype(np.float32) for g in grads]

    # ------------------------------------------------------------------ files
    def save(self, path: str | Path) -> None:
        np.savez_compressed(
            Path(path),
            variant=np.array(self.variant),
            w1=self.w1,
            b1=self.b1,
            w2=self.w2,
            b2=self.b2,
            info=np.array(json.dumps(self.info, sort_keys=True)),
        )

    @classmethod
    def load(cls, path: str | Path) -> Network:
        with np.load(Path(path), allow_pickle=False) as data:
            return cls(
                str(data["variant"]),
                data["w1"].astype(np.float32),
                data["b1"].astype(np.float32),
                data["w2"].astype(np.float32),
                data["b2"].astype(np.float32),
                json.loads(str(data["info"])),
            )


class Adam:
    """The Adam optimiser over a network's parameter arrays (updated in place)."""

    def __init__(self, params: list[FloatArray], lr: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999):
        self.params = params
        self.lr = lr
        self.beta1 = beta1
        self.beta2 = beta2
        self.t = 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]

    def step(self, grads: list[FloatArray]) -> None:
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        scale = self.lr * np.sqrt(1 - b2**self.t) / (1 - b1**self.t)
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= (scale * m / (np.sqrt(v) + 1e-8)).astype(np.float32)

    def state(self) -> dict[str, NDArray[Any]]:
        out: dict[str, NDArray[Any]] = {"adam_t": np.array(self.t)}
        for i, (m, v) in enumerate(zip(self.m, self.v, strict=True)):
            out[f"adam_m{i}"] = m
            out[f"adam_v{i}"] = v
        return out

    def load_state(self, data: Any) -> None:
        self.t = int(data["adam_t"])
        for i in range(len(self.params)):
            self.m[i][...] = data[f"adam_m{i}"]
            self.v[i][...] = data[f"adam_v{i}"]


def equity(probs: FloatArray, backgammons: bool = True) -> NDArray[np.float64]:
    """Cubeless equity of the side the chances belong to, per row of ``probs`` ``(n, 5)``.

    ``backgammons=False`` scores a backgammon (koks) as a gammon (long nardy without the option).
    """
    p = probs.astype(np.float64)
    win = p[:, WIN]
    wg = np.minimum(p[:, WIN_GAMMON], win)
    lg = np.minimum(p[:, LOSE_GAMMON], 1.0 - win)
    eq = 2.0 * win - 1.0 + wg - lg
    if backgammons:
        eq = eq + np.minimum(p[:, WIN_BACKGAMMON], wg) - np.minimum(p[:, LOSE_BACKGAMMON], lg)
    out: NDArray[np.float64] = eq
    return out


def swap_sides(probs: FloatArray) -> FloatArray:
    """The same chances seen by the other side: win <-> lose, gammons swapped."""
    out = np.empty_like(probs)
    out[:, WIN] = 1.0 - probs[:, WIN]
    out[:, WIN_GAMMON] = probs[:, LOSE_GAMMON]
    out[:, WIN_BACKGAMMON] = probs[:, LOSE_BACKGAMMON]
    out[:, LOSE_GAMMON] = probs[:, WIN_GAMMON]
    out[:, LOSE_BACKGAMMON] = probs[:, WIN_BACKGAMMON]
    return out
