//! Plain-text tables with aligned columns.

/// A table: a header and rows of cells.
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: Vec<String>) -> Self {
        Self {
            header,
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Columns padded to their widest cell; numbers right-aligned, text left-aligned.
    pub fn render(&self) -> String {
        let columns = self.header.len();
        let width = |column: usize| {
            std::iter::once(&self.header)
                .chain(&self.rows)
                .filter_map(|row| row.get(column))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        };
        let widths: Vec<usize> = (0..columns).map(width).collect();
        let numeric: Vec<bool> = (0..columns)
            .map(|column| {
                self.rows
                    .iter()
                    .filter_map(|row| row.get(column))
                    .all(|cell| cell.parse::<f64>().is_ok() || cell == "n/a")
                    && !self.rows.is_empty()
            })
            .collect();
        let line = |row: &Vec<String>| {
            let cells: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(column, cell)| {
                    if numeric[column] {
                        format!("{cell:>width$}", width = widths[column])
                    } else {
                        format!("{cell:<width$}", width = widths[column])
                    }
                })
                .collect();
            format!("  {}", cells.join("  ")).trim_end().to_string()
        };
        let mut text = line(&self.header);
        text.push('\n');
        for row in &self.rows {
            text.push_str(&line(row));
            text.push('\n');
        }
        text
    }
}

/// Bytes as GiB with two decimals.
pub fn bytes_gib(bytes: u64) -> String {
    format!("{:.2}", bytes as f64 / (1u64 << 30) as f64)
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbers_right_text_left() {
        let mut table = super::Table::new(vec!["name".into(), "GiB".into()]);
        table.row(vec!["a".into(), "1.50".into()]);
        table.row(vec!["longer".into(), "12.00".into()]);
        assert_eq!(
            table.render(),
            "  name      GiB\n  a        1.50\n  longer  12.00\n"
        );
    }
}
