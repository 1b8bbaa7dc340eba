//! Timing statistics for the benchmark table.

use serde::Serialize;

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct TimeStats {
    pub mean: f64,
    pub median: f64,
    pub p95: f64,
}

/// Mean, median and 95th percentile (nearest rank) of `samples`, in the
/// samples' unit; all zero for no samples. NaNs are ignored.
pub fn time_stats(samples: &[f64]) -> TimeStats {
    let mut v: Vec<f64> = samples.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return TimeStats::default();
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let mean = v.iter().sum::<f64>() / n as f64;
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    // Nearest rank: the smallest value with at least 95% of samples <= it.
    let rank = ((0.95 * n as f64).ceil() as usize).clamp(1, n);
    TimeStats {
        mean,
        median,
        p95: v[rank - 1],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty() {
        assert_eq!(time_stats(&[]), TimeStats::default());
    }

    #[test]
    fn small_sets() {
        let s = time_stats(&[3.0, 1.0, 2.0]);
        assert_eq!((s.mean, s.median, s.p95), (2.0, 2.0, 3.0));
        let s = time_stats(&[4.0, 1.0, 2.0, 3.0]);
        assert_eq!((s.mean, s.median, s.p95), (2.5, 2.5, 4.0));
    }

    #[test]
    fn p95_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(time_stats(&v).p95, 95.0);
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(time_stats(&v).p95, 19.0);
    }
}
