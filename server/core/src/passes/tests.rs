//! Each pass against the interpreter.
