// SPDX-License-Identifier: GPL-3.0-or-later
/// `extension_data`: the interfaces the plugin implements, by URI (the worker's; the
/// state's).
/// - Thread: any (the host may ask at any time; the answer never changes).
enum LV2Extensions {
    static func data(for uri: String) -> UnsafeRawPointer? {
        switch uri {
        case LV2URI.workerInterface: UnsafeRawPointer(PluginWorker.interface)
        case LV2URI.stateInterface: UnsafeRawPointer(PluginState.interface)
        default: nil
        }
    }
}
