// SPDX-License-Identifier: GPL-3.0-or-later
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

    /// The longest a released voice of this sound may go on, frames: a region's own
    /// release (`ampeg_release`), or a tail that plays whole after a sustain loop (0 when
    /// every region takes the mixer's release). - Thread: any.
    public var longestReleaseFrames: Int {
        regionList.reduce(0) { longest, r in
            let envelope = r.placement.envelope.map { Int((1 / -Double($0.releaseStep)).rounded(.up)) } ?? 0
            let tail = r.sustainLoop && !r.releaseFades ? (r.releaseEnd ?? 0) : 0
            return max(longest, envelope, tail)
        }
    }

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

    /// The region a voice on region `from`, started at touch gain `velocity`, crosses to
    /// at `ratio`: `from` while it keeps it; else a region whose pitch and gain ranges hold
    /// the ratio and the velocity — of the same round robin turn first — whatever its
    /// neighbours (zones split into other velocity layers, or round robins, are crossed
    /// into too); `from` again when no region holds them (a gap in the keys, past the last).
    /// - Thread: render.
    @_noLocks
    func zone(from: Int, ratio: Float, velocity: Float) -> Int {
        let start = regions[from].placement
        if start.keeps(ratio: ratio) { return from }
        var other = -1
        var i = 0
        while i < count {
            let p = regions[i].placement
            if i != from && p.holds(ratio: ratio, gain: velocity) {
                if p.sequenceLength == start.sequenceLength && p.sequencePosition == start.sequencePosition { return i }
                if other < 0 { other = i }
            }
            i += 1
        }
        return other >= 0 ? other : from
    }
}
