"""The package against the rules the referee uses: random games under every rule
set replayed by the starter kit's independent pure-Python rules (every legal
move, board and result must agree), and move counts (perft) from `arena perft`,
the engine's own count in the arena binary, when $ARENA names it."""

import os
import random
import subprocess

import pytest

from conftest import ALL_RULES
from uttt import Position

GAMES_PER_RULES = 150


@pytest.mark.parametrize("rules", ALL_RULES)
def test_random_games_agree_with_the_pure_python_rules(rules, starter_rules):
    rng = random.Random(rules)
    for _ in range(GAMES_PER_RULES):
        engine, naive = Position(rules), starter_rules.Position(rules)
        while True:
            assert engine.legal_moves() == naive.legal_moves(), str(engine)
            assert engine.side_to_move == naive.side_to_move
            assert engine.is_over == naive.is_over, str(engine)
            assert engine.winner == naive.winner, str(engine)
            boards = ["drawn" if b == "drawn" else b or "open" for b in naive.owner]
            assert engine.boards() == boards, str(engine)
            if engine.is_over:
                break
            move = rng.choice(engine.legal_moves())
            engine = engine.play(move)
            naive.play_in_place(move)


def perft(position, depth):
    if depth == 0:
        return 1
    if depth == 1:
        return position.legal_count()
    return sum(perft(position.play(m), depth - 1) for m in position.legal_moves())


@pytest.mark.skipif(not os.environ.get("ARENA"), reason="set ARENA to the arena binary")
@pytest.mark.parametrize("rules", ALL_RULES)
def test_move_counts_agree_with_arena_perft(rules):
    moves = "e5 e4 d2 a4"
    out = subprocess.run(
        [os.environ["ARENA"], "perft", "3", "--rules", rules, "--moves", moves],
        capture_output=True, text=True, check=True,
    ).stdout
    counts = [int(line.split()[1]) for line in out.splitlines()[1:]]
    start = Position.from_moves(moves, rules=rules)
    assert [perft(start, d) for d in (1, 2, 3)] == counts
