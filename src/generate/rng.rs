//! The generator's random numbers: a ChaCha8 stream used only through its raw
//! `next_u64`, with small helpers for ranges, choices, shuffles and weighted picks
//! written here, so that the same seed gives the same bytes whatever version of
//! `rand`'s distribution code is installed.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng as _, SeedableRng};
use sha2::{Digest, Sha256};

/// A deterministic random stream.
pub struct Rng(ChaCha8Rng);

impl Rng {
    /// The stream of a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(ChaCha8Rng::seed_from_u64(seed))
    }

    /// An independent stream for one named part of the work (an instance, the
    /// global plan), derived from the seed by SHA-256 so that streams never overlap.
    pub fn derived(seed: u64, label: &str) -> Rng {
        let mut hasher = Sha256::new();
        hasher.update(b"bemula-generate/1\0");
        hasher.update(seed.to_le_bytes());
        hasher.update(label.as_bytes());
        let digest = hasher.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        Rng::new(u64::from_le_bytes(first))
    }

    /// The next raw 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A uniform number in `0..n`; 0 when `n` is 0. Unbiased (rejection sampling).
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let n = n as u64;
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let x = self.next_u64();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }

    /// A uniform number in `lo..=hi`; `lo` when `hi < lo`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        if hi <= lo {
            return lo;
        }
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    /// One element, uniformly. `items` must not be empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// One string of a pool, uniformly. `items` must not be empty.
    pub fn text<'a>(&mut self, items: &'a [String]) -> &'a str {
        &items[self.below(items.len())]
    }

    /// Shuffles in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// An index drawn with the given weights; 0 when all weights are 0.
    pub fn weighted(&mut self, weights: &[usize]) -> usize {
        let total: usize = weights.iter().sum();
        if total == 0 {
            return 0;
        }
        let mut x = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if x < w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }

    /// `k` distinct elements of `items` (all of them when `k >= items.len()`), in
    /// random order.
    pub fn sample<T: Clone>(&mut self, items: &[T], k: usize) -> Vec<T> {
        // A partial Fisher–Yates shuffle of the positions: only the chosen items
        // are cloned.
        let mut order: Vec<usize> = (0..items.len()).collect();
        let k = k.min(items.len());
        for i in 0..k {
            let j = i + self.below(items.len() - i);
            order.swap(i, j);
        }
        order[..k].iter().map(|&i| items[i].clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_labels_differ() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut x = Rng::derived(42, "short_001");
        let mut y = Rng::derived(42, "short_002");
        assert_ne!(x.next_u64(), y.next_u64());
    }

    #[test]
    fn the_raw_streams_are_pinned() {
        // If a dependency update changes these, every generated dataset changes:
        // the default checksum test would fail too, and this one says why.
        let mut r = Rng::new(42);
        assert_eq!(r.next_u64(), 12_578_764_544_318_200_737);
        assert_eq!(r.next_u64(), 17_529_487_244_874_322_312);
        let mut d = Rng::derived(42, "short_001");
        assert_eq!(d.next_u64(), 2_162_928_780_837_865_741);
    }

    #[test]
    fn helpers_stay_in_range() {
        let mut r = Rng::new(1);
        for _ in 0..1000 {
            assert!(r.below(7) < 7);
            let v = r.range(3, 5);
            assert!((3..=5).contains(&v));
        }
        assert_eq!(r.below(0), 0);
        assert_eq!(r.range(5, 2), 5);
        assert_eq!(r.weighted(&[0, 0]), 0);
        assert_eq!(r.weighted(&[0, 3, 0]), 1);
        let s = r.sample(&[1, 2, 3, 4, 5], 3);
        assert_eq!(s.len(), 3);
        let mut sorted = s.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 3);
        let mut v: Vec<u32> = (0..10).collect();
        r.shuffle(&mut v);
        v.sort();
        assert_eq!(v, (0..10).collect::<Vec<_>>());
    }
}
