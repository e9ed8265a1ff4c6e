//! What viewers can hold of the live page, and how each of their connections is
//! served. Every request is hostile until it is answered.
//!
//! A connection is in one of two states, each with its bound:
//!
//! - **Waiting for a request head**: from the moment it is accepted, and again from
//!   the end of each answer while it is kept alive. The whole head (request line and
//!   headers) must arrive within [`HEAD`] of the start of the wait, however it
//!   trickles in (a line every few seconds does not extend it), and be at most
//!   [`HEAD_BYTES`] long (else 431). It has been promised nothing: a newcomer may take
//!   its place (below). A request's body is never read; a request that sends one is
//!   answered and its connection closed.
//! - **Being answered** (a page, a file, an event stream): its client must send
//!   something at least every [`IDLE`] and take what is written to it; a write that
//!   waits [`STALL`] for room ends the connection ([`guarded`]).
//!
//! Places ([`slots`]): the server holds at most [`cap`] connections, a number taken
//! from the descriptor limit, at most [`per_address`] of them from one client
//! address (an IPv6 client by its /64). A newcomer whose address holds its share
//! takes the place of that address's connection waiting longest for a head; if all
//! of them are being answered, it is answered 503 ("too many connections from your
//! address") and closed at once. A newcomer to a full server takes the place of the
//! connection, of any address, waiting longest for a head; if every connection is
//! being answered, it waits in the kernel's queue (no descriptor of ours) until one
//! ends.
//!
//! So slow clients cannot take the page from a viewer, even one at their address
//! (this machine, a school behind one NAT): a slow connection can be displaced
//! until its head is complete, and lives [`HEAD`] at most; a browser sends its head
//! at once, and being answered a moment after it is accepted, it is out of their
//! reach. Each newcomer gets its turn to be read before the next is accepted, so a
//! burst of connections behind it does not displace it first. A connection being
//! answered is never displaced: one address holds at most a quarter of the places
//! with them, each bounded by [`IDLE`] and [`STALL`].

pub mod guarded;
pub mod slots;

use std::convert::Infallible;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::body::{Bytes, Frame, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

use guarded::Guarded;
use slots::{Admission, Client, Id, Slots};

/// How long a connection waiting for a request head has for all of it.
pub const HEAD: Duration = Duration::from_secs(5);

/// The longest request head read; a longer one is answered 431. The page's own
/// requests take a few hundred bytes; this leaves room for a browser's cookies of
/// other pages on the same host.
pub const HEAD_BYTES: usize = 64 * 1024;

/// How long a connection being answered may send nothing before it is closed.
pub const IDLE: Duration = Duration::from_secs(60);

/// How long a write may wait for its client to read before the connection is
/// closed. A live event stream's state comes every 100 ms at most and the kernel
/// keeps megabytes of it, so only a client that reads nothing waits this long.
pub const STALL: Duration = Duration::from_secs(10);

/// Descriptors kept for what is not a connection: the results files a snapshot
/// reads, the runtime's own, standard streams.
const RESERVE: u64 = 64;

/// The most connections at once under a descriptor limit of `nofile`: half of
/// what the reserve leaves (each connection may also have a file open while its
/// request is answered), between 4 and 512.
pub fn cap(nofile: u64) -> usize {
    let cap = nofile.saturating_sub(RESERVE) / 2;
    usize::try_from(cap.clamp(4, 512)).unwrap_or(512)
}

/// [`cap`] for this process's (soft) descriptor limit.
pub fn cap_here() -> usize {
    let (soft, _) = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
        .unwrap_or((1024, 1024));
    cap(soft)
}

/// The most connections one client address holds of a `cap`: a quarter (128 of
/// 512: a class of a hundred behind one NAT, each page one event stream and a
/// request now and then), and never fewer than 16 unless the cap is smaller.
pub fn per_address(cap: usize) -> usize {
    (cap / 4).max(cap.min(16))
}

/// The limits one server keeps.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections at once ([`cap`]).
    pub cap: usize,
    /// Connections at once from one address ([`per_address`]).
    pub per_address: usize,
    /// [`HEAD`].
    pub head: Duration,
    /// [`IDLE`].
    pub idle: Duration,
    /// [`STALL`].
    pub stall: Duration,
}

impl Limits {
    /// The limits for this process's descriptor limit.
    pub fn here() -> Limits {
        let cap = cap_here();
        Limits {
            cap,
            per_address: per_address(cap),
            head: HEAD,
            idle: IDLE,
            stall: STALL,
        }
    }
}

/// Serves `router` on `listener` under `limits`, forever.
pub async fn serve(listener: TcpListener, router: axum::Router, limits: Limits) {
    let places = Arc::new(Places {
        slots: Mutex::new(Slots::new(limits.cap, limits.per_address)),
        room: Notify::new(),
    });
    let app = TowerToHyperService::new(router);
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.head)
        // A head read whole is refused past the limit; one still arriving is
        // refused when the buffer holding it is full.
        .max_header_size(HEAD_BYTES)
        .max_buf_size(HEAD_BYTES);
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of descriptors all the same (a reserve too small for this
            // machine): wait for some to be freed rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Some((place, displaced)) = places.admit(peer.ip()).await else {
            refuse(stream);
            continue;
        };
        let io = TokioIo::new(Guarded::new(stream, limits.idle, limits.stall));
        let app = app.clone();
        let service = hyper::service::service_fn(move |request| {
            let answering = Answering::new(Arc::clone(&place));
            let answer = hyper::service::Service::call(&app, request);
            async move {
                let response = answer.await?;
                Ok::<_, Infallible>(response.map(|body| Answered {
                    body,
                    _answering: answering,
                }))
            }
        });
        let connection = http.serve_connection(io, service);
        tokio::spawn(async move {
            tokio::select! {
                _ = connection => {}
                () = displaced.notified() => {}
            }
        });
        // The newcomer's turn to read before the next is accepted: a browser's head
        // is there at once, and then it is being answered, out of a burst's reach.
        tokio::task::yield_now().await;
    }
}

/// The places of the connections, shared by the accept loop and every connection.
#[derive(Debug)]
struct Places {
    slots: Mutex<Slots<Arc<Notify>>>,
    /// Told when a place is freed or a connection starts waiting for a head: a full
    /// server's accept loop waits for it.
    room: Notify,
}

impl Places {
    fn slots(&self) -> MutexGuard<'_, Slots<Arc<Notify>>> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for a connection from `peer`, and what tells the connection it was
    /// displaced; the waiting connection it displaces told so. `None`: its address
    /// holds its share, all being answered.
    async fn admit(self: &Arc<Self>, peer: IpAddr) -> Option<(Arc<Place>, Arc<Notify>)> {
        let client = Client::of(peer);
        loop {
            let displaced = Arc::new(Notify::new());
            let admission = self
                .slots()
                .admit(client, Instant::now(), Arc::clone(&displaced));
            match admission {
                Admission::Admitted {
                    id,
                    displaced: other,
                } => {
                    if let Some(other) = other {
                        // A permit: told even before it listens.
                        other.notify_one();
                    }
                    let place = Arc::new(Place {
                        places: Arc::clone(self),
                        id,
                    });
                    return Some((place, displaced));
                }
                Admission::Refused => return None,
                Admission::Full => self.room.notified().await,
            }
        }
    }
}

/// One admitted connection's place, freed when its connection is gone.
#[derive(Debug)]
struct Place {
    places: Arc<Places>,
    id: Id,
}

impl Drop for Place {
    fn drop(&mut self) {
        self.places.slots().release(self.id);
        self.places.room.notify_one();
    }
}

/// A request on a connection being answered: until it is dropped (the answer's
/// last byte handed to the socket, or the answer given up), the connection keeps
/// its place.
#[derive(Debug)]
struct Answering(Arc<Place>);

impl Answering {
    fn new(place: Arc<Place>) -> Answering {
        place.places.slots().answering(place.id);
        Answering(place)
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        let place = &self.0;
        if place.places.slots().answered(place.id, Instant::now()) {
            place.places.room.notify_one();
        }
    }
}

/// An answer's body, with the mark that its connection is being answered.
#[derive(Debug)]
struct Answered {
    body: axum::body::Body,
    _answering: Answering,
}

impl hyper::body::Body for Answered {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// What a connection turned away is told.
const REFUSAL: &str = "Too many connections from your address: try again in a few seconds.\n";

/// Tells a connection whose address holds its share why it is closed, without
/// waiting for it: what fits in its socket now, then the connection is closed. Its
/// request, if already there, is read first (a connection closed with unread bytes
/// is reset, and the client may lose the answer).
fn refuse(stream: TcpStream) {
    use std::io::{Read as _, Write as _};
    let Ok(mut stream) = stream.into_std() else {
        return;
    };
    let mut head = [0u8; 4096];
    let _ = stream.read(&mut head);
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n\
         x-content-type-options: nosniff\r\ncache-control: no-store\r\nretry-after: 5\r\n\
         connection: close\r\ncontent-length: {}\r\n\r\n{REFUSAL}",
        REFUSAL.len()
    );
    let _ = stream.write(answer.as_bytes());
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::routing::get;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    #[test]
    fn the_cap_leaves_a_reserve_and_stays_in_bounds() {
        assert_eq!(cap(300), 118);
        assert_eq!(cap(1024), 480);
        assert_eq!(cap(2048), 512);
        assert_eq!(cap(1 << 20), 512);
        assert_eq!(cap(20), 4);
    }

    #[test]
    fn one_address_holds_a_quarter_of_the_places_and_at_least_sixteen() {
        assert_eq!(per_address(512), 128);
        assert_eq!(per_address(118), 29);
        assert_eq!(per_address(40), 16);
        assert_eq!(per_address(4), 4);
    }

    /// A server of `/` (a word) and `/forever` (an answer that never ends) under
    /// `limits`, shortened for a test.
    async fn server(limits: Limits) -> std::net::SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = axum::Router::new()
            .route("/", get(|| async { "hello" }))
            .route(
                "/forever",
                get(|| async {
                    axum::body::Body::from_stream(futures_util::stream::pending::<
                        Result<Bytes, Infallible>,
                    >())
                }),
            );
        tokio::spawn(serve(listener, router, limits));
        addr
    }

    fn limits(cap: usize, per_address: usize) -> Limits {
        Limits {
            cap,
            per_address,
            head: Duration::from_secs(2),
            idle: Duration::from_secs(60),
            stall: Duration::from_secs(60),
        }
    }

    /// Sends a request for `path`, keeping the connection open.
    async fn ask(addr: std::net::SocketAddr, path: &str) -> TcpStream {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        stream
    }

    /// The answer's head and what came with it, within `wait`; empty if none.
    async fn answer(stream: &mut TcpStream, wait: Duration) -> String {
        let mut got = Vec::new();
        let mut chunk = [0u8; 1024];
        let deadline = tokio::time::Instant::now() + wait;
        while !String::from_utf8_lossy(&got).contains("\r\n\r\n") {
            match tokio::time::timeout_at(deadline, stream.read(&mut chunk)).await {
                Ok(Ok(n @ 1..)) => got.extend_from_slice(&chunk[..n]),
                _ => break,
            }
        }
        String::from_utf8_lossy(&got).into_owned()
    }

    /// Whether the server closed `stream` within `wait`.
    async fn closed(stream: &mut TcpStream, wait: Duration) -> bool {
        let mut byte = [0u8; 1];
        matches!(
            tokio::time::timeout(wait, stream.read(&mut byte)).await,
            Ok(Ok(0) | Err(_))
        )
    }

    #[tokio::test]
    async fn a_kept_alive_connection_answered_makes_way_for_a_newcomer() {
        let addr = server(limits(1, 1)).await;
        let mut first = ask(addr, "/").await;
        assert!(
            answer(&mut first, Duration::from_secs(5))
                .await
                .starts_with("HTTP/1.1 200")
        );
        // Answered, it waits for its next head: the next one takes its place.
        let mut second = ask(addr, "/").await;
        assert!(
            answer(&mut second, Duration::from_secs(5))
                .await
                .starts_with("HTTP/1.1 200")
        );
        assert!(closed(&mut first, Duration::from_secs(5)).await);
    }

    #[tokio::test]
    async fn a_full_server_of_answers_makes_a_newcomer_wait_its_turn() {
        let addr = server(limits(1, 1)).await;
        let mut forever = ask(addr, "/forever").await;
        assert!(
            answer(&mut forever, Duration::from_secs(5))
                .await
                .starts_with("HTTP/1.1 200")
        );
        // From another address: it waits, not refused.
        let other = tokio::net::TcpSocket::new_v4().unwrap();
        other.bind("127.0.0.2:0".parse().unwrap()).unwrap();
        let mut other = other.connect(addr).await.unwrap();
        other
            .write_all(format!("GET / HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
            .await
            .unwrap();
        assert_eq!(answer(&mut other, Duration::from_millis(500)).await, "");
        drop(forever);
        assert!(
            answer(&mut other, Duration::from_secs(5))
                .await
                .starts_with("HTTP/1.1 200")
        );
    }

    #[tokio::test]
    async fn an_address_holding_its_share_of_answers_is_turned_away_in_words() {
        let addr = server(limits(4, 1)).await;
        let mut forever = ask(addr, "/forever").await;
        assert!(
            answer(&mut forever, Duration::from_secs(5))
                .await
                .starts_with("HTTP/1.1 200")
        );
        let mut refused = ask(addr, "/").await;
        let text = answer(&mut refused, Duration::from_secs(5)).await;
        assert!(text.starts_with("HTTP/1.1 503"), "{text}");
        assert!(closed(&mut refused, Duration::from_secs(5)).await);
    }

    #[tokio::test]
    async fn a_head_that_trickles_in_is_closed_when_its_time_is_up() {
        let addr = server(limits(4, 4)).await;
        let mut slow = TcpStream::connect(addr).await.unwrap();
        slow.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
        let start = tokio::time::Instant::now();
        let mut byte = [0u8; 1];
        loop {
            // A line every 200 ms: news, but not the end of the head.
            if slow.write_all(b"X-Slow: 1\r\n").await.is_err() {
                break;
            }
            if let Ok(Ok(0) | Err(_)) =
                tokio::time::timeout(Duration::from_millis(200), slow.read(&mut byte)).await
            {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "a head trickling in for 10 s is still read"
            );
        }
        assert!(start.elapsed() >= Duration::from_millis(1500));
    }
}
