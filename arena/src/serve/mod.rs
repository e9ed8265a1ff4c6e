//! `arena serve`: a live page following results directories while a run writes
//! them (in this process, another one, or shards on a shared file system) or after
//! it finished.
//!
//! - [`snapshot`] reads a directory (games.csv, tournament.json, `live/`) into what
//!   the page shows, replaying games in progress through the rules engine;
//! - [`page`] writes the page's HTML around the report's board markup; the page's
//!   script draws with the report's `board.js` and style: one viewer, not two.
//!
//! Safe by default: it binds 127.0.0.1 unless told otherwise (and warns when bound
//! elsewhere; on a loopback address it answers only requests naming the machine by
//! address or as `localhost`, against DNS rebinding), only reads, never builds a file path from a request (a run is an
//! index, a bot a name looked up among the games), sends a Content-Security-Policy
//! allowing nothing but its own scripts, styles and event stream, sets every bot
//! text with `textContent`, and shows bot command lines and stderr only with
//! `--show-logs`. A slow browser costs the run nothing: clients share one snapshot
//! and the watcher never waits for them. Viewers cannot starve anything: the
//! server holds a capped number of connections, a share of them from one address,
//! gives a request head five seconds, lets a newcomer take the place of a connection
//! still waiting for its head, and closes idle and unread ones ([`connections`]);
//! beside a run it is a process of its own ([`beside`]), so a viewer never takes a
//! descriptor, memory or CPU time the referee needs.

pub mod beside;
pub mod connections;
pub mod page;
pub mod snapshot;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use axum::Router;
use axum::extract::{Path as UrlPath, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use futures_util::stream::Stream;

use crate::report::load::{TEXT_TAIL_BYTES, Tail};
use crate::results::logs;
use crate::results::manifest::Manifest;
use crate::results::nofollow;
pub use beside::beside;
use snapshot::Watched;

/// The page's Content-Security-Policy: its own scripts, styles and event stream,
/// nothing else (no inline script, no other origin, no frames, no forms).
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                       connect-src 'self'; img-src 'self'; base-uri 'none'; \
                       form-action 'none'; frame-ancestors 'none'";

/// What the server shows.
#[derive(Clone, Debug)]
pub struct Options {
    /// The results directories, in the order given.
    pub dirs: Vec<PathBuf>,
    /// Whether bot command lines and stderr may be shown.
    pub show_logs: bool,
}

#[derive(Debug)]
struct App {
    runs: Vec<Watched>,
    show_logs: bool,
    /// Bound to this machine only: then requests must name it by address or as
    /// `localhost` (a web page elsewhere that rebinds its own name to 127.0.0.1
    /// cannot read the page).
    loopback: bool,
}

type Shared = Arc<App>;

/// Binds `addr`, saying what it does when it is not this machine only.
///
/// # Errors
/// The address cannot be bound (in use, not ours), with the fix.
pub fn bind(addr: SocketAddr) -> anyhow::Result<std::net::TcpListener> {
    let listener = std::net::TcpListener::bind(addr).with_context(|| {
        format!(
            "cannot listen on {addr}: give another address with --addr (or --serve ADDR), \
             e.g. 127.0.0.1:0 for any free port"
        )
    })?;
    listener.set_nonblocking(true)?;
    if !addr.ip().is_loopback() {
        eprintln!(
            "warning: the live page listens on {addr}, not only on this machine: anyone who \
             can reach it can watch the games (the page is read-only; bot logs stay hidden \
             unless --show-logs)"
        );
    }
    Ok(listener)
}

/// The page's address, as printed: `http://127.0.0.1:8080/`. Bound to every
/// address of the machine (`0.0.0.0`, `[::]`), the addresses others can type:
/// the one the machine reaches its network from, and its name.
pub fn urls(listener: &std::net::TcpListener) -> Vec<String> {
    let Ok(addr) = listener.local_addr() else {
        return vec!["(unknown address)".into()];
    };
    if !addr.ip().is_unspecified() {
        return vec![format!("http://{addr}/")];
    }
    let port = addr.port();
    let mut shown: Vec<String> = Vec::new();
    if let Some(ip) = outward_address(addr.ip()) {
        shown.push(format!("http://{}/", SocketAddr::new(ip, port)));
    }
    if let Some(name) = host_name() {
        shown.push(format!("http://{name}:{port}/"));
    }
    shown.push(format!(
        "http://{}/",
        SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), port)
    ));
    shown
}

/// The address this machine reaches other machines from (the source of its
/// default route), found by "connecting" a UDP socket, which sends nothing.
fn outward_address(any: std::net::IpAddr) -> Option<std::net::IpAddr> {
    let (bind, probe): (SocketAddr, SocketAddr) = if any.is_ipv4() {
        (
            (std::net::Ipv4Addr::UNSPECIFIED, 0).into(),
            // TEST-NET-1 (RFC 5737): routed like any address, never answered.
            (std::net::Ipv4Addr::new(192, 0, 2, 1), 9).into(),
        )
    } else {
        (
            (std::net::Ipv6Addr::UNSPECIFIED, 0).into(),
            // The documentation prefix (RFC 3849).
            (std::net::Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1), 9).into(),
        )
    };
    let socket = std::net::UdpSocket::bind(bind).ok()?;
    socket.connect(probe).ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_unspecified() && !ip.is_loopback()).then_some(ip)
}

/// The machine's name, if it has one other than `localhost`.
fn host_name() -> Option<String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    let name = name.trim();
    (!name.is_empty()
        && name != "localhost"
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.'))
    .then(|| name.to_string())
}

/// Serves `options` on `listener` until `stop` completes, under the limits of
/// [`connections`] for this process's descriptor limit. Runs on the current tokio
/// runtime.
///
/// # Errors
/// The listener cannot be used.
pub async fn serve(
    listener: std::net::TcpListener,
    options: Options,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let loopback = listener.local_addr()?.ip().is_loopback();
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let app = Arc::new(App {
        runs: options.dirs.into_iter().map(snapshot::watch).collect(),
        show_logs: options.show_logs,
        loopback,
    });
    let router = router(app);
    // Not a graceful shutdown: the event streams never end by themselves.
    tokio::select! {
        () = connections::serve(listener, router, connections::Limits::here()) => {}
        () = stop => {}
    }
    Ok(())
}

fn router(app: Shared) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/run/{run}/", get(run_page))
        .route("/run/{run}/events", get(events))
        .route("/run/{run}/state", get(state))
        .route("/run/{run}/bot/{bot}", get(bot))
        .route("/run/{run}/game/{game}", get(game))
        .route("/assets/board.js", get(|| asset(page::BOARD_JS, JS)))
        .route("/assets/viewer.js", get(|| asset(page::VIEWER_JS, JS)))
        .route("/assets/live.js", get(|| asset(page::LIVE_JS, JS)))
        .route(
            "/assets/projector.js",
            get(|| asset(page::PROJECTOR_JS, JS)),
        )
        .route("/assets/report.css", get(|| asset(page::REPORT_CSS, CSS)))
        .route("/assets/live.css", get(|| asset(page::LIVE_CSS, CSS)))
        .route("/favicon.ico", get(|| asset(page::ICON, SVG)))
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            direct_host,
        ))
        .layer(axum::middleware::map_response(secure))
        .with_state(app)
}

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";
const JSON: &str = "application/json";
const SVG: &str = "image/svg+xml";

/// Every response: the policy, no sniffing, no referrer, not framed.
async fn secure(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}

/// On a loopback address, refuses requests whose `Host` is a name other than
/// `localhost` (DNS rebinding): the page is for this machine's browsers.
async fn direct_host(
    State(app): State<Shared>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if app.loopback {
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        if !is_direct(host) {
            return (
                StatusCode::MISDIRECTED_REQUEST,
                "This live page answers only to this machine's address.\n",
            )
                .into_response();
        }
    }
    next.run(request).await
}

/// `127.0.0.1:8080`, `[::1]:8080`, `localhost:8080` (port optional).
fn is_direct(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if !name.is_empty() && !port.contains(']') => name,
        _ => host,
    };
    let name = name.trim_start_matches('[').trim_end_matches(']');
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok()
}

async fn asset(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        "Not found: this server shows only the live pages of its results directories.\n",
    )
        .into_response()
}

fn no_such_run() -> Response {
    (StatusCode::NOT_FOUND, "No such run.\n").into_response()
}

/// The list of runs; a single run's page at once, keeping `?projector` (the
/// only query the pages read).
async fn index(State(app): State<Shared>, RawQuery(query): RawQuery) -> Response {
    if app.runs.len() == 1 {
        let projector = query.as_deref().is_some_and(|q| {
            q.split('&')
                .any(|p| p == "projector" || p.starts_with("projector="))
        });
        return Redirect::to(if projector {
            "/run/0/?projector"
        } else {
            "/run/0/"
        })
        .into_response();
    }
    for run in &app.runs {
        first_read(run).await;
    }
    let lines: Vec<snapshot::RunLine> = app
        .runs
        .iter()
        .map(|run| run.line.read().map(|l| l.clone()).unwrap_or_default())
        .collect();
    ([(header::CONTENT_TYPE, HTML)], page::index(&lines)).into_response()
}

/// The run's name as the page's title: the manifest's, else the directory's.
fn run_name(run: &Watched) -> String {
    match Manifest::load(&run.dir) {
        Ok(Some(m)) => m.name,
        _ => run.dir.file_name().map_or_else(
            || run.dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
    }
}

async fn run_page(State(app): State<Shared>, UrlPath(run): UrlPath<usize>) -> Response {
    match app.runs.get(run) {
        Some(watched) => (
            [(header::CONTENT_TYPE, HTML)],
            page::run(&run_name(watched)),
        )
            .into_response(),
        None => no_such_run(),
    }
}

async fn state(State(app): State<Shared>, UrlPath(run): UrlPath<usize>) -> Response {
    let Some(watched) = app.runs.get(run) else {
        return no_such_run();
    };
    first_read(watched).await;
    let json = watched.snapshot.borrow().to_string();
    ([(header::CONTENT_TYPE, JSON)], json).into_response()
}

/// Waits (a few seconds at most) until the directory has been looked at since the
/// request came, so that it sees the directory as it is now, not an empty page or
/// one a few seconds old (nobody watching, it is looked at every few seconds).
async fn first_read(watched: &Watched) {
    watched.wanted().await;
}

/// The snapshot of a run as server-sent events: one `state` event now and one
/// whenever it changes (a slow client skips to the newest, it never holds the
/// watcher back). The browser reconnects by itself after `retry`.
async fn events(
    State(app): State<Shared>,
    UrlPath(run): UrlPath<usize>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, Response> {
    let rx = app.runs.get(run).ok_or_else(no_such_run)?.snapshot.clone();
    let stream = futures_util::stream::unfold((rx, true), |(mut rx, first)| async move {
        loop {
            let fresh = first && !rx.borrow().is_empty();
            if !fresh && rx.changed().await.is_err() {
                return None;
            }
            let json = rx.borrow_and_update().clone();
            if json.is_empty() {
                continue;
            }
            let event = Event::default()
                .event("state")
                .retry(Duration::from_secs(1))
                .data(json.as_str());
            return Some((Ok(event), (rx, false)));
        }
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

/// A bot's page: its games and faults; with `--show-logs` its command line and the
/// end of its stderr too.
async fn bot(
    State(app): State<Shared>,
    UrlPath((run, name)): UrlPath<(usize, String)>,
) -> Response {
    let Some(watched) = app.runs.get(run) else {
        return no_such_run();
    };
    first_read(watched).await;
    let page = match watched.games.read() {
        Ok(games) => snapshot::bot_page(&games, &name, snapshot::BOT_GAMES),
        Err(_) => None,
    };
    let Some(page) = page else {
        return (StatusCode::NOT_FOUND, "No such bot in this run.\n").into_response();
    };
    let mut value = match serde_json::to_value(&page) {
        Ok(v) => v,
        Err(_) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    if app.show_logs {
        let dir = watched.dir.clone();
        let (command, stderr) = tokio::task::spawn_blocking(move || logs_of(&dir, &name))
            .await
            .unwrap_or_default();
        value["command"] = serde_json::json!(command);
        value["stderr"] = serde_json::json!(stderr);
    }
    ([(header::CONTENT_TYPE, JSON)], value.to_string()).into_response()
}

/// A finished game, compact as the report sends one (with think times and info),
/// for the page's viewer. The id is looked up among the games of games.csv and its
/// rows found through the index of moves.csv: a request never names a file.
async fn game(State(app): State<Shared>, UrlPath((run, id)): UrlPath<(usize, String)>) -> Response {
    let Some(watched) = app.runs.get(run) else {
        return no_such_run();
    };
    first_read(watched).await;
    let shown = match watched.games.read() {
        Ok(games) => games.find(&id),
        Err(_) => None,
    };
    let row = match shown {
        Some(row) => Some(row),
        // A game the page does not show is looked for in games.csv, one search at
        // a time, and only under a game id's name.
        None if crate::results::store::GameMeta::number_of(&id).is_some() => {
            let dir = watched.dir.clone();
            let one_at_a_time = watched.moves.clone();
            tokio::task::spawn_blocking(move || {
                let _turn = one_at_a_time.lock();
                snapshot::find_game(&dir, &id)
            })
            .await
            .ok()
            .and_then(Result::ok)
            .flatten()
        }
        None => None,
    };
    let Some(row) = row else {
        return (
            StatusCode::NOT_FOUND,
            "No such finished game in this run.\n",
        )
            .into_response();
    };
    let dir = watched.dir.clone();
    let index = watched.moves.clone();
    let view = tokio::task::spawn_blocking(move || snapshot::game_view(&dir, &row, &index)).await;
    match view {
        Ok(Ok(view)) => match serde_json::to_string(&view) {
            Ok(json) => ([(header::CONTENT_TYPE, JSON)], json).into_response(),
            Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        },
        Ok(Err(e)) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("The game's moves could not be read: {e:#}\n"),
        )
            .into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// A bot's command line (tournament.json) and the end of its stderr log, found by
/// listing `logs/` (a name from a request never becomes a path) and read without
/// following a link: a log that is one is not shown, and says why.
fn logs_of(dir: &std::path::Path, bot: &str) -> (Option<String>, Option<String>) {
    let command = Manifest::load(dir)
        .ok()
        .flatten()
        .and_then(|m| m.schedule.bots.into_iter().find(|b| b.name == bot))
        .map(|b| b.command);
    let folder = std::path::Path::new(logs::LOGS_DIR);
    let wanted = logs::file_name(bot);
    let listed = nofollow::list_in(dir, folder)
        .ok()
        .and_then(|names| names.into_iter().find(|n| *n == wanted));
    let stderr = listed.map(|name| {
        // A little more than is shown, so the cut can move to a line start.
        let max = (TEXT_TAIL_BYTES + TEXT_TAIL_BYTES / 4) as u64;
        match nofollow::read_tail_in(dir, &folder.join(name), max) {
            Ok((bytes, _)) => Tail::of(&bytes, TEXT_TAIL_BYTES).text,
            Err(e) => format!("(not shown: {e})"),
        }
    });
    (command, stderr)
}

#[cfg(test)]
mod tests {
    use super::is_direct;

    #[test]
    fn only_addresses_and_localhost_are_direct_hosts() {
        for host in [
            "127.0.0.1:8080",
            "127.0.0.1",
            "[::1]:8080",
            "localhost:80",
            "LOCALHOST",
        ] {
            assert!(is_direct(host), "{host}");
        }
        for host in [
            "evil.example:8080",
            "evil.example",
            "127.0.0.1.evil.example:80",
            "",
        ] {
            assert!(!is_direct(host), "{host}");
        }
    }
}
