//! What eqlens knows of the Java library beyond the IR: the JDK's exception
//! hierarchy (which `catch` takes which thrown class) and the external
//! methods that never throw. The interpreter and the symbolic executor both
//! ask here, so they cannot disagree.

use crate::ir::Catch;

/// The JDK's exception classes whose place in the hierarchy we know, with
/// their superclass (simple names).
const JAVA_EXCEPTION_PARENTS: &[(&str, &str)] = &[
    ("Exception", "Throwable"),
    ("Error", "Throwable"),
    ("RuntimeException", "Exception"),
    ("ArithmeticException", "RuntimeException"),
    ("IndexOutOfBoundsException", "RuntimeException"),
    (
        "ArrayIndexOutOfBoundsException",
        "IndexOutOfBoundsException",
    ),
    (
        "StringIndexOutOfBoundsException",
        "IndexOutOfBoundsException",
    ),
    ("NegativeArraySizeException", "RuntimeException"),
    ("IllegalArgumentException", "RuntimeException"),
    ("NumberFormatException", "IllegalArgumentException"),
    ("IllegalStateException", "RuntimeException"),
    ("NullPointerException", "RuntimeException"),
    ("UnsupportedOperationException", "RuntimeException"),
    ("ClassCastException", "RuntimeException"),
    ("ArrayStoreException", "RuntimeException"),
    ("ConcurrentModificationException", "RuntimeException"),
    ("NoSuchElementException", "RuntimeException"),
    ("InputMismatchException", "NoSuchElementException"),
    ("DateTimeException", "RuntimeException"),
    ("UncheckedIOException", "RuntimeException"),
    ("IOException", "Exception"),
    ("FileNotFoundException", "IOException"),
    ("InterruptedException", "Exception"),
    ("CloneNotSupportedException", "Exception"),
    ("ReflectiveOperationException", "Exception"),
    ("ClassNotFoundException", "ReflectiveOperationException"),
    ("TimeoutException", "Exception"),
    ("AssertionError", "Error"),
    ("StackOverflowError", "VirtualMachineError"),
    ("OutOfMemoryError", "VirtualMachineError"),
    ("VirtualMachineError", "Error"),
];

/// The first of `catches` that takes a thrown `class` (see
/// [`java_catches`]), or `Err(caught)` naming a clause met on the way whose
/// relation to `class` is unknown. The interpreter and the symbolic
/// executor both match through this, so they cannot disagree.
pub fn first_catching(
    catches: &[Catch],
    class: &str,
    declared: &[(String, String)],
) -> Result<Option<usize>, String> {
    for (i, clause) in catches.iter().enumerate() {
        for k in &clause.classes {
            match java_catches(k, class, declared) {
                Some(true) => return Ok(Some(i)),
                Some(false) => {}
                None => return Err(k.clone()),
            }
        }
    }
    Ok(None)
}

/// Calls outside the files that are documented never to throw, for any
/// argument: the JDK methods the Java front end leaves uninterpreted only
/// where their result depends on what eqlens does not model (`Character`
/// above ASCII, the raw bits of a NaN, `Math.copySign` of a NaN sign). Their
/// uninterpreted function returns; it does not get to "throw" in a model.
pub fn external_never_throws(callee: &str) -> bool {
    const NEVER: &[&str] = &[
        "Character.isDigit",
        "Character.isLetter",
        "Character.isLetterOrDigit",
        "Character.isAlphabetic",
        "Character.isUpperCase",
        "Character.isLowerCase",
        "Character.isWhitespace",
        "Character.toUpperCase",
        "Character.toLowerCase",
        "Character.digit",
        "Double.doubleToRawLongBits",
        "Float.floatToRawIntBits",
        "Math.copySign",
    ];
    let name = callee.strip_prefix("java.lang.").unwrap_or(callee);
    NEVER.contains(&name)
}

/// Whether `catch (caught)` catches a thrown `class` (simple names), with
/// the classes the file declares (`declared`, see
/// [`crate::ir::Program::class_parents`]) above the JDK's: `None` when the hierarchy
/// between them is unknown (a class of a library we do not list), so that
/// a checker can refuse instead of guessing.
pub fn java_catches(caught: &str, class: &str, declared: &[(String, String)]) -> Option<bool> {
    if caught == class || caught == "Throwable" {
        return Some(true);
    }
    let parent_of = |c: &str| -> Option<String> {
        declared
            .iter()
            .find(|(d, _)| d == c)
            .map(|(_, p)| p.clone())
            .or_else(|| {
                JAVA_EXCEPTION_PARENTS
                    .iter()
                    .find(|(d, _)| *d == c)
                    .map(|(_, p)| p.to_string())
            })
    };
    let mut cur = class.to_string();
    // A cyclic `extends` chain (not valid Java) ends the walk too.
    for _ in 0..=declared.len() + JAVA_EXCEPTION_PARENTS.len() {
        match parent_of(&cur) {
            Some(parent) if parent == caught => return Some(true),
            Some(parent) => cur = parent,
            // `Throwable` ends every known chain: `caught` is not above.
            None if cur == "Throwable" => return Some(false),
            None => return None,
        }
    }
    None
}
