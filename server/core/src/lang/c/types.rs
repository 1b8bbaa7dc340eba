//! C types (LP64) and literals, and the conversions C inserts implicitly.

use tree_sitter::Node;

use super::{FileCx, Res, kids, span_of, unsupported};
use crate::ir::{FloatTy, IntTy, Type};

impl FileCx<'_> {
    /// The type a type specifier names (qualifiers ignored). `src` is the
    /// text the node indexes into (the file or a macro body).
    pub(super) fn base_type(&self, t: Node, src: &str) -> Res<Type> {
        let text = t.utf8_text(src.as_bytes()).unwrap_or("");
        match t.kind() {
            "primitive_type" => {
                primitive(text).ok_or_else(|| unsupported(span_of(t), format!("type {text}")))
            }
            "sized_type_specifier" => sized(t, src),
            "type_identifier" => match self.typedefs.get(text) {
                Some(Ok(ty)) => Ok(ty.clone()),
                Some(Err(what)) => Err(unsupported(span_of(t), what.clone())),
                None if text == "_Bool" => Ok(Type::Bool),
                None => Err(unsupported(span_of(t), format!("unknown type {text}"))),
            },
            "enum_specifier" => {
                let tag = t
                    .child_by_field_name("name")
                    .and_then(|n| n.utf8_text(src.as_bytes()).ok());
                Ok(tag
                    .and_then(|tag| self.enum_types.get(tag).cloned())
                    .unwrap_or(Type::Int(IntTy::U32)))
            }
            "struct_specifier" => Err(unsupported(span_of(t), "struct type")),
            "union_specifier" => Err(unsupported(span_of(t), "union type")),
            _ => Err(unsupported(span_of(t), format!("type {text}"))),
        }
    }
}

fn primitive(text: &str) -> Option<Type> {
    let i = |t: IntTy| Some(Type::Int(t));
    match text {
        "void" => Some(Type::Void),
        "bool" | "_Bool" => Some(Type::Bool),
        "char" => i(IntTy::C_CHAR),
        "int" => i(IntTy::I32),
        "float" => Some(Type::Float(FloatTy::F32)),
        "double" => Some(Type::Float(FloatTy::F64)),
        "int8_t" => i(IntTy::I8),
        "int16_t" => i(IntTy::I16),
        "int32_t" => i(IntTy::I32),
        "int64_t" | "ssize_t" | "ptrdiff_t" | "intptr_t" => i(IntTy::I64),
        "uint8_t" => i(IntTy::U8),
        "uint16_t" => i(IntTy::U16),
        "uint32_t" => i(IntTy::U32),
        "uint64_t" | "size_t" | "uintptr_t" => i(IntTy::U64),
        _ => None,
    }
}

/// `unsigned long int`, `short`, `signed char`, `long double`, ...
fn sized(t: Node, src: &str) -> Res<Type> {
    let mut longs = 0;
    let mut short = false;
    let mut unsigned = false;
    let mut signed = false;
    let mut base: Option<&str> = None;
    let mut c = t.walk();
    for k in t.children(&mut c) {
        let word = k.utf8_text(src.as_bytes()).unwrap_or("");
        match (k.kind(), word) {
            ("comment", _) | ("type_qualifier", _) => {}
            (_, "long") => longs += 1,
            (_, "short") => short = true,
            (_, "unsigned") => unsigned = true,
            (_, "signed") => signed = true,
            ("primitive_type", w) | ("type_identifier", w) => base = Some(w),
            _ => {}
        }
    }
    let err = || {
        unsupported(
            span_of(t),
            format!("type {}", t.utf8_text(src.as_bytes()).unwrap_or("")),
        )
    };
    let bits = match base {
        Some("double") if longs == 1 && !short && !unsigned && !signed => {
            return Err(unsupported(span_of(t), "long double"));
        }
        Some("char") if longs == 0 && !short => {
            return Ok(Type::Int(if unsigned {
                IntTy::U8
            } else if signed {
                IntTy::I8
            } else {
                IntTy::C_CHAR
            }));
        }
        None | Some("int") => {
            if short && longs == 0 {
                16
            } else if longs > 0 && !short {
                64
            } else if !short {
                32
            } else {
                return Err(err());
            }
        }
        _ => return Err(err()),
    };
    Ok(Type::Int(IntTy {
        bits,
        signed: !unsigned,
        is_char: false,
    }))
}

/// Integer promotion: `_Bool`, `char`, `short` (and comparison results,
/// which are `int` in C) become `int`.
pub(super) fn promote(t: &Type) -> Type {
    match t {
        Type::Bool => Type::INT,
        Type::Int(i) if i.bits < 32 || i.is_char => {
            if i.bits < 32 {
                Type::INT
            } else {
                Type::Int(IntTy {
                    is_char: false,
                    ..*i
                })
            }
        }
        other => other.clone(),
    }
}

/// The usual arithmetic conversions (C11 6.3.1.8) on two arithmetic types.
pub(super) fn usual(a: &Type, b: &Type) -> Option<Type> {
    let (a, b) = (promote(a), promote(b));
    match (&a, &b) {
        (Type::Float(FloatTy::F64), _) | (_, Type::Float(FloatTy::F64)) => Some(Type::DOUBLE),
        (Type::Float(FloatTy::F32), _) | (_, Type::Float(FloatTy::F32)) => {
            Some(Type::Float(FloatTy::F32))
        }
        (Type::Int(x), Type::Int(y)) => {
            if x == y {
                return Some(a);
            }
            if x.signed == y.signed {
                return Some(Type::Int(if x.bits >= y.bits { *x } else { *y }));
            }
            let (s, u) = if x.signed { (x, y) } else { (y, x) };
            if u.bits >= s.bits {
                Some(Type::Int(*u))
            } else {
                // The signed type is wider and can hold every unsigned value.
                Some(Type::Int(*s))
            }
        }
        _ => None,
    }
}

pub(super) fn is_arith(t: &Type) -> bool {
    matches!(t, Type::Bool | Type::Int(_) | Type::Float(_))
}

pub(super) fn is_integer(t: &Type) -> bool {
    matches!(t, Type::Bool | Type::Int(_))
}

/// `sizeof` of a scalar type, in bytes.
pub(super) fn size_of(t: &Type) -> Option<u64> {
    match t {
        Type::Bool => Some(1),
        Type::Int(i) => Some(u64::from(i.bits / 8)),
        Type::Float(FloatTy::F32) => Some(4),
        Type::Float(FloatTy::F64) => Some(8),
        _ => None,
    }
}

/// Whether `v` is a value of `t` (machine range).
pub(super) fn fits(v: i128, t: &IntTy) -> bool {
    let bits = u32::from(t.bits);
    if t.signed {
        let max = (1i128 << (bits - 1)) - 1;
        v >= -max - 1 && v <= max
    } else {
        v >= 0 && v < (1i128 << bits)
    }
}

/// Wraps `v` into the range of `t` (two's complement).
pub(super) fn wrap(v: i128, t: &IntTy) -> i128 {
    let bits = u32::from(t.bits);
    let m = 1i128 << bits;
    let mut r = v.rem_euclid(m);
    if t.signed && r >= m / 2 {
        r -= m;
    }
    r
}

/// Value and type of an integer literal (C11 6.4.4.1, LP64).
pub(super) fn int_literal(text: &str) -> Result<(i128, IntTy), String> {
    let t: String = text
        .chars()
        .filter(|c| *c != '\'')
        .collect::<String>()
        .to_ascii_lowercase();
    let digits_end = t.trim_end_matches(['u', 'l']).len();
    let (body, suffix) = t.split_at(digits_end);
    let unsigned = suffix.contains('u');
    let longs = suffix.matches('l').count();
    if longs > 2 || suffix.matches('u').count() > 1 {
        return Err(format!("integer literal {text}"));
    }
    let (radix, digits, decimal) = if let Some(h) = body.strip_prefix("0x") {
        (16, h, false)
    } else if let Some(b) = body.strip_prefix("0b") {
        (2, b, false)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..], false)
    } else {
        (10, body, true)
    };
    let value =
        u128::from_str_radix(digits, radix).map_err(|_| format!("integer literal {text}"))?;
    let value =
        i128::try_from(value).map_err(|_| format!("integer literal {text} is too large"))?;
    let candidates: &[IntTy] = match (unsigned, longs > 0, decimal) {
        (true, false, _) => &[IntTy::U32, IntTy::U64],
        (true, true, _) => &[IntTy::U64],
        (false, false, true) => &[IntTy::I32, IntTy::I64],
        (false, true, true) => &[IntTy::I64],
        (false, false, false) => &[IntTy::I32, IntTy::U32, IntTy::I64, IntTy::U64],
        (false, true, false) => &[IntTy::I64, IntTy::U64],
    };
    candidates
        .iter()
        .find(|ty| fits(value, ty))
        .map(|ty| (value, *ty))
        .ok_or_else(|| format!("integer literal {text} is too large"))
}

/// Whether a `number_literal` is a floating constant.
pub(super) fn is_float_literal(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    if t.starts_with("0x") {
        return t.contains('p');
    }
    t.contains('.') || t.contains('e')
}

/// Value, type and suffix-free text of a floating constant.
pub(super) fn float_literal(text: &str) -> Result<(f64, FloatTy, String), String> {
    let lower = text.to_ascii_lowercase();
    if lower.starts_with("0x") {
        return Err("hexadecimal floating constant".to_string());
    }
    let (body, ty) = if let Some(b) = text.strip_suffix(['f', 'F']) {
        (b, FloatTy::F32)
    } else if text.ends_with(['l', 'L']) {
        return Err("long double constant".to_string());
    } else {
        (text, FloatTy::F64)
    };
    let mut norm = body.to_string();
    if norm.starts_with('.') {
        norm.insert(0, '0');
    }
    let value = match ty {
        FloatTy::F32 => norm.parse::<f32>().map(f64::from),
        FloatTy::F64 => norm.parse::<f64>(),
    }
    .map_err(|_| format!("floating constant {text}"))?;
    Ok((value, ty, body.to_string()))
}

/// Value of a character constant: type `int` in C; `char` is signed, so
/// `'\xff'` is -1.
pub(super) fn char_literal(text: &str) -> Result<i128, String> {
    let inner = text
        .strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
        .ok_or_else(|| format!("character constant {text}"))?;
    let bytes = unescape(inner).ok_or_else(|| format!("character constant {text}"))?;
    match bytes.as_slice() {
        [b] => Ok(i128::from(*b as i8)),
        _ => Err(format!("multi-character constant {text}")),
    }
}

/// Decodes C escape sequences into bytes.
pub(super) fn unescape(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let c = *b.get(i)?;
        i += 1;
        let v = match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'\\' | b'\'' | b'"' | b'?' => c,
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                let mut n = 1;
                while n < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + u32::from(b[i] - b'0');
                    i += 1;
                    n += 1;
                }
                u8::try_from(v).ok()?
            }
            b'x' => {
                let start = i;
                while i < b.len() && b[i].is_ascii_hexdigit() {
                    i += 1;
                }
                let v = u32::from_str_radix(std::str::from_utf8(&b[start..i]).ok()?, 16).ok()?;
                u8::try_from(v).ok()?
            }
            _ => return None,
        };
        out.push(v);
    }
    Some(out)
}

/// Text of a string literal (or adjacent literals), escapes decoded.
pub(super) fn string_literal(n: Node, src: &str) -> Option<String> {
    match n.kind() {
        "string_literal" => {
            let text = n.utf8_text(src.as_bytes()).ok()?;
            let inner = text.strip_prefix('"')?.strip_suffix('"')?;
            String::from_utf8(unescape(inner)?).ok()
        }
        "concatenated_string" => {
            let mut s = String::new();
            for k in kids(n) {
                s.push_str(&string_literal(k, src)?);
            }
            Some(s)
        }
        "parenthesized_expression" => string_literal(*kids(n).first()?, src),
        _ => None,
    }
}
