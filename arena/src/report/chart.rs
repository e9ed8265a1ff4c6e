//! Pictures made of numbers: the Elo chart (inline SVG) and the colour scale of the
//! score tables. Pure functions of their inputs; the SVG scales with its container.

use super::escape::Html;

/// One bot's row in the Elo chart.
#[derive(Clone, Debug, PartialEq)]
pub struct EloBar {
    /// Bot name.
    pub name: String,
    /// The rating.
    pub elo: f64,
    /// The interval's ends.
    pub low: f64,
    /// The interval's ends.
    pub high: f64,
}

const WIDTH: f64 = 600.0;
const LABEL_WIDTH: f64 = 160.0;
const VALUE_WIDTH: f64 = 96.0;
const ROW: f64 = 30.0;
const TOP: f64 = 28.0;
const BOTTOM: f64 = 8.0;

/// A horizontal chart: one row per bot, a dot at its Elo and a bar over its interval,
/// with an axis of round Elo values and a line at 0. Rows are drawn in the order
/// given; bars with a non-finite end are drawn without that end.
pub fn elo_chart(bars: &[EloBar], confidence: &str) -> Html {
    let mut svg = Html::new();
    let finite: Vec<f64> = bars
        .iter()
        .flat_map(|b| [b.low, b.high, b.elo])
        .filter(|v| v.is_finite())
        .collect();
    let (lo, hi) = axis_range(&finite);
    let plot_left = LABEL_WIDTH;
    let plot_right = WIDTH - VALUE_WIDTH;
    let x = |v: f64| plot_left + (v.clamp(lo, hi) - lo) / (hi - lo) * (plot_right - plot_left);
    let height = TOP + ROW * bars.len() as f64 + BOTTOM;
    svg.raw("<svg class=\"elo-chart\" role=\"img\" viewBox=\"0 0 ")
        .display(WIDTH)
        .raw(" ")
        .display(height)
        .raw("\" aria-labelledby=\"elo-chart-title\"><title id=\"elo-chart-title\">Elo with its ")
        .text(confidence)
        .raw(" interval, one row per bot</title>");
    let step = tick_step(hi - lo);
    let mut tick = (lo / step).ceil() * step;
    while tick <= hi + 1e-9 {
        let tx = x(tick);
        svg.raw("<line class=\"")
            .raw(if tick.abs() < 1e-9 { "zero" } else { "grid" })
            .raw("\" x1=\"")
            .display(round1(tx))
            .raw("\" x2=\"")
            .display(round1(tx))
            .raw("\" y1=\"")
            .display(TOP - 6.0)
            .raw("\" y2=\"")
            .display(height - BOTTOM)
            .raw("\"/><text class=\"tick\" x=\"")
            .display(round1(tx))
            .raw("\" y=\"")
            .display(TOP - 10.0)
            .raw("\">")
            .text(&signed(tick, 0))
            .raw("</text>");
        tick += step;
    }
    for (i, bar) in bars.iter().enumerate() {
        let cy = TOP + ROW * i as f64 + ROW / 2.0;
        svg.raw("<g class=\"row\"><title>")
            .text(&bar.name)
            .raw(": ")
            .text(&signed(bar.elo, 1))
            .raw(" Elo, ")
            .text(confidence)
            .raw(" interval ")
            .text(&signed(bar.low, 1))
            .raw(" to ")
            .text(&signed(bar.high, 1))
            .raw("</title><text class=\"name\" x=\"")
            .display(LABEL_WIDTH - 12.0)
            .raw("\" y=\"")
            .display(cy + 4.0)
            .raw("\">")
            .text(&shorten(&bar.name, 18))
            .raw("</text>");
        if bar.low.is_finite() || bar.high.is_finite() {
            let (x1, x2) = (
                x(if bar.low.is_finite() { bar.low } else { lo }),
                x(if bar.high.is_finite() { bar.high } else { hi }),
            );
            svg.raw("<line class=\"interval\" x1=\"")
                .display(round1(x1))
                .raw("\" x2=\"")
                .display(round1(x2))
                .raw("\" y1=\"")
                .display(cy)
                .raw("\" y2=\"")
                .display(cy)
                .raw("\"/>");
            for (end, finite) in [(x1, bar.low.is_finite()), (x2, bar.high.is_finite())] {
                if finite {
                    svg.raw("<line class=\"cap\" x1=\"")
                        .display(round1(end))
                        .raw("\" x2=\"")
                        .display(round1(end))
                        .raw("\" y1=\"")
                        .display(cy - 6.0)
                        .raw("\" y2=\"")
                        .display(cy + 6.0)
                        .raw("\"/>");
                }
            }
        }
        if bar.elo.is_finite() {
            svg.raw("<circle class=\"elo\" cx=\"")
                .display(round1(x(bar.elo)))
                .raw("\" cy=\"")
                .display(cy)
                .raw("\" r=\"5\"/>");
        }
        svg.raw("<text class=\"value\" x=\"")
            .display(plot_right + 12.0)
            .raw("\" y=\"")
            .display(cy + 4.0)
            .raw("\">")
            .text(&signed(bar.elo, 0))
            .raw(" ± ")
            .text(&half_width(bar.low, bar.high))
            .raw("</text></g>");
    }
    svg.raw("</svg>");
    svg
}

/// The axis: the values' range widened by a margin, never narrower than 100 Elo,
/// always containing 0.
fn axis_range(values: &[f64]) -> (f64, f64) {
    let lo = values.iter().copied().fold(0.0f64, f64::min);
    let hi = values.iter().copied().fold(0.0f64, f64::max);
    let span = (hi - lo).max(100.0);
    let pad = span * 0.06;
    let mid = (lo + hi) / 2.0;
    let (lo, hi) = (
        lo.min(mid - span / 2.0) - pad,
        hi.max(mid + span / 2.0) + pad,
    );
    (lo, hi)
}

/// A round tick spacing giving four to ten ticks over `span`.
fn tick_step(span: f64) -> f64 {
    let candidates = [
        10.0, 20.0, 25.0, 50.0, 100.0, 200.0, 250.0, 500.0, 1000.0, 2000.0, 5000.0,
    ];
    candidates
        .into_iter()
        .find(|s| span / s <= 8.0)
        .unwrap_or(10_000.0)
}

/// `v` to one decimal: coordinates short enough to read, fine enough to draw.
pub fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// `+12.3`, `-4.0`, `0`, `+inf`, `—` for no value. Not the terminal tables' `signed`:
/// the page shows the crosstable's values, already rounded to two decimals, and
/// that function's second rounding (half away from zero) would turn 190.85 into
/// +190.9 where the terminal tables, rounding the unrounded value, show +190.8.
/// Zero has no sign here ("+0" reads as noise).
pub fn signed(v: f64, decimals: usize) -> String {
    if v.is_infinite() {
        return if v > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        };
    }
    if v.is_nan() {
        return "—".into();
    }
    let text = format!("{v:+.decimals$}");
    let digits = text.trim_start_matches(['+', '-']);
    if digits.chars().all(|c| c == '0' || c == '.') {
        return digits.to_string();
    }
    text
}

/// `2026-11-29T22:11:23Z` as `2026-11-29 22:11:23 UTC`; anything else as it is.
pub fn readable_time(rfc3339: &str) -> String {
    match rfc3339.strip_suffix('Z') {
        Some(t) if t.len() == 19 => format!("{} UTC", t.replacen('T', " ", 1)),
        _ => rfc3339.to_string(),
    }
}

/// `92.3%`: [`ratings::table::percent`], with a dash for a missing value.
pub fn percent(v: f64) -> String {
    if v.is_finite() {
        ratings::table::percent(v)
    } else {
        "—".into()
    }
}

fn half_width(low: f64, high: f64) -> String {
    let h = (high - low) / 2.0;
    if h.is_finite() {
        format!("{h:.0}")
    } else {
        "∞".into()
    }
}

fn shorten(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(max - 1).collect();
        s.push('…');
        s
    }
}

/// The background of a cell showing a score in `[0, 1]`: a diverging red–blue
/// scale (ColorBrewer RdBu ends `#ef8a62` and `#67a9cf`, neutral `#f7f7f7` at ½),
/// pale enough for dark text at every value (contrast ≥ 6:1) and readable by
/// red–green colour-blind readers. The number is always printed too.
pub fn score_colour(score: f64) -> String {
    const LOW: [f64; 3] = [239.0, 138.0, 98.0];
    const MID: [f64; 3] = [247.0, 247.0, 247.0];
    const HIGH: [f64; 3] = [103.0, 169.0, 207.0];
    let s = if score.is_finite() {
        score.clamp(0.0, 1.0)
    } else {
        0.5
    };
    let (from, to, t) = if s < 0.5 {
        (LOW, MID, s * 2.0)
    } else {
        (MID, HIGH, (s - 0.5) * 2.0)
    };
    let c: Vec<u8> = (0..3)
        .map(|i| (from[i] + (to[i] - from[i]) * t).round() as u8)
        .collect();
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(name: &str, elo: f64, half: f64) -> EloBar {
        EloBar {
            name: name.into(),
            elo,
            low: elo - half,
            high: elo + half,
        }
    }

    #[test]
    fn one_dot_per_finite_rating_in_order_and_names_escaped() {
        let bars = [
            bar("mcts", 200.0, 50.0),
            bar("<b>evil</b>", 0.0, 40.0),
            bar("random", -200.0, f64::INFINITY),
        ];
        let svg = elo_chart(&bars, "95%").into_string();
        assert_eq!(svg.matches("<circle").count(), 3);
        assert!(svg.contains("&lt;b&gt;evil&lt;/b&gt;"));
        assert!(!svg.contains("<b>"));
        let xs: Vec<f64> = svg
            .split("cx=\"")
            .skip(1)
            .map(|s| s.split('"').next().unwrap().parse().unwrap())
            .collect();
        assert!(xs[0] > xs[1] && xs[1] > xs[2], "{xs:?}");
        // The infinite end is drawn without its cap and shown as ∞.
        assert!(svg.contains("-200 ± ∞"));
        assert!(svg.contains("class=\"zero\""));
    }

    #[test]
    fn ticks_are_round_and_few() {
        assert_eq!(tick_step(120.0), 20.0);
        assert_eq!(tick_step(700.0), 100.0);
        let (lo, hi) = axis_range(&[-10.0, 10.0]);
        assert!(lo < -50.0 && hi > 50.0);
        let (lo, hi) = axis_range(&[100.0, 400.0]);
        assert!(lo < 0.0 && hi > 400.0);
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(signed(12.345, 1), "+12.3");
        assert_eq!(signed(-0.04, 1), "0.0");
        assert_eq!(signed(-4.0, 0), "-4");
        assert_eq!(signed(f64::NEG_INFINITY, 1), "-inf");
    }

    #[test]
    fn the_scale_runs_red_to_neutral_to_blue() {
        assert_eq!(score_colour(0.0), "#ef8a62");
        assert_eq!(score_colour(0.5), "#f7f7f7");
        assert_eq!(score_colour(1.0), "#67a9cf");
        assert_eq!(score_colour(f64::NAN), "#f7f7f7");
        assert_eq!(score_colour(7.0), "#67a9cf");
    }
}
