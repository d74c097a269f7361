"""One check for the tables of extreme-input cases in the theory tests (found by the public-API fuzz).

A case is a call and what it must give: a string means a ValueError whose message contains it (the input leaves
the theory's float64 domain and the error names the parameter); a number or list means a finite result equal to
it within 1e-12 relative (the exact value of the formula at that input).
"""
import numpy as np
import pytest


def check_extreme_case(call, expected, absolute=0.0):
    if isinstance(expected, str):
        with pytest.raises(ValueError) as info:
            call()
        assert expected in str(info.value)
    else:
        value = call()
        assert np.all(np.isfinite(value))
        assert value == pytest.approx(expected, rel=1e-12, abs=absolute)
