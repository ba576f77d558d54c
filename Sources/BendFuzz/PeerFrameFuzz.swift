// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers

extension FuzzTarget {
    /// The peer frame codec (protocol v1): the input as a TCP byte stream in reads of
    /// varying size through `FrameStreamDecoder`; every frame it accepts encodes back to
    /// a frame that decodes to the same message. Seeds: frames of each message type.
    static let peerFrames = FuzzTarget(name: "peer-frames", maxLength: 4096) { bytes in
        var stream = FrameStreamDecoder()
        for (read, _) in FuzzInput.reads(bytes) {
            guard let messages = try? stream.feed(read) else { return }
            for m in messages {
                let frame = FrameCodec.encode(m)
                guard let again = try? FrameCodec.decode(body: frame.dropFirst(2)) else {
                    violated("peer-frames", "\(m) encodes to a frame that does not decode")
                }
                if again != m { violated("peer-frames", "\(m) decodes back as \(again)") }
            }
        }
    }
}
