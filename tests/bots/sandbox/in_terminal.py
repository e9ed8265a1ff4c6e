#!/usr/bin/env python3
"""Runs a command the way a person at a terminal does, for tests/tests/sandbox.rs.

Usage: in_terminal.py PROGRAM ARGS...

The command gets a new pseudo-terminal as its controlling terminal (and as its
standard input, output and error). Everything the terminal showed, echoed input
included, is printed on standard output once the command and every process still
holding the terminal are done; the exit status is the command's (128 + N for a
signal).
"""
import os
import pty
import sys


def main():
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(sys.argv[1], sys.argv[1:])
    shown = bytearray()
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: nobody holds the terminal any more
            break
        if not data:
            break
        shown += data
    _, status = os.waitpid(pid, 0)
    sys.stdout.buffer.write(bytes(shown))
    sys.stdout.flush()
    code = os.waitstatus_to_exitcode(status)
    sys.exit(128 - code if code < 0 else code)


if __name__ == "__main__":
    main()
