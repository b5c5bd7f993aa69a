"""Seeds and the counter-based RNG used inside kernels (STYLE habit 4).

A scenario's root seed becomes a 64-bit *key* through
``numpy.random.SeedSequence``. Inside a kernel every random stream is a
splitmix64 generator whose one-word state lives in a ``uint64[1]`` array and
is seeded from ``(key, game index, purpose, sub)``. So the cards dealt in
game ``g`` depend only on the root seed and ``g``: never on chunk size,
thread count, worker, scheduling order or resume history, and two arms of a
paired comparison see the same deals (DESIGN: "Known traps").

Purposes separate randomness drawn for different reasons: shuffles use one
stream, policies another, so a policy that draws more random numbers never
shifts the cards of a later hand.
"""

from __future__ import annotations

import warnings

import numpy as np

from cardsim.jit import DISABLED, njit

if DISABLED:  # interpreted kernels: numpy scalars warn on the intended uint64 wrap-around
    warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0

# Stream purposes shared by all games; games may use larger numbers for their own.
DEAL = 1
POLICY = 2
SETUP = 3
EFFECT = 4


def root_key(seed: int) -> int:
    """The 64-bit stream key of a root seed (via ``numpy.random.SeedSequence``)."""
    return int(np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)[0])


def spawn_keys(seed: int, n: int) -> list[int]:
    """``n`` independent keys spawned from ``seed`` (for replicate runs)."""
    children = np.random.SeedSequence(int(seed)).spawn(n)
    return [int(c.generate_state(1, np.uint64)[0]) for c in children]


@njit
def mix64(z):
    """splitmix64 finaliser: a bijective avalanche of one uint64."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit
def seed_stream(state, key, game, purpose, sub):
    """Seed ``state`` (uint64[1]) for stream (key, game, purpose, sub)."""
    z = mix64(np.uint64(key) ^ mix64(np.uint64(game) * GOLDEN + np.uint64(1)))
    z = mix64(z ^ mix64(np.uint64(purpose) * _M2 + np.uint64(sub) * _M1))
    state[0] = z


@njit
def next_u64(state):
    state[0] = state[0] + GOLDEN
    return mix64(state[0])


@njit
def bounded(u, n):
    """An int in [0, n) for 0 < n < 2**32 from the random uint64 ``u`` (multiply-shift on its
    high 32 bits, no modulo bias to speak of): :func:`randint`'s draw, for a kernel that has
    ``u`` at hand already."""
    return np.int64(((u >> _S32) * np.uint64(n)) >> _S32)


@njit
def randint(state, n):
    """Uniform int in [0, n) for 0 < n < 2**32."""
    return bounded(next_u64(state), n)


@njit
def uniform(state):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(state) >> _S11) * _INV53


@njit
def shuffle(state, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` in place."""
    for i in range(n - 1, 0, -1):
        j = randint(state, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t
