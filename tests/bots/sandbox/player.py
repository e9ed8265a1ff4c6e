#!/usr/bin/env python3
"""A well-behaved opponent for the sandbox tests: plays the first legal square.

Usage: player.py [--note TEXT] [--tag TAG] (the tag only marks the process for
leak checks). With --note it first writes TEXT to note.txt in its working
directory (its scratch directory), for an attacker to look for.
"""
import sys

if "--note" in sys.argv:
    with open("note.txt", "w") as note:
        note.write(sys.argv[sys.argv.index("--note") + 1])

for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uttt":
        print("id name player", flush=True)
        print("ready", flush=True)
    elif words[0] == "go":
        fields = dict(zip(words[1::2], words[2::2]))
        print(fields["legal"].split(",")[0], flush=True)
    elif words[0] == "quit":
        break
