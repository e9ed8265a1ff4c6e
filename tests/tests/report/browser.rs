//! A headless Chromium driven over the DevTools protocol, for the report and
//! live-page tests.
//!
//! Chromium is started with `--remote-debugging-pipe`: it reads protocol commands
//! (JSON, each ended by a NUL byte) from its file descriptor 3 and writes replies and
//! events to descriptor 4. A `sh -c 'exec … 3<&0 4>&1'` wrapper maps our ordinary
//! stdin/stdout pipes onto those descriptors, so no websocket client, no port and no
//! unsafe `pre_exec` are needed. Page commands go through one flattened session
//! (`Target.attachToTarget` with `flatten: true`).
//!
//! While waiting for a reply, every event is recorded: console errors, uncaught
//! exceptions and log errors (a CSP violation is one) become [`Browser::errors`], and
//! every request the page makes becomes [`Browser::requests`].

#![allow(clippy::expect_used, clippy::panic)]
// Shared by the report and live-page tests; each uses a part.
#![allow(dead_code)]

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long one protocol command may take before the test fails.
const REPLY_TIMEOUT: Duration = Duration::from_secs(30);

/// The browser and its one page.
pub struct Browser {
    child: Child,
    input: ChildStdin,
    replies: Receiver<Value>,
    next_id: u64,
    session: String,
    /// Console errors, exceptions and error log entries, in words.
    pub errors: Vec<String>,
    /// URLs the page requested.
    pub requests: Vec<String>,
    events: Vec<Value>,
    profile: tempfile::TempDir,
}

/// The Chromium binary: `$UTTT_CHROMIUM`, else `chromium` or `chromium-browser` on
/// the PATH. The tests that use it are ignored where `tests/build.rs` found none, so
/// one missing here fails the test, saying what to do.
pub fn chromium() -> PathBuf {
    uttt_tests::prerequisites::chromium().unwrap_or_else(|why| {
        panic!("headless Chromium, there when this test was built, is gone: {why}")
    })
}

impl Browser {
    /// Starts Chromium with a fresh profile and opens a blank page.
    pub fn launch() -> Browser {
        let binary = chromium();
        let profile = tempfile::tempdir().expect("profile dir");
        let stderr = std::fs::File::create(profile.path().join("stderr.log")).expect("log file");
        let mut child = Command::new("sh")
            .arg("-c")
            .arg("exec \"$0\" \"$@\" 3<&0 4>&1 0</dev/null 1>/dev/null")
            .arg(&binary)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--hide-scrollbars",
                "--mute-audio",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", binary.display()));
        let input = child.stdin.take().expect("stdin");
        let mut output = child.stdout.take().expect("stdout");
        let (tx, replies) = channel();
        std::thread::spawn(move || {
            let mut pending = Vec::new();
            let mut buf = [0u8; 64 * 1024];
            loop {
                let n = match output.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                pending.extend_from_slice(&buf[..n]);
                while let Some(end) = pending.iter().position(|&b| b == 0) {
                    let message: Vec<u8> = pending.drain(..=end).collect();
                    if let Ok(value) = serde_json::from_slice(&message[..end])
                        && tx.send(value).is_err()
                    {
                        return;
                    }
                }
            }
        });
        let mut browser = Browser {
            child,
            input,
            replies,
            next_id: 0,
            session: String::new(),
            errors: Vec::new(),
            requests: Vec::new(),
            events: Vec::new(),
            profile,
        };
        let target = browser.command(None, "Target.createTarget", json!({ "url": "about:blank" }));
        let target_id = target["targetId"].as_str().expect("targetId").to_string();
        let attached = browser.command(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target_id, "flatten": true }),
        );
        browser.session = attached["sessionId"]
            .as_str()
            .expect("sessionId")
            .to_string();
        for domain in [
            "Page.enable",
            "Runtime.enable",
            "Log.enable",
            "Network.enable",
        ] {
            browser.call(domain, json!({}));
        }
        browser.call(
            "Emulation.setFocusEmulationEnabled",
            json!({ "enabled": true }),
        );
        browser
    }

    /// Sends one command (to the browser, or to the page's session) and waits for
    /// its result, recording the events that arrive meanwhile.
    fn command(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            message["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&message).expect("json");
        bytes.push(0);
        self.input
            .write_all(&bytes)
            .and_then(|()| self.input.flush())
            .unwrap_or_else(|e| panic!("Chromium closed its pipe ({e}){}", self.stderr_tail()));
        let deadline = Instant::now() + REPLY_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let value = match self.replies.recv_timeout(left) {
                Ok(v) => v,
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "no reply to {method} within {REPLY_TIMEOUT:?}{}",
                        self.stderr_tail()
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("Chromium exited during {method}{}", self.stderr_tail())
                }
            };
            if value["id"].as_u64() == Some(id) {
                if let Some(error) = value.get("error") {
                    panic!("{method} failed: {error}");
                }
                return value["result"].clone();
            }
            self.record(value);
        }
    }

    fn record(&mut self, event: Value) {
        let params = &event["params"];
        match event["method"].as_str() {
            Some("Runtime.consoleAPICalled")
                if matches!(params["type"].as_str(), Some("error" | "assert")) =>
            {
                self.errors
                    .push(format!("console.error: {}", params["args"]));
            }
            Some("Runtime.exceptionThrown") => {
                self.errors
                    .push(format!("exception: {}", params["exceptionDetails"]));
            }
            Some("Log.entryAdded") if params["entry"]["level"] == "error" => {
                self.errors
                    .push(format!("log: {}", params["entry"]["text"]));
            }
            Some("Network.requestWillBeSent") => {
                let url = params["request"]["url"].as_str().unwrap_or("").to_string();
                self.requests.push(url);
            }
            _ => {}
        }
        self.events.push(event);
    }

    /// Sends a command to the page and returns its result.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.command(Some(&session), method, params)
    }

    /// Evaluates `expression` in the page and returns its value (as JSON). An
    /// exception in the expression fails the test.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        if let Some(details) = result.get("exceptionDetails") {
            panic!("evaluating {expression}: {details}");
        }
        result["result"]["value"].clone()
    }

    /// Loads `path` (with `fragment`, e.g. `#G0001/3`) as a new document and waits
    /// for its load event. Returns the URL without the fragment.
    pub fn open(&mut self, path: &Path, fragment: &str) -> String {
        let url = format!("file://{}", path.display());
        // Via a blank page: a URL differing only in its fragment would otherwise be a
        // same-document navigation, without a load.
        for target in ["about:blank".to_string(), format!("{url}{fragment}")] {
            self.events.clear();
            self.call("Page.navigate", json!({ "url": target }));
            self.wait_for_event("Page.loadEventFired");
        }
        url
    }

    /// Loads `url` (an `http://` page) as a new document and waits for its load event.
    pub fn goto(&mut self, url: &str) {
        for target in ["about:blank", url] {
            self.events.clear();
            self.call("Page.navigate", json!({ "url": target }));
            self.wait_for_event("Page.loadEventFired");
        }
    }

    /// Waits until `expression` is true in the page (events such as `hashchange`
    /// run after the command that caused them returns).
    pub fn wait_for(&mut self, expression: &str) {
        self.wait_for_within(expression, Duration::from_secs(10));
    }

    /// [`Browser::wait_for`] with a time limit of `limit`.
    pub fn wait_for_within(&mut self, expression: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        while self.eval(expression) != json!(true) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {expression}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn wait_for_event(&mut self, method: &str) {
        if self.events.iter().any(|e| e["method"] == method) {
            return;
        }
        let deadline = Instant::now() + REPLY_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let value = self
                .replies
                .recv_timeout(left)
                .unwrap_or_else(|e| panic!("waiting for {method}: {e}{}", self.stderr_tail()));
            let done = value["method"] == method;
            self.record(value);
            if done {
                return;
            }
        }
    }

    /// Presses and releases one key, as a person would (it goes to the focused
    /// element).
    pub fn key(&mut self, key: &str) {
        let code = match key {
            "ArrowLeft" => 37,
            "ArrowRight" => 39,
            "Home" => 36,
            "End" => 35,
            other => panic!("no key code for {other}"),
        };
        for kind in ["rawKeyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({
                    "type": kind, "key": key, "code": key,
                    "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code
                }),
            );
        }
    }

    /// Clicks the middle of the element `selector` matches (after scrolling it into
    /// view), with real mouse events.
    pub fn click(&mut self, selector: &str) {
        let rect = self.eval(&format!(
            "(() => {{ const e = document.querySelector({sel}); e.scrollIntoView({{block: 'center'}}); \
             const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()",
            sel = json!(selector)
        ));
        let (x, y) = (rect[0].as_f64().expect("x"), rect[1].as_f64().expect("y"));
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
    }

    /// Emulates a screen `width`×`height` CSS pixels wide (a phone when `mobile`).
    pub fn viewport(&mut self, width: u32, height: u32, mobile: bool) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({
                "width": width, "height": height,
                "deviceScaleFactor": if mobile { 2 } else { 1 }, "mobile": mobile
            }),
        );
    }

    /// Saves a PNG of the viewport, or of the element `clip` matches (whole, even
    /// beyond the viewport).
    pub fn screenshot(&mut self, path: &Path, clip: Option<&str>) {
        let mut params = json!({ "format": "png" });
        if let Some(selector) = clip {
            let rect = self.eval(&format!(
                "(() => {{ const r = document.querySelector({sel}).getBoundingClientRect(); \
                 return [r.x + scrollX, r.y + scrollY, r.width, r.height]; }})()",
                sel = json!(selector)
            ));
            let n = |i: usize| rect[i].as_f64().expect("number");
            params["clip"] =
                json!({ "x": n(0), "y": n(1), "width": n(2), "height": n(3), "scale": 1 });
            params["captureBeyondViewport"] = json!(true);
        }
        let shot = self.call("Page.captureScreenshot", params);
        let data = shot["data"].as_str().expect("screenshot data");
        use base64::Engine as _;
        let png = base64::engine::general_purpose::STANDARD
            .decode(data)
            .expect("base64 screenshot");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("artifact dir");
        }
        std::fs::write(path, png).expect("write screenshot");
    }

    fn stderr_tail(&self) -> String {
        let log =
            std::fs::read_to_string(self.profile.path().join("stderr.log")).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(12).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        format!("\nChromium's stderr ends with:\n{}", tail.join("\n"))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let close = json!({ "id": self.next_id + 1, "method": "Browser.close", "params": {} });
        if let Ok(mut bytes) = serde_json::to_vec(&close) {
            bytes.push(0);
            let _ = self.input.write_all(&bytes);
            let _ = self.input.flush();
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `target/test-artifacts/NAME/`, made if needed: where a browser test leaves its
/// screenshots for a person to look at.
#[allow(clippy::expect_used)]
pub fn artifacts(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .map_or_else(
            || std::path::PathBuf::from("target"),
            std::path::Path::to_path_buf,
        )
        .join("test-artifacts")
        .join(name);
    std::fs::create_dir_all(&dir).expect("artifact dir");
    dir
}
