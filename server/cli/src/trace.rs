//! Compact rendering of executed-line traces for the text output.
//!
//! A trace of a loop is long and repetitive (`3,4,5,3,4,5,3,4,5,9`); people
//! read it as ranges and repetitions (`(3-5)×3,9`). The JSON output keeps
//! the full trace; this is for the eyes only.

/// Longest repeated group of segments looked for (loop bodies with a few
/// branches fit in this).
const MAX_PERIOD: usize = 12;

/// A maximal run of consecutive ascending lines `start..=end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seg {
    start: u32,
    end: u32,
}

impl Seg {
    fn render(self) -> String {
        if self.start == self.end {
            self.start.to_string()
        } else {
            format!("{}-{}", self.start, self.end)
        }
    }
}

fn segments(lines: &[u32]) -> Vec<Seg> {
    let mut segs: Vec<Seg> = Vec::new();
    for &l in lines {
        match segs.last_mut() {
            Some(s) if s.end.checked_add(1) == Some(l) => s.end = l,
            _ => segs.push(Seg { start: l, end: l }),
        }
    }
    segs
}

/// Compresses a trace: runs of consecutive lines become ranges and repeated
/// groups become `(…)×n`. The result is cut to about `max_chars` characters
/// (at an item boundary) with a note of how many lines were executed.
pub fn compress(lines: &[u32], max_chars: usize) -> String {
    let segs = segments(lines);
    let mut items: Vec<String> = Vec::new();
    let mut i = 0;
    while i < segs.len() {
        // The period whose repetition starting at `i` covers most segments.
        let mut best = (1usize, 1usize); // (period, repetitions)
        for p in 1..=MAX_PERIOD.min(segs.len() - i) {
            let mut r = 1;
            while i + (r + 1) * p <= segs.len()
                && segs[i + r * p..i + (r + 1) * p] == segs[i..i + p]
            {
                r += 1;
            }
            if r >= 2 && p * r > best.0 * best.1 {
                best = (p, r);
            }
        }
        let (p, r) = best;
        let group: Vec<String> = segs[i..i + p].iter().map(|s| s.render()).collect();
        let group = group.join(",");
        if r >= 2 {
            items.push(if p == 1 && !group.contains('-') {
                format!("{group}×{r}")
            } else {
                format!("({group})×{r}")
            });
        } else {
            items.push(group);
        }
        i += p * r;
    }
    let mut out = String::new();
    for (k, item) in items.iter().enumerate() {
        let sep = if k == 0 { "" } else { "," };
        if out.chars().count() + sep.len() + item.chars().count() > max_chars && k > 0 {
            out.push_str(&format!(", … ({} lines executed)", lines.len()));
            return out;
        }
        out.push_str(sep);
        out.push_str(item);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_trace_is_empty() {
        assert_eq!(compress(&[], 100), "");
    }

    #[test]
    fn ranges_and_singletons() {
        assert_eq!(compress(&[3, 4, 5, 7, 9], 100), "3-5,7,9");
    }

    #[test]
    fn brief_example_without_repetition() {
        // Two different groups: (3-5,7) then (3-5,9) — only 3-5 would repeat
        // if adjacent, and it is not.
        assert_eq!(compress(&[3, 4, 5, 7, 3, 4, 5, 9], 100), "3-5,7,3-5,9");
    }

    #[test]
    fn loop_repetition_is_grouped() {
        assert_eq!(
            compress(&[2, 3, 4, 5, 3, 4, 5, 3, 4, 5, 9], 100),
            "2-5,(3-5)×2,9"
        );
        assert_eq!(
            compress(&[3, 4, 6, 3, 4, 6, 3, 4, 6, 8], 100),
            "(3-4,6)×3,8"
        );
        assert_eq!(compress(&[5, 5, 5], 100), "5×3");
    }

    #[test]
    fn long_traces_are_cut_with_a_count() {
        let lines: Vec<u32> = (0..200)
            .map(|i| if i % 2 == 0 { i } else { 1000 - i })
            .collect();
        let s = compress(&lines, 40);
        assert!(s.chars().count() < 80, "{s}");
        assert!(s.ends_with("(200 lines executed)"), "{s}");
    }

    #[test]
    fn no_overflow_at_u32_max() {
        assert_eq!(compress(&[u32::MAX, 1], 100), format!("{},1", u32::MAX));
    }
}
