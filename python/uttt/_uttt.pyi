"""Type stubs of the compiled module (python/src/lib.rs)."""

from typing import Iterable, List, Optional, Sequence, Union

PROTOCOL_VERSION: int
MAX_LINE_BYTES: int
HOUSE_RULES: List[str]

class ParseError(ValueError):
    """Text that is not a square, a move list, a position, rules or a protocol line."""

class IllegalMoveError(ValueError):
    """A move the rules do not allow here; the message says why, in the engine's words."""

Moves = Union[str, Iterable[str]]

class Position:
    """A position under some rules ("standard", or house rules joined by "+").

    Immutable and hashable: ``play`` returns the next position.
    """

    def __init__(self, rules: str = "standard") -> None: ...
    @staticmethod
    def from_moves(moves: Moves, rules: str = "standard") -> "Position":
        """The position after ``moves`` ("e5 e4", "e5,e4" or ["e5", "e4"])."""
    @staticmethod
    def from_text(text: str, rules: str = "standard") -> "Position":
        """A position from its text, e.g. ``9/9/9/9/4x4/9/9/9/9 5 o``."""
    def play(self, square: str) -> "Position":
        """The position after the side to move marks ``square``; raises IllegalMoveError."""
    def legal_moves(self) -> List[str]:
        """The squares the side to move may mark, in reading order (a1, b1, ..., i9)."""
    def legal_count(self) -> int: ...
    def is_legal(self, square: str) -> bool: ...
    def why_illegal(self, square: str) -> Optional[str]:
        """Why ``square`` may not be marked, in words, or None if it may."""
    @property
    def side_to_move(self) -> str:
        """"X" or "O"."""
    @property
    def is_over(self) -> bool: ...
    @property
    def winner(self) -> Optional[str]:
        """"X" or "O" once won; None for a draw or a game still going."""
    @property
    def result(self) -> Optional[str]:
        """"X three-in-a-row", "O most-boards", "draw no-moves", "draw equal-boards" or None."""
    @property
    def ply(self) -> int: ...
    @property
    def rules(self) -> str: ...
    @property
    def required_board(self) -> Optional[int]:
        """The board (1-9) the side to move was sent to; None for a free move."""
    def boards(self) -> List[str]:
        """The nine small boards: "open", "X", "O" or "drawn"."""
    def board_state(self, board: int) -> str: ...
    def is_board_closed(self, board: int) -> bool: ...
    def mark_at(self, square: str) -> Optional[str]: ...
    def winning_line(self) -> Optional[List[int]]:
        """The boards (1-9) of the winning line of a game won by three in a row."""
    def random_playout(self, seed: int) -> "Position":
        """The finished position after uniformly random moves from this one."""
    def __hash__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...

class Request:
    """A line from the referee. ``kind`` is "uttt", "newgame", "go", "gameover" or "quit"."""

    kind: str
    version: Optional[int]
    mark: Optional[str]
    rules: Optional[str]
    opponent: Optional[str]
    seed: Optional[int]
    movetime: Optional[int]
    firsttime: Optional[int]
    margin: Optional[int]
    clock: Optional[int]
    inc: Optional[int]
    nodes: Optional[int]
    time: Optional[int]
    last: Optional[str]
    moves: List[str]
    legal: List[str]
    opclock: Optional[int]
    result: Optional[str]
    reason: Optional[str]

class Reply:
    """A line from a bot. ``kind`` is "move", "resign", "ready", "id" or "info"."""

    kind: str
    square: Optional[str]
    field: Optional[str]
    text: Optional[str]
    depth: Optional[int]
    score: Optional[float]
    nodes: Optional[int]
    pv: List[str]

def square(text: str) -> str:
    """``text`` as the protocol writes a square: "E5" and "5.5" become "e5"."""

def board_of(square: str) -> int: ...
def cell_of(square: str) -> int: ...
def square_words(square: str) -> str: ...
def all_squares() -> List[str]: ...
def parse_request(line: str) -> Request: ...
def parse_reply(line: str) -> Reply: ...
def format_info(
    depth: Optional[int] = None,
    score: Optional[float] = None,
    nodes: Optional[int] = None,
    pv: Optional[Moves] = None,
    text: Optional[str] = None,
) -> str:
    """An ``info`` line the referee always accepts: control characters in
    ``text`` (a newline too) are escaped (``\\n``, ``\\x1b``), and a line past
    MAX_LINE_BYTES is cut on a character boundary (``pv`` to the squares that
    fit, ``text`` to what fits, ending in ``…``). Raises ValueError for a score
    that is not finite."""
