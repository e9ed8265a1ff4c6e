#!/usr/bin/env python3
"""A student's submission that snoops outside its folder, for
tests/tests/hostile_submissions.rs.

    snoop.py [PATH ...]

It speaks the uttt protocol (answers `uttt 1` with `ready`, every `go` with the
first legal square). Before each move it sends one line,

    info string uid=N read:PATH=WHAT ... write:DIR=WHAT ...

- uid: the user it runs as (0 means root: the sandbox failed);
- read: each PATH of its command line and of the lines of `targets.txt` in its
  working directory, read: `GOT:<first line>` or the errno name (`EACCES`,
  `ENOENT`);
- write: a file `planted.txt` made in its working directory and beside this
  script: `OK` or the errno name.

What it read also goes to stderr, so a test can check that no secret reaches a
log or a feedback file. Standard library only; end of input ends it quietly.
"""

import errno
import os
import sys


def err_name(e):
    return errno.errorcode.get(getattr(e, "errno", None) or 0, type(e).__name__)


def targets():
    paths = list(sys.argv[1:])
    try:
        with open("targets.txt") as f:
            paths += [line.strip() for line in f if line.strip()]
    except OSError:
        pass
    return paths


def read(path):
    try:
        with open(path) as f:
            return "GOT:" + (f.readline().strip() or "(empty)")
    except Exception as e:  # noqa: BLE001 - every failure is a finding
        return err_name(e)


def write(directory):
    try:
        with open(os.path.join(directory, "planted.txt"), "w") as f:
            f.write("planted by a submission\n")
        return "OK"
    except Exception as e:  # noqa: BLE001
        return err_name(e)


def report():
    parts = [f"uid={os.getuid()}"]
    parts += [f"read:{p}={read(p)}" for p in targets()]
    here = os.path.dirname(os.path.abspath(__file__))
    for d in sorted({os.getcwd(), here}):
        parts.append(f"write:{d}={write(d)}")
    line = " ".join(parts)
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
    return line


def main():
    def send(text):
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    try:
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            if words[0] == "uttt":
                send("id name snoop")
                send("ready")
            elif words[0] == "go":
                legal = words[words.index("legal") + 1].split(",")
                send("info string " + report())
                send(legal[0])
            elif words[0] == "quit":
                break
    except (BrokenPipeError, KeyboardInterrupt):
        pass


if __name__ == "__main__":
    main()
