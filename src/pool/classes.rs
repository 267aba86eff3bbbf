//! Size classes of the small-block path: 256-byte steps up to 2 KiB, then eight classes per
//! power of two, so a block wastes at most 12.5% (or 255 bytes) and every block is 256-byte
//! aligned.

/// Smallest block and alignment of every block.
pub(crate) const GRANULE: usize = 256;

/// The class of a request of `size` bytes (`size >= 1`).
pub(crate) fn class_index(size: usize) -> usize {
    if size <= 2048 {
        return size.div_ceil(GRANULE).max(1) - 1;
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
}
