import BendAudio
import BendEngine
import BendSystem

// STAND-IN for issue 25's instrument assembly (BendInstrument): until it lands, the
// plugin builds its instrument here, over BendAudio's `Instrument`, as `play` does
// (tone at the output rate, band-limited levels made on a thread of their own, the
// mixer with the app's defaults). When the assembly lands, this file is replaced by
// settings → assemble, and the plugin keeps only its LV2 front end.

/// The plugin's instrument: the tone, the `Instrument` (mixer + render driver) and the
/// thread making the tone's band-limited levels.
/// - Thread: setup (made in instantiate, freed in cleanup).
final class InstrumentStandIn {
    let tone: ToneTable
    let instrument: Instrument
    /// Makes the band-limited levels and installs them (`ToneTable.install`); voices read
    /// the tone cubic until then. Joined before the tone is freed.
    private var levelMaker: SystemThread?

    /// Voices that can sound at once (the app's default polyphony).
    static let voices = 64

    /// - Parameters:
    ///   - tonePath: the tone file, read and resampled to `rate` here (not real-time).
    ///   - rate: the host's sample rate, frames per second.
    ///   - maxBlock: the longest block the host will ask for, frames: the mixer's
    ///     period bound (a longer one is rendered in steps).
    /// - Throws: `ToneLoadError` naming the file and the reason.
    init(tonePath: String, rate: Double, maxBlock: Int, log: LV2Log) throws {
        let loaded = try ToneLoader.load(path: tonePath, outputRate: rate)
        tone = ToneTable(samples: loaded.samples, rate: rate)
        var configuration = MixerConfiguration(rate: rate, maxPeriodFrames: maxBlock, voices: InstrumentStandIn.voices)
        // The app's defaults (SoundOptions): band-limited, the limiter on, 0 dB.
        configuration.interpolation = .bandLimited
        configuration.limiter = true
        // Live: a stream clock stamps the web pad's touches (the host's MIDI comes with
        // its frames).
        instrument = Instrument(configuration: configuration, tone: tone, live: true)
        let (table, samples) = (tone, loaded.samples)
        levelMaker = try? SystemThread(name: "bendsynth tables") {
            do { table.install(try ToneLevelMaker.make(samples, path: tonePath)) } catch {
                log.warning("\(error); the voices read the tone with cubic interpolation")
            }
        }
    }

    /// Frees the instrument and the tone (after the levels' thread ended).
    func deallocate() {
        levelMaker?.join()
        levelMaker = nil
        instrument.deallocate()
        tone.deallocate()
    }
}
