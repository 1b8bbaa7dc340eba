//! Rendering printed output as the program would print it: Java's
//! `print`/`println` conversions and C's `printf`/`puts`/`putchar`.

use super::Printed;
use crate::ir::Type;
use crate::value::{Value, fmt_f32, fmt_f64};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};

/// An argument of a C output call.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum PArg {
    Str(String),
    Val(Value, Type),
}

/// The text of a sequence of printed items.
pub(crate) fn render_output(items: &[Printed]) -> String {
    let mut out = String::new();
    for it in items {
        match it {
            Printed::Text(s) | Printed::ApproxText(s) => out.push_str(s),
            Printed::Newline => out.push('\n'),
            Printed::Value(v, ty) => out.push_str(&java_value(v, ty)),
        }
    }
    out
}

/// A value as Java's string conversion prints it (`String.valueOf`). Math
/// reals print exactly (`0.5`, `1/3`) or as `≈x` when approximated.
pub(crate) fn java_value(v: &Value, ty: &Type) -> String {
    match (v, ty) {
        (Value::Int(i), Type::Int(t)) if t.is_char => i
            .to_u32()
            .and_then(char::from_u32)
            .unwrap_or(char::REPLACEMENT_CHARACTER)
            .to_string(),
        (Value::Void, _) => String::new(),
        (Value::F32(x), _) => fmt_f32(*x),
        (Value::F64(x), _) => fmt_f64(*x),
        (v, _) => v.to_string(),
    }
}

/// C's conversion to `unsigned char`, as `putchar` and `%c` print.
pub(crate) fn c_char(i: &BigInt) -> char {
    let b = i.mod_floor(&BigInt::from(256)).to_u8().unwrap_or(0);
    char::from(b)
}

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
    /// Width in bits of the integer argument the length modifier names.
    int_bits: u8,
}

/// Widths beyond this are clamped (a `*` width comes from program data).
const MAX_WIDTH: usize = 4096;

/// C `printf`. Supports the flags `-+ #0`, width and precision (also `*`),
/// length modifiers `hh h l ll j z t L`, and the conversions
/// `d i u x X o c s f F e E g G %`. Under math semantics `%d` prints the
/// exact integer; `%u/%x/%o` of a negative value and every machine
/// conversion reduce the value to the modifier's width, as C would see it.
/// Unknown conversions are copied through; missing arguments print nothing.
pub(crate) fn printf(format: &str, args: &[PArg], math: bool) -> String {
    let mut out = String::new();
    let mut args = args.iter();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut raw = String::from("%");
        let mut spec = Spec {
            int_bits: 32,
            ..Spec::default()
        };
        while let Some(&f) = chars.peek() {
            match f {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '#' => spec.alt = true,
                '0' => spec.zero = true,
                _ => break,
            }
            raw.push(f);
            chars.next();
        }
        if chars.peek() == Some(&'*') {
            chars.next();
            raw.push('*');
            let w = int_arg(args.next()).unwrap_or_default();
            if w.is_negative() {
                spec.left = true;
            }
            spec.width = w.abs().to_usize().unwrap_or(MAX_WIDTH).min(MAX_WIDTH);
        } else {
            spec.width = digits(&mut chars, &mut raw).min(MAX_WIDTH);
        }
        if chars.peek() == Some(&'.') {
            chars.next();
            raw.push('.');
            if chars.peek() == Some(&'*') {
                chars.next();
                raw.push('*');
                let p = int_arg(args.next()).unwrap_or_default();
                // A negative precision is taken as if omitted.
                spec.prec = if p.is_negative() {
                    None
                } else {
                    Some(p.to_usize().unwrap_or(MAX_WIDTH).min(MAX_WIDTH))
                };
            } else {
                spec.prec = Some(digits(&mut chars, &mut raw).min(MAX_WIDTH));
            }
        }
        loop {
            match chars.peek() {
                Some('h') => {
                    spec.int_bits = if spec.int_bits == 16 { 8 } else { 16 };
                }
                Some('l' | 'j' | 'z' | 't' | 'q') => spec.int_bits = 64,
                Some('L') => {}
                _ => break,
            }
            if let Some(m) = chars.next() {
                raw.push(m);
            }
        }
        let Some(conv) = chars.next() else {
            out.push_str(&raw);
            break;
        };
        match conv {
            '%' => out.push('%'),
            'd' | 'i' | 'u' | 'x' | 'X' | 'o' => {
                if let Some(i) = int_arg(args.next()) {
                    out.push_str(&fmt_int(i, conv, &spec, math));
                }
            }
            'c' => {
                if let Some(i) = int_arg(args.next()) {
                    out.push_str(&pad(c_char(&i).to_string(), &spec, false));
                }
            }
            's' => {
                let s = match args.next() {
                    Some(PArg::Str(s)) => s.clone(),
                    Some(PArg::Val(v, ty)) => java_value(v, ty),
                    None => continue,
                };
                let s = match spec.prec {
                    Some(p) => s.chars().take(p).collect(),
                    None => s,
                };
                out.push_str(&pad(s, &spec, false));
            }
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' => {
                if let Some(x) = float_arg(args.next()) {
                    out.push_str(&fmt_float(x, conv, &spec));
                }
            }
            other => {
                out.push_str(&raw);
                out.push(other);
            }
        }
    }
    out
}

fn digits(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, raw: &mut String) -> usize {
    let mut n: usize = 0;
    while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
        n = n.saturating_mul(10).saturating_add(d as usize);
        raw.extend(chars.next());
    }
    n
}

fn int_arg(a: Option<&PArg>) -> Option<BigInt> {
    match a? {
        PArg::Val(Value::Int(i), _) => Some(i.clone()),
        PArg::Val(Value::Bool(b), _) => Some(BigInt::from(u8::from(*b))),
        // Mismatched conversions are undefined in C; print something sane.
        PArg::Val(v, _) => float_of(v).and_then(|x| num_traits::FromPrimitive::from_f64(x.trunc())),
        PArg::Str(_) => None,
    }
}

fn float_of(v: &Value) -> Option<f64> {
    match v {
        Value::F64(x) => Some(*x),
        Value::F32(x) => Some(f64::from(*x)),
        Value::Real(r) => Some(r.to_f64()),
        Value::Int(i) => i.to_f64(),
        _ => None,
    }
}

fn float_arg(a: Option<&PArg>) -> Option<f64> {
    match a? {
        PArg::Val(v, _) => float_of(v),
        PArg::Str(_) => None,
    }
}

/// Pads `body` (sign and prefix included) to the width. `zero_ok` says
/// whether the `0` flag applies; zeros go after the sign/prefix, whose
/// length is `prefix_len`.
fn pad_num(body: String, prefix_len: usize, spec: &Spec, zero_ok: bool) -> String {
    let len = body.chars().count();
    if len >= spec.width {
        return body;
    }
    let fill = spec.width - len;
    if spec.left {
        format!("{body}{}", " ".repeat(fill))
    } else if spec.zero && zero_ok {
        let (pre, rest) = body.split_at(prefix_len.min(body.len()));
        format!("{pre}{}{rest}", "0".repeat(fill))
    } else {
        format!("{}{body}", " ".repeat(fill))
    }
}

fn pad(body: String, spec: &Spec, zero_ok: bool) -> String {
    pad_num(body, 0, spec, zero_ok)
}

fn fmt_int(i: BigInt, conv: char, spec: &Spec, math: bool) -> String {
    let signed = matches!(conv, 'd' | 'i');
    let bits = spec.int_bits;
    let t = crate::ir::IntTy {
        bits,
        signed,
        is_char: false,
    };
    let v = if signed {
        if math { i } else { super::ops::wrap(&i, t) }
    } else if math && !i.is_negative() {
        i
    } else {
        super::ops::wrap(&i, t)
    };
    let neg = v.is_negative();
    let mag = v.abs();
    let mut digits = match conv {
        'x' => mag.to_str_radix(16),
        'X' => mag.to_str_radix(16).to_uppercase(),
        'o' => mag.to_str_radix(8),
        _ => mag.to_string(),
    };
    if let Some(p) = spec.prec {
        if p == 0 && mag.is_zero() {
            digits.clear();
        }
        if digits.len() < p {
            digits = format!("{}{digits}", "0".repeat(p - digits.len()));
        }
    }
    if conv == 'o' && spec.alt && !digits.starts_with('0') {
        digits.insert(0, '0');
    }
    let prefix = if neg {
        "-"
    } else if signed && spec.plus {
        "+"
    } else if signed && spec.space {
        " "
    } else if spec.alt && !mag.is_zero() && conv == 'x' {
        "0x"
    } else if spec.alt && !mag.is_zero() && conv == 'X' {
        "0X"
    } else {
        ""
    };
    pad_num(
        format!("{prefix}{digits}"),
        prefix.len(),
        spec,
        spec.prec.is_none(),
    )
}

/// `%e` body of a non-negative finite `a`: `d.ddde±XX`.
fn exp_form(a: f64, prec: usize, alt: bool) -> (String, i32) {
    let s = format!("{a:.prec$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut mant = mant.to_string();
    if alt && !mant.contains('.') {
        mant.push('.');
    }
    let sign = if exp < 0 { '-' } else { '+' };
    (format!("{mant}e{sign}{:02}", exp.unsigned_abs()), exp)
}

fn strip_zeros(s: &str) -> String {
    let (mant, exp) = match s.find('e') {
        Some(p) => (&s[..p], &s[p..]),
        None => (s, ""),
    };
    let mant = if mant.contains('.') {
        mant.trim_end_matches('0').trim_end_matches('.')
    } else {
        mant
    };
    format!("{mant}{exp}")
}

fn fmt_float(x: f64, conv: char, spec: &Spec) -> String {
    let upper = conv.is_ascii_uppercase();
    let sign = if x.is_sign_negative() {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    if !x.is_finite() {
        let body = if x.is_nan() { "nan" } else { "inf" };
        let body = if upper {
            body.to_uppercase()
        } else {
            body.to_string()
        };
        return pad(format!("{sign}{body}"), spec, false);
    }
    let a = x.abs();
    let prec = spec.prec.unwrap_or(6);
    let body = match conv.to_ascii_lowercase() {
        'f' => {
            let mut s = format!("{a:.prec$}");
            if spec.alt && prec == 0 {
                s.push('.');
            }
            s
        }
        'e' => exp_form(a, prec, spec.alt).0,
        _ => {
            let p = if prec == 0 { 1 } else { prec };
            let x_exp = if a == 0.0 {
                0
            } else {
                exp_form(a, p - 1, false).1
            };
            let s = if x_exp < p as i32 && x_exp >= -4 {
                let fp = (p as i32 - 1 - x_exp).max(0) as usize;
                let mut s = format!("{a:.fp$}");
                if spec.alt && !s.contains('.') {
                    s.push('.');
                }
                s
            } else {
                exp_form(a, p - 1, spec.alt).0
            };
            if spec.alt { s } else { strip_zeros(&s) }
        }
    };
    let body = if upper { body.to_uppercase() } else { body };
    pad_num(format!("{sign}{body}"), sign.len(), spec, true)
}
