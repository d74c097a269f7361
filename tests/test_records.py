"""Reproduction records (dynamics.numerics.records, verify.records): the file format reads back exactly and refuses
edited content, the code hash sees code and ignores documentation, and every planned record is committed, loads,
and holds its plan's config and seeds."""
import json
import sys
from typing import NamedTuple, Optional

import numpy as np
import pytest

from dynamics.numerics.records import FORMAT, code_hash, decode, encode, read_record, write_record


class _Config(NamedTuple):
    sizes: tuple = (3, 4)
    rate: float = 0.1
    batch: Optional[int] = None
    name: str = "x"


class _Result(NamedTuple):
    curve: np.ndarray
    steps: np.ndarray
    flags: np.ndarray
    label: str


def _content(result):
    return {"format": FORMAT, "name": "t.x", "source": "S", "trainer": "m:f", "reduced": "r",
            "config": encode(_Config()), "seeds": [1, 2], "result": encode(result),
            "replay": {"config": encode(_Config(rate=0.2)), "result": encode(result)},
            "verdict": ["reproduced", "text"]}


def _result():
    rng = np.random.default_rng(0)
    curve = rng.standard_normal((2, 3)).astype(np.float32)
    curve[0, 0] = np.nan
    return _Result(curve, np.arange(3), np.array([True, False]), "label")


def test_values_read_back_exactly_with_their_types():
    result = _result()
    back = decode(encode(result))
    assert type(back) is _Result
    for a, b in zip(result[:3], back[:3]):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    assert decode(encode(_Config(batch=8))) == _Config(batch=8)
    large = np.random.default_rng(1).standard_normal((3, 2000)).astype(np.float32)
    large[0, :5] = (np.nan, np.inf, -np.inf, 0.0, -0.0)
    stored = encode(large)
    assert "zlib" in stored and np.array_equal(decode(stored), large, equal_nan=True)
    assert decode(stored).dtype == np.float32 and np.signbit(decode(stored)[0, 4])
    assert decode(encode((0.1 + 0.2, float("inf"), None))) == (0.1 + 0.2, float("inf"), None)  # repr round trip
    with pytest.raises(TypeError, match="cannot store"):
        encode({1, 2})


def test_a_record_reads_back_and_refuses_edited_content(tmp_path):
    path = write_record(tmp_path / "t.x.json", _content(_result()), {"device": "cpu"})
    record = read_record(path)
    assert record.config == _Config() and record.seeds == (1, 2) and record.verdict == ("reproduced", "text")
    assert np.array_equal(record.result.curve, _result().curve, equal_nan=True)
    stored = json.loads(path.read_text())
    stored["result"]["fields"]["curve"]["data"][1] += 1e-6  # one number changed by hand
    path.write_text(json.dumps(stored))
    with pytest.raises(ValueError, match="hash"):
        read_record(path)
    stored["format"] = FORMAT + 1
    path.write_text(json.dumps(stored))
    with pytest.raises(ValueError, match="format"):
        read_record(path)
    with pytest.raises(ValueError, match="reduced"):
        write_record(tmp_path / "y.json", {k: v for k, v in _content(_result()).items() if k != "reduced"}, {})


def test_the_code_hash_sees_code_and_ignores_docstrings_and_comments(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    hashes = []
    for text in ('"""One."""\ndef f(x):\n    """Doc."""\n    return 2 * x\n',
                 '"""Two."""\ndef f(x):\n    """Changed doc."""\n    # a comment\n    return 2 * x\n',
                 '"""One."""\ndef f(x):\n    """Doc."""\n    return 3 * x\n'):
        (tmp_path / "_hash_probe.py").write_text(text)
        sys.modules.pop("_hash_probe", None)
        hashes.append(code_hash(["_hash_probe"]))
    sys.modules.pop("_hash_probe", None)
    assert hashes[0] == hashes[1] != hashes[2]
    for bad in ([], [3], [""]):
        with pytest.raises(ValueError, match="modules"):
            code_hash(bad)


torch = pytest.importorskip("torch")


def test_every_planned_record_is_committed_and_holds_its_plan():
    from verify import records

    plans = records.load_plans()
    assert plans, "no record is planned"
    for name, plan in plans.items():
        record = records.load_record(name)
        assert record.name == name and record.source == plan.source
        assert record.config in (plan.config, plan.cuda_config), name
        assert record.seeds == tuple(plan.seeds) and len(record.seeds) >= 5, name
        assert record.verdict[0] in records.VERDICTS
        assert tuple(record.verdict) == tuple(plan.judge(record.result)), name
        assert record.replay_config == plan.replay(record.config)


def test_the_record_claim_fails_when_the_trainer_code_is_not_the_code_that_made_the_record():
    from verify import records

    plan = next(iter(records.load_plans().values()))
    moved = plan._replace(code=plan.code + ("dynamics.numerics.records",))
    check = records.check_record(moved)
    assert not check.passed and "code changed" in check.detail


def test_the_reproduction_table_lists_every_experiment_and_record_once_with_its_verdict():
    from verify import records
    from verify.registry import load_all

    table = records.reproduction_table()
    summary = table.split("## The records")[0]
    experiments = [c.id for c in load_all().values() if c.kind == "experiment" and ".record_" not in c.id]
    rows = summary.strip().splitlines()[2:]
    plans = records.load_plans()
    covered = {plan.ci_claim for plan in plans.values()}  # a sweep's claim too; one claim can check several records
    unrecorded = [claim_id for claim_id in experiments if claim_id not in covered]
    # one row per record (a source figure), one per experiment that has none
    assert len(rows) == len(plans) + len(unrecorded)
    for claim_id in unrecorded:
        assert sum(f"<claim-{claim_id}>" in row for row in rows) == 1, claim_id
    for claim_id in covered:
        assert sum(f"<claim-{claim_id}>" in row for row in rows) == sum(
            plan.ci_claim == claim_id for plan in plans.values()), claim_id
    for name in plans:
        verdict = records.load_record(name).verdict
        assert sum(f"**{verdict[0]}**" in row and records.PLANS[name].source in row for row in rows) == 1, name
        assert verdict[1] in table.split("## The records")[1], name
