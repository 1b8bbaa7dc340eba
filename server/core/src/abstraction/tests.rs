//! Block extraction: what may and may not be abstracted, inputs and outputs.
use super::*;
use crate::ir::Lang;
use crate::lang::lower;

fn blocks(lang: Lang, old: &str, new: &str, plan: &Plan) -> Vec<(u32, u32, usize, usize)> {
    let (o, n) = (lower(lang, old), lower(lang, new));
    let ctx = Context::new(&o, &n);
    let a = ctx.abstraction(plan);
    a.blocks
        .iter()
        .map(|b| (b.new_span.line(), b.new_span.end.line + 1, b.inputs, b.outputs))
        .collect()
}
