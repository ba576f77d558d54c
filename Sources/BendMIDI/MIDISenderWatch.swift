// SPDX-License-Identifier: GPL-3.0-or-later

/// Who sends to a MIDI input port, and when the last of them went: then the notes they
/// started end (`MIDIInputFeed.senders`), so a keyboard unplugged or a sequencer killed
/// while a note is held leaves nothing sounding. A port merges every sender's stream
/// into one interpreter, so a note cannot be told apart by sender: the notes end when
/// no sender is left.
///
/// The one decision for every MIDI input: JACK's `midi_in` tells it the count of its
/// connections after each port-connect callback (`.connections`); the ALSA sequencer
/// port tells it the subscriptions made and removed and the clients and ports the
/// system announce port says have gone (`.subscribed`, `.unsubscribed`, `.clientExited`,
/// `.portExited`: `ALSASeqMIDISource`). A pure value: tested with synthetic events.
public struct MIDISenderWatch: Sendable, Equatable {
    /// A sender: its sequencer client and port (JACK: unused).
    public struct Sender: Hashable, Sendable {
        public var client: Int
        public var port: Int
        public init(client: Int, port: Int) { self.client = client; self.port = port }
    }

    /// What the port's side says happened.
    public enum Event: Sendable, Equatable {
        /// The port has `count` connections now (JACK's `jack_port_connected`).
        case connections(Int)
        /// `sender` subscribed to the port, or its subscription went.
        case subscribed(Sender)
        case unsubscribed(Sender)
        /// A client or one port of it went (the system announce port).
        case clientExited(client: Int)
        case portExited(Sender)
    }

    /// An ALSA sequencer announcement, as the source reads it from an event on its port:
    /// a subscription made or removed (`connect`'s sender and dest), a client or a port
    /// gone (`addr`).
    public enum Announcement: Sendable, Equatable {
        case portSubscribed(sender: Sender, dest: Sender)
        case portUnsubscribed(sender: Sender, dest: Sender)
        case clientExit(Sender)
        case portExit(Sender)
    }

    /// The system announce port (0:1), whose own subscription to our port is no sender.
    public static let systemAnnounce = Sender(client: 0, port: 1)

    /// What an announcement means for the port `ours`: a sender subscribed to it or gone
    /// from it, a client or port gone; nil for a subscription between other ports (or the
    /// announce port's own).
    public static func event(of a: Announcement, ours: Sender) -> Event? {
        switch a {
        case let .portSubscribed(sender, dest):
            return dest == ours && sender != systemAnnounce ? .subscribed(sender) : nil
        case let .portUnsubscribed(sender, dest):
            return dest == ours && sender != systemAnnounce ? .unsubscribed(sender) : nil
        case let .clientExit(a): return .clientExited(client: a.client)
        case let .portExit(a): return .portExited(a)
        }
    }

    /// The senders known (ALSA), and JACK's count of connections.
    public private(set) var senders: Set<Sender> = []
    public private(set) var connections = 0

    public init() {}

    /// True when someone sends (or may: a JACK connection).
    public var connected: Bool { !senders.isEmpty || connections > 0 }

    /// Applies `event`. - Returns: true when it took away the last sender (the notes
    /// end); false when someone is still connected, or none was.
    public mutating func apply(_ event: Event) -> Bool {
        let before = connected
        switch event {
        case let .connections(n): connections = max(n, 0)
        case let .subscribed(s): senders.insert(s)
        case let .unsubscribed(s), let .portExited(s): senders.remove(s)
        case let .clientExited(client): senders = senders.filter { $0.client != client }
        }
        return before && !connected
    }
}
