#!/usr/bin/env python3
"""A well-behaved uttt bot for the referee's tests: it does everything protocol.md
asks and nothing else.

    good.py [--name NAME] [--random | --last] [--say-uid] [--info LINE]
            [--stderr TEXT] [--delay MS]

It plays the first square of `legal` (`--last`: the last), so its games are fully
deterministic. With `--random` it plays a random legal square from a generator
seeded by `newgame`'s `seed`: still the same game for the same seeds. `--say-uid`
sends `info string uid=N` (the user it runs as) before every move, `--info LINE`
sends `info LINE`, `--stderr TEXT` writes TEXT to stderr once at start (the report
and live page tests pass markup through both), `--delay` waits before every move.
Standard library only; EOF and a
closed stdout end it quietly with status 0.
"""

import argparse
import os
import random
import sys
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--name", default="good", help="the name sent in `id name`")
    parser.add_argument("--tag", help="ignored: marks the process so tests can find leftovers")
    parser.add_argument("--random", action="store_true",
                        help="play a seeded random legal square instead of the first")
    parser.add_argument("--last", action="store_true",
                        help="play the last square of legal instead of the first")
    parser.add_argument("--info", metavar="LINE",
                        help="send 'info LINE' before every move")
    parser.add_argument("--stderr", metavar="TEXT",
                        help="write TEXT to stderr once, at start")
    parser.add_argument("--say-uid", action="store_true",
                        help="send 'info string uid=N' before every move")
    parser.add_argument("--delay", type=int, default=0, metavar="MS",
                        help="wait this many milliseconds before every move")
    args = parser.parse_args()

    def send(line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    if args.stderr is not None:
        print(args.stderr, file=sys.stderr, flush=True)
    rng = random.Random(0)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command, fields = words[0], dict(zip(words[1::2], words[2::2]))
        if command == "uttt":
            send(f"id name {args.name}")
            send("ready")
        elif command == "newgame":
            seed = fields.get("seed", "0")
            rng = random.Random(int(seed) if seed.isdigit() else 0)
        elif command == "go":
            legal = fields.get("legal", "").split(",")
            if legal == [""]:
                print("good: go without legal moves; resigning", file=sys.stderr)
                send("resign")
            else:
                time.sleep(args.delay / 1000)
                if args.say_uid:
                    send(f"info string uid={os.getuid()}")
                if args.info is not None:
                    send(f"info {args.info}")
                if args.random:
                    send(rng.choice(legal))
                else:
                    send(legal[-1] if args.last else legal[0])
        elif command == "quit":
            break
        elif command != "gameover":
            print(f"good: ignoring unknown command {command!r}", file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # silence the final flush
        except OSError:
            pass
    sys.exit(0)
