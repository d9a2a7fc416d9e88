"""The command line's small vocabulary, written once: ``KEY=VALUE`` options and ``module:callable`` names.

:func:`parse_key_values` reads every ``KEY=VALUE`` list of the package -- ``run --option``, ``golden
generate --option``, ``report --parameter``, ``report --field`` and the options of a per-run log shape --
with one typing rule (:func:`parse_value`):

=====================================  ===========================================
written                                read as
=====================================  ===========================================
``5``, ``-3``                          int
``0.5``, ``1e-3``, ``.5``              float
``true`` / ``false`` (any case)        bool
``none`` / ``null`` (any case)         None
``[1, 3]``, ``{"a": 1}``               JSON list / object
``"007"`` (in double quotes)           the string inside (JSON string)
anything else                          the text as written (surrounding spaces removed)
=====================================  ===========================================

A key given twice is an error (the second would silently win). :func:`check_keys` refuses a key the receiver
does not take (naming the closest one it does, :func:`keywords_of`) before it becomes a keyword argument.

:func:`load_callable` finds ``package.module:attribute`` (``attribute`` may be dotted); a module in the
current folder is found as ``python -m`` would find it.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import json
import os
import re
import sys

from rag_metrics.core.errors import InputError

__all__ = ["parse_key_values", "parse_value", "load_callable", "check_keys", "keywords_of"]

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?:\.[0-9]*)?[eE][+-]?[0-9]+|\.[0-9]+[eE][+-]?[0-9]+)")
_WORDS = {"true": True, "false": False, "none": None, "null": None}


def parse_value(text: str):
    """One option value, typed by the module's rule (a table in the module docstring)."""
    value = text.strip()
    if value.isascii() and _INT.fullmatch(value):
        return int(value)
    if value.isascii() and _FLOAT.fullmatch(value):
        return float(value)
    if value.lower() in _WORDS:
        return _WORDS[value.lower()]
    if value[:1] in "[{\"" and value:
        try:
            return json.loads(value)
        except ValueError:
            pass
    return value


def parse_key_values(items, *, what: str = "option", keys=None, typed: bool = True, identifiers: bool = True) -> dict:
    """``["size=400", "heading=true"]`` -> ``{"size": 400, "heading": True}``.

    ``keys``: the accepted keys (others are an error listing them); ``typed=False`` keeps values as text
    (surrounding spaces removed; an empty value is an error); ``identifiers``: keys must be Python
    identifiers (options that become keyword arguments).
    """
    out: dict = {}
    for item in items or []:
        if not isinstance(item, str):
            raise InputError(f"{what} {item!r}: expected KEY=VALUE text.")
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key or (identifiers and not key.isidentifier()):
            raise InputError(f"{what} {item!r}: expected KEY=VALUE" + (" with KEY a name such as size" if identifiers
                                                                        else "") + ".", field=key or None)
        if keys is not None and key not in keys:
            raise InputError(f"{what} {item!r}: unknown key {key!r}; expected one of {', '.join(keys)}.", field=key)
        if key in out:
            raise InputError(f"{what} {key!r} is given twice; give it once.", field=key)
        if typed:
            out[key] = parse_value(value)
        else:
            if not value.strip():
                raise InputError(f"{what} {item!r}: the value after '=' is empty.", field=key)
            out[key] = value.strip()
    return out


def keywords_of(cls, *, skip=()) -> list[str]:
    """The keyword arguments ``cls(...)`` takes, in order: those of its ``__init__`` and, while an ``__init__`` passes
    ``**options`` on, those of the next class of its method resolution order that defines one; ``skip``: those its
    caller sets itself."""
    import inspect

    names = []
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if klass is object:
            break
        if init is None:
            continue
        params = list(inspect.signature(init).parameters.values())[1:]
        names += [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            break
    return [n for n in dict.fromkeys(names) if n not in skip]


def check_keys(options, accepted, *, owner: str, what: str = "option") -> None:
    """Refuse the first key of ``options`` that is not ``accepted``, naming the closest accepted one ("did you
    mean") and all of them: ``owner`` says whose options they are (``"offline judge"``)."""
    accepted = list(accepted)
    for key in options:
        if key not in accepted:
            import difflib  # only for the message

            close = difflib.get_close_matches(key, accepted, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else "."
            raise InputError(f"{what} {key!r}: unknown key for the {owner}{hint} It takes {', '.join(accepted)}.",
                             field=key)


def _import(module_name: str):
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        top = module_name.split(".", 1)[0]
        cwd = os.getcwd()
        # Like `python -m`: a module in the current folder is found (the folder joins sys.path once).
        if e.name in (top, module_name) and cwd not in sys.path and \
                importlib.machinery.PathFinder.find_spec(top, [cwd]) is not None:
            sys.path.insert(0, cwd)
            importlib.invalidate_caches()
            return importlib.import_module(module_name)
        raise


def load_callable(spec: str, *, what: str = "callable", field: str | None = None, example: str = "mypkg.mod:func"):
    """The object named by ``module:attribute`` (``attribute`` may be dotted). Errors name ``what``: a
    malformed name, a module that cannot be imported (with the reason), a missing attribute."""
    if not isinstance(spec, str):
        raise InputError(f"{what} {spec!r}: expected MODULE:NAME, e.g. {example}.", field=field)
    module_name, sep, attr = spec.strip().partition(":")
    if not sep or not module_name or not attr or not all(p.isidentifier() for p in module_name.split(".")) \
            or not all(p.isidentifier() for p in attr.split(".")):
        raise InputError(f"{what} {spec!r}: expected MODULE:NAME, e.g. {example}.", field=field)
    try:
        module = _import(module_name)
    except ImportError as e:
        raise InputError(f"{what} {spec!r}: cannot import {module_name!r} ({e}).", field=field) from None
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InputError(f"{what} {spec!r}: {module_name!r} has no attribute {attr!r}.", field=field)
        obj = getattr(obj, part)
    return obj
