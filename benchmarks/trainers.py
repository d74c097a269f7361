"""Every experiment trainer of the torch layer, before and after a change of the code, timed in one run.

``--before REV`` checks the revision REV out into a temporary git worktree; each trainer is then run at a small,
fixed size in fresh processes that alternate between that tree and the working tree (``PYTHONPATH`` selects the
tree), each process timing the minimum of ``--repeats`` calls after one uncounted call (imports, numba compilation,
torch's first-call costs), with the disk cache off and one thread everywhere (as the trainers run). The table gives
the time of each and the ratio after/before, the figure to read: above 1 means slower after the change. The
machine's load is the same for both sides of a row, which alternate round by round.

A workload names the call in each tree's API (the trainers' signatures may change between revisions), as one
expression: the "before" call is the API of the revisions before the config objects (416eec2 and older); with
``--same-api`` both trees get the working tree's call (for a revision that already has the configs).

Run: python benchmarks/trainers.py --before 416eec2 [--rounds 3] [--repeats 3] [--only NAME] [--same-api]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: name -> (setup code, call in the "before" tree, call in the working tree); the setup runs in both.
WORKLOADS = {
    "spurious.parity_training_runs": (
        "from dynamics.spurious import torch_experiments as m; import dynamics.spurious as sp",
        "m.parity_training_runs([0.05, 0.2], [0, 1], momentum=0.5, l2=1e-3, n_train=400, n_test=200, n_core=4, "
        "width=32, epoch_cap=4, batch_size=50, n_attribution_inputs=50)",
        "m.parity_training_runs([0.05, 0.2], [0, 1], sp.ParityTrainingConfig(task=sp.ParityTaskConfig(n_train=400, "
        "n_test=200, n_core=4), momentum=0.5, l2=1e-3, width=32, epoch_cap=4, batch_size=50, "
        "n_attribution_inputs=50))"),
    "spurious.parity_lr_sweep": (
        "from dynamics.spurious import torch_training as m; import dynamics.spurious as sp",
        "(m._PARITY_MEMO.clear(), m.parity_lr_sweep([0.1, 0.3], [0, 1, 2], n_train=400, n_test=200, width=32, "
        "epoch_cap=5, n_activation_inputs=50))",
        "(m._PARITY_MEMO.clear(), m.parity_lr_sweep([0.1, 0.3], [0, 1, 2], sp.ParitySweepConfig("
        "task=sp.ParityTaskConfig(n_train=400, n_test=200), width=32, epoch_cap=5, n_activation_inputs=50)))"),
    "spurious.train_balancing_methods": (
        "from dynamics.spurious import torch_balancing as m; import dynamics.spurious as sp",
        "m.train_balancing_methods(('erm', 'subg', 'rwg', 'jtt', 'gdro'), (0, 1), n_samples=200, n_noise=100, "
        "n_epochs=20, device='cpu')",
        "m.train_balancing_methods(('erm', 'subg', 'rwg', 'jtt', 'gdro'), (0, 1), sp.BalancingToyConfig(n_samples=200, "
        "n_noise=100, n_epochs=20), device='cpu')"),
    "starvation.moons_regularisers": (
        "from dynamics.starvation import torch_experiments as m; import dynamics.starvation as gs",
        "m.moons_regularisers(device='cpu', seeds=(0, 1), n_steps=40, hidden=32, grid_size=30)",
        "m.moons_regularisers(gs.MoonsRegularisersConfig(n_steps=40, hidden=32, grid_size=30), (0, 1), device='cpu')"),
    "starvation.train_coloured_shapes": (
        "from dynamics.starvation import torch_experiments as m; import dynamics.starvation as gs",
        "m.train_coloured_shapes(device='cpu', seeds=(0, 1), n_train=200, n_test=200, n_steps=40, hidden=16)",
        "m.train_coloured_shapes(gs.ColouredShapesConfig(n_train=200, n_test=200, n_steps=40, hidden=16), (0, 1), "
        "device='cpu')"),
    "and_mask.train_spiral_memorisation": (
        "from dynamics.and_mask import torch_experiments as m; import dynamics.and_mask as am",
        "m.train_spiral_memorisation(n_envs=8, n_samples_per_env=32, hidden=(32, 32), n_steps=60, n_test=200, "
        "seeds=[0, 1], device='cpu')",
        "m.train_spiral_memorisation(am.SpiralMemorisationConfig(n_envs=8, n_samples_per_env=32, hidden=(32, 32), "
        "n_steps=60, n_test=200), (0, 1), device='cpu')"),
    "and_mask.train_noisy_labels": (
        "from dynamics.and_mask import torch_experiments as m; import dynamics.and_mask as am",
        "m.train_noisy_labels((0.0, 0.5), 0.25, n_train=128, dim=8, hidden=(32,), batch_size=16, n_steps=60, "
        "n_test=200, seeds=[0, 1], device='cpu')",
        "m.train_noisy_labels(am.NoisyLabelsConfig(agreement_thresholds=(0.0, 0.5), shuffled_fraction=0.25, n_train=128, "
        "dim=8, hidden=(32,), batch_size=16, n_steps=60, n_test=200), (0, 1), device='cpu')"),
    "spherical.train_adam_variants": (
        "from dynamics.spherical import torch_experiments as m",
        "m.train_adam_variants(('Adam', 'AdamW', 'AdamG'), seeds=(0,), n_steps=40, device='cpu')",
        "m.train_adam_variants(m.AdamVariantsConfig(('Adam', 'AdamW', 'AdamG'), n_steps=40), (0,), device='cpu')"),
    "spherical.train_adam_variants, 4 seeds": (
        "from dynamics.spherical import torch_experiments as m",
        "m.train_adam_variants(('Adam', 'AdamW', 'AdamG'), seeds=(0, 1, 2, 3), n_steps=40, device='cpu')",
        "m.train_adam_variants(m.AdamVariantsConfig(('Adam', 'AdamW', 'AdamG'), n_steps=40), (0, 1, 2, 3), "
        "device='cpu')"),
}

_CHILD = r"""
import json, sys, time
import torch
torch.set_num_threads(1)
{setup}
run = lambda: {call}
run()
times = []
for _ in range({repeats}):
    start = time.perf_counter()
    run()
    times.append(time.perf_counter() - start)
print(json.dumps(min(times)))
"""


def _time(tree, setup, call, repeats):
    env = dict(os.environ, PYTHONPATH=str(tree), DYNAMICS_CACHE="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               NUMBA_NUM_THREADS="1", DYNAMICS_COMPILE_NOTICE="0")
    code = _CHILD.format(setup=setup, call=call, repeats=repeats)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tree, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{call[:60]}... failed in {tree}:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the git revision to compare the working tree with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default="", help="workloads whose name contains this string")
    parser.add_argument("--same-api", action="store_true", help="call the revision with the working tree's API")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        before = Path(folder) / "before"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(before), args.before], cwd=ROOT, check=True)
        try:
            print(f"before: {args.before}; after: the working tree. Minimum over {args.rounds} alternating rounds "
                  f"of the minimum of {args.repeats} calls, one thread.")
            print(f"{'trainer':38s} {'before':>9s} {'after':>9s} {'after/before':>13s}")
            for name, (setup, old, new) in WORKLOADS.items():
                if args.only not in name:
                    continue
                t_old, t_new = [], []
                for _ in range(args.rounds):
                    t_old.append(_time(before, setup, new if args.same_api else old, args.repeats))
                    t_new.append(_time(ROOT, setup, new, args.repeats))
                print(f"{name:38s} {min(t_old) * 1e3:7.0f}ms {min(t_new) * 1e3:7.0f}ms {min(t_new) / min(t_old):13.2f}")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, check=False)


if __name__ == "__main__":
    main()
