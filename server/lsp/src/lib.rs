//! The eqlens language server.
//!
//! Owns documents, baselines, scheduling and **all** conversion between the
//! core's plain data and LSP types (`convert.rs`, `text.rs`, `render.rs`);
//! the core stays free of LSP, async and I/O. `analysis.rs` is the only
//! place that calls into the core, always on a blocking thread;
//! `scheduler.rs` decides what runs when; `server.rs` holds the handlers;
//! `protocol.rs` eqlens's own messages; `transport.rs` the framing in
//! front of tower-lsp-server, which answers malformed input itself.

mod analysis;
mod baseline;
pub mod client;
mod config;
mod convert;
mod pins;
pub mod project;
mod protocol;
mod render;
mod scheduler;
mod server;
mod text;
mod transport;

pub use server::Backend;
use std::time::Duration;
use tower_lsp_server::{LspService, Server};

/// Serves LSP on `input`/`output` (stdin/stdout for [`run_stdio`]; any
/// byte streams for tests and fuzzing) until the client says `exit` or the
/// input ends; `Err` after input whose framing cannot be followed.
pub async fn serve<I, O>(input: I, output: O) -> std::io::Result<()>
where
    I: tokio::io::AsyncRead + Unpin + Send + 'static,
    O: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (service, socket) = LspService::build(Backend::new)
        .custom_method("eqlens/baseline", Backend::baseline)
        .finish();
    transport::serve(input, output, |input, output| {
        Server::new(input, output, socket).serve(service)
    })
    .await
}

/// Serves LSP on stdin/stdout until the client says `exit` or the input
/// ends; `Err` after input whose framing cannot be followed (logged).
pub fn run_stdio() -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let served = rt.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    // A check still running must not keep the process alive after `exit`
    // (Z3 may be in the middle of a query that only its timeout stops).
    rt.shutdown_timeout(Duration::from_millis(200));
    served
}
