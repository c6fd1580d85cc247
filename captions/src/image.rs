//! Decode and check fetched images with the `image` crate (JPEG, PNG, WebP, GIF first frame):
//! the format is sniffed from the bytes and checked against the Content-Type; the declared
//! dimensions are read before any pixel is decoded, so decompression bombs are refused from
//! their header; decoding runs under an allocation limit; truncated or corrupt files are
//! drops with their reason; size and aspect ratio are bounded; EXIF orientation is applied;
//! the image is optionally resized (shorter side, aspect kept) and re-encoded to JPEG, which
//! also strips EXIF and other metadata. A perceptual hash (the dedup crate's pHash) and an
//! exact hash of the stored bytes come back for duplicate removal.
//!
//! The captions stage runs this check on every fetched image (`[captions.images]`).

use std::io::Cursor;

use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits};
use serde::{Deserialize, Serialize};
use trawl_core::DropReason;

/// Drop reasons of image checking.
pub mod reasons {
    use trawl_core::DropReason;
    /// Not one of the accepted formats, or the bytes are not the declared type.
    pub const IMAGE_FORMAT: DropReason = DropReason::new("image_format");
    /// Truncated or corrupt data.
    pub const IMAGE_CORRUPT: DropReason = DropReason::new("image_corrupt");
    /// More pixels (or decoder memory) than allowed: a decompression bomb or a huge image.
    pub const IMAGE_TOO_LARGE: DropReason = DropReason::new("image_too_large");
    /// Smaller than the minimum side (icons, tracking pixels, spacers).
    pub const IMAGE_TOO_SMALL: DropReason = DropReason::new("image_too_small");
    /// Wider or taller than the allowed aspect ratio (banners, sprites).
    pub const IMAGE_ASPECT: DropReason = DropReason::new("image_aspect");
}

/// Limits and output of image checking: the `[captions.images]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ImageConfig {
    /// Largest accepted file, bytes.
    pub max_bytes: usize,
    /// Most pixels (width x height) decoded; larger declared sizes are refused unread.
    pub max_pixels: u64,
    /// Decoder memory limit, bytes.
    pub max_decoder_bytes: u64,
    /// Both sides at least this many pixels.
    pub min_side: u32,
    /// Longer side / shorter side at most this.
    pub max_aspect: f64,
    /// Resize so the shorter side is at most this (0: keep the size).
    pub resize_shorter_side: u32,
    /// Re-encode to JPEG at this quality (1-100); 0 keeps the original bytes (metadata and
    /// all).
    pub jpeg_quality: u8,
}

impl Default for ImageConfig {
    fn default() -> Self {
        ImageConfig {
            max_bytes: 20 * 1024 * 1024,
            max_pixels: 40_000_000,
            max_decoder_bytes: 512 * 1024 * 1024,
            min_side: 64,
            max_aspect: 4.0,
            resize_shorter_side: 512,
            jpeg_quality: 90,
        }
    }
}

impl ImageConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.jpeg_quality > 100 {
            return Err((
                "captions.images.jpeg_quality".into(),
                format!("{} is above 100", self.jpeg_quality),
            ));
        }
        if self.max_aspect < 1.0 {
            return Err((
                "captions.images.max_aspect".into(),
                format!(
                    "{} is below 1 (longer side / shorter side)",
                    self.max_aspect
                ),
            ));
        }
        if self.max_pixels == 0 || self.max_bytes == 0 {
            return Err((
                "captions.images.max_pixels".into(),
                "max_pixels and max_bytes must be positive".into(),
            ));
        }
        Ok(())
    }
}

/// A checked image, ready to store.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedImage {
    /// The source format.
    pub format: &'static str,
    /// Original width and height (after EXIF orientation).
    pub original: (u32, u32),
    /// Stored width and height.
    pub size: (u32, u32),
    /// The stored bytes (JPEG when re-encoded).
    pub bytes: Vec<u8>,
    /// File extension of the stored bytes.
    pub extension: &'static str,
    /// Perceptual hash (64-bit DCT pHash).
    pub phash: u64,
    /// XXH3-64 of the stored bytes.
    pub exact: u64,
}

fn format_name(f: ImageFormat) -> Option<&'static str> {
    match f {
        ImageFormat::Jpeg => Some("jpeg"),
        ImageFormat::Png => Some("png"),
        ImageFormat::WebP => Some("webp"),
        ImageFormat::Gif => Some("gif"),
        _ => None,
    }
}

/// Why a file of this format is cut off, if it is: JPEG ends with EOI (`FF D9`), PNG with an
/// `IEND` chunk, GIF with its trailer (`3B`), WebP's RIFF size covers the file (trailing
/// padding is allowed).
fn truncated(format: &str, data: &[u8]) -> Option<String> {
    let mut end = data.len();
    while end > 0 && (data[end - 1] == 0 || data[end - 1] == b'\n' || data[end - 1] == b'\r') {
        end -= 1;
    }
    let tail = &data[end.saturating_sub(1024)..end];
    let ok = match format {
        "jpeg" => tail.windows(2).any(|w| w == [0xff, 0xd9]),
        "png" => tail.windows(4).any(|w| w == b"IEND"),
        "gif" => tail.last() == Some(&0x3b),
        "webp" => {
            data.len() >= 12
                && u64::from(u32::from_le_bytes([data[4], data[5], data[6], data[7]])) + 8
                    <= data.len() as u64
        }
        _ => true,
    };
    (!ok).then(|| format!("truncated {format} ({} bytes, no end marker)", data.len()))
}

/// Decodes and checks `data`; `content_type` is the response's header, if any.
pub fn check(
    data: &[u8],
    content_type: Option<&str>,
    cfg: &ImageConfig,
) -> Result<CheckedImage, (DropReason, String)> {
    if data.len() > cfg.max_bytes {
        return Err((
            reasons::IMAGE_TOO_LARGE,
            format!("{} bytes (limit {})", data.len(), cfg.max_bytes),
        ));
    }
    let reader = ImageReader::new(Cursor::new(data))
        .with_guessed_format()
        .map_err(|e| (reasons::IMAGE_CORRUPT, e.to_string()))?;
    let Some(format) = reader.format().and_then(format_name) else {
        return Err((
            reasons::IMAGE_FORMAT,
            format!("not JPEG, PNG, WebP or GIF ({:?})", reader.format()),
        ));
    };
    // decoders fill a cut-off image with grey rather than fail: check the file's end marker
    if let Some(why) = truncated(format, data) {
        return Err((reasons::IMAGE_CORRUPT, why));
    }
    if let Some(ct) = content_type
        .map(|c| {
            c.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|c| !c.is_empty())
    {
        let ok = ct.starts_with("image/")
            || ct == "application/octet-stream"
            || ct == "binary/octet-stream";
        if !ok {
            return Err((
                reasons::IMAGE_FORMAT,
                format!("Content-Type {ct} for {format} bytes"),
            ));
        }
    }
    // the header's dimensions first: a bomb declares its size before its pixels
    let mut limits = Limits::default();
    limits.max_alloc = Some(cfg.max_decoder_bytes);
    let mut reader = reader;
    reader.limits(limits.clone());
    let mut decoder = reader
        .into_decoder()
        .map_err(|e| (reasons::IMAGE_CORRUPT, e.to_string()))?;
    let (w, h) = decoder.dimensions();
    if u64::from(w) * u64::from(h) > cfg.max_pixels {
        return Err((
            reasons::IMAGE_TOO_LARGE,
            format!("{w}x{h} pixels declared (limit {})", cfg.max_pixels),
        ));
    }
    let orientation = decoder
        .orientation()
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let unrotated = orientation == image::metadata::Orientation::NoTransforms;
    if format == "jpeg"
        && unrotated
        && cfg.jpeg_quality > 0
        && u64::from(w) * u64::from(h) * 4 <= cfg.max_decoder_bytes
    {
        if let Some(r) = check_jpeg_turbo(data, w, h, cfg) {
            return r;
        }
        // libjpeg-turbo refused it (CMYK, an odd encoding): the image crate decides below
    }
    decoder
        .set_limits(limits)
        .map_err(|e| (reasons::IMAGE_TOO_LARGE, e.to_string()))?;
    let mut img = DynamicImage::from_decoder(decoder).map_err(|e| match e {
        image::ImageError::Limits(l) => (reasons::IMAGE_TOO_LARGE, l.to_string()),
        other => (reasons::IMAGE_CORRUPT, other.to_string()),
    })?;
    img.apply_orientation(orientation);
    let (w, h) = (img.width(), img.height());
    check_size(w, h, cfg)?;
    // resize first (SIMD, fast_image_resize), then hash and encode the small image
    let mut rgb = img.into_rgb8(); // JPEG has no alpha; transparency is dropped, not blackened
    let resized = cfg.resize_shorter_side > 0 && w.min(h) > cfg.resize_shorter_side;
    if resized {
        let scale = f64::from(cfg.resize_shorter_side) / f64::from(w.min(h));
        let (nw, nh) = (
            ((f64::from(w) * scale).round() as u32).max(1),
            ((f64::from(h) * scale).round() as u32).max(1),
        );
        rgb = resize_rgb(&rgb, nw, nh)
            .map_err(|e| (reasons::IMAGE_CORRUPT, format!("resizing: {e}")))?;
    }
    let phash = crate::phash::phash_rgb(rgb.as_raw(), rgb.width() as usize, rgb.height() as usize)
        .unwrap_or(0);
    let (bytes, extension) = if cfg.jpeg_quality == 0 {
        (data.to_vec(), if format == "jpeg" { "jpg" } else { format })
    } else if let Some(stripped) = (format == "jpeg" && !resized && unrotated)
        .then(|| strip_jpeg_metadata(data))
        .flatten()
    {
        // a JPEG kept at its size: its own bytes minus metadata (no generation loss, no encode)
        (stripped, "jpg")
    } else {
        (
            encode_jpeg(&rgb, cfg.jpeg_quality)
                .map_err(|e| (reasons::IMAGE_CORRUPT, format!("encoding: {e}")))?,
            "jpg",
        )
    };
    let exact = xxhash_rust::xxh3::xxh3_64(&bytes);
    Ok(CheckedImage {
        format,
        original: (w, h),
        size: (rgb.width(), rgb.height()),
        bytes,
        extension,
        phash,
        exact,
    })
}

/// Size bounds: both sides at least `min_side`, aspect ratio at most `max_aspect`.
fn check_size(w: u32, h: u32, cfg: &ImageConfig) -> Result<(), (DropReason, String)> {
    if w.min(h) < cfg.min_side {
        return Err((
            reasons::IMAGE_TOO_SMALL,
            format!("{w}x{h} (minimum side {})", cfg.min_side),
        ));
    }
    let aspect = f64::from(w.max(h)) / f64::from(w.min(h));
    if aspect > cfg.max_aspect {
        return Err((
            reasons::IMAGE_ASPECT,
            format!("{w}x{h}, aspect {aspect:.1} (limit {})", cfg.max_aspect),
        ));
    }
    Ok(())
}

/// A thread's libjpeg-turbo decoder with its decode and resize buffers.
type JpegScratch = (turbojpeg::Decompressor, Vec<u8>, Vec<u8>);

/// The JPEG path (most web images): libjpeg-turbo decodes into a per-thread RGBX buffer
/// (no allocation or zeroing per image), the resize works on 4-byte pixels (the resizer's
/// fastest kernels), the pHash reads the buffer, and libjpeg-turbo encodes; a JPEG kept at
/// its size is stored as its own bytes minus metadata. `None` when libjpeg-turbo cannot
/// decode the file (the caller falls back to the `image` crate, which gives the verdict).
fn check_jpeg_turbo(
    data: &[u8],
    w: u32,
    h: u32,
    cfg: &ImageConfig,
) -> Option<Result<CheckedImage, (DropReason, String)>> {
    use fast_image_resize::PixelType;
    thread_local! {
        static DECODER: std::cell::RefCell<Option<JpegScratch>> = const { std::cell::RefCell::new(None) };
    }
    if let Err(e) = check_size(w, h, cfg) {
        return Some(Err(e));
    }
    let (wu, hu) = (w as usize, h as usize);
    DECODER.with(|d| {
        let mut d = d.borrow_mut();
        if d.is_none() {
            *d = Some((turbojpeg::Decompressor::new().ok()?, Vec::new(), Vec::new()));
        }
        let (dec, buf, small_buf) = d.as_mut().expect("set above");
        if buf.len() < wu * hu * 4 {
            buf.resize(wu * hu * 4, 0);
        }
        let resized = cfg.resize_shorter_side > 0 && w.min(h) > cfg.resize_shorter_side;
        let stripped = if resized {
            None
        } else {
            strip_jpeg_metadata(data)
        };
        if let Some(bytes) = stripped {
            // kept at its size and stored as its own bytes: only the pHash needs pixels, and
            // a 1/8-scale decode (each pixel an 8x8 block's mean, libjpeg-turbo's DC-only
            // path) gives the area averages it needs, while still decoding every block of
            // the scan (so corrupt data is still caught)
            let (sw, sh) = (wu.div_ceil(8), hu.div_ceil(8));
            let px = &mut buf[..sw * sh * 4];
            dec.decompress(
                data,
                turbojpeg::Image {
                    pixels: &mut *px,
                    width: sw,
                    pitch: sw * 4,
                    height: sh,
                    format: turbojpeg::PixelFormat::RGBX,
                },
            )
            .ok()?;
            let phash = crate::phash::phash_pixels(&buf[..sw * sh * 4], sw, sh, 4).unwrap_or(0);
            let exact = xxhash_rust::xxh3::xxh3_64(&bytes);
            return Some(Ok(CheckedImage {
                format: "jpeg",
                original: (w, h),
                size: (w, h),
                bytes,
                extension: "jpg",
                phash,
                exact,
            }));
        }
        let px = &mut buf[..wu * hu * 4];
        dec.decompress(
            data,
            turbojpeg::Image {
                pixels: &mut *px,
                width: wu,
                pitch: wu * 4,
                height: hu,
                format: turbojpeg::PixelFormat::RGBX,
            },
        )
        .ok()?;
        let px = &buf[..wu * hu * 4];
        let out = (|| {
            let (bytes, size, phash) = if resized {
                let scale = f64::from(cfg.resize_shorter_side) / f64::from(w.min(h));
                let (nw, nh) = (
                    ((f64::from(w) * scale).round() as u32).max(1),
                    ((f64::from(h) * scale).round() as u32).max(1),
                );
                // into a per-thread buffer too (no zeroing or page faults per image)
                let need = nw as usize * nh as usize * 4;
                if small_buf.len() < need {
                    small_buf.resize(need, 0);
                }
                let small = &mut small_buf[..need];
                resize_into(px, w, h, small, nw, nh, PixelType::U8x4)
                    .map_err(|e| (reasons::IMAGE_CORRUPT, format!("resizing: {e}")))?;
                let phash =
                    crate::phash::phash_pixels(small, nw as usize, nh as usize, 4).unwrap_or(0);
                let bytes = encode_jpeg_pixels(
                    small,
                    nw,
                    nh,
                    turbojpeg::PixelFormat::RGBX,
                    cfg.jpeg_quality,
                )
                .map_err(|e| (reasons::IMAGE_CORRUPT, format!("encoding: {e}")))?;
                (bytes, (nw, nh), phash)
            } else {
                // kept at its size, and its own bytes could not be stripped (above): re-encoded
                let phash = crate::phash::phash_pixels(px, wu, hu, 4).unwrap_or(0);
                let bytes =
                    encode_jpeg_pixels(px, w, h, turbojpeg::PixelFormat::RGBX, cfg.jpeg_quality)
                        .map_err(|e| (reasons::IMAGE_CORRUPT, format!("encoding: {e}")))?;
                (bytes, (w, h), phash)
            };
            let exact = xxhash_rust::xxh3::xxh3_64(&bytes);
            Ok(CheckedImage {
                format: "jpeg",
                original: (w, h),
                size,
                bytes,
                extension: "jpg",
                phash,
                exact,
            })
        })();
        Some(out)
    })
}

/// A JPEG's bytes without its metadata: APP1-APP15 (EXIF, XMP, ICC, Photoshop, ...) and
/// comments are dropped; APP0 (JFIF) and APP14 (Adobe: the colour transform) stay, and
/// everything from the start of scan on is copied as is. `None` for anything unexpected
/// (the caller re-encodes instead).
pub fn strip_jpeg_metadata(data: &[u8]) -> Option<Vec<u8>> {
    if data.len() < 4 || data[0..2] != [0xff, 0xd8] {
        return None;
    }
    let mut out = Vec::with_capacity(data.len());
    out.extend_from_slice(&data[..2]);
    let mut i = 2;
    loop {
        // fill bytes (0xFF padding) may precede a marker
        while data.get(i) == Some(&0xff) && data.get(i + 1) == Some(&0xff) {
            i += 1;
        }
        if *data.get(i)? != 0xff {
            return None;
        }
        let marker = *data.get(i + 1)?;
        if marker == 0xda {
            out.extend_from_slice(&data[i..]);
            return Some(out);
        }
        if (0xd0..=0xd9).contains(&marker) || marker == 0x01 {
            return None; // no standalone markers expected before the scan
        }
        let len = usize::from(u16::from_be_bytes([*data.get(i + 2)?, *data.get(i + 3)?]));
        let end = i.checked_add(2)?.checked_add(len)?;
        if len < 2 || end > data.len() {
            return None;
        }
        let drop = (0xe1..=0xef).contains(&marker) && marker != 0xee || marker == 0xfe;
        if !drop {
            out.extend_from_slice(&data[i..end]);
        }
        i = end;
    }
}

/// Area-averaging resize (box filter, like OpenCV's INTER_AREA for shrinking) with
/// `fast_image_resize` (SIMD): the `image` crate's resize took half of the whole check's
/// time.
fn resize_rgb(src: &image::RgbImage, w: u32, h: u32) -> Result<image::RgbImage, String> {
    let mut out = vec![0u8; w as usize * h as usize * 3];
    resize_into(
        src.as_raw(),
        src.width(),
        src.height(),
        &mut out,
        w,
        h,
        fast_image_resize::PixelType::U8x3,
    )?;
    image::RgbImage::from_raw(w, h, out).ok_or_else(|| "resize buffer size".to_string())
}

/// [`resize_rgb`] on raw pixels of `kind` (U8x3 or U8x4) into `dst` (exactly `w * h`
/// pixels of `kind`).
fn resize_into(
    src: &[u8],
    sw: u32,
    sh: u32,
    dst: &mut [u8],
    w: u32,
    h: u32,
    kind: fast_image_resize::PixelType,
) -> Result<(), String> {
    use fast_image_resize::{images::Image, FilterType, ResizeAlg, ResizeOptions, Resizer};
    let view =
        fast_image_resize::images::ImageRef::new(sw, sh, src, kind).map_err(|e| e.to_string())?;
    let mut dst = Image::from_slice_u8(w, h, dst, kind).map_err(|e| e.to_string())?;
    // the fourth byte is padding (RGBX), not alpha: no premultiplication
    let opts = ResizeOptions::new()
        .resize_alg(ResizeAlg::Convolution(FilterType::Box))
        .use_alpha(false);
    Resizer::new()
        .resize(&view, &mut dst, &opts)
        .map_err(|e| e.to_string())
}

/// Baseline JPEG (4:2:0) with libjpeg-turbo, which writes no metadata; one compressor per
/// thread. (The `image` crate's encoder and `jpeg-encoder` took 3x as long.)
fn encode_jpeg(rgb: &image::RgbImage, quality: u8) -> Result<Vec<u8>, String> {
    encode_jpeg_pixels(
        rgb.as_raw(),
        rgb.width(),
        rgb.height(),
        turbojpeg::PixelFormat::RGB,
        quality,
    )
}

/// [`encode_jpeg`] of raw pixels in `format` (RGB or RGBX).
fn encode_jpeg_pixels(
    px: &[u8],
    w: u32,
    h: u32,
    format: turbojpeg::PixelFormat,
    quality: u8,
) -> Result<Vec<u8>, String> {
    thread_local! {
        static COMPRESSOR: std::cell::RefCell<Option<turbojpeg::Compressor>> = const { std::cell::RefCell::new(None) };
    }
    let (w, h) = (w as usize, h as usize);
    let bpp = if format == turbojpeg::PixelFormat::RGB {
        3
    } else {
        4
    };
    let img = turbojpeg::Image {
        pixels: px,
        width: w,
        pitch: w * bpp,
        height: h,
        format,
    };
    COMPRESSOR.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_none() {
            *c = Some(turbojpeg::Compressor::new().map_err(|e| e.to_string())?);
        }
        let comp = c.as_mut().expect("set above");
        comp.set_quality(i32::from(quality));
        comp.set_subsamp(turbojpeg::Subsamp::Sub2x2);
        comp.compress_to_vec(img).map_err(|e| e.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        // a picture that scales: smooth shapes relative to the size
        let img = image::RgbImage::from_fn(w, h, |x, y| {
            let (u, v) = (
                f64::from(x) / f64::from(w.max(1)),
                f64::from(y) / f64::from(h.max(1)),
            );
            let wave = ((u * 6.0).sin() * (v * 4.0).cos() * 110.0 + 128.0) as u8;
            image::Rgb([(u * 255.0) as u8, wave, (v * 255.0) as u8])
        });
        let mut out = Vec::new();
        DynamicImage::ImageRgb8(img)
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .unwrap();
        out
    }

    fn jpeg(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(w, h, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 128])
        });
        let mut out = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 85)
            .encode_image(&img)
            .unwrap();
        out
    }

    #[test]
    fn jpeg_metadata_is_stripped_losslessly() {
        let j = jpeg(100, 80);
        // insert an EXIF (APP1) segment and a comment after SOI
        let mut with = j[..2].to_vec();
        with.extend_from_slice(&[0xff, 0xe1, 0x00, 0x0a]);
        with.extend_from_slice(b"Exif\0\0GPS");
        with.truncate(with.len() - 1);
        with.extend_from_slice(&[0xff, 0xfe, 0x00, 0x05, b'h', b'i', b'!']);
        with.extend_from_slice(&j[2..]);
        let stripped = strip_jpeg_metadata(&with).unwrap();
        assert_eq!(
            stripped,
            strip_jpeg_metadata(&j).unwrap(),
            "only the metadata went"
        );
        assert!(!stripped.windows(4).any(|w| w == b"Exif"));
        assert!(image::load_from_memory(&stripped).is_ok());
        let c = check(
            &with,
            Some("image/jpeg"),
            &ImageConfig {
                min_side: 16,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(
            c.bytes, stripped,
            "a JPEG kept at its size is stored without re-encoding"
        );
        assert!(
            strip_jpeg_metadata(b"\xff\xd8\xff\xe1\xff\xff").is_none(),
            "a segment running past the end"
        );
    }

    #[test]
    fn good_images_are_resized_and_reencoded() {
        let cfg = ImageConfig::default();
        let c = check(&png(1200, 800), Some("image/png"), &cfg).unwrap();
        assert_eq!(
            (c.format, c.original, c.size, c.extension),
            ("png", (1200, 800), (768, 512), "jpg")
        );
        assert!(c.bytes.starts_with(&[0xff, 0xd8]), "JPEG output");
        let again = check(&png(1200, 800), None, &cfg).unwrap();
        assert_eq!(
            (again.phash, again.exact),
            (c.phash, c.exact),
            "deterministic"
        );
        // the same picture at another size: same pHash neighbourhood
        let small = check(&png(600, 400), None, &cfg).unwrap();
        assert!(
            (small.phash ^ c.phash).count_ones() <= 8,
            "pHash distance {}",
            (small.phash ^ c.phash).count_ones()
        );
        let keep = check(
            &jpeg(300, 200),
            Some("image/jpeg"),
            &ImageConfig {
                jpeg_quality: 0,
                ..cfg.clone()
            },
        )
        .unwrap();
        assert_eq!((keep.extension, keep.size), ("jpg", (300, 200)));
    }

    #[test]
    fn bad_images_are_dropped_with_their_reason() {
        let cfg = ImageConfig::default();
        let r = |d: &[u8], ct: Option<&str>| check(d, ct, &cfg).unwrap_err().0;
        assert_eq!(
            r(&png(1, 1), None),
            reasons::IMAGE_TOO_SMALL,
            "tracking pixel"
        );
        assert_eq!(r(&png(1000, 100), None), reasons::IMAGE_ASPECT, "banner");
        let full = jpeg(400, 300);
        assert_eq!(
            r(&full[..full.len() / 2], None),
            reasons::IMAGE_CORRUPT,
            "truncated JPEG"
        );
        assert_eq!(
            r(b"<html>not an image</html>", Some("image/png")),
            reasons::IMAGE_FORMAT
        );
        assert_eq!(
            r(&png(200, 200), Some("text/html")),
            reasons::IMAGE_FORMAT,
            "wrong Content-Type"
        );
        // a decompression bomb: a valid PNG header declaring 100,000 x 100,000 pixels, refused
        // before any pixel is decoded
        let mut bomb = png(100, 100);
        bomb[16..20].copy_from_slice(&100_000u32.to_be_bytes());
        bomb[20..24].copy_from_slice(&100_000u32.to_be_bytes());
        let ihdr_crc = crc32(&bomb[12..29]);
        bomb[29..33].copy_from_slice(&ihdr_crc.to_be_bytes());
        let (reason, why) = check(&bomb, Some("image/png"), &cfg).unwrap_err();
        assert_eq!(reason, reasons::IMAGE_TOO_LARGE, "{why}");
        assert!(why.contains("100000x100000"), "{why}");
        // over the byte cap
        assert_eq!(
            check(
                &png(300, 300),
                None,
                &ImageConfig {
                    max_bytes: 100,
                    ..cfg.clone()
                }
            )
            .unwrap_err()
            .0,
            reasons::IMAGE_TOO_LARGE
        );
        assert_eq!(
            ImageConfig {
                jpeg_quality: 101,
                ..cfg
            }
            .validate()
            .unwrap_err()
            .0,
            "captions.images.jpeg_quality"
        );
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut c = 0xffff_ffffu32;
        for &b in data {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }
}
