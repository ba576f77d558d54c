// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem

/// Input devices as a source of `play` (`--evdev auto|PATH`): one `EvdevPollLoop` reads
/// every device into this source's one `ControlPort`. Named devices must open (or play
/// does not start); `auto` opens what is there; /dev/input is watched for devices that
/// appear (with `auto`, any it takes; otherwise a named device coming back), and play
/// goes on when one disappears (its touches end with the normal release; a device that
/// comes back starts with no touches).
public final class EvdevSource: InputSource, @unchecked Sendable {
    public let name = "input devices"
    public let endsPlay = false
    /// "auto" and/or /dev/input/eventN paths, in the order given.
    public let devices: [String]
    public let mapping: EvdevMapping
    /// Take the devices exclusively (EVIOCGRAB).
    public let grab: Bool
    private var loop: EvdevPollLoop?
    /// `remote --evdev --monitor`: every event also goes here (to the instrument).
    private let forward: (@Sendable (ControlEvent) -> Void)?
    /// Messages for the player (stderr): devices found, gone, refused.
    private let note: @Sendable (String) -> Void
    /// Inputs opened by the caller, read beside the devices (tests: a pipe of
    /// `struct input_event`s). Set before starting.
    public var extraReaders: [EvdevReader] = []

    public init(devices: [String], mapping: EvdevMapping, grab: Bool, forward: (@Sendable (ControlEvent) -> Void)? = nil,
                note: @escaping @Sendable (String) -> Void) {
        self.devices = devices
        self.mapping = mapping
        self.grab = grab
        self.forward = forward
        self.note = note
    }

    /// Opens the named devices and, for `auto`, every device `auto` takes.
    /// - Throws: `InputSourceError`: `.runtime` naming the device that does not open and
    ///   why (permission: join the `input` group); `.input` for a named device that is
    ///   no touch device or accelerometer.
    public func start(port: ControlPort, context: InputContext, finished: @escaping @Sendable () -> Void) throws {
        let forward = self.forward
        // Touch pressure as the touches' timbre, when the instrument follows it.
        try startLoop(pressure: port.takesTimbre) { events in
            for e in events {
                port.send(e)
                forward?(e)
            }
        }
    }

    /// Starts reading with every frame's events going to `onEvents` alone (`remote
    /// --evdev` without local sound: the events go to the instrument). Touch ids are
    /// ≥ 2²⁴, apart from the terminal pad's.
    /// - Thread: setup; `onEvents` is called on the evdev thread.
    /// - Throws: as `start`.
    public func startLoop(pressure: Bool = false, onEvents: @escaping @Sendable ([ControlEvent]) -> Void) throws {
        let note = self.note
        var mapping = self.mapping
        mapping.pressure = pressure
        let loop: EvdevPollLoop
        do {
            loop = try EvdevPollLoop(mapping: mapping, grab: grab, onFrame: { events, _, _ in onEvents(events) }, onNote: note)
        } catch {
            throw InputSourceError(.runtime, "cannot read input devices: \(error)")
        }
        for reader in extraReaders { loop.add(reader) }
        for path in devices where path != "auto" {
            let reader: EvdevReader
            do { reader = try EvdevReader(path: path, mapping: mapping, grab: grab) } catch {
                throw InputSourceError(.runtime, "\(error)")
            }
            if case .skipped(let why) = reader.decoder.kind {
                throw InputSourceError(.input, "input device '\(path)' (\"\(UntrustedText.escaped(reader.decoder.device.name))\") is no touch device or accelerometer: \(why)")
            }
            note("\(path): \"\(UntrustedText.escaped(reader.decoder.device.name))\" — \(reader.decoder.kind.summary)")
            loop.add(reader)
        }
        let auto = devices.contains("auto")
        let named = Set(devices.filter { $0 != "auto" })
        do {
            if !devices.isEmpty { try loop.watch(directory: EvdevDiscovery.directory, takeAll: auto, named: named) }
        } catch {
            // Named devices play on without hot-plug; `auto` needs the directory.
            if auto { throw InputSourceError(.runtime, "--evdev auto: cannot watch \(EvdevDiscovery.directory) for devices: \(error)") }
            note("note: cannot watch \(EvdevDiscovery.directory): \(error); an unplugged device will not be reopened")
        }
        if auto {
            for path in EvdevDiscovery.eventNodes() { loop.openIfTaken(path) }
            if loop.count == 0 { note("--evdev auto: no touch device or accelerometer yet; waiting for one to appear") }
        }
        do { try loop.start() } catch {
            throw InputSourceError(.runtime, "cannot read input devices: \(error)")
        }
        self.loop = loop
    }

    /// Stops reading and waits for the loop's thread. - Thread: setup.
    public func stop() {
        loop?.stop()
        loop = nil
    }
}
