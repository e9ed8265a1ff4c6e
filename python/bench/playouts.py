"""Random playouts per second from Python: the `uttt` package (the arena's engine)
against the starter kit's pure-Python rules (bots/starters/python/rules.py), in
the same process, from the same positions.

    python3 python/bench/playouts.py [--seconds 3]

Three ways, each a loop of whole games from the empty board under standard rules:
  package, Python loop  Position.play + legal_moves + random.choice, per move in Python
  package, in engine    Position.random_playout(seed): the whole game in the engine
  pure Python           rules.py's play_in_place + legal_moves + random.choice
The figure is playouts per second; the ratios are against pure Python.
"""

import argparse
import importlib.util
import pathlib
import random
import time

import uttt

REPO = pathlib.Path(__file__).resolve().parents[2]


def load_rules():
    path = REPO / "bots" / "starters" / "python" / "rules.py"
    spec = importlib.util.spec_from_file_location("starter_rules", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rate(playout, seconds):
    """Playouts per second of `playout(i)` over about `seconds`."""
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        playout(done)
        done += 1
    return done / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per way")
    seconds = parser.parse_args().seconds
    rules = load_rules()
    rng = random.Random(1)
    empty = uttt.Position()

    def package_loop(_):
        p = empty
        while not p.is_over:
            p = p.play(rng.choice(p.legal_moves()))

    def package_engine(i):
        empty.random_playout(i)

    def pure(_):
        p = rules.Position()
        while not p.is_over:
            p.play_in_place(rng.choice(p.legal_moves()))

    results = [
        ("package, Python loop", rate(package_loop, seconds)),
        ("package, in engine", rate(package_engine, seconds)),
        ("pure Python", rate(pure, seconds)),
    ]
    base = results[-1][1]
    print(f"{'way':<22} {'playouts/s':>12} {'vs pure Python':>15}")
    for name, value in results:
        print(f"{name:<22} {value:>12,.0f} {value / base:>14.1f}x")


if __name__ == "__main__":
    main()
