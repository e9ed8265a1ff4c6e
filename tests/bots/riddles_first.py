#!/usr/bin/env python3
"""A bot in the TheAIGames / Riddles.io Ultimate Tic-Tac-Toe dialect that plays the
first playable empty cell.

    riddles_first.py

The engine sends `settings` lines once, `update game` lines before every request,
then `action move <timebank ms>`:

    settings timebank 10000
    settings time_per_move 500
    settings player_names player1,player2
    settings your_bot player1
    settings your_botid 1
    update game round 1
    update game move 1
    update game field 0,0,0,...            81 cells, row by row from the top left
    update game macroboard -1,-1,...       9 boards, row by row; -1 = you may play here
    action move 10000

The bot answers `place_move <column> <row>` (0-8 each; column first!). Two spellings
of the field exist: TheAIGames (2016) writes empty cells as `0` and the bots as `1`
and `2`; Riddles.io (2017) writes empty cells as `.` and the bots as `0` and `1`.
A field with any `.` in it is read the Riddles way, otherwise the TheAIGames way.
The bot answers `pass` if no cell is playable. Other lines are reported on stderr
and ignored. It exits 0, quietly, when its input ends. Standard library only.
"""

import os
import sys


def first_move(field, macroboard):
    """(column, row) of the first empty cell, in reading order, inside a board the
    macroboard marks playable (-1); None if there is none."""
    empty = "." if "." in field else "0"
    for row in range(9):
        for col in range(9):
            board = (row // 3) * 3 + col // 3
            if macroboard[board] == "-1" and field[row * 9 + col] == empty:
                return col, row
    return None


def main():
    settings, game = {}, {}
    for line in sys.stdin:
        words = line.split()
        if len(words) == 3 and words[0] == "settings":
            settings[words[1]] = words[2]
        elif len(words) == 4 and words[0] == "update" and words[1] == "game":
            game[words[2]] = words[3]
        elif len(words) == 3 and words[0] == "action" and words[1] == "move":
            field = game.get("field", "").split(",")
            macroboard = game.get("macroboard", "").split(",")
            move = None
            if len(field) == 81 and len(macroboard) == 9:
                move = first_move(field, macroboard)
            else:
                print("riddles_first: no complete field and macroboard yet", file=sys.stderr)
            sys.stdout.write("pass\n" if move is None else f"place_move {move[0]} {move[1]}\n")
            sys.stdout.flush()
        elif words:
            print(f"riddles_first: ignoring {line.strip()!r}", file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # silence the final flush
        except OSError:
            pass
    sys.exit(0)
