//! Text positions: LSP speaks UTF-16 code units per line, the core's spans
//! carry a line and a byte column (tree-sitter's). Every conversion goes
//! through here so that no other module does offset arithmetic, and every
//! function clamps instead of panicking: positions come from the client.

use eqlens_core::ir::Pos;
use eqlens_core::lang::TextEdit;
use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent};

/// Byte offset of the start of each line.
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    starts
}

/// The byte range of line `line` without its line terminator (clamped to
/// the last line).
fn line_bounds(text: &str, starts: &[usize], line: usize) -> (usize, usize) {
    let line = line.min(starts.len() - 1);
    let start = starts[line];
    let mut end = starts.get(line + 1).map_or(text.len(), |&n| n - 1);
    if end > start && text.as_bytes()[end - 1] == b'\r' {
        end -= 1;
    }
    (start, end.max(start))
}

/// Byte offset of an LSP position; past-the-end columns clamp to the end of
/// the line, past-the-end lines to the end of the text.
pub fn offset_of(text: &str, pos: Position) -> usize {
    let starts = line_starts(text);
    if pos.line as usize >= starts.len() {
        return text.len();
    }
    let (start, end) = line_bounds(text, &starts, pos.line as usize);
    let mut units = 0u32;
    for (i, c) in text[start..end].char_indices() {
        if units >= pos.character {
            return start + i;
        }
        units += c.len_utf16() as u32;
    }
    end
}

/// The LSP position of a core position (line + byte column) in `text`.
pub fn position_of(text: &str, pos: Pos) -> Position {
    let starts = line_starts(text);
    let line = (pos.line as usize).min(starts.len() - 1);
    let (start, end) = line_bounds(text, &starts, line);
    let mut cut = (start + pos.col as usize).min(end);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let character = text[start..cut].chars().map(|c| c.len_utf16() as u32).sum();
    Position::new(line as u32, character)
}

/// The LSP range of a core span.
pub fn range_of(text: &str, span: eqlens_core::ir::Span) -> Range {
    Range::new(position_of(text, span.start), position_of(text, span.end))
}

/// From the start of `span` to the end of its first line: a compound
/// statement is marked by its head, not by its whole body.
pub fn first_line_range(text: &str, span: eqlens_core::ir::Span) -> Range {
    let start = position_of(text, span.start);
    let end = if span.end.line == span.start.line {
        position_of(text, span.end)
    } else {
        position_of(
            text,
            Pos {
                line: span.start.line,
                col: u32::MAX,
                byte: 0,
            },
        )
    };
    Range::new(start, end)
}

/// (row, byte column) of a byte offset: tree-sitter's points.
fn point_of(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let row = before.iter().filter(|&&b| b == b'\n').count();
    let col = before.iter().rev().take_while(|&&b| b != b'\n').count();
    (row, col)
}

/// Applies one change of incremental sync (a change without a range
/// replaces the whole text). Returns the edit in bytes for the incremental
/// reparse; `None` for a whole-text replacement (nothing to reuse).
pub fn apply_change(
    text: &mut String,
    change: &TextDocumentContentChangeEvent,
) -> Option<TextEdit> {
    match change.range {
        None => {
            *text = change.text.clone();
            None
        }
        Some(range) => {
            let a = offset_of(text, range.start);
            let b = offset_of(text, range.end).max(a);
            let (start, old_end) = (point_of(text, a), point_of(text, b));
            text.replace_range(a..b, &change.text);
            let new_end_byte = a + change.text.len();
            Some(TextEdit {
                start_byte: a,
                old_end_byte: b,
                new_end_byte,
                start,
                old_end,
                new_end: point_of(text, new_end_byte),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(l1: u32, c1: u32, l2: u32, c2: u32, t: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(l1, c1), Position::new(l2, c2))),
            range_length: None,
            text: t.to_string(),
        }
    }

    #[test]
    fn incremental_edits_use_utf16_columns() {
        let mut t = "a€b\r\nxyz\n".to_string();
        // `€` is one UTF-16 unit but three bytes.
        let e = apply_change(&mut t, &change(0, 2, 0, 3, "B"));
        assert_eq!(t, "a€B\r\nxyz\n");
        // The edit in bytes, for tree-sitter.
        let e = e.expect("a ranged change");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (4, 5, 5));
        assert_eq!((e.start, e.old_end, e.new_end), ((0, 4), (0, 5), (0, 5)));
        let e = apply_change(&mut t, &change(1, 1, 1, 99, "!")).expect("ranged");
        assert_eq!(t, "a€B\r\nx!\n");
        assert_eq!((e.start, e.old_end, e.new_end), ((1, 1), (1, 3), (1, 2)));
        let e = apply_change(&mut t, &change(0, 0, 0, 0, "//\n")).expect("ranged");
        assert_eq!((e.start, e.old_end, e.new_end), ((0, 0), (0, 0), (1, 0)));
        assert!(
            apply_change(
                &mut t,
                &TextDocumentContentChangeEvent {
                    range: None,
                    range_length: None,
                    text: "a€B\r\nx!\n".into(),
                }
            )
            .is_none()
        );
        // Past the end: appended, no panic.
        apply_change(&mut t, &change(9, 9, 9, 9, "end"));
        assert_eq!(t, "a€B\r\nx!\nend");
    }

    #[test]
    fn core_positions_convert_from_bytes() {
        let t = "a€b\nx";
        let p = position_of(
            t,
            Pos {
                line: 0,
                col: 4,
                byte: 4,
            },
        );
        assert_eq!(p, Position::new(0, 2));
        // Inside a multi-byte character: rounded down.
        let p = position_of(
            t,
            Pos {
                line: 0,
                col: 2,
                byte: 2,
            },
        );
        assert_eq!(p, Position::new(0, 1));
        let p = position_of(
            t,
            Pos {
                line: 7,
                col: 0,
                byte: 0,
            },
        );
        assert_eq!(p, Position::new(1, 0));
    }
}
