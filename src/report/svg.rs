//! Charts as inline SVG, written by hand: the forgetting/utility scatter with interval
//! bars, heatmaps, grouped bars, small multiples over tiers and the forest plot of
//! paired differences. Every chart takes figures already computed (fractions in
//! \[0, 1\]) and only draws them; every text goes through [`escape`].

use std::fmt::Write;

/// Escapes text for HTML and SVG element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Colour-blind-safe categorical colours (Okabe–Ito, without the yellow), one per
/// series, cycling.
const PALETTE: [&str; 7] = [
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000",
];

/// The colour of series `i`.
pub fn series_colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// A fraction as a percentage with one decimal, or `–`.
fn pct(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_string(), |v| format!("{:.1}", v * 100.0))
}

/// A number for an SVG attribute: at most one decimal.
fn n(value: f64) -> String {
    let rounded = (value * 10.0).round() / 10.0;
    if rounded.fract() == 0.0 {
        format!("{}", rounded as i64)
    } else {
        format!("{rounded:.1}")
    }
}

/// An SVG document under construction.
struct Svg {
    out: String,
}

impl Svg {
    fn new(width: f64, height: f64, label: &str, class: &str) -> Svg {
        let mut out = String::new();
        let _ = write!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart {class}" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="{label}">"#,
            w = n(width),
            h = n(height),
            label = escape(label)
        );
        Svg { out }
    }

    fn raw(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, class: &str) {
        let _ = write!(
            self.out,
            r#"<line class="{class}" x1="{}" y1="{}" x2="{}" y2="{}"/>"#,
            n(x1),
            n(y1),
            n(x2),
            n(y2)
        );
    }

    fn text(&mut self, x: f64, y: f64, anchor: &str, class: &str, text: &str) {
        let _ = write!(
            self.out,
            r#"<text class="{class}" x="{}" y="{}" text-anchor="{anchor}">{}</text>"#,
            n(x),
            n(y),
            escape(text)
        );
    }

    fn finish(mut self) -> String {
        self.out.push_str("</svg>");
        self.out
    }
}

/// A linear scale from a percentage range onto pixels.
#[derive(Clone, Copy)]
struct Scale {
    lo: f64,
    hi: f64,
    from: f64,
    to: f64,
}

impl Scale {
    fn at(&self, v: f64) -> f64 {
        self.from + (v - self.lo) / (self.hi - self.lo) * (self.to - self.from)
    }
}

/// One point of the scatter: a series name, its x and y with their intervals.
#[derive(Debug, Clone)]
pub struct ScatterPoint {
    /// The series (system) name.
    pub name: String,
    /// x value, fraction.
    pub x: Option<f64>,
    /// x interval, fractions.
    pub x_interval: Option<(f64, f64)>,
    /// y value, fraction.
    pub y: Option<f64>,
    /// y interval, fractions.
    pub y_interval: Option<(f64, f64)>,
}

/// A scatter plot on 0–100 % axes with interval bars in both directions and a shaded
/// target corner (both above 80 %), as the paper's efficacy/preservation trade-off.
pub fn scatter(points: &[ScatterPoint], x_label: &str, y_label: &str, title: &str) -> String {
    let (w, h) = (560.0, 440.0);
    let (left, right, top, bottom) = (60.0, 150.0, 20.0, 50.0);
    let x = Scale {
        lo: 0.0,
        hi: 100.0,
        from: left,
        to: w - right,
    };
    let y = Scale {
        lo: 0.0,
        hi: 100.0,
        from: h - bottom,
        to: top,
    };
    let mut svg = Svg::new(w, h, title, "scatter");
    let _ = write!(
        svg.out,
        r#"<rect class="target" x="{}" y="{}" width="{}" height="{}"><title>both above 80%: selective forgetting</title></rect>"#,
        n(x.at(80.0)),
        n(y.at(100.0)),
        n(x.at(100.0) - x.at(80.0)),
        n(y.at(80.0) - y.at(100.0))
    );
    axes(&mut svg, x, y, x_label, y_label);
    // Labels right of the plot, in the order of the points' heights, kept apart.
    let mut labels: Vec<(f64, usize)> = Vec::new();
    for (i, p) in points.iter().enumerate() {
        let (Some(px), Some(py)) = (p.x, p.y) else {
            continue;
        };
        let (cx, cy) = (x.at(px * 100.0), y.at(py * 100.0));
        let colour = series_colour(i);
        let _ = write!(
            svg.out,
            r#"<g class="point" data-system="{}" style="stroke:{colour};fill:{colour}">"#,
            escape(&p.name)
        );
        if let Some((lo, hi)) = p.x_interval {
            svg.line(x.at(lo * 100.0), cy, x.at(hi * 100.0), cy, "interval");
            for v in [lo, hi] {
                svg.line(
                    x.at(v * 100.0),
                    cy - 4.0,
                    x.at(v * 100.0),
                    cy + 4.0,
                    "interval",
                );
            }
        }
        if let Some((lo, hi)) = p.y_interval {
            svg.line(cx, y.at(lo * 100.0), cx, y.at(hi * 100.0), "interval");
            for v in [lo, hi] {
                svg.line(
                    cx - 4.0,
                    y.at(v * 100.0),
                    cx + 4.0,
                    y.at(v * 100.0),
                    "interval",
                );
            }
        }
        let _ = write!(
            svg.out,
            r#"<circle cx="{}" cy="{}" r="5"><title>{}: {} {}, {} {}</title></circle></g>"#,
            n(cx),
            n(cy),
            escape(&p.name),
            escape(x_label),
            pct(p.x),
            escape(y_label),
            pct(p.y)
        );
        labels.push((cy, i));
    }
    labels.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut last = f64::NEG_INFINITY;
    for (cy, i) in labels {
        let ly = cy.max(last + 14.0);
        last = ly;
        let lx = w - right + 14.0;
        svg.line(x.at(100.0) + 2.0, ly - 4.0, lx - 3.0, ly - 4.0, "leader");
        let _ = write!(
            svg.out,
            r#"<text class="label" x="{}" y="{}" style="fill:{}">{}</text>"#,
            n(lx),
            n(ly),
            series_colour(i),
            escape(&points[i].name)
        );
    }
    svg.finish()
}

fn axes(svg: &mut Svg, x: Scale, y: Scale, x_label: &str, y_label: &str) {
    for tick in (0..=100).step_by(20) {
        let t = f64::from(tick);
        svg.line(x.at(t), y.from, x.at(t), y.to, "grid");
        svg.line(x.from, y.at(t), x.to, y.at(t), "grid");
        svg.text(x.at(t), y.from + 16.0, "middle", "tick", &tick.to_string());
        svg.text(
            x.from - 6.0,
            y.at(t) + 4.0,
            "end",
            "tick",
            &tick.to_string(),
        );
    }
    svg.line(x.from, y.from, x.to, y.from, "axis");
    svg.line(x.from, y.from, x.from, y.to, "axis");
    svg.text(
        (x.from + x.to) / 2.0,
        y.from + 36.0,
        "middle",
        "axis-label",
        x_label,
    );
    let (cx, cy) = (x.from - 42.0, (y.from + y.to) / 2.0);
    let _ = write!(
        svg.out,
        r#"<text class="axis-label" x="{cx}" y="{cy}" text-anchor="middle" transform="rotate(-90 {cx} {cy})">{}</text>"#,
        escape(y_label),
        cx = n(cx),
        cy = n(cy)
    );
}

/// A heatmap: one row per series, one column per category, each cell coloured by its
/// value (0–100 %) and labelled with it; `–` on grey where undefined.
pub fn heatmap(rows: &[(String, Vec<Option<f64>>)], columns: &[String], title: &str) -> String {
    let label_width = rows
        .iter()
        .map(|(r, _)| r.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 28) as f64
        * 7.5
        + 12.0;
    let (cell_w, cell_h, top) = (72.0, 30.0, 38.0);
    let w = label_width + cell_w * columns.len() as f64 + 8.0;
    let h = top + cell_h * rows.len() as f64 + 6.0;
    let mut svg = Svg::new(w, h, title, "heatmap");
    for (c, column) in columns.iter().enumerate() {
        // A label of two words goes on two lines ("F1" over "factual").
        let x = label_width + cell_w * (c as f64 + 0.5);
        match column.split_once(' ') {
            Some((first, rest)) => {
                svg.text(x, top - 20.0, "middle", "col-label", first);
                svg.text(x, top - 7.0, "middle", "tick", rest);
            }
            None => svg.text(x, top - 8.0, "middle", "col-label", column),
        }
    }
    for (r, (name, values)) in rows.iter().enumerate() {
        let y0 = top + cell_h * r as f64;
        svg.text(
            label_width - 8.0,
            y0 + cell_h / 2.0 + 4.0,
            "end",
            "row-label",
            name,
        );
        for (c, value) in values.iter().enumerate().take(columns.len()) {
            let x0 = label_width + cell_w * c as f64;
            let (fill, ink) = match value {
                Some(v) => {
                    let (fill, dark) = sequential(*v);
                    (fill, if dark { "#ffffff" } else { "#111111" })
                }
                None => ("#e4e4e4".to_string(), "#555555"),
            };
            let _ = write!(
                svg.out,
                r#"<g class="cell"><rect x="{}" y="{}" width="{}" height="{}" style="fill:{fill}"><title>{}, {}: {}</title></rect><text x="{}" y="{}" text-anchor="middle" style="fill:{ink}">{}</text></g>"#,
                n(x0 + 1.0),
                n(y0 + 1.0),
                n(cell_w - 2.0),
                n(cell_h - 2.0),
                escape(name),
                escape(&columns[c]),
                pct(*value),
                n(x0 + cell_w / 2.0),
                n(y0 + cell_h / 2.0 + 4.0),
                pct(*value)
            );
        }
    }
    svg.finish()
}

/// A colour of a sequential scale (viridis, light at 1) for a fraction, and whether
/// it is dark enough to need light text.
fn sequential(v: f64) -> (String, bool) {
    // Viridis stops, reversed so that high values are light and read as "good".
    const STOPS: [(f64, f64, f64); 5] = [
        (68.0, 1.0, 84.0),
        (59.0, 82.0, 139.0),
        (33.0, 145.0, 140.0),
        (94.0, 201.0, 98.0),
        (253.0, 231.0, 37.0),
    ];
    let v = v.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let i = (v.floor() as usize).min(STOPS.len() - 2);
    let t = v - i as f64;
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let (r, g, bl) = (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2));
    let luminance = 0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(bl);
    (format!("#{r:02x}{g:02x}{bl:02x}"), luminance < 128.0)
}

/// Grouped vertical bars: one group per category, one bar per series, 0–100 %.
pub fn grouped_bars(
    series: &[String],
    categories: &[String],
    values: &[Vec<Option<f64>>],
    y_label: &str,
    title: &str,
) -> String {
    let bar_w = if series.len() > 4 { 14.0 } else { 22.0 };
    let group_w = (bar_w * series.len().max(1) as f64 + 24.0).max(84.0);
    let (left, top, bottom) = (60.0, 20.0, 56.0);
    let w = (left + group_w * categories.len() as f64 + 16.0).max(320.0);
    let h = 300.0;
    let x0 = left;
    let y = Scale {
        lo: 0.0,
        hi: 100.0,
        from: h - bottom,
        to: top,
    };
    let mut svg = Svg::new(w, h, title, "bars");
    for tick in (0..=100).step_by(20) {
        let t = f64::from(tick);
        svg.line(x0, y.at(t), w - 10.0, y.at(t), "grid");
        svg.text(x0 - 6.0, y.at(t) + 4.0, "end", "tick", &tick.to_string());
    }
    svg.line(x0, y.from, w - 10.0, y.from, "axis");
    let (cx, cy) = (18.0, (y.from + y.to) / 2.0);
    let _ = write!(
        svg.out,
        r#"<text class="axis-label" x="{cx}" y="{cy}" text-anchor="middle" transform="rotate(-90 {cx} {cy})">{}</text>"#,
        escape(y_label),
        cx = n(cx),
        cy = n(cy)
    );
    for (c, category) in categories.iter().enumerate() {
        let bars_w = bar_w * series.len() as f64;
        let gx = x0 + group_w * c as f64 + (group_w - bars_w) / 2.0;
        svg.text(
            gx + bars_w / 2.0,
            y.from + 18.0,
            "middle",
            "col-label",
            category,
        );
        for (s, name) in series.iter().enumerate() {
            let value = values.get(s).and_then(|v| v.get(c)).copied().flatten();
            let bx = gx + bar_w * s as f64;
            match value {
                Some(v) => {
                    let top_y = y.at(v * 100.0);
                    let _ = write!(
                        svg.out,
                        r#"<rect class="bar" data-system="{}" x="{}" y="{}" width="{}" height="{}" style="fill:{}"><title>{}, {}: {}</title></rect>"#,
                        escape(name),
                        n(bx),
                        n(top_y),
                        n(bar_w - 2.0),
                        n((y.from - top_y).max(0.0)),
                        series_colour(s),
                        escape(name),
                        escape(category),
                        pct(Some(v))
                    );
                }
                None => svg.text(bx + bar_w / 2.0, y.from - 4.0, "middle", "tick", "–"),
            }
        }
    }
    legend_row(&mut svg, series, x0, h - 14.0);
    svg.finish()
}

fn legend_row(svg: &mut Svg, series: &[String], x0: f64, y: f64) {
    let mut x = x0;
    for (s, name) in series.iter().enumerate() {
        let _ = write!(
            svg.out,
            r#"<rect x="{}" y="{}" width="10" height="10" style="fill:{}"/>"#,
            n(x),
            n(y - 9.0),
            series_colour(s)
        );
        svg.text(x + 14.0, y, "start", "legend", name);
        x += 14.0 + 7.0 * name.chars().count() as f64 + 18.0;
    }
}

/// Small multiples: one panel per metric, the categories (tiers) along x, one line
/// per series, 0–100 %.
pub fn small_multiples(
    series: &[String],
    categories: &[String],
    panels: &[(String, Vec<Vec<Option<f64>>>)],
    title: &str,
) -> String {
    let per_row = 4usize;
    let (pw, ph) = (190.0, 170.0);
    let rows = panels.len().div_ceil(per_row).max(1);
    let w = pw * per_row.min(panels.len().max(1)) as f64 + 10.0;
    let h = ph * rows as f64 + 30.0;
    let mut svg = Svg::new(w, h, title, "multiples");
    for (p, (metric, values)) in panels.iter().enumerate() {
        let (ox, oy) = (
            pw * (p % per_row) as f64 + 36.0,
            ph * (p / per_row) as f64 + 18.0,
        );
        let (iw, ih) = (pw - 50.0, ph - 56.0);
        let x = |c: usize| {
            if categories.len() <= 1 {
                ox + iw / 2.0
            } else {
                ox + iw * c as f64 / (categories.len() - 1) as f64
            }
        };
        let y = Scale {
            lo: 0.0,
            hi: 100.0,
            from: oy + ih,
            to: oy,
        };
        let _ = write!(
            svg.out,
            r#"<g class="panel" data-metric="{}">"#,
            escape(metric)
        );
        svg.text(ox + iw / 2.0, oy - 6.0, "middle", "panel-title", metric);
        for tick in [0, 50, 100] {
            let t = f64::from(tick);
            svg.line(ox, y.at(t), ox + iw, y.at(t), "grid");
            svg.text(ox - 4.0, y.at(t) + 4.0, "end", "tick", &tick.to_string());
        }
        for (c, category) in categories.iter().enumerate() {
            svg.text(x(c), oy + ih + 16.0, "middle", "tick", category);
        }
        for (s, name) in series.iter().enumerate() {
            let colour = series_colour(s);
            let points: Vec<(f64, f64, f64, &String)> = values
                .get(s)
                .into_iter()
                .flatten()
                .enumerate()
                .filter_map(|(c, v)| v.map(|v| (x(c), y.at(v * 100.0), v, &categories[c])))
                .collect();
            if points.len() > 1 {
                let path: Vec<String> = points
                    .iter()
                    .map(|(px, py, _, _)| format!("{},{}", n(*px), n(*py)))
                    .collect();
                let _ = write!(
                    svg.out,
                    r#"<polyline class="series" points="{}" style="stroke:{colour}"/>"#,
                    path.join(" ")
                );
            }
            for (px, py, v, category) in points {
                let _ = write!(
                    svg.out,
                    r#"<circle cx="{}" cy="{}" r="3.5" style="fill:{colour}"><title>{}, {} {}: {}</title></circle>"#,
                    n(px),
                    n(py),
                    escape(name),
                    escape(metric),
                    escape(category),
                    pct(Some(v))
                );
            }
        }
        svg.raw("</g>");
    }
    legend_row(&mut svg, series, 36.0, h - 8.0);
    svg.finish()
}

/// One row of a forest plot: a label, a difference and its interval (fractions).
#[derive(Debug, Clone)]
pub struct ForestRow {
    /// The metric.
    pub label: String,
    /// The difference, fraction (percentage points / 100).
    pub value: Option<f64>,
    /// Its interval.
    pub interval: Option<(f64, f64)>,
}

/// A forest plot of differences with their intervals around a zero line, in
/// percentage points.
pub fn forest(rows: &[ForestRow], x_label: &str, title: &str) -> String {
    let extent = rows
        .iter()
        .flat_map(|r| {
            r.value
                .into_iter()
                .chain(r.interval.into_iter().flat_map(|(a, b)| [a, b]))
        })
        .fold(0.05f64, |m, v| m.max(v.abs()))
        * 100.0;
    let extent = ((extent / 10.0).ceil() * 10.0).min(100.0);
    let (left, right, top, row_h) = (70.0, 40.0, 16.0, 30.0);
    let w = 620.0;
    let h = top + row_h * rows.len() as f64 + 50.0;
    let x = Scale {
        lo: -extent,
        hi: extent,
        from: left,
        to: w - right,
    };
    let mut svg = Svg::new(w, h, title, "forest");
    let bottom = top + row_h * rows.len() as f64;
    let step = if extent > 50.0 { 25.0 } else { 10.0 };
    let mut t = -extent;
    while t <= extent + 1e-9 {
        svg.line(x.at(t), top, x.at(t), bottom, "grid");
        svg.text(x.at(t), bottom + 16.0, "middle", "tick", &n(t));
        t += step;
    }
    svg.line(x.at(0.0), top, x.at(0.0), bottom, "zero");
    svg.text(
        (x.from + x.to) / 2.0,
        bottom + 36.0,
        "middle",
        "axis-label",
        x_label,
    );
    for (r, row) in rows.iter().enumerate() {
        let cy = top + row_h * (r as f64 + 0.5);
        svg.text(left - 10.0, cy + 4.0, "end", "row-label", &row.label);
        let _ = write!(
            svg.out,
            r#"<g class="difference" data-metric="{}">"#,
            escape(&row.label)
        );
        if let Some((lo, hi)) = row.interval {
            svg.line(x.at(lo * 100.0), cy, x.at(hi * 100.0), cy, "interval");
            for v in [lo, hi] {
                svg.line(
                    x.at(v * 100.0),
                    cy - 5.0,
                    x.at(v * 100.0),
                    cy + 5.0,
                    "interval",
                );
            }
        }
        match row.value {
            Some(v) => {
                let _ = write!(
                    svg.out,
                    r#"<rect x="{}" y="{}" width="8" height="8"><title>{}: {} [{}, {}]</title></rect>"#,
                    n(x.at(v * 100.0) - 4.0),
                    n(cy - 4.0),
                    escape(&row.label),
                    pct(Some(v)),
                    pct(row.interval.map(|i| i.0)),
                    pct(row.interval.map(|i| i.1))
                );
            }
            None => svg.text(x.at(0.0) + 6.0, cy + 4.0, "start", "tick", "undefined"),
        }
        svg.raw("</g>");
    }
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_leaves_no_markup() {
        assert_eq!(
            escape(r#"</script><svg onload="x">&'"#),
            "&lt;/script&gt;&lt;svg onload=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn the_sequential_scale_runs_dark_to_light() {
        let (low, low_dark) = sequential(0.0);
        let (high, high_dark) = sequential(1.0);
        assert_eq!(low, "#440154");
        assert_eq!(high, "#fde725");
        assert!(low_dark && !high_dark);
        assert_eq!(sequential(7.0).0, high, "out-of-range values are clamped");
    }

    #[test]
    fn a_scatter_draws_a_point_per_defined_series_and_skips_undefined_ones() {
        let svg = scatter(
            &[
                ScatterPoint {
                    name: "a<b".into(),
                    x: Some(0.5),
                    x_interval: Some((0.4, 0.6)),
                    y: Some(0.9),
                    y_interval: Some((0.8, 1.0)),
                },
                ScatterPoint {
                    name: "none".into(),
                    x: None,
                    x_interval: None,
                    y: Some(0.1),
                    y_interval: None,
                },
            ],
            "FE",
            "PR",
            "t",
        );
        assert_eq!(svg.matches("<circle").count(), 1);
        assert!(svg.contains(r#"data-system="a&lt;b""#), "{svg}");
        assert!(!svg.contains("a<b"));
        // x = 50% sits halfway between the plot's left (60) and right (410) edges.
        assert!(svg.contains(r#"cx="235""#), "{svg}");
    }

    #[test]
    fn a_forest_plot_centres_zero() {
        let svg = forest(
            &[ForestRow {
                label: "FE".into(),
                value: Some(0.2),
                interval: Some((0.1, 0.3)),
            }],
            "pp",
            "t",
        );
        // Extent 30 pp either side over x in [70, 580]: zero at 325.
        assert!(svg.contains(r#"<line class="zero" x1="325""#), "{svg}");
    }
}
