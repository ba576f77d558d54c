import BendControl
import BendEvdev
import Foundation
import Glibc

/// Input devices as a source of `play` (`--evdev auto|PATH`): one thread reads every
/// device through `EvdevPollLoop` into this source's one `ControlPort`. Named devices
/// must open (or play does not start); `auto` opens what is there; /dev/input is
/// watched for devices that appear (with `auto`, any it takes; otherwise a named device
/// coming back), and play goes on when one disappears (its touches end with the normal
/// release; a device that comes back starts with no touches).
final class EvdevSource: PlaySource, @unchecked Sendable {
    let name = "input devices"
    let endsPlay = false
    private let options: EvdevOptions
    private var loop: EvdevPollLoop?
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    /// `remote --evdev --monitor`: every event also goes here (to the instrument).
    private let forward: (@Sendable (ControlEvent) -> Void)?
    /// Inputs opened by the caller, read beside the devices (tests: a pipe of
    /// `struct input_event`s). Set before starting.
    var extraReaders: [EvdevReader] = []

    init(options: EvdevOptions, forward: (@Sendable (ControlEvent) -> Void)? = nil) {
        self.options = options
        self.forward = forward
    }

    /// Opens the named devices and, for `auto`, every device `auto` takes.
    /// - Throws: `AppError.runtime` naming the device that does not open and why
    ///   (permission: join the `input` group); `AppError.input` for a named device
    ///   that is no touch device or accelerometer.
    func start(port: ControlPort, context: PlayContext, finished: @escaping @Sendable () -> Void) throws {
        let forward = self.forward
        try startLoop { events in
            for e in events {
                port.send(e)
                forward?(e)
            }
        }
    }

    /// Starts reading with every frame's events going to `onEvents` alone (`remote
    /// --evdev` without local sound: the events go to the instrument). Touch ids are
    /// tagged per input (≥ 2²⁴), apart from the terminal pad's.
    /// - Thread: setup; `onEvents` is called on the evdev thread.
    /// - Throws: as `start`.
    func startLoop(onEvents: @escaping @Sendable ([ControlEvent]) -> Void) throws {
        let loop = try EvdevPollLoop(mapping: options.mapping, grab: options.grab, onFrame: { events, _, _ in
            onEvents(events)
        }, onNote: { printErr("bendsynth: \($0)") })
        for reader in extraReaders { loop.add(reader) }
        for path in options.devices where path != "auto" {
            let reader: EvdevReader
            do { reader = try EvdevReader(path: path, mapping: options.mapping, grab: options.grab) } catch {
                throw AppError.runtime("\(error)")
            }
            if case .skipped(let why) = reader.decoder.kind {
                throw AppError.input("input device '\(path)' (\"\(reader.decoder.device.name)\") is no touch device or accelerometer: \(why)")
            }
            printErr("bendsynth: \(path): \"\(reader.decoder.device.name)\" — \(reader.decoder.kind.summary)")
            loop.add(reader)
        }
        let auto = options.devices.contains("auto")
        let named = Set(options.devices.filter { $0 != "auto" })
        do {
            if !options.devices.isEmpty { try loop.watch(directory: EvdevDiscovery.directory, takeAll: auto, named: named) }
        } catch {
            // Named devices play on without hot-plug; `auto` needs the directory.
            if auto { throw AppError.runtime("--evdev auto: cannot watch \(EvdevDiscovery.directory) for devices: \(error)") }
            printErr("bendsynth: note: cannot watch \(EvdevDiscovery.directory): \(error); an unplugged device will not be reopened")
        }
        if auto {
            for path in EvdevDiscovery.eventNodes() { loop.openIfTaken(path) }
            if loop.count == 0 { printErr("bendsynth: --evdev auto: no touch device or accelerometer yet; waiting for one to appear") }
        }
        self.loop = loop
        let t = Thread { [done] in
            loop.run()
            done.signal()
        }
        t.name = "bendsynth evdev"
        thread = t
        t.start()
    }

    func stop() {
        guard let loop, thread != nil else { return }
        loop.stop()
        done.wait()
        thread = nil
    }
}
