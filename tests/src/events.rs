//! Results directories of a class's event written as a run leaves them, without
//! playing its games: a round robin, a Swiss, a knockout or a league of any
//! size, during its run (a game on a board, a round half played) or finished,
//! with a student left out. The page tests (tests/tests/projector.rs) serve
//! them with `arena serve` and read them in Chromium: playing a round robin of
//! 64 bots for its page would take minutes, and the moment a test looks at
//! would depend on the machine's speed.
//!
//! The files have the columns and the JSON the arena writes (games.csv,
//! tournament.json, swiss.csv, knockout.csv, round.json, live/, grades.csv,
//! grades-history.csv, similarity.csv); the results follow a fixed rule (the
//! higher seed usually wins), so every number the page should show is known
//! here, in [`Written`].

use std::fmt::Write as _;
use std::path::Path;

use serde_json::json;

/// What kind of event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Every pair plays.
    RoundRobin,
    /// Rounds paired by score.
    Swiss,
    /// A bracket.
    Knockout,
    /// A season against the reference levels (`arena league`).
    League,
}

impl Format {
    /// Its word in test names and file names.
    pub fn word(self) -> &'static str {
        match self {
            Format::RoundRobin => "round-robin",
            Format::Swiss => "swiss",
            Format::Knockout => "knockout",
            Format::League => "league",
        }
    }
}

/// When the page is looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    /// A round half played, a game on a board.
    Running,
    /// The run is over.
    Finished,
}

/// What was written, as the page should show it.
#[derive(Clone, Debug, Default)]
pub struct Written {
    /// Every ranked entrant with their points as the page writes them (`3.5`),
    /// best first; a league's students with their rating (`+120`).
    pub ranking: Vec<(String, String)>,
    /// The students left out, with why (as the run says it).
    pub left_out: Vec<(String, String)>,
    /// The round being played: who plays whom.
    pub pairings: Vec<(String, String)>,
    /// The round's byes.
    pub byes: Vec<String>,
    /// A knockout's matches drawn so far, both names (a bye: the name and "").
    pub matches: Vec<(String, String)>,
    /// A league's levels, weakest first.
    pub levels: Vec<String>,
    /// The winner, once finished.
    pub winner: Option<String>,
    /// The game on a board while the run is on: X and O.
    pub live: Option<(String, String)>,
    /// A pair the similarity check flagged (a league), and its first matching
    /// fragment.
    pub flagged: Option<(String, String)>,
    /// The evidence of the flagged pair: its first matching fragment.
    pub evidence: String,
}

/// First names of a class, some long, none alike.
const NAMES: [&str; 32] = [
    "ada",
    "bjarne",
    "grace",
    "linus",
    "margaret",
    "dennis",
    "barbara",
    "ken",
    "radia",
    "edsger",
    "frances",
    "guido",
    "hedy",
    "ivan",
    "jean",
    "katherine",
    "leslie",
    "mary",
    "niklaus",
    "ole",
    "anita",
    "quentin",
    "rosalind",
    "sophie",
    "tim",
    "ursula",
    "vint",
    "whitfield",
    "xiaolin",
    "yukihiro",
    "zuse",
    "alexandra",
];

/// `n` distinct student names.
pub fn names(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            let name = NAMES[i % NAMES.len()];
            match i / NAMES.len() {
                0 => name.to_string(),
                k => format!("{name}{}", k + 1),
            }
        })
        .collect()
}

/// Why the last student is left out, as a run says it.
pub const LEFT_OUT_WHY: &str = "it could not be started: it exited (exit code 1) before 'ready'; stderr ends: File \"bot.py\", line 2 | def x(: | ^ | SyntaxError: invalid syntax";

/// The columns of games.csv.
const GAMES_HEADER: &str = "id,round,pair,x,o,opening,winner,winner_name,reason,detail,plies,boards_x,boards_o,rules,duration_ms,seed,x_version,o_version";

/// The reference levels a league plays, and their ratings (bots/levels.toml).
const LEVELS: [(&str, i64); 5] = [
    ("level1", 0),
    ("level2", 199),
    ("level3", 366),
    ("level4", 565),
    ("level5", 775),
];

/// A rating as the page writes it: `+350`, `-20`, `0`.
pub fn rating_text(r: i64) -> String {
    match r {
        0 => "0".into(),
        r if r > 0 => format!("+{r}"),
        r => format!("{r}"),
    }
}

/// One finished game.
#[derive(Clone, Debug)]
struct Game {
    round: u32,
    pair: u32,
    x: usize,
    o: usize,
    /// X's half-points: 2, 1 or 0.
    x_half: u32,
}

/// X's half-points in game `k` between seeds `x` and `o`: the higher seed (the
/// lower index) usually wins, sometimes draws, now and then loses.
fn outcome(x: usize, o: usize, k: usize) -> u32 {
    let roll = (x * 31 + o * 17 + k * 7) % 10;
    let x_stronger = x < o;
    match roll {
        0..=5 => {
            if x_stronger {
                2
            } else {
                0
            }
        }
        6 | 7 => 1,
        _ => {
            if x_stronger {
                0
            } else {
                2
            }
        }
    }
}

/// Points as the page writes them: `3`, `3.5`.
pub fn points(half: u32) -> String {
    if half.is_multiple_of(2) {
        format!("{}", half / 2)
    } else {
        format!("{}.5", half / 2)
    }
}

/// A results directory in `dir`: `format` with `entrants` names (the last one
/// left out), at `moment`.
#[allow(clippy::expect_used)]
pub fn write(dir: &Path, format: Format, entrants: usize, moment: Moment) -> Written {
    std::fs::create_dir_all(dir).expect("results dir");
    let all = names(entrants);
    let (playing, left) = all.split_at(entrants - 1);
    let left_out = vec![(left[0].clone(), LEFT_OUT_WHY.to_string())];
    let mut written = match format {
        Format::RoundRobin => round_robin(dir, playing, moment),
        Format::Swiss => swiss(dir, playing, moment),
        Format::Knockout => knockout(dir, playing, moment),
        Format::League => league(dir, playing, &left[0], moment),
    };
    written.left_out = left_out;
    let finished = moment == Moment::Finished;
    let (format_key, bots, total) = written_key(format, playing, &written);
    let manifest = json!({
        "arena_version": "0.1.0",
        "name": format!("class {}", format.word()),
        "schedule": {
            "seed": 5, "rules": "standard", "format": format_key, "games_per_pairing": 2,
            "openings": "none",
            "bots": bots.iter().map(|b| json!({
                "name": b, "command": "python3 bot.py", "protocol": "uttt", "move_ms": 200,
                "first_move_ms": 2000, "margin_ms": 100, "clock_ms": null, "increment_ms": null
            })).collect::<Vec<_>>(),
            "clock": "fair"
        },
        "concurrency": 2, "processes": "reuse", "shard": null,
        "games_total": total, "games_done": count_games(dir),
        "started_at": "2026-12-01T09:00:00Z",
        "finished_at": if finished { json!("2026-12-01T09:40:00Z") } else { json!(null) },
        "failures": {}, "sandbox": null,
        "display": { "pace_ms": 300, "audience": "class" },
        "left_out": written.left_out.iter().map(|(name, why)| json!({ "name": name, "why": why })).collect::<Vec<_>>()
    });
    std::fs::write(
        dir.join("tournament.json"),
        serde_json::to_vec_pretty(&manifest).expect("json"),
    )
    .expect("write tournament.json");
    if !finished {
        live_game(dir, &written);
    }
    written
}

/// The manifest's format, bots and total games.
fn written_key(
    format: Format,
    playing: &[String],
    written: &Written,
) -> (String, Vec<String>, u64) {
    let n = playing.len() as u64;
    match format {
        Format::RoundRobin => ("round-robin".into(), playing.to_vec(), n * (n - 1)),
        Format::Swiss => (
            format!("swiss:{}", swiss_rounds(playing.len())),
            playing.to_vec(),
            u64::from(swiss_rounds(playing.len())) * (n / 2) * 2,
        ),
        Format::Knockout => ("knockout:2".into(), playing.to_vec(), (n - 1) * 2),
        Format::League => {
            let mut bots = playing.to_vec();
            bots.extend(written.levels.iter().cloned());
            (
                "league:levels".into(),
                bots,
                n * written.levels.len() as u64 * 2,
            )
        }
    }
}

fn count_games(dir: &Path) -> u64 {
    std::fs::read_to_string(dir.join("games.csv"))
        .map_or(0, |t| t.lines().count().saturating_sub(1) as u64)
}

/// The rounds of a Swiss of `n`: enough to find a winner.
pub fn swiss_rounds(n: usize) -> u32 {
    (n.max(2).next_power_of_two().trailing_zeros()).max(3)
}

/// Writes games.csv of `games` (names from `names`, versions from `version`).
#[allow(clippy::expect_used)]
fn write_games(dir: &Path, games: &[Game], names: &[String], version: &dyn Fn(usize) -> String) {
    let mut text = format!("{GAMES_HEADER}\n");
    for (k, g) in games.iter().enumerate() {
        let (winner, winner_name, reason, detail) = match g.x_half {
            2 => (
                "X",
                names[g.x].as_str(),
                "three-in-a-row",
                "three boards in a row",
            ),
            0 => (
                "O",
                names[g.o].as_str(),
                "three-in-a-row",
                "three boards in a row",
            ),
            _ => (
                "draw",
                "",
                "no-moves",
                "no legal move left and no line of boards",
            ),
        };
        let _ = writeln!(
            text,
            "G{:04},{},{},{},{},,{winner},{winner_name},{reason},{detail},{},3,2,standard,900,{},{},{}",
            k + 1,
            g.round,
            g.pair,
            names[g.x],
            names[g.o],
            40 + k % 30,
            1000 + k,
            version(g.x),
            version(g.o),
        );
    }
    std::fs::write(dir.join("games.csv"), text).expect("write games.csv");
}

fn no_version(_: usize) -> String {
    String::new()
}

/// Both games of a pairing, each bot X once.
fn pairing(round: u32, pair: u32, a: usize, b: usize) -> [Game; 2] {
    [
        Game {
            round,
            pair,
            x: a,
            o: b,
            x_half: outcome(a, b, 2 * pair as usize),
        },
        Game {
            round,
            pair,
            x: b,
            o: a,
            x_half: outcome(b, a, 2 * pair as usize + 1),
        },
    ]
}

/// Half-points of each bot in `games`.
fn half_points(games: &[Game], n: usize) -> Vec<u32> {
    let mut half = vec![0u32; n];
    for g in games {
        half[g.x] += g.x_half;
        half[g.o] += 2 - g.x_half;
    }
    half
}

/// Bots by points, best first, then by seed.
fn ranked(half: &[u32]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..half.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(half[i]), i));
    order
}

fn round_robin(dir: &Path, names: &[String], moment: Moment) -> Written {
    let n = names.len();
    let mut games = Vec::new();
    let mut pair = 0;
    for i in 0..n {
        for j in i + 1..n {
            pair += 1;
            games.extend(pairing(1, pair, i, j));
        }
    }
    if moment == Moment::Running {
        games.truncate(games.len() * 2 / 5);
    }
    write_games(dir, &games, names, &no_version);
    let half = half_points(&games, n);
    let order = ranked(&half);
    let mut written = Written {
        ranking: order
            .iter()
            .map(|&i| (names[i].clone(), points(half[i])))
            .collect(),
        ..Written::default()
    };
    match moment {
        Moment::Finished => written.winner = Some(names[order[0]].clone()),
        Moment::Running => written.live = Some((names[n - 2].clone(), names[n - 1].clone())),
    }
    written
}

#[allow(clippy::expect_used)]
fn swiss(dir: &Path, names: &[String], moment: Moment) -> Written {
    let n = names.len();
    let rounds = swiss_rounds(n);
    let played = match moment {
        Moment::Running => rounds / 2,
        Moment::Finished => rounds,
    };
    let mut games = Vec::new();
    let mut byes = vec![0u32; n];
    let mut pair = 0;
    let mut round_pairs = Vec::new();
    let mut round_bye = None;
    for round in 1..=played + 1 {
        if round > rounds {
            break;
        }
        let mut half = half_points(&games, n);
        for (i, b) in byes.iter().enumerate() {
            half[i] += b * 4;
        }
        let order = ranked(&half);
        let bye = (n % 2 == 1).then(|| {
            *order
                .iter()
                .rev()
                .find(|&&i| byes[i] == 0)
                .unwrap_or(&order[n - 1])
        });
        let paired: Vec<usize> = order.into_iter().filter(|&i| Some(i) != bye).collect();
        let pairs: Vec<(usize, usize)> = paired.chunks(2).map(|c| (c[0], c[1])).collect();
        if round == played + 1 {
            round_pairs = pairs;
            round_bye = bye;
            break;
        }
        for (a, b) in pairs {
            pair += 1;
            games.extend(pairing(round, pair, a, b));
        }
        if let Some(b) = bye {
            byes[b] += 1;
        }
    }
    // The round being played: its first pairing finished, its second on a board.
    let mut current = Vec::new();
    if moment == Moment::Running {
        for (k, &(a, b)) in round_pairs.iter().enumerate().take(1) {
            current.extend(pairing(played + 1, pair + 1 + k as u32, a, b));
        }
        games.extend(current.iter().cloned());
    }
    write_games(dir, &games, names, &no_version);
    // swiss.csv: the table after the rounds finished (a bye is worth 2 points).
    let finished: Vec<Game> = games
        .iter()
        .filter(|g| g.round <= played)
        .cloned()
        .collect();
    let mut half = half_points(&finished, n);
    for (i, b) in byes.iter().enumerate() {
        half[i] += b * 4;
    }
    let order = ranked(&half);
    let mut table = String::from("rank,bot,points,buchholz,sonneborn_berger,byes\n");
    for (rank, &i) in order.iter().enumerate() {
        let _ = writeln!(
            table,
            "{},{},{},{}.0,{}.5,{}",
            rank + 1,
            names[i],
            f64::from(half[i]) / 2.0,
            (n - rank) * 2,
            n - rank,
            byes[i]
        );
    }
    std::fs::write(dir.join("swiss.csv"), table).expect("swiss.csv");
    let mut written = Written {
        ranking: order
            .iter()
            .map(|&i| (names[i].clone(), points(half[i])))
            .collect(),
        ..Written::default()
    };
    if moment == Moment::Running {
        let round = json!({
            "number": played + 1,
            "of": rounds,
            "pairs": round_pairs.iter().map(|&(a, b)| json!([names[a], names[b]])).collect::<Vec<_>>(),
            "byes": round_bye.iter().map(|&b| names[b].clone()).collect::<Vec<_>>(),
        });
        std::fs::write(
            dir.join("round.json"),
            serde_json::to_vec_pretty(&round).expect("json"),
        )
        .expect("round.json");
        written.pairings = round_pairs
            .iter()
            .map(|&(a, b)| (names[a].clone(), names[b].clone()))
            .collect();
        written.byes = round_bye.iter().map(|&b| names[b].clone()).collect();
        written.live = written.pairings.get(1).cloned();
    } else {
        written.winner = Some(names[order[0]].clone());
    }
    written
}

/// The seeds of a bracket of `size` in slot order (as the arena draws it).
fn bracket_order(size: usize) -> Vec<usize> {
    let mut order = vec![0usize];
    while order.len() < size {
        let m = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, m - 1 - s]).collect();
    }
    order
}

#[allow(clippy::expect_used)]
fn knockout(dir: &Path, names: &[String], moment: Moment) -> Written {
    let n = names.len();
    let size = n.next_power_of_two();
    let rounds = size.trailing_zeros();
    // Running: the second round half played.
    let last = match moment {
        Moment::Running => 2.min(rounds),
        Moment::Finished => rounds,
    };
    let mut slots: Vec<Option<usize>> = bracket_order(size)
        .into_iter()
        .map(|s| (s < n).then_some(s))
        .collect();
    let mut games = Vec::new();
    let mut rows = String::from("round,a,b,a_points,b_points,winner,decided_by\n");
    let mut written = Written::default();
    let mut pair = 0;
    let mut current = (Vec::new(), Vec::new());
    for round in 1..=last {
        let mut next = Vec::new();
        let mut byes = Vec::new();
        let mut matches = Vec::new();
        for slot in slots.chunks(2) {
            match (slot[0], slot[1]) {
                (Some(a), Some(b)) => matches.push((a.min(b), a.max(b))),
                (Some(a), None) | (None, Some(a)) => byes.push(a),
                (None, None) => {}
            }
        }
        for &b in &byes {
            let _ = writeln!(rows, "{round},{},,,,{},bye", names[b], names[b]);
            written.matches.push((names[b].clone(), String::new()));
        }
        let playing = moment == Moment::Running && round == last;
        if playing {
            current = (matches.clone(), byes.clone());
            written.live = matches
                .get(1)
                .or(matches.first())
                .map(|&(a, b)| (names[b].clone(), names[a].clone()));
        }
        for (k, &(a, b)) in matches.iter().enumerate() {
            pair += 1;
            written.matches.push((names[a].clone(), names[b].clone()));
            // While the round is played: the first match over, the second
            // with one game finished, the others not started.
            let played: Vec<Game> = match (playing, k) {
                (false, _) | (true, 0) => pairing(round, pair, a, b).to_vec(),
                (true, 1) => pairing(round, pair, a, b)[..1].to_vec(),
                _ => Vec::new(),
            };
            let half = half_points(&played, n);
            let (ha, hb) = (half[a], half[b]);
            games.extend(played.iter().cloned());
            let decided = !playing || k == 0;
            let winner = if ha >= hb { a } else { b };
            if decided {
                let by = if ha == hb { "seed" } else { "games" };
                let _ = writeln!(
                    rows,
                    "{round},{},{},{}.{},{}.{},{},{by}",
                    names[a],
                    names[b],
                    ha / 2,
                    5 * (ha % 2),
                    hb / 2,
                    5 * (hb % 2),
                    names[winner]
                );
            } else {
                let _ = writeln!(
                    rows,
                    "{round},{},{},{}.{},{}.{},,",
                    names[a],
                    names[b],
                    ha / 2,
                    5 * (ha % 2),
                    hb / 2,
                    5 * (hb % 2)
                );
            }
            next.push(Some(winner));
        }
        // Slots of the next round, in bracket order: byes and winners interleave
        // as the pairs of slots did.
        let mut order = Vec::new();
        let (mut bi, mut mi) = (0, 0);
        for slot in slots.chunks(2) {
            match (slot[0], slot[1]) {
                (Some(_), Some(_)) => {
                    order.push(next[mi]);
                    mi += 1;
                }
                (Some(_), None) | (None, Some(_)) => {
                    order.push(Some(byes[bi]));
                    bi += 1;
                }
                (None, None) => order.push(None),
            }
        }
        slots = order;
        if round == rounds && !playing {
            written.winner = slots[0].map(|w| names[w].clone());
        }
    }
    write_games(dir, &games, names, &no_version);
    std::fs::write(dir.join("knockout.csv"), rows).expect("knockout.csv");
    if moment == Moment::Running {
        let round = json!({
            "number": last,
            "of": rounds,
            "pairs": current.0.iter().map(|&(a, b)| json!([names[a], names[b]])).collect::<Vec<_>>(),
            "byes": current.1.iter().map(|&b| names[b].clone()).collect::<Vec<_>>(),
        });
        std::fs::write(
            dir.join("round.json"),
            serde_json::to_vec_pretty(&round).expect("json"),
        )
        .expect("round.json");
    }
    written
}

/// A league: each student against five levels (two games each), the first
/// student resubmitted once (their first version retired), the last left out
/// by a failed build, and a pair flagged as similar.
#[allow(clippy::expect_used)]
fn league(dir: &Path, students: &[String], left: &str, moment: Moment) -> Written {
    let n = students.len();
    let mut names: Vec<String> = students.to_vec();
    names.extend(LEVELS.iter().map(|(l, _)| (*l).to_string()));
    let level = |k: usize| n + k;
    let mut games = Vec::new();
    let mut pair = 0;
    // The first student's first version played, then their second.
    for round in 1..=2u32 {
        for s in 0..n {
            if round == 2 && s != 0 {
                continue;
            }
            for k in 0..LEVELS.len() {
                pair += 1;
                // A student is "stronger" than the levels below their seed's place.
                let strength = (n - s) * LEVELS.len() / n;
                let [mut g1, mut g2] = pairing(round, pair, s, level(k));
                g1.x_half = if k < strength { 2 } else { 0 };
                g2.x_half = if k < strength { 0 } else { 2 };
                games.extend([g1, g2]);
            }
        }
    }
    if moment == Moment::Running {
        games.truncate(games.len() * 3 / 5);
    }
    let version = |i: usize| {
        if i < n {
            format!("{:012x}", 0xabc000 + i)
        } else {
            format!("{:012x}", 0xfff000 + i)
        }
    };
    write_games(dir, &games, &names, &version);
    // grades: rating from the place among the levels.
    let header = "student,version,version_since,versions,status,rating,rating_low,rating_high,highest_level,result,games,faults,detail,feedback\n";
    let mut grades = String::from(header);
    let mut history = String::from(header);
    let mut ranking = Vec::new();
    for (s, student) in students.iter().enumerate() {
        let strength = (n - s) * LEVELS.len() / n;
        // Between the last level beaten and the next, apart from each other.
        let below = if strength == 0 {
            -150
        } else {
            LEVELS[strength - 1].1
        };
        let above = LEVELS.get(strength).map_or(below + 200, |l| l.1);
        let rating = below + (above - below) * (n - s) as i64 / (n as i64 + 1) + 1;
        let highest = if strength == 0 {
            String::new()
        } else {
            LEVELS[strength - 1].0.to_string()
        };
        let result = if strength >= 3 { "pass" } else { "fail" };
        let versions = if s == 0 { 2 } else { 1 };
        let row = |v: &str, status: &str, rating: i64| {
            format!(
                "{student},{v},2026-12-0{}T10:00:00Z,{versions},{status},{rating},{},{},{highest},{result},10,0,,feedback/{student}.txt\n",
                if status == "retired" { 1 } else { 2 },
                rating - 120,
                rating + 120,
            )
        };
        if s == 0 {
            history.push_str(&row("000000abc0ff", "retired", rating - 200));
        }
        let line = row(&version(s), "current", rating);
        grades.push_str(&line);
        history.push_str(&line);
        ranking.push((student.clone(), rating_text(rating)));
    }
    // The left-out student: an earlier version's grade kept.
    let kept = format!(
        "{left},00000000beef,2026-12-01T10:00:00Z,1,left-out,40,-80,160,,fail,10,0,build failed (exit code 1): main.cpp:1:5: error: expected ')' before '{{' token,feedback/{left}.txt\n"
    );
    grades.push_str(&kept);
    history.push_str(&kept.replace("left-out", "retired"));
    std::fs::write(dir.join("grades.csv"), grades).expect("grades.csv");
    std::fs::write(dir.join("grades-history.csv"), history).expect("history");
    let (a, b) = (students[1].clone(), students[n - 1].clone());
    std::fs::write(
        dir.join("similarity.csv"),
        format!(
            "a,b,family,score,shared,behaviour,positions,flagged,threshold,evidence\n\
             {a},{b},python,0.84,61,0.9,30,yes,0.6,bot.py:12-40 ~ bot.py:30-58\n"
        ),
    )
    .expect("similarity.csv");
    Written {
        ranking,
        levels: LEVELS.iter().map(|(l, _)| (*l).to_string()).collect(),
        flagged: Some((a, b)),
        evidence: "bot.py:12-40 ~ bot.py:30-58".into(),
        live: (moment == Moment::Running).then(|| (students[2].clone(), "level3".to_string())),
        ..Written::default()
    }
}

/// A game on a board: the live files of a game of the round being played,
/// its process this test's own (so it reads as running).
#[allow(clippy::expect_used)]
fn live_game(dir: &Path, written: &Written) {
    let (x, o) = written
        .live
        .clone()
        .expect("a game on a board while running");
    let live = dir.join("live");
    std::fs::create_dir_all(&live).expect("live dir");
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap_or_default()
        .trim()
        .to_string();
    let header = json!({
        "game": "G9001", "round": 2, "pair": 2, "x": x, "o": o, "rules": "standard",
        "started": "2026-12-01T09:20:00Z", "pid": std::process::id(), "host": host
    });
    std::fs::write(live.join("G9001.json"), header.to_string()).expect("live header");
    let mut moves = String::from(
        "game,ply,mark,bot,square,board,cell,free_move,think_ms,depth,score,nodes,info,claimed,drawn\n",
    );
    for (ply, (square, board, cell)) in [
        ("e5", 5, 5),
        ("d4", 5, 1),
        ("b2", 1, 5),
        ("f6", 5, 9),
        ("h8", 9, 5),
    ]
    .iter()
    .enumerate()
    {
        let (mark, bot) = if ply % 2 == 0 { ("X", &x) } else { ("O", &o) };
        let _ = writeln!(
            moves,
            "G9001,{},{mark},{bot},{square},{board},{cell},{},1.0,,,,,,",
            ply + 1,
            ply == 0
        );
    }
    std::fs::write(live.join("G9001.csv"), moves).expect("live moves");
}
