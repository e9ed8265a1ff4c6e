//! What viewers can hold of the server: at most [`cap`] connections at once, a
//! number taken from the process's descriptor limit with a reserve kept for the
//! files the page reads, and none idle for longer than [`IDLE`].
//!
//! A connection past the cap is not refused: it waits in the kernel's queue (no
//! descriptor of ours) until one is closed. A connection that sends nothing for
//! [`IDLE`] is closed, an open event stream included: the page's `EventSource`
//! reconnects by itself a second later (the stream's `retry`) and is sent the
//! current state at once, so a viewer sees no gap, and hundreds of sockets
//! opened and left idle are freed on their own.

use std::future::Future as _;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

/// How long a connection may send nothing before it is closed.
pub const IDLE: Duration = Duration::from_secs(60);

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

/// A listener that accepts a connection only while fewer than its cap are open.
#[derive(Debug)]
pub struct Capped {
    listener: TcpListener,
    permits: Arc<Semaphore>,
    idle: Duration,
}

impl Capped {
    /// `listener`, holding at most `cap` connections, each closed once its client
    /// has sent nothing for `idle` ([`IDLE`]).
    pub fn new(listener: TcpListener, cap: usize, idle: Duration) -> Capped {
        Capped {
            listener,
            permits: Arc::new(Semaphore::new(cap)),
            idle,
        }
    }
}

impl axum::serve::Listener for Capped {
    type Io = Guarded;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Guarded, std::net::SocketAddr) {
        loop {
            // The semaphore is never closed; were it, serving without a cap beats
            // serving nothing.
            let permit = self.permits.clone().acquire_owned().await.ok();
            match self.listener.accept().await {
                Ok((stream, addr)) => return (Guarded::new(stream, permit, self.idle), addr),
                // Out of descriptors all the same (a reserve too small for this
                // machine): wait for some to be freed rather than spin.
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<std::net::SocketAddr> {
        self.listener.local_addr()
    }
}

/// One accepted connection: its place under the cap, released when it closes,
/// and the time after which it is closed if the client sends nothing more.
#[derive(Debug)]
pub struct Guarded {
    stream: TcpStream,
    _permit: Option<OwnedSemaphorePermit>,
    /// Fires when the client has sent nothing for `limit`.
    idle: Pin<Box<Sleep>>,
    limit: Duration,
}

impl Guarded {
    fn new(stream: TcpStream, permit: Option<OwnedSemaphorePermit>, limit: Duration) -> Guarded {
        Guarded {
            stream,
            _permit: permit,
            idle: Box::pin(tokio::time::sleep(limit)),
            limit,
        }
    }

    fn timed_out() -> io::Error {
        io::Error::new(
            io::ErrorKind::TimedOut,
            "the client sent nothing for too long",
        )
    }
}

impl AsyncRead for Guarded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.stream).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    let limit = self.limit;
                    self.idle.as_mut().reset(Instant::now() + limit);
                }
                Poll::Ready(Ok(()))
            }
            Poll::Pending if self.idle.as_mut().poll(cx).is_ready() => {
                Poll::Ready(Err(Guarded::timed_out()))
            }
            other => other,
        }
    }
}

impl AsyncWrite for Guarded {
    /// Writes fail once the connection is idle past its time: an event stream
    /// writes at least every keep-alive, so it is closed then even if the server
    /// is not reading from it.
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.idle.is_elapsed() {
            return Poll::Ready(Err(Guarded::timed_out()));
        }
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::serve::Listener as _;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    #[test]
    fn the_cap_leaves_a_reserve_and_stays_in_bounds() {
        assert_eq!(cap(300), 118);
        assert_eq!(cap(1024), 480);
        assert_eq!(cap(1 << 20), 512);
        assert_eq!(cap(20), 4);
    }

    #[tokio::test]
    async fn connections_past_the_cap_wait_and_an_idle_one_is_closed() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut capped = Capped::new(listener, 2, Duration::from_millis(300));
        let _a = TcpStream::connect(addr).await.unwrap();
        let mut b = TcpStream::connect(addr).await.unwrap();
        let _c = TcpStream::connect(addr).await.unwrap();
        let (mut first, _) = capped.accept().await;
        let (_second, _) = capped.accept().await;
        // The third waits for a place.
        let third = tokio::time::timeout(Duration::from_millis(500), capped.accept()).await;
        assert!(third.is_err(), "accepted past the cap");

        // The client of `first` sent nothing: its read fails (it was idle all along).
        let mut byte = [0u8; 1];
        b.write_all(b"x").await.unwrap();
        let read = first.read(&mut byte).await;
        assert_eq!(read.unwrap_err().kind(), io::ErrorKind::TimedOut);
        assert!(first.write_all(b"late").await.is_err());
        drop(first);
        // Its place is free again.
        let (_third, _) = capped.accept().await;
    }
}
