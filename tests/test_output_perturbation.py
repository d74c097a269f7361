"""The output-perturbation tool (``tools/output_perturbation.py``): each perturbation changes what it says and
nothing else, and a replaced function is visible everywhere while the block runs and restored everywhere after it.
A slip here would make the coverage table report fields as checked that were never changed."""
import importlib.util
import sys
import types
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tool():
    found = importlib.util.spec_from_file_location("output_perturbation", ROOT / "tools" / "output_perturbation.py")
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


class Result(NamedTuple):
    value: np.ndarray
    epoch: int
    label: str


def test_each_perturbation_changes_what_it_names(tool):
    x = np.array([[1.0, 0.0], [2.0, 4.0]])
    kinds = dict(tool.perturbations(x))
    assert set(kinds) == {"relative", "first", "swapped"}
    assert np.allclose(kinds["relative"], [[1.001, 0.004], [2.002, 4.004]])  # zeros move by 1e-3 of the scale
    assert kinds["first"][0, 0] == pytest.approx(1.001) and np.array_equal(kinds["first"].ravel()[1:], x.ravel()[1:])
    assert np.array_equal(kinds["swapped"], x[[1, 0]])
    assert np.array_equal(x, [[1.0, 0.0], [2.0, 4.0]])  # the original is untouched
    assert dict(tool.perturbations(np.array([3, 5])))["off_by_one"].tolist() == [4, 6]
    assert dict(tool.perturbations(True)) == {"flipped": False}
    assert dict(tool.perturbations(7)) == {"off_by_one": 8}
    assert dict(tool.perturbations(2.0)) == {"relative": pytest.approx(2.002)}
    assert dict(tool.perturbations((1, 2)))["swapped"] == (2, 1)
    assert tool.perturbations(np.ones((2, 3)))[-1][0] != "swapped"  # equal rows: a swap would change nothing
    assert tool.perturbations("text") == [] and tool.perturbations(None) == [] and tool.perturbations(np.inf) == []
    nested = dict(tool.perturbations(Result(np.array([1.0, 2.0]), 3, "a")))  # every member a kind fits
    assert set(nested) == {"relative", "first", "swapped", "off_by_one"}
    assert np.allclose(nested["relative"].value, [1.001, 2.002]) and nested["relative"].epoch == 3
    assert nested["off_by_one"].epoch == 4 and nested["off_by_one"].label == "a"


def test_a_named_result_changes_in_one_field(tool):
    result = Result(np.array([1.0, 2.0]), 3, "a")
    changed = tool._perturbed_result(result, "epoch", "off_by_one")
    assert changed.epoch == 4 and changed.value is result.value and changed.label == "a"
    assert tool._perturbed_result(result, "label", "relative") is None  # nothing fits a string
    assert tool.fields_of(lambda: None) == ("value",)

    def named() -> Result:
        return result

    assert tool.fields_of(named) == ("value", "epoch", "label")


def test_a_replaced_function_is_seen_everywhere_and_restored(tool):
    def original():
        return 1.0

    holder = types.ModuleType("holder_of_original")
    holder.f = original
    sys.modules[holder.__name__] = holder
    try:
        applied = []
        with tool.replaced(original, tool._with_perturbation(original, "value", "relative", applied)):
            assert holder.f() == pytest.approx(1.001) and applied == [1]
            late = types.ModuleType("late_importer")  # a module that binds the name inside the block
            late.g = holder.f
            sys.modules[late.__name__] = late
        assert holder.f is original and late.g is original
    finally:
        sys.modules.pop("holder_of_original", None)
        sys.modules.pop("late_importer", None)


def test_a_field_that_repeats_a_setting_is_an_input_echo(tool):
    class Config(NamedTuple):
        learning_rate: float
        seed: int

    def train(config: Config, n_epochs: int) -> Result:
        return Result(np.zeros(2), n_epochs, "a")

    names = tool._settings_of(train)
    assert {"config", "epochs", "learning_rate", "learning_rates", "seed", "seeds", "epoch"} <= names
    assert "value" not in names and "label" not in names
