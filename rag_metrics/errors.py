"""The one exception type for bad input, and the checks every entry point shares."""

from __future__ import annotations

import math
import numbers


class InputError(ValueError):
    """Bad input: a message that names where (file and line, or question) and what was expected.

    Attributes
    ----------
    path, line, question : optional location of the problem; ``str(err)`` already includes them.
    """

    def __init__(self, message: str, *, path=None, line=None, question=None):
        self.path = None if path is None else str(path)
        self.line = line
        self.question = question
        where = ""
        if self.path is not None:
            where = self.path + (f":{line}" if line is not None else "") + ": "
        super().__init__(where + message)


class NotComparableError(ValueError):
    """Two runs differ in something a fair comparison must hold fixed."""


def check_int(value, name: str, *, low: int = 1, func: str = "", expected: str | None = None) -> int:
    """Return ``value`` as an int >= ``low`` (bools refused); raise ValueError naming the parameter otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        of = f" of {func}" if func else ""
        raise ValueError(f"The {name!r} parameter{of} must be {expected or f'an int >= {low}'}. Got {value!r} instead.")
    return int(value)


def check_k(k, *, name: str = "k", func: str = "", allow_none: bool = False):
    """Return ``k`` as an int >= 1 (or None when allowed); raise ValueError otherwise."""
    if k is None and allow_none:
        return None
    return check_int(k, name, func=func, expected="an int >= 1" + (" or None" if allow_none else ""))


def check_min_rel(min_rel, *, func: str = ""):
    """Return ``min_rel`` as a float > 0: labels <= 0 are judged not relevant by definition."""
    if isinstance(min_rel, bool) or not isinstance(min_rel, numbers.Real) or not math.isfinite(min_rel) or min_rel <= 0:
        of = f" of {func}" if func else ""
        raise ValueError(f"The 'min_rel' parameter{of} must be a finite number > 0. Got {min_rel!r} instead.")
    return float(min_rel)


GAINS = ("linear", "exponential")


def check_gain(gain, *, func: str = ""):
    if gain not in GAINS:
        of = f" of {func}" if func else ""
        raise ValueError(f"The 'gain' parameter{of} must be one of {GAINS}. Got {gain!r} instead.")
    return gain


ORDERS = ("cut_then_dedup", "dedup_then_cut")


def check_order(order, *, func: str = ""):
    if order not in ORDERS:
        of = f" of {func}" if func else ""
        raise ValueError(f"The 'order' parameter{of} must be one of {ORDERS}. Got {order!r} instead.")
    return order
