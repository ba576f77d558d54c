// SPDX-License-Identifier: GPL-3.0-or-later
import CLV2
import Glibc

/// What the host passed to `instantiate` (its `LV2_Feature` list, lv2.h): the URID map
/// (required, urid.h), the log (log.h), the worker's schedule (worker.h) and the options
/// (options.h) with the buffer sizes the host promises (buf-size.h).
/// - Thread: setup (instantiate); the pointers stay valid for the instance's life.
struct LV2Host {
    let map: UnsafeMutablePointer<LV2_URID_Map>
    let log: UnsafeMutablePointer<LV2_Log_Log>?
    let schedule: UnsafeMutablePointer<LV2_Worker_Schedule>?
    /// state:makePath (state.h: a path in the plugin's own folder of the host's), or nil.
    let makePath: UnsafeMutablePointer<LV2_State_Make_Path>?
    let freePath: UnsafeMutablePointer<LV2_State_Free_Path>?
    /// `bufsz:maxBlockLength` (frames), when the host gave it in its options.
    let maxBlockLength: Int?

    /// Reads the feature list; nil without `urid:map` (the one required feature).
    init?(_ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?) {
        var map: UnsafeMutablePointer<LV2_URID_Map>?
        var log: UnsafeMutablePointer<LV2_Log_Log>?
        var schedule: UnsafeMutablePointer<LV2_Worker_Schedule>?
        var options: UnsafeMutablePointer<LV2_Options_Option>?
        var makePath: UnsafeMutablePointer<LV2_State_Make_Path>?
        var freePath: UnsafeMutablePointer<LV2_State_Free_Path>?
        var i = 0
        while let features, let f = features[i] {
            let uri = String(cString: f.pointee.URI)
            switch uri {
            case LV2URI.uridMap: map = f.pointee.data?.assumingMemoryBound(to: LV2_URID_Map.self)
            case LV2URI.log: log = f.pointee.data?.assumingMemoryBound(to: LV2_Log_Log.self)
            case LV2URI.workerSchedule: schedule = f.pointee.data?.assumingMemoryBound(to: LV2_Worker_Schedule.self)
            case LV2URI.options: options = f.pointee.data?.assumingMemoryBound(to: LV2_Options_Option.self)
            case LV2URI.stateMakePath: makePath = f.pointee.data?.assumingMemoryBound(to: LV2_State_Make_Path.self)
            case LV2URI.stateFreePath: freePath = f.pointee.data?.assumingMemoryBound(to: LV2_State_Free_Path.self)
            default: break
            }
            i += 1
        }
        guard let map else { return nil }
        self.map = map
        self.log = log
        self.schedule = schedule
        self.makePath = makePath
        self.freePath = freePath
        var maxBlock: Int?
        // The options array ends with an option whose key is 0 (options.h).
        if let options {
            let maxKey = LV2Host.urid(map, LV2URI.maxBlockLength), intType = LV2Host.urid(map, LV2URI.atomInt)
            var o = options
            while o.pointee.key != 0 {
                if o.pointee.key == maxKey, o.pointee.type == intType, let v = o.pointee.value {
                    maxBlock = Int(v.assumingMemoryBound(to: Int32.self).pointee)
                }
                o += 1
            }
        }
        maxBlockLength = maxBlock
    }

    /// A file `name` in the plugin's folder of the host's (state:makePath; the host makes
    /// the folder), or nil without the feature.
    func path(for name: String) -> String? {
        guard let makePath, let p = makePath.pointee.path(makePath.pointee.handle, name) else { return nil }
        defer { if let freePath { freePath.pointee.free_path(freePath.pointee.handle, p) } else { free(p) } }
        return String(cString: p)
    }

    /// The URID of `uri` (urid.h: the same URI always maps to the same id).
    func urid(_ uri: String) -> LV2_URID { LV2Host.urid(map, uri) }

    static func urid(_ map: UnsafeMutablePointer<LV2_URID_Map>, _ uri: String) -> LV2_URID {
        map.pointee.map(map.pointee.handle, uri)
    }
}

/// The URIs the plugin uses, spelled out (the headers' URI macros are concatenated
/// string literals, which Swift does not import).
enum LV2URI {
    static let uridMap = "http://lv2plug.in/ns/ext/urid#map"
    static let log = "http://lv2plug.in/ns/ext/log#log"
    static let logError = "http://lv2plug.in/ns/ext/log#Error"
    static let logWarning = "http://lv2plug.in/ns/ext/log#Warning"
    static let logNote = "http://lv2plug.in/ns/ext/log#Note"
    static let workerSchedule = "http://lv2plug.in/ns/ext/worker#schedule"
    static let workerInterface = "http://lv2plug.in/ns/ext/worker#interface"
    static let stateInterface = "http://lv2plug.in/ns/ext/state#interface"
    static let stateMapPath = "http://lv2plug.in/ns/ext/state#mapPath"
    static let stateMakePath = "http://lv2plug.in/ns/ext/state#makePath"
    static let stateFreePath = "http://lv2plug.in/ns/ext/state#freePath"
    static let options = "http://lv2plug.in/ns/ext/options#options"
    static let maxBlockLength = "http://lv2plug.in/ns/ext/buf-size#maxBlockLength"
    static let atomInt = "http://lv2plug.in/ns/ext/atom#Int"
    static let atomFloat = "http://lv2plug.in/ns/ext/atom#Float"
    static let atomLong = "http://lv2plug.in/ns/ext/atom#Long"
    static let atomDouble = "http://lv2plug.in/ns/ext/atom#Double"
    static let atomBool = "http://lv2plug.in/ns/ext/atom#Bool"
    static let atomPath = "http://lv2plug.in/ns/ext/atom#Path"
    static let atomURID = "http://lv2plug.in/ns/ext/atom#URID"
    static let atomObject = "http://lv2plug.in/ns/ext/atom#Object"
    static let atomBlank = "http://lv2plug.in/ns/ext/atom#Blank"
    static let atomSequence = "http://lv2plug.in/ns/ext/atom#Sequence"
    static let atomChunk = "http://lv2plug.in/ns/ext/atom#Chunk"
    static let midiEvent = "http://lv2plug.in/ns/ext/midi#MidiEvent"
    static let patchSet = "http://lv2plug.in/ns/ext/patch#Set"
    static let patchGet = "http://lv2plug.in/ns/ext/patch#Get"
    static let patchProperty = "http://lv2plug.in/ns/ext/patch#property"
    static let patchValue = "http://lv2plug.in/ns/ext/patch#value"
    /// time.h: the host's transport (a time:Position object on the control input).
    static let timePosition = "http://lv2plug.in/ns/ext/time#Position"
    static let timeBar = "http://lv2plug.in/ns/ext/time#bar"
    static let timeBarBeat = "http://lv2plug.in/ns/ext/time#barBeat"
    static let timeBeatsPerBar = "http://lv2plug.in/ns/ext/time#beatsPerBar"
    static let timeBeatUnit = "http://lv2plug.in/ns/ext/time#beatUnit"
    static let timeBeatsPerMinute = "http://lv2plug.in/ns/ext/time#beatsPerMinute"
    static let timeSpeed = "http://lv2plug.in/ns/ext/time#speed"
    /// The plugin's own parameters (patch:writable in bendsynth.ttl).
    static let toneParameter = "urn:bendsynth:lv2:tone"
    static let scaleParameter = "urn:bendsynth:lv2:scale"
    /// State key beside the tone: the tone note it was loaded at (an SFZ's ratio 1).
    static let toneToneNote = "urn:bendsynth:lv2:tone#toneNote"
    /// State keys beside the scale: the tone note and scale root (Hz) its keys were made for.
    static let scaleToneNote = "urn:bendsynth:lv2:scale#toneNote"
    static let scaleRootHz = "urn:bendsynth:lv2:scale#root"
    /// State key: the port the web pad was served on (atom:Int), asked for again at restore.
    static let webPort = "urn:bendsynth:lv2:webPort"
}
