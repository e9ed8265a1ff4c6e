"""Position: playing, legal moves, boards, results and errors in the engine's words."""

import pytest

import uttt
from uttt import IllegalMoveError, ParseError, Position


def test_the_empty_board_has_81_moves_and_x_to_move():
    p = Position()
    assert p.side_to_move == "X"
    assert p.legal_count() == 81
    assert p.legal_moves()[:3] == ["a1", "b1", "c1"]
    assert p.legal_moves() == uttt.all_squares()
    assert p.required_board is None
    assert not p.is_over and p.winner is None and p.result is None
    assert str(p) == "9/9/9/9/9/9/9/9/9 * x"


def test_a_mark_sends_the_opponent_to_the_board_of_its_cell():
    p = Position().play("e5")
    assert p.side_to_move == "O"
    assert p.required_board == 5
    assert p.legal_moves() == ["d4", "e4", "f4", "d5", "f5", "d6", "e6", "f6"]
    assert str(p) == "9/9/9/9/4x4/9/9/9/9 5 o"
    assert p.mark_at("e5") == "X" and p.mark_at("a1") is None
    assert p.ply == 1


def test_positions_are_immutable_values():
    p = Position()
    q = p.play("e5")
    assert p.ply == 0 and q.ply == 1
    assert q == Position.from_moves("e5") == Position.from_moves(["e5"])
    assert hash(q) == hash(Position.from_text("9/9/9/9/4x4/9/9/9/9 5 o"))
    assert len({p, q, Position()}) == 2


def test_illegal_moves_raise_with_the_engines_words():
    p = Position.from_moves("e5")
    with pytest.raises(IllegalMoveError) as info:
        p.play("a1")
    assert str(info.value) == "a1 is in the top-left board, but you must play in the center board"
    assert p.why_illegal("a1") == str(info.value)
    assert p.why_illegal("e4") is None
    q = p.play("e4").play("e2")
    with pytest.raises(IllegalMoveError, match="e5 is already taken by X"):
        q.play("e5")
    with pytest.raises(IllegalMoveError, match=r"move 2 \(a1\) is illegal"):
        Position.from_moves("e5 a1")
    assert issubclass(IllegalMoveError, ValueError)


def test_bad_text_raises_parse_errors():
    with pytest.raises(ParseError, match="columns are a..i"):
        Position().play("j4")
    with pytest.raises(ParseError, match="unknown rules 'fast'"):
        Position("fast")
    with pytest.raises(ParseError, match="bad position text"):
        Position.from_text("nonsense")
    with pytest.raises(ParseError):
        uttt.square("e0")
    assert issubclass(ParseError, ValueError)


def test_a_game_won_by_three_boards_in_a_row():
    # X claims boards 1, 2 and 3 (the top row) while O plays elsewhere.
    p = Position.from_text("xxxxxxxx1/oo1oo1oo1/o2o5/9/9/9/9/9/9 3 x")
    assert p.boards()[:3] == ["X", "X", "open"]
    end = p.play("i1")
    assert end.is_over
    assert end.winner == "X"
    assert end.result == "X three-in-a-row"
    assert end.winning_line() == [1, 2, 3]
    assert end.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="the game is already over"):
        end.play("a9")


def test_house_rules_are_named_and_kept():
    p = Position(rules="most-boards+open-won-boards")
    assert p.rules == "open-won-boards+most-boards"
    assert uttt.HOUSE_RULES == ["open-won-boards", "draws-count-both", "most-boards"]
    assert Position.from_moves("e5", rules="draws-count-both").rules == "draws-count-both"


def test_squares_in_the_arena_notation():
    assert uttt.square("E5") == "e5"
    assert uttt.square("5.5") == "e5"
    assert uttt.board_of("h2") == 3
    assert uttt.cell_of("h2") == 5
    assert uttt.square_words("h2") == "center of top-right board"
    assert len(uttt.all_squares()) == 81


def test_a_random_playout_ends_the_game_and_is_seeded():
    p = Position.from_moves("e5 e4")
    a, b = p.random_playout(7), p.random_playout(7)
    assert a.is_over and a == b
    assert p.random_playout(8).is_over
    assert a.ply > p.ply
