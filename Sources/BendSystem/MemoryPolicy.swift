import CSystem

/// How the process's heap gives memory back, set once at start by a front end.
public enum MemoryPolicy {
    /// Blocks of 1 MiB and more (a long tone's band-limited tables, made and freed level by
    /// level) are mapped and given back to the system when freed. glibc otherwise raises
    /// its mmap threshold to the largest block freed and keeps later blocks in its heap,
    /// where a 20 s tone's peak came to 2.15× its tables instead of 1.77× (LongToneTests).
    /// - Thread: the main thread, before any other starts.
    public static func returnLargeBlocks() {
        _ = bend_map_blocks_from(1 << 20)
    }
}
