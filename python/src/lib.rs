//! `uttt._uttt`: the arena's rules engine (`uttt::rules`), square notation and
//! protocol messages, for Python. The Python package `uttt` re-exports it and adds
//! `run_bot` (uttt/__init__.py); the stubs are uttt/_uttt.pyi.
//!
//! Squares cross the boundary as the arena writes them (`"e5"`); every error is a
//! Python exception carrying the engine's own words (`IllegalMoveError`: "e5 is
//! in the center board, but you must play in the top-left board"). Nothing here
//! decides a rule: each method is one call into the `uttt` crate.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyString};
use uttt::notation::{
    illegal_words, parse_move_list, parse_position, parse_square_lenient, square_words,
};
use uttt::protocol::{self, FromBot, IdField, ToBot};
use uttt::rules::{BoardIndex, BoardState, Mark, Position as Engine, Rules, Square, Status};

pyo3::create_exception!(
    _uttt,
    ParseError,
    PyValueError,
    "Text that is not a square, a move list, a position, rules or a protocol line."
);
pyo3::create_exception!(
    _uttt,
    IllegalMoveError,
    PyValueError,
    "A move the rules do not allow here; the message says why."
);

fn parse_error(e: impl std::fmt::Display) -> PyErr {
    ParseError::new_err(e.to_string())
}

fn rules_of(text: &str) -> PyResult<Rules> {
    text.parse().map_err(parse_error)
}

fn square_of(text: &str) -> PyResult<Square> {
    // The protocol's own spelling first: the hot path of a search in Python.
    text.parse::<Square>()
        .or_else(|_| parse_square_lenient(text))
        .map_err(parse_error)
}

/// The 81 squares in reading order (a1, b1, … i1, a2, …), as the protocol's
/// `legal` lists them.
static READING_ORDER: [Square; 81] = {
    let mut squares = [Square::new(BoardIndex::ALL[0], uttt::rules::Cell::ALL[0]); 81];
    let mut i = 0;
    while i < 81 {
        if let Some(sq) = Square::from_column_row((i % 9) as u8, (i / 9) as u8) {
            squares[i] = sq;
        }
        i += 1;
    }
    squares
};

/// The names of the squares as Python strings, made once: a list of legal moves
/// is then 81 look-ups and no allocation of text (measured: most of the cost of
/// `legal_moves` before).
fn square_names(py: Python<'_>) -> &[Py<PyString>; 81] {
    static NAMES: PyOnceLock<[Py<PyString>; 81]> = PyOnceLock::new();
    NAMES.get_or_init(py, || {
        std::array::from_fn(|i| PyString::intern(py, &READING_ORDER[i].to_string()).unbind())
    })
}

fn mark_name(mark: Mark) -> &'static str {
    match mark {
        Mark::X => "X",
        Mark::O => "O",
    }
}

/// Moves given as one string ("e5 e4" or "e5,e4") or a sequence of squares.
fn moves_of(moves: &Bound<'_, PyAny>) -> PyResult<Vec<Square>> {
    if let Ok(text) = moves.extract::<String>() {
        return parse_move_list(&text).map_err(parse_error);
    }
    let mut list = Vec::new();
    for item in moves.try_iter()? {
        let text: String = item?.extract()?;
        list.push(square_of(&text)?);
    }
    Ok(list)
}

/// A position of Ultimate Tic-Tac-Toe under some rules. Immutable: `play`
/// returns the next position.
#[pyclass(frozen, eq, hash, skip_from_py_object, module = "uttt")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Position(Engine);

#[pymethods]
impl Position {
    /// The empty board, X to move anywhere.
    #[new]
    #[pyo3(signature = (rules = "standard"))]
    fn new(rules: &str) -> PyResult<Self> {
        Ok(Position(Engine::new(rules_of(rules)?)))
    }

    /// The position after these moves from the empty board.
    #[staticmethod]
    #[pyo3(signature = (moves, rules = "standard"))]
    fn from_moves(moves: &Bound<'_, PyAny>, rules: &str) -> PyResult<Self> {
        let rules = rules_of(rules)?;
        let list = moves_of(moves)?;
        Engine::from_moves(rules, list.iter().copied())
            .map(Position)
            .map_err(|(i, e)| {
                IllegalMoveError::new_err(format!(
                    "move {} ({}) is illegal: {}",
                    i + 1,
                    list[i],
                    illegal_words(&e)
                ))
            })
    }

    /// A position from its one-line text, as `str(position)` and `arena replay`
    /// write it: `9/9/9/9/4x4/9/9/9/9 5 o`.
    #[staticmethod]
    #[pyo3(signature = (text, rules = "standard"))]
    fn from_text(text: &str, rules: &str) -> PyResult<Self> {
        parse_position(text, rules_of(rules)?)
            .map(Position)
            .map_err(parse_error)
    }

    /// The position after the side to move marks `square`.
    fn play(&self, square: &str) -> PyResult<Self> {
        let sq = square_of(square)?;
        self.0
            .play(sq)
            .map(Position)
            .map_err(|e| IllegalMoveError::new_err(illegal_words(&e)))
    }

    /// The squares the side to move may mark, in reading order (a1, b1, …, i9).
    fn legal_moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let legal = self.0.legal_moves();
        let names = square_names(py);
        PyList::new(
            py,
            READING_ORDER
                .iter()
                .zip(names)
                .filter(|(sq, _)| legal.contains(**sq))
                .map(|(_, name)| name.bind(py)),
        )
    }

    /// How many legal moves there are (faster than `len(legal_moves())`).
    fn legal_count(&self) -> usize {
        self.0.legal_moves().len()
    }

    /// Whether the side to move may mark `square`.
    fn is_legal(&self, square: &str) -> PyResult<bool> {
        Ok(self.0.is_legal(square_of(square)?))
    }

    /// Why the side to move may not mark `square`, in words, or None if it may.
    fn why_illegal(&self, square: &str) -> PyResult<Option<String>> {
        let sq = square_of(square)?;
        Ok(self.0.play(sq).err().map(|e| illegal_words(&e)))
    }

    /// "X" or "O": the player to move.
    #[getter]
    fn side_to_move(&self) -> &'static str {
        mark_name(self.0.side_to_move())
    }

    /// Whether the game has ended.
    #[getter]
    fn is_over(&self) -> bool {
        self.0.is_over()
    }

    /// "X" or "O" once the game is won, else None (a draw, or still going).
    #[getter]
    fn winner(&self) -> Option<&'static str> {
        self.0
            .status()
            .outcome()
            .and_then(|o| o.winner())
            .map(mark_name)
    }

    /// How the game ended: "X three-in-a-row", "O most-boards", "draw no-moves",
    /// "draw equal-boards"; None while it goes on.
    #[getter]
    fn result(&self) -> Option<String> {
        match self.0.status() {
            Status::Ongoing => None,
            Status::Over(outcome) => Some(outcome.to_string()),
        }
    }

    /// Marks on the board.
    #[getter]
    fn ply(&self) -> u32 {
        self.0.ply()
    }

    /// "standard", or the house rules joined by "+".
    #[getter]
    fn rules(&self) -> String {
        self.0.rules().to_string()
    }

    /// The board (1-9, reading order) the side to move was sent to, or None for a
    /// free move (any open board).
    #[getter]
    fn required_board(&self) -> Option<u8> {
        self.0.required_board().map(BoardIndex::number)
    }

    /// The nine small boards in reading order: "open", "X", "O" (won by) or "drawn".
    fn boards(&self) -> Vec<&'static str> {
        BoardIndex::ALL
            .iter()
            .map(|&b| board_word(self.0.board_state(b)))
            .collect()
    }

    /// Small board `board` (1-9, reading order): "open", "X", "O" or "drawn".
    fn board_state(&self, board: u8) -> PyResult<&'static str> {
        let index = board
            .checked_sub(1)
            .and_then(BoardIndex::try_new)
            .ok_or_else(|| PyValueError::new_err(format!("board {board}: boards are 1 to 9")))?;
        Ok(board_word(self.0.board_state(index)))
    }

    /// Whether small board `board` (1-9) takes no more marks.
    fn is_board_closed(&self, board: u8) -> PyResult<bool> {
        let index = board
            .checked_sub(1)
            .and_then(BoardIndex::try_new)
            .ok_or_else(|| PyValueError::new_err(format!("board {board}: boards are 1 to 9")))?;
        Ok(self.0.is_board_closed(index))
    }

    /// "X", "O" or None: the mark on `square`.
    fn mark_at(&self, square: &str) -> PyResult<Option<&'static str>> {
        Ok(self.0.mark_at(square_of(square)?).map(mark_name))
    }

    /// The boards (1-9) of the line that won the game, if it was won by three in a row.
    fn winning_line(&self) -> Option<Vec<u32>> {
        self.0.winning_line().map(|line| {
            BoardIndex::ALL
                .iter()
                .filter(|b| line.mask() & (1 << b.index()) != 0)
                .map(|b| u32::from(b.number()))
                .collect()
        })
    }

    /// The finished position after uniformly random moves from this one (a
    /// playout, as Monte Carlo search uses them), from `seed`.
    fn random_playout(&self, seed: u64) -> Self {
        let mut pos = self.0;
        let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
        while !pos.is_over() {
            let legal = pos.legal_moves();
            state = splitmix(state);
            let n = (state % legal.len() as u64) as usize;
            if let Some(sq) = legal.nth(n) {
                pos.play_unchecked(sq);
            }
        }
        Position(pos)
    }

    /// The position text: `9/9/9/9/4x4/9/9/9/9 5 o`.
    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "Position.from_text('{}', rules='{}')",
            self.0,
            self.0.rules()
        )
    }
}

/// SplitMix64: a small, well-mixed generator for playouts.
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn board_word(state: BoardState) -> &'static str {
    match state {
        BoardState::Open => "open",
        BoardState::Won(Mark::X) => "X",
        BoardState::Won(Mark::O) => "O",
        BoardState::Drawn => "drawn",
    }
}

/// `text` as the protocol writes a square: "E5" and "5.5" become "e5".
#[pyfunction]
fn square(text: &str) -> PyResult<String> {
    Ok(square_of(text)?.to_string())
}

/// The small board (1-9, reading order) holding `square`.
#[pyfunction]
fn board_of(square: &str) -> PyResult<u8> {
    Ok(square_of(square)?.board().number())
}

/// The cell (1-9) of `square` inside its small board: the board it sends the
/// opponent to.
#[pyfunction]
fn cell_of(square: &str) -> PyResult<u8> {
    Ok(square_of(square)?.cell().number())
}

/// `square` in words: "center of top-right board".
#[pyfunction]
#[pyo3(name = "square_words")]
fn words(square: &str) -> PyResult<String> {
    Ok(square_words(square_of(square)?))
}

/// All 81 squares in reading order.
#[pyfunction]
fn all_squares() -> Vec<String> {
    READING_ORDER.iter().map(ToString::to_string).collect()
}

/// A line from the referee (`uttt 1`, `newgame …`, `go …`, `gameover …`, `quit`).
#[pyclass(frozen, get_all, skip_from_py_object, module = "uttt")]
#[derive(Clone)]
struct Request {
    /// "uttt", "newgame", "go", "gameover" or "quit".
    kind: String,
    /// `uttt`: the protocol version.
    version: Option<u32>,
    /// `newgame`: "X" or "O".
    mark: Option<String>,
    /// `newgame`: the rules.
    rules: Option<String>,
    /// `newgame`: the opponent's name.
    opponent: Option<String>,
    /// `newgame`: the seed for the bot's randomness.
    seed: Option<u64>,
    /// `newgame`: ms per move, first move, margin; a game clock and increment.
    movetime: Option<u64>,
    firsttime: Option<u64>,
    margin: Option<u64>,
    clock: Option<u64>,
    inc: Option<u64>,
    /// `newgame` and `go`: nodes per move (fixed work), if asked.
    nodes: Option<u64>,
    /// `go`: ms for this move.
    time: Option<u64>,
    /// `go`: the last move, or None at the start.
    last: Option<String>,
    /// `go` and `gameover`: every move so far.
    moves: Vec<String>,
    /// `go`: the legal moves.
    legal: Vec<String>,
    /// `go` with a game clock: own and opponent's remaining ms.
    opclock: Option<u64>,
    /// `gameover`: "X", "O" or "draw".
    result: Option<String>,
    /// `gameover`: the reason word.
    reason: Option<String>,
    line: String,
}

#[pymethods]
impl Request {
    /// The line as the referee writes it.
    fn __str__(&self) -> String {
        self.line.clone()
    }

    fn __repr__(&self) -> String {
        format!("parse_request('{}')", self.line)
    }
}

fn ms(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn names(squares: &[Square]) -> Vec<String> {
    squares.iter().map(ToString::to_string).collect()
}

/// Reads one line from the referee. Unknown keys are ignored, as protocol.md asks.
#[pyfunction]
fn parse_request(line: &str) -> PyResult<Request> {
    let message = protocol::parse_to_bot(line).map_err(parse_error)?;
    let mut r = Request {
        kind: String::new(),
        version: None,
        mark: None,
        rules: None,
        opponent: None,
        seed: None,
        movetime: None,
        firsttime: None,
        margin: None,
        clock: None,
        inc: None,
        nodes: None,
        time: None,
        last: None,
        moves: Vec::new(),
        legal: Vec::new(),
        opclock: None,
        result: None,
        reason: None,
        line: message.to_string(),
    };
    match message {
        ToBot::Hello { version } => {
            r.kind = "uttt".into();
            r.version = Some(version);
        }
        ToBot::NewGame(g) => {
            r.kind = "newgame".into();
            r.mark = Some(mark_name(g.mark).into());
            r.rules = Some(g.rules.to_string());
            r.opponent = Some(g.opponent);
            r.seed = Some(g.seed);
            r.movetime = g.timing.move_time.map(ms);
            r.firsttime = g.timing.first_move_time.map(ms);
            r.margin = Some(ms(g.timing.margin));
            r.clock = g.timing.clock.map(|(c, _)| ms(c));
            r.inc = g.timing.clock.map(|(_, i)| ms(i));
            r.nodes = g.timing.nodes;
        }
        ToBot::Go(g) => {
            r.kind = "go".into();
            r.time = Some(ms(g.time));
            r.last = g.last.map(|s| s.to_string());
            r.moves = names(&g.moves);
            r.legal = names(&g.legal);
            r.clock = g.clocks.map(|(c, _)| ms(c));
            r.opclock = g.clocks.map(|(_, c)| ms(c));
            r.nodes = g.nodes;
        }
        ToBot::GameOver(g) => {
            r.kind = "gameover".into();
            r.result = Some(g.winner.map_or("draw", mark_name).into());
            r.reason = Some(g.reason);
            r.moves = names(&g.moves);
        }
        ToBot::Quit => r.kind = "quit".into(),
    }
    Ok(r)
}

/// A line from a bot, as the referee reads it.
#[pyclass(frozen, get_all, skip_from_py_object, module = "uttt")]
#[derive(Clone)]
struct Reply {
    /// "move", "resign", "ready", "id" or "info".
    kind: String,
    /// `move`: the square.
    square: Option<String>,
    /// `id`: "name", "author" or "version".
    field: Option<String>,
    /// `id`: its value; `info`: its free text.
    text: Option<String>,
    /// `info`: search depth, score, nodes and the expected line.
    depth: Option<u32>,
    score: Option<f64>,
    nodes: Option<u64>,
    pv: Vec<String>,
    line: String,
}

#[pymethods]
impl Reply {
    /// The line as the bot writes it.
    fn __str__(&self) -> String {
        self.line.clone()
    }
}

/// Reads one line from a bot (what the referee accepts: a square, `resign`,
/// `ready`, `id …`, `info …`).
#[pyfunction]
fn parse_reply(line: &str) -> PyResult<Reply> {
    let line = line.strip_suffix('\n').unwrap_or(line);
    let message = protocol::parse_from_bot(line.as_bytes()).map_err(parse_error)?;
    let mut r = Reply {
        kind: String::new(),
        square: None,
        field: None,
        text: None,
        depth: None,
        score: None,
        nodes: None,
        pv: Vec::new(),
        line: message.to_string(),
    };
    match message {
        FromBot::Move(sq) => {
            r.kind = "move".into();
            r.square = Some(sq.to_string());
        }
        FromBot::Resign => r.kind = "resign".into(),
        FromBot::Ready => r.kind = "ready".into(),
        FromBot::Id(field, value) => {
            r.kind = "id".into();
            r.field = Some(
                match field {
                    IdField::Name => "name",
                    IdField::Author => "author",
                    IdField::Version => "version",
                }
                .into(),
            );
            r.text = Some(value);
        }
        FromBot::Info(info) => {
            r.kind = "info".into();
            r.depth = info.depth;
            r.score = info.score;
            r.nodes = info.nodes;
            r.pv = names(&info.pv);
            r.text = (!info.text.is_empty()).then_some(info.text);
        }
    }
    Ok(r)
}

/// An `info` line, e.g. `info depth 3 score 0.5 nodes 120 pv e5 e4 string hi`,
/// that the referee always accepts: the engine's `protocol::info_line` escapes
/// the control characters its line rules refuse and cuts the line to
/// `MAX_LINE_BYTES` on a character boundary (so a bot that logs through it never
/// loses a game as `malformed-output`).
#[pyfunction]
#[pyo3(signature = (depth = None, score = None, nodes = None, pv = None, text = None))]
fn format_info(
    depth: Option<u32>,
    score: Option<f64>,
    nodes: Option<u64>,
    pv: Option<&Bound<'_, PyAny>>,
    text: Option<String>,
) -> PyResult<String> {
    if score.is_some_and(|s| !s.is_finite()) {
        return Err(PyValueError::new_err("score must be a finite number"));
    }
    let pv = match pv {
        Some(list) => moves_of(list)?,
        None => Vec::new(),
    };
    Ok(protocol::info_line(&protocol::Info {
        depth,
        score,
        nodes,
        pv,
        text: text.unwrap_or_default(),
    }))
}

/// The Python module.
#[pymodule]
fn _uttt(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Position>()?;
    m.add_class::<Request>()?;
    m.add_class::<Reply>()?;
    m.add_function(wrap_pyfunction!(square, m)?)?;
    m.add_function(wrap_pyfunction!(board_of, m)?)?;
    m.add_function(wrap_pyfunction!(cell_of, m)?)?;
    m.add_function(wrap_pyfunction!(words, m)?)?;
    m.add_function(wrap_pyfunction!(all_squares, m)?)?;
    m.add_function(wrap_pyfunction!(parse_request, m)?)?;
    m.add_function(wrap_pyfunction!(parse_reply, m)?)?;
    m.add_function(wrap_pyfunction!(format_info, m)?)?;
    m.add("ParseError", m.py().get_type::<ParseError>())?;
    m.add("IllegalMoveError", m.py().get_type::<IllegalMoveError>())?;
    m.add("PROTOCOL_VERSION", protocol::PROTOCOL_VERSION)?;
    m.add("MAX_LINE_BYTES", protocol::MAX_LINE_BYTES)?;
    let variants = PyList::new(m.py(), uttt::rules::Variant::ALL.iter().map(|v| v.name()))?;
    m.add("HOUSE_RULES", variants)?;
    Ok(())
}
