"""The one exception type for bad input, and the parameter checks every entry point shares.

Every error a user can cause -- a malformed file, a parameter out of range, two runs that
cannot be compared -- is an :class:`InputError` (a ``ValueError``) with a plain message
that says where and what was expected. The command line maps exactly these to exit
status 2; any other exception is a bug and surfaces as one.
"""

from __future__ import annotations

import math
import numbers
import re

__all__ = [
    "InputError", "InputTypeError", "NotComparableError", "wrong_type", "close_matches", "check_choice", "check_int",
    "check_number", "check_cutoffs", "check_names", "check_alpha", "check_k", "check_min_rel", "check_gain",
    "check_order", "check_name", "GAINS", "ORDERS", "NAME_MAX",
]


class InputError(ValueError):
    """Bad input: a message that names where (file and line, or question) and what was expected.

    Attributes
    ----------
    path, line, question, field : optional location of the problem; ``str(err)`` already includes them.
    """

    def __init__(self, message: str, *, path=None, line=None, question=None, field=None):
        self.path = None if path is None else str(path)
        self.line = line
        self.question = question
        self.field = field
        self.message = message
        where = ""
        if self.path is not None:
            where = self.path + (f":{line}" if line is not None else "") + ": "
        super().__init__(where + message)

    def __reduce__(self):  # picklable with its keywords (Dask sends errors between processes)
        return (_rebuild, (type(self), self.message, self.path, self.line, self.question, self.field))


def _rebuild(cls, message, path, line, question, field):
    return cls(message, path=path, line=line, question=question, field=field)


class NotComparableError(InputError):
    """Two runs differ in something a fair comparison must hold fixed."""


class InputTypeError(InputError, TypeError):
    """A parameter of the wrong kind (a path where a table is expected, a number where a list is): an
    :class:`InputError` like every error a user can cause, and a ``TypeError`` for code that catches one."""


def _of(func: str) -> str:
    return f" of {func}" if func else ""


def _got(value) -> str:
    """A value as an error message shows it: scalars and short strings as written, anything else by its type."""
    if value is None or isinstance(value, (bool, numbers.Number)) or (isinstance(value, str) and len(value) <= 80):
        return repr(value)
    if isinstance(value, (list, tuple)) and len(repr(value)) <= 80:
        return repr(value)
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def wrong_type(value, name: str, expected: str, *, func: str = "", hint: str = "") -> InputTypeError:
    """The error for a parameter of the wrong kind, scikit-learn style: "The 'golden' parameter of evaluate_log must
    be a GoldenSet or the path of a golden set. Got 3 instead." ``hint`` (a sentence) says how to get what is
    expected. Returned, for the caller to raise."""
    return InputTypeError(f"The {name!r} parameter{_of(func)} must be {expected}. Got {_got(value)} instead."
                          + (f" {hint}" if hint else ""))


def close_matches(word, choices, n: int = 3, cutoff: float = 0.6) -> list:
    """The ``choices`` closest to ``word`` (difflib's ratio >= ``cutoff``; case ignored), for a "did you mean"
    hint."""
    import difflib  # only for messages

    choices = [str(c) for c in choices]
    lowered = {c.lower(): c for c in choices}
    return [lowered[m] for m in difflib.get_close_matches(str(word).lower(), list(lowered), n=n, cutoff=cutoff)]


def check_choice(value, choices, name: str, *, func: str = "", what: str | None = None, path=None, line=None,
                 question=None, field=None):
    """Return ``value`` when it is one of ``choices``; raise :class:`InputError` naming them otherwise.

    A parameter (``what`` None): "The 'engine' parameter of evaluate must be one of ('local', 'dask'). Got 'x'
    instead." A value read from a file or a command line (``what`` says where it came from, e.g. ``"question q1:"``;
    ``path``/``line``/``question``/``field`` locate it): "question q1: decision 'x'; expected one of accept, drop."
    """
    choices = tuple(choices)
    try:
        if value in choices:
            return value
    except TypeError:  # unhashable against a set/dict-backed choice list: not a choice either
        pass
    if what is None:
        message = f"The {name!r} parameter{_of(func)} must be one of {choices}. Got {value!r} instead."
    else:
        message = f"{what + ' ' if what else ''}{name} {value!r}; expected one of {', '.join(map(str, choices))}."
    near = close_matches(value, choices) if isinstance(value, str) else []
    if near:
        message += f" Did you mean {near[0]!r}?"
    raise InputError(message, path=path, line=line, question=question, field=field)


def check_int(value, name: str, *, low: int = 1, func: str = "", expected: str | None = None,
              field: str | None = None) -> int:
    """Return ``value`` as an int >= ``low`` (bools refused); raise :class:`InputError` naming the parameter otherwise
    (``field``: the option or column it came from, kept on the error)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise InputError(
            f"The {name!r} parameter{_of(func)} must be {expected or f'an int >= {low}'}. Got {value!r} instead.",
            field=field)
    return int(value)


def check_number(value, name: str, *, low: float | None = None, high: float | None = None, low_open: bool = False,
                 high_open: bool = False, func: str = "", field: str | None = None, hint: str = "") -> float:
    """Return ``value`` as a finite float within its range; raise :class:`InputError` saying the range otherwise.

    The range is ``[low, high]``, each end left out with ``low_open``/``high_open`` and unbounded when None: "The
    'confidence' parameter must be in [0.5, 1). Got 1 instead.", "The 'delta' parameter must be > 0. Got 0
    instead." Bools, non-numbers, NaN and infinities are refused too. ``hint`` (a sentence) follows the message.
    """
    ok = not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(value)
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if ok and high is not None:
        ok = value < high if high_open else value <= high
    if not ok:
        if low is not None and high is not None:
            expected = f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
        elif low is not None:
            expected = f"{'>' if low_open else '>='} {low:g}"
        elif high is not None:
            expected = f"{'<' if high_open else '<='} {high:g}"
        else:
            expected = "a finite number"
        raise InputError(f"The {name!r} parameter{_of(func)} must be {expected}. Got {value!r} instead."
                         + (f" {hint}" if hint else ""), field=field)
    return float(value)


def check_cutoffs(ks, name: str = "ks", *, func: str = "") -> tuple:
    """Cutoffs as a sorted tuple of distinct ints >= 1: one int (``ks=5``) is the cutoff 5, a list or tuple its
    cutoffs; nothing else (a string, an empty list, ``0``) is accepted."""
    if isinstance(ks, numbers.Integral) and not isinstance(ks, bool):
        ks = (ks,)
    if isinstance(ks, (str, bytes)) or not hasattr(ks, "__iter__"):
        raise wrong_type(ks, name, "an int >= 1 or a list of them, such as 5 or (1, 3, 5)", func=func)
    out = tuple(sorted({check_int(k, name, func=func, expected="an int >= 1 or a list of them") for k in ks}))
    if not out:
        raise InputError(f"The {name!r} parameter{_of(func)} must hold at least one cutoff, such as (1, 3, 5). "
                         "Got none.")
    return out


def check_names(names, name: str = "measures", *, func: str = "", what: str = "measure names") -> list:
    """Names as a list of distinct strings, in their order: one string (``"hit@5"``) is one name -- never split into
    its letters -- and a list or tuple of strings its names; anything else (a number, a dict, a list holding
    something other than a string) is an :class:`InputTypeError` saying what was expected."""
    if isinstance(names, str):
        names = [names]
    expected = f"one of the {what} as a string, or a list of them, such as 'hit@5' or ['hit@5', 'mrr']"
    if isinstance(names, (bytes, dict)) or not hasattr(names, "__iter__"):
        raise wrong_type(names, name, expected, func=func)
    names = list(names)
    bad = [n for n in names if n is None or isinstance(n, (numbers.Number, bytes, dict, list, tuple, set))]
    if bad:
        raise wrong_type(bad[0], name, expected, func=func)
    return list(dict.fromkeys(str(n) for n in names))  # a parsed Measure reads as its name


def check_alpha(alpha, name: str = "alpha", *, field: str = "alpha", high: float = 0.5) -> float:
    """Return ``alpha`` as a float in (0, ``high``]: the significance level of a two-sided test (a level above 0.5
    would call a change real more often than not when nothing changed; a lesson may allow less). The one check every
    entry point uses."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < alpha <= high:
        raise InputError(f"The {name!r} parameter must be a significance level in (0, {high:g}], such as 0.05. "
                         f"Got {alpha!r} instead.", field=field)
    return float(alpha)


def check_k(k, *, name: str = "k", func: str = "", allow_none: bool = False) -> int | None:
    """Return ``k`` as an int >= 1 (or None when allowed); raise :class:`InputError` otherwise."""
    if k is None and allow_none:
        return None
    return check_int(k, name, func=func, expected="an int >= 1" + (" or None" if allow_none else ""))


def check_min_rel(min_rel, *, func: str = "") -> float:
    """Return ``min_rel`` as a float > 0: labels <= 0 are judged not relevant by definition."""
    if isinstance(min_rel, bool) or not isinstance(min_rel, numbers.Real) or not math.isfinite(min_rel) or min_rel <= 0:
        raise InputError(f"The 'min_rel' parameter{_of(func)} must be a finite number > 0. Got {min_rel!r} instead.")
    return float(min_rel)


GAINS = ("linear", "exponential")


def check_gain(gain, *, func: str = "") -> str:
    return check_choice(gain, GAINS, "gain", func=func)


ORDERS = ("cut_then_dedup", "dedup_then_cut")


def check_order(order, *, func: str = "") -> str:
    return check_choice(order, ORDERS, "order", func=func)


NAME_MAX = 100
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*", re.ASCII)


def check_name(name, *, what: str = "name") -> str:
    """An experiment or run name: letters, digits, ``.``, ``_``, ``-``; starts with a letter or digit; at most
    :data:`NAME_MAX` characters. It becomes a folder or file name, so nothing else is accepted."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or len(name) > NAME_MAX:
        raise InputError(
            f"{what} {name!r}: use 1-{NAME_MAX} letters, digits, '.', '_' or '-', starting with a letter or digit.")
    return name
