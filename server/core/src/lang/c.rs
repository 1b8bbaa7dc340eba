use crate::ir::Program;

pub(crate) fn lower(source: &str) -> Program {
    let _ = source;
    todo!("c front end")
}
