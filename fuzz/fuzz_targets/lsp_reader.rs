//! Arbitrary bytes as the language server's stdin: the framing and JSON-RPC
//! reader and whatever handlers the bytes reach must answer and return.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    eqlens_fuzz::serve_bytes(data);
});
