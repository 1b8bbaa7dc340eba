//! The C front end on arbitrary text: parse and lower never panic, and an
//! incremental parse lowers as a full one does.
#![no_main]
use eqlens_core::ir::Lang;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    eqlens_fuzz::front_end(Lang::C, &String::from_utf8_lossy(data));
});
