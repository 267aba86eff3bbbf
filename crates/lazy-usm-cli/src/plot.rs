//! A small SVG line chart: host pinned bytes per step, one line per policy. Written by hand: it
//! is a few dozen lines, where a plotting crate would add a large dependency tree.

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 400.0;
const MARGIN: f64 = 60.0;
const COLOURS: [&str; 4] = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd"];

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The chart as an SVG document.
pub fn svg(title: &str, series: &[(String, Vec<u64>)]) -> String {
    let steps = series
        .iter()
        .map(|(_, values)| values.len())
        .max()
        .unwrap_or(1)
        .max(2);
    let top = series
        .iter()
        .flat_map(|(_, values)| values.iter().copied())
        .max()
        .unwrap_or(0);
    let top_gib = ((top as f64 / (1u64 << 30) as f64).ceil()).max(1.0);
    let x = |step: usize| MARGIN + (WIDTH - 2.0 * MARGIN) * step as f64 / (steps - 1) as f64;
    let y = |bytes: u64| {
        HEIGHT - MARGIN - (HEIGHT - 2.0 * MARGIN) * (bytes as f64 / (1u64 << 30) as f64) / top_gib
    };
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{MARGIN}\" y=\"24\" font-size=\"14\">{}</text>\n",
        escape(title)
    );
    let (left, right, bottom, upper) = (MARGIN, WIDTH - MARGIN, HEIGHT - MARGIN, MARGIN);
    out += &format!(
        "<line x1=\"{left}\" y1=\"{bottom}\" x2=\"{right}\" y2=\"{bottom}\" stroke=\"black\"/>\n"
    );
    out += &format!(
        "<line x1=\"{left}\" y1=\"{bottom}\" x2=\"{left}\" y2=\"{upper}\" stroke=\"black\"/>\n"
    );
    for tick in 0..=4 {
        let gib = top_gib * tick as f64 / 4.0;
        let ty = y((gib * (1u64 << 30) as f64) as u64);
        out += &format!(
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{gib:.1} GiB</text>\n",
            left - 6.0,
            ty + 4.0
        );
    }
    out += &format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">step</text>\n",
        (left + right) / 2.0,
        HEIGHT - 20.0
    );
    for (label, at) in [("1".to_string(), left), (steps.to_string(), right)] {
        out += &format!(
            "<text x=\"{at}\" y=\"{:.1}\" text-anchor=\"middle\">{label}</text>\n",
            bottom + 16.0
        );
    }
    for (index, (name, values)) in series.iter().enumerate() {
        let colour = COLOURS[index % COLOURS.len()];
        let points: Vec<String> = values
            .iter()
            .enumerate()
            .map(|(step, &bytes)| format!("{:.1},{:.1}", x(step), y(bytes)))
            .collect();
        // A small vertical offset per line keeps coinciding lines (lazy = manual = 0) visible.
        out += &format!(
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" transform=\"translate(0,{})\" points=\"{}\"/>\n",
            -(index as f64) * 2.0,
            points.join(" ")
        );
        // The legend sits mid-height, clear of both a high (eager) and a low (lazy) line.
        let ly = HEIGHT / 2.0 - 24.0 + 16.0 * index as f64;
        out += &format!(
            "<rect x=\"{}\" y=\"{:.1}\" width=\"12\" height=\"3\" fill=\"{colour}\"/>\n",
            right - 110.0,
            ly - 4.0
        );
        out += &format!(
            "<text x=\"{}\" y=\"{ly:.1}\">{}</text>\n",
            right - 94.0,
            escape(name)
        );
    }
    out += "</svg>\n";
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_polyline_per_series_scaled_to_the_largest_value() {
        let series = vec![
            ("eager".to_string(), vec![0, 4 << 30, 8 << 30]),
            ("lazy".to_string(), vec![0, 0, 0]),
        ];
        let svg = super::svg("t <1>", &series);
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("8.0 GiB"), "the axis reaches the peak");
        assert!(svg.contains("t &lt;1&gt;"), "the title is escaped");
        // The eager line ends at the top of the plot area, y = MARGIN.
        assert!(svg.contains("660.0,60.0"), "{svg}");
    }
}
