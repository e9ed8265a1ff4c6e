#!/usr/bin/env python3
"""A CodinGame-dialect bot that misbehaves on purpose, for the dialect tests.

    codingame_hostile.py <behaviour> [--tag TAG]

Behaviours (all act on the bot's first turn of a game; it never exits on its own):
  out-of-range   answers `9 9` (rows and columns are 0..8)      -> malformed-output
  occupied       answers the opponent's last move (occupied)     -> illegal-move
                 (as X with no last move, answers 0 0 twice: the second is occupied)
  sleep          never answers                                   -> timeout
  slow-start     waits 250 ms before its first answer of the process, as a bot
                 loading a book does, then plays the first valid action
                 (CodinGame allows 1000 ms for a first turn, 100 ms later)
"""

import argparse
import sys
import time


def read_ints():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return [int(x) for x in line.split()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("behaviour", choices=["out-of-range", "occupied", "sleep", "slow-start"])
    parser.add_argument("--tag", help="ignored: marks the process so tests can find leftovers")
    args = parser.parse_args()
    first = True
    while True:
        opponent = read_ints()
        count = read_ints()[0]
        actions = [read_ints() for _ in range(count)]
        if args.behaviour == "out-of-range":
            print("9 9", flush=True)
        elif args.behaviour == "occupied":
            if opponent != [-1, -1]:
                print(opponent[0], opponent[1], flush=True)
            elif first:
                print(actions[0][0], actions[0][1], flush=True)
                first = False
            else:
                print(actions[0][0], actions[0][1], flush=True)
        elif args.behaviour == "slow-start":
            if first:
                time.sleep(0.25)
                first = False
            print(actions[0][0], actions[0][1], flush=True)
        else:
            time.sleep(3600)


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
