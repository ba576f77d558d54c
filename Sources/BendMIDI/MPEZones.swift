// SPDX-License-Identifier: GPL-3.0-or-later
/// The MPE zones a receiver knows from MPE Configuration Messages (RPN 6 on channel 1,
/// the lower zone's master, or channel 16, the upper zone's).
///
/// Channels are 0…15 here (MIDI channel 1 = 0). The lower zone's master is channel 0
/// and its members are 1…`lowerMembers`; the upper zone's master is 15 and its members
/// are `15 − upperMembers`…14. A zone with 0 members is off. Zones never overlap: an
/// MCM that makes one zone reach into the other shrinks the other (MPE 1.0, 2.2).
public struct MPEZones: Sendable, Equatable {
    /// Member channels of the lower zone, 0…15 (0: no lower zone).
    public private(set) var lowerMembers = 0
    /// Member channels of the upper zone, 0…15 (0: no upper zone).
    public private(set) var upperMembers = 0

    @_noLocks
    public init(lowerMembers: Int = 0, upperMembers: Int = 0) {
        configure(master: 0, members: lowerMembers)
        configure(master: 15, members: upperMembers)
    }

    /// True when no zone is configured (plain MIDI: every channel on its own).
    public var isOff: Bool { @_noLocks get { lowerMembers == 0 && upperMembers == 0 } }

    /// Applies an MCM received on `master` (0 or 15; other channels are ignored) with
    /// `members` member channels (clamped to 0…15).
    @_noLocks
    public mutating func configure(master: Int, members: Int) {
        let n = min(max(members, 0), 15)
        if master == 0 {
            lowerMembers = n
            if n > 0, upperMembers > 0, n + upperMembers > 14 { upperMembers = max(0, 14 - n) }
        } else if master == 15 {
            upperMembers = n
            if n > 0, lowerMembers > 0, n + lowerMembers > 14 { lowerMembers = max(0, 14 - n) }
        }
    }

    /// The master channel of the zone `channel` belongs to (as master or member), nil
    /// when it is in no zone.
    @_noLocks
    public func master(of channel: Int) -> Int? {
        if lowerMembers > 0 && channel >= 0 && channel <= lowerMembers { return 0 }
        if upperMembers > 0 && channel <= 15 && channel >= 15 - upperMembers { return 15 }
        return nil
    }

    /// True when `channel` is a member channel (not the master) of a zone.
    @_noLocks
    public func isMember(_ channel: Int) -> Bool {
        guard let m = master(of: channel) else { return false }
        return m != channel
    }
}
