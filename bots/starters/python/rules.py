"""The rules of Ultimate Tic-Tac-Toe in plain Python (standard library only).

For a bot that thinks ahead but cannot install the `uttt` package (which is the
arena's own engine and about 50 times faster: python/README.md). Copy this file
next to your bot and `import rules`.

    pos = rules.Position()                 # or Position("most-boards")
    pos = pos.play("e5")                   # a new position; raises ValueError if illegal
    pos.legal_moves()                      # ["d4", "e4", ...]
    pos.side_to_move, pos.winner, pos.is_over

It follows the arena's rules (protocol.md §7, DEVELOPERS.md): a claimed or drawn
board is closed; sent to a closed board, any open board; after every mark, first
"does the mover own a line of boards" (it wins), then "does the next player have no
legal mark" (a draw, or under most-boards more boards wins). House rules:
open-won-boards, draws-count-both, most-boards, joined by "+".
"""

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
COLUMNS = "abcdefghi"
HOUSE_RULES = ("open-won-boards", "draws-count-both", "most-boards")


def to_board_cell(square):
    """'h2' -> (2, 4): the small board and the cell inside it, both 0-8."""
    column, row = COLUMNS.index(square[0]), int(square[1:]) - 1
    return (row // 3) * 3 + column // 3, (row % 3) * 3 + column % 3


def to_square(board, cell):
    """(2, 4) -> 'h2'."""
    row, column = (board // 3) * 3 + cell // 3, (board % 3) * 3 + cell % 3
    return COLUMNS[column] + str(row + 1)


# Every square with its board and cell, in reading order (a1, b1, ..., i9).
READING = [(sq,) + to_board_cell(sq) for sq in (c + str(r + 1) for r in range(9) for c in COLUMNS)]


def has_line(owned):
    """Whether the places in `owned` (a set of 0-8) hold three in a row."""
    return any(a in owned and b in owned and c in owned for a, b, c in LINES)


class Position:
    """A position. Immutable by convention: play() returns a new one."""

    def __init__(self, rules="standard"):
        names = [] if rules == "standard" else rules.split("+")
        for name in names:
            if name not in HOUSE_RULES:
                raise ValueError(f"unknown rules '{rules}'")
        self.rules = rules
        self.house = set(names)
        self.cells = [[None] * 9 for _ in range(9)]   # cells[board][cell]: "X", "O" or None
        self.owner = [None] * 9                      # "X", "O", "drawn" or None
        self.closed = [False] * 9
        self.next_board = None                       # None: any open board
        self.side_to_move = "X"
        self.winner = None                           # "X", "O" or None
        self.is_over = False

    def copy(self):
        other = Position.__new__(Position)
        other.rules, other.house = self.rules, self.house
        other.cells = [row[:] for row in self.cells]
        other.owner, other.closed = self.owner[:], self.closed[:]
        other.next_board, other.side_to_move = self.next_board, self.side_to_move
        other.winner, other.is_over = self.winner, self.is_over
        return other

    def legal_moves(self):
        """The squares the side to move may mark, in reading order."""
        if self.is_over:
            return []
        cells, closed, only = self.cells, self.closed, self.next_board
        return [
            sq
            for sq, b, c in READING
            if (only is None or b == only) and not closed[b] and cells[b][c] is None
        ]

    def play(self, square):
        """The position after the side to move marks `square`."""
        if square not in self.legal_moves():
            raise ValueError(f"{square} is not a legal move here")
        pos = self.copy()
        pos.play_in_place(square)
        return pos

    def play_in_place(self, square):
        """Marks a legal `square` (not checked), changing this position."""
        mover = self.side_to_move
        board, cell = to_board_cell(square)
        marks = self.cells[board]
        marks[cell] = mover
        full = all(m is not None for m in marks)
        if self.owner[board] is None and has_line({i for i in range(9) if marks[i] == mover}):
            self.owner[board] = mover
            if full or "open-won-boards" not in self.house:
                self.closed[board] = True
        elif full:
            self.closed[board] = True
            if self.owner[board] is None:
                self.owner[board] = "drawn"
        self.next_board = None if self.closed[cell] else cell
        self.side_to_move = "O" if mover == "X" else "X"
        if self.owns_line(mover):
            self.winner, self.is_over = mover, True
        elif "draws-count-both" in self.house and self.owns_line(self.side_to_move):
            self.winner, self.is_over = self.side_to_move, True
        elif all(self.closed):
            self.is_over = True
            if "most-boards" in self.house:
                x, o = self.owner.count("X"), self.owner.count("O")
                self.winner = "X" if x > o else "O" if o > x else None

    def owns_line(self, mark):
        counted = {mark, "drawn"} if "draws-count-both" in self.house else {mark}
        return has_line({b for b in range(9) if self.owner[b] in counted})
