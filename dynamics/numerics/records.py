"""Reproduction records on disk: a trainer's result with its config, seeds and provenance, written as JSON that reads
back exactly and carries a content hash (optional for users; the project's records are in ``records/``).

A record is what the project keeps of an experiment run at the size where the source's effect exists (the verifier
makes them: ``python -m verify --record NAME``); the figures draw them and a claim checks them against the code. The
file (JSON, ``format`` = 1) holds ``name``, ``source``, ``trainer`` ("module:function"), ``reduced`` (what the
record's size keeps of the source's setting and what it reduces), ``config`` (the config
NamedTuple's type and fields), ``seeds``, ``result`` (the trainer's result NamedTuple: its type and, per field, an
array's dtype, shape and values, or a plain value), ``replay`` (the config and result of a short re-run of the first
seed), ``verdict`` (status and text of what the record shows against the source), ``provenance`` (date, commit,
whether the tree had uncommitted changes, the code hash, versions, machine, device, wall and CPU seconds) and
``hash``, the SHA-256 of the canonical JSON of everything but the provenance and the hash. Floats are written by
``repr`` and read back exactly.
"""
import ast
import base64
import hashlib
import importlib
import inspect
import json
import math
import zlib
from pathlib import Path
from typing import Any, NamedTuple, Sequence, Tuple, Union

import numpy as np

__all__ = ["FORMAT", "LARGE", "RecordFile", "code_hash", "content_hash", "decode", "encode", "read_record", "write_record"]

#: The version of the file format this code writes and reads.
FORMAT = 1

#: Arrays with more elements than this are stored as their bytes (little-endian, zlib-compressed, base64) instead of
#: a list of numbers: exact either way, and a figure's evaluation grid stays a few hundred kB.
LARGE = 4096


class RecordFile(NamedTuple):
    """A record read back by :func:`read_record`.

    Attributes
    ----------
    name, source, trainer : str
        The record's name ("theory.experiment"), the source it reproduces and the trainer ("module:function").
    reduced : str
        What the record's size keeps of the source's setting, and what it reduces.
    config : NamedTuple
        The trainer's config.
    seeds : tuple of int
    result : NamedTuple
        The trainer's result, per seed.
    replay_config : NamedTuple
        The short re-run's config (run on the first seed).
    replay : NamedTuple
        Its result.
    verdict : tuple of (str, str)
        Status ("reproduced", "partly reproduced" or "not reproduced") and one sentence with the numbers.
    provenance : dict
        Date, commit, code hash, versions, machine, device, wall and CPU seconds.
    hash : str
        The content hash (checked when read).
    """

    name: str
    source: str
    trainer: str
    reduced: str
    config: Any
    seeds: Tuple[int, ...]
    result: Any
    replay_config: Any
    replay: Any
    verdict: Tuple[str, str]
    provenance: dict
    hash: str


def encode(value: Any) -> Any:
    """``value`` as JSON-ready data: arrays as dtype, shape and values (above :data:`LARGE` elements, their
    compressed bytes); NamedTuples as their importable type and
    fields; tuples as lists; non-finite floats as their repr.

    Parameters
    ----------
    value : numpy.ndarray, NamedTuple, tuple, list, scalar or None

    Returns
    -------
    object
        Data :func:`decode` turns back into ``value`` (tuples come back as tuples).

    Raises
    ------
    TypeError
        For a type a record cannot store.

    Examples
    --------
    >>> data = encode(np.arange(3.0))
    >>> data["shape"], bool(np.array_equal(decode(data), np.arange(3.0)))
    ([3], True)
    """
    if isinstance(value, np.ndarray):
        if value.size > LARGE:  # the bytes, little-endian, zlib-compressed, in base64: exact and compact
            raw = np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("<")).tobytes()
            return {"dtype": str(value.dtype), "shape": list(value.shape),
                    "zlib": base64.b64encode(zlib.compress(raw, 9)).decode("ascii")}
        data = value.ravel().tolist()
        if value.dtype.kind in "fc":  # NaN and infinities as their repr, "nan", "inf", "-inf"
            data = [v if math.isfinite(v) else repr(v) for v in data]
        return {"dtype": str(value.dtype), "shape": list(value.shape), "data": data}
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {"type": _type_name(value), "fields": {f: encode(getattr(value, f)) for f in value._fields}}
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        if isinstance(value, float) and not math.isfinite(value):
            return {"float": repr(value)}
        return value
    raise TypeError(f"a record cannot store a {type(value).__name__}")


def decode(value: Any) -> Any:
    """The value :func:`encode` wrote (NamedTuple types are imported by name).

    Parameters
    ----------
    value : object
        Data as :func:`encode` returns it (or as read back from JSON).

    Returns
    -------
    object
        The value: arrays with their dtype and shape, NamedTuples of their type, lists as tuples.

    Examples
    --------
    >>> decode(encode((1, 0.5, None)))
    (1, 0.5, None)
    """
    if isinstance(value, dict) and set(value) == {"dtype", "shape", "zlib"}:
        dtype = np.dtype(value["dtype"])
        raw = zlib.decompress(base64.b64decode(value["zlib"]))
        return np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype).reshape(value["shape"])
    if isinstance(value, dict) and set(value) == {"dtype", "shape", "data"}:
        data = [float(v) if isinstance(v, str) else v for v in value["data"]]
        return np.array(data, dtype=value["dtype"]).reshape(value["shape"])
    if isinstance(value, dict) and set(value) == {"float"}:
        return float(value["float"])
    if isinstance(value, dict) and set(value) == {"type", "fields"}:
        module, _, name = value["type"].partition(":")
        cls = getattr(importlib.import_module(module), name)
        return cls(**{k: decode(v) for k, v in value["fields"].items()})
    if isinstance(value, list):
        return tuple(decode(v) for v in value)
    return value


def _type_name(value):
    cls = type(value)
    public = cls.__module__.rsplit(".", 1)[0] if cls.__module__.rsplit(".", 1)[-1].startswith("_") else cls.__module__
    module = public if getattr(importlib.import_module(public), cls.__name__, None) is cls else cls.__module__
    return f"{module}:{cls.__name__}"


def _canonical(payload):
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)


def content_hash(payload: dict) -> str:
    """SHA-256 of the canonical JSON (sorted keys, no spaces) of a record's content.

    Parameters
    ----------
    payload : dict
        JSON-ready data (as :func:`encode` gives it); NaN and infinities are refused by the JSON encoder.

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> content_hash({"a": 1, "b": [0.5]}) == content_hash({"b": [0.5], "a": 1})
    True
    """
    return hashlib.sha256(_canonical(payload).encode()).hexdigest()


def code_hash(modules: Sequence[str]) -> str:
    """SHA-256 of the code of ``modules`` (importable module names): each module's syntax tree with its docstrings
    and its ``@fill_doc`` decorators and their import (``dynamics/numerics/_docstrings.py``) removed, so that editing
    documentation or comments leaves the hash alone and any change of code changes it.

    Parameters
    ----------
    modules : sequence of str
        Importable module names, at least one.

    Returns
    -------
    str
        64 hexadecimal digits.

    Raises
    ------
    ValueError
        If ``modules`` is empty or holds something other than a module name.

    Examples
    --------
    >>> len(code_hash(["dynamics.numerics.records"]))
    64
    """
    modules = list(modules) if not isinstance(modules, str) else [modules]
    if not modules or not all(isinstance(name, str) and name for name in modules):
        raise ValueError(f"modules must be a non-empty sequence of module names, got {modules!r}")
    digest = hashlib.sha256()
    for name in modules:
        tree = ast.parse(inspect.getsource(importlib.import_module(name)))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):  # documentation decorators
                node.decorator_list = [d for d in node.decorator_list
                                       if not (isinstance(d, ast.Name) and d.id == "fill_doc")]
            body = getattr(node, "body", None)
            if isinstance(body, list):  # the import of the documentation decorator
                body[:] = [n for n in body if not (isinstance(n, ast.ImportFrom)
                                                   and [a.name for a in n.names] == ["fill_doc"])]
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                    and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
        digest.update(name.encode() + b"\0" + ast.dump(tree).encode() + b"\0")
    return digest.hexdigest()


def write_record(path: Union[str, Path], content: dict, provenance: dict) -> Path:
    """Write a record: ``content`` with its hash and ``provenance``, as indented JSON.

    Parameters
    ----------
    path : str or pathlib.Path
        The file to write (its folder is made if missing).
    content : dict
        The keys of the module docstring but ``provenance`` and ``hash``, values as :func:`encode` gives them.
    provenance : dict
        JSON-ready provenance (not part of the content hash).

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ValueError
        If ``content`` lacks a key of the format or its ``format`` is not :data:`FORMAT`.

    Examples
    --------
    >>> import tempfile
    >>> content = {"format": FORMAT, "name": "t.x", "source": "S", "trainer": "m:f", "reduced": "r",
    ...            "config": encode((1,)), "seeds": [0], "result": encode(np.arange(2.0)),
    ...            "replay": {"config": encode((1,)), "result": encode(np.arange(2.0))}, "verdict": ["reproduced", "t"]}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     record = read_record(write_record(Path(folder) / "t.x.json", content, {"device": "cpu"}))
    >>> record.result.tolist(), record.verdict
    ([0.0, 1.0], ('reproduced', 't'))
    """
    keys = {"format", "name", "source", "trainer", "reduced", "config", "seeds", "result", "replay", "verdict"}
    missing = keys - set(content)
    if missing or content["format"] != FORMAT:
        raise ValueError(f"content must hold the record's keys with format {FORMAT}; missing {sorted(missing)}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**content, "provenance": provenance, "hash": content_hash(content)}, indent=1,
                               allow_nan=False) + "\n", encoding="utf-8")
    return path


def read_record(path: Union[str, Path]) -> RecordFile:
    """Read a record written by :func:`write_record` and check its content hash.

    Parameters
    ----------
    path : str or pathlib.Path

    Returns
    -------
    RecordFile

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    ValueError
        If the file's format is not :data:`FORMAT` or its content does not match its hash (edited by hand, or
        truncated).

    Examples
    --------
    A record committed in the repository's ``records/`` (one written here: see :func:`write_record`):

    >>> import dynamics
    >>> folder = Path(dynamics.__file__).resolve().parents[1] / "records"
    >>> record = read_record(folder / "spurious.balancing_train_test_gap.json")
    >>> record.name, len(record.seeds), record.verdict[0], record.result.train_group_acc.shape
    ('spurious.balancing_train_test_gap', 8, 'partly reproduced', (3, 8, 500, 4))
    """
    stored = json.loads(Path(path).read_text(encoding="utf-8"))
    content = {k: v for k, v in stored.items() if k not in ("provenance", "hash")}
    if content.get("format") != FORMAT:
        raise ValueError(f"{path}: format {content.get('format')!r}, this code reads format {FORMAT}")
    if content_hash(content) != stored.get("hash"):
        raise ValueError(f"{path}: the content does not match its hash (edited by hand, or truncated)")
    return RecordFile(content["name"], content["source"], content["trainer"], content["reduced"],
                      decode(content["config"]),
                      tuple(content["seeds"]), decode(content["result"]), decode(content["replay"]["config"]),
                      decode(content["replay"]["result"]), tuple(content["verdict"]), stored["provenance"],
                      stored["hash"])
