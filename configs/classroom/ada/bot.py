#!/usr/bin/env python3
"""
Starter bot for uttt-arena (Ultimate Tic-Tac-Toe), in Python 3.

It plays a random legal move. Make it better by editing choose_move() below:
that is the only function you need to touch.

Run it in a match:   arena match "python3 bots/starters/python/starter.py" random
Check it:            arena check "python3 bots/starters/python/starter.py"

How the bot talks to the arena (all of it is in protocol.md):
  - The arena (the "referee") writes one line at a time to our standard input.
  - We answer by printing lines to standard output, flushing after each one.
  - Anything for humans (debugging!) goes to standard error, never to stdout.

Standard library only: copy this file anywhere and it runs.
"""

import os
import random
import sys

BOT_NAME = "PyStarter"        # change me: shown in tournament tables
BOT_AUTHOR = "your name"      # change me too


# =============================================================================
#  WRITE YOUR STRATEGY HERE
# =============================================================================
def choose_move(legal, last, history, time_ms, my_mark, rng):
    """Pick the square to play.

    legal   -- the squares you may play now, e.g. ["d4", "e4", "f4"].
               Never empty. Whatever you return MUST be one of these.
    last    -- the move just played (usually your opponent's), e.g. "e5",
               or None if you make the very first move of the game.
    history -- every move of the game so far, oldest first. X always moves
               first, so history[0], history[2], ... are X's moves and
               history[1], history[3], ... are O's.
    time_ms -- milliseconds you have for this move. The clock started before
               you got the request: answer well before it runs out.
    my_mark -- "X" or "O".
    rng     -- a random number generator seeded by the arena. Use it (not the
               `random` module directly) and every game can be replayed.

    Squares are a column a-i (left to right) and a row 1-9 (top to bottom) of
    the whole 9x9 grid: "a1" is the top-left corner, "e5" the very centre.
    board_and_cell() below turns a square into (board, cell) numbers.
    """
    # Ideas to try, from easy to hard:
    #   1. If a move wins a small board, play it.
    #   2. Don't send your opponent to a board where they can win.
    #   3. Search ahead (minimax), or play random games from each move and
    #      keep the move that wins most often (Monte Carlo).
    return rng.choice(legal)


def board_and_cell(square):
    """'h2' -> (3, 5): the small board (1-9) and the cell inside it (1-9), both
    numbered in reading order (1 = top-left, 5 = centre, 9 = bottom-right).
    Your cell number is the board your opponent must play in next."""
    column = "abcdefghi".index(square[0])      # 0-8, left to right
    row = int(square[1]) - 1                   # 0-8, top to bottom
    board = (row // 3) * 3 + column // 3 + 1
    cell = (row % 3) * 3 + column % 3 + 1
    return board, cell


# =============================================================================
#  Talking to the arena. You should not need to change anything below.
# =============================================================================
def send(line):
    """Write one line to the arena. flush=True matters: without it Python keeps
    the line in a buffer and the arena never sees your move (you lose on time)."""
    print(line, flush=True)


def log(text):
    """Debug output: goes to stderr, which the arena keeps in its logs. Never
    print debug text to stdout: the arena would read it as your move."""
    print(f"[{BOT_NAME}] {text}", file=sys.stderr, flush=True)


def number(text, default):
    """'100' -> 100; anything that is not a whole number -> default."""
    return int(text) if text is not None and text.isdigit() else default


def squares(text):
    """'d4,e4,f4' -> ['d4', 'e4', 'f4']; 'none' -> []."""
    return [] if text in (None, "none") else text.split(",")


def main():
    my_mark = "X"
    rng = random.Random(0)

    # The arena sends one command per line. We read until it says `quit` or
    # closes our input (end of file).
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue  # ignore empty lines
        # "go time 100 last e5" -> command "go", fields {"time": "100", "last": "e5"}
        command, fields = words[0], dict(zip(words[1::2], words[2::2]))
        # Later protocol versions may add fields: we only read the ones we know,
        # so unknown fields are ignored automatically.

        if command == "uttt":
            # Hello from the arena ("uttt 1"). Introduce ourselves, then `ready`.
            if words[1:] != ["1"]:
                log(f"expected protocol version 1, got {line.strip()!r}; trying anyway")
            send(f"id name {BOT_NAME}")
            send(f"id author {BOT_AUTHOR}")
            send("ready")

        elif command == "newgame":
            # A new game starts: reset everything that belongs to one game.
            # One process may play many games in a row.
            my_mark = fields.get("mark", "X")
            rng = random.Random(number(fields.get("seed"), 0))
            log(f"new game as {my_mark} against {fields.get('opponent', '?')}")

        elif command == "go":
            # Our turn: answer with exactly one square from `legal`.
            move = choose_move(
                legal=squares(fields.get("legal")),
                last=None if fields.get("last", "none") == "none" else fields["last"],
                history=squares(fields.get("moves")),
                time_ms=number(fields.get("time"), 0),
                my_mark=my_mark,
                rng=rng,
            )
            send(move)

        elif command == "gameover":
            # No answer expected. Nice place to log how it went.
            log(f"game over: result {fields.get('result')} ({fields.get('reason')})")

        elif command == "quit":
            break

        else:
            log(f"ignoring unknown command: {line.strip()!r}")


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        # The arena closed our output (or you pressed Ctrl-C): stop quietly.
        # Pointing stdout at /dev/null stops Python's final flush complaining.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(0)
