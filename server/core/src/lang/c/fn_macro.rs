//! Function-like macros (`#define MAX(a, b) ((a) > (b) ? (a) : (b))`),
//! expanded as the preprocessor does — on text, before parsing: each
//! parameter replaced by its (fully expanded) argument, then the result
//! rescanned, a macro never expanding inside itself. The expansion of a
//! use is then parsed and lowered where the use stands (see
//! `FileCx::macro_calls`), so `MAX(i++, j)` increments twice, as compiled
//! code does.
//!
//! Out of scope, and refused by name: `#` and `##` (stringizing and token
//! pasting) and variadic macros.

use rustc_hash::FxHashMap;

/// A function-like macro's definition.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct FnMacro {
    pub params: Vec<String>,
    pub body: String,
}

/// Definitions by name: the macro, or why it cannot be expanded.
pub(super) type FnMacros = FxHashMap<String, Result<FnMacro, String>>;

/// Nested expansions allowed (C has no limit; real macros nest a few deep).
const MAX_DEPTH: usize = 32;

/// Longest expansion accepted: an argument pasted twice per level doubles
/// the text, so `MAX(MAX(MAX(...)))` grows exponentially with nesting.
const MAX_EXPANSION: usize = 64 * 1024;

impl FnMacro {
    /// From the parameter list and body texts of a `#define`.
    pub fn new(name: &str, params: &[&str], body: &str) -> Result<FnMacro, String> {
        if params.iter().any(|p| p.contains("...")) {
            return Err(format!("variadic macro {name}"));
        }
        if body.contains('#') {
            return Err(format!(
                "macro {name} using # or ## (stringizing or pasting)"
            ));
        }
        Ok(FnMacro {
            params: params.iter().map(|p| p.trim().to_string()).collect(),
            body: body.trim().to_string(),
        })
    }
}

/// The expansion of `name(args)`: `Err` says why there is none.
pub(super) fn expand_call(name: &str, args: &[&str], defs: &FnMacros) -> Result<String, String> {
    let mut active = Vec::new();
    expand_one(name, args, defs, &mut active)
}

fn expand_one(
    name: &str,
    args: &[&str],
    defs: &FnMacros,
    active: &mut Vec<String>,
) -> Result<String, String> {
    let def = match defs.get(name) {
        Some(Ok(d)) => d,
        Some(Err(why)) => return Err(why.clone()),
        None => return Err(format!("unknown macro {name}")),
    };
    if active.len() >= MAX_DEPTH {
        return Err(format!("macro {name} nested too deeply"));
    }
    // `F()` of a one-parameter macro passes one empty argument.
    let arity_ok = args.len() == def.params.len()
        || (def.params.is_empty() && args.len() == 1 && args[0].trim().is_empty());
    if !arity_ok {
        return Err(format!(
            "macro {name} takes {} arguments, given {}",
            def.params.len(),
            args.len()
        ));
    }
    // Arguments are expanded on their own first (C11 6.10.3.1).
    let mut expanded = Vec::with_capacity(args.len());
    for a in args {
        expanded.push(expand_text(a.trim(), defs, active)?);
    }
    let mut substituted = String::with_capacity(def.body.len());
    for token in tokens(&def.body) {
        match token {
            Token::Ident(id) => match def.params.iter().position(|p| p == id) {
                Some(i) => substituted.push_str(&expanded[i]),
                None => substituted.push_str(id),
            },
            Token::Other(t) => substituted.push_str(t),
        }
    }
    if substituted.len() > MAX_EXPANSION {
        return Err(format!("macro {name} expanding to more than 64 KiB"));
    }
    active.push(name.to_string());
    let r = expand_text(&substituted, defs, active);
    active.pop();
    let text = r?;
    if text.len() > MAX_EXPANSION {
        return Err(format!("macro {name} expanding to more than 64 KiB"));
    }
    Ok(text)
}

/// `text` with every use of a function-like macro not being expanded
/// already (`active`) replaced by its expansion.
fn expand_text(text: &str, defs: &FnMacros, active: &mut Vec<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(token) = tokens(rest).next() {
        let len = token.text().len();
        if let Token::Ident(id) = token
            && defs.contains_key(id)
            && !active.iter().any(|a| a == id)
            && let Some((args, used)) = arguments(&rest[len..])
        {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            out.push_str(&expand_one(id, &args, defs, active)?);
            rest = &rest[len + used..];
            continue;
        }
        out.push_str(token.text());
        rest = &rest[len..];
    }
    Ok(out)
}

/// The arguments of a use, from the text of its argument list (`(a, b)`).
pub(super) fn arguments_of(list: &str) -> Option<Vec<String>> {
    arguments(list).map(|(args, _)| args)
}

/// The arguments of a macro use whose name was just read: `(a, f(b, c))`
/// after optional blanks, split at top-level commas; and how many bytes
/// that took. `None` when no `(` follows (the name is then not a use).
fn arguments(text: &str) -> Option<(Vec<String>, usize)> {
    let open = text.len() - text.trim_start().len();
    if !text[open..].starts_with('(') {
        return None;
    }
    let mut depth = 0usize;
    let mut args = Vec::new();
    let mut current = String::new();
    let mut consumed = open;
    for token in tokens(&text[open..]) {
        let t = token.text();
        consumed += t.len();
        match t {
            "(" | "[" | "{" => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
            }
            ")" | "]" | "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    args.push(std::mem::take(&mut current));
                    return Some((args, consumed));
                }
            }
            "," if depth == 1 => {
                args.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push_str(t);
    }
    None
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Token<'a> {
    Ident(&'a str),
    /// Anything else, kept verbatim: a number, a string or character
    /// literal (whose contents are never substituted), a comment, blanks,
    /// one punctuation character.
    Other(&'a str),
}

impl<'a> Token<'a> {
    fn text(self) -> &'a str {
        match self {
            Token::Ident(t) | Token::Other(t) => t,
        }
    }
}

/// Splits C text into identifiers and the rest, enough for macro
/// substitution: literals and comments are single tokens.
fn tokens(text: &str) -> impl Iterator<Item = Token<'_>> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let mut chars = rest.char_indices();
        let (_, c) = chars.next()?;
        let end = if c.is_alphabetic() || c == '_' {
            rest.find(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
                .unwrap_or(rest.len())
        } else if c.is_ascii_digit() {
            // A number with its suffixes and exponent (`1e-3` splits at
            // the sign, harmlessly: no identifier hides in it).
            rest.find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '.'))
                .unwrap_or(rest.len())
        } else if c == '"' || c == '\'' {
            let mut escaped = false;
            let mut end = rest.len();
            for (i, ch) in rest.char_indices().skip(1) {
                if escaped {
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch == c {
                    end = i + ch.len_utf8();
                    break;
                }
            }
            end
        } else if rest.starts_with("/*") {
            rest.find("*/").map_or(rest.len(), |i| i + 2)
        } else if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else {
            c.len_utf8()
        };
        let (token, tail) = rest.split_at(end.max(c.len_utf8()));
        rest = tail;
        Some(if c.is_alphabetic() || c == '_' {
            Token::Ident(token)
        } else {
            Token::Other(token)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs(list: &[(&str, &[&str], &str)]) -> FnMacros {
        list.iter()
            .map(|(name, params, body)| (name.to_string(), FnMacro::new(name, params, body)))
            .collect()
    }

    #[test]
    fn parameters_are_replaced_by_whole_tokens_only() {
        let d = defs(&[("SQ", &["x"], "((x) * (x) + x_1 + 'x' + \"x\")")]);
        assert_eq!(
            expand_call("SQ", &["a + 1"], &d).unwrap(),
            "((a + 1) * (a + 1) + x_1 + 'x' + \"x\")"
        );
    }

    #[test]
    fn nested_uses_expand_arguments_first_and_never_recurse() {
        let d = defs(&[
            ("MAX", &["a", "b"], "((a) > (b) ? (a) : (b))"),
            ("CLAMP", &["v", "lo", "hi"], "MAX(lo, MIN(v, hi))"),
            ("MIN", &["a", "b"], "((a) < (b) ? (a) : (b))"),
            ("SELF", &["x"], "SELF(x) + 1"),
        ]);
        assert_eq!(
            expand_call("MAX", &["MAX(a, b)", "c"], &d).unwrap(),
            "((((a) > (b) ? (a) : (b))) > (c) ? (((a) > (b) ? (a) : (b))) : (c))"
        );
        assert_eq!(
            expand_call("CLAMP", &["x", "0", "f(1, 2)"], &d).unwrap(),
            "((0) > (((x) < (f(1, 2)) ? (x) : (f(1, 2)))) ? (0) : (((x) < (f(1, 2)) ? (x) : (f(1, 2)))))"
        );
        // A macro is not expanded inside its own expansion (C11 6.10.3.4).
        assert_eq!(expand_call("SELF", &["y"], &d).unwrap(), "SELF(y) + 1");
    }

    #[test]
    fn statement_macros_and_commas_inside_arguments() {
        let d = defs(&[("BUG_ON", &["cond"], "do { if (cond) abort(); } while (0)")]);
        assert_eq!(
            expand_call("BUG_ON", &["f(a, b) > c[1]"], &d).unwrap(),
            "do { if (f(a, b) > c[1]) abort(); } while (0)"
        );
        let (args, used) = arguments(" (f(a, b), {1, 2}, c) + 1").unwrap();
        assert_eq!(args, ["f(a, b)", " {1, 2}", " c"]);
        assert_eq!(used, " (f(a, b), {1, 2}, c)".len());
        assert_eq!(arguments(" + 1"), None);
    }

    #[test]
    fn exponential_expansions_stop_at_a_size() {
        let d = defs(&[("MAX", &["a", "b"], "((a) > (b) ? (a) : (b))")]);
        let mut arg = "x".to_string();
        for _ in 0..24 {
            arg = format!("MAX({arg}, y)");
        }
        let e = expand_call("MAX", &[&arg, "z"], &d).unwrap_err();
        assert!(e.contains("more than 64 KiB"), "{e}");
    }

    #[test]
    fn what_is_out_of_scope_says_so() {
        let d = defs(&[
            ("STR", &["x"], "#x"),
            ("CAT", &["a", "b"], "a ## b"),
            ("LOG", &["fmt", "..."], "printf(fmt, __VA_ARGS__)"),
            ("TWO", &["a", "b"], "a + b"),
        ]);
        assert!(
            expand_call("STR", &["y"], &d)
                .unwrap_err()
                .contains("stringizing")
        );
        assert!(
            expand_call("CAT", &["y", "z"], &d)
                .unwrap_err()
                .contains("pasting")
        );
        assert!(
            expand_call("LOG", &["\"%d\"", "1"], &d)
                .unwrap_err()
                .contains("variadic")
        );
        assert!(
            expand_call("TWO", &["1"], &d)
                .unwrap_err()
                .contains("takes 2 arguments, given 1")
        );
    }
}
