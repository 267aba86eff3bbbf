//! `LAZY_USM_HOST_BUDGET`: a bound on the host memory that the peer residency the shim makes on
//! first use pins. This module is its bookkeeping: the value's grammar, what is held now, the
//! least recently used order, and the figures of the exit report. Which residency may go, and
//! the driver calls that evict it, are the interception layer's.

#![deny(unsafe_code)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The variable that sets the budget.
pub const VARIABLE: &str = "LAZY_USM_HOST_BUDGET";

/// Why a budget's text is not a size.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    /// Nothing but blanks.
    #[error("it is empty")]
    Empty,
    /// The number part is not digits with at most one decimal point.
    #[error("`{0}` is not a number")]
    NotANumber(String),
    /// A unit other than B, KiB, MiB, GiB or TiB.
    #[error("`{0}` is not a unit (B, KiB, MiB, GiB or TiB: powers of 1024)")]
    UnknownUnit(String),
    /// A fraction of a byte.
    #[error("a number of bytes is whole")]
    FractionOfAByte,
    /// More bytes than 64 bits hold.
    #[error("it is more than 2^64 - 1 bytes")]
    TooLarge,
    /// Zero: no peer residency could ever be made.
    #[error("a budget of 0 bytes leaves no room for any peer residency (unset it for no budget)")]
    Zero,
}

/// The bytes `text` names: a whole number of bytes, or a number (a decimal fraction allowed)
/// with a unit `B`, `KiB`, `MiB`, `GiB` or `TiB` (any case, a space allowed before it):
/// `2GiB`, `1.5 MiB`, `2147483648`.
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(SizeError::Empty);
    }
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = (&text[..split], text[split..].trim_start());
    if number.is_empty() {
        return Err(SizeError::NotANumber(text.to_string()));
    }
    let scale: u128 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        _ => return Err(SizeError::UnknownUnit(unit.to_string())),
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    // Trailing zeros of a fraction say nothing: they must not make a size too large to read.
    let fraction = fraction.trim_end_matches('0');
    let digits = |part: &str| part.chars().all(|c| c.is_ascii_digit());
    if whole.is_empty() && fraction.is_empty() || !digits(whole) || !digits(fraction) {
        return Err(SizeError::NotANumber(number.to_string()));
    }
    // Exact in integers: (whole.fraction) * scale = (whole * 10^k + fraction) * scale / 10^k.
    let too_large = |_| SizeError::TooLarge;
    let parse = |part: &str| {
        if part.is_empty() {
            Ok(0u128)
        } else {
            part.parse::<u128>().map_err(too_large)
        }
    };
    let ten_to_k = u32::try_from(fraction.len())
        .ok()
        .and_then(|k| 10u128.checked_pow(k))
        .ok_or(SizeError::TooLarge)?;
    let mantissa = parse(whole)?
        .checked_mul(ten_to_k)
        .and_then(|shifted| shifted.checked_add(parse(fraction).ok()?))
        .ok_or(SizeError::TooLarge)?;
    let scaled = mantissa.checked_mul(scale).ok_or(SizeError::TooLarge)?;
    if scaled % ten_to_k != 0 {
        return Err(SizeError::FractionOfAByte);
    }
    let bytes = u64::try_from(scaled / ten_to_k).map_err(|_| SizeError::TooLarge)?;
    if bytes == 0 {
        return Err(SizeError::Zero);
    }
    Ok(bytes)
}

/// The budget from the environment: `Ok(None)` when unset, or an error that names the
/// variable, its value and what is wrong with it.
pub fn from_env() -> Result<Option<u64>, String> {
    match std::env::var(VARIABLE) {
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(value)) => Err(format!(
            "{VARIABLE}={value:?} is not a size: it is not text"
        )),
        Ok(value) => parse_size(&value).map(Some).map_err(|why| {
            format!(
                "{VARIABLE}={value:?} is not a size: {why}; write bytes, or a number with \
                 KiB, MiB or GiB (2GiB, 1.5 GiB)"
            )
        }),
    }
}

/// `bytes` for a person: in GiB from 1 GiB up, else in MiB.
pub fn size_text(bytes: u64) -> String {
    const MIB: f64 = (1u64 << 20) as f64;
    if bytes >= 1 << 30 {
        format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{:.2} MiB", bytes as f64 / MIB)
    }
}

/// What the budget did, for the exit report.
#[derive(Debug, Default)]
pub struct BudgetFigures {
    /// Residencies evicted to make room, and their bytes.
    pub evictions: AtomicU64,
    pub evicted_bytes: AtomicU64,
    /// Residencies made again where the budget had evicted them, and their bytes.
    pub reimports: AtomicU64,
    pub reimported_bytes: AtomicU64,
    /// Residencies made past the budget: nothing old enough could go (queued work still used
    /// it, or the driver refused to evict it).
    pub passes: AtomicU64,
    /// Evictions the driver refused (released drivers up to 26.31 do, for a peer's memory).
    pub refusals: AtomicU64,
    /// The most bytes held at once.
    pub peak: AtomicU64,
}

/// The budget in force and what it holds.
#[derive(Debug)]
pub struct Budget {
    /// The bytes of peer residency the shim may hold.
    pub limit: u64,
    /// Held while room is made for a residency and it is made, so that two first uses never
    /// both count on the same room.
    pub room: Mutex<()>,
    /// Bytes of peer residency the shim made and holds now.
    held: AtomicU64,
    /// Ticks on every use, so residencies compare by when they were last used.
    clock: AtomicU64,
    pub figures: BudgetFigures,
}

impl Budget {
    /// A budget of `limit` bytes holding nothing.
    pub fn new(limit: u64) -> Self {
        Budget {
            limit,
            room: Mutex::new(()),
            held: AtomicU64::new(0),
            // From 1: 0 means "never" to those who keep a time.
            clock: AtomicU64::new(1),
            figures: BudgetFigures::default(),
        }
    }

    /// The time of a use, later than every earlier one.
    pub fn tick(&self) -> u64 {
        // In one order with the marks of appends in progress (`ListRecord::appending_since`),
        // so that a use ticked after a mark that a reader missed is later than that reader's
        // own tick.
        self.clock.fetch_add(1, Ordering::SeqCst)
    }

    /// Bytes held now.
    pub fn held(&self) -> u64 {
        self.held.load(Ordering::Relaxed)
    }

    /// The bytes to release before `bytes` more fit (0: they fit now).
    pub fn excess_with(&self, bytes: u64) -> u64 {
        self.held().saturating_add(bytes).saturating_sub(self.limit)
    }

    /// A residency of `bytes` was made (`reimport`: where the budget had evicted it).
    pub fn made(&self, bytes: u64, reimport: bool) {
        let held = self
            .held
            .fetch_add(bytes, Ordering::Relaxed)
            .saturating_add(bytes);
        self.figures.peak.fetch_max(held, Ordering::Relaxed);
        if reimport {
            self.figures.reimports.fetch_add(1, Ordering::Relaxed);
            self.figures
                .reimported_bytes
                .fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// A residency of `bytes` went: the program evicted or freed it, or (`by_budget`) the
    /// budget evicted it.
    pub fn released(&self, bytes: u64, by_budget: bool) {
        // Every release matches a `made` of the same bytes (a residency leaves its map once).
        let before = self
            .held
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                Some(held.saturating_sub(bytes))
            })
            .unwrap_or_default();
        debug_assert!(before >= bytes, "released {bytes} of {before} held");
        if by_budget {
            self.figures.evictions.fetch_add(1, Ordering::Relaxed);
            self.figures
                .evicted_bytes
                .fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// A residency is made past the budget; whether it is the first time (said on stderr).
    pub fn passed(&self) -> bool {
        self.figures.passes.fetch_add(1, Ordering::Relaxed) == 0
    }

    /// The driver refused an eviction; whether it is the first time (said on stderr).
    pub fn refused(&self) -> bool {
        self.figures.refusals.fetch_add(1, Ordering::Relaxed) == 0
    }

    /// The exit report's sentence about the budget.
    pub fn report(&self) -> String {
        let figure = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        let figures = &self.figures;
        format!(
            "host budget {}: peak {} held, {} at exit; {} evicted ({}), {} re-imported ({}); \
             passed {} times; {} evictions refused by the driver",
            size_text(self.limit),
            size_text(figure(&figures.peak)),
            size_text(self.held()),
            figure(&figures.evictions),
            size_text(figure(&figures.evicted_bytes)),
            figure(&figures.reimports),
            size_text(figure(&figures.reimported_bytes)),
            figure(&figures.passes),
            figure(&figures.refusals),
        )
    }
}

/// `candidates` (each with the time of its last use), least recently used first.
pub fn oldest_first<T>(mut candidates: Vec<(u64, T)>) -> impl Iterator<Item = T> {
    candidates.sort_by_key(|(last_use, _)| *last_use);
    candidates.into_iter().map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_bytes_or_numbers_with_a_binary_unit() {
        let cases: &[(&str, u64)] = &[
            ("2147483648", 2 << 30),
            ("2GiB", 2 << 30),
            ("2 gib", 2 << 30),
            (" 512MiB ", 512 << 20),
            ("1.5GiB", 3 << 29),
            ("0.5 KiB", 512),
            (".25KiB", 256),
            ("3.KiB", 3 << 10),
            ("1TiB", 1 << 40),
            ("7B", 7),
            ("18446744073709551615", u64::MAX),
            (
                "1.0000000000000000000000000000000000000000000000TiB",
                1 << 40,
            ),
        ];
        for &(text, bytes) in cases {
            assert_eq!(parse_size(text), Ok(bytes), "{text}");
        }
    }

    #[test]
    fn bad_sizes_say_what_is_wrong() {
        use SizeError::*;
        let cases: &[(&str, SizeError)] = &[
            ("", Empty),
            ("   ", Empty),
            ("GiB", NotANumber("GiB".into())),
            ("1.2.3GiB", NotANumber("1.2.3".into())),
            (".", NotANumber(".".into())),
            ("-1GiB", NotANumber("-1GiB".into())),
            ("2GB", UnknownUnit("GB".into())),
            ("2 G", UnknownUnit("G".into())),
            ("2GiB of it", UnknownUnit("GiB of it".into())),
            ("1.5", FractionOfAByte),
            ("0.3KiB", FractionOfAByte),
            ("18446744073709551616", TooLarge),
            ("16777216TiB", TooLarge),
            ("99999999999999999999999999999999999999999999", TooLarge),
            ("0", Zero),
            ("0.0GiB", Zero),
        ];
        for (text, error) in cases {
            assert_eq!(parse_size(text).as_ref(), Err(error), "{text}");
        }
        assert!(Zero.to_string().contains("unset"));
    }

    #[test]
    fn the_budget_holds_what_was_made_and_not_released_and_remembers_its_peak() {
        let budget = Budget::new(100);
        assert_eq!(budget.excess_with(100), 0);
        budget.made(60, false);
        assert_eq!(budget.excess_with(50), 10);
        budget.made(30, true);
        budget.released(60, true);
        assert_eq!(budget.held(), 30);
        budget.released(30, false);
        assert_eq!(budget.held(), 0);
        let figure = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        assert_eq!(figure(&budget.figures.peak), 90);
        assert_eq!(figure(&budget.figures.evictions), 1);
        assert_eq!(figure(&budget.figures.reimported_bytes), 30);
        assert!(budget.passed() && !budget.passed());
        assert!(budget.report().contains("passed 2 times"));
    }

    #[test]
    fn sizes_read_in_gib_from_one_gib_up_else_in_mib() {
        assert_eq!(size_text(32 << 20), "32.00 MiB");
        assert_eq!(size_text(1 << 30), "1.00 GiB");
        assert_eq!(size_text(3 << 29), "1.50 GiB");
        assert_eq!(size_text(0), "0.00 MiB");
    }

    #[test]
    fn candidates_come_least_recently_used_first() {
        let order: Vec<char> = oldest_first(vec![(5, 'c'), (1, 'a'), (3, 'b')]).collect();
        assert_eq!(order, ['a', 'b', 'c']);
    }
}
