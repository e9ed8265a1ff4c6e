#!/usr/bin/env python3
"""Two deliberately simple bots unlike the reference levels, for the predictions
benchmark (tools/predict/run.sh, bots/BENCHMARKS.md "Predictions of the scale"):

    python3 tools/predict/styles.py tactics   # takes what is there, never plans
    python3 tools/predict/styles.py centre    # centre-first, never counts

tactics: wins the game if it can, else claims a board, else blocks a board the
opponent could claim where it must play, else a random move. It never looks at
where its move sends the opponent (greedy, level 4's engine, weighs exactly that).

centre: plays the centre cell of the board it is sent to, else a corner of it, else
any cell, each time choosing among them at random, and wins the game or claims a
board only when that move is also a centre or corner. A positional player with no
tactics at all.

Both speak the arena's own protocol (protocol.md) and play the standard rules; the
legal moves come from the referee. Moves are drawn from the game's seed, so a game
replays exactly. Standard library only, one file (the sandbox lets a bot read its
own folder).
"""

import os
import random
import sys

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
CORNERS = (0, 2, 6, 8)


def place(square):
    """'h2' -> (board, cell), both 0-8 in reading order."""
    column, row = "abcdefghi".index(square[0]), int(square[1]) - 1
    return (row // 3) * 3 + column // 3, (row % 3) * 3 + column % 3


def line_in(places):
    return any(all(p in places for p in line) for line in LINES)


class Board:
    """What the two styles need to know of a standard-rules game: each small
    board's marks, who claimed which board, and whose turn it is. The legal moves
    come from the referee's `go` line, so the send rule is not needed here."""

    def __init__(self, moves):
        self.marks = [dict() for _ in range(9)]   # board -> {cell: "X" | "O"}
        self.claimed = [None] * 9                  # board -> "X" | "O" | None
        self.to_move = "X"
        for square in moves:
            board, cell = place(square)
            self.marks[board][cell] = self.to_move
            if self.claimed[board] is None and self.line(board, self.to_move):
                self.claimed[board] = self.to_move
            self.to_move = "O" if self.to_move == "X" else "X"

    def line(self, board, mark, extra=None):
        """Whether `mark` has a line on `board`, with `extra` cell added."""
        places = {c for c, m in self.marks[board].items() if m == mark}
        if extra is not None:
            places.add(extra)
        return line_in(places)

    def claims(self, square, mark=None):
        """Whether marking `square` claims its board for `mark` (the mover)."""
        board, cell = place(square)
        return self.claimed[board] is None and self.line(board, mark or self.to_move, cell)

    def opponent_claims(self, square):
        return self.claims(square, "O" if self.to_move == "X" else "X")

    def wins(self, square):
        """Whether marking `square` wins the game for the mover."""
        if not self.claims(square):
            return False
        boards = {b for b in range(9) if self.claimed[b] == self.to_move}
        return line_in(boards | {place(square)[0]})


def tactics(board, legal, rng):
    for test in (board.wins, board.claims, board.opponent_claims):
        chosen = [s for s in legal if test(s)]
        if chosen:
            return rng.choice(chosen)
    return rng.choice(legal)


def centre(board, legal, rng):
    for places in ((4,), CORNERS):
        chosen = [s for s in legal if place(s)[1] in places]
        if chosen:
            winning = [s for s in chosen if board.wins(s) or board.claims(s)]
            return rng.choice(winning or chosen)
    return rng.choice(legal)


STYLES = {"tactics": tactics, "centre": centre}


def main():
    style = sys.argv[1] if len(sys.argv) > 1 else ""
    if style not in STYLES:
        sys.exit(f"usage: styles.py {'|'.join(STYLES)}")
    choose = STYLES[style]
    rng = random.Random(0)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command, fields = words[0], dict(zip(words[1::2], words[2::2]))
        if command == "uttt":
            print(f"id name {style}", flush=True)
            print("ready", flush=True)
        elif command == "newgame":
            seed = fields.get("seed", "0")
            rng = random.Random(int(seed) if seed.isdigit() else 0)
        elif command == "go":
            moves, legal = fields.get("moves", "none"), fields.get("legal", "none")
            board = Board([] if moves == "none" else moves.split(","))
            print(choose(board, legal.split(","), rng), flush=True)
        elif command == "quit":
            break


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(0)
