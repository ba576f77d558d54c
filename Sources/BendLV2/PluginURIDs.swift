// SPDX-License-Identifier: GPL-3.0-or-later
import CLV2

/// The URIDs the render thread compares atoms with, mapped once at instantiate (urid.h:
/// mapping may lock or allocate, so never on the audio thread).
struct PluginURIDs {
    let midiEvent: LV2_URID
    let atomSequence: LV2_URID
    let atomObject: LV2_URID
    let atomBlank: LV2_URID
    let atomPath: LV2_URID
    let atomURID: LV2_URID
    let patchSet: LV2_URID
    let patchGet: LV2_URID
    let patchProperty: LV2_URID
    let patchValue: LV2_URID
    /// The plugin's file parameters (patch:writable).
    let tone: LV2_URID
    let scale: LV2_URID
    /// Number atoms a time:Position's values come as, and its keys (`TimePosition`).
    let atomInt, atomLong, atomFloat, atomDouble: LV2_URID
    let timePosition, timeBar, timeBarBeat, timeBeatsPerBar, timeBeatUnit, timeBeatsPerMinute, timeSpeed: LV2_URID

    /// - Thread: setup.
    init(_ host: LV2Host) {
        midiEvent = host.urid(LV2URI.midiEvent)
        atomSequence = host.urid(LV2URI.atomSequence)
        atomObject = host.urid(LV2URI.atomObject)
        atomBlank = host.urid(LV2URI.atomBlank)
        atomPath = host.urid(LV2URI.atomPath)
        atomURID = host.urid(LV2URI.atomURID)
        patchSet = host.urid(LV2URI.patchSet)
        patchGet = host.urid(LV2URI.patchGet)
        patchProperty = host.urid(LV2URI.patchProperty)
        patchValue = host.urid(LV2URI.patchValue)
        tone = host.urid(LV2URI.toneParameter)
        scale = host.urid(LV2URI.scaleParameter)
        atomInt = host.urid(LV2URI.atomInt)
        atomLong = host.urid(LV2URI.atomLong)
        atomFloat = host.urid(LV2URI.atomFloat)
        atomDouble = host.urid(LV2URI.atomDouble)
        timePosition = host.urid(LV2URI.timePosition)
        timeBar = host.urid(LV2URI.timeBar)
        timeBarBeat = host.urid(LV2URI.timeBarBeat)
        timeBeatsPerBar = host.urid(LV2URI.timeBeatsPerBar)
        timeBeatUnit = host.urid(LV2URI.timeBeatUnit)
        timeBeatsPerMinute = host.urid(LV2URI.timeBeatsPerMinute)
        timeSpeed = host.urid(LV2URI.timeSpeed)
    }
}
