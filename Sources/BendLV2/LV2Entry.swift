// SPDX-License-Identifier: GPL-3.0-or-later
import CLV2

/// The shared object's one exported symbol (LV2 core, lv2.h: "lv2_descriptor ... is the
/// only symbol a plugin library must export"): the host asks for descriptor 0, 1, … until
/// it gets NULL. The bundle holds one plugin, bendsynth.
/// - Thread: any (the host's discovery; may be called more than once).
@_cdecl("lv2_descriptor")
public func lv2Descriptor(_ index: UInt32) -> UnsafePointer<LV2_Descriptor>? {
    index == 0 ? UnsafePointer(LV2Entry.descriptor) : nil
}

/// The descriptor and the C entry points the host calls: plain C function pointers that
/// find the plugin through the handle `instantiate` returned.
///
/// LV2 threading classes (lv2.h, "Threading Rules"): `instantiate`, `cleanup` and
/// `extension_data` are the Instantiation class (never concurrent with any other call
/// of the instance); `activate`/`deactivate` too; `connect_port` and `run` are the
/// Audio class (the render thread; `connect_port` may also come before `activate`).
enum LV2Entry {
    /// The plugin's URI, as in manifest.ttl: it names the plugin in every host's session
    /// file, so it never changes.
    static let uri: StaticString = "urn:bendsynth:lv2"

    nonisolated(unsafe) static let descriptor: UnsafeMutablePointer<LV2_Descriptor> = {
        let d = UnsafeMutablePointer<LV2_Descriptor>.allocate(capacity: 1)
        d.initialize(to: LV2_Descriptor(
            URI: UnsafeRawPointer(uri.utf8Start).assumingMemoryBound(to: CChar.self),
            instantiate: { _, rate, bundle, features in
                LV2Plugin.instantiate(rate: rate, bundle: bundle.map { String(cString: $0) } ?? ".", features: features)
            },
            connect_port: { handle, port, data in LV2Plugin.render(handle).pointee.connect(port: port, to: data) },
            activate: { handle in LV2Plugin.from(handle).activate() },
            run: { handle, frames in LV2Plugin.render(handle).pointee.run(frames: Int(frames)) },
            deactivate: { handle in LV2Plugin.from(handle).deactivate() },
            cleanup: { handle in LV2Plugin.cleanup(handle) },
            extension_data: { uri in
                guard let uri else { return nil }
                return LV2Extensions.data(for: String(cString: uri))
            }))
        return d
    }()
}
