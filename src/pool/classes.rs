//! Size classes of the small-block path: 256-byte steps up to 2 KiB, then eight classes per
//! power of two, so a block wastes at most 12.5% (or 255 bytes) and every block is 256-byte
//! aligned.

/// Smallest block and alignment of every block.
pub(crate) const GRANULE: usize = 256;

/// Requests of up to this many bytes find their class in [`CLASS_OF_GRANULES`].
const TABLE_MAX: usize = 1 << 20;

/// The class of every request up to [`TABLE_MAX`] bytes, by its size in granules rounded up
/// (less one): one load on the hit path, where [`computed_class_index`] is a dozen
/// instructions. Exact because every class boundary is a multiple of the granule, so a size
/// and its round-up to a granule share their class.
static CLASS_OF_GRANULES: [u8; TABLE_MAX / GRANULE] = class_table();

const fn class_table() -> [u8; TABLE_MAX / GRANULE] {
    let mut table = [0u8; TABLE_MAX / GRANULE];
    let mut index = 0;
    while index < table.len() {
        let class = computed_class_index((index + 1) * GRANULE);
        assert!(class <= u8::MAX as usize, "classes fit a byte");
        table[index] = class as u8;
        index += 1;
    }
    table
}

/// The class of a request of `size` bytes (`size >= 1`).
#[inline]
pub(crate) fn class_index(size: usize) -> usize {
    match CLASS_OF_GRANULES.get(size.wrapping_sub(1) / GRANULE) {
        Some(&class) if size != 0 => class as usize,
        _ => computed_class_index(size),
    }
}

/// [`class_index`] worked out: 256-byte steps up to 2 KiB, then eight per power of two.
const fn computed_class_index(size: usize) -> usize {
    if size <= 2048 {
        let granules = size.div_ceil(GRANULE);
        return if granules == 0 { 0 } else { granules - 1 };
    }
    let power = (size - 1).ilog2() as usize; // 2^power < size <= 2^(power + 1)
    let step = 1usize << (power - 3);
    let sub = (size - (1 << power)).div_ceil(step); // 1..=8
    8 + (power - 11) * 8 + (sub - 1)
}

/// The block size of class `index`.
pub(crate) fn class_size(index: usize) -> usize {
    if index < 8 {
        return (index + 1) * GRANULE;
    }
    let power = 11 + (index - 8) / 8;
    let sub = (index - 8) % 8 + 1;
    (1 << power) + sub * (1 << (power - 3))
}

/// How many classes cover requests up to `max` bytes.
pub(crate) fn class_count(max: usize) -> usize {
    class_index(max) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_size_fits_its_class_with_bounded_waste() {
        for size in (1..70_000).chain([1 << 20, (1 << 20) - 1, (1 << 19) + 1]) {
            let index = class_index(size);
            let block = class_size(index);
            assert!(block >= size, "{size} -> class {index} of {block}");
            assert!(block.is_multiple_of(GRANULE));
            assert!(
                block - size < GRANULE || (block - size) * 8 <= size,
                "{size} wastes {} in a {block}-byte block",
                block - size
            );
            if index > 0 {
                assert!(
                    class_size(index - 1) < size,
                    "{size} would fit class {}",
                    index - 1
                );
            }
        }
        assert_eq!(class_size(class_index(1 << 20)), 1 << 20);
        assert_eq!(class_count(1 << 20), 80);
    }

    /// The table answers as the computation for every size it covers, and past it the
    /// computation answers.
    #[test]
    fn the_class_table_agrees_with_the_computation() {
        for size in 1..=TABLE_MAX + 4096 {
            assert_eq!(class_index(size), computed_class_index(size), "{size}");
        }
        assert_eq!(
            class_index((64 << 20) - 1),
            computed_class_index((64 << 20) - 1)
        );
    }
}
