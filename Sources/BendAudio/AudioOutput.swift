// SPDX-License-Identifier: GPL-3.0-or-later

/// A real-time sink that owns its render thread: where `play` sends the mixer's periods —
/// an ALSA PCM, or (when none opens and a recording was asked for) a clock that paces
/// the render thread in real time. Both call the one period step, `RenderDriver.period`.
public protocol AudioOutput: AnyObject, Sendable {
    /// One line: device, rate, period, buffer, latency, format.
    var description: String { get }
    /// Output rate granted, frames per second.
    var rate: Int { get }
    /// Period granted, frames.
    var periodFrames: Int { get }
    /// Xruns recovered so far. - Thread: any.
    var xruns: Int { get }
    /// Why the render loop ended by itself (device gone), nil while it runs. - Thread: any.
    var failureDescription: String? { get }
    /// Why real-time scheduling was refused at `start`, to print once.
    var realtimeNote: String? { get }
    /// The render thread's load per period, once started (nil if not measured).
    /// Read after `stop()`. - Thread: setup.
    var loadMeter: RenderLoadMeter? { get }
    /// Starts the render thread: the sink calls `driver.period` for every period.
    /// - Thread: setup.
    func start(_ driver: RenderDriver) throws
    /// Stops and joins the render thread. - Thread: setup.
    func stop()
    /// Runs `handler` once when the output ends by itself (its server went away), so
    /// play can stop. Call before `start`. - Thread: setup.
    func whenEnded(_ handler: @escaping @Sendable () -> Void)

    // What a front end asks of an output (defaults below).

    /// True when no device keeps its time: the clock paces the render thread (into a
    /// recording, or the null PCM). It has no xruns to speak of.
    var isPaced: Bool { get }
    /// Lines for the end of play beside the time played and the xruns (JACK: its
    /// server's period changes). - Thread: setup, after `stop()`.
    var summaryLines: [String] { get }
    /// Registers MIDI ports of the output's own (`midi_in`, `midi_out`: a JACK client's)
    /// before it starts; nil when it has none to give.
    /// - Throws: when the ports cannot be made. - Thread: setup.
    func openMIDI(input: Bool, output: Bool) throws -> JACKMIDIRings?
}

extension AudioOutput {
    /// The ALSA and clock-paced outputs do not call it (a failed ALSA device is seen by
    /// `failureDescription` when play stops).
    public func whenEnded(_ handler: @escaping @Sendable () -> Void) {}
    public var isPaced: Bool { false }
    public var summaryLines: [String] { [] }
    public func openMIDI(input: Bool, output: Bool) throws -> JACKMIDIRings? { nil }
}

extension ALSAOutput: AudioOutput {
    public var rate: Int { granted.rate }
    public var periodFrames: Int { granted.periodFrames }
    public var failureDescription: String? { failure?.description }
    public func start(_ driver: RenderDriver) throws {
        try start(driver, frameLimit: nil)
    }
}
