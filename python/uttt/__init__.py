"""The rules engine and bot protocol of uttt-arena, for Python bot authors.

The rules are the arena's own (the Rust crate ``uttt``, compiled into this
package): a position here is exactly what the referee will accept.

A complete bot::

    import random
    import uttt

    def choose_move(position, request):
        return random.choice(position.legal_moves())

    uttt.run_bot(choose_move, name="pyrandom")

See README.md (or ``help(uttt)``) for the whole API.
"""

import inspect
import random
import sys
from typing import Callable, Optional, TextIO, Union

from ._uttt import (
    HOUSE_RULES,
    MAX_LINE_BYTES,
    PROTOCOL_VERSION,
    IllegalMoveError,
    ParseError,
    Position,
    Reply,
    Request,
    all_squares,
    board_of,
    cell_of,
    format_info,
    parse_reply,
    parse_request,
    square,
    square_words,
)

__all__ = [
    "HOUSE_RULES",
    "MAX_LINE_BYTES",
    "PROTOCOL_VERSION",
    "IllegalMoveError",
    "ParseError",
    "Position",
    "Reply",
    "Request",
    "all_squares",
    "board_of",
    "cell_of",
    "format_info",
    "parse_reply",
    "parse_request",
    "run_bot",
    "square",
    "square_words",
]

ChooseMove = Union[
    Callable[[Position], str],
    Callable[[Position, Request], str],
]


def _takes_request(choose_move: Callable[..., str]) -> bool:
    """Whether ``choose_move`` wants the ``go`` request as a second argument."""
    try:
        parameters = inspect.signature(choose_move).parameters.values()
    except (TypeError, ValueError):
        return True
    positional = [
        p
        for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    return len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in positional)


def run_bot(
    choose_move: ChooseMove,
    *,
    name: str = "python-bot",
    author: Optional[str] = None,
    version: Optional[str] = None,
    stdin: Optional[TextIO] = None,
    stdout: Optional[TextIO] = None,
) -> None:
    """Plays the uttt protocol on standard input and output until ``quit``.

    ``choose_move(position)`` or ``choose_move(position, request)`` is called
    for every ``go``: ``position`` is the game so far (a :class:`Position`
    under the game's rules), ``request`` the ``go`` line (``time`` in ms,
    ``nodes``, ``moves``, ``legal``, ``clock``…). It returns a square such as
    ``"e5"``. The handshake, ``newgame`` (which seeds the ``random`` module
    with the game's seed, so a game can be replayed), ``gameover`` and
    ``quit`` are handled here, every line is flushed, and a move the rules do
    not allow is refused with :class:`IllegalMoveError` (on standard error,
    with the reason) before it is sent.

    A line that cannot be read is reported on standard error and ignored, as
    protocol.md asks. End of input ends the loop like ``quit``.
    """
    source = sys.stdin if stdin is None else stdin
    sink = sys.stdout if stdout is None else stdout
    with_request = _takes_request(choose_move)
    rules = "standard"

    def send(line: str) -> None:
        sink.write(line + "\n")
        sink.flush()

    for line in source:
        if not line.strip():
            continue
        try:
            request = parse_request(line)
        except ParseError as error:
            print(f"[{name}] ignoring a line: {error}", file=sys.stderr, flush=True)
            continue
        if request.kind == "uttt":
            send(f"id name {name}")
            if author:
                send(f"id author {author}")
            if version:
                send(f"id version {version}")
            send("ready")
        elif request.kind == "newgame":
            rules = request.rules or "standard"
            random.seed(request.seed)
        elif request.kind == "go":
            position = Position.from_moves(request.moves, rules=rules)
            if with_request:
                move = choose_move(position, request)  # type: ignore[call-arg]
            else:
                move = choose_move(position)  # type: ignore[call-arg]
            if not isinstance(move, str):
                raise TypeError(
                    f"choose_move returned {move!r}: it must return a square such as 'e5'"
                )
            played = square(move)
            why = position.why_illegal(played)
            if why is not None:
                raise IllegalMoveError(f"choose_move returned {played}, which is illegal: {why}")
            send(played)
        elif request.kind == "quit":
            return
