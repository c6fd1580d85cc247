//! Image near-duplicates for the captions stage: a 64-bit DCT perceptual hash and a
//! Hamming-distance LSH index. The crate takes luminance pixels, so decoding stays with the
//! caller (the captions stage decodes with the `image` crate).

use std::collections::HashMap;

/// The 64-bit pHash of a grayscale image (`w * h` luminance bytes, row-major): area-average
/// down to 32x32, 2-D DCT-II, the 8x8 lowest frequencies without the DC term's influence on
/// the threshold, each bit set when its coefficient exceeds their median.
pub fn phash(luma: &[u8], w: usize, h: usize) -> Option<u64> {
    if w == 0 || h == 0 || luma.len() < w * h {
        return None;
    }
    const N: usize = 32;
    let mut small = [[0f64; N]; N];
    for (y, row) in small.iter_mut().enumerate() {
        let (y0, y1) = (y * h / N, ((y + 1) * h / N).max(y * h / N + 1).min(h));
        for (x, cell) in row.iter_mut().enumerate() {
            let (x0, x1) = (x * w / N, ((x + 1) * w / N).max(x * w / N + 1).min(w));
            let mut sum = 0u64;
            for yy in y0..y1 {
                for xx in x0..x1 {
                    sum += luma[yy * w + xx] as u64;
                }
            }
            *cell = sum as f64 / ((y1 - y0) * (x1 - x0)) as f64;
        }
    }
    let cos: Vec<Vec<f64>> = (0..8).map(|u| (0..N).map(|x| ((2 * x + 1) as f64 * u as f64 * std::f64::consts::PI / (2 * N) as f64).cos()).collect()).collect();
    let mut coef = [0f64; 64];
    for u in 0..8 {
        for v in 0..8 {
            let mut s = 0.0;
            for (y, row) in small.iter().enumerate() {
                let cy = cos[u][y];
                for (x, p) in row.iter().enumerate() {
                    s += p * cy * cos[v][x];
                }
            }
            coef[u * 8 + v] = s;
        }
    }
    let mut sorted: Vec<f64> = coef[1..].to_vec();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let median = sorted[sorted.len() / 2];
    let mut bits = 0u64;
    for (i, c) in coef.iter().enumerate() {
        if *c > median {
            bits |= 1 << i;
        }
    }
    Some(bits)
}

/// Finds earlier hashes within a Hamming distance: 8 bands of 8 bits, so any hash within
/// distance 7 shares at least one band exactly (pigeonhole); candidates are then checked.
#[derive(Debug, Default)]
pub struct HammingIndex<T: Clone> {
    bands: HashMap<(u8, u8), Vec<(u64, T)>>,
}

impl<T: Clone> HammingIndex<T> {
    /// An empty index.
    pub fn new() -> Self {
        HammingIndex { bands: HashMap::new() }
    }

    /// The closest stored item within `max_distance` (at most 7 for exact recall) of `hash`.
    pub fn find(&self, hash: u64, max_distance: u32) -> Option<(T, u32)> {
        let mut best: Option<(T, u32)> = None;
        for b in 0..8u8 {
            let key = (b, (hash >> (8 * b)) as u8);
            for (h, item) in self.bands.get(&key).into_iter().flatten() {
                let d = (h ^ hash).count_ones();
                if d <= max_distance && best.as_ref().is_none_or(|(_, bd)| d < *bd) {
                    best = Some((item.clone(), d));
                }
            }
        }
        best
    }

    /// Stores a hash.
    pub fn insert(&mut self, hash: u64, item: T) {
        for b in 0..8u8 {
            self.bands.entry((b, (hash >> (8 * b)) as u8)).or_default().push((hash, item.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn img(w: usize, h: usize, f: impl Fn(usize, usize) -> u8) -> Vec<u8> {
        (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).map(|(x, y)| f(x, y)).collect()
    }

    #[test]
    fn resized_and_brightened_copies_match_different_images_do_not() {
        let a = img(200, 150, |x, y| ((x * 255 / 200) ^ (y * 3)) as u8);
        let small = img(100, 75, |x, y| (((x * 2) * 255 / 200) ^ (y * 2 * 3)) as u8);
        let bright = a.iter().map(|p| p.saturating_add(20)).collect::<Vec<_>>();
        let other = img(200, 150, |x, y| ((x * y) % 251) as u8);
        let (ha, hs, hb, ho) = (phash(&a, 200, 150).unwrap(), phash(&small, 100, 75).unwrap(), phash(&bright, 200, 150).unwrap(), phash(&other, 200, 150).unwrap());
        assert!((ha ^ hs).count_ones() <= 6, "resized: {}", (ha ^ hs).count_ones());
        assert!((ha ^ hb).count_ones() <= 6, "brightened: {}", (ha ^ hb).count_ones());
        assert!((ha ^ ho).count_ones() > 15, "different: {}", (ha ^ ho).count_ones());
        let mut idx = HammingIndex::new();
        idx.insert(ha, "a");
        assert_eq!(idx.find(hb, 7).map(|x| x.0), Some("a"));
        assert_eq!(idx.find(hs, 7).map(|x| x.0), Some("a"));
        assert!(idx.find(ho, 7).is_none());
        assert!(phash(&[], 0, 0).is_none());
    }
}
