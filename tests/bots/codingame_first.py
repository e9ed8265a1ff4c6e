#!/usr/bin/env python3
"""A bot in CodinGame's Ultimate Tic-Tac-Toe dialect that plays the first valid action.

    codingame_first.py [--message TEXT]

Each turn CodinGame's referee sends, one item per line:

    <opponentRow> <opponentCol>     "-1 -1" when this bot moves first in the game
    <validActionCount>
    <row> <col>                     validActionCount times

Rows and columns are 0-8 over the whole 9x9 grid (row 0 is the top). The bot answers
one line, `<row> <col>`, optionally followed by free text (`--message`), which
CodinGame shows as a speech bubble. Like a real CodinGame bot it has no handshake, no
game boundaries and no quit: it loops until its input ends (then exits 0, quietly).
Standard library only.
"""

import argparse
import os
import sys


def read_line():
    """The next line, stripped; None at end of input."""
    line = sys.stdin.readline()
    return None if line == "" else line.strip()


def read_ints(expected):
    """The next line as `expected` integers; None at end of input. Lines that do not
    fit are reported on stderr and skipped."""
    while True:
        line = read_line()
        if line is None:
            return None
        try:
            values = [int(word) for word in line.split()]
        except ValueError:
            values = []
        if len(values) == expected:
            return values
        print(f"codingame_first: skipping unexpected line {line!r}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--message", help="free text after the move, e.g. 'gl hf'")
    parser.add_argument("--tag", help="ignored: marks the process so tests can find leftovers")
    args = parser.parse_args()
    suffix = f" {args.message}" if args.message else ""

    while True:
        opponent = read_ints(2)  # the opponent's last move; unused by this bot
        count = read_ints(1)
        if opponent is None or count is None:
            return
        actions = []
        for _ in range(count[0]):
            action = read_ints(2)
            if action is None:
                return
            actions.append(action)
        if not actions:
            print("codingame_first: no valid action listed", file=sys.stderr)
            continue
        row, col = actions[0]
        sys.stdout.write(f"{row} {col}{suffix}\n")
        sys.stdout.flush()


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # silence the final flush
        except OSError:
            pass
    sys.exit(0)
