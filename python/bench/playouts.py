"""Random playouts per second from Python: the `uttt` package (the arena's engine)
against the starter kit's pure-Python rules (bots/starters/python/rules.py), in
the same process, from the same positions.

    python3 python/bench/playouts.py [--seconds 10] [--rounds 20]

Three ways, each a loop of whole games from the empty board under standard rules:
  package, Python loop  Position.play + legal_moves + random.choice, per move in Python
  package, in engine    Position.random_playout(seed): the whole game in the engine
  pure Python           rules.py's play_in_place + legal_moves + random.choice
The ways take turns in short rounds, so a busy machine slows them alike; each
figure is the median over the rounds of playouts per second, and each ratio the
median of the per-round ratios against pure Python.
"""

import argparse
import importlib.util
import pathlib
import random
import statistics
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
    parser.add_argument("--seconds", type=float, default=10.0, help="time per way, in all")
    parser.add_argument("--rounds", type=int, default=20, help="turns each way takes")
    args = parser.parse_args()
    slice_ = args.seconds / args.rounds
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

    ways = [
        ("package, Python loop", package_loop),
        ("package, in engine", package_engine),
        ("pure Python", pure),
    ]
    rates = {name: [] for name, _ in ways}
    for _ in range(args.rounds):
        for name, playout in ways:
            rates[name].append(rate(playout, slice_))
    base = rates["pure Python"]
    print(f"{'way':<22} {'playouts/s':>12} {'vs pure Python':>15}   ({args.rounds} rounds)")
    for name, _ in ways:
        ratio = statistics.median(r / b for r, b in zip(rates[name], base))
        print(f"{name:<22} {statistics.median(rates[name]):>12,.0f} {ratio:>14.1f}x")


if __name__ == "__main__":
    main()
