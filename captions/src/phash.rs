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
    Some(dct_bits(&area_average(w, h, |i| luma[i] as u64)))
}

/// The pHash of an RGB image (`w * h * 3` bytes, row-major): [`phash`] of its luminance
/// (Rec. 709 weights, as the `image` crate's `to_luma8`), without building the luminance
/// image and without rounding each pixel (so it may differ from `phash` of a rounded
/// luminance image in a bit or two).
pub fn phash_rgb(rgb: &[u8], w: usize, h: usize) -> Option<u64> {
    phash_pixels(rgb, w, h, 3)
}

/// [`phash_rgb`] of RGB pixels stored with `channels` bytes each (3: RGB, 4: RGBX/RGBA, the
/// fourth byte ignored).
pub fn phash_pixels(rgb: &[u8], w: usize, h: usize, channels: usize) -> Option<u64> {
    let c = channels;
    if w == 0 || h == 0 || c < 3 || rgb.len() < w * h * c {
        return None;
    }
    // luminance x 10000, summed per bin and divided once
    if w < N || h < N {
        // bins overlap on tiny images: the general path
        let mut small = area_average(w, h, |i| luma_x10k(&rgb[c * i..c * i + 3]));
        small.iter_mut().flatten().for_each(|v| *v /= 10000.0);
        return Some(dct_bits(&small));
    }
    // bins are disjoint and contiguous: one sequential pass, summing each row into its bins
    // (bin b covers [b * len / N, (b + 1) * len / N), as in area_average)
    let sums = if c == 4 {
        bin_sums::<4>(rgb, w, h)
    } else {
        bin_sums::<3>(rgb, w, h)
    };
    let mut small = [[0f64; N]; N];
    for (y, row) in small.iter_mut().enumerate() {
        let rows = (y + 1) * h / N - y * h / N;
        for (x, cell) in row.iter_mut().enumerate() {
            let cols = (x + 1) * w / N - x * w / N;
            *cell = sums[y][x] as f64 / (10000 * rows * cols).max(1) as f64;
        }
    }
    Some(dct_bits(&small))
}

const N: usize = 32;

/// Rec. 709 luminance of an RGB pixel, times 10000 (integer, so sums stay exact).
#[inline]
fn luma_x10k(p: &[u8]) -> u64 {
    u64::from(u32::from(p[0]) * 2126 + u32::from(p[1]) * 7152 + u32::from(p[2]) * 722)
}

/// Luminance x 10000 summed per bin, for `w, h >= N` (bins disjoint and contiguous: bin b
/// covers [b * len / N, (b + 1) * len / N), as in `area_average`). `C` bytes per pixel, a
/// constant so the per-bin loop over a contiguous run vectorises.
fn bin_sums<const C: usize>(px: &[u8], w: usize, h: usize) -> [[u64; N]; N] {
    let edges = |len: usize| -> [usize; N + 1] { std::array::from_fn(|b| b * len / N) };
    let (xe, ye) = (edges(w), edges(h));
    let mut sums = [[0u64; N]; N];
    for by in 0..N {
        for row in px[ye[by] * w * C..ye[by + 1] * w * C].chunks_exact(w * C) {
            for bx in 0..N {
                let run = &row[xe[bx] * C..xe[bx + 1] * C];
                sums[by][bx] += run.chunks_exact(C).map(luma_x10k).sum::<u64>();
            }
        }
    }
    sums
}

/// Area-average down to 32x32 (pixel `i` = `y * w + x` read through `px`).
fn area_average(w: usize, h: usize, px: impl Fn(usize) -> u64) -> [[f64; N]; N] {
    let mut small = [[0f64; N]; N];
    for (y, row) in small.iter_mut().enumerate() {
        let (y0, y1) = (y * h / N, ((y + 1) * h / N).max(y * h / N + 1).min(h));
        for (x, cell) in row.iter_mut().enumerate() {
            let (x0, x1) = (x * w / N, ((x + 1) * w / N).max(x * w / N + 1).min(w));
            let mut sum = 0u64;
            for yy in y0..y1 {
                for xx in x0..x1 {
                    sum += px(yy * w + xx);
                }
            }
            *cell = sum as f64 / ((y1 - y0) * (x1 - x0)) as f64;
        }
    }
    small
}

/// 2-D DCT-II of the 32x32 grid, 8x8 lowest frequencies, one bit per coefficient above
/// their median (the DC term excluded from the median).
fn dct_bits(small: &[[f64; N]; N]) -> u64 {
    static COS: std::sync::OnceLock<Vec<Vec<f64>>> = std::sync::OnceLock::new();
    let cos = COS.get_or_init(|| {
        (0..8)
            .map(|u| {
                (0..N)
                    .map(|x| {
                        ((2 * x + 1) as f64 * u as f64 * std::f64::consts::PI / (2 * N) as f64)
                            .cos()
                    })
                    .collect()
            })
            .collect()
    });
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
    bits
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
        HammingIndex {
            bands: HashMap::new(),
        }
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
            self.bands
                .entry((b, (hash >> (8 * b)) as u8))
                .or_default()
                .push((hash, item.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn img(w: usize, h: usize, f: impl Fn(usize, usize) -> u8) -> Vec<u8> {
        (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| f(x, y))
            .collect()
    }

    #[test]
    fn resized_and_brightened_copies_match_different_images_do_not() {
        let a = img(200, 150, |x, y| ((x * 255 / 200) ^ (y * 3)) as u8);
        let small = img(100, 75, |x, y| (((x * 2) * 255 / 200) ^ (y * 2 * 3)) as u8);
        let bright = a.iter().map(|p| p.saturating_add(20)).collect::<Vec<_>>();
        let other = img(200, 150, |x, y| ((x * y) % 251) as u8);
        let (ha, hs, hb, ho) = (
            phash(&a, 200, 150).unwrap(),
            phash(&small, 100, 75).unwrap(),
            phash(&bright, 200, 150).unwrap(),
            phash(&other, 200, 150).unwrap(),
        );
        assert!(
            (ha ^ hs).count_ones() <= 6,
            "resized: {}",
            (ha ^ hs).count_ones()
        );
        assert!(
            (ha ^ hb).count_ones() <= 6,
            "brightened: {}",
            (ha ^ hb).count_ones()
        );
        assert!(
            (ha ^ ho).count_ones() > 15,
            "different: {}",
            (ha ^ ho).count_ones()
        );
        let mut idx = HammingIndex::new();
        idx.insert(ha, "a");
        assert_eq!(idx.find(hb, 7).map(|x| x.0), Some("a"));
        assert_eq!(idx.find(hs, 7).map(|x| x.0), Some("a"));
        assert!(idx.find(ho, 7).is_none());
        assert!(phash(&[], 0, 0).is_none());
        // the RGB entry point hashes the same luminance
        let rgb: Vec<u8> = (0..200 * 150)
            .flat_map(|i| [(i % 200) as u8, (i / 200) as u8, ((i * 7) % 251) as u8])
            .collect();
        let luma: Vec<u8> = rgb
            .chunks(3)
            .map(|p| {
                ((p[0] as u32 * 2126 + p[1] as u32 * 7152 + p[2] as u32 * 722 + 5000) / 10000) as u8
            })
            .collect();
        assert!(
            (phash_rgb(&rgb, 200, 150).unwrap() ^ phash(&luma, 200, 150).unwrap()).count_ones()
                <= 2
        );
        assert!(
            (phash_rgb(&rgb[..20 * 15 * 3], 20, 15).unwrap()
                ^ phash(&luma[..300], 20, 15).unwrap())
            .count_ones()
                <= 2,
            "tiny images too"
        );
    }
}
