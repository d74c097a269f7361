"""Figures of the theories: one function per figure in ``figures/<theory>.py``, a registry, and
``python -m figures`` to list, render, and build an HTML gallery. Figures plot what :mod:`dynamics`
computes and hold no theory themselves.
"""
from .registry import REGISTRY, FigureSpec, figure, get, load_all, render, write_gallery
from .style import COLORS, SEQUENTIAL, new_figure, progress, style_context

__all__ = ["REGISTRY", "FigureSpec", "figure", "get", "load_all", "render", "write_gallery",
           "COLORS", "SEQUENTIAL", "new_figure", "progress", "style_context"]
