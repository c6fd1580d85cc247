//! Inline SVG charts. Labels are escaped; every bar can link to a samples section.

use std::fmt::Write as _;

use crate::escape;

/// Series colours (run A, run B).
pub const COLORS: [&str; 2] = ["#3b6ea8", "#d9822b"];

/// One category with a value per series and an optional link target (`#id`).
pub struct Row {
    pub label: String,
    pub values: Vec<f64>,
    pub href: Option<String>,
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        let n = v as i64;
        let s = n.abs().to_string();
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        if n < 0 {
            format!("-{out}")
        } else {
            out
        }
    } else {
        format!("{v:.3}")
    }
}

/// Thousands separators for counts.
pub fn num(v: u64) -> String {
    fmt_num(v as f64)
}

/// A horizontal bar chart.
pub fn bars(title: &str, rows: &[Row]) -> String {
    let series = rows
        .iter()
        .map(|r| r.values.len())
        .max()
        .unwrap_or(1)
        .max(1);
    let max = rows
        .iter()
        .flat_map(|r| r.values.iter().copied())
        .fold(0.0f64, f64::max)
        .max(1.0);
    let row_h = 8 + 14 * series;
    let h = 30 + row_h * rows.len();
    let mut s = String::new();
    let _ = write!(s, "<figure class=\"chart\"><svg role=\"img\" aria-label=\"{}\" width=\"100%\" viewBox=\"0 0 760 {h}\" xmlns=\"http://www.w3.org/2000/svg\">", escape(title));
    let _ = write!(
        s,
        "<text x=\"0\" y=\"16\" class=\"ct\">{}</text>",
        escape(title)
    );
    for (i, r) in rows.iter().enumerate() {
        let y0 = 28 + i * row_h;
        let label: String = r.label.chars().take(28).collect();
        let open = r
            .href
            .as_ref()
            .map(|h| format!("<a href=\"{}\">", escape(h)))
            .unwrap_or_default();
        let close = if r.href.is_some() { "</a>" } else { "" };
        let _ = write!(
            s,
            "{open}<title>{}</title><text x=\"0\" y=\"{}\" class=\"cl\">{}</text>",
            escape(&r.label),
            y0 + 4 + 7 * series,
            escape(&label)
        );
        for (j, v) in r.values.iter().enumerate() {
            let w = (v / max * 420.0)
                .round()
                .max(if *v > 0.0 { 1.0 } else { 0.0 });
            let y = y0 + j * 14;
            let _ = write!(
                s,
                "<rect x=\"200\" y=\"{y}\" width=\"{w}\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" class=\"cv\">{}</text>",
                COLORS[j % 2],
                206.0 + w,
                y + 10,
                fmt_num(*v)
            );
        }
        s.push_str(close);
    }
    s.push_str("</svg></figure>");
    s
}

/// One histogram bin.
pub struct Bin {
    pub label: String,
    pub counts: Vec<u64>,
    pub href: Option<String>,
}

/// A vertical histogram; `threshold` is an x position in bins (e.g. 2.5 = middle of the
/// third bin), drawn as a red line.
pub fn hist(title: &str, bins: &[Bin], threshold: Option<(f64, String)>) -> String {
    let series = bins
        .iter()
        .map(|b| b.counts.len())
        .max()
        .unwrap_or(1)
        .max(1);
    let max = bins
        .iter()
        .flat_map(|b| b.counts.iter().copied())
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let (w, h, left, top, plot_h) = (760usize, 250usize, 40usize, 30usize, 160usize);
    let bw = ((w - left - 10) / bins.len().max(1)).max(6);
    let mut s = String::new();
    let _ = write!(s, "<figure class=\"chart\"><svg role=\"img\" aria-label=\"{}\" width=\"100%\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\">", escape(title));
    let _ = write!(
        s,
        "<text x=\"0\" y=\"16\" class=\"ct\">{}</text>",
        escape(title)
    );
    let _ = write!(
        s,
        "<line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#999\"/>",
        top + plot_h,
        w - 10,
        top + plot_h
    );
    let _ = write!(
        s,
        "<text x=\"0\" y=\"{}\" class=\"cv\">{}</text>",
        top + 8,
        fmt_num(max)
    );
    for (i, b) in bins.iter().enumerate() {
        let x0 = left + i * bw;
        let open = b
            .href
            .as_ref()
            .map(|h| format!("<a href=\"{}\">", escape(h)))
            .unwrap_or_default();
        let close = if b.href.is_some() { "</a>" } else { "" };
        let _ = write!(
            s,
            "{open}<title>{}: {}</title>",
            escape(&b.label),
            b.counts
                .iter()
                .map(|c| num(*c))
                .collect::<Vec<_>>()
                .join(" / ")
        );
        let sub = (bw - 2) / series;
        for (j, c) in b.counts.iter().enumerate() {
            let bh = (*c as f64 / max * plot_h as f64).round() as usize;
            let _ = write!(
                s,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{bh}\" fill=\"{}\"/>",
                x0 + 1 + j * sub,
                top + plot_h - bh,
                sub.max(1),
                COLORS[j % 2]
            );
        }
        s.push_str(close);
        let every = bins.len().div_ceil(12).max(1);
        if i % every == 0 {
            let _ = write!(
                s,
                "<text x=\"{}\" y=\"{}\" class=\"cx\" transform=\"rotate(40 {} {})\">{}</text>",
                x0 + bw / 2,
                top + plot_h + 12,
                x0 + bw / 2,
                top + plot_h + 12,
                escape(&b.label)
            );
        }
    }
    if let Some((t, label)) = threshold {
        let x = left as f64 + t * bw as f64;
        let _ = write!(s, "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{}\" stroke=\"#c0392b\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/><text x=\"{:.1}\" y=\"{}\" class=\"cth\">{}</text>", top + plot_h, x + 4.0, top + 10, escape(&label));
    }
    s.push_str("</svg></figure>");
    s
}
