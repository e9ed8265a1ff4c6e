"""Protocol lines both ways, and run_bot speaking the protocol."""

import io
import subprocess
import sys
import textwrap

import pytest

import uttt


def test_requests_are_read_and_written_back():
    lines = [
        "uttt 1",
        "newgame mark O rules open-won-boards+most-boards opponent mcts seed 18446744073709551615 movetime 100 firsttime 1000 margin 50 nodes 500",
        "go time 100 nodes 500 last e5 moves e5 legal d4,e4,f4,d5,f5,d6,e6,f6",
        "go time 900 clock 900 opclock 1200 last none moves none legal a1",
        "gameover result X reason three-in-a-row moves e5,e4",
        "quit",
    ]
    for line in lines:
        assert str(uttt.parse_request(line)) == line
    r = uttt.parse_request(lines[1])
    assert (r.kind, r.mark, r.rules, r.seed, r.movetime, r.nodes) == (
        "newgame", "O", "open-won-boards+most-boards", 2**64 - 1, 100, 500)
    go = uttt.parse_request(lines[2])
    assert (go.kind, go.time, go.last, go.moves, go.legal[:2]) == ("go", 100, "e5", ["e5"], ["d4", "e4"])
    clock = uttt.parse_request(lines[3])
    assert (clock.clock, clock.opclock, clock.last, clock.moves) == (900, 1200, None, [])
    assert uttt.parse_request("go time 5 colour blue last none moves none legal a1").legal == ["a1"]
    with pytest.raises(uttt.ParseError, match="unknown command 'dance'"):
        uttt.parse_request("dance now")


def test_replies_are_read_as_the_referee_reads_them():
    assert uttt.parse_reply("e5").square == "e5"
    assert uttt.parse_reply("resign").kind == "resign"
    i = uttt.parse_reply("info depth 7 score -0.25 nodes 12345 pv e5 e4 string hello there")
    assert (i.kind, i.depth, i.score, i.nodes, i.pv, i.text) == ("info", 7, -0.25, 12345, ["e5", "e4"], "hello there")
    assert uttt.parse_reply("id name Deep Tac Toe").text == "Deep Tac Toe"
    with pytest.raises(uttt.ParseError, match="'hello' is not a move"):
        uttt.parse_reply("hello")
    with pytest.raises(uttt.ParseError, match="rows are 1..9"):
        uttt.parse_reply("e0")
    line = uttt.format_info(depth=3, score=0.5, nodes=10, pv=["e5", "e4"], text="ok")
    assert line == "info depth 3 score 0.5 nodes 10 pv e5 e4 string ok"
    assert uttt.parse_reply(line).pv == ["e5", "e4"]


def session(choose_move, lines, **kwargs):
    out = io.StringIO()
    uttt.run_bot(choose_move, stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out, **kwargs)
    return out.getvalue().splitlines()


GAME = [
    "uttt 1",
    "newgame mark X rules standard opponent me seed 3 movetime 100 firsttime 1000 margin 50",
    "go time 1000 last none moves none legal " + ",".join(uttt.all_squares()),
    "go time 100 last e4 moves e5,e4 legal d1,e1,f1,d2,e2,f2,d3,e3,f3",
    "gameover result draw reason no-moves moves e5,e4",
    "quit",
    "go time 100 last none moves none legal a1",
]


def test_run_bot_does_the_handshake_and_answers_every_go_until_quit():
    seen = []

    def choose(position, request):
        seen.append((str(position), request.time))
        return "e5" if position.ply == 0 else position.legal_moves()[0]

    out = session(choose, GAME, name="t", author="me", version="1")
    assert out == ["id name t", "id author me", "id version 1", "ready", "e5", "d1"]
    assert seen == [("9/9/9/9/9/9/9/9/9 * x", 1000), ("9/9/9/4o4/4x4/9/9/9/9 2 x", 100)]


def test_run_bot_takes_a_one_argument_strategy_and_the_games_rules():
    rules = []

    def choose(position):
        rules.append(position.rules)
        return position.legal_moves()[-1]

    lines = [GAME[0], GAME[1].replace("rules standard", "rules most-boards"), GAME[2], "quit"]
    assert session(choose, lines)[-1] == "i9"
    assert rules == ["most-boards"]


def test_run_bot_refuses_an_illegal_move_with_the_reason():
    with pytest.raises(uttt.IllegalMoveError, match="choose_move returned a1, which is illegal: a1 is in the top-left board, but you must play in the top-middle board"):
        session(lambda p: "a1", GAME[:4])


def test_run_bot_seeds_random_with_the_games_seed():
    import random

    def choose(position):
        return random.choice(position.legal_moves())

    assert session(choose, GAME[:3]) == session(choose, GAME[:3])


def test_the_ten_line_starter_plays_a_game_over_real_pipes(tmp_path):
    from conftest import REPO

    starter = REPO / "bots" / "starters" / "python" / "starter_uttt.py"
    assert len([l for l in starter.read_text().splitlines() if l.strip() and not l.lstrip().startswith("#")]) <= 12
    proc = subprocess.run(
        [sys.executable, str(starter)],
        input="\n".join(GAME[:4] + ["quit"]) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] in ["d1", "e1", "f1", "d2", "e2", "f2", "d3", "e3", "f3"]
    assert "ready" in lines
