//! eqlens's own protocol on top of LSP: command names and arguments, the
//! `eqlens/status` notification and the `eqlens/baseline` request. Editors
//! depend on these shapes (see `docs/server.md`); change them only with
//! the clients.

use serde::{Deserialize, Serialize};
use tower_lsp_server::jsonrpc::Error;
use tower_lsp_server::ls_types::Uri;
use tower_lsp_server::ls_types::notification::Notification;

pub const CMD_PIN: &str = "eqlens.pinBaseline";
pub const CMD_UNPIN: &str = "eqlens.unpinBaseline";
pub const CMD_ABSTRACT: &str = "eqlens.abstractBlock";
pub const CMD_REFINE: &str = "eqlens.refineBlock";
pub const CMD_CLEAR: &str = "eqlens.clearOverrides";
pub const CMD_RECHECK: &str = "eqlens.recheck";
pub const CMD_DETAILS: &str = "eqlens.showDetails";
pub const COMMANDS: &[&str] = &[
    CMD_PIN,
    CMD_UNPIN,
    CMD_ABSTRACT,
    CMD_REFINE,
    CMD_CLEAR,
    CMD_RECHECK,
    CMD_DETAILS,
];

/// Code action kinds: abstract/refine (a refactoring of the proof, shown
/// in the light bulb), re-check and pin/unpin (source actions).
pub const KIND_PROOF: &str = "refactor.eqlens";
pub const KIND_RECHECK: &str = "source.eqlens.recheck";
pub const KIND_PIN: &str = "source.eqlens.pin";

/// `eqlens/status`: the state of one document, for status bars and tests.
pub enum StatusNotification {}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusParams {
    pub uri: Uri,
    pub version: i32,
    /// `checking` while jobs run, `done`, or `idle` (nothing to check: see
    /// `note`).
    pub state: String,
    pub baseline: Option<String>,
    pub note: Option<String>,
    pub changed: usize,
    pub equivalent: usize,
    pub not_equivalent: usize,
    pub unknown: usize,
    /// Not final yet (checking, or showing an interim verdict).
    pub pending: usize,
    /// Of the pending ones, those showing a fast verdict while a stronger
    /// checker runs.
    pub interim: usize,
}

impl Notification for StatusNotification {
    type Params = StatusParams;
    const METHOD: &'static str = "eqlens/status";
}

#[derive(Debug, Deserialize)]
pub struct BaselineParams {
    pub uri: Uri,
}

#[derive(Debug, Serialize)]
pub struct BaselineResponse {
    /// `null` when there is no baseline (see `reason`).
    pub text: Option<String>,
    pub label: Option<String>,
    pub reason: Option<String>,
}

/// Arguments of the commands (one JSON object).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandArgs {
    pub uri: Uri,
    pub method: Option<String>,
    pub arity: Option<usize>,
    pub first_line: Option<u32>,
    pub last_line: Option<u32>,
    pub loop_bound: Option<u32>,
    /// `eqlens.showDetails`: only return the details (the client shows
    /// them), no `window/showMessage`.
    #[serde(default)]
    pub quiet: bool,
}

pub fn invalid(msg: impl Into<String>) -> Error {
    Error::invalid_params(msg.into())
}
