"""Shared docstring text: the parameters many functions take, written once and filled into their docstrings at
import (the pattern of SciPy's ``scipy._lib.doccer``).

A docstring names a shared entry by a line holding only its placeholder, ``%(name)s``, indented as the entries
around it; :class:`DocTable.fill` (used as a decorator, ``@fill_doc``) replaces the line by the entry, each of its
lines indented as the placeholder was. Every theory keeps its own table in its ``_docs`` module, built on
:data:`SHARED` (the framework's entries: ``device``, ``seed``, ``learning_rate``, and the validators' ``name`` and
``value``), so that one parameter has one description
across the library; a module decorates with its theory's ``fill_doc``.
:func:`dynamics.numerics.records.code_hash` leaves the ``@fill_doc`` decorators out: they change documentation, not
code.
"""
import re
from types import MappingProxyType
from typing import Callable, Mapping, TypeVar

__all__ = ["DocTable", "SHARED", "fill_doc"]

_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)%\((?P<key>\w+)\)s[ \t]*$", re.MULTILINE)

T = TypeVar("T")


class DocTable:
    """Named docstring entries, filled into ``%(name)s`` placeholder lines.

    Parameters
    ----------
    entries : mapping of str to str
        Entry name to its text: a numpydoc entry as it reads at indentation 0 (``"name : type\\n    What it is."``).

    Raises
    ------
    ValueError
        If a name is not an identifier or a text is empty.

    Examples
    --------
    >>> table = DocTable({"x": "x : float\\n    A number."})
    >>> @table.fill
    ... def f(x):
    ...     '''Parameters
    ...     ----------
    ...     %(x)s
    ...     '''
    >>> import inspect
    >>> print(inspect.cleandoc(f.__doc__))
    Parameters
    ----------
    x : float
        A number.
    """

    def __init__(self, entries: Mapping[str, str]):
        for name, text in entries.items():
            if not (isinstance(name, str) and name.isidentifier()):
                raise ValueError(f"entry names must be identifiers, got {name!r}")
            if not (isinstance(text, str) and text.strip()):
                raise ValueError(f"entry {name!r} must be non-empty text, got {text!r}")
        self.entries = MappingProxyType({name: text.strip("\n") for name, text in entries.items()})

    def extended(self, **entries: str) -> "DocTable":
        """This table with more entries (a theory's own on the shared ones).

        Raises
        ------
        ValueError
            If an entry is already in this table: one name, one description.
        """
        clash = sorted(set(entries) & set(self.entries))
        if clash:
            raise ValueError(f"entries {clash} are already in the table; a parameter has one description")
        return DocTable({**self.entries, **entries})

    def format(self, doc: str) -> str:
        """``doc`` with each placeholder line replaced by its entry, indented as the placeholder.

        Raises
        ------
        ValueError
            If a placeholder names no entry of the table.
        """

        def entry(match):
            key = match.group("key")
            if key not in self.entries:
                raise ValueError(f"the docstring placeholder %({key})s names no entry; known: "
                                 f"{', '.join(sorted(self.entries))}")
            indent = match.group("indent")
            return "\n".join(indent + line if line else line for line in self.entries[key].split("\n"))

        return _PLACEHOLDER.sub(entry, doc)

    def fill(self, obj: T) -> T:
        """Decorator: fill the placeholders of ``obj.__doc__`` (a function or a class), in place.

        Returns
        -------
        object
            ``obj``, its docstring filled (left alone when Python runs without docstrings, ``-OO``).
        """
        if obj.__doc__:
            obj.__doc__ = self.format(obj.__doc__)
        return obj


#: The framework's shared entries.
SHARED = DocTable({
    "device": 'device : str or torch.device, default "cpu"\n'
              '    Where to compute: "cpu", or "cuda" when a GPU is present. Keyword only.',
    "seed": "seed : None, int or numpy.random.Generator\n"
            "    Source of randomness: an integer gives the same numbers every call, a Generator's stream continues, "
            "None\n    draws fresh entropy.",
    "learning_rate": "learning_rate : float\n    :math:`\\eta > 0`.",
    "name": "name : str\n    The parameter's name, used in the error message.",
    "value": "value : object\n    The argument as the caller gave it.",
    't_autonomous': 't : float\n    Time (unused: the equation is autonomous).',
    'x_finite': 'x : float or array_like\n    Finite.',
    'k_n_p': 'k, n, p : as in :func:`dynamics.numerics.log_binom_pmf`',
})

#: Fill placeholders from :data:`SHARED` (a theory uses its own table's ``fill``).
fill_doc: Callable = SHARED.fill
