#!/usr/bin/env python3
"""Checks that the test bots in this directory, and the starter bots in
bots/starters/, do what their documentation says. Each check feeds a bot a scripted
session on stdin and looks at what comes back: bytes, exit status, signals, timing
(lower bounds only), processes left behind.

    python3 tests/bots/selftest.py [--only SUBSTRING] [--verbose]

Runs in about 10 s. The C++ starter is built with g++ into a temporary directory
and the JavaScript starter needs node; a missing tool fails the starter checks with
its name. Exit status 0 when every check passes. `cargo test -p uttt-tests` runs
this script.
"""

import argparse
import atexit
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import hostile  # noqa: E402  (the rules tracker and the behaviour list)

PY = sys.executable
HOSTILE = [PY, os.path.join(HERE, "hostile.py")]
GOOD = [PY, os.path.join(HERE, "good.py")]

HELLO = "uttt 1\n"
NEWGAME = "newgame mark X rules standard opponent t seed 1 movetime 100 firsttime 1000 margin 50\n"
GO = "go time 100 last none moves none legal a1,b2\n"
QUIT = "quit\n"
READY = [b"id name hostile-{}", b"id author uttt-arena tests", b"ready"]


class CheckFailed(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


# --------------------------------------------------------------------------------------
# Running bots
# --------------------------------------------------------------------------------------


def run(argv, stdin_text, timeout=10):
    """Runs a bot to completion on a scripted stdin; returns CompletedProcess."""
    data = stdin_text.encode() if isinstance(stdin_text, str) else stdin_text
    return subprocess.run(argv, input=data, capture_output=True, timeout=timeout)


def hostile_run(behaviour, *options, session=HELLO + NEWGAME + GO + QUIT):
    return run(HOSTILE + [behaviour, *options], session)


def after_ready(stdout, behaviour):
    """The lines a hostile bot wrote after its handshake (checks the handshake)."""
    lines = stdout.split(b"\n")
    head = [line.replace(b"{}", behaviour.encode()) for line in READY]
    expect(lines[:3] == head, f"handshake was {lines[:3]}")
    return b"\n".join(lines[3:])


class Proc:
    """A live bot process, for checks that must watch it while it runs. Its stderr
    is drained on a thread (and counted), as a referee would."""

    live = []

    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, start_new_session=True)
        self.buf = b""
        self.stderr_bytes = 0
        self.stderr_tail = b""
        threading.Thread(target=self._drain, daemon=True).start()
        Proc.live.append(self)

    def _drain(self):
        while True:
            chunk = os.read(self.p.stderr.fileno(), 1 << 16)
            if not chunk:
                return
            self.stderr_bytes += len(chunk)
            self.stderr_tail = (self.stderr_tail + chunk)[-4096:]

    def write(self, text):
        self.p.stdin.write(text.encode())
        self.p.stdin.flush()

    def _fill(self, deadline):
        """Reads more stdout; False at EOF. Raises on timeout."""
        left = deadline - time.monotonic()
        ready, _, _ = select.select([self.p.stdout], [], [], max(left, 0))
        if not ready:
            raise CheckFailed(f"no output in time; so far {self.buf[:80]!r}")
        chunk = os.read(self.p.stdout.fileno(), 1 << 16)
        self.buf += chunk
        return bool(chunk)

    def read_line(self, timeout=5):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            if not self._fill(deadline):
                raise CheckFailed(f"end of output; partial {self.buf[:80]!r}")
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def read_until(self, wanted, timeout=5):
        while True:
            line = self.read_line(timeout)
            if line == wanted:
                return

    def read_bytes(self, n, timeout=10):
        deadline = time.monotonic() + timeout
        while len(self.buf) < n:
            if not self._fill(deadline):
                break
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def is_eof(self, timeout=5):
        """True if stdout reaches end of file (after any pending bytes)."""
        deadline = time.monotonic() + timeout
        while True:
            if not self._fill(deadline):
                return True

    def quiet_for(self, seconds):
        """True if the bot writes nothing on stdout for `seconds`."""
        ready, _, _ = select.select([self.p.stdout], [], [], seconds)
        return not ready and not self.buf

    def alive(self):
        return self.p.poll() is None

    def kill(self):
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.p.wait()
        for f in (self.p.stdin, self.p.stdout):
            try:
                f.close()
            except OSError:
                pass


def proc_stat(pid):
    """(state, pgid, sid, cpu seconds) of a process from /proc, or None if gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    return fields[0], int(fields[2]), int(fields[3]), (int(fields[11]) + int(fields[12])) / ticks


def gone(pid):
    """Dead: no such process, or a zombie waiting to be reaped."""
    stat = proc_stat(pid)
    return stat is None or stat[0] in ("Z", "X")


def ignores_sigterm(pid):
    with open(f"/proc/{pid}/status") as f:
        ignored = int(next(line for line in f if line.startswith("SigIgn")).split()[1], 16)
    return bool(ignored & (1 << (signal.SIGTERM - 1)))


def wait_for(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def legal_after(moves):
    pos = hostile.Tracker([hostile.parse_square(m) for m in moves])
    return [hostile.square_name(sq) for sq in pos.legal()]


def go_line(moves, time_ms=100):
    last = moves[-1] if moves else "none"
    return (f"go time {time_ms} last {last} moves {','.join(moves) or 'none'} "
            f"legal {','.join(legal_after(moves))}\n")


# --------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


@check
def every_behaviour_is_documented():
    with open(os.path.join(HERE, "README.md")) as f:
        readme = f.read()
    expect(hostile.markdown_table() in readme,
           "README.md's table differs from `hostile.py --list`; paste the new table in")


@check
def good_plays_first_legal_and_quits():
    r = hostile_run("good")
    expect(after_ready(r.stdout, "good") == b"a1\n", r.stdout)
    expect(r.returncode == 0 and r.stderr == b"", (r.returncode, r.stderr))


@check
def unknown_commands_and_keys_are_ignored():
    session = HELLO + "frobnicate 1\n" + NEWGAME.replace("\n", " future 7\n") + GO + QUIT
    r = hostile_run("good", session=session)
    expect(after_ready(r.stdout, "good") == b"a1\n", r.stdout)
    expect(b"frobnicate" in r.stderr and r.returncode == 0, r.stderr)


@check
def fixed_answers():
    cases = {
        ("garbage",): b"hello\n",
        ("lies",): b"I win\n",
        ("out-of-range",): b"j4\n",
        ("resign",): b"resign\n",
        ("invalid-utf8",): b"\xff\xfe\n",
        ("say", "--text", "e4 f5"): b"e4 f5\n",
        ("say", "--text", "a\\x001\\x1b[0m"): b"a\x001\x1b[0m\n",
        ("two-moves",): b"a1\nb2\n",
        ("flood-info", "--count", "3"): b"info depth 1 string flood\ninfo depth 2 string flood\n"
                                         b"info depth 3 string flood\na1\n",
    }
    for args, want in cases.items():
        r = hostile_run(*args)
        got = after_ready(r.stdout, args[0])
        expect(got == want and r.returncode == 0, f"{args}: {got!r}, status {r.returncode}")


@check
def after_counts_moves_per_game():
    session = HELLO + NEWGAME + GO + GO + NEWGAME + GO + GO + QUIT
    r = hostile_run("garbage", "--after", "1", session=session)
    expect(after_ready(r.stdout, "garbage") == b"a1\nhello\na1\nhello\n", r.stdout)


@check
def line_endings():
    r = hostile_run("crlf")
    lines = r.stdout.split(b"\n")[:-1]
    expect(len(lines) == 4 and all(line.endswith(b"\r") for line in lines), r.stdout)
    expect(lines[3] == b"a1\r", r.stdout)
    r = hostile_run("trailing-space")
    lines = r.stdout.split(b"\n")[:-1]
    expect(len(lines) == 4 and all(line.endswith(b"  \t ") for line in lines), r.stdout)
    expect(lines[2] == b"ready  \t " and lines[3] == b"a1  \t ", r.stdout)


@check
def early_answers():
    r = hostile_run("early-answer", session=HELLO + NEWGAME + QUIT)
    expect(after_ready(r.stdout, "early-answer") == b"e5\n", r.stdout)
    r = hostile_run("early-answer-ready", session=HELLO + QUIT)
    expect(after_ready(r.stdout, "early-answer-ready") == b"e5\n", r.stdout)


@check
def bad_handshake_says_hello_first():
    r = hostile_run("bad-handshake")
    expect(r.stdout.startswith(b"hello\nid name hostile-bad-handshake\n"), r.stdout)


@check
def exits():
    r = hostile_run("exit-before-handshake")
    expect(r.returncode == 1 and r.stdout == b"", (r.returncode, r.stdout))
    r = hostile_run("exit0-mid", "--after", "1", session=HELLO + NEWGAME + GO + GO + GO)
    expect(r.returncode == 0 and after_ready(r.stdout, "exit0-mid") == b"a1\n", r.stdout)
    r = hostile_run("no-newline-exit")
    expect(r.returncode == 0 and after_ready(r.stdout, "no-newline-exit") == b"a1", r.stdout)


@check
def crash_signals():
    for name, signum in (("SEGV", signal.SIGSEGV), ("KILL", signal.SIGKILL), ("abrt", signal.SIGABRT)):
        args = ["--after", "1"] + (["--signal", name] if name != "SEGV" else [])
        r = hostile_run("crash-signal", *args, session=HELLO + NEWGAME + GO + GO + QUIT)
        expect(r.returncode == -signum, f"{name}: status {r.returncode}")
        expect(after_ready(r.stdout, "crash-signal") == b"a1\n", r.stdout)


@check
def hostile_text():
    for behaviour, session in (("stderr-escapes-exit", HELLO),
                               ("stderr-escapes-crash", HELLO + NEWGAME + GO)):
        r = hostile_run(behaviour, session=session)
        expect(r.returncode == 4, f"{behaviour}: status {r.returncode}")
        expect(r.stderr == hostile.TERMINAL_ESCAPES, f"{behaviour}: stderr {r.stderr!r}")
    r = hostile_run("info-after-move", "--count", "2")
    expect(after_ready(r.stdout, "info-after-move")
           == b"a1\ninfo depth 1 string between moves\ninfo depth 2 string between moves\n", r.stdout)
    r = hostile_run("formula-info")
    got = after_ready(r.stdout, "formula-info")
    expect(got.startswith(b"info score -35 string =HYPERLINK(") and got.endswith(b")\na1\n"), got)
    for size in (4096, 4097):
        r = hostile_run("long-info-crlf", *(["--bytes", str(size)] if size != 4096 else []))
        info, move = after_ready(r.stdout, "long-info-crlf").split(b"\n")[:2]
        expect(len(info) == size + 1 and info.endswith(b"\r") and info.startswith(b"info string x"),
               f"{size}: an info line of {len(info)} bytes")
        expect(move == b"a1", move)


def started(behaviour, *options, game=True):
    """A hostile bot past its handshake (and `newgame`)."""
    p = Proc(HOSTILE + [behaviour, *options])
    p.write(HELLO)
    p.read_until(b"ready")
    if game:
        p.write(NEWGAME)
    return p


@check
def no_newline_waits():
    p = started("no-newline")
    p.write(GO)
    expect(p.read_bytes(2) == b"a1", p.buf)
    expect(p.quiet_for(0.3) and p.alive(), "wrote more or exited")


@check
def close_stdout_keeps_running():
    p = started("close-stdout")
    p.write(GO)
    expect(p.is_eof(), "stdout still open")
    expect(p.alive(), "exited")


@check
def close_stdin_keeps_running():
    p = started("close-stdin")
    p.write(GO)
    expect(p.read_line() == b"a1", "no move")
    try:
        time.sleep(0.1)
        p.write(GO)
        broken = False
    except BrokenPipeError:
        broken = True
    expect(broken and p.alive(), f"stdin broken {broken}, alive {p.alive()}")


@check
def never_read():
    p = Proc(HOSTILE + ["never-read"])
    expect(p.quiet_for(0.3) and p.alive(), "wrote something or exited")
    p = Proc(HOSTILE + ["never-read-ready"])  # nothing written to it at all
    p.read_until(b"ready")
    expect(p.quiet_for(0.2) and p.alive(), "wrote more or exited")


@check
def ignore_quit_survives_term():
    p = started("ignore-quit", game=False)
    p.write(QUIT)
    expect(wait_for(lambda: ignores_sigterm(p.p.pid), timeout=10), "SIGTERM not ignored")
    os.kill(p.p.pid, signal.SIGTERM)
    time.sleep(0.2)
    expect(p.alive(), "exited")


def timed_answer(p, go=GO):
    start = time.monotonic()
    p.write(go)
    line = p.read_line(timeout=10)
    return line, time.monotonic() - start


@check
def sleeping():
    p = started("sleep-past-limit")
    p.write(GO)
    expect(p.quiet_for(0.5) and p.alive(), "answered or exited")
    line, took = timed_answer(started("sleep-past-limit", "--delay-ms", "300"))
    expect(line == b"a1" and took >= 0.3, (line, took))
    line, took = timed_answer(started("sleep-past-limit", "--over-ms", "150"))
    expect(line == b"a1" and took >= 0.25, (line, took))  # time 100 + 150


@check
def answer_in_margin_uses_half_the_margin():
    p = Proc(HOSTILE + ["answer-in-margin"])
    p.write(HELLO)
    p.read_until(b"ready")
    p.write(NEWGAME.replace("margin 50", "margin 400"))
    line, took = timed_answer(p)
    expect(line == b"a1" and took >= 0.3, (line, took))  # time 100 + 400 / 2


@check
def spin_burns_cpu():
    p = started("spin", "--delay-ms", "300")
    line, took = timed_answer(p)
    expect(line == b"a1" and took >= 0.3, (line, took))
    p = started("spin")
    p.write(GO)
    expect(p.quiet_for(0.4), "answered")
    expect(wait_for(lambda: proc_stat(p.p.pid)[3] >= 0.2, timeout=10),
           f"only {proc_stat(p.p.pid)[3]} s of CPU")


@check
def sigstop_stops():
    p = started("sigstop")
    p.write(GO)
    expect(wait_for(lambda: proc_stat(p.p.pid)[0] == "T"), f"state {proc_stat(p.p.pid)}")


@check
def slow_handshake():
    p = Proc(HOSTILE + ["slow-handshake", "--delay-ms", "300"])
    start = time.monotonic()
    p.write(HELLO)
    p.read_until(b"ready")
    expect(time.monotonic() - start >= 0.3, "too fast")


@check
def huge_line():
    p = started("huge-line", "--bytes", "1000000")
    p.write(GO)
    data = p.read_bytes(1_000_000)
    expect(len(data) == 1_000_000 and b"\n" not in data, f"{len(data)} bytes")
    expect(p.quiet_for(0.2) and p.alive(), "wrote more or exited")


@check
def stderr_flood():
    p = Proc(HOSTILE + ["stderr-flood", "--bytes", "3000000"])
    p.write(HELLO + NEWGAME + GO)
    p.read_until(b"a1")
    expect(wait_for(lambda: p.stderr_bytes == 3_000_000), f"{p.stderr_bytes} bytes on stderr")


@check
def fork_behaviours_leave_a_sleeper():
    with tempfile.TemporaryDirectory() as tmp:
        pidfile = os.path.join(tmp, "child.pid")
        p = started("fork-ignore-term", "--pidfile", pidfile)
        child = int(open(pidfile).read())
        state, pgid, _, _ = proc_stat(child)
        expect(pgid == p.p.pid and state != "Z", f"child state {state}, group {pgid}")
        expect(ignores_sigterm(child), "SIGTERM not ignored")
        p.write(GO)
        expect(p.read_line() == b"a1", "no move")
        p.kill()  # the whole process group, as the referee does
        expect(wait_for(lambda: gone(child)), "child survived its group's SIGKILL")

        pidfile = os.path.join(tmp, "grandchild.pid")
        p = started("fork-setsid", "--pidfile", pidfile)
        sleeper = int(open(pidfile).read())
        try:
            state, pgid, sid, _ = proc_stat(sleeper)
            # setsid() made the middle process a new session and group leader;
            # the sleeper (its child) is in that group, not the bot's
            expect(sid == pgid and pgid not in (p.p.pid, sleeper),
                   f"sleeper {sleeper}: group {pgid}, session {sid}, bot {p.p.pid}")
            p.kill()
            time.sleep(0.1)
            expect(not gone(sleeper), "the escaped sleeper died with the bot's group")
        finally:
            os.kill(sleeper, signal.SIGKILL)


@check
def illegal_moves_need_the_right_position():
    occupied = "a1,b1,d1,c1,g1,a2,a4,b2,d4,c2,g4,e1".split(",")  # X sent to board 2
    won = "a1,b1,d1,c1,g1,a2,a4,b2,d4,c2,g4".split(",")  # O won board 1; O moves freely
    cases = [
        ("occupied", "X", occupied, b"d1"),
        ("occupied", "X", [], b"a1"),            # nothing occupied yet: plays legally
        ("wrong-board", "O", ["a1"], b"d1"),     # sent to board 1, answers board 2
        ("wrong-board", "X", [], b"a1"),         # free move: plays legally
        ("closed-board", "O", won, b"a3"),       # an empty square of the won board
        ("closed-board", "O", ["a1"], b"b1"),    # not a free move: plays legally
    ]
    for behaviour, mark, moves, want in cases:
        session = HELLO + NEWGAME.replace("mark X", f"mark {mark}") + go_line(moves) + QUIT
        got = after_ready(hostile_run(behaviour, session=session).stdout, behaviour)
        expect(got == want + b"\n", f"{behaviour} after {moves}: {got!r}")


@check
def good_py():
    r = run(GOOD, HELLO + NEWGAME + GO + QUIT)
    expect(r.stdout == b"id name good\nready\na1\n" and r.returncode == 0, r.stdout)
    wide = go_line([])
    outs = {run(GOOD + ["--random"], HELLO + NEWGAME + wide * 5 + QUIT).stdout for _ in range(2)}
    expect(len(outs) == 1, "--random is not reproducible from the seed")
    r = run(GOOD + ["--last", "--info", "depth 2 string <b>", "--stderr", "hi <i>"],
            HELLO + NEWGAME + GO + QUIT)
    last = GO.split("legal ")[1].split()[0].split(",")[-1]
    expect(r.stdout == f"id name good\nready\ninfo depth 2 string <b>\n{last}\n".encode()
           and r.stderr == b"hi <i>\n", (r.stdout, r.stderr))


@check
def codingame_first():
    session = "-1 -1\n3\n4 4\n0 1\n2 2\n1 1\n2\n3 3\n3 4\n"
    r = run([PY, os.path.join(HERE, "codingame_first.py")], session)
    expect(r.stdout == b"4 4\n3 3\n" and r.returncode == 0 and r.stderr == b"", r)
    r = run([PY, os.path.join(HERE, "codingame_first.py"), "--message", "gl hf"], "-1 -1\n1\n4 4\n")
    expect(r.stdout == b"4 4 gl hf\n", r.stdout)


@check
def riddles_first():
    bot = [PY, os.path.join(HERE, "riddles_first.py")]
    aigames = ["0"] * 81
    aigames[17] = "1"  # player 1 on i2: player 2 is sent to the middle-right board
    riddles = ["."] * 81
    riddles[0], riddles[1], riddles[3] = "0", "1", "0"
    cases = [
        (["0"] * 81, "-1," * 8 + "-1", b"place_move 0 0\n"),
        (aigames, "0,0,0,0,0,-1,0,0,0", b"place_move 6 3\n"),
        (riddles, ".,-1,.,.,.,.,.,.,.", b"place_move 4 0\n"),
        (["0"] * 81, "0,0,0,0,0,0,0,0,0", b"pass\n"),
    ]
    for field, macro, want in cases:
        session = ("settings timebank 10000\nsettings your_botid 1\nupdate game round 1\n"
                   f"update game field {','.join(field)}\nupdate game macroboard {macro}\n"
                   "action move 10000\n")
        r = run(bot, session)
        expect(r.stdout == want and r.returncode == 0, (r.stdout, want))


@check
def quiet_on_broken_pipe():
    """A referee that stops reading must not make any bot print a traceback."""
    flood = (HELLO + NEWGAME + GO * 20000).encode()
    bots = [HOSTILE + ["good"], HOSTILE + ["flood-info"], GOOD,
            [PY, os.path.join(ROOT, "bots/starters/python/starter.py")]]
    for argv in bots:
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)

        def feed():
            try:
                p.stdin.write(flood)
                p.stdin.close()
            except BrokenPipeError:
                pass  # the bot is gone: expected

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        p.stdout.read(5)
        p.stdout.close()  # the reader goes away mid-stream
        try:
            status = p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            raise CheckFailed(f"{argv[-1]} kept running after its stdout broke")
        err = p.stderr.read()
        expect(b"Traceback" not in err and status == 0,
               f"{argv[-1]}: status {status}, stderr {err[-300:]!r}")
    r = run([PY, os.path.join(HERE, "codingame_first.py")], "-1 -1\n")
    expect(r.returncode == 0 and r.stderr == b"", "codingame_first at end of input")


# ---- the starter bots: complete games against each other ----------------------------


_STARTERS = {}


def starter_commands():
    """The command of each starter bot; the C++ one is built once per run."""
    if not _STARTERS:
        for tool, needed_for in (("g++", "the C++ starter"), ("node", "the JavaScript starter")):
            expect(shutil.which(tool), f"{tool} not found: install it to check {needed_for}")
        build_dir = tempfile.mkdtemp(prefix="uttt-starter-")
        atexit.register(shutil.rmtree, build_dir, True)
        cpp = os.path.join(build_dir, "starter")
        source = os.path.join(ROOT, "bots/starters/cpp/starter.cpp")
        build = subprocess.run(["g++", "-std=c++17", "-O2", "-Wall", "-Wextra", "-o", cpp, source],
                               capture_output=True)
        expect(build.returncode == 0, f"g++ failed: {build.stderr.decode()}")
        _STARTERS.update({
            "python": [PY, os.path.join(ROOT, "bots/starters/python/starter.py")],
            "cpp": [cpp],
            "js": ["node", os.path.join(ROOT, "bots/starters/js/starter.js")],
        })
    return _STARTERS


def play_games(argv_x, argv_o, games, seed):
    """Plays `games` games between two bots, one process each, alternating colours;
    checks every move against the rules. Returns the move lists."""
    bots = [Proc(argv_x), Proc(argv_o)]
    for bot in bots:
        bot.write(HELLO)
        bot.read_until(b"ready")
    records = []
    for game in range(games):
        players = bots if game % 2 == 0 else bots[::-1]
        for mark, bot in zip("XO", players):
            bot.write(NEWGAME.replace("mark X", f"mark {mark}").replace("seed 1", f"seed {seed + game}"))
        pos, moves = hostile.Tracker([]), []
        while True:
            mover = players[len(moves) % 2]
            mark = "XO"[len(moves) % 2]
            mover.write(go_line(moves))
            answer = mover.read_line().decode()
            expect(answer in legal_after(moves), f"illegal {answer!r} after {moves}")
            moves.append(answer)
            pos.play(hostile.parse_square(answer), mark)
            won = any(all(pos.owner[b] == mark for b in line) for line in hostile.LINES)
            if won or not pos.legal():
                break
        for bot in bots:
            bot.write(f"gameover result draw reason no-moves moves {','.join(moves)}\n")
        records.append(moves)
    for bot in bots:
        bot.write(QUIT)
        bot.p.wait(timeout=5)
        expect(bot.p.returncode == 0, f"{bot.p.args} exited {bot.p.returncode} after quit")
    return records


@check
def starters_play_complete_reproducible_games():
    cmds = starter_commands()
    for a, b in (("python", "cpp"), ("cpp", "js"), ("js", "python")):
        first = play_games(cmds[a], cmds[b], games=3, seed=7)
        again = play_games(cmds[a], cmds[b], games=3, seed=7)
        expect(first == again, f"{a} vs {b}: same seeds, different games")
        expect(len({",".join(m) for m in first}) > 1, f"{a} vs {b}: every game the same")


@check
def starters_seed_their_choice():
    """Same seed, same move; different seeds, different moves (a random starter)."""
    session = HELLO + "".join(
        NEWGAME.replace("seed 1", f"seed {seed}") + go_line([]) for seed in range(8)) + QUIT
    for name, argv in starter_commands().items():
        runs = [run(argv, session).stdout.split(b"\n")[-9:-1] for _ in range(2)]
        expect(runs[0] == runs[1], f"{name}: same seeds, different moves {runs}")
        expect(len(set(runs[0])) > 1, f"{name}: the seed does not change the move {runs[0]}")


# --------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="run the checks whose name contains this")
    parser.add_argument("--verbose", action="store_true", help="print every check's time")
    args = parser.parse_args()
    failures = 0
    for fn in CHECKS:
        if args.only not in fn.__name__:
            continue
        start = time.monotonic()
        try:
            fn()
            status = "ok"
        except Exception as e:  # a check that raises for any reason has failed
            failures += 1
            status = f"FAILED: {e}" if isinstance(e, CheckFailed) else "FAILED:\n" + traceback.format_exc()
        finally:
            for p in Proc.live:
                p.kill()
            Proc.live.clear()
        if args.verbose or status != "ok":
            print(f"{fn.__name__} ({time.monotonic() - start:.1f} s): {status}")
    print(f"{len([f for f in CHECKS if args.only in f.__name__]) - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
