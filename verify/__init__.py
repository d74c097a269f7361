"""The theory verifier: every proposition of the sources as an executable claim.

``python -m verify`` runs the fast claims and prints one row per claim. Claims live in one module
per theory (``verify/<theory>.py``) and torch cross-checks in ``verify/crosscheck/``; both are found
by :func:`verify.registry.load_all`.
"""
from .registry import REGISTRY, Check, Claim, ClaimResult, claim, load_all, run_claim, run_claims, select

__all__ = ["REGISTRY", "Check", "Claim", "ClaimResult", "claim", "load_all", "run_claim", "run_claims", "select"]
