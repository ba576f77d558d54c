// SPDX-License-Identifier: GPL-3.0-or-later
import CLilv
import CLV2
import CLV2Host
import Glibc

/// State through lilv (state.h: the plugin's save/restore, plus every input control
/// port's value), as a DAW keeps it in its session: saved to Turtle text, restored from
/// it into this or another instance of the plugin (another host).
extension LV2PluginHost {
    /// The plugin's state now (its state:interface save, and the input control ports),
    /// as Turtle.
    public func saveState() throws -> String {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let getValue: LilvGetPortValueFunc = { symbol, user, size, type in
            let host = Unmanaged<LV2PluginHost>.fromOpaque(user!).takeUnretainedValue()
            guard let symbol, let p = host.controlPointer(String(cString: symbol)) else { return nil }
            size?.pointee = 4
            type?.pointee = host.urid("http://lv2plug.in/ns/ext/atom#Float")
            return UnsafeRawPointer(p)
        }
        let flags = LV2_STATE_IS_POD.rawValue | LV2_STATE_IS_PORTABLE.rawValue
        guard let state = lilv_state_new_from_instance(plugin, instance, lv2host_map(host), nil, nil, nil, nil, getValue, me, flags,
                                                       lv2host_features(host)) else {
            throw Failure(description: "lilv_state_new_from_instance failed: \(log())")
        }
        defer { lilv_state_free(state) }
        guard let text = lilv_state_to_string(world, lv2host_map(host), lv2host_unmap(host), state, "urn:bendsynth:test-state", nil) else {
            throw Failure(description: "lilv_state_to_string failed")
        }
        defer { lilv_free(text) }
        return String(cString: text)
    }

    /// Restores state saved by `saveState` (of any instance of the same plugin): the
    /// plugin's restore, and the control ports' values.
    public func restoreState(_ text: String) throws {
        guard let state = lilv_state_new_from_string(world, lv2host_map(host), text) else {
            throw Failure(description: "lilv_state_new_from_string failed")
        }
        defer { lilv_state_free(state) }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let setValue: LilvSetPortValueFunc = { symbol, user, value, size, type in
            let host = Unmanaged<LV2PluginHost>.fromOpaque(user!).takeUnretainedValue()
            guard let symbol, let value, size == 4, let p = host.controlPointer(String(cString: symbol)) else { return }
            p.pointee = value.load(as: Float.self)
        }
        lilv_state_restore(state, instance, setValue, me, 0, lv2host_features(host))
        // Files the restore scheduled are loaded before the next block, as a host's
        // worker would.
        runWork()
    }
}
