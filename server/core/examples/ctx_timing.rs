use std::time::Instant;
fn main() {
    let a = std::fs::read_to_string("/tmp/Big.java").unwrap();
    let b = std::fs::read_to_string("/tmp/Big2.java").unwrap();
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_java::LANGUAGE.into())
        .unwrap();
    let t = Instant::now();
    let tree = parser.parse(&a, None).unwrap();
    println!("parse one: {:?}", t.elapsed());
    let mut t2 = tree.clone();
    let pos = b.find("+ 11;").unwrap() + 2;
    t2.edit(&tree_sitter::InputEdit {
        start_byte: pos,
        old_end_byte: pos + 1,
        new_end_byte: pos + 1,
        start_position: tree_sitter::Point::new(0, 0),
        old_end_position: tree_sitter::Point::new(0, 0),
        new_end_position: tree_sitter::Point::new(0, 0),
    });
    let t = Instant::now();
    let _tree3 = parser.parse(&b, Some(&t2)).unwrap();
    println!("reparse incremental: {:?}", t.elapsed());
    let t = Instant::now();
    let o = eqlens_core::lang::lower(eqlens_core::ir::Lang::Java, &a);
    let n = eqlens_core::lang::lower(eqlens_core::ir::Lang::Java, &b);
    println!("lower both: {:?}", t.elapsed());
    let t = Instant::now();
    let _u = eqlens_core::abstraction::canonical::Unchanged::compute(&o, &n);
    println!("unchanged: {:?}", t.elapsed());
    let t = Instant::now();
    let _d = eqlens_core::diff::DiffContext::for_programs(&o, &n);
    println!("diff cx: {:?}", t.elapsed());
    let t = Instant::now();
    let _e = eqlens_core::abstraction::effects::function_effects(&o);
    println!("effects one: {:?}", t.elapsed());
    let t = Instant::now();
    let _c = eqlens_core::abstraction::Context::new(&o, &n);
    println!("context: {:?}", t.elapsed());
}
#[allow(dead_code)]
fn parse_only() {}
