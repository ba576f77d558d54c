/// What the voices of a mixer play: one region (a tone file) or many (an SFZ
/// instrument's), each placed by pitch and touch gain (`RegionPlacement`). A touch starts
/// on the region its ratio and gain select (`select`); a voice bending past its region's
/// pitch range crosses to the neighbour that holds its pitch (`ZoneCrossfade.swift`).
///
/// Made off the render thread; given to a mixer at its start or later (`Mixer.replace`),
/// shared read-only by the voices that play it except the round robin's turns (owner:
/// render). A plain struct of pointers: copies share the same regions.
public struct Sound: @unchecked Sendable, BitwiseCopyable {
    /// Regions (≥ 1).
    public let count: Int
    /// The regions, in the order the loader gives them (the first that may play a touch
    /// plays it).
    let regions: UnsafeMutablePointer<SoundRegion>
    /// Region i's held table at 2i and its release table (its held table again when it has
    /// none) at 2i + 1, where the voices point (`VoiceBank.table`: a released voice moves
    /// one table on).
    let tables: UnsafeMutablePointer<ToneTable>
    /// Times each region could have started a touch (the round robin's count). Owner: render.
    let turns: UnsafeMutablePointer<UInt32>

    /// - Parameter regions: at least one. - Thread: setup.
    public init(regions list: [SoundRegion]) {
        precondition(!list.isEmpty, "a sound has at least one region")
        count = list.count
        regions = .allocate(capacity: count)
        regions.initialize(from: list, count: count)
        tables = .allocate(capacity: 2 * count)
        for (i, region) in list.enumerated() {
            (tables + 2 * i).initialize(to: region.held)
            (tables + 2 * i + 1).initialize(to: region.release ?? region.held)
        }
        turns = .allocate(capacity: count)
        turns.initialize(repeating: 0, count: count)
    }

    /// One region that plays everywhere (a tone file). - Thread: setup.
    public init(region: SoundRegion) { self.init(regions: [region]) }

    /// Whether `other` is this sound (a copy of it: the same regions). - Thread: any.
    public func isSame(as other: Sound) -> Bool { regions == other.regions }

    /// Region `i`. - Thread: any.
    public subscript(i: Int) -> SoundRegion { regions[i] }

    /// The regions. - Thread: any.
    public var regionList: [SoundRegion] { (0..<count).map { regions[$0] } }

    /// Memory of the tables, bytes (samples, rows, band-limited levels).
    public var bytes: Int {
        regionList.reduce(0) { $0 + $1.held.baseBytes + $1.held.levelBytes + ($1.release.map { $0.baseBytes + $0.levelBytes } ?? 0) }
    }

    /// Frees the sound's own arrays, not the regions' tables. - Thread: not render; once no
    /// mixer holds it (`Mixer.takeRetired`, or after the mixer stopped).
    public func deallocate() {
        regions.deinitialize(count: count)
        regions.deallocate()
        tables.deinitialize(count: 2 * count)
        tables.deallocate()
        turns.deallocate()
    }

    /// Frees the regions' tables and then the sound (`deallocate`).
    public func deallocateWithTables() {
        for region in regionList {
            region.held.deallocate()
            region.release?.deallocate()
        }
        deallocate()
    }

    /// The region a touch of pitch `ratio` and linear `gain` starts on, or −1 when none
    /// holds it (a key or velocity the instrument does not play: no voice). Every region
    /// that holds it counts a turn; of those, the first whose round robin turn it is plays.
    /// - Thread: render.
    @_noLocks
    func select(ratio: Float, gain: Float) -> Int {
        if count == 1 {
            let p = regions[0].placement
            if !p.holds(ratio: ratio, gain: gain) { return -1 }
            let turn = turns[0]
            turns[0] = turn &+ 1
            return turn % p.sequenceLength == p.sequencePosition ? 0 : -1
        }
        var chosen = -1
        var i = 0
        while i < count {
            let p = regions[i].placement
            if p.holds(ratio: ratio, gain: gain) {
                let turn = turns[i]
                turns[i] = turn &+ 1
                if chosen < 0 && turn % p.sequenceLength == p.sequencePosition { chosen = i }
            }
            i += 1
        }
        return chosen
    }

    /// The region a voice on region `from` crosses to at `ratio`: `from` while it keeps
    /// it; else along its neighbours that way (`RegionPlacement.below`, `above`) to the one
    /// whose range holds it — or the last before a gap in the keys (no region holds it)
    /// or the end of the keys: the voice stays there. - Thread: render.
    @_noLocks
    func zone(from: Int, ratio: Float) -> Int {
        var z = from
        let start = regions[z].placement
        if start.keeps(ratio: ratio) { return z }
        let up = ratio >= start.stayHigh
        var steps = 0
        while steps < count {
            let p = regions[z].placement
            let next = Int(up ? p.above : p.below)
            if next < 0 { return z }
            let q = regions[next].placement
            if up ? ratio < q.ratioLow : ratio >= q.ratioHigh { return z }  // a gap before the next zone
            z = next
            if ratio >= q.ratioLow && ratio < q.ratioHigh { return z }
            steps += 1
        }
        return z
    }
}
