"""Analytic dynamics of learning: closed forms, numba ODEs and fixed points for five bodies of
learning-dynamics theory (see the theory subpackages and ``shared/spec``).

``dynamics`` never imports ``verify``, ``figures`` or torch.
"""
__version__ = "0.1.0"
