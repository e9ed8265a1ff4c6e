//! One connection's socket, with the two rules for a connection being answered:
//! its client sends something at least every `idle`, and takes what is written to
//! it (a write that has waited `stall` for room in the socket fails).
//!
//! Silence: an open event stream is closed after `idle` too (its client sends
//! nothing after its request); the page's `EventSource` reconnects by itself a
//! second later (the stream's `retry`) and is sent the current state at once, so a
//! viewer sees no gap, and hundreds of sockets opened and left idle are freed on
//! their own. Both rules are checked while a write waits, so a client that reads
//! nothing is let go even when the server has stopped reading from it.

use std::future::Future as _;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};

/// An accepted connection under the two rules.
#[derive(Debug)]
pub struct Guarded {
    stream: TcpStream,
    /// Fires when the client has sent nothing for `idle`.
    silence: Pin<Box<Sleep>>,
    idle: Duration,
    /// Fires when a write has waited `stall` for room; set when one starts waiting.
    stalled: Pin<Box<Sleep>>,
    stall: Duration,
    /// Whether the last write is waiting for room.
    waiting: bool,
}

impl Guarded {
    /// `stream`, closed once its client has sent nothing for `idle` or left what it
    /// was sent unread for `stall`.
    pub fn new(stream: TcpStream, idle: Duration, stall: Duration) -> Guarded {
        Guarded {
            stream,
            silence: Box::pin(tokio::time::sleep(idle)),
            idle,
            stalled: Box::pin(tokio::time::sleep(stall)),
            stall,
            waiting: false,
        }
    }

    fn silent() -> io::Error {
        io::Error::new(
            io::ErrorKind::TimedOut,
            "the client sent nothing for too long",
        )
    }

    /// A write's outcome under the rules: a write waiting for room fails once it
    /// has waited `stall`, or the client has been silent for `idle`.
    fn written(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<usize>>,
    ) -> Poll<io::Result<usize>> {
        if !polled.is_pending() {
            self.waiting = false;
            return polled;
        }
        if !self.waiting {
            self.waiting = true;
            let at = Instant::now() + self.stall;
            self.stalled.as_mut().reset(at);
        }
        if self.stalled.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client read nothing of the answer for too long",
            )));
        }
        if self.silence.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(Guarded::silent()));
        }
        Poll::Pending
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
                    let at = Instant::now() + self.idle;
                    self.silence.as_mut().reset(at);
                }
                Poll::Ready(Ok(()))
            }
            Poll::Pending if self.silence.as_mut().poll(cx).is_ready() => {
                Poll::Ready(Err(Guarded::silent()))
            }
            other => other,
        }
    }
}

impl AsyncWrite for Guarded {
    /// Writes fail once the client is silent past `idle`: an event stream writes at
    /// least every keep-alive, so it is closed then even if the server is not
    /// reading from it.
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.silence.is_elapsed() {
            return Poll::Ready(Err(Guarded::silent()));
        }
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.written(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.silence.is_elapsed() {
            return Poll::Ready(Err(Guarded::silent()));
        }
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.written(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
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
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    use tokio::net::TcpListener;

    const LONG: Duration = Duration::from_secs(600);

    /// A connected pair: the server's end guarded, the client's plain, with a small
    /// receive window so that what it does not read fills up soon.
    async fn pair(idle: Duration, stall: Duration) -> (Guarded, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = tokio::net::TcpSocket::new_v4().unwrap();
        client.set_recv_buffer_size(4096).unwrap();
        let client = client
            .connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        (Guarded::new(server, idle, stall), client)
    }

    /// Writes until a write fails: its error.
    async fn write_until_it_fails(server: &mut Guarded) -> io::Error {
        let chunk = vec![b'x'; 64 * 1024];
        loop {
            if let Err(e) = server.write_all(&chunk).await {
                return e;
            }
        }
    }

    #[tokio::test]
    async fn a_silent_client_is_closed_on_read_and_on_write() {
        let (mut server, mut client) = pair(Duration::from_millis(300), LONG).await;
        let mut byte = [0u8; 1];
        // Its byte is news: the read succeeds and the silence starts again.
        client.write_all(b"x").await.unwrap();
        assert_eq!(server.read(&mut byte).await.unwrap(), 1);
        let read = server.read(&mut byte).await;
        assert_eq!(read.unwrap_err().kind(), io::ErrorKind::TimedOut);
        assert!(server.write_all(b"late").await.is_err());
    }

    #[tokio::test]
    async fn a_client_silent_while_a_write_waits_is_closed() {
        let (mut server, _client) = pair(Duration::from_millis(300), LONG).await;
        let failed =
            tokio::time::timeout(Duration::from_secs(10), write_until_it_fails(&mut server))
                .await
                .expect("the write still waits, seconds after the client fell silent");
        assert_eq!(failed.kind(), io::ErrorKind::TimedOut);
    }

    #[tokio::test]
    async fn a_client_that_reads_nothing_is_let_go_though_it_still_talks() {
        let (mut server, mut client) = pair(LONG, Duration::from_millis(300)).await;
        // It keeps talking, never reading.
        let talk = tokio::spawn(async move {
            loop {
                if client.write_all(b"x").await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        });
        let failed =
            tokio::time::timeout(Duration::from_secs(10), write_until_it_fails(&mut server))
                .await
                .expect("the write still waits, seconds after the client stopped reading");
        assert_eq!(failed.kind(), io::ErrorKind::TimedOut);
        talk.abort();
    }

    #[tokio::test]
    async fn a_client_that_reads_keeps_its_answer_coming() {
        let (mut server, mut client) = pair(LONG, Duration::from_secs(2)).await;
        let read = tokio::spawn(async move {
            let mut all = Vec::new();
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = client.read(&mut chunk).await {
                all.extend_from_slice(&chunk[..n]);
                // Slowly, but always within the stall.
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            all.len()
        });
        let answer = vec![b'x'; 1024 * 1024];
        server.write_all(&answer).await.unwrap();
        server.shutdown().await.unwrap();
        drop(server);
        assert_eq!(read.await.unwrap(), answer.len());
    }
}
