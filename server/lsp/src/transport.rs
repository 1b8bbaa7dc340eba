//! Our own framing layer between stdio and tower-lsp-server's `Server`.
//!
//! tower-lsp-server stops reading at the first frame it cannot decode, so a
//! single malformed message from a client would end the session. Here every
//! frame read from the client is validated first: only well-formed
//! JSON-RPC messages reach the `Server` (through an in-memory pipe), and
//! the others are answered here:
//!
//! - a body that is not JSON: `-32700` (parse error), id `null`;
//! - JSON that is not a request, notification or response (an array, a
//!   scalar, an object without a valid `method`/`result`): `-32600`
//!   (invalid request), with the message's id when it has a usable one;
//! - a header block that ends (blank line) without a usable
//!   `Content-Length`: `-32700`, then the input is skipped up to the next
//!   `Content-Length:` header, where reading resumes.
//!
//! Each of those is also logged on stderr and with `window/logMessage`;
//! the server's state is untouched. What cannot be resynchronised — input
//! ending inside a frame, a header line that is not `Name: value`, a header
//! block or a `Content-Length` over the limits — is logged the same way and
//! ends `serve` with an error (a non-zero exit status for `eqlens serve`).
//!
//! Everything written to stdout goes through one writer task, one whole
//! frame at a time, so our replies never split a frame of the server's:
//! the server writes into a second pipe whose frames are read back here.

use serde_json::{Value, json};
use std::future::Future;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::sync::{mpsc, oneshot};
use tower_lsp_server::jsonrpc::{Request, Response};

/// The largest body accepted: a larger `Content-Length` is refused before
/// anything is allocated for it.
pub const MAX_FRAME: usize = 64 << 20;

/// The longest header block accepted (ours are about 25 bytes).
const MAX_HEADER: usize = 8 << 10;

/// Capacity of the in-memory pipes to and from the `Server`.
const PIPE: usize = 1 << 16;

const HEADER_NAME: &[u8] = b"content-length:";

/// What the framer has for its caller.
#[derive(Debug, PartialEq)]
pub enum Step {
    /// One frame's body.
    Frame(Vec<u8>),
    /// A header block without a usable `Content-Length` (what was wrong):
    /// the input is skipped up to the next `Content-Length:` header.
    Skipped(String),
    /// Nothing complete yet: push more input.
    NeedMore,
}

/// A framing error after which the stream cannot be followed.
#[derive(Debug, PartialEq)]
pub struct Fatal(pub String);

#[derive(Debug, Default, PartialEq)]
enum State {
    #[default]
    Header,
    /// Reading a body of this many bytes.
    Body(usize),
    /// Skipping to the next `Content-Length:` after a bad header block.
    Resync,
}

/// Splits a byte stream into `Content-Length` frames. Pure (no I/O), so
/// that every case is unit-tested; the buffer holds at most one header
/// block or one body (bounded by [`MAX_HEADER`] and [`MAX_FRAME`]) plus
/// the last chunk pushed.
#[derive(Debug, Default)]
pub struct Framer {
    buf: Vec<u8>,
    state: State,
}

impl Framer {
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next step; call until [`Step::NeedMore`]. After a `Fatal` the
    /// framer must not be used again.
    pub fn next_step(&mut self) -> Result<Step, Fatal> {
        loop {
            match self.state {
                State::Body(n) => {
                    if self.buf.len() < n {
                        return Ok(Step::NeedMore);
                    }
                    let rest = self.buf.split_off(n);
                    let body = std::mem::replace(&mut self.buf, rest);
                    self.state = State::Header;
                    return Ok(Step::Frame(body));
                }
                State::Resync => match find_header_name(&self.buf) {
                    Some(at) => {
                        self.buf.drain(..at);
                        self.state = State::Header;
                    }
                    None => {
                        // Keep what could be the start of the name.
                        let keep = HEADER_NAME.len() - 1;
                        let cut = self.buf.len().saturating_sub(keep);
                        self.buf.drain(..cut);
                        return Ok(Step::NeedMore);
                    }
                },
                State::Header => return self.header(),
            }
        }
    }

    /// Reads a header block, when it is complete.
    fn header(&mut self) -> Result<Step, Fatal> {
        // Line breaks left between frames are not a header.
        let blank = self
            .buf
            .iter()
            .take_while(|b| matches!(b, b'\r' | b'\n'))
            .count();
        self.buf.drain(..blank);
        let mut len: Option<Result<usize, String>> = None;
        let mut start = 0;
        loop {
            let Some(nl) = self.buf[start..].iter().position(|&b| b == b'\n') else {
                // An incomplete line: refuse what can never become a header
                // now, rather than wait for more of it.
                check_line_start(&self.buf[start..])?;
                if self.buf.len() > MAX_HEADER {
                    return Err(Fatal(format!(
                        "a header block longer than {MAX_HEADER} bytes"
                    )));
                }
                return Ok(Step::NeedMore);
            };
            let end = start + nl;
            let line = self.buf[start..end]
                .strip_suffix(b"\r")
                .unwrap_or(&self.buf[start..end]);
            if line.is_empty() {
                self.buf.drain(..=end);
                let problem = match len {
                    Some(Ok(n)) => {
                        self.state = State::Body(n);
                        return self.next_step();
                    }
                    Some(Err(problem)) => problem,
                    None => "a header block without Content-Length".into(),
                };
                self.state = State::Resync;
                return Ok(Step::Skipped(problem));
            }
            let (name, value) = header_line(line)?;
            if name.eq_ignore_ascii_case("content-length") {
                len = Some(match value.parse::<usize>() {
                    Ok(n) if n > MAX_FRAME => {
                        return Err(Fatal(format!(
                            "Content-Length {n} is over the limit of {MAX_FRAME} bytes"
                        )));
                    }
                    Ok(n) => Ok(n),
                    Err(_) => Err(format!("Content-Length `{value}` is not a length")),
                });
            }
            // Other headers (Content-Type) are accepted and ignored: the
            // body must be UTF-8 JSON whatever they say.
            start = end + 1;
        }
    }

    /// At the end of the input: `Err` when it ended inside a frame.
    pub fn finish(&self) -> Result<(), Fatal> {
        match self.state {
            State::Body(n) => Err(Fatal(format!(
                "the input ended after {} of the {n} bytes its Content-Length announced",
                self.buf.len()
            ))),
            State::Header if self.buf.iter().any(|b| !matches!(b, b'\r' | b'\n')) => {
                Err(Fatal("the input ended inside a header block".into()))
            }
            // A skip already reported.
            State::Header | State::Resync => Ok(()),
        }
    }
}

/// Where `Content-Length:` (any case) starts in `buf`.
fn find_header_name(buf: &[u8]) -> Option<usize> {
    buf.windows(HEADER_NAME.len())
        .position(|w| w.eq_ignore_ascii_case(HEADER_NAME))
}

/// Characters of a header name (RFC 9110 `tchar`).
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A partial header line that cannot become `Name: value` is refused.
fn check_line_start(part: &[u8]) -> Result<(), Fatal> {
    let name = part.split(|&b| b == b':').next().unwrap_or_default();
    if name.iter().all(|&b| is_tchar(b)) {
        Ok(())
    } else {
        Err(Fatal(format!("expected a header, got `{}`", snippet(part))))
    }
}

/// `Name: value` of a complete header line.
fn header_line(line: &[u8]) -> Result<(&str, &str), Fatal> {
    let bad = || Fatal(format!("not a header line: `{}`", snippet(line)));
    let colon = line.iter().position(|&b| b == b':').ok_or_else(bad)?;
    let (name, value) = (&line[..colon], &line[colon + 1..]);
    if name.is_empty() || !name.iter().all(|&b| is_tchar(b)) {
        return Err(bad());
    }
    let value = std::str::from_utf8(value).map_err(|_| bad())?;
    // `name` is ASCII (checked above).
    let name = std::str::from_utf8(name).map_err(|_| bad())?;
    Ok((name, value.trim()))
}

/// The start of some bytes, printable, for an error message.
fn snippet(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(&bytes[..bytes.len().min(40)]);
    let s: String = s
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if bytes.len() > 40 {
        format!("{s}…")
    } else {
        s
    }
}

/// A body that tower-lsp-server can take, or the error response to send
/// instead (and the problem, for the log).
pub fn check_message(body: &[u8]) -> Result<(), (Value, String)> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            let msg = format!("a message that is not JSON ({e})");
            return Err((error_response(Value::Null, -32700, "Parse error"), msg));
        }
    };
    let Some(obj) = value.as_object() else {
        let what = match value {
            Value::Array(_) => "a JSON array (batches are not supported)",
            _ => "a JSON value that is not an object",
        };
        return Err((
            error_response(Value::Null, -32600, "Invalid Request"),
            format!("{what} as a message"),
        ));
    };
    // `Message` (tower-lsp-server's untagged response-or-request) is not
    // public; these are its two variants.
    if serde_json::from_value::<Response>(value.clone()).is_ok()
        || serde_json::from_value::<Request>(value.clone()).is_ok()
    {
        return Ok(());
    }
    let id = match obj.get("id") {
        Some(id) if id.is_i64() || id.is_string() => id.clone(),
        _ => Value::Null,
    };
    Err((
        error_response(id, -32600, "Invalid Request"),
        "a JSON object that is not a JSON-RPC 2.0 request, notification or response".into(),
    ))
}

fn error_response(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn log_message(kind: u8, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "window/logMessage",
           "params": {"type": kind, "message": message}})
}

/// One whole frame.
fn frame(body: &[u8]) -> Vec<u8> {
    let mut f = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    f.extend_from_slice(body);
    f
}

fn frame_value(v: &Value) -> Vec<u8> {
    frame(v.to_string().as_bytes())
}

/// Logs a problem with the client's input: stderr and `window/logMessage`
/// (1 = error, 2 = warning).
fn report(out: &mpsc::UnboundedSender<Vec<u8>>, kind: u8, problem: &str) {
    let text = format!("eqlens serve: bad input from the client: {problem}");
    eprintln!("{text}");
    let _ = out.send(frame_value(&log_message(kind, &text)));
}

/// Reads the client's frames into `server` until the input ends (`Ok`) or
/// a framing error that cannot be resynchronised (`Err`, already logged).
async fn read_input<R: AsyncRead + Unpin>(
    mut input: R,
    server: &mut DuplexStream,
    out: &mpsc::UnboundedSender<Vec<u8>>,
) -> Result<(), String> {
    let mut framer = Framer::default();
    let mut chunk = vec![0u8; PIPE];
    loop {
        loop {
            match framer.next_step() {
                Ok(Step::NeedMore) => break,
                Ok(Step::Frame(body)) => match check_message(&body) {
                    Ok(()) => {
                        if server.write_all(&frame(&body)).await.is_err() {
                            // The server has stopped (after `exit`).
                            return Ok(());
                        }
                    }
                    Err((reply, problem)) => {
                        report(out, 2, &problem);
                        let _ = out.send(frame_value(&reply));
                    }
                },
                Ok(Step::Skipped(problem)) => {
                    report(
                        out,
                        2,
                        &format!("{problem}; skipped to the next Content-Length header"),
                    );
                    let _ = out.send(frame_value(&error_response(
                        Value::Null,
                        -32700,
                        "Parse error",
                    )));
                }
                Err(Fatal(problem)) => {
                    report(out, 1, &format!("{problem}; stopping"));
                    return Err(problem);
                }
            }
        }
        match input.read(&mut chunk).await {
            Ok(0) => {
                return framer.finish().map_err(|Fatal(problem)| {
                    report(out, 1, &format!("{problem}; stopping"));
                    problem
                });
            }
            Ok(n) => framer.push(&chunk[..n]),
            Err(e) => return Err(format!("cannot read the input: {e}")),
        }
    }
}

/// Copies the server's frames, whole, to the writer's queue.
async fn pump_output(mut from_server: DuplexStream, out: mpsc::UnboundedSender<Vec<u8>>) {
    let mut framer = Framer::default();
    let mut chunk = vec![0u8; PIPE];
    loop {
        while let Ok(Step::Frame(body)) = framer.next_step() {
            let _ = out.send(frame(&body));
        }
        match from_server.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => framer.push(&chunk[..n]),
        }
    }
}

/// Serves the client on `input`/`output`: `run` is given the two ends of
/// the in-memory pipes (the server's input and output) and runs the
/// server on them. Returns when the server stops (after `exit`, or at the
/// end of the input), `Err` after a framing error it could not recover
/// from.
pub async fn serve<I, O, F, Fut>(input: I, mut output: O, run: F) -> std::io::Result<()>
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
    F: FnOnce(DuplexStream, DuplexStream) -> Fut,
    Fut: Future<Output = ()>,
{
    let (mut to_server, server_in) = tokio::io::duplex(PIPE);
    let (server_out, from_server) = tokio::io::duplex(PIPE);
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let (done_tx, mut done_rx) = oneshot::channel();

    let reader_out = out_tx.clone();
    let reader = tokio::spawn(async move {
        let outcome = read_input(input, &mut to_server, &reader_out).await;
        // The outcome is stored before the pipe closes, so it is there
        // when the server sees the end of its input and stops.
        let _ = done_tx.send(outcome);
        drop(to_server);
    });
    let pump = tokio::spawn(pump_output(from_server, out_tx));
    let writer = tokio::spawn(async move {
        while let Some(f) = out_rx.recv().await {
            if output.write_all(&f).await.is_err() || output.flush().await.is_err() {
                return;
            }
        }
    });

    run(server_in, server_out).await;

    // The server stops at `exit` without waiting for the input to end.
    let outcome = done_rx.try_recv().unwrap_or(Ok(()));
    reader.abort();
    let _ = pump.await;
    let _ = writer.await;
    outcome.map_err(|problem| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("bad input from the client: {problem}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// All the steps for `input` pushed at once, then `finish`.
    fn steps(input: &[u8]) -> (Vec<Step>, Result<(), Fatal>) {
        let mut f = Framer::default();
        f.push(input);
        let mut out = Vec::new();
        loop {
            match f.next_step() {
                Ok(Step::NeedMore) => return (out, f.finish()),
                Ok(s) => out.push(s),
                Err(e) => return (out, Err(e)),
            }
        }
    }

    fn body(s: &str) -> Step {
        Step::Frame(s.as_bytes().to_vec())
    }

    #[test]
    fn frames_split_anywhere_come_out_whole() {
        let input = b"Content-Length: 2\r\n\r\n{}Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:3\r\n\r\n[1]\r\n";
        for cut in 0..input.len() {
            let mut f = Framer::default();
            let mut got = Vec::new();
            for part in [&input[..cut], &input[cut..]] {
                f.push(part);
                while let Ok(Step::Frame(b)) = f.next_step() {
                    got.push(String::from_utf8(b).unwrap());
                }
            }
            assert_eq!(got, ["{}", "[1]"], "cut at {cut}");
            assert_eq!(f.finish(), Ok(()));
        }
    }

    #[test]
    fn bad_lengths_skip_to_the_next_header() {
        let (s, end) = steps(b"X-Foo: 1\r\n\r\n{\"a\":1}Content-Length: 2\r\n\r\n{}");
        assert!(matches!(&s[0], Step::Skipped(m) if m.contains("without Content-Length")));
        assert_eq!(s[1], body("{}"));
        assert_eq!(end, Ok(()));
        let (s, _) = steps(b"Content-Length: abc\r\n\r\n{}Content-Length: 2\r\n\r\n[]");
        assert!(
            matches!(&s[0], Step::Skipped(m) if m.contains("`abc`")),
            "{s:?}"
        );
        assert_eq!(s[1], body("[]"));
        // Skipped bytes are dropped as they come.
        let mut f = Framer::default();
        f.push(b"Content-Length: -1\r\n\r\n");
        assert!(matches!(f.next_step(), Ok(Step::Skipped(_))));
        for _ in 0..1000 {
            f.push(&[b'x'; 1000]);
            assert_eq!(f.next_step(), Ok(Step::NeedMore));
        }
        assert!(f.buf.len() < HEADER_NAME.len());
        f.push(b"Content-Length: 1\r\n\r\n7");
        assert_eq!(f.next_step(), Ok(body("7")));
    }

    #[test]
    fn unrecoverable_framing() {
        // The body is shorter than announced.
        let (s, end) = steps(b"Content-Length: 100\r\n\r\n{}");
        assert!(s.is_empty());
        assert!(matches!(end, Err(Fatal(m)) if m.contains("after 2 of the 100 bytes")));
        // Over the limit: refused before anything is read.
        let (_, end) = steps(b"Content-Length: 99999999999\r\n\r\n");
        assert!(matches!(end, Err(Fatal(m)) if m.contains("over the limit")));
        // Not a header at all (JSON without a header), even unterminated.
        let (_, end) = steps(b"{\"jsonrpc\":\"2.0\"");
        assert!(matches!(end, Err(Fatal(m)) if m.contains("expected a header")));
        let (_, end) = steps(b"hello world\r\n\r\n");
        assert!(matches!(end, Err(Fatal(m)) if m.contains("not a header line")));
        let (_, end) = steps(b"Content-Length: 2\r\n");
        assert!(matches!(end, Err(Fatal(m)) if m.contains("inside a header")));
        let (_, end) = steps(&[b'A'; MAX_HEADER + 1]);
        assert!(matches!(end, Err(Fatal(m)) if m.contains("header block longer")));
        // Stray line breaks between frames are no error.
        let (s, end) = steps(b"\r\nContent-Length: 2\r\n\r\n{}\r\n");
        assert_eq!((s, end), (vec![body("{}")], Ok(())));
    }

    #[test]
    fn messages_are_checked_before_the_server_sees_them() {
        let code = |b: &str| {
            check_message(b.as_bytes())
                .err()
                .map(|(r, _)| r["error"]["code"].clone())
        };
        let id = |b: &str| {
            check_message(b.as_bytes())
                .err()
                .map(|(r, _)| r["id"].clone())
        };
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#),
            None
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#),
            None
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":3,"result":null}"#), None);
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":"#), Some(json!(-32700)));
        assert_eq!(code(""), Some(json!(-32700)));
        assert_eq!(code("\u{feff}{}"), Some(json!(-32700)));
        assert_eq!(
            code(r#"[{"jsonrpc":"2.0","id":1,"method":"shutdown"}]"#),
            Some(json!(-32600))
        );
        assert_eq!(code("42"), Some(json!(-32600)));
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":7,"method":"x"}"#),
            Some(json!(-32600))
        );
        assert_eq!(
            id(r#"{"jsonrpc":"1.0","id":7,"method":"x"}"#),
            Some(json!(7))
        );
        assert_eq!(id(r#"{"id":[1],"method":5}"#), Some(Value::Null));
    }
}
