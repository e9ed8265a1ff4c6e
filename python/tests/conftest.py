"""Shared helpers: the repository's paths and the pure-Python rules of the starter kit."""

import importlib.util
import itertools
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
HOUSE = ("open-won-boards", "draws-count-both", "most-boards")

# Every rule set: standard and each combination of house rules.
ALL_RULES = ["standard"] + [
    "+".join(combo) for n in (1, 2, 3) for combo in itertools.combinations(HOUSE, n)
]


def load_starter_rules():
    """bots/starters/python/rules.py, the dependency-free rules."""
    path = REPO / "bots" / "starters" / "python" / "rules.py"
    spec = importlib.util.spec_from_file_location("starter_rules", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def starter_rules():
    return load_starter_rules()
