// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// The page's files, read once at start from the asset folder (`Assets/web`): only these
/// names are ever served, from memory, so no request path reaches the file system.
public struct WebAssets: Sendable {
    /// The files of the page: name → content type.
    public static let files: [String: String] = [
        "index.html": "text/html; charset=utf-8",
        "pad.js": "text/javascript; charset=utf-8",
        "pad.css": "text/css; charset=utf-8",
    ]

    public struct File: Sendable {
        public var contentType: String
        public var body: [UInt8]
    }
    /// By request path (`/` is `/index.html`).
    private let byPath: [String: File]
    public let directory: String

    /// Reads every file of the page from `directory`.
    /// - Throws: `WebAssetsError` naming the missing file.
    public init(directory: String) throws(WebAssetsError) {
        var byPath: [String: File] = [:]
        for (name, type) in WebAssets.files {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
                throw WebAssetsError("the web page's file '\(directory)/\(name)' cannot be read")
            }
            byPath["/" + name] = File(contentType: type, body: [UInt8](data))
        }
        byPath["/"] = byPath["/index.html"]
        self.byPath = byPath
        self.directory = directory
    }

    /// The file served at `path` (the request's path, query excluded), nil for any other.
    public func file(at path: String) -> File? { byPath[path] }
}

public struct WebAssetsError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// The text of a NUL-terminated C buffer.
func cText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
