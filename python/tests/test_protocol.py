"""Protocol lines both ways, and run_bot speaking the protocol."""

import csv
import io
import os
import subprocess
import sys
import textwrap
import unicodedata

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


# Texts a bot may log: longer than a line, multi-byte characters that a cut at
# the limit would split, escape sequences, newlines, a bell, an 8-bit CSI.
HOSTILE_TEXTS = [
    "x" * 10_000,
    "é" * 5_000,
    "a" + "€" * 3_000,
    "\x1b[2J\x1b[H PASS\x07 fake\nsecond line\r\n",
    "\u009b31m red",
    "tab\tkept",
    "\x00" * 2_000,
]


def refused_characters(line):
    """Characters the referee refuses in a line (protocol.md §1): every
    control character but the tab."""
    return [c for c in line if unicodedata.category(c) == "Cc" and c != "\t"]


@pytest.mark.parametrize("text", HOSTILE_TEXTS)
@pytest.mark.parametrize("pv", [None, ["e5", "e4"], ["e5"] * 2_000])
def test_format_info_never_writes_a_line_the_referee_refuses(text, pv):
    line = uttt.format_info(depth=7, score=-0.25, nodes=10**12, pv=pv, text=text)
    assert len(line.encode()) <= uttt.MAX_LINE_BYTES
    assert refused_characters(line) == []
    reply = uttt.parse_reply(line)  # the referee's own parser
    assert reply.kind == "info"
    assert (reply.depth, reply.score, reply.nodes) == (7, -0.25, 10**12)


def test_format_info_escapes_control_characters_and_marks_a_cut():
    line = uttt.format_info(text="\x1b[2J\nnext")
    assert line == "info string \\x1b[2J\\nnext"
    long = uttt.format_info(text="é" * 5_000)
    assert len(long.encode()) <= uttt.MAX_LINE_BYTES
    assert long.endswith("é…")
    assert uttt.format_info(text="ok") == "info string ok"


@pytest.mark.skipif(not os.environ.get("ARENA"), reason="set ARENA to the arena binary")
def test_a_bot_logging_long_hostile_info_lines_plays_whole_games(tmp_path):
    """Issue 46 §3: a bot that logged with format_info lost every game as
    malformed-output once its text passed 4096 bytes or held a control
    character."""
    bot = tmp_path / "chatty.py"
    bot.write_text(
        "import random, sys, uttt\n"
        "def choose(position):\n"
        "    move = random.choice(position.legal_moves())\n"
        "    print(uttt.format_info(pv=[move], text='\\x1b[2J' + 'é' * 5000 + '\\n'), flush=True)\n"
        "    return move\n"
        "uttt.run_bot(choose, name='chatty')\n"
    )
    out = tmp_path / "out"
    run = subprocess.run(
        [os.environ["ARENA"], "match", f"chatty={sys.executable} {bot}", "random",
         "--games", "2", "--time", "2000", "--out", str(out),
         # pytest's directories are private to their owner: no uid of its own.
         "--sandbox", "rlimits"],
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    with open(out / "games.csv", newline="") as f:
        games = list(csv.DictReader(f))
    assert len(games) == 2
    for game in games:
        assert game["reason"] in ("three-in-a-row", "no-moves"), game["detail"]
