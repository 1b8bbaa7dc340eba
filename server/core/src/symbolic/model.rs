//! Reading concrete inputs out of a Z3 model, by evaluating our own input
//! constants (never by inspecting the model's terms by kind).

use super::ops::{Ops, Sym};
use super::{InputSpace, InputVar, index_type};
use crate::interp::Inputs;
use crate::ir::{FloatTy, Type};
use crate::value::{Real as RealValue, Value};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};
use z3::Model;
use z3::ast::{Bool, Dynamic};

/// Largest input array a counterexample may have (it is replayed and shown).
const MAX_ARRAY_LEN: usize = 10_000;

/// Evaluates every input in `model`. Returns the interpreter inputs and the
/// same values as (input name, value) pairs in input order.
pub fn read_inputs(
    model: &Model,
    ops: &Ops,
    space: &InputSpace,
    arity: usize,
) -> Result<(Inputs, Vec<(String, Value)>), String> {
    let mut inputs = Inputs {
        args: vec![Value::Void; arity],
        globals: Default::default(),
        callees: Vec::new(),
    };
    let mut named = Vec::new();
    for var in &space.vars {
        let value = match var {
            InputVar::Scalar { ty, value, .. } => scalar(model, value, ty)?,
            InputVar::Array {
                null: Some(null), ..
            } if model.eval(null, true).and_then(|b| b.as_bool()) == Some(true) => Value::Null,
            InputVar::Array {
                elem, len, data, ..
            } => {
                let n = scalar(model, len, &index_type(ops))?;
                let n = n
                    .as_int()
                    .and_then(|n| n.to_usize())
                    .ok_or("array length out of range")?;
                if n > MAX_ARRAY_LEN {
                    return Err(format!(
                        "counterexample array of length {n} is too large to replay"
                    ));
                }
                let mut items = Vec::with_capacity(n);
                for i in 0..n {
                    let idx = ops.index_lit(i as i64).to_dyn().ok_or("index")?;
                    let d = data.select(&idx);
                    let v = ops.from_dyn(elem, &d).map_err(|e| e.what)?;
                    items.push(scalar(model, &v, elem)?);
                }
                Value::Array(items)
            }
        };
        let name = var.name();
        if let Some(pos) = name
            .strip_prefix("arg")
            .and_then(|p| p.parse::<usize>().ok())
        {
            if let Some(slot) = inputs.args.get_mut(pos) {
                *slot = value.clone();
            }
        } else if let Some(g) = name.strip_prefix("g.") {
            inputs.globals.insert(g.to_string(), value.clone());
        }
        named.push((name.to_string(), value));
    }
    Ok((inputs, named))
}

/// What the model says an uninterpreted call outside the files does on
/// the concrete arguments of `call` (see the executor's `external`): the
/// stub a counterexample is replayed with.
pub fn callee_stub(
    model: &Model,
    ops: &Ops,
    ufs: &super::ops::Ufs,
    strings: &super::Strings,
    call: &crate::interp::UnseenCall,
) -> Result<crate::interp::CalleeStub, String> {
    use crate::interp::{CalleeArg, CalleeResult, CalleeStub};
    let mut args = Vec::with_capacity(call.args.len());
    for a in &call.args {
        let term = match a {
            CalleeArg::Text(t) => {
                let tag = strings
                    .get(t)
                    .ok_or_else(|| format!("string argument {t:?} unknown to the encoding"))?;
                Dynamic::from_ast(&z3::ast::Int::from_i64(tag))
            }
            CalleeArg::Value(Value::Bool(b), _) => Dynamic::from_ast(&z3::ast::Bool::from_bool(*b)),
            CalleeArg::Value(Value::Int(i), ty) => {
                let v = i128::try_from(i.clone()).map_err(|_| "argument out of range")?;
                ops.int_lit(v, ty)
                    .map_err(|e| e.what)?
                    .to_dyn()
                    .ok_or("argument")?
            }
            CalleeArg::Value(v, _) => {
                return Err(format!(
                    "{}: argument {v} cannot be given to the solver's model",
                    call.callee
                ));
            }
        };
        args.push(term);
    }
    let name = format!("call {}", call.callee);
    let throws = ufs
        .eval_in(model, &format!("{name} throws"), &args, &z3::Sort::bool())
        .and_then(|d| d.as_bool())
        .and_then(|b| b.as_bool())
        .unwrap_or(false);
    let result = if throws {
        let which = ufs
            .eval_in(model, &format!("{name} exception"), &args, &z3::Sort::int())
            .and_then(|d| d.as_int())
            .and_then(|i| i.as_i64())
            .unwrap_or(0);
        CalleeResult::Throws(which)
    } else if call.ret == Type::Void {
        CalleeResult::Returns(Value::Void)
    } else {
        let range = ops.sort(&call.ret).map_err(|e| e.what)?;
        let value = match ufs.eval_in(model, &name, &args, &range) {
            Some(d) => {
                let sym = ops.from_dyn(&call.ret, &d).map_err(|e| e.what)?;
                scalar(model, &sym, &call.ret)?
            }
            None => {
                let zero = ops.zero(&call.ret).map_err(|e| e.what)?;
                scalar(model, &zero, &call.ret)?
            }
        };
        CalleeResult::Returns(value)
    };
    Ok(CalleeStub {
        call: call.clone(),
        result,
    })
}

/// A constraint that excludes this exact assignment of the scalar inputs
/// (used to ask for a different candidate).
pub fn block(model: &Model, space: &InputSpace) -> Option<Bool> {
    let mut eqs = Vec::new();
    for var in &space.vars {
        if let InputVar::Scalar { value, .. } = var {
            let d = value.to_dyn()?;
            let v = model.eval(&d, true)?;
            eqs.push(d.eq(&v));
        }
    }
    if eqs.is_empty() {
        None
    } else {
        Some(Bool::and(&eqs).not())
    }
}

pub fn scalar(model: &Model, v: &Sym, ty: &Type) -> Result<Value, String> {
    let eval = |d: &Dynamic| {
        model
            .eval(d, true)
            .ok_or_else(|| "model has no value".to_string())
    };
    Ok(match (v, ty) {
        (Sym::Bool(b), _) => Value::Bool(
            model
                .eval(b, true)
                .and_then(|b| b.as_bool())
                .ok_or("boolean without value")?,
        ),
        (Sym::Int(i), _) => {
            let e = model.eval(i, true).ok_or("integer without value")?;
            Value::Int(parse_int(&e.to_string()).ok_or_else(|| format!("unreadable integer {e}"))?)
        }
        (Sym::Real(r), _) => {
            let e = model.eval(r, true).ok_or("real without value")?;
            let text = e.to_string();
            Value::Real(RealValue::Exact(
                parse_rational(&text)
                    .ok_or_else(|| format!("irrational or unreadable real {text}"))?,
            ))
        }
        (Sym::Bv(b), Type::Int(t)) => {
            let e = eval(&Dynamic::from_ast(b))?
                .as_bv()
                .ok_or("bit-vector without value")?;
            let bits = e.as_u64().ok_or("bit-vector value unreadable")?;
            let w = t.bits as u32;
            let mut n = BigInt::from(bits);
            if t.signed && w < 128 && (bits >> (w - 1)) & 1 == 1 {
                n -= BigInt::from(1u128 << w);
            }
            Value::Int(n)
        }
        (Sym::Fp(f), Type::Float(ft)) => {
            let bv = model
                .eval(&f.to_ieee_bv(), true)
                .ok_or("float without value")?;
            let bits = bv.as_u64().ok_or("float value unreadable")?;
            match ft {
                FloatTy::F32 => Value::F32(f32::from_bits(bits as u32)),
                FloatTy::F64 => Value::F64(f64::from_bits(bits)),
            }
        }
        _ => return Err(format!("cannot read a value of type {ty}")),
    })
}

/// Z3 integer numerals: `5`, `(- 5)`.
pub fn parse_int(text: &str) -> Option<BigInt> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix("(-").and_then(|s| s.strip_suffix(')')) {
        return parse_int(inner).map(|n| -n);
    }
    t.parse().ok()
}

/// Z3 real numerals: `1.5`, `3.0`, `(/ 1.0 3.0)`, `(- (/ 1.0 3.0))`, `1/3`.
pub fn parse_rational(text: &str) -> Option<BigRational> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix("(-").and_then(|s| s.strip_suffix(')')) {
        return parse_rational(inner).map(|r| -r);
    }
    if let Some(inner) = t.strip_prefix("(/").and_then(|s| s.strip_suffix(')')) {
        let inner = inner.trim();
        // Split the two operands at the top level.
        let mut depth = 0i32;
        let mut split = None;
        for (i, c) in inner.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ' ' if depth == 0 => {
                    split = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let i = split?;
        let (a, b) = (
            parse_rational(&inner[..i])?,
            parse_rational(&inner[i + 1..])?,
        );
        if b.is_zero() {
            return None;
        }
        return Some(a / b);
    }
    if let Some((a, b)) = t.split_once('/') {
        let (a, b): (BigInt, BigInt) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
        if b.is_zero() {
            return None;
        }
        return Some(BigRational::new(a, b));
    }
    super::ops::decimal_to_rational(t.trim_end_matches('?'))
        .filter(|_| !t.ends_with('?'))
        .or_else(|| t.parse::<BigInt>().ok().map(BigRational::from_integer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numerals_parse() {
        assert_eq!(parse_int("(- 12)"), Some(BigInt::from(-12)));
        assert_eq!(parse_int("7"), Some(BigInt::from(7)));
        let r = |s: &str| parse_rational(s).map(|r| r.to_string());
        assert_eq!(r("(/ 1.0 3.0)").as_deref(), Some("1/3"));
        assert_eq!(r("(- (/ 1.0 4.0))").as_deref(), Some("-1/4"));
        assert_eq!(r("2.5").as_deref(), Some("5/2"));
        assert_eq!(r("(root-obj (+ (^ x 2) (- 2)) 2)"), None);
    }
}
