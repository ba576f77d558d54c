/// `extension_data`: the interfaces the plugin implements, by URI (none yet beyond the
/// core; the worker and state interfaces come with file loading).
/// - Thread: any (the host may ask at any time; the answer never changes).
enum LV2Extensions {
    static func data(for uri: String) -> UnsafeRawPointer? {
        nil
    }
}
