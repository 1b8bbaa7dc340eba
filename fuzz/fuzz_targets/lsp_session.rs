//! A session of LSP notifications and requests, in process: open a
//! document, pin it, change it to a second text, then edits, requests,
//! cancellations, commands and setting changes decoded from the rest.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let (first, rest) = eqlens_fuzz::split_nul(rest);
    let (second, ops) = eqlens_fuzz::split_nul(rest);
    eqlens_fuzz::session(
        eqlens_fuzz::lang_of(selector),
        &String::from_utf8_lossy(first),
        &String::from_utf8_lossy(second),
        ops,
    );
});
