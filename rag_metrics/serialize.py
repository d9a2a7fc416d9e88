"""One conversion of result values to JSON: NaN and undefined become ``None``, numpy scalars Python numbers.

Used by every writer of results (the command line, run history, reports, attribution), so an
undefined value is ``null`` in every file the project writes.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping

import numpy as np

__all__ = ["jsonable"]


def jsonable(value):
    """``value`` with NaN -> None, numpy scalars and arrays -> Python, tuples and sets -> lists (recursively).

    >>> jsonable({"a": float("nan"), "b": np.float64(0.5), "c": (1, np.int64(2)), "d": np.bool_(True)})
    {'a': None, 'b': 0.5, 'c': [1, 2], 'd': True}
    """
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(v) for v in value), key=repr)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    pd = sys.modules.get("pandas")  # pandas.NA cannot occur unless pandas is loaded
    if pd is not None and value is pd.NA:
        return None
    return str(value)
