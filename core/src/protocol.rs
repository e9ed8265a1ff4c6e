//! The messages of protocol.md (version 1) as types, with parsing and formatting in
//! both directions: the referee formats [`ToBot`] and parses [`FromBot`]; the
//! reference bots do the opposite. Pure functions over bytes and strings; no I/O.
//!
//! Parsing a bot's move checks only its syntax ([`LineError`]); whether the square
//! is legal is the rules engine's question ([`crate::rules::IllegalMove`]). The
//! referee reports the two as different reasons.

use std::fmt::{self, Write as _};
use std::time::Duration;

use crate::rules::ParseSquareError;
use crate::rules::{Mark, MoveSet, Rules, Square};

/// The protocol's name, the first word of the hello line.
pub const PROTOCOL_NAME: &str = "uttt";
/// The protocol version this crate speaks.
pub const PROTOCOL_VERSION: u32 = 1;
/// The longest line a bot may send, in bytes, not counting its end (`\n` or `\r\n`).
pub const MAX_LINE_BYTES: usize = 4096;
/// The most `info` lines a bot may send for one move, counting every `info` line
/// since its previous reply (protocol.md §4).
pub const MAX_INFO_LINES: usize = 256;

/// Time control of one game as announced in `newgame`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// Time for each move, if there is a per-move limit.
    pub move_time: Option<Duration>,
    /// Time for the bot's first move of the game.
    pub first_move_time: Option<Duration>,
    /// Forgiven overrun.
    pub margin: Duration,
    /// Starting game clock and increment, if there is a game clock.
    pub clock: Option<(Duration, Duration)>,
    /// The most nodes of its own search the bot should spend on each move, when
    /// the run asks for fixed work (an honour system: protocol.md §3).
    pub nodes: Option<u64>,
}

/// `newgame`: a game starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewGame {
    /// The bot's mark.
    pub mark: Mark,
    /// The rules of this game.
    pub rules: Rules,
    /// The opponent's name.
    pub opponent: String,
    /// A seed the bot may use for its own randomness.
    pub seed: u64,
    /// The time control.
    pub timing: Timing,
}

/// `go`: the bot must move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Go {
    /// Time for this move, not counting the margin.
    pub time: Duration,
    /// The move just played, if any.
    pub last: Option<Square>,
    /// Every move so far.
    pub moves: Vec<Square>,
    /// The legal moves; never empty.
    pub legal: Vec<Square>,
    /// Remaining game clocks (own, opponent's), with a game clock.
    pub clocks: Option<(Duration, Duration)>,
    /// Stop after this many nodes of your own search (fixed work; the time limit
    /// still applies).
    pub nodes: Option<u64>,
}

/// `gameover`: the game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameOver {
    /// The winner, or `None` for a draw.
    pub winner: Option<Mark>,
    /// The reason word (see protocol.md §5).
    pub reason: String,
    /// Every move of the game.
    pub moves: Vec<Square>,
}

/// A message from the referee to a bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToBot {
    /// `uttt 1`.
    Hello {
        /// Protocol version.
        version: u32,
    },
    /// `newgame …`.
    NewGame(NewGame),
    /// `go …`.
    Go(Go),
    /// `gameover …`.
    GameOver(GameOver),
    /// `quit`.
    Quit,
}

/// Which `id` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdField {
    /// `id name`.
    Name,
    /// `id author`.
    Author,
    /// `id version`.
    Version,
}

/// What a bot reports on an `info` line. Unrecognised parts are kept in `text`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Info {
    /// Search depth.
    pub depth: Option<u32>,
    /// Evaluation, in the bot's own units.
    pub score: Option<f64>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Expected line of play.
    pub pv: Vec<Square>,
    /// Free text (`string …` and anything not understood).
    pub text: String,
}

/// A message from a bot to the referee.
#[derive(Clone, Debug, PartialEq)]
pub enum FromBot {
    /// `id name|author|version <text>`.
    Id(IdField, String),
    /// `ready`.
    Ready,
    /// `info …`.
    Info(Info),
    /// A move.
    Move(Square),
    /// `resign`.
    Resign,
}

/// Why a line from a bot is not a message. The text is kept so the referee can
/// quote it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// Longer than [`MAX_LINE_BYTES`].
    #[error("line longer than {MAX_LINE_BYTES} bytes")]
    TooLong,
    /// Not valid UTF-8.
    #[error("line is not valid UTF-8: {escaped}")]
    InvalidUtf8 {
        /// The bytes, escaped.
        escaped: String,
    },
    /// Contains a control character.
    #[error("line contains a control character: {escaped}")]
    ControlCharacter {
        /// The line, escaped.
        escaped: String,
    },
    /// An empty line.
    #[error("empty line")]
    Empty,
    /// Looked like a move but is not a square.
    #[error("{0}")]
    BadSquare(#[from] ParseSquareError),
    /// Not what a foreign dialect expects.
    #[error("{problem}")]
    Dialect {
        /// What was wrong and what is expected.
        problem: String,
    },
    /// Anything else.
    #[error("'{escaped}' is not a move (a1..i9), 'resign' or an 'info' line")]
    Unknown {
        /// The line, escaped.
        escaped: String,
    },
}

/// Escapes bytes for quoting in logs and messages: printable ASCII as is,
/// everything else as `\xNN`, `\t`, `\r`, `\n`; at most 200 bytes, then `…`.
///
/// This is the one way bot-written bytes reach a person: whatever a bot prints, the
/// result holds no control character (no escape sequence can retitle a terminal,
/// clear it or move its cursor to overwrite a line) and no byte that is not ASCII.
pub fn escape_bytes(bytes: &[u8]) -> String {
    const LIMIT: usize = 200;
    let mut out = String::new();
    escape_into(&mut out, &bytes[..bytes.len().min(LIMIT)]);
    if bytes.len() > LIMIT {
        out.push('…');
    }
    out
}

/// Escapes a bot's text of many lines (its stderr) as [`escape_bytes`] does, with no
/// length limit, one output line per input line: the newlines stay, and a `\r`
/// right before a newline (a `\r\n` line end) is dropped, since it can move the
/// cursor nowhere. Every other control character is escaped.
pub fn escape_lines(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let mut lines = bytes.split(|&b| b == b'\n').peekable();
    while let Some(line) = lines.next() {
        let last = lines.peek().is_none();
        let line = if last {
            line
        } else {
            line.strip_suffix(b"\r").unwrap_or(line)
        };
        escape_into(&mut out, line);
        if !last {
            out.push('\n');
        }
    }
    out
}

fn escape_into(out: &mut String, bytes: &[u8]) {
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            b'\n' => out.push_str("\\n"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
}

/// Whether the line rules of protocol.md §1 refuse `c` anywhere in a bot's line:
/// every control character but the tab (a line's `\r\n` end is not part of the
/// line). The one rule [`check_line`] enforces and [`info_line`] writes to.
pub fn is_refused_in_a_line(c: char) -> bool {
    c.is_control() && c != '\t'
}

/// Checks the line rules of protocol.md §1 and returns the trimmed text: length,
/// UTF-8, no control characters; a trailing `\r` and surrounding blanks removed.
///
/// # Errors
/// Which line rule was broken.
pub fn check_line(bytes: &[u8]) -> Result<&str, LineError> {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    if bytes.len() > MAX_LINE_BYTES {
        return Err(LineError::TooLong);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| LineError::InvalidUtf8 {
        escaped: escape_bytes(bytes),
    })?;
    if text.chars().any(is_refused_in_a_line) {
        return Err(LineError::ControlCharacter {
            escaped: escape_bytes(bytes),
        });
    }
    Ok(text.trim_matches([' ', '\t']))
}

/// Parses one line from a bot (without its `\n`).
///
/// # Errors
/// [`LineError`] describing what is wrong with the line.
///
/// ```
/// use uttt::protocol::{FromBot, LineError, parse_from_bot};
/// assert_eq!(parse_from_bot(b"e5"), Ok(FromBot::Move("e5".parse().unwrap())));
/// assert_eq!(parse_from_bot(b"resign"), Ok(FromBot::Resign));
/// assert_eq!(parse_from_bot(b"ready"), Ok(FromBot::Ready));
/// // The syntax only: whether e5 is legal is the rules' question.
/// assert!(matches!(parse_from_bot(b"j5"), Err(LineError::BadSquare(_))));
/// ```
pub fn parse_from_bot(bytes: &[u8]) -> Result<FromBot, LineError> {
    let text = check_line(bytes)?;
    if text.is_empty() {
        return Err(LineError::Empty);
    }
    let (word, rest) = match text.split_once([' ', '\t']) {
        Some((word, rest)) => (word, rest.trim_start_matches([' ', '\t'])),
        None => (text, ""),
    };
    let unknown = || LineError::Unknown {
        escaped: escape_bytes(text.as_bytes()),
    };
    match word {
        "ready" if rest.is_empty() => Ok(FromBot::Ready),
        "resign" if rest.is_empty() => Ok(FromBot::Resign),
        "info" => Ok(FromBot::Info(parse_info(rest))),
        "id" => {
            let (field, value) = rest.split_once([' ', '\t']).unwrap_or((rest, ""));
            let field = match field {
                "name" => IdField::Name,
                "author" => IdField::Author,
                "version" => IdField::Version,
                _ => return Err(unknown()),
            };
            Ok(FromBot::Id(field, value.trim().to_string()))
        }
        _ if rest.is_empty() && looks_like_square(word) => Ok(FromBot::Move(word.parse()?)),
        _ => Err(unknown()),
    }
}

/// A short token that starts with a letter and continues with digits, so a parse
/// failure deserves the square-specific message ("columns are a..i").
fn looks_like_square(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.clone().next().is_some()
        && chars.all(|c| c.is_ascii_digit())
}

fn parse_info(rest: &str) -> Info {
    let mut info = Info::default();
    let mut other: Vec<&str> = Vec::new();
    let mut words = rest.split_whitespace().peekable();
    while let Some(word) = words.next() {
        match word {
            "depth" => match words.peek().and_then(|w| w.parse().ok()) {
                Some(d) => {
                    info.depth = Some(d);
                    words.next();
                }
                None => other.push(word),
            },
            "nodes" => match words.peek().and_then(|w| w.parse().ok()) {
                Some(n) => {
                    info.nodes = Some(n);
                    words.next();
                }
                None => other.push(word),
            },
            "score" => match words
                .peek()
                .and_then(|w| w.parse::<f64>().ok())
                .filter(|s| s.is_finite())
            {
                Some(s) => {
                    info.score = Some(s);
                    words.next();
                }
                None => other.push(word),
            },
            "pv" => {
                while let Some(sq) = words.peek().and_then(|w| w.parse::<Square>().ok()) {
                    info.pv.push(sq);
                    words.next();
                }
            }
            "string" => {
                other.extend(words.by_ref());
            }
            _ => other.push(word),
        }
    }
    info.text = other.join(" ");
    info
}

impl fmt::Display for FromBot {
    /// The line a bot sends, without the newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FromBot::Id(field, value) => {
                let field = match field {
                    IdField::Name => "name",
                    IdField::Author => "author",
                    IdField::Version => "version",
                };
                write!(f, "id {field} {value}")
            }
            FromBot::Ready => f.write_str("ready"),
            FromBot::Resign => f.write_str("resign"),
            FromBot::Move(sq) => write!(f, "{sq}"),
            FromBot::Info(info) => {
                f.write_str("info")?;
                if let Some(d) = info.depth {
                    write!(f, " depth {d}")?;
                }
                if let Some(s) = info.score {
                    write!(f, " score {s}")?;
                }
                if let Some(n) = info.nodes {
                    write!(f, " nodes {n}")?;
                }
                if !info.pv.is_empty() {
                    f.write_str(" pv")?;
                    for sq in &info.pv {
                        write!(f, " {sq}")?;
                    }
                }
                if !info.text.is_empty() {
                    write!(f, " string {}", info.text)?;
                }
                Ok(())
            }
        }
    }
}

/// The `info` line reporting `info`, made to pass the line rules [`check_line`]
/// enforces, whatever `info` holds: every character those rules refuse in the
/// text is escaped as [`escape_bytes`] quotes it (`\n`, `\x1b`), and a line
/// that would pass [`MAX_LINE_BYTES`] is cut on a character boundary, the
/// principal variation first to the squares that fit and the text then to what
/// fits, ending in `…`. So a bot that logs through it (the Python package's
/// `format_info`) never loses a game for its `info` line. Without anything to
/// cut or escape it is `FromBot::Info(info.clone()).to_string()`.
pub fn info_line(info: &Info) -> String {
    const MORE: &str = "…";
    // The numbers take a few hundred bytes at most (an f64 written out in full
    // is under 330): always whole.
    let mut line = FromBot::Info(Info {
        depth: info.depth,
        score: info.score,
        nodes: info.nodes,
        pv: Vec::new(),
        text: String::new(),
    })
    .to_string();
    let square = " e5".len();
    if let Some(first) = info.pv.first()
        && line.len() + " pv".len() + square <= MAX_LINE_BYTES
    {
        let _ = write!(line, " pv {first}");
        for sq in &info.pv[1..] {
            if line.len() + square > MAX_LINE_BYTES {
                break;
            }
            let _ = write!(line, " {sq}");
        }
    }
    if info.text.is_empty() {
        return line;
    }
    const STRING: &str = " string ";
    let Some(room) = MAX_LINE_BYTES.checked_sub(line.len() + STRING.len()) else {
        return line;
    };
    let mut text = String::new();
    // How much of `text` stays when the rest is cut: whole characters (and
    // whole escapes), with room left for the mark of the cut.
    let mut kept = 0;
    let mut buf = [0; 4];
    let mut cut = false;
    for c in info.text.chars() {
        let before = text.len();
        if is_refused_in_a_line(c) {
            text.push_str(&escape_bytes(c.encode_utf8(&mut buf).as_bytes()));
        } else {
            text.push(c);
        }
        if text.len() > room {
            text.truncate(before);
            cut = true;
            break;
        }
        if text.len() + MORE.len() <= room {
            kept = text.len();
        }
    }
    if cut {
        if room < MORE.len() {
            return line;
        }
        text.truncate(kept);
        text.push_str(MORE);
    }
    line.push_str(STRING);
    line.push_str(&text);
    line
}

fn write_list(f: &mut fmt::Formatter<'_>, squares: &[Square]) -> fmt::Result {
    if squares.is_empty() {
        return f.write_str("none");
    }
    for (i, sq) in squares.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{sq}")?;
    }
    Ok(())
}

impl fmt::Display for ToBot {
    /// The line the referee sends, without the newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToBot::Hello { version } => write!(f, "{PROTOCOL_NAME} {version}"),
            ToBot::NewGame(g) => {
                write!(
                    f,
                    "newgame mark {} rules {} opponent {} seed {}",
                    g.mark, g.rules, g.opponent, g.seed
                )?;
                let t = &g.timing;
                if let Some(d) = t.move_time {
                    write!(f, " movetime {}", d.as_millis())?;
                }
                if let Some(d) = t.first_move_time {
                    write!(f, " firsttime {}", d.as_millis())?;
                }
                write!(f, " margin {}", t.margin.as_millis())?;
                if let Some((clock, inc)) = t.clock {
                    write!(f, " clock {} inc {}", clock.as_millis(), inc.as_millis())?;
                }
                if let Some(nodes) = t.nodes {
                    write!(f, " nodes {nodes}")?;
                }
                Ok(())
            }
            ToBot::Go(g) => write!(f, "{g}"),
            ToBot::GameOver(g) => {
                let result = g.winner.map_or("draw".to_string(), |m| m.to_string());
                write!(f, "gameover result {result} reason {} moves ", g.reason)?;
                write_list(f, &g.moves)
            }
            ToBot::Quit => f.write_str("quit"),
        }
    }
}

impl fmt::Display for Go {
    /// The `go` line, without the newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "go time {}", self.time.as_millis())?;
        if let Some((mine, theirs)) = self.clocks {
            write!(
                f,
                " clock {} opclock {}",
                mine.as_millis(),
                theirs.as_millis()
            )?;
        }
        if let Some(nodes) = self.nodes {
            write!(f, " nodes {nodes}")?;
        }
        f.write_str(" last ")?;
        match self.last {
            Some(sq) => write!(f, "{sq}")?,
            None => f.write_str("none")?,
        }
        f.write_str(" moves ")?;
        write_list(f, &self.moves)?;
        f.write_str(" legal ")?;
        write_list(f, &self.legal)
    }
}

impl Go {
    /// A `go` for `legal`, listing the legal moves in reading order (a1, b1, … i9)
    /// so a person reading a transcript finds them easily.
    pub fn new(time: Duration, moves: &[Square], legal: MoveSet) -> Go {
        let legal: Vec<Square> = READING_ORDER
            .iter()
            .copied()
            .filter(|&sq| legal.contains(sq))
            .collect();
        Go {
            time,
            last: moves.last().copied(),
            moves: moves.to_vec(),
            legal,
            clocks: None,
            nodes: None,
        }
    }
}

/// All squares in reading order (a1, b1, … i1, a2, …): `legal` lists are sent in
/// this order without sorting on every move.
static READING_ORDER: [Square; 81] = {
    let mut squares =
        [Square::new(crate::rules::BoardIndex::ALL[0], crate::rules::Cell::ALL[0]); 81];
    let mut i = 0;
    while i < 81 {
        let (column, row) = ((i % 9) as u8, (i / 9) as u8);
        if let Some(sq) = Square::from_column_row(column, row) {
            squares[i] = sq;
        }
        i += 1;
    }
    squares
};

/// Why a referee line could not be read (bot side). Bots report these on stderr
/// and carry on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot read referee line '{line}': {problem}")]
pub struct ToBotError {
    /// The line.
    pub line: String,
    /// What is wrong.
    pub problem: String,
}

/// Parses one line from the referee (bot side). Unknown keys are ignored, as
/// protocol.md asks of bots.
///
/// # Errors
/// [`ToBotError`] for an unknown command or a missing or malformed required key.
///
/// ```
/// use std::time::Duration;
/// use uttt::protocol::{ToBot, parse_to_bot};
/// let line = "go time 100 last e5 moves e5 legal d4,e4,f4,d5,f5,d6,e6,f6";
/// let Ok(ToBot::Go(go)) = parse_to_bot(line) else {
///     panic!("a go line")
/// };
/// assert_eq!(go.time, Duration::from_millis(100));
/// assert_eq!(go.last, Some("e5".parse().unwrap()));
/// assert_eq!(go.legal.len(), 8);
/// // Formatting gives the line back.
/// assert_eq!(ToBot::Go(go).to_string(), line);
/// assert_eq!(parse_to_bot("uttt 1"), Ok(ToBot::Hello { version: 1 }));
/// assert!(parse_to_bot("go legal e5").is_err(), "time is required");
/// ```
pub fn parse_to_bot(line: &str) -> Result<ToBot, ToBotError> {
    let fail = |problem: String| ToBotError {
        line: line.trim().to_string(),
        problem,
    };
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&command, rest)) = words.split_first() else {
        return Err(fail("empty line".into()));
    };
    let fields: Vec<(&str, &str)> = rest
        .chunks(2)
        .filter_map(|c| Some((c[0], *c.get(1)?)))
        .collect();
    let get = |key: &str| fields.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
    let need = |key: &str| get(key).ok_or_else(|| fail(format!("missing '{key}'")));
    let ms = |key: &str| -> Result<Option<Duration>, ToBotError> {
        get(key)
            .map(|v| v.parse::<u64>().map(Duration::from_millis))
            .transpose()
            .map_err(|_| fail(format!("'{key}' is not a whole number of milliseconds")))
    };
    let count = |key: &str| -> Result<Option<u64>, ToBotError> {
        get(key)
            .map(str::parse::<u64>)
            .transpose()
            .map_err(|_| fail(format!("'{key}' is not a whole number")))
    };
    let squares = |key: &str| -> Result<Vec<Square>, ToBotError> {
        match need(key)? {
            "none" => Ok(Vec::new()),
            list => list
                .split(',')
                .map(|s| {
                    s.parse::<Square>()
                        .map_err(|e| fail(format!("'{key}': {e}")))
                })
                .collect(),
        }
    };
    match command {
        "uttt" => {
            let version = rest
                .first()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| fail("missing version number".into()))?;
            Ok(ToBot::Hello { version })
        }
        "newgame" => {
            let mark = need("mark")?.parse::<Mark>().map_err(fail)?;
            let rules = need("rules")?
                .parse::<Rules>()
                .map_err(|e| fail(e.to_string()))?;
            let seed = need("seed")?
                .parse::<u64>()
                .map_err(|_| fail("'seed' is not a number".into()))?;
            let clock = match (ms("clock")?, ms("inc")?) {
                (Some(c), inc) => Some((c, inc.unwrap_or_default())),
                (None, _) => None,
            };
            let timing = Timing {
                move_time: ms("movetime")?,
                first_move_time: ms("firsttime")?,
                margin: ms("margin")?.unwrap_or_default(),
                clock,
                nodes: count("nodes")?,
            };
            let opponent = get("opponent").unwrap_or("unknown").to_string();
            Ok(ToBot::NewGame(NewGame {
                mark,
                rules,
                opponent,
                seed,
                timing,
            }))
        }
        "go" => {
            let time = ms("time")?.ok_or_else(|| fail("missing 'time'".into()))?;
            let last = match need("last")? {
                "none" => None,
                sq => Some(
                    sq.parse::<Square>()
                        .map_err(|e| fail(format!("'last': {e}")))?,
                ),
            };
            let clocks = match (ms("clock")?, ms("opclock")?) {
                (Some(a), Some(b)) => Some((a, b)),
                _ => None,
            };
            Ok(ToBot::Go(Go {
                time,
                last,
                moves: squares("moves")?,
                legal: squares("legal")?,
                clocks,
                nodes: count("nodes")?,
            }))
        }
        "gameover" => {
            let winner = match need("result")? {
                "draw" => None,
                m => Some(m.parse::<Mark>().map_err(fail)?),
            };
            let reason = need("reason")?.to_string();
            let moves = if get("moves").is_some() {
                squares("moves")?
            } else {
                Vec::new()
            };
            Ok(ToBot::GameOver(GameOver {
                winner,
                reason,
                moves,
            }))
        }
        "quit" => Ok(ToBot::Quit),
        other => Err(fail(format!("unknown command '{other}'"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn moves_resign_ready_and_id() {
        assert_eq!(parse_from_bot(b"e5"), Ok(FromBot::Move(sq("e5"))));
        assert_eq!(parse_from_bot(b"  e5 \r"), Ok(FromBot::Move(sq("e5"))));
        assert_eq!(parse_from_bot(b"e5\t"), Ok(FromBot::Move(sq("e5"))));
        assert_eq!(parse_from_bot(b"resign"), Ok(FromBot::Resign));
        assert_eq!(parse_from_bot(b"ready"), Ok(FromBot::Ready));
        assert_eq!(
            parse_from_bot(b"id name Deep Tac Toe"),
            Ok(FromBot::Id(IdField::Name, "Deep Tac Toe".into()))
        );
    }

    #[test]
    fn bad_lines_are_classified_and_quoted() {
        assert_eq!(
            parse_from_bot(b"j4").unwrap_err().to_string(),
            "'j4' is not a square: columns are a..i"
        );
        assert!(matches!(
            parse_from_bot(b"e0"),
            Err(LineError::BadSquare(_))
        ));
        assert!(matches!(
            parse_from_bot(b"e99999999999999999999"),
            Err(LineError::BadSquare(_))
        ));
        assert_eq!(
            parse_from_bot(b"hello").unwrap_err().to_string(),
            "'hello' is not a move (a1..i9), 'resign' or an 'info' line"
        );
        assert!(matches!(
            parse_from_bot(b"e4 f5"),
            Err(LineError::Unknown { .. })
        ));
        assert!(matches!(
            parse_from_bot(b"E5"),
            Err(LineError::BadSquare(_))
        ));
        assert_eq!(parse_from_bot(b""), Err(LineError::Empty));
        assert_eq!(
            parse_from_bot(b"\xff\xfe"),
            Err(LineError::InvalidUtf8 {
                escaped: "\\xff\\xfe".into()
            })
        );
        assert_eq!(
            parse_from_bot(b"e\x005"),
            Err(LineError::ControlCharacter {
                escaped: "e\\x005".into()
            })
        );
        assert_eq!(
            parse_from_bot(&[b'a'; MAX_LINE_BYTES + 1]),
            Err(LineError::TooLong)
        );
    }

    #[test]
    fn info_fields() {
        let FromBot::Info(info) =
            parse_from_bot(b"info depth 7 score -0.25 nodes 12345 pv e5 e4 d4 string hello there")
                .unwrap()
        else {
            panic!("not info")
        };
        assert_eq!(info.depth, Some(7));
        assert_eq!(info.score, Some(-0.25));
        assert_eq!(info.nodes, Some(12345));
        assert_eq!(info.pv, vec![sq("e5"), sq("e4"), sq("d4")]);
        assert_eq!(info.text, "hello there");
        let FromBot::Info(odd) = parse_from_bot(b"info depth deep score NaN wow").unwrap() else {
            panic!("not info")
        };
        assert_eq!(odd.depth, None);
        assert_eq!(odd.score, None);
        assert_eq!(odd.text, "depth deep score NaN wow");
    }

    #[test]
    fn referee_messages_round_trip() {
        let timing = Timing {
            move_time: Some(Duration::from_millis(100)),
            first_move_time: Some(Duration::from_millis(1000)),
            margin: Duration::from_millis(50),
            clock: None,
            nodes: Some(5000),
        };
        let messages = [
            ToBot::Hello { version: 1 },
            ToBot::NewGame(NewGame {
                mark: Mark::O,
                rules: "open-won-boards+most-boards".parse().unwrap(),
                opponent: "mcts".into(),
                seed: u64::MAX,
                timing,
            }),
            ToBot::NewGame(NewGame {
                mark: Mark::X,
                rules: Rules::STANDARD,
                opponent: "b".into(),
                seed: 0,
                timing: Timing {
                    move_time: None,
                    first_move_time: None,
                    margin: Duration::ZERO,
                    clock: Some((Duration::from_secs(60), Duration::from_secs(1))),
                    nodes: None,
                },
            }),
            ToBot::Go(Go::new(Duration::from_millis(100), &[sq("e5")], {
                crate::rules::Position::new(Rules::STANDARD)
                    .play(sq("e5"))
                    .unwrap()
                    .legal_moves()
            })),
            ToBot::Go(Go {
                time: Duration::from_millis(900),
                last: None,
                moves: vec![],
                legal: vec![sq("a1")],
                clocks: Some((Duration::from_millis(900), Duration::from_millis(1200))),
                nodes: Some(20_000),
            }),
            ToBot::GameOver(GameOver {
                winner: None,
                reason: "no-moves".into(),
                moves: vec![sq("e5")],
            }),
            ToBot::GameOver(GameOver {
                winner: Some(Mark::X),
                reason: "timeout".into(),
                moves: vec![],
            }),
            ToBot::Quit,
        ];
        for m in messages {
            assert_eq!(parse_to_bot(&m.to_string()), Ok(m.clone()), "{m}");
        }
    }

    #[test]
    fn go_text_is_what_protocol_md_shows() {
        let pos = crate::rules::Position::new(Rules::STANDARD)
            .play(sq("e5"))
            .unwrap();
        let go = ToBot::Go(Go::new(
            Duration::from_millis(100),
            &[sq("e5")],
            pos.legal_moves(),
        ));
        assert_eq!(
            go.to_string(),
            "go time 100 last e5 moves e5 legal d4,e4,f4,d5,f5,d6,e6,f6"
        );
    }

    #[test]
    fn unknown_keys_are_ignored_by_bots() {
        let m = parse_to_bot("go time 5 colour blue last none moves none legal a1").unwrap();
        assert!(matches!(m, ToBot::Go(Go { legal, .. }) if legal == vec![sq("a1")]));
        assert!(parse_to_bot("dance now").is_err());
        assert!(parse_to_bot("go time soon last none moves none legal a1").is_err());
    }

    #[test]
    fn an_info_line_escapes_what_the_line_rules_refuse_and_cuts_at_the_limit() {
        let info = |text: &str, pv: Vec<Square>| Info {
            depth: Some(3),
            score: Some(0.5),
            nodes: None,
            pv,
            text: text.into(),
        };
        assert_eq!(
            info_line(&info("ok", vec![sq("e5"), sq("e4")])),
            "info depth 3 score 0.5 pv e5 e4 string ok"
        );
        assert_eq!(
            info_line(&info("\u{1b}[2J\nnext\ttab\u{9b}", Vec::new())),
            "info depth 3 score 0.5 string \\x1b[2J\\nnext\ttab\\xc2\\x9b"
        );
        // 2-byte characters: a cut at the limit would split one.
        let line = info_line(&info(&"é".repeat(3000), Vec::new()));
        assert!(line.len() <= MAX_LINE_BYTES && line.len() > MAX_LINE_BYTES - 4);
        assert!(line.ends_with("é…"), "{line}");
        // A principal variation past the limit keeps the squares that fit, and
        // no text is left room.
        let line = info_line(&info("lost", vec![sq("e5"); 2000]));
        assert!(line.len() <= MAX_LINE_BYTES && !line.contains("string"));
        // Room for " string " and less than the mark of a cut: no text.
        let tight = Info {
            pv: vec![sq("e5"); 1360],
            ..Info::default()
        };
        assert_eq!(
            info_line(&tight).len(),
            MAX_LINE_BYTES - " string ".len() - 1
        );
        let line = info_line(&Info {
            text: "abc".into(),
            ..tight
        });
        assert_eq!(line.len(), MAX_LINE_BYTES - " string ".len() - 1, "{line}");
        assert!(
            matches!(parse_from_bot(line.as_bytes()), Ok(FromBot::Info(i)) if i.pv.len() > 1300)
        );
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic_and_moves_round_trip(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Ok(msg) = parse_from_bot(&bytes) {
                let again = parse_from_bot(msg.to_string().as_bytes());
                if let FromBot::Info(_) = msg {
                    prop_assert!(matches!(again, Ok(FromBot::Info(_))));
                } else {
                    prop_assert_eq!(again, Ok(msg));
                }
            }
        }

        /// Whatever a bot reports, the line made for it is one the referee
        /// reads as an `info` line, with its numbers intact.
        #[test]
        fn every_info_line_is_accepted_by_the_referees_parser(
            depth in any::<Option<u32>>(),
            score in any::<Option<f64>>().prop_map(|s| s.filter(|s| s.is_finite())),
            nodes in any::<Option<u64>>(),
            // Around 1360 squares the line's room for text is a few bytes.
            pv in prop_oneof![
                proptest::collection::vec(0u8..81, 0..1600),
                proptest::collection::vec(0u8..81, 1340..1366),
            ],
            text in prop_oneof![
                any::<String>(),
                proptest::collection::vec(any::<char>(), 0..6000).prop_map(String::from_iter),
                proptest::collection::vec(prop_oneof![Just('é'), Just('€'), Just('\u{1b}'), Just('\n'), Just('x')], 1000..5000)
                    .prop_map(String::from_iter),
            ],
        ) {
            let pv: Vec<Square> = pv.into_iter().filter_map(Square::try_from_index).collect();
            let info = Info { depth, score, nodes, pv, text };
            let line = info_line(&info);
            prop_assert!(line.len() <= MAX_LINE_BYTES, "{} bytes", line.len());
            match parse_from_bot(line.as_bytes()) {
                Ok(FromBot::Info(read)) => {
                    prop_assert_eq!(read.depth, info.depth);
                    prop_assert_eq!(read.score, info.score);
                    prop_assert_eq!(read.nodes, info.nodes);
                    prop_assert!(info.pv.starts_with(&read.pv));
                }
                other => prop_assert!(false, "{:?} for {:?}", other, line),
            }
        }

        #[test]
        fn random_text_never_panics_the_bot_side_parser(line in "\\PC{0,80}") {
            let _ = parse_to_bot(&line);
        }

        #[test]
        fn the_line_limit_does_not_count_a_crlf_end(len in 0usize..=MAX_LINE_BYTES, crlf in any::<bool>()) {
            let mut line = vec![b'x'; len];
            if crlf {
                line.push(b'\r');
            }
            prop_assert!(check_line(&line).is_ok(), "{} bytes", line.len());
            line.insert(0, b' ');
            if line.len() - usize::from(crlf) > MAX_LINE_BYTES {
                prop_assert_eq!(check_line(&line), Err(LineError::TooLong));
            }
        }

        #[test]
        fn padded_squares_are_accepted(index in 0u8..81, left in "[ \t]{0,3}", right in "[ \t]{0,3}", crlf in any::<bool>()) {
            let sq = Square::try_from_index(index).unwrap();
            let line = format!("{left}{sq}{right}{}", if crlf { "\r" } else { "" });
            prop_assert_eq!(parse_from_bot(line.as_bytes()), Ok(FromBot::Move(sq)));
        }
    }
}
