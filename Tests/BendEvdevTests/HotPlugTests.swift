// SPDX-License-Identifier: GPL-3.0-or-later
import BendEvdev
import Foundation
import XCTest

/// The `auto` watch: a node appearing in the watched directory is tried at once; one
/// that is no evdev device is reported by name and reason, once.
final class HotPlugTests: XCTestCase {
    func testNewNodeInTheWatchedDirectoryIsTriedAndItsFailureNamed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bendsynth-input-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let notes = NotesBox()
        let loop = try EvdevPollLoop(mapping: EvdevMapping(), grab: false, onFrame: { _, _, _ in }, onNote: { notes.add($0) })
        try loop.watch(directory: dir)
        try loop.start()
        for name in ["mouse0", "event7"] { close(open(dir + "/" + name, O_CREAT | O_WRONLY, 0o644)) }
        let deadline = Date().addingTimeInterval(5)
        while notes.all.isEmpty && Date() < deadline { usleep(1_000) }
        usleep(50_000)  // a chmod (IN_ATTRIB) must not repeat the note
        chmod(dir + "/event7", 0o600)
        usleep(50_000)
        loop.stop()  // joins
        XCTAssertEqual(notes.all, ["cannot use input device '\(dir)/event7': libevdev_new_from_fd: Inappropriate ioctl for device; not an evdev input node (expected /dev/input/eventN)"])
        XCTAssertEqual(loop.count, 0)
    }

    func testOpenErrorsNameTheDeviceAndWhatToDo() {
        XCTAssertEqual(EvdevOpenError(path: "/dev/input/event3", call: "open", code: EACCES).description,
                       "cannot use input device '/dev/input/event3': open: Permission denied; add the user to the 'input' group (sudo usermod -aG input $USER, then log in again) or run with access to the node")
        XCTAssertThrowsError(try EvdevReader(path: "/nonexistent/event9", mapping: EvdevMapping())) { e in
            XCTAssertEqual("\(e)", "cannot use input device '/nonexistent/event9': open: No such file or directory; see 'bendsynth devices' for the input devices present")
        }
    }
}

final class NotesBox: @unchecked Sendable {
    private let lock = NSLock()
    private var notes: [String] = []
    func add(_ n: String) { lock.lock(); notes.append(n); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return notes }
}

final class DeviceListingTests: XCTestCase {
    func testListingNamesEachNodeAndWhyItCannotBeUsed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bendsynth-list-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        XCTAssertEqual(EvdevDiscovery.report(in: dir), "Input devices (\(dir), for play --evdev):\n  none: no \(dir)/event* nodes (no input devices, or not visible here)")
        for name in ["event10", "event2", "js0"] { close(open(dir + "/" + name, O_CREAT | O_WRONLY, 0o644)) }
        XCTAssertEqual(EvdevDiscovery.eventNodes(in: dir), [dir + "/event2", dir + "/event10"])
        XCTAssertTrue(EvdevDiscovery.report(in: dir).hasSuffix("\n  \(dir)/event10: cannot use input device '\(dir)/event10': libevdev_new_from_fd: Inappropriate ioctl for device; not an evdev input node (expected /dev/input/eventN)"))
    }

    func testAxesTextGivesRangesResolutionAndSlots() throws {
        XCTAssertEqual(EvdevDiscovery.axesText(try Recordings.load("RW-03").device), "x 0…32767 (55 units/mm), y 0…32767 (98 units/mm), 5 slots")
        XCTAssertEqual(EvdevDiscovery.axesText(try Recordings.load("RW-14").device), "x 30…4040 (no resolution), y 60…4035 (no resolution)")
        XCTAssertEqual(EvdevDiscovery.axesText(try Recordings.fixture("accelerometer.evemu").device), "x -512…512 (256 units/g), y -512…512 (256 units/g), z -512…512 (256 units/g)")
    }
}
