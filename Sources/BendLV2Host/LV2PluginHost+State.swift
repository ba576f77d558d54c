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
        apply(state)
    }

    /// Applies the preset `uri` (a pset:Preset of the plugin's bundle, or any bundle on the
    /// LV2 path): its control ports' values and its state, as a host's preset menu does.
    public func loadPreset(_ uri: String) throws {
        let node = lilv_new_uri(world, uri)
        defer { lilv_node_free(node) }
        lilv_world_load_resource(world, node)
        guard let state = lilv_state_new_from_world(world, lv2host_map(host), node) else {
            throw Failure(description: "no preset \(uri)")
        }
        defer { lilv_state_free(state) }
        apply(state)
    }

    /// Restores `state` into the instance as a host does: the plugin's restore, the
    /// control ports' values; then the files the restore scheduled are loaded before the
    /// next block, as a host's worker would.
    private func apply(_ state: OpaquePointer) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let setValue: LilvSetPortValueFunc = { symbol, user, value, size, type in
            let host = Unmanaged<LV2PluginHost>.fromOpaque(user!).takeUnretainedValue()
            guard let symbol, let value, size == 4, let p = host.controlPointer(String(cString: symbol)) else { return }
            p.pointee = value.load(as: Float.self)
        }
        lilv_state_restore(state, instance, setValue, me, 0, lv2host_features(host))
        runWork()
    }

    /// The presets the world knows for the plugin (pset:Preset URIs and labels).
    public func presets() -> [(uri: String, label: String)] {
        let presetClass = lilv_new_uri(world, "http://lv2plug.in/ns/ext/presets#Preset")
        let label = lilv_new_uri(world, "http://www.w3.org/2000/01/rdf-schema#label")
        defer { lilv_node_free(presetClass); lilv_node_free(label) }
        guard let related = lilv_plugin_get_related(plugin, presetClass) else { return [] }
        defer { lilv_nodes_free(related) }
        var found: [(String, String)] = []
        var i = lilv_nodes_begin(related)
        while !lilv_nodes_is_end(related, i) {
            let node = lilv_nodes_get(related, i)
            lilv_world_load_resource(world, node)
            let name = lilv_world_get(world, node, label, nil)
            found.append((String(cString: lilv_node_as_uri(node)), name.map { String(cString: lilv_node_as_string($0)) } ?? ""))
            if let name { lilv_node_free(name) }
            i = lilv_nodes_next(related, i)
        }
        return found.sorted { $0.0 < $1.0 }
    }
}
