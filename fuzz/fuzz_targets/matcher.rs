//! The statement matcher on two lowered versions: a selector byte (even:
//! Java, odd: C), the old text, NUL, the new text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let (old, new) = eqlens_fuzz::split_nul(rest);
    eqlens_fuzz::matcher(
        eqlens_fuzz::lang_of(selector),
        &String::from_utf8_lossy(old),
        &String::from_utf8_lossy(new),
    );
});
